"""GA-2's applications: what runs on the chip and what users run.

ch09/ (chapter 9), serve/ (serving over a paged KV cache), prefix/ (shared prefixes), each
with its builder, scheduler, oracle, run script, figures, mutants and workloads; ga2.py (the
`ga2` command); flow/ (setup, lint, synthesis, generated headers); bench/ (benchmarks).
Imports the twin (model) and verification (tb); nothing imports tools.
"""
