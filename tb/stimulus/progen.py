"""Seeded random GA-2 programs for co-simulation: the one name every caller imports.

The generators live by concern; this module re-exports them (`from tb.stimulus import
progen` as before, the same programs from the same seeds):
  randops.py     the drawers: random_image, one instruction of any op (rand_op, from its
                 record), rand_ld, rand_st, rand_mm, rand_ldx, rand_ms, rand_norm_ms
  randprog.py    random VALID programs: random_program(rng, cfg), random_programs, with_acc
  badprog.py     BAD programs: bad_program(rng, code, cfg) and follow_up (codes 1..6),
                 wrap_bad_program / wrap_bad_programs (WRAP_KINDS), timing_fault, BadProgram
  regionprog.py  the plain check's programs crowded into a small region: region_program,
                 region_cases
"""
from tb.stimulus.randops import (  # noqa: F401  (re-exported)
    rand_ld, rand_ldx, rand_mm, rand_ms, rand_norm_ms, rand_op, rand_st, random_image, rng_of)
from tb.stimulus.randprog import random_program, random_programs, with_acc  # noqa: F401
from tb.stimulus.badprog import (  # noqa: F401
    WRAP_KINDS, BadProgram, bad_program, follow_up, timing_fault, wrap_bad_program,
    wrap_bad_programs)
from tb.stimulus.regionprog import region_cases, region_program  # noqa: F401
