"""GA-2's clock for every derived time: the measured Fmax of `make fpga`'s ECP5 builds.

Why one place: a tokens-per-second or millisecond figure is the chip's cycles (measured
on the simulators) over a clock, and the clock is a measurement too -- nextpnr-ecp5's
Fmax of the routed chip (tools/flow/ecp5.py), which `make fpga` writes into
tools/flow/fpga/measured.json (committed). clock(mode, chip) gives the figure of the
build of that chip and timing mode and a label naming the build, so every derived figure
says which build it came from. tests/flow/test_fpga.py checks docs/fpga.md's figures equal the file's.
"""
import json
from collections import namedtuple

from tb import ROOT

MEASURED = ROOT / "tools" / "flow" / "fpga" / "measured.json"
# the build whose Fmax clocks a chip's figures in a timing mode (tools/flow/ecp5.py BUILDS):
# chapter 9's chip by its own builds; the language models' chips by lm-sp16, their largest
# chip routed (with a 16-word scratchpad: the 16,384 words do not fit), an overlap build,
# which clocks their in-order figures too (no in-order build of it is routed)
BUILD_OF = {("ch09", "inorder"): "inorder", ("ch09", "overlap"): "overlap",
            ("lm", "inorder"): "lm-sp16", ("lm", "overlap"): "lm-sp16"}

Clock = namedtuple("Clock", "mhz build label")
Clock.__doc__ = """mhz: the measured Fmax (MHz); build: its name in measured.json; label: e.g.
"28.25 MHz, the measured Fmax of make fpga's ECP5 build inorder (chapter 9's chip, ...)"."""


def measured():
    """measured.json as a dict {build: entry}."""
    return json.loads(MEASURED.read_text())


def clock(mode="overlap", chip="ch09"):
    """The Clock of a chip ("ch09": chapter 9's, "lm": the language models') in a timing
    mode ("inorder" or "overlap"); ValueError for another, or a build that did not route."""
    if (chip, mode) not in BUILD_OF:
        raise ValueError(f"clock: chip {chip!r} and mode {mode!r}: not one of {sorted(BUILD_OF)}")
    name = BUILD_OF[(chip, mode)]
    e = measured().get(name)
    if not e or not e.get("fits"):
        raise ValueError(f"clock: tools/flow/fpga/measured.json has no routed build {name!r} (run make fpga)")
    mhz = float(e["fmax_mhz"])
    also = ", its overlap build: no in-order one is routed" if mode == "inorder" and e["params"]["OVERLAP"] else ""
    return Clock(mhz, name, f"{mhz:g} MHz, the measured Fmax of make fpga's ECP5 build {name} ({e['what']}{also}; "
                            f"{e['device'].split()[0]}, tools/flow/fpga/measured.json)")
