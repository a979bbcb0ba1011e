"""Every program and vector the benches, tests and mutation runs draw from.

the seeded random programs: randops.py (the drawers: random_image, one instruction of each
op, rand_ld, rand_st, rand_mm, rand_op, rand_lookup, rand_ms, rand_norm_ms), randprog.py (random VALID programs:
random_program(rng, cfg), random_programs, with_acc), badprog.py (BAD programs: bad_program(rng,
code, cfg) and follow_up for codes 1..6, wrap_bad_program(s), timing_fault), regionprog.py (the
plain check's programs crowded into a small region: region_program, region_cases);
collide.py (programs built to collide in the overlap mode), longprog.py (programs of 10^5
instructions and more, past the old 16-bit pc), programs.py (the named
suites of the RTL mutation bench; named/ch09.npz chapter 9's programs), hand.py (the
hand programs of the plain check), demo.py (the demo set), vectors.py (unit vectors);
ops/ (each op's own directed programs, one module per op, whose hooks these files call:
they name no op beyond LD, ST, MM and HALT), shared_hooks.py (hooks several op modules make
from it for their op).
"""
