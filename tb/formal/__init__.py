"""GA-2's formal checks: properties of the RTL proven by yosys 0.23 + yosys-smtbmc (z3).

engine.py drives the open-source flow (read_verilog -formal, prep, write_smt2,
yosys-smtbmc) for one check and returns its verdict; props.py names every property of
`make formal` (tools/flow/formal.py prints the table); miter.py builds the equivalence
miter of an original module and a mutant (the RTL mutation run's formal step). The
Verilog wrappers beside them (*_f.v) hold the assume / assert / cover statements, so the
product modules in rtl/ carry none.
"""
