"""A fake simulator for tests/tb/test_sim_faults.py: what the cocotb wrapper writes, or dies.

    python tests/tb/fake_sim.py MODE K EXT_WORDS KEYS

Run in a run directory (tb/protocol.py's files), it writes every
program's outcome files as tb/hdl/ga2_tb.v would (a status holding every key of KEYS, a
comma list, all zero: the chip "did nothing", so the judge finds mismatches), until program
K, where MODE decides:
  ok       no fault: every program written, exit 0
  segv     K's trace written, then killed by SIGSEGV (a crash mid-program)
  kill     killed by SIGKILL before K (the OOM killer, a user's kill -9)
  exit     exit code 1 before K (the simulator gave up)
  hang     sleeps before K (a simulator that never ends)
  torn     K's status cut in the middle of its last line, exit 0
  quiet    exit 0 before K (ended early without a word)
  after    every program written, then SIGSEGV (a crash at the end)
  assert   a design check's $error (as Icarus prints it) before K, then $finish (exit 0)
"""
import os
import signal
import sys
import time

from tb.protocol import program_file, read_jobs


def main():
    mode, k_fault, ext_words, keys = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(",")
    jobs = read_jobs(".")
    n = sum(c for _, c, _ in jobs)
    for k in range(n):
        if k == k_fault and mode != "after":
            if mode == "segv":
                program_file(".", k, "trace").write_text("0 3\n")
                os.kill(os.getpid(), signal.SIGSEGV)
            if mode == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if mode == "exit":
                sys.exit(1)
            if mode == "hang":
                time.sleep(600)
            if mode == "quiet":
                sys.exit(0)
            if mode == "assert":
                print("ERROR: ga2_tb.u_h.u_chip.u_xbar: missed hazard: a write of unit(s) 010 meets ...", flush=True)
                sys.exit(0)
        program_file(".", k, "trace").write_text("")
        program_file(".", k, "bus").write_text("")
        program_file(".", k, "ext_out").write_text("00000000\n" * ext_words)
        status = " ".join(f"{key} 0" for key in keys) + "\n"
        if k == k_fault and mode == "torn":
            status = status[:len(status) - 7]
        program_file(".", k, "status").write_text(status)
        if k == k_fault and mode == "torn":
            return 0
    if mode == "after":
        os.kill(os.getpid(), signal.SIGSEGV)
    return 0


if __name__ == "__main__":
    sys.exit(main())
