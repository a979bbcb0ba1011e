"""Each operation's directed programs, one module per operation (or per pair of operations
that test each other: pack4.py holds the packing and the unpacking op, each the other's
round trip).

The generic stimulus files (hand.py, edges.py, programs.py, collide.py, badprog.py,
holes.py, regionprog.py, demo.py) name no operation beyond LD, ST, MM and HALT, which every
program uses: where an operation needs programs of its own they call a hook of these
modules, and a module defines only the hooks its operation has. Adding an operation's
directed programs is adding a module here; the package finds its modules itself (no list
to edit), in the opcode order of their first op (OPS), so every list they make has one
order. The hooks (each returns a list; b / R build a checked / unchecked instruction):

  hand_programs(B, R, rng, img)   the hand programs (hand.py), rng the shared Random(7)
  lm_programs(B, R, rng)          the language-model hand programs (hand.py), rng the
                                  shared Random(11), drawn in LM_STREAM order
  hand_faults(B, R, ld, H, img)   the hand programs' fault programs of the op
  isaext(b, x, img)               instructions of the wide-chip program "xhi" (hand.py)
  suite_programs()                the in-order mutation suite's directed programs
  overlap_programs(b, busy, img)  the overlap suite's
  long_programs(b, SP, EXT)       the longest transfers of the op's unit
  reset_programs()                resets while the op's unit is busy
  edges(v, x, SP, EXT, T)         the decode checks at their edges: v(op, **f) a valid
                                  instruction at a limit, x(label, op, **f) one past it
  collide_make(...)               the op in a colliding program (collide.py)
  edge_producers(b, at), edge_consumers(b, op, word, side, at)   one-word edges
  bad_prefix(b, n), bad_sp(...), bad_shape(...), bad_data(...)  badprog.py's faults
  hole_faults(r, top, far), cut(b), hole_programs(cfg), wide_programs(cfg)   holes.py
  region(rng, cfg, op, addr, data, R), region_bad(rng)            regionprog.py
  demo(b)                         the op's instruction in the demo program
"""
import importlib
import pkgutil

from model import ops as records


def modules():
    """The op modules, in the opcode order of their first op."""
    mods = [importlib.import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__)]
    return sorted(mods, key=lambda m: records.TABLE[m.OPS[0]].code)


def hooks(name):
    """[the function `name` of each module that has one], in module order."""
    return [getattr(m, name) for m in modules() if hasattr(m, name)]


def call(name, *args, **kw):
    """The concatenated lists of every module's hook `name`."""
    out = []
    for f in hooks(name):
        out += f(*args, **kw)
    return out


def owner(op):
    """The module of op (None when it has none)."""
    for m in modules():
        if op in m.OPS:
            return m
    return None
