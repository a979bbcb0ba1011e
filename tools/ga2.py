"""ga2: assemble, disassemble, time and run GA-2 programs from the command line.

  ga2 asm PROG.s [-o PROG.hex]          assemble text into instruction words (hex, one a line)
  ga2 disasm PROG.hex|PROG.s            print the program as text (round-trips with asm)
  ga2 cycles PROG                       the timing model's prediction, per instruction and total
  ga2 run PROG --sim model|icarus|verilator|both [--ext IMAGE] [--ext-words N]
          [--waves FILE] [--max-cycles N] [--ext-out FILE]
  ga2 generate "PROMPT" --tokens N [--batch-file F] [--sim model|icarus|verilator]
          [--task text|add] [--mode inorder|overlap] [--weights FILE]
                                        the trained model decoding on the chip (docs/lm.md)
  ga2 generate --model smollm2 "PROMPT" --tokens N [--sim model|int|float] [--chat] [--json F]
                                        SmolLM2-135M-Instruct on the chip (docs/smollm2.md)
  ga2 eval --model smollm2 [--text FILE] [--tokens N] [--json FILE] [--rows all|int] [--pv-tile N]
                                        SmolLM2-135M's integer reference (the chip's numerics)
                                        against its float reference: top-1 agreement, perplexity,
                                        one row per numeric decision (tools/smollm2/evaluate.py)
  ga2 serve [--sim model|icarus|verilator] [--requests N --rate R | --workload FILE]
          [--policies P,...] [--blocks N] [--mode inorder|overlap] [--sweep | --spec]
                                        serving the language model (python -m tools.serve.lm_run's
                                        options; docs/serving_lm.md, "Serving the language model")
  ga2 serve --model smollm2 [--sim model|icarus|verilator] [--requests N | --workload FILE]
          [--policies P,...] [--blocks N] [--slots N] [--mode inorder|overlap] [--json F]
                                        the server's policies on SmolLM2-135M, paged KV pool,
                                        live on the simulators (tools/smollm2/serve.py)

PROG is assembly text (model/asm.py: one `OP field=value ...` a line), or a .hex file of
128-bit words, of up to 2,097,151 instructions: a program longer than the default chip's
1,024-word instruction memory runs on a chip whose memory is the smallest power of two
holding it (model/config.py Config.for_program; the pc is 21 bits). IMAGE is the
external memory before the run: a .hex file (8 hex digits a line, as $readmemh reads), a
.npy array, or text of integers (decimal or 0x hex).

Exit codes: 0 success (for run: every simulator equal to the reference, no fault);
1 a simulator differs from the reference (a chip bug: the first divergence is printed);
2 bad input (usage, assembly error, bad image; the message names the line or word);
3 the program faulted (the chip's error code and pc, equal on every simulator and the
reference); 4 the simulator itself failed (crashed, killed or hung: nothing is known of
the chip; the message names the simulator and the program).

Example (the worked example of docs/programming.md):
  ./ga2 cycles docs/examples/tiled_matmul.s
  ./ga2 run docs/examples/tiled_matmul.s --ext docs/examples/tiled_matmul_ext.txt --sim both
"""
import argparse
import sys
from pathlib import Path

import numpy as np

from model import config, isa, stalls, timing
from model.asm import AsmError, assemble_file
from model.hostio import memory_image, program_words
from model.machine import GA2Error, Machine
from model.wide import PV_TILE_SAFE
from tb import ROOT, cli
from tools.lm.compiler.wide_layout import PV_TILE

EXIT_OK, EXIT_MISMATCH, EXIT_INPUT, EXIT_FAULT, EXIT_SIM = 0, 1, 2, 3, 4


class InputError(Exception):
    """Bad input from the user: printed without a traceback, exit code 2."""


def _cfg(args):
    try:
        return config.DEFAULT if args.ext_words is None else config.parse_ext(args.ext_words)
    except ValueError as e:
        raise InputError(str(e)) from None


def _text(path):
    """A file's text (InputError naming it: missing, a directory, binary)."""
    try:
        return cli.text_file(path)
    except ValueError as e:
        raise InputError(str(e)) from None


def read_program(path, cfg, check=True):
    """A program from assembly text or a .hex file of 128-bit words, of up to
    config.IMEM_MAX instructions whatever cfg's instruction memory (fit() sizes it)."""
    cfg = cfg.replace(imem_depth=config.IMEM_MAX)
    p = Path(path)
    text = _text(path)
    if p.suffix == ".hex":
        words = []
        for n, line in enumerate(text.splitlines(), 1):
            tok = line.split("//", 1)[0].strip()
            if not tok:
                continue
            try:
                words.append(int(tok, 16))
            except ValueError:
                raise InputError(f"{path}:{n}: {tok!r} is not a hex word") from None
        if not words:
            raise InputError(f"{path}: no instructions")
        try:
            return program_words(words, cfg)
        except ValueError as e:
            raise InputError(f"{path}: {e}") from None
    try:
        prog = assemble_file(p, cfg, check=check)
    except AsmError as e:
        raise InputError(str(e)) from None
    if not prog:
        raise InputError(f"{path}: no instructions")
    return prog


def fit(cfg, prog):
    """cfg with an instruction memory that holds prog (Config.for_program)."""
    try:
        return cfg.for_program(len(prog))
    except ValueError as e:
        raise InputError(str(e)) from None


def traffic(words, trace, counters):
    """One line: the instruction words the chip read (the fetch counter, 128 bits each:
    four 32-bit words) against the data words its DMA moved (the retired instructions'
    LD / ST / LDX lengths, model/isa.py words)."""
    data = sum(isa.words(isa.decode(words[pc])) for pc, _ in trace)
    inst = 4 * counters.fetch
    share = f"{100 * inst / data:.2f}% of" if data else "no"
    return (f"instruction traffic: {counters.fetch} words of 128 bits fetched = {inst} words of 32 bits, "
            f"{share} the data traffic ({data} words moved by the DMA)")


def read_image(path, cfg):
    """The external memory image from a .hex, .npy or integer text file (None: all zero)."""
    if path is None:
        return memory_image(None, cfg.ext_words)
    p = Path(path)
    if not p.exists():
        raise InputError(f"{path}: no such file")
    try:
        if p.suffix == ".npy":
            try:
                data = np.load(p, allow_pickle=False)
            except (OSError, EOFError) as e:
                raise ValueError(f"not a .npy array ({e})") from None
            if data.ndim != 1:
                raise InputError(f"{path}: an array of shape {data.shape}, expected one dimension of words")
        elif p.suffix == ".hex":
            data = []
            for n, line in enumerate(_text(path).splitlines(), 1):
                tok = line.split("//", 1)[0].strip()
                if tok:
                    try:
                        data.append(int(tok, 16))
                    except ValueError:
                        raise InputError(f"{path}:{n}: {tok!r} is not a hex word") from None
        else:
            data = []
            for n, line in enumerate(_text(path).splitlines(), 1):
                for tok in line.split("#", 1)[0].replace(",", " ").split():
                    try:
                        data.append(int(tok, 0))
                    except ValueError:
                        raise InputError(f"{path}:{n}: {tok!r} is not an integer") from None
        if len(data) == 0:
            raise InputError(f"{path}: no words")
        return memory_image(data, cfg.ext_words)
    except ValueError as e:
        raise InputError(f"{path}: {e}") from None


def cmd_asm(args):
    cfg = _cfg(args)
    prog = read_program(args.prog, cfg, check=not args.raw)
    text = "".join(f"{w:032x}\n" for w in program_words(prog, fit(cfg, prog)))
    if args.output:
        Path(args.output).write_text(text)
        print(f"wrote {args.output} ({len(prog)} instructions)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def cmd_disasm(args):
    cfg = _cfg(args)
    print(isa.disasm(read_program(args.prog, cfg, check=False)))
    return EXIT_OK


def cmd_cycles(args):
    cfg = _cfg(args).replace(mode=args.mode)
    prog = read_program(args.prog, cfg, check=not args.raw)
    cfg = fit(cfg, prog)
    words = program_words(prog, cfg)
    s = timing.schedule(words, cfg)
    pw = max(4, len(str(len(words) - 1)))       # the pc column: as wide as the last pc
    print(f"{'pc':>{pw}}  {'instruction':<60} {'unit':>5} {'issue':>7} {'busy':>13} {'retire':>7}")
    for e in s.events:
        ins = isa.decode(words[e.pc])
        busy = f"{e.start}..{e.end}" if e.unit else "-"
        print(f"{e.pc:{pw}d}  {(ins.op + ' ' + isa.format_fields(ins)).strip():<60} {e.unit or '-':>5} "
              f"{e.issue:7d} {busy:>13} {e.retire:7d}")
    c = s.counters
    print(f"total {c.cycles} cycles (predicted by the timing model, mode {cfg.mode}; mm {c.mm}, "
          f"dma {c.dma}, vec {c.vec}, instret {c.instret}, fetch {c.fetch})")
    print(traffic(words, timing.trace(s), c))
    if cfg.mode == "overlap" and not s.fault:
        for unit in stalls.UNITS:
            print(f"{unit} idles {stalls.describe(stalls.idle(words, cfg, unit))}")
    if s.fault:
        print(f"the program faults: error {s.fault.code} ({isa.ERROR_NAMES.get(s.fault.code, '?')}) "
              f"at pc {s.fault.pc}: {s.reason}")
        return EXIT_FAULT
    return EXIT_OK


def _show(label, counters, error, code, pc):
    c = counters
    state = f"error {code} ({isa.ERROR_NAMES.get(code, '?')}) at pc {pc}" if error else "halted"
    print(f"{label:<10} {state}; cycles {c.cycles} mm {c.mm} dma {c.dma} vec {c.vec} instret {c.instret} "
          f"fetch {c.fetch}")


def _per_sim(path, sim):
    """out/x.vcd -> out/x.icarus.vcd: one waveform file per simulator."""
    p = Path(path)
    return str(p.with_name(f"{p.stem}.{sim}{p.suffix or '.vcd'}"))


def cmd_run(args):
    cfg = _cfg(args)
    prog = read_program(args.prog, cfg, check=not args.raw)
    cfg = fit(cfg, prog)
    words = program_words(prog, cfg)
    image = read_image(args.ext, cfg)
    try:
        ref = Machine(cfg).run(words, image)
    except GA2Error as e:
        ref = e
    faulted = isinstance(ref, GA2Error)
    _show("reference", ref.counters, faulted, getattr(ref, "code", 0), getattr(ref, "pc", 0))
    print(traffic(words, ref.trace, ref.counters))
    sims = {"model": (), "both": ("icarus", "verilator")}.get(args.sim, (args.sim,))
    rc = EXIT_FAULT if faulted else EXIT_OK
    final_ext = ref.ext
    if sims:
        from tb import hw
        missing = [s for s in sims if s not in hw.available_sims()]
        if missing:
            raise InputError(f"simulator(s) not installed: {', '.join(missing)} (make setup installs them)")
        kw = {}
        if args.max_cycles is not None:
            kw["max_cycles"] = args.max_cycles
        for sim in sims:
            if args.waves:
                kw["waves_file"] = args.waves if len(sims) == 1 else _per_sim(args.waves, sim)
            try:
                (res,) = hw.run_programs(sim, [(words, image)], cfg=cfg, **kw)
            except hw.ToolFault as e:
                print(f"{sim}: FAULT OF THE SIMULATOR, not a result of the chip: {e}")
                return EXIT_SIM
            _show(sim, res.counters, res.error, res.error_code, res.error_pc)
            if not res.ok:
                print(f"{sim}: MISMATCH against the reference: {res.mismatch}")
                rc = EXIT_MISMATCH
            final_ext = res.ext
            if args.waves:
                print(f"{sim}: waveform in {kw['waves_file']}")
    if args.ext_out:
        Path(args.ext_out).write_text("".join(f"{int(v) & 0xFFFFFFFF:08x}\n" for v in final_ext))
    return rc


def cmd_generate_smollm2(args):
    """ga2 generate --model smollm2: tools/smollm2/generate.py."""
    from tools.smollm2 import generate as S
    toy = [f"--{k.replace('_', '-')}" for k in ("batch_file", "weights", "kv_heads", "window", "sinks", "ctx",
                                               "tile") if getattr(args, k)]
    if args.task != "text" or args.kv_bits != 8 or toy:
        raise InputError(f"generate --model smollm2: {', '.join(toy) or '--task/--kv-bits'} "
                         "applies to the toy model only")
    if args.prompt is None:
        raise InputError("generate --model smollm2: no prompt")
    return _smollm2("generate", lambda: S.run(args.prompt, args.tokens, args.sim, args.mode, args.chat,
                                              args.json))


def _smollm2(what, body):
    """body()'s exit code: a ValueError is bad input (exit 2, one line naming `what`), a
    RuntimeError the model's fetch failing (pip or the network: one line, exit 1)."""
    try:
        return body()
    except ValueError as e:
        raise InputError(f"{what}: {cli.one_line(e)}") from None
    except RuntimeError as e:
        print(f"ga2: {what}: {cli.one_line(e)}", file=sys.stderr)
        return EXIT_MISMATCH


def cmd_generate(args):
    if args.model == "smollm2":
        return cmd_generate_smollm2(args)
    if args.sim in ("int", "float") or args.chat or args.json:
        raise InputError("generate: --sim int/float, --chat and --json are for --model smollm2")
    from tools.lm import compiler as C
    from tools.lm import generate as G
    from tools.lm import generation
    try:
        model = G.load_model(args.task, args.weights, args.kv_heads, args.kv_bits, args.ctx)
        texts = [args.prompt] if args.prompt is not None else []
        if args.batch_file:
            lines = [ln for ln in cli.text_file(args.batch_file).split("\n") if ln.strip()]
            if not lines:
                raise ValueError(f"--batch-file {args.batch_file}: no prompts")
            texts += lines
        if not texts:
            raise ValueError("no prompt: give PROMPT or --batch-file")
        prompts = []
        for t in texts:
            try:
                prompts.append(G.encode_prompt(args.task, t))
            except ValueError as e:
                raise ValueError(f"prompt {t[:40]!r}: {e}") from None
        cfg = C.LM_CHIP if args.mode == "inorder" else C.LM_CHIP_OVERLAP
        rem = None
        if args.kv_bits == 4 or args.window or args.sinks or args.tile or args.ctx > 64 or \
                model.cfg.kv_heads:
            rem = C.Remedies(kv_bits=args.kv_bits, window=args.window, sinks=args.sinks,
                             tile=args.tile)
        if args.ctx and any(len(p) + args.tokens > max(args.ctx, 1) for p in prompts):
            raise ValueError(f"a prompt and --tokens {args.tokens} exceed --ctx {args.ctx}")
        try:
            if rem is None:
                gen = generation.Generation(model, prompts, args.tokens, chip=cfg)
            else:
                gen = generation.generation(model, prompts, args.tokens, rem, args.mode)
        except ValueError as e:
            raise ValueError(f"the prompt(s) and --tokens {args.tokens}: {e}") from None
    except ValueError as e:
        raise InputError(str(e)) from None
    single = len(prompts) == 1
    shown = [0]

    def on_step(k, ext):                       # one sequence: print each id as it lands
        if single:
            ids = gen.tokens(ext)[0]
            got = [t for t in ids[:sum(r.write for rows in gen.steps[:k + 1] for r in rows)]]
            if args.task == "text":
                print(G.data.decode(got[shown[0]:]), end="", flush=True)
            shown[0] = len(got)

    if single and args.task == "text":
        print(texts[0], end="", flush=True)
    from tb import hw
    try:
        out = G.run(gen, args.sim, on_step=on_step)
    except ValueError as e:
        raise InputError(str(e)) from None
    except hw.ToolFault as e:
        print(f"\n{args.sim}: FAULT OF THE SIMULATOR, not a result of the chip: {e}")
        return EXIT_SIM
    if single and args.task == "text":
        print()
    else:
        for p, t in zip(prompts, out.tokens):
            print(G.show(args.task, p, t))
    cycles = sum(int(c.cycles) for c in out.counters)
    made = sum(gen.new)
    print(f"{args.sim} ({args.mode}): {len(gen.steps)} steps, {cycles} cycles, {made} tokens, "
          f"{1000 * made / cycles:.3f} tokens per 1,000 cycles (batch {len(prompts)})")
    fetched = sum(int(c.fetch) for c in out.counters)
    data = sum(isa.program_words(p) for p in gen.programs())
    print(f"instruction traffic: {fetched} words of 128 bits fetched = {4 * fetched} words of 32 bits, "
          f"{100 * 4 * fetched / data:.2f}% of the data traffic ({data} words moved by the DMA)")
    if out.error:
        print(f"FAIL: {out.error}")
        return EXIT_MISMATCH
    same = out.tokens == out.ref_tokens
    verdict = "PASS" if same and out.kv_ok and out.steps_ok else "FAIL"
    print(f"{verdict}: tokens {'equal' if same else 'differ from'} the integer reference's, "
          f"KV cache {'equal' if out.kv_ok else 'differs'}"
          + ("" if args.sim == "model" else
             f", every step {'equal to' if out.steps_ok else 'differs from'} the reference chip"))
    return EXIT_OK if verdict == "PASS" else EXIT_MISMATCH


def parser():
    ap = cli.Parser(prog="ga2", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("Exit codes:", 1)[1].join(["Exit codes:", ""]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(p, raw=False):
        p.add_argument("prog", type=cli.in_file, help="assembly text, or .hex of 128-bit words")
        p.add_argument("--ext-words", default=None, type=cli.integer(1, 1 << config.ADDR_W),
                       help="external memory words (default 4096)")
        if raw:
            p.add_argument("--raw", action="store_true",
                           help="only check that fields fit (deliberately bad programs)")

    p = sub.add_parser("asm", help="assemble text into instruction words")
    common(p, raw=True)
    p.add_argument("-o", "--output", type=cli.out_file(parents=False), help="write the words here (default stdout)")
    p.set_defaults(func=cmd_asm)
    p = sub.add_parser("disasm", help="print a program as text")
    common(p)
    p.set_defaults(func=cmd_disasm)
    p = sub.add_parser("cycles", help="the timing model's prediction, per instruction and total")
    common(p, raw=True)
    p.add_argument("--mode", default="inorder", choices=("inorder", "overlap"),
                   help="the timing mode (default inorder); overlap also says where each unit idles")
    p.set_defaults(func=cmd_cycles)
    p = sub.add_parser("run", help="run on the reference and on simulators")
    common(p, raw=True)
    p.add_argument("--sim", default="model", choices=("model", "icarus", "verilator", "both"))
    p.add_argument("--ext", type=cli.in_file, help="external memory image (.hex, .npy or integer text)")
    p.add_argument("--ext-out", type=cli.out_file(parents=False),
                   help="write the final external memory here (8 hex digits a line)")
    p.add_argument("--waves", type=cli.out_file(), help="write the simulation's waveform (VCD) here")
    p.add_argument("--max-cycles", type=cli.integer(1, 2 ** 31 - 1), default=None,
                   help="cycle limit of a simulation (default: derived from the prediction)")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("generate", help="generate text (or sums) with the trained model on the chip")
    p.add_argument("prompt", nargs="?", help="the prompt (for --task add: A+B)")
    p.add_argument("--tokens", type=cli.integer(1), required=True, help="tokens to generate per prompt")
    p.add_argument("--batch-file", type=cli.in_file, help="more prompts, one a line (one batch)")
    p.add_argument("--sim", default="model", choices=("model", "icarus", "verilator", "int", "float"),
                   help="the chip's reference Machine or a simulator; with --model smollm2 also "
                        "int or float (the integer or float reference alone)")
    p.add_argument("--model", default="toy", choices=("toy", "smollm2"),
                   help="toy: the trained toy models (--task); smollm2: SmolLM2-135M-Instruct "
                        "(docs/smollm2.md)")
    p.add_argument("--chat", action="store_true", help="smollm2: wrap the prompt in the chat template")
    p.add_argument("--json", type=cli.out_file(), help="smollm2: write {prompt, tokens, text, sim, cycles, pass}")
    p.add_argument("--task", default="text", choices=("text", "add"))
    p.add_argument("--mode", default="overlap", choices=("inorder", "overlap"))
    p.add_argument("--weights", type=cli.in_file, help="an int8 export (default: the task's committed one)")
    p.add_argument("--kv-heads", type=cli.integer(1, 2), default=0,
                   help="remedy: 1 = the multi-query model (one KV head for both query heads)")
    p.add_argument("--kv-bits", type=int, choices=(4, 8), default=8,
                   help="remedy: 4 = the 4-bit KV cache (PACK4 / UNPACK4 on chip)")
    p.add_argument("--window", type=cli.integer(2, 1024), default=0,
                   help="remedy: attend the last W tokens (with --sinks S, the first S and the last W - S)")
    p.add_argument("--sinks", type=cli.integer(0, 1023), default=0, help="attention sinks of --window")
    p.add_argument("--ctx", type=cli.integer(1, 1024), default=0,
                   help="remedy: contexts past 64 tokens (the text model of 256 positions; tiled attention)")
    p.add_argument("--tile", type=cli.integer(1, 255), default=0,
                   help="remedy: stream the cached K and V in tiles of this many rows")
    p.set_defaults(func=cmd_generate)
    p = sub.add_parser("eval", help="SmolLM2-135M's integer reference against its float reference")
    p.add_argument("--model", required=True, help="smollm2 (the only one)")
    p.add_argument("--text", type=cli.in_file, default=None,
                   help="score this file's first --tokens tokens (default: the pydoc held-out slice)")
    p.add_argument("--tokens", type=cli.integer(2, 8192), default=1024,
                   help="tokens scored as one sequence, no BOS (2..8,192, the context)")
    p.add_argument("--json", type=cli.out_file(), default=str(Path(ROOT) / "out" / "smollm2_eval.json"))
    p.add_argument("--rows", choices=("all", "int"), default="all",
                   help="int: the float and integer rows alone (no fake quantization)")
    p.add_argument("--pv-tile", type=cli.integer(1, PV_TILE_SAFE), default=PV_TILE,
                   help=f"the integer reference's weighted sum of V in tiles of this many keys "
                        f"(default {PV_TILE}: the chip's, tools/lm/compiler/wide_layout.py; {PV_TILE_SAFE} at "
                        "most: docs/smollm2.md \"Headroom\")")
    p.set_defaults(func=cmd_eval)
    p = sub.add_parser("serve", add_help=False,
                       help="serve the language model on the chip (python -m tools.serve.lm_run's options)")
    return ap


def cmd_eval(args):
    """ga2 eval --model smollm2: tools/smollm2/evaluate.py."""
    from tools.smollm2 import evaluate
    return _smollm2("eval", lambda: evaluate.main(args))


def cmd_serve(argv):
    """ga2 serve: every option is python -m tools.serve.lm_run's (its parser, named ga2
    serve); with --model smollm2, tools/smollm2/serve.py's."""
    argv = list(argv)
    if "--model=smollm2" in argv or any(a == "--model" and b == "smollm2" for a, b in zip(argv, argv[1:])):
        from tools.smollm2 import serve
        return serve.main(argv)
    from tools.serve import lm_run
    return lm_run.main(argv, prog="ga2 serve")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "serve":         # its options are lm_run's: handed over whole
        return cmd_serve(argv[1:])
    try:
        args = parser().parse_args(argv)
    except SystemExit as e:                 # bad usage: the one line is printed, exit 2
        return e.code
    try:
        return args.func(args)
    except InputError as e:
        print(f"ga2: {e}", file=sys.stderr)
        return EXIT_INPUT


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
