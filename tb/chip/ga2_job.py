"""cocotb job module: run a batch of GA-2 programs on the chip (toplevel tb/chip/ga2_tb.v).

The job file (path in GA2_JOB, written by tools/hw.run) holds jobs of (instruction
words, ext image). For each program this writes imem.hex/ext_in.hex into the run
directory, bumps the wrapper's `req` and awaits `ack` (the wrapper runs the program in
HDL time, no per-cycle Python), reads the wrapper's raw outputs, and compares them with
ONE reference Machine run in the same order. Results go to results.pkl for hw.py; any
mismatch fails this cocotb test (assert).
"""
import os
import pickle
from pathlib import Path

import cocotb
from cocotb.triggers import Edge, Timer

from model.machine import Machine
from tools.sim import hw


@cocotb.test()
async def run_job(dut):
    """Every program of the job equals the reference (ext, counters, done/error, trace)."""
    with open(os.environ["GA2_JOB"], "rb") as f:
        job = pickle.load(f)
    cfg = job["cfg"]
    ext_words = cfg.ext_words
    run_dir = Path.cwd()
    machine = Machine(cfg)
    records, failures, n = [], [], 0
    await Timer(1, units="ns")
    for j, progs in enumerate(job["jobs"]):
        out = []
        for p, (words, image) in enumerate(progs):
            hw.write_hex_inputs(run_dir, words, image, cfg.imem_depth)
            n += 1
            tag = n & 0xFFFF
            dut.req.value = tag
            while True:
                await Edge(dut.ack)
                if int(dut.ack.value) == tag:
                    break
            raw = hw.read_raw(run_dir, ext_words)
            ref = hw.reference(machine, words, image)
            res = hw.make_result(raw, ref)
            if not res.ok:
                failures.append(f"job {j} program {p}: {res.mismatch}")
                dut._log.error("job %d program %d: %s", j, p, res.mismatch)
            rec = res._asdict()
            rec["ref"] = hw.ref_to_record(ref)
            out.append(rec)
        records.append(out)
    with open(run_dir / "results.pkl", "wb") as f:
        pickle.dump(records, f, protocol=pickle.HIGHEST_PROTOCOL)
    dut._log.info("%d programs, %d mismatches", n, len(failures))
    assert not failures, f"{len(failures)} of {n} programs differ from the reference; first: {failures[0]}"
