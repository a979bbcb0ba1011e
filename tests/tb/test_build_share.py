"""Verilator builds share what does not depend on the design (tb/sim/build.py verilator_make):
the run-time library objects (verilated.o, verilated_vpi.o, ...: 21 CPU seconds of g++ at
-O2, four times the default chip's own compile of 5) are compiled once into
build/verilator-rt/ and copied into every build. On Verilator 5.048 the list of those
objects in Vtop_classes.mk is indented with spaces, where 5.006 used tabs; reading tabs only
found no object, and every build compiled its own copy (make test has nine cocotb
Verilator builds)."""
from pathlib import Path

import pytest

from model import config
from tb import hw
from tb.sim import build as sim_build

CLASSES_MK = """### Object file lists...
# Generated module classes, fast-path, compile with highest optimization
VM_CLASSES_FAST += \\
{i}Vtop \\
{i}Vtop___024root__0 \\

# Global classes, need linked once per executable, fast-path, compile with highest optimization
VM_GLOBAL_FAST += \\
{i}verilated \\
{i}verilated_vpi \\
{i}verilated_timing \\

# Global classes, need linked once per executable, non-fast-path, compile with low/medium optimization
VM_GLOBAL_SLOW += \\

# Verilated -*- Makefile -*-
"""


@pytest.mark.parametrize("indent", ["\t", "  "], ids=["tab (5.006)", "spaces (5.048)"])
def test_the_run_time_objects_are_read_whatever_the_indent(indent, tmp_path):
    (tmp_path / "Vtop_classes.mk").write_text(CLASSES_MK.format(i=indent))
    assert sim_build._runtime_objects(tmp_path) == ["verilated.o", "verilated_vpi.o", "verilated_timing.o"]


@pytest.mark.long   # a whole chip build of its own (4 CPU-s); the read of the run-time objects stays
def test_a_chip_build_copies_the_run_time_library_instead_of_compiling_it(tmp_path):
    """A fresh build of the default chip (its own directory) after make test's (the
    prebuilds made the shared objects): it lists the run-time objects, copies each from
    build/verilator-rt (its log says so, the bytes are the shared copy's) and compiles none
    of them (no compile command for one in its log)."""
    if "verilator" not in hw.available_sims():
        pytest.skip("verilator not installed")
    hw.build("verilator", cfg=config.DEFAULT)                       # the shared objects exist
    d = hw.build("verilator", cfg=config.DEFAULT, build_dir=tmp_path / "b")
    objs = sim_build._runtime_objects(d)
    assert {"verilated.o", "verilated_vpi.o", "verilated_timing.o"} <= set(objs)
    log = (d / "build.log").read_text()
    assert f"objects {' '.join(objs)} from {sim_build.RUNTIME_DIR}" in log
    compiled = [o for o in objs if f" -o {o} " in log]
    assert compiled == [], f"compiled again: {compiled}"
    for o in objs:
        assert any((d / o).read_bytes() == p.read_bytes() for p in sim_build.RUNTIME_DIR.glob(f"*/{o}")), o


@pytest.mark.long
def test_the_plain_bench_build_takes_the_run_time_library_from_the_shared_copies():
    """The plain bench's Verilator build (compile_binary: --binary taken apart) lists its
    run-time objects and copies them from build/verilator-rt (its own keys: --main compiles
    them with -DVL_TIME_CONTEXT). -m long: make test builds no Verilator plain bench (its own
    run-time library and build, about 11 CPU-s; test_bin_load compares with Icarus's)."""
    if "verilator" not in hw.available_sims():
        pytest.skip("verilator not installed")
    obj = Path(hw.plain.build("verilator", config.DEFAULT)[0]).parent
    objs = sim_build._runtime_objects(obj, prefix=f"V{hw.plain.TOP}")
    assert {"verilated.o", "verilated_timing.o"} <= set(objs)
    assert f"objects {' '.join(objs)} from {sim_build.RUNTIME_DIR}" in (obj / "make.log").read_text()
    for o in objs:
        assert any((obj / o).read_bytes() == p.read_bytes() for p in sim_build.RUNTIME_DIR.glob(f"*/{o}")), o
