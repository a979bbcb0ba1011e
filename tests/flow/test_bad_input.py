"""Input that never breaks a command: a table of bad inputs per command, each run as its
own process, must get exit 2 and ONE line on stderr naming the problem -- no traceback,
nothing done first (stdout empty: no simulation, no training, no file written).

Every command line of the project is here (the ga2 command and its subcommands, the
applications, the chapter scripts, the language-model tools, the soak, the mutation
runners, tb.hw, tb.plain_check, tools.flow.headers, tools/bench). The inputs are values at
and beyond their limits (0, negative, huge, non-integers, empty strings, unknown choices)
and files that are missing, directories, empty, binary garbage or of the wrong kind (a
.hex with a bad word, a .npy of floats or of the wrong shape, a truncated weights file,
the other task's weights, JSON that is not a workload).

The rows run through tests/flow/forkrun.py: one process imports the commands once and
forks a child per row that runs `python -m MODULE ARGS` as __main__ (about 12 ms a row
instead of a Python start-up and its imports, 250 ms); the first row of one command of
each kind of entry point (REAL), and the rows of the ./ga2 script, run as genuine
`sys.executable -m` (or ./ga2) subprocesses. The simulators
are shimmed (fake iverilog, vvp, verilator, yosys and fusesoc first on PATH, each failing
at once), so a command that let bad input through to a simulation fails here quickly
instead of simulating.

    python tests/flow/test_bad_input.py              # every command and what each input got
    python tests/flow/test_bad_input.py --summary    # only the inputs not handled right
    python tests/flow/test_bad_input.py --doc OLD.md # docs/measurements.md "Bad input", OLD.md the
                                                     # first form printed on an older checkout
"""
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
FORKRUN = Path(__file__).with_name("forkrun.py")
LIMIT = float(os.environ.get("BAD_INPUT_LIMIT", 30))   # seconds a row may take before it is killed
SHIMMED = ("iverilog", "vvp", "verilator", "yosys", "fusesoc")

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
# command -> (module, [(argv, what stderr must name)]); {d} is the directory of make_files
GA2 = "tools.ga2"
P = "{d}/prog.s"
JOURNAL_ROWS = [           # the mutation runners' --journal / --resume
    (["--journal", "{d}/adir"], "--journal"),
    (["--journal", "/dev/null"], "not a regular file"),
    (["--resume", "--journal", "{d}/no/such.jsonl"], "no journal"),
    (["--resume", "--journal", "{d}/garbage.txt"], "garbage.txt"),
    (["--resume", "--journal", "{d}/soak_journal.jsonl"], "not a mutation journal"),
    (["--resume", "--journal", "{d}/stale_journal.jsonl"], "another run"),
]
TABLE = {
    "ga2 asm": (GA2, [
        (["asm"], "prog"),
        (["asm", "{d}/no/such.s"], "no/such.s: no such file"),
        (["asm", "{d}/adir"], "adir: a directory"),
        (["asm", "{d}/empty.s"], "empty.s: no instructions"),
        (["asm", "{d}/comments.s"], "comments.s: no instructions"),
        (["asm", "{d}/garbage.s"], "garbage.s: not a text file"),
        (["asm", "{d}/garbage.hex"], "garbage.hex: not a text file"),
        (["asm", "{d}/empty.hex"], "empty.hex: no instructions"),
        (["asm", "{d}/badword.hex"], "badword.hex:2: 'zz' is not a hex word"),
        (["asm", "{d}/wide.hex"], "outside 0..2^128-1"),
        (["asm", "{d}/bad.s"], "bad.s:1"),
        (["asm", P, "--ext-words", "0"], "--ext-words"),
        (["asm", P, "--ext-words", "-1"], "--ext-words"),
        (["asm", P, "--ext-words", "70000"], "--ext-words"),
        (["asm", P, "--ext-words", "x"], "--ext-words"),
        (["asm", P, "--ext-words", ""], "--ext-words"),
        (["asm", P, "--ext-words", "1.5"], "--ext-words"),
        (["asm", P, "--ext-words", "9" * 30], "--ext-words"),
        (["asm", P, "-o", "{d}/adir"], "-o"),
        (["asm", P, "-o", "{d}/no/such/out.hex"], "-o"),
        (["asm", P, "-o", ""], "-o"),
        ([], "cmd"),
        (["bogus"], "bogus"),
        (["asm", P, "--bogus"], "--bogus"),
    ]),
    "ga2 disasm": (GA2, [
        (["disasm", "{d}/no/such.hex"], "no/such.hex: no such file"),
        (["disasm", "{d}/adir"], "adir: a directory"),
        (["disasm", "{d}/garbage.hex"], "garbage.hex: not a text file"),
        (["disasm", "{d}/empty.hex"], "empty.hex: no instructions"),
        (["disasm", "{d}/badword.hex"], "'zz' is not a hex word"),
        (["disasm", "{d}/wide.hex"], "outside 0..2^128-1"),
        (["disasm", "{d}/garbage.s"], "garbage.s: not a text file"),
        (["disasm", ""], "prog"),
    ]),
    "ga2 cycles": (GA2, [
        (["cycles", "{d}/no/such.s"], "no such file"),
        (["cycles", "{d}/adir"], "adir: a directory"),
        (["cycles", "{d}/empty.s"], "no instructions"),
        (["cycles", "{d}/garbage.s"], "not a text file"),
        (["cycles", "{d}/bad.s"], "bad.s:1"),
        (["cycles", P, "--ext-words", "0"], "--ext-words"),
        (["cycles", P, "--ext-words", "huge"], "--ext-words"),
    ]),
    "ga2 run": (GA2, [
        (["run", P, "--sim", "gpu"], "--sim"),
        (["run", P, "--ext", "{d}/" + "n" * 300], "File name too long"),
        (["run", P, "--ext-out", "{d}/" + "n" * 300], "File name too long"),
        (["run", P, "--sim", ""], "--sim"),
        (["run", "{d}/empty.s"], "no instructions"),
        (["run", "{d}/garbage.s"], "not a text file"),
        (["run", P, "--ext", "{d}/no/such.txt"], "no/such.txt: no such file"),
        (["run", P, "--ext", "{d}/adir"], "adir: a directory"),
        (["run", P, "--ext", ""], "--ext"),
        (["run", P, "--ext", "{d}/empty.txt"], "empty.txt: no words"),
        (["run", P, "--ext", "{d}/comments.txt"], "comments.txt: no words"),
        (["run", P, "--ext", "{d}/empty.hex"], "empty.hex: no words"),
        (["run", P, "--ext", "{d}/garbage.txt"], "garbage.txt: not a text file"),
        (["run", P, "--ext", "{d}/garbage.hex"], "garbage.hex: not a text file"),
        (["run", P, "--ext", "{d}/ext_bad.txt"], "ext_bad.txt:1: '2.5' is not an integer"),
        (["run", P, "--ext", "{d}/badword.hex"], "is not a hex word"),
        (["run", P, "--ext", "{d}/wide32.hex"], "does not fit 32 bits"),
        (["run", P, "--ext", "{d}/empty.npy"], "empty.npy"),
        (["run", P, "--ext", "{d}/garbage.npy"], "garbage.npy"),
        (["run", P, "--ext", "{d}/floats.npy"], "floats.npy"),
        (["run", P, "--ext", "{d}/matrix.npy"], "matrix.npy: an array of shape (4, 4)"),
        (["run", P, "--ext", "{d}/long.npy"], "larger than the memory"),
        (["run", P, "--ext", "{d}/big.npy"], "does not fit 32 bits"),
        (["run", P, "--ext", "{d}/objects.npy"], "objects.npy"),
        (["run", P, "--max-cycles", "0"], "--max-cycles"),
        (["run", P, "--max-cycles", "-5"], "--max-cycles"),
        (["run", P, "--max-cycles", "x"], "--max-cycles"),
        (["run", P, "--max-cycles", "2.5"], "--max-cycles"),
        (["run", P, "--max-cycles", "9" * 20], "--max-cycles"),
        (["run", P, "--ext-out", "{d}/adir"], "--ext-out"),
        (["run", P, "--ext-out", "{d}/no/such/ext.hex"], "--ext-out"),
        (["run", P, "--ext-out", "{d}/file.txt/ext.hex"], "--ext-out"),
        (["run", P, "--waves", "{d}/adir", "--sim", "icarus"], "--waves"),
        (["run", P, "--ext-words", "70000"], "--ext-words"),
        (["run", P, "--ext-words", "-3", "--sim", "verilator"], "--ext-words"),
    ]),
    "ga2 serve": (GA2, [
        (["serve", "--requests", "0"], "--requests"),
        (["serve", "--policies", "lifo"], "--policies"),
        (["serve", "--sim", "gpu"], "--sim"),
        (["serve", "--workload", "nosuch"], "nosuch"),
        (["serve", "--kv-bits", "5"], "--kv-bits"),
        (["serve", "--window", "0"], "--window"),
        (["serve", "--sinks", "3"], "--sinks 3 needs --window"),
        (["serve", "--window", "8", "--sinks", "9"], "below --window"),
        (["serve", "--window", "8", "--spec"], "--spec"),
    ]),
    "ga2 generate": (GA2, [
        (["generate", "The "], "--tokens"),
        (["generate", "The ", "--tokens", "0"], "--tokens"),
        (["generate", "The ", "--tokens", "-1"], "--tokens"),
        (["generate", "The ", "--tokens", "x"], "--tokens"),
        (["generate", "The ", "--tokens", "1.5"], "--tokens"),
        (["generate", "The ", "--tokens", "100000"], "--tokens"),
        (["generate", "The ", "--tokens", ""], "--tokens"),
        (["generate", "", "--tokens", "1"], "empty prompt"),
        (["generate", "--tokens", "1"], "no prompt"),
        (["generate", "x" * 200, "--tokens", "1"], "context"),
        (["generate", "caf\u00e9", "--tokens", "1"], "prompt 'caf\u00e9'"),
        (["generate", "1+", "--task", "add", "--tokens", "3"], "addition prompt"),
        (["generate", "The ", "--tokens", "1", "--task", "sums"], "--task"),
        (["generate", "The ", "--tokens", "1", "--mode", "fast"], "--mode"),
        (["generate", "The ", "--tokens", "1", "--sim", "both"], "--sim"),
        (["generate", "--tokens", "1", "--batch-file", "{d}/no/such.txt"], "no/such.txt: no such file"),
        (["generate", "--tokens", "1", "--batch-file", "{d}/adir"], "adir"),
        (["generate", "--tokens", "1", "--batch-file", "{d}/empty.txt"], "empty.txt"),
        (["generate", "--tokens", "1", "--batch-file", "{d}/garbage.txt"], "garbage.txt: not a text file"),
        (["generate", "The ", "--tokens", "1", "--weights", "{d}/no/such.npz"], "no/such.npz"),
        (["generate", "The ", "--tokens", "1", "--weights", "{d}/adir"], "adir"),
        (["generate", "The ", "--tokens", "1", "--weights", "{d}/empty.npz"], "empty.npz"),
        (["generate", "The ", "--tokens", "1", "--weights", "{d}/garbage.npz"], "garbage.npz"),
        (["generate", "The ", "--tokens", "1", "--weights", "{d}/truncated_int8.npz"], "truncated_int8.npz"),
        (["generate", "The ", "--tokens", "1", "--weights", "{d}/text_float.npz"], "text_float.npz"),
        (["generate", "The ", "--tokens", "1", "--weights", "{d}/foreign.npz"], "foreign.npz"),
        (["generate", "The ", "--tokens", "1", "--weights", "{d}/add_int8.npz"], "add_int8.npz"),
        (["generate", "12+34", "--task", "add", "--tokens", "3", "--weights", "{d}/text_int8.npz"],
         "text_int8.npz"),
        (["generate", "The ", "--tokens", "1", "--weights", ""], "--weights"),
        (["generate", "The ", "--tokens", "1", "--kv-heads", "0"], "--kv-heads"),
        (["generate", "The ", "--tokens", "1", "--kv-heads", "3"], "--kv-heads"),
        (["generate", "The ", "--tokens", "1", "--kv-heads", "x"], "--kv-heads"),
        (["generate", "The ", "--tokens", "1", "--kv-bits", "5"], "--kv-bits"),
        (["generate", "The ", "--tokens", "1", "--kv-bits", ""], "--kv-bits"),
        (["generate", "The ", "--tokens", "1", "--window", "1"], "--window"),
        (["generate", "The ", "--tokens", "1", "--window", "2000"], "--window"),
        (["generate", "The ", "--tokens", "1", "--sinks", "2"], "sinks must be"),
        (["generate", "The ", "--tokens", "1", "--window", "8", "--sinks", "8"], "sinks must be"),
        (["generate", "The ", "--tokens", "1", "--sinks", "-1"], "--sinks"),
        (["generate", "The ", "--tokens", "1", "--tile", "0"], "--tile"),
        (["generate", "The ", "--tokens", "1", "--tile", "256"], "--tile"),
        (["generate", "The ", "--tokens", "1", "--ctx", "0"], "--ctx"),
        (["generate", "The ", "--tokens", "1", "--ctx", "2000"], "--ctx"),
        (["generate", "The ", "--tokens", "10", "--ctx", "8"], "exceed --ctx 8"),
        (["generate", "The ", "--tokens", "1", "--ctx", "256", "--kv-heads", "1"], "no multi-query model"),
        (["generate", "The ", "--tokens", "1", "--kv-bits", "4", "--weights", "{d}/text_int8.npz"],
         "8-bit KV cache, not 4-bit"),
    ]),
    "python -m tools.serve": ("tools.serve", [
        (["--model-only", "--workload", "nosuch"], "nosuch"),
        (["--model-only", "--workload", "{d}/no/such.json"], "no/such.json"),
        (["--model-only", "--workload", "{d}/adir"], "adir"),
        (["--model-only", "--workload", "{d}/empty.json"], "empty.json"),
        (["--model-only", "--workload", "{d}/empty.csv"], "empty.csv"),
        (["--model-only", "--workload", "{d}/garbage.json"], "garbage.json"),
        (["--model-only", "--workload", "{d}/garbage.csv"], "garbage.csv"),
        (["--model-only", "--workload", "{d}/notworkload.json"], "notworkload.json"),
        (["--model-only", "--workload", "{d}/ints.json"], "ints.json"),
        (["--model-only", "--workload", "{d}/negative.json"], "negative.json"),
        (["--model-only", "--workload", "{d}/bad.csv"], "bad.csv"),
        (["--model-only", "--workload", "{d}/workload.txt"], "workload.txt"),
        (["--model-only", "--workload", ""], "--workload"),
        (["--model-only", "--capacity", "0"], "--capacity"),
        (["--model-only", "--capacity", "-1"], "--capacity"),
        (["--model-only", "--capacity", "9"], "--capacity"),
        (["--model-only", "--capacity", "x"], "--capacity"),
        (["--model-only", "--capacity", "2.5"], "--capacity"),
        (["--model-only", "--block-tokens", "0"], "--block-tokens"),
        (["--model-only", "--block-tokens", "-4"], "--block-tokens"),
        (["--model-only", "--block-tokens", "9" * 12], "--block-tokens"),
        (["--model-only", "--pool-blocks", "0"], "--pool-blocks"),
        (["--model-only", "--pool-blocks", "-1"], "--pool-blocks"),
        (["--model-only", "--pool-blocks", "9" * 12], "--pool-blocks"),
        (["--model-only", "--pool-blocks", "many"], "--pool-blocks"),
        (["--sim", "gpu"], "--sim"),
        (["--model-only", "--out", "{d}/file.txt"], "--out"),
        (["--model-only", "--out", ""], "--out"),
        (["--bogus"], "--bogus"),
        (["--model-only", "--mode", "fast"], "--mode"),
    ]),
    "python -m tools.prefix": ("tools.prefix", [
        (["--sim", "gpu"], "--sim"),
        (["--sim", ""], "--sim"),
        (["--bogus"], "--bogus"),
        (["extra"], "extra"),
        (["--quick=yes"], "--quick"),
        (["--cache-mode", "fast"], "--cache-mode"),
    ]),
    "python -m tools.ch09_run": ("tools.ch09_run", [
        (["--sim", "gpu"], "--sim"),
        (["--out", "{d}/file.txt"], "--out"),
        (["--out", "{d}/file.txt/sub"], "--out"),
        (["--out", ""], "--out"),
        (["--bogus"], "--bogus"),
        (["extra"], "extra"),
    ]),
    "python -m tools.ch09_example_a": ("tools.ch09_example_a", [
        (["--chips", "{d}/no/such.csv"], "no/such.csv"),
        (["--contexts", "2048," + "1" * 400], "2^53"),
        (["--out", "{d}/" + "n" * 300], "File name too long"),
        (["--chips", "{d}/adir"], "adir"),
        (["--chips", "{d}/empty.json"], "empty.json"),
        (["--chips", "{d}/empty.csv"], "empty.csv"),
        (["--chips", "{d}/garbage.json"], "garbage.json"),
        (["--chips", "{d}/garbage.csv"], "garbage.csv"),
        (["--chips", "{d}/notchips.json"], "notchips.json"),
        (["--chips", ""], "--chips"),
        (["--chip", "x"], "--chip"),
        (["--chip", "A:0:1e12"], "--chip"),
        (["--chip", "A:-1:1e12"], "--chip"),
        (["--chip", "A:1e9:nan"], "--chip"),
        (["--chip", "A:1e9:inf"], "--chip"),
        (["--weight-bytes", "0"], "--weight-bytes"),
        (["--weight-bytes", "-1"], "--weight-bytes"),
        (["--weight-bytes", "x"], "--weight-bytes"),
        (["--weight-bytes", "nan"], "--weight-bytes"),
        (["--weight-bytes", "inf"], "--weight-bytes"),
        (["--weight-bytes", ""], "--weight-bytes"),
        (["--kv-per-token", "0"], "--kv-per-token"),
        (["--kv-per-token", "x"], "--kv-per-token"),
        (["--contexts", ""], "--contexts"),
        (["--contexts", "0"], "--contexts"),
        (["--contexts", "-1"], "--contexts"),
        (["--contexts", "x"], "--contexts"),
        (["--contexts", "1,,2"], "--contexts"),
        (["--contexts", "4,4"], "--contexts"),
        (["--contexts", "1.5"], "--contexts"),
        (["--out", "{d}/file.txt"], "--out"),
        (["--out", ""], "--out"),
    ]),
    "python -m tools.ch09_example_b": ("tools.ch09_example_b", [
        (["--lens", ""], "--lens"),
        (["--lens", "0"], "--lens"),
        (["--lens", "-1"], "--lens"),
        (["--lens", "x"], "--lens"),
        (["--lens", "1,,2"], "--lens"),
        (["--lens", "2.5"], "--lens"),
        (["--lens", "100000"], "--lens"),
        (["--workload", "{d}/no/such.json"], "no/such.json"),
        (["--workload", "{d}/adir"], "adir"),
        (["--workload", "{d}/empty.json"], "empty.json"),
        (["--workload", "{d}/garbage.json"], "garbage.json"),
        (["--workload", "{d}/notworkload.json"], "notworkload.json"),
        (["--workload", "{d}/negative.json"], "negative.json"),
        (["--workload", ""], "--workload"),
        (["--lens", "3", "--workload", "{d}/negative.json"], "--workload"),
        (["--slots", "0"], "--slots"),
        (["--slots", "5"], "--slots"),
        (["--slots", "-1"], "--slots"),
        (["--slots", "x"], "--slots"),
        (["--out", "{d}/file.txt"], "--out"),
        (["--out", ""], "--out"),
    ]),
    "python -m tools.ch09.stimulus": ("tools.ch09.stimulus", [
        ([], "--write"),
        (["--write", "--check"], "--check"),
        (["--bogus"], "--write"),            # argparse names the missing choice first
        (["--check", "extra"], "extra"),
    ]),
    "python -m tools.lm.score": ("tools.lm.score", [
        (["--n", "0"], "--n"),
        (["--n", "-1"], "--n"),
        (["--n", "10001"], "--n"),
        (["--n", "x"], "--n"),
        (["--n", "1.5"], "--n"),
        (["--n", ""], "--n"),
        (["--batch", "0"], "--batch"),
        (["--batch", "17"], "--batch"),
        (["--batch", "x"], "--batch"),
        (["--seed", "-1"], "--seed"),
        (["--seed", "x"], "--seed"),
        (["--sim", "gpu"], "--sim"),
        (["--mode", "fast"], "--mode"),
    ]),
    "python -m tools.serve.lm_run": ("tools.serve.lm_run", [
        (["--requests", "0"], "--requests"),
        (["--workload", "{d}/extra_values.csv"], "more values than the header"),
        (["--requests", "x"], "--requests"),
        (["--requests", "3000"], "external memory"),
        (["--rate", "0"], "--rate"),
        (["--rate", "-3"], "--rate"),
        (["--blocks", "2", "--requests", "2"], "blocks"),
        (["--blocks", "0"], "--blocks"),
        (["--slots", "9"], "--slots"),
        (["--policies", "lifo"], "--policies"),
        (["--policies", "reserve+eager"], "--policies"),
        (["--rates", "1,x"], "--rates"),
        (["--rates", "0"], "--rates"),
        (["--seed", "-1"], "--seed"),
        (["--sim", "gpu"], "--sim"),
        (["--mode", "fast"], "--mode"),
        (["--tag", "a/b"], "--tag"),
        (["--ks", "0"], "--ks"),
        (["--ks", "5"], "--ks"),
        (["--ks", "1,x"], "--ks"),
        (["--ks", ""], "--ks"),
        (["--kv-heads", "3"], "--kv-heads"),
        (["--kv-heads", "x"], "--kv-heads"),
        (["--kv-bits", "5"], "--kv-bits"),
        (["--window", "1"], "--window"),
        (["--window", "32"], "--window"),
        (["--sinks", "2"], "--sinks 2 needs --window"),
        (["--window", "4", "--sinks", "4"], "below --window"),
        (["--sinks", "-1", "--window", "4"], "--sinks"),
        (["--kv-bits", "4", "--spec"], "--spec"),
        (["--workload", "nosuch"], "nosuch"),
        (["--workload", "{d}/adir"], "adir"),
        (["--workload", "{d}/empty.json"], "empty.json"),
        (["--workload", "{d}/garbage.json"], "garbage.json"),
        (["--workload", "{d}/garbage.csv"], "garbage.csv"),
        (["--workload", "{d}/notworkload.json"], "notworkload.json"),
        (["--workload", "{d}/workload.txt"], "workload.txt"),
    ]),
    "python -m tools.serve.lm_remedies": ("tools.serve.lm_remedies", [
        (["--requests", "0"], "--requests"),
        (["--requests", "x"], "--requests"),
        (["--sim", "gpu"], "--sim"),
        (["--mode", "fast"], "--mode"),
    ]),
    "python -m tools.serve.live_cost": ("tools.serve.live_cost", [
        (["--sim", "gpu"], "--sim"),
        (["--steps", "0"], "--steps"),
        (["--steps", "x"], "--steps"),
        (["--steps", "21"], "--steps"),
    ]),
    "python -m tools.serve.lm_check": ("tools.serve.lm_check", [
        (["--bogus"], "--bogus"),
        (["extra"], "extra"),
    ]),
    "python -m tools.lm.sweep": ("tools.lm.sweep", [
        (["--ctx", "0"], "--ctx"),
        (["--ctx", "1"], "--ctx"),
        (["--ctx", "65"], "--ctx"),
        (["--ctx", "x"], "--ctx"),
        (["--ctx"], "--ctx"),
        (["--batch", "0"], "--batch"),
        (["--batch", "-1"], "--batch"),
        (["--batch", "x"], "--batch"),
        (["--batch", "1000000"], "--batch"),
        (["--task", "sums"], "--task"),
        (["--task", ""], "--task"),
        (["--sim", "gpu"], "--sim"),
    ]),
    "python -m tools.lm.remedies_sweep": ("tools.lm.remedies_sweep", [
        (["--ctx", "1"], "--ctx"),
        (["--ctx", "2000"], "--ctx"),
        (["--ctx", "x"], "--ctx"),
        (["--batch", "0"], "--batch"),
        (["--batch", "17"], "--batch"),
        (["--sim", "gpu"], "--sim"),
        (["--remedy", "nosuch"], "--remedy"),
        (["--sim-max-cycles", "0"], "--sim-max-cycles"),
        (["--job-cycles", "0"], "--job-cycles"),
        (["--job-cycles", "x"], "--job-cycles"),
        (["--mode", "fast"], "--mode"),
        (["--out", ""], "--out"),
        (["--out", "{d}/adir"], "--out"),
    ]),
    "python -m tools.lm.long": ("tools.lm.long", [
        (["--ctx", "1"], "--ctx"),
        (["--ctx", "2000"], "--ctx"),
        (["--batch", "0"], "--batch"),
        (["--batch", "17"], "--batch"),
        (["--sim", "gpu"], "--sim"),
        (["--mode", "fast"], "--mode"),
        (["--kv-bits", "5"], "--kv-bits"),
        (["--kv-heads", "3"], "--kv-heads"),
        (["--window", "1"], "window must be"),
        (["--sinks", "3"], "sinks must be"),
        (["--tile", "300"], "--tile"),
        (["--ctx", "300", "--kv-heads", "1"], "no multi-query model"),
    ]),
    "python -m tools.lm.check": ("tools.lm.check", [
        (["--bogus"], "--bogus"),
        (["extra"], "extra"),
        (["--quick=yes"], "--quick"),
    ]),
    "python -m tools.lm.eval": ("tools.lm.eval", [
        (["--task", "sums"], "--task"),
        (["--weights", "{d}/no/such"], "--weights"),
        (["--weights", "{d}/file.txt"], "--weights"),
        (["--weights", "{d}/adir"], "adir"),
        (["--weights", "{d}/garbage_weights"], "garbage_weights"),
        (["--weights", ""], "--weights"),
        (["--out", "{d}/adir"], "--out"),
        (["--out", "{d}/file.txt/x.json"], "--out"),
        (["--out", ""], "--out"),
        (["--record", "--task", "add"], "--record"),
    ]),
    "python -m tools.lm.train": ("tools.lm.train", [
        ([], "--task"),
        (["--task", "sums"], "--task"),
        (["--task", "add", "--out", "{d}/file.txt"], "--out"),
        (["--task", "add", "--out", "{d}/file.txt/sub"], "--out"),
        (["--task", "add", "--out", ""], "--out"),
        (["--task", "text", "--size", "huge"], "--size"),
    ]),
    "python -m tb.soak": ("tb.soak", [
        (["--n", "0"], "--n"),
        (["--n", "-1"], "--n"),
        (["--n", "x"], "--n"),
        (["--n", "1.5"], "--n"),
        (["--n", ""], "--n"),
        (["--n", "9" * 30], "--n"),
        (["--seed", "-1"], "--seed"),
        (["--seed", "x"], "--seed"),
        (["--chunk", "0"], "--chunk"),
        (["--chunk", "-1"], "--chunk"),
        (["--jobs", "0"], "--jobs"),
        (["--jobs", "x"], "--jobs"),
        (["--jobs", "100000"], "--jobs"),
        (["--ext-words", "0"], "--ext-words"),
        (["--ext-words", "70000"], "--ext-words"),
        (["--ext-words", "8k"], "--ext-words"),
        (["--mode", "fast"], "--mode"),
        (["--sim", "gpu"], "--sim"),
        (["--scheduler", "nowhere"], "--scheduler"),
        (["--scheduler", "A:1:1"], "brackets"),
        (["--scheduler", "local:0"], "--scheduler"),
        (["--scheduler", "local:x"], "--scheduler"),
        (["--journal", "{d}/adir"], "--journal"),
        (["--journal", "{d}/file.txt/j.jsonl"], "--journal"),
        (["--journal", "/dev/null"], "not a regular file"),
        (["--resume", "--journal", "{d}/no/such.jsonl"], "no journal"),
        (["--resume", "--journal", "{d}/garbage.txt"], "garbage.txt"),
        (["--resume", "--journal", "{d}/file.txt"], "not a soak journal"),
        (["--resume", "--journal", "{d}/mut_journal.jsonl"], "not a soak journal"),
    ]),
    "python -m tb.soak_scale": ("tb.soak_scale", [
        (["--n", "0"], "--n"),
        (["--n", "x"], "--n"),
        (["--icarus-n", "-1"], "--icarus-n"),
        (["--probe", "0"], "--probe"),
        (["--budget", "0"], "--budget"),
        (["--budget", "nan"], "--budget"),
        (["--budget", "x"], "--budget"),
        (["--workers", "0"], "--workers"),
        (["--workers", "1000"], "--workers"),
        (["--seed", "-1"], "--seed"),
        (["--journal", "{d}/adir"], "--journal"),
        (["--resume", "--journal", "{d}/no/such.jsonl"], "no journal"),
        (["--resume", "--journal", "{d}/mut_journal.jsonl"], "not a soak journal"),
        (["--report", "--journal", "{d}/no/such.jsonl"], "no journal"),
        (["--report", "--journal", "{d}/garbage.txt"], "garbage.txt"),
        (["--report", "--journal", "{d}/file.txt"], "not a soak journal"),
        (["--report", "--journal", "{d}/mut_journal.jsonl"], "not a soak journal"),
    ]),
    "python -m tb.coverage_run": ("tb.coverage_run", [
        (["--n", "0"], "--n"),
        (["--n", "x"], "--n"),
        (["--seed", "-1"], "--seed"),
        (["--sim", "gpu"], "--sim"),
        (["--sets", "nope"], "--sets"),
        (["--sets", ","], "--sets"),
        (["--out", "{d}/file.txt"], "--out"),
        (["--out", ""], "--out"),
        (["--mode", "fast"], "--mode"),
    ]),
    "python -m tools.mut_ch09": ("tools.mut_ch09", [
        (["--jobs", "0"], "--jobs"),
        (["--jobs", "-1"], "--jobs"),
        (["--jobs", "x"], "--jobs"),
        (["--timeout", "0"], "--timeout"),
        (["--timeout", "-1"], "--timeout"),
        (["--timeout", "nan"], "--timeout"),
        (["--timeout", "inf"], "--timeout"),
        (["--timeout", "x"], "--timeout"),
        (["--json", "{d}/adir"], "--json"),
        (["--json", "{d}/file.txt/x.json"], "--json"),
        (["--json", ""], "--json"),
        (["--extra-mutant", "{d}/no/such.json"], "no/such.json"),
        (["--extra-mutant", "{d}/adir"], "adir"),
        (["--extra-mutant", "{d}/empty.txt"], "empty.txt"),
        (["--extra-mutant", "{d}/garbage.txt"], "garbage.txt"),
        (["--extra-mutant", "{d}/notmutant.json"], "notmutant.json"),
        (["--extra-only"], "--extra-only"),
        (["--scheduler", "nowhere"], "--scheduler"),
        (["--scheduler", "A:1:1"], "brackets"),
    ] + JOURNAL_ROWS),
}
for _name, _mod in (("python -m tools.serve.mutants", "tools.serve.mutants"),
                    ("python -m tools.prefix.mutants", "tools.prefix.mutants"),
                    ("python -m tools.lm.mutants", "tools.lm.mutants")):
    TABLE[_name] = (_mod, [
        (["--jobs", "0"], "--jobs"),
        (["--jobs", "-1"], "--jobs"),
        (["--jobs", "x"], "--jobs"),
        (["--jobs", ""], "--jobs"),
        (["--timeout", "0"], "--timeout"),
        (["--timeout", "-1"], "--timeout"),
        (["--timeout", "nan"], "--timeout"),
        (["--timeout", "1e300"], "--timeout"),
        (["--json", "{d}/adir"], "--json"),
        (["--json", "{d}/file.txt/x.json"], "--json"),
        (["--bogus"], "--bogus"),
    ] + JOURNAL_ROWS)
TABLE.update({
    "python -m tb.mutation.rtl.run": ("tb.mutation.rtl.run", [
        (["--jobs", "0"], "--jobs"),
        (["--jobs", "-1"], "--jobs"),
        (["--jobs", "x"], "--jobs"),
        (["--sample", "-1"], "--sample"),
        (["--sample", "x"], "--sample"),
        (["--seed", "x"], "--seed"),
        (["--seed", "-1"], "--seed"),
        (["--classes", "nosuch"], "--classes"),
        (["--classes", ""], "--classes"),
        (["--module", "nosuch"], "--module"),
        (["--lines", "ga2_dma.v"], "--lines"),
        (["--lines", "ga2_dma.v:9-5"], "--lines"),
        (["--lines", "ga2_dma.v:0"], "--lines"),
        (["--lines", "ga2_dma.v:x"], "--lines"),
        (["--lines", "ga2_nosuch.v:1-2"], "--lines"),
        (["--rtl", "{d}/no/such"], "--rtl"),
        (["--rtl", "{d}/file.txt"], "--rtl"),
        (["--rtl", "{d}/adir"], "--rtl"),
        (["--out", "{d}/adir"], "--out"),
        (["--out", "{d}/file.txt/x.json"], "--out"),
        (["--equiv", "{d}/no/such.txt"], "--equiv"),
        (["--equiv", "{d}/garbage.txt"], "garbage.txt"),
        (["--work", "{d}/file.txt"], "--work"),
        (["--scheduler", "nowhere"], "--scheduler"),
        (["--scheduler", "A:1:1"], "brackets"),
        (["--list", "--rtl", "{d}/no/such"], "--rtl"),
        (["--prove", "--out", "{d}/garbage.txt"], "garbage.txt"),
        (["--prove", "--out", "{d}/notworkload.json"], "survivors"),
    ] + JOURNAL_ROWS),
    "python -m tb.hw": ("tb.hw", [
        (["--sim", "gpu"], "--sim"),
        (["--bogus"], "--bogus"),
        (["extra"], "extra"),
    ]),
    "python -m tb.plain_check": ("tb.plain_check", [
        (["--random", "-1"], "--random"),
        (["--random", "x"], "--random"),
        (["--random", "9" * 12], "--random"),
        (["--seed", "-1"], "--seed"),
        (["--seed", "x"], "--seed"),
        (["--sim", "gpu"], "--sim"),
        (["--only", "no program has this name"], "--only"),
        (["--bogus"], "--bogus"),
    ]),
    "python -m tools.flow.headers": ("tools.flow.headers", [
        (["--header", "{d}/adir", "--cfg-header", "{d}/cfg.vh"], "--header"),
        (["--header", "{d}/no/such/ga2_isa.vh", "--cfg-header", "{d}/cfg.vh"], "--header"),
        (["--header", "", "--cfg-header", "{d}/cfg.vh"], "--header"),
        (["--header", "{d}/isa.vh", "--cfg-header", "{d}/adir"], "--cfg-header"),
        (["--header", "{d}/isa.vh", "--cfg-header", "{d}/file.txt/x.vh"], "--cfg-header"),
        (["--check", "--header", "{d}/adir", "--cfg-header", "{d}/cfg.vh"], "--header"),
        (["--bogus"], "--bogus"),
    ]),
    "python -m tools.flow.synth": ("tools.flow.synth", [
        (["--sm-max-len", "0"], "--sm-max-len"),
        (["--sm-max-len", "1025"], "--sm-max-len"),
        (["--sm-max-len", "x"], "--sm-max-len"),
        (["--bogus"], "--bogus"),
    ]),
    "python -m tools.flow.gls": ("tools.flow.gls", [
        (["--mode", "fast"], "--mode"),
        (["--random", "-1"], "--random"),
        (["--random", "x"], "--random"),
        (["--random", "10001"], "--random"),
        (["--random", ""], "--random"),
        (["--seed", "-1"], "--seed"),
        (["--seed", "x"], "--seed"),
        (["--no-ch09", "--random", "0"], "--no-ch09"),
        (["--bogus"], "--bogus"),
    ]),
    "python -m tools.flow.fpga": ("tools.flow.fpga", [
        (["--device", "xc7a35t"], "--device"),
        (["--sp-words", "0"], "--sp-words"),
        (["--sp-words", "1"], "--sp-words"),
        (["--sp-words", "65537"], "--sp-words"),
        (["--sp-words", "x"], "--sp-words"),
        (["--ext-words", "0"], "--ext-words"),
        (["--ext-words", "65537"], "--ext-words"),
        (["--imem-depth", "0"], "--imem-depth"),
        (["--imem-depth", "65536"], "--imem-depth"),
        (["--seed", "-1"], "--seed"),
        (["--freq", "0"], "--freq"),
        (["--freq", "-5"], "--freq"),
        (["--freq", "nan"], "--freq"),
        (["--freq", "x"], "--freq"),
        (["--freq", "1001"], "--freq"),
        (["--bogus"], "--bogus"),
    ]),
    "python -m tools.flow.formal": ("tools.flow.formal", [
        (["--only", "everything"], "--only"),
        (["--only", ""], "--only"),
        (["--out", "{d}/adir"], "--out"),
        (["--out", "{d}/file.txt/x.txt"], "--out"),
        (["--limit", "0"], "--limit"),
        (["--limit", "9"], "--limit"),
        (["--limit", "7201"], "--limit"),
        (["--limit", "x"], "--limit"),
        (["--limit", "1.5"], "--limit"),
        (["--bogus"], "--bogus"),
    ]),
    "python -m tools.bench.bench_model": ("tools.bench.bench_model", [
        (["--seconds", "0"], "--seconds"),
        (["--seconds", "-1"], "--seconds"),
        (["--seconds", "x"], "--seconds"),
        (["--seconds", "nan"], "--seconds"),
        (["--seconds", "inf"], "--seconds"),
        (["--seed", "-1"], "--seed"),
        (["--seed", "x"], "--seed"),
        (["--json", "{d}/adir"], "--json"),
        (["--json", "{d}/file.txt/x.json"], "--json"),
    ]),
    "python -m tools.bench.bench_sim": ("tools.bench.bench_sim", [
        (["--groups", "0"], "--groups"),
        (["--groups", "-1"], "--groups"),
        (["--groups", "x"], "--groups"),
        (["--groups", "9" * 9], "--groups"),
        (["--runs", "0"], "--runs"),
        (["--runs", "x"], "--runs"),
        (["--sim", "gpu"], "--sim"),
        (["--mode", "fast"], "--mode"),
        (["--task", "add", "--kv4", "--out", "{d}/adir"], "--kv4"),
    ]),
})
# the commands whose first row also runs as a genuine `sys.executable -m` subprocess: one of
# each kind of entry point (a module, a package's __main__, a face, a long-running command)
REAL = ("ga2 asm", "python -m tools.serve", "python -m tools.ch09_run", "python -m tb.soak",
        "python -m tools.lm.train")
# the ./ga2 script: genuine subprocesses (its own cd and .venv)
SCRIPT_ROWS = [
    (["asm", "{d}/adir"], "adir: a directory"),
    (["generate", "The ", "--tokens", "0"], "--tokens"),
]
TABLE.update({       # the checks mutation runs call, the chapter's figures, the flows' small commands
    "python -m tools.ch09.figures": ("tools.ch09.figures", [
        (["--bogus"], "--bogus"),
        (["{d}/no/such.json"], "no/such.json: no such file"),
        (["{d}/adir"], "adir: a directory"),
        (["{d}/empty.json"], "empty.json"),
        (["{d}/garbage.json"], "garbage.json"),
        (["{d}/notworkload.json"], "not a chapter 9 run"),
        (["{d}/ints.json"], "not a chapter 9 run"),
        (["{d}/bad_run.json"], "table[0]"),
        (["{d}/bad_timeline.json"], "timeline"),
        (["{d}/ints.json", "--out", "{d}/file.txt"], "--out"),
        (["{d}/ints.json", "{d}/ints.json"], "unrecognized"),
    ]),
    "python -m tools.flow.lint": ("tools.flow.lint", [(["--bogus"], "--bogus"), (["extra"], "extra")]),
    "python -m tools.flow.exp_lut": ("tools.flow.exp_lut", [(["--bogus"], "--bogus"), (["--check", "x"], "x")]),
    "python -m tools.flow.core": ("tools.flow.core", [
        (["--bogus"], "--bogus"),
        (["--rtl-dir", "{d}/no/such"], "--rtl-dir"),
        (["--rtl-dir", "{d}/file.txt"], "--rtl-dir"),
        (["--rtl-dir", "{d}/adir"], "no ga2.f filelist"),
        (["--build-root", "{d}/file.txt"], "--build-root"),
    ]),
    "python -m tools.prefix.cache": ("tools.prefix.cache", [(["--bogus"], "--bogus"), (["--quick", "x"], "x")]),
    "python -m tools.serve.engine": ("tools.serve.engine", [(["--bogus"], "--bogus"), (["--quick", "x"], "x")]),
    "python -m tools.ch09.batch": ("tools.ch09.batch", [(["--bogus"], "--bogus"), (["--mode", "fast"], "--mode")]),
    "python -m model.batch": ("model.batch", [(["--mode", "fast"], "--mode"), (["--quick", "x"], "x")]),
    "python -m tb.mutation.rtl.agree": ("tb.mutation.rtl.agree", [
        (["--sample", "0"], "--sample"),
        (["--sample", "x"], "--sample"),
        (["--seed", "-1"], "--seed"),
        (["--json", "{d}/adir"], "--json"),
        (["--json", "/dev/null"], "not a regular file"),
    ]),
    "python -m tb.mutation.rtl.hazard": ("tb.mutation.rtl.hazard", [
        (["--jobs", "0"], "--jobs"),
        (["--jobs", "x"], "--jobs"),
        (["--out", "{d}/adir"], "--out"),
        (["--out", "/dev/null"], "not a regular file"),
    ]),
    "python -m tb.demo": ("tb.demo", [(["--sim", "gpu"], "--sim"), (["--bogus"], "--bogus")]),
})
PRELOAD = ["tools.ga2", "tools.serve.run", "tools.prefix.run", "tools.ch09.run", "tools.ch09.example_a",
           "tools.ch09.example_b", "tools.ch09.stimulus", "tools.lm.score", "tools.lm.sweep", "tools.lm.check",
           "tools.lm.eval", "tools.lm.train", "tools.lm.remedies_sweep", "tools.lm.long",
           "tools.serve.lm_run", "tools.serve.lm_remedies", "tools.serve.live_cost", "tools.serve.lm_check", "tb.soak", "tb.soak_scale",
           "tb.coverage_run", "tools.ch09.mutants", "tools.serve.mutants",
           "tools.prefix.mutants", "tools.lm.mutants", "tb.mutation.rtl.run", "tb.hw", "tb.plain_check",
           "tools.flow.headers", "tools.flow.synth", "tools.flow.gls", "tools.flow.fpga", "tools.flow.formal", "tools.bench.bench_model",
           "tools.bench.bench_sim", "tools.ch09.figures", "tools.flow.lint", "tools.flow.exp_lut", "tools.flow.core",
           "tools.prefix.cache", "tools.serve.engine", "tools.ch09.batch", "tb.mutation.rtl.agree",
           "tb.mutation.rtl.hazard", "tb.demo"]


def shim_dir(d):
    """Fake simulators, first on PATH: a command that let bad input through to a build
    fails at once instead of simulating."""
    b = Path(d) / "shims"
    b.mkdir()
    for name in SHIMMED:
        (b / name).write_text("#!/bin/sh\necho \"$0: a shim of tests/flow/test_bad_input.py, no simulation\" >&2\n"
                              "exit 127\n")
        (b / name).chmod(0o755)
    return b


def run_table(tmp):
    """{command: [(argv, expect, result)]} of the whole table, run in tmp."""
    d = make_files(Path(tmp) / "in")
    env = dict(os.environ, PATH=f"{shim_dir(tmp)}{os.pathsep}{os.environ.get('PATH', '')}",
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MPLBACKEND="Agg",
               GA2_BAD_INPUT_TEST="1")
    env.pop("WAVES", None)
    cwd = Path(tmp) / "cwd"
    cwd.mkdir()
    jobs, where = [], []
    for name, (mod, rows) in TABLE.items():
        for k, (argv, expect) in enumerate(rows):
            jobs.append({"module": mod, "argv": [a.format(d=d) for a in argv], "cwd": str(cwd),
                         "timeout": LIMIT, "real": k == 0 and name in REAL})
            where.append((name, argv, expect))
    for argv, expect in SCRIPT_ROWS:
        jobs.append({"module": GA2, "exe": str(ROOT / "ga2"), "argv": [a.format(d=d) for a in argv],
                     "cwd": str(cwd), "timeout": LIMIT, "real": True})
        where.append(("./ga2", argv, expect))
    p = subprocess.run([sys.executable, str(FORKRUN)], input=json.dumps({"preload": PRELOAD, "jobs": jobs, "parallel": 2}),
                       capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    out = {}
    for (name, argv, expect), res in zip(where, json.loads(p.stdout)):
        for key in ("stderr", "stdout"):
            res[key] = res[key].replace(str(d), "{d}").replace(str(ROOT), "{root}")
        out.setdefault(name, []).append((argv, expect, res))
    return out


def verdict(expect, res):
    """'' when a row got what bad input must get, else what is wrong."""
    err, out = res["stderr"], res["stdout"]
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if res["timed_out"]:
        return f"still running after {LIMIT} s (did work instead of refusing)"
    if res["signal"]:
        return f"killed by signal {res['signal']}"
    if "Traceback" in err or "Traceback" in out:
        return f"a traceback, exit {res['rc']}: {lines[-1][:120] if lines else ''}"
    if res["rc"] != 2:
        return f"exit {res['rc']}" + (f": {lines[-1][:120]}" if lines else " and no message")
    if len(lines) != 1:
        return f"{len(lines)} lines on stderr, not one"
    if expect not in err:
        return f"message does not name {expect!r}"
    if out.strip():
        return f"printed on stdout before refusing: {out.strip().splitlines()[0][:80]}"
    return ""


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return run_table(tmp_path_factory.mktemp("bad_input"))


@pytest.mark.parametrize("command", list(TABLE) + ["./ga2"])
def test_bad_input_gets_exit_2_and_one_line_naming_it(command, table):
    bad = [f"{' '.join(argv)!r}: {v}" for argv, expect, res in table[command]
           for v in [verdict(expect, res)] if v]
    assert not bad, f"{command}: {len(bad)} of {len(table[command])} bad inputs mishandled:\n" + "\n".join(bad)


def markdown(table):
    """The table of docs/measurements.md "Bad input": per command the inputs and what each got."""
    lines = ["| command | bad inputs | handled | input -> message (exit 2 unless said) |", "|---|---|---|---|"]
    for name, rows in table.items():
        ok = sum(not verdict(e, r) for _, e, r in rows)
        cells = []
        for argv, expect, res in rows:
            v = verdict(expect, res)
            msg = (res["stderr"].strip().splitlines() or [""])[-1]
            arg = " ".join(a if a else "''" for a in argv) or "(no arguments)"
            cells.append(f"`{arg}` -> " + (f"**{v}**" if v else f"`{msg[:110]}`").replace("|", "\\|"))
        lines.append(f"| `{name}` | {len(rows)} | {ok}/{len(rows)} | " + "<br>".join(cells) + " |")
    return "\n".join(lines)


KINDS = (("a traceback", "traceback"), ("still running", "did the work"), ("exit 0", "accepted (exit 0)"),
         ("exit ", "another exit code"), ("lines on stderr", "usage + message on several lines"),
         ("does not name", "message not naming it"), ("printed on stdout", "printed before refusing"))


def kind(v):
    """The class of a verdict ('' for a row handled right)."""
    return next((k for pre, k in KINDS if pre in v), "other") if v else ""


def read_markdown(path):
    """{command: [cell]} of a table markdown() printed (e.g. on an older checkout)."""
    out = {}
    for line in open(path).read().splitlines()[2:]:
        parts = line.split(" | ")
        out[parts[0].strip("| `")] = parts[3].rstrip(" |").split("<br>")
    return out


def cell_verdict(cell):
    """The verdict of one cell of markdown() ('' when handled right), and its message."""
    got = cell.split("` -> ", 1)[1]
    return (got.strip("*"), "") if got.startswith("**") else ("", got.strip("`"))


def doc(table, before):
    """docs/measurements.md "Bad input": the summary per command, then every input, with
    what it got at the earlier checkout (before: read_markdown's) and now."""
    lines = ["| command | inputs | right before | right now | what the others got before |", "|---|---|---|---|---|"]
    total = [0, 0, 0]
    for name, rows in table.items():
        old = [cell_verdict(c)[0] for c in before.get(name, [])]
        old += ["(not run)"] * (len(rows) - len(old))
        ok_now = sum(not verdict(e, r) for _, e, r in rows)
        ok_old = sum(not v for v in old)
        kinds = {}
        for v in old:
            if v:
                kinds[kind(v)] = kinds.get(kind(v), 0) + 1
        total = [total[0] + len(rows), total[1] + ok_old, total[2] + ok_now]
        lines.append(f"| `{name}` | {len(rows)} | {ok_old} | {ok_now} | "
                     + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items(), key=lambda x: -x[1])) + " |")
    lines.append(f"| all | {total[0]} | {total[1]} | {total[2]} | |")
    lines += ["", "| command | input | before | now (exit 2 and this one line) |", "|---|---|---|---|"]
    for name, rows in table.items():
        old = [cell_verdict(c)[0] for c in before.get(name, [])]
        for i, (argv, expect, res) in enumerate(rows):
            v = verdict(expect, res)
            msg = (res["stderr"].strip().splitlines() or [""])[-1]
            arg = " ".join(a if a else "''" for a in argv) or "(no arguments)"
            was = re.sub(r"/tmp/tmp\w+/", "{tmp}/", old[i]) if i < len(old) else "(not run)"
            was = re.sub(r"/\S*/wt-input[\w-]*/", "{root}/", was)
            now = f"**{v}**" if v else f"`{msg[:120]}`"
            lines.append(f"| `{name}` | `{arg}` | {was or 'right'} | {now} |".replace("<", "&lt;"))
    return "\n".join(lines)


if __name__ == "__main__":
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        tab = run_table(t)
    if "--summary" in sys.argv:
        for name, rows in tab.items():
            for argv, expect, res in rows:
                v = verdict(expect, res)
                if v:
                    print(f"{name}: {' '.join(argv)!r}: {v}")
        print(sum(len(r) for r in tab.values()), "rows,",
              sum(1 for r in tab.values() for _, e, x in r if verdict(e, x)), "mishandled")
    elif "--doc" in sys.argv:
        print(doc(tab, read_markdown(sys.argv[sys.argv.index("--doc") + 1])))
    else:
        print(markdown(tab))


# commands the table reaches through the path users type (the chapter's names, a package's
# __main__): the face runs this module's main
FACES = {"tools.ch09.run": "tools.ch09_run", "tools.ch09.example_a": "tools.ch09_example_a",
         "tools.ch09.example_b": "tools.ch09_example_b", "tools.ch09.mutants": "tools.mut_ch09",
         "tools.prefix.run": "tools.prefix", "tools.serve.run": "tools.serve"}


def test_every_command_is_in_the_table():
    """Each module with a main guard (a command someone can run) has rows here, itself or
    through its face: a new command without bad-input rows fails this."""
    mods = {m for m, _ in TABLE.values()}
    mains = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts)
                   for top in ("model", "tb", "tools") for p in (ROOT / top).rglob("*.py")
                   if re.search(r'^if __name__ == "__main__":', p.read_text(), re.M))
    assert len(mains) >= 40, mains
    missing = [m for m in mains if m not in mods and FACES.get(m) not in mods]
    assert not missing, f"commands without bad-input rows: {missing}"
