# GA-2: `make sim` (the main job) and `make test` (all tests). `make help` lists the rest.
SHELL := /bin/bash
PY    := .venv/bin/python
SIM   ?= both
N     ?= 2000
SEED  ?= 1
export PYTHONPATH := $(CURDIR)

SETUP_STAMP := .venv/.requirements.stamp

.PHONY: help setup sim test lint synth fuzz plain mutants mutants-rtl bench header clean

help:          ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14

setup:         ## install simulators (apt, as root) and .venv from requirements.txt
	@bash tools/setup.sh

sim: setup     ## build the chip on Icarus and Verilator and run chapter 9 on it (SIM=icarus|verilator)
	$(PY) tools/ch09_run.py --sim $(SIM)
	$(PY) tools/ch09_example_a.py
	$(PY) tools/ch09_example_b.py

test: setup    ## all tests (pytest; co-simulation on both simulators, CI-sized)
	$(PY) -m pytest -n 2 -q tests

lint: setup    ## verilator --lint-only -Wall on the RTL
	$(PY) tools/lint.py

synth: setup   ## yosys synthesis of ga2_top; cells and flip-flops per module into out/synth.txt
	$(PY) tools/synth.py

fuzz: setup    ## N random programs per simulator against the reference (N=2000 SEED=1 SIM=both)
	$(PY) tools/fuzz.py --sim $(SIM) --n $(N) --seed $(SEED)

plain: setup   ## the RTL against the reference through the plain Verilog bench (no cocotb), then the Icarus X check
	$(PY) tools/plain_check.py --sim $(SIM) --random 50 --seed $(SEED)
	$(PY) tools/plain_check.py --sim icarus --xcheck

mutants: setup ## chapter-9 mutation run (tools/mut_ch09.py), full
	$(PY) tools/mut_ch09.py

mutants-rtl: setup ## RTL mutation run (tools/mut_rtl.py), full, on both cores
	$(PY) tools/mut_rtl.py --jobs 2

bench: setup   ## benchmarks: reference model speed and simulation speed
	$(PY) tools/bench_model.py
	$(PY) tools/bench_sim.py

header: setup  ## regenerate rtl/ga2_isa.vh and rtl/exp_lut.v from the Python side
	$(PY) tools/gen_isa_header.py
	$(PY) tools/gen_exp_lut.py

clean:         ## remove build/ and generated out/ files
	rm -rf build
	find out -mindepth 1 ! -name .gitkeep -delete
