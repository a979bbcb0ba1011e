"""Every program and vector the benches, tests and mutation runs draw from.

progen.py (seeded random programs, bad programs per error code, region programs),
collide.py (programs built to collide in the overlap mode), programs.py (the named
suites of the RTL mutation bench; named/ch09.npz chapter 9's programs), hand.py (the
hand programs of the plain check), demo.py (the demo set), vectors.py (unit vectors).
"""
