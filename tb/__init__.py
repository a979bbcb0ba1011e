"""GA-2's verification: what holds the RTL to the twin (model/).

hdl/ the Verilog benches and harness; drivers/ the cocotb drivers; sim/ building and running
any bench (hw.py is the one entry point to the chip in simulation); protocol.py the pK_*
files between Python and the benches; judge.py the one comparison with the reference;
stimulus/ every generated and named program; mutation/ the mutation engine; soak, shrink,
plain_check. Imports the twin (model) only, never tools/ (tests/flow/test_layers.py).
"""
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
