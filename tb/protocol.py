"""The files between the Python side and the GA-2 benches: every name and every format.

Why one module: each bench reads and writes a fixed set of files (the Verilog side names
them with $sformat), so the names and layouts are stated once, here, and every Python
caller (tb/sim/run.py, tb/sim/plain.py, tb/mutation/rtl/suite.py) goes through these
functions; tests/tb/test_one_judge.py fails when another module builds a "pK_" name.

The binary memory images of the cocotb wrapper: write_bin (issue 37: a bulk load, several
times $readmemh's speed on Verilator). Hex helpers: write_words (any width), write_imem
(128-bit instructions, zero-padded to the instruction memory's depth so $readmemh never
warns of a short file), write_mem32
(ext or scratchpad images, 32-bit two's complement); parse_mem32 ($writememh text ->
signed words and the indices that hold x/z, vectorised), read_status ("key value" lines
in hex, x/z reported), read_trace ("pc cycle" lines).

The cocotb wrapper (tb/hdl/ga2_tb.v), per program k of a run directory: inputs
pK_imem.bin, pK_ext.bin (optional: without it the external memory is kept), pK_sp.bin
(optional) -- write_bin's raw big-endian words, one $fread each -- pK_ctl.hex (gap
abort_at) and jobs.txt (first, count, wait per job);
outputs pK_status.txt, pK_trace.txt, pK_ext_out.hex, pK_bus.txt, and with +cov
pK_cov.txt (tb/coverage.py read_cov). write_jobs, read_jobs, write_program; has_outcome,
read_outcome, read_bus.
A live run (tb/drivers/ga2_live.py, tb/sim/live.py Live) has no jobs.txt: the host writes
program k's inputs after program k-1's outcome, then pK_go.txt; the driver waits for it
(or for end.txt: no more programs) before it starts program k. write_go, write_end,
live_next.

The mutation bench (tb/hdl/mut_rtl_tb.v), per program p of the suite directory: pP_imem.hex,
pP_ext.hex and pP_exp.hex (not for a light program), pP_meta.hex (META, then the trace);
the unit vectors rq.hex, dv.hex, pf.hex. write_mut_program, read_mut_program,
write_unit_vectors.

The plain bench (tb/hdl/tb_plain.v), one directory per call: imem.hex, ext_in.hex,
sp_in.hex (optional) in, ext_out.hex and trace.txt out, one "RESULT key=value ..." line
per run on stdout. plain_inputs, read_plain.
"""
import functools
import re
from pathlib import Path

# numpy is imported by the functions that use it, not here: the cocotb drivers import this
# module inside every simulator process, where numpy's import alone would cost more than
# a thousand-cycle program (tests/tb/test_one_judge.py keeps it out)


@functools.cache
def _nibble():
    """A table of each ASCII code's hex digit value, -1 for a non-digit."""
    import numpy as np
    t = np.full(256, -1, dtype=np.int64)
    for i, c in enumerate("0123456789abcdef"):
        t[ord(c)] = i
        t[ord(c.upper())] = i
    return t


def write_words(path, words, digits):
    """One word a line, `digits` hex digits each (words are masked to that width)."""
    mask = (1 << (4 * digits)) - 1
    Path(path).write_text("".join(format(int(w) & mask, f"0{digits}x") + "\n" for w in words))


def write_imem(path, words, depth=None):
    """128-bit instruction words, then zero words up to depth (when given)."""
    words = [int(w) for w in words]
    if depth is not None and len(words) > depth:
        raise ValueError(f"program of {len(words)} instructions exceeds instruction memory ({depth})")
    pad = 0 if depth is None else depth - len(words)
    Path(path).write_text("".join(f"{w:032x}\n" for w in words) + ("0" * 32 + "\n") * pad)


def write_bin(path, words, width, depth=None):
    """The cocotb wrapper's memory image (tb/hdl/ga2_harness.v load_bin, one $fread):
    words of width bits (32: two's complement, 128: instructions), each ceil(width / 8)
    bytes, big-endian, then zero words up to depth (when given). The one writer of the
    binary format: its load is several times $readmemh's on Verilator (tools/bench/bench_load.py)."""
    import numpy as np
    nbytes = (int(width) + 7) // 8
    if depth is not None and len(words) > depth:
        raise ValueError(f"{len(words)} words exceed the memory's {depth}")
    if width == 32:
        body = (np.asarray(words, dtype=np.int64).ravel() & 0xFFFFFFFF).astype(">u4").tobytes()
    else:
        mask = (1 << int(width)) - 1
        body = b"".join((int(w) & mask).to_bytes(nbytes, "big") for w in words)
    pad = 0 if depth is None else depth - len(words)
    Path(path).write_bytes(body + bytes(nbytes * pad))


def write_mem32(path, image):
    """32-bit words (ext or scratchpad image), two's complement: 8 lower-case hex digits a
    line, built as one byte array (a soak writes a 4,096-word image per program)."""
    import numpy as np
    img = (np.asarray(image, dtype=np.int64).ravel() & 0xFFFFFFFF).astype(">u4")
    out = np.empty((img.size, 9), dtype=np.uint8)
    out[:, :8] = np.frombuffer(img.tobytes().hex().encode("ascii"), dtype=np.uint8).reshape(-1, 8)
    out[:, 8] = ord("\n")
    Path(path).write_bytes(out.tobytes())


def hexint(tok):
    """int of a hex token; None when it holds x or z."""
    t = tok.lower()
    if any(c in t for c in "xz"):
        return None
    return int(t, 16)


_COMMENT_LINES = re.compile(r"^[ \t]*(?://|@)[^\n]*\n", re.M)


def parse_mem32(text, words, what="memory"):
    """($writememh text of 32-bit words) -> (signed np.int64 array, [indices holding x/z]).

    Comment lines (Icarus writes '// 0x...' address comments) and @address lines are
    dropped, then each 8-digit line is decoded through a nibble table; text in exactly the
    simulators' layout (8 digits and a newline a word) is decoded as one byte array.
    """
    import numpy as np
    body = _COMMENT_LINES.sub("", text) if ("/" in text or "@" in text) else text
    raw = np.frombuffer(body.encode("ascii", "replace"), dtype=np.uint8)
    if raw.size == 9 * words and (raw[8::9] == ord("\n")).all() and body.isascii():
        try:                                     # the simulators' own layout: no per-line work
            val = np.frombuffer(bytes.fromhex(body), dtype=">i4").astype(np.int64)
            return val, []
        except ValueError:                       # x/z (or another non-hex character): by nibbles
            raw = raw.reshape(words, 9)[:, :8]
    else:
        lines = [ln.strip() for ln in text.split("\n")]
        lines = [ln for ln in lines if ln and not ln.startswith("//") and not ln.startswith("@")]
        if len(lines) != words:
            raise RuntimeError(f"{what} has {len(lines)} words, expected {words}")
        if any(len(ln) != 8 for ln in lines):
            raise RuntimeError(f"{what}: a line is not 8 hex digits")
        raw = np.frombuffer("".join(lines).encode("ascii"), dtype=np.uint8).reshape(words, 8)
    nib = _nibble()[raw]
    bad = np.nonzero((nib < 0).any(axis=1))[0]
    nib = np.where(nib < 0, 0, nib)
    val = np.zeros(words, dtype=np.int64)
    for k in range(8):
        val = (val << 4) | nib[:, k]
    return ((val ^ 0x80000000) - 0x80000000), [int(i) for i in bad]


def read_status(path):
    """The wrapper's status file ("key value ..." in hex, any number of lines) ->
    ({key: int, x/z read as 0}, [keys that held x/z])."""
    toks = Path(path).read_text().split()
    st = dict(zip(toks[0::2], toks[1::2]))
    xz = [k for k, v in st.items() if hexint(v) is None]
    return {k: (hexint(v) or 0) for k, v in st.items()}, xz


def read_trace(path, base=16):
    """"pc cycle" lines -> ([(pc, cycle)], number of entries that held x/z, read as 0)."""
    trace, bad = [], 0
    for line in Path(path).read_text().split("\n"):
        if line.strip():
            a, b = line.split()
            pa, pb = (None if any(c in t.lower() for c in "xz") else int(t, base) for t in (a, b))
            if pa is None or pb is None:
                bad += 1
            trace.append((pa or 0, pb or 0))
    return trace, bad


# ------------------------------------------------------------------ per-program files
# the wrapper's external memory is arrays of at most EXT_BANK words (Verilator refuses an
# unpacked array of more than 2^28 elements): past it ga2_harness.v's write_ext writes the
# words from EXT_BANK on into pK_ext_hi_out.hex (rtl/ga2_cfg.vh GA2_TB_EXT_BANK)
EXT_BANK = 1 << 28
# the pK_* files: "p<k>_" and these names (the wrapper's, then the mutation bench's own)
GA2_TB_FILES = {"imem": "imem.bin", "ext": "ext.bin", "sp": "sp.bin", "ctl": "ctl.hex",
                "status": "status.txt", "trace": "trace.txt", "ext_out": "ext_out.hex",
                "ext_hi_out": "ext_hi_out.hex", "bus": "bus.txt", "cov": "cov.txt", "go": "go.txt"}
MUT_FILES = {"mut_imem": "imem.hex", "mut_ext": "ext.hex", "exp": "exp.hex", "meta": "meta.hex"}
PROGRAM_FILES = {**GA2_TB_FILES, **MUT_FILES}


def program_file(d, k, what):
    """The path of program k's file `what` (a key of PROGRAM_FILES) in d; k None: the
    unprefixed name (a single program's outcome, as tests write it)."""
    if what not in PROGRAM_FILES:
        raise ValueError(f"unknown bench file {what!r} (known: {', '.join(sorted(PROGRAM_FILES))})")
    return Path(d) / (PROGRAM_FILES[what] if k is None else f"p{int(k)}_{PROGRAM_FILES[what]}")


# ------------------------------------------------------------------ the cocotb wrapper
JOBS_FILE = "jobs.txt"     # a line "first count wait_ns" per job (one request of the driver each)
CLOCK_NS = 10              # the wrapper's clock period (tb/hdl/ga2_tb.v: always #5 clk = ~clk)


def write_jobs(d, sizes, waits=None):
    """jobs.txt for jobs of sizes[j] programs, numbered on from 0. waits[j]: nanoseconds of
    simulated time the driver may let pass before it watches the wrapper's ack for job j
    (a lower bound of the job's length from the timing model, so the simulator runs the
    job without a Python callback on every evaluation; 0: watch from the start). A wait
    decides nothing: the driver then waits for ack as without it, and the outcome is read
    from the files either way."""
    waits = [0] * len(sizes) if waits is None else list(waits)
    if len(waits) != len(sizes) or any(int(w) < 0 for w in waits):
        raise ValueError(f"waits must be {len(sizes)} non-negative times, got {waits!r}")
    k, lines = 0, []
    for n, w in zip(sizes, waits):
        lines.append(f"{k} {int(n)} {int(w)}\n")
        k += int(n)
    (Path(d) / JOBS_FILE).write_text("".join(lines))


def read_jobs(d):
    """jobs.txt as [(first, count, wait_ns)] (write_jobs)."""
    out = []
    for line in (Path(d) / JOBS_FILE).read_text().splitlines():
        if line.strip():
            first, count, wait = (int(x) for x in line.split())
            out.append((first, count, wait))
    return out


def write_program(d, k, words, imem_depth, ext=None, sp=None, gap=0, abort_at=0):
    """Program k's inputs for the wrapper: its instructions, the external memory (None:
    no pK_ext.hex, the memory the previous program left is kept), the scratchpad preload
    (None: none) and the control words (idle cycles before the start, cut after abort_at
    cycles; 0 = no cut)."""
    write_bin(program_file(d, k, "imem"), list(words), 128, imem_depth)
    if ext is not None:
        write_bin(program_file(d, k, "ext"), ext, 32)
    if sp is not None:
        write_bin(program_file(d, k, "sp"), sp, 32)
    write_words(program_file(d, k, "ctl"), [gap, abort_at], 8)


# ------------------------------------------------------------------ a live run
END_FILE = "end.txt"       # a live run: no program after the last one started


def write_go(d, k):
    """Program k's inputs are complete: the live driver may start it (written last, by a
    rename, so the driver never sees a half-written file)."""
    path = program_file(d, k, "go")
    tmp = path.with_suffix(".tmp")
    tmp.write_text(f"{int(k)}\n")
    tmp.replace(path)


def write_end(d):
    """No more programs: the live driver ends the simulation once the last one has run."""
    (Path(d) / END_FILE).write_text("end\n")


def live_next(d, k):
    """What the live driver does next, program k being the next one: "go" (its inputs are
    complete), "end" (the host has ended the run) or None (not decided yet)."""
    if program_file(d, k, "go").exists():
        return "go"
    if (Path(d) / END_FILE).exists():
        return "end"
    return None


# every key of pK_status.txt, in the wrapper's order (tb/hdl/ga2_tb.v write_results): a
# status without all of them, or not ending in a newline, was torn (the simulator died
# while writing it)
STATUS_KEYS = tuple("done error code pc cycles mm dma vec instret fetch retire timeout wall imem_oob "
                    "ext_rd_oob ext_wr_oob xz sp_reads aborted cut_cycles idle_changes pre_done pre_error "
                    "pre_code pre_pc pre_cycles pre_mm pre_dma pre_vec pre_instret pre_fetch pre_retire "
                    "mon_count mon_rise "
                    "mon_hold mon_imem mon_ext mon_reset mon_epc mon_retire mon_clear run_cycles "
                    "pre_mon_count pre_mon_rise pre_mon_hold pre_mon_imem pre_mon_ext pre_mon_reset "
                    "pre_mon_epc pre_mon_retire pre_mon_clear".split())


def has_outcome(d, k):
    """Whether the wrapper wrote program k's status (it writes it last: after the trace, the
    bus log and the external memory)."""
    return program_file(d, k, "status").exists()


def outcome_problem(d, k):
    """Why program k has no complete outcome in d ('' when it has one): the status file
    is missing, or torn (a key of STATUS_KEYS missing, a value that is not hex, no final
    newline). The wrapper writes the status last, so a complete status means the
    program's other files were complete when it was written."""
    path = program_file(d, k, "status")
    try:
        text = path.read_text()
    except FileNotFoundError:
        return f"no {path.name}"
    except (OSError, UnicodeDecodeError) as e:
        return f"{path.name} unreadable ({e})"
    toks = text.split()
    st = dict(zip(toks[0::2], toks[1::2]))
    missing = [key for key in STATUS_KEYS if key not in st]
    if not text.endswith("\n") or len(toks) % 2 or missing:
        return (f"{path.name} torn ({len(toks) // 2} of {len(STATUS_KEYS)} keys"
                + (f", {missing[0]} missing" if missing else "") + ")")
    bad = [key for key, v in st.items() if not re.fullmatch(r"[0-9a-fA-FxXzZ]+", v)]
    if bad:
        return f"{path.name} torn ({bad[0]} = {st[bad[0]]!r} is not hex)"
    return ""


def read_outcome(d, k, ext_words, ext_from=0, ext_to=None):
    """Program k's output files, parsed: {"status": {key: int}, "status_xz": [keys with
    x/z], "trace": [(pc, cycle)], "trace_xz": entries with x/z, "ext": signed words,
    "ext_xz": [indices with x/z], "bus": read_bus's list or None}. A read-back window (the
    run's +ext_from and +ext_to): the file holds words ext_from .. ext_to - 1 only; "ext"
    is None and "ext_tail" is (ext_from, those words). Words from EXT_BANK on are in
    pK_ext_hi_out.hex, joined here."""
    import numpy as np
    ext_to = ext_words if ext_to is None else ext_to
    status, status_xz = read_status(program_file(d, k, "status"))
    trace, trace_xz = read_trace(program_file(d, k, "trace"))
    path = program_file(d, k, "ext_out")
    ext, ext_xz = parse_mem32(path.read_text(), max(0, min(ext_to, EXT_BANK) - ext_from), path.name)
    if ext_to > EXT_BANK:
        lo = max(ext_from, EXT_BANK)
        path = program_file(d, k, "ext_hi_out")
        hi, hi_xz = parse_mem32(path.read_text(), ext_to - lo, path.name)
        ext_xz += [i + lo - ext_from for i in hi_xz]
        ext = np.concatenate([ext, hi])
    out = {"status": status, "status_xz": status_xz, "trace": trace, "trace_xz": trace_xz,
           "ext": ext, "ext_xz": [i + ext_from for i in ext_xz], "bus": read_bus(program_file(d, k, "bus"))}
    if ext_from or ext_to != ext_words:
        out["ext"], out["ext_tail"] = None, (ext_from, ext)
    return out


def read_bus(path):
    """The wrapper's external-bus log: [(kind 'r'|'w', first, last)], None without the file."""
    path = Path(path)
    if not path.exists():
        return None
    out = []
    for line in path.read_text().split("\n"):
        f = line.split()
        try:
            if len(f) != 3 or f[0] not in ("r", "w"):
                raise ValueError(line)
            out.append((f[0], int(f[1], 16), int(f[2], 16)))
        except ValueError:
            if f:
                out.append(("?", -1, -1))       # x/z or a torn line: never an allowed range
    return out


# ------------------------------------------------------------------ the mutation bench
# pP_meta.hex: these words (tb/hdl/mut_rtl_tb.v reads them by index), then ntrace pairs
# "pc cycle". limit: the cycle limit; abort_at: cut by rst after that many cycles (0: none);
# error code pc: the expected error outputs; cycles mm dma vec instret: the counters;
# ntrace: the retires listed; light: keep the external memory, compare no memory;
# reads: the scratchpad words read up to done; nneed: of a cut program, the listed
# retires the chip must show before the cut (the others are allowed, not required);
# fetch: the sixth counter (last, so the older words keep their places)
META = ("limit", "abort_at", "error", "code", "pc", "cycles", "mm", "dma", "vec", "instret",
        "ntrace", "light", "reads", "nneed", "fetch")


def _u32(v):
    return int(v) & 0xFFFFFFFF


def write_mut_program(d, p, words, meta, trace, image=None, exp=None):
    """Program p's files for the mutation bench: its instruction words (a light program,
    meta["light"] = 1: then a zero word, and no image or expected memory), meta (a dict
    of every META key), the expected trace [(pc, cycle)], the external image and the
    expected external memory after the run."""
    if set(meta) != set(META):
        raise ValueError(f"meta keys {sorted(meta)} are not META's {sorted(META)}")
    if int(meta["ntrace"]) != len(trace):
        raise ValueError(f"meta ntrace {meta['ntrace']} but {len(trace)} trace entries")
    light = bool(meta["light"])
    if light != (image is None) or light != (exp is None):
        raise ValueError("a light program has no image and no expected memory; any other has both")
    write_words(program_file(d, p, "mut_imem"), list(words) + ([0] if light else []), 32)
    if not light:          # the two 8,192-word memories: write_mem32's one byte array
        write_mem32(program_file(d, p, "mut_ext"), image)
        write_mem32(program_file(d, p, "exp"), exp)
    head = [int(meta[key]) for key in META]
    write_words(program_file(d, p, "meta"), head + [int(x) for pc_c in trace for x in pc_c], 8)


def read_mut_program(d, p):
    """What write_mut_program wrote for program p: (meta dict, trace [(pc, cycle)],
    signed expected external memory or None for a light program)."""
    words = [int(t, 16) for t in program_file(d, p, "meta").read_text().split()]
    meta = dict(zip(META, words))
    rest = words[len(META):]
    trace = list(zip(rest[0::2], rest[1::2]))
    path = program_file(d, p, "exp")
    exp = None
    if not meta["light"]:
        lines = path.read_text().split()
        exp, _ = parse_mem32("\n".join(lines), len(lines), path.name)
    return meta, trace, exp


UNIT_FILES = {"rq": "rq.hex", "dv": "dv.hex", "pf": "pf.hex"}


def write_unit_vectors(d, rq, dv, pf):
    """The mutation bench's unit vectors: rq.hex (a m 0 s y: 32+16+16+32+32 bits a line),
    dv.hex (dividend divisor q r, 32 bits each), pf.hex (one byte per field, rst first)."""
    d = Path(d)
    (d / UNIT_FILES["rq"]).write_text("".join(f"{_u32(a):08x}{m:04x}{0:04x}{s:08x}{_u32(y):08x}\n"
                                              for a, m, s, y in rq))
    (d / UNIT_FILES["dv"]).write_text("".join(f"{a:08x}{b:08x}{q:08x}{r:08x}\n" for a, b, q, r in dv))
    (d / UNIT_FILES["pf"]).write_text("".join("".join(f"{x:02x}" for x in v) + "\n" for v in pf))


# ------------------------------------------------------------------ the plain bench
PLAIN_FILES = {"imem": "imem.hex", "ext_in": "ext_in.hex", "sp_in": "sp_in.hex",
               "ext_out": "ext_out.hex", "trace": "trace.txt"}
_RESULT = re.compile(r"RESULT (.*)")


def plain_inputs(d, words, imem_depth, ext, sp=None, trace=True, ext_out=True):
    """Write the plain bench's inputs into d (ext and sp: full memory images; sp None: no
    preload) and remove its old outputs; the plusargs naming them."""
    d = Path(d)
    f = {k: d / v for k, v in PLAIN_FILES.items()}
    write_imem(f["imem"], words, imem_depth)
    write_mem32(f["ext_in"], ext)
    args = [f"+imem={f['imem']}", f"+ext_in={f['ext_in']}"]
    if sp is not None:
        write_mem32(f["sp_in"], sp)
        args.append(f"+sp_in={f['sp_in']}")
    for k in ("ext_out", "trace"):
        f[k].unlink(missing_ok=True)
    if ext_out:
        args.append(f"+ext_out={f['ext_out']}")
    if trace:
        args.append(f"+trace={f['trace']}")
    return args


def plain_results(stdout):
    """The RESULT lines of the plain bench's output: one {key: int} per run."""
    return [{k: int(v) for k, v in (kv.split("=") for kv in line.split())}
            for line in _RESULT.findall(stdout)]


def read_plain(d, ext_words, trace=True, ext_out=True):
    """The plain bench's output files: (trace [(pc, cycle)] of all runs, signed ext words
    after the last run or None, [ext indices holding x/z])."""
    d = Path(d)
    tr = read_trace(d / PLAIN_FILES["trace"], base=10)[0] if trace else []
    if not ext_out:
        return tr, None, []
    path = d / PLAIN_FILES["ext_out"]
    ext, xz = parse_mem32(path.read_text(), ext_words, path.name)
    return tr, ext, xz
