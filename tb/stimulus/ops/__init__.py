"""Each operation's directed programs, one module per operation (or per pair of operations
that test each other: pack4.py holds the packing and the unpacking op, each the other's
round trip).

The generic stimulus files (hand.py, edges.py, programs.py, collide.py, badprog.py,
holes.py, regionprog.py, demo.py, randops.py, shared_hooks.py) name no operation beyond LD, ST, MM and
HALT, which every program uses: where an operation needs programs of its own they call a
hook of these modules, and a module defines only the hooks its operation has. Adding an
operation's directed programs is adding a module here; the package finds its modules
itself (no list to edit), in the opcode order of their first op, so every list they make
has one order (the random streams the hooks draw from are drawn in that order).

A module's attributes: OPS (its ops' names), LM_STREAM (its place in the language-model
hand programs' shared random stream), COLLIDE ("base": in every colliding program, "sm":
with_sm, "lm": with_lm), COLLIDE_LEN (its length's cap there, when it has one),
EDGE_GROUP (the boundary programs chain the valid edge instructions of a group together,
n by n; 0 with LD's and ST's), REGION_WEIGHT (its share of the region programs),
RESET_CUTS ((first, stop): the reset programs cut its self_contained_program() around
those instructions, tb/stimulus/resets.py, unless it has the hook reset_programs). Its
hooks (b / B build a checked instruction, R / r / x an unchecked one), by caller:

  hand.py       hand_programs(B, R, rng, img), hand_faults(B, R, ld, H, img),
                lm_programs(B, R, rng), lm_faults(B, R, H, img), isaext(cfg, b, x, img, rng),
                bench(B)
  demo.py       demo(b)
  programs.py   crafted_programs(), reset_programs(), busy(b), overlap_faults(b, busy, img),
                overlap_programs(b, img)
  edges.py      edges_n(v, x, n, SP, EXT), edges(v, x, SP, EXT, T), long_programs(b, img, SP, EXT)
  collide.py    collide_prelude(b, near0), collide_make(rng, cfg, op, n, src, dst, long_,
                side, target, window), edge_producers(b, at), edge_prelude(b, at),
                edge_consumers(b, op, word, side, at), fault_shape(dst, src)
  badprog.py    bad_prefix(b, n), bad_sp(SP), bad_shape(rng), bad_len0(rng), bad_tail(SP),
                bad_data(rng, b, ext, SP, image, prog), wrap_kinds(), wrap_fields(ri)
  randops.py    rand_lookup(rng, cfg, b, idx, rows_min)
  holes.py      hole_faults(r, top, far), cut(b), hole_programs(cfg), wide_programs(cfg)
  regionprog.py region(rng, cfg, op, addr, data, R, prog), region_bad(rng)
"""
import functools
import importlib
import pkgutil

from model import ops as records

HOOKS = frozenset("""
    hand_programs hand_faults lm_programs lm_faults isaext bench demo crafted_programs
    reset_programs busy overlap_faults overlap_programs edges_n edges long_programs
    collide_prelude collide_make edge_producers edge_prelude edge_consumers fault_shape
    bad_prefix bad_sp bad_shape bad_len0 bad_tail bad_data wrap_kinds wrap_fields
    rand_lookup hole_faults cut hole_programs wide_programs region region_bad
""".split())


@functools.cache
def _modules():
    mods = [importlib.import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__)]
    return tuple(sorted(mods, key=lambda m: records.TABLE[m.OPS[0]].code))


def modules():
    """The op modules, in the opcode order of their first op."""
    return list(_modules())


def hooks(name):
    """[the function `name` of each module that has one], in module order; ValueError for
    a name that is not a hook (a misspelt one would find none)."""
    if name not in HOOKS:
        raise ValueError(f"{name!r} is not a hook of tb/stimulus/ops")
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
