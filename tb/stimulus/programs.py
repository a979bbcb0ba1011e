"""The chip programs of the RTL mutation suite (tb/mutation/rtl/suite.py writes them for
tb/hdl/mut_rtl_tb.v; tests/tb/test_bench_suite.py runs the same lists through
cocotb on both simulators).

suite_programs() is the in-order suite (config.CH09), overlap_programs() the overlap one
(config.CH09_OVERLAP), sp64k_programs() the third (suitecfg.CFG_SP64K); entries are (label,
prog, image), (label, prog, image, abort_at) for a cut by reset, and (label, prog, None, 0,
1) for a light fault program that keeps the external memory. Each group says in its
docstring which checks or bits it is there for. The groups at the edges are in edges.py,
each op's own (crafted data, resets while its unit is busy, faults behind busy units) in
its module in tb/stimulus/ops/, the chip and seeds in suitecfg.py; this module composes
the suites.
"""
from pathlib import Path

import numpy as np

from tb.stimulus import ops, resets
from tb.stimulus.edges import (
    alone_programs,
    boundary_programs,
    end_faults,
    index_error_programs,
    long_programs,
    top_bit_faults,
    wrap_programs,
)
from tb.stimulus.suitecfg import CFG, CFG_OVERLAP, CFG_SP64K, N_COLLIDING, N_RANDOM_FIRST, N_RANDOM_LATE, RANDOM_SEED

CH09_FILE = Path(__file__).resolve().parent / "named" / "ch09.npz"


def chapter9_programs(cfg=CFG):
    """[(label, prog, image)]: chapter 9's B = 1..4 at token 16 and the ragged batch, for
    cfg's timing mode, read from named/ch09.npz (written by tools/ch09/stimulus.py from the
    chapter's builder; tests/tools/ch09 fails when it is stale)."""
    from model import isa
    with np.load(CH09_FILE) as f:
        progs = f["overlap" if cfg.mode == "overlap" else "inorder"]
        return [(str(label), [isa.decode(int(w, 16)) for w in row if w], np.asarray(img, dtype=np.int64))
                for label, row, img in zip(f["labels"], progs, f["images"])]


def acc_programs(rng, cfg, n=3):
    """[(label, prog, image)]: MM with acc = 1 (dst += A x B): n random programs with
    half their products accumulating (randprog.with_acc), a crafted one whose output
    rows overlap (ldc < N: each result adds onto the word an earlier result of the same
    product just wrote, which the matrix unit reads back through the scratchpad's
    write-first path), and one of 16-bit A operands (a16) over their whole range."""
    from model import isa
    from tb.stimulus import randprog
    out = []
    for k in range(n):
        prog, img = randprog.random_program(rng, cfg=cfg)
        out.append((f"acc random {k}", randprog.with_acc(prog, rng), img))
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    img = rng.integers(-128, 128, size=256)
    prog = [b("LD", dst=0, src=0, len=200)]
    for ldc, N, tb in ((1, 4, 0), (2, 4, 1), (3, 4, 0), (1, 2, 1), (0, 3, 0), (2, 1, 0)):
        prog.append(b("MM", dst=300 + 40 * ldc + 8 * N, A=0, B=64, M=4, K=6, N=N, tb=tb,
                      lda=6, ldb=6 if tb else N, ldc=ldc, acc=1))
    prog += [b("ST", src=300, dst=600, len=200), b("HALT")]
    out.append(("acc overlapping rows", prog, img))
    # 16-bit A operands over their whole range in every row (random programs load int8
    # images, whose high byte is the sign): each port's high byte read from its own word
    img16 = np.concatenate([rng.integers(-32768, 32768, size=64), rng.integers(-128, 128, size=64)])
    prog = [b("LD", dst=0, src=0, len=128)]
    for tb, acc in ((0, 0), (1, 1)):
        prog.append(b("MM", dst=200 + 32 * tb, A=0, B=64, M=4, K=16, N=4, tb=tb, lda=16, ldb=16 if tb else 4,
                      ldc=4, acc=acc, a16=1))
    prog += [b("ST", src=200, dst=300, len=64), b("HALT")]
    out.append(("a16 full range", prog, img16))
    out.append(khi_program(cfg))
    return out


def khi_program(cfg):
    """(label, prog, image): MM depths of exact multiples of 256 (K = 0 with khi = 1, 2
    and 4: each of khi's bits alone makes the depth, and K = 0 is valid only with it),
    255 + 256 khi and K = 128 alone (K's top bit), on 1,024-word operand rows of random int8
    words; results stored."""
    from model import isa

    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    img = np.random.default_rng(RANDOM_SEED + 77).integers(-128, 128, size=2048)
    prog = [b("LD", dst=0, src=0, len=1024), b("LD", dst=1024, src=1024, len=1024)]
    for k, (K, khi) in enumerate(((0, 1), (0, 2), (0, 4), (255, 2), (128, 0))):
        prog.append(b("MM", dst=2100 + 4 * k, A=0, B=1024, M=1, K=K, N=2, tb=1, lda=0, ldb=1,
                      ldc=0, khi=khi))
    prog += [b("ST", src=2100, dst=0, len=20), b("HALT")]
    return ("MM depth khi * 256", prog, img)


def overlap_programs(quick=False):
    """[(label, prog, image)] of the overlap suite (run on the OVERLAP=1 build): programs
    built to collide across units (every hazard kind, long next to short), faults behind
    work in flight on every unit, the one-word edges of every hull (collide.edge_programs),
    accumulating products, the in-order suite's random and crafted programs, the chapter-9
    programs in the overlap order, and resets while several units are busy. quick=True
    (the CI harness) leaves out the edge and chapter-9 programs, which the co-simulation
    tests run on both simulators anyway."""
    from model import isa, timing
    from tb.stimulus import badprog, collide, randprog
    rng = np.random.default_rng(RANDOM_SEED + 7)
    cfg = CFG_OVERLAP
    progs = [(f"colliding {k}", *collide.collide_program(rng, cfg, with_sm=k % 2 == 1))
             for k in range(N_COLLIDING)]

    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    img = rng.integers(-128, 128, size=256)
    busy = [b("LD", dst=0, src=0, len=200),
            b("MM", dst=300, A=400, B=420, M=4, K=60, N=4, tb=1, lda=60, ldb=60, ldc=4)] + ops.call("busy", b)
    for code in (1, 2, 3, 4):                     # a fault behind three busy units
        bad = badprog.bad_program(RANDOM_SEED + 40 + code, code, cfg=cfg)
        fault = bad.prog[bad.pc]
        progs.append((f"overlap error {code}", busy + [fault, b("ST", src=0, dst=0, len=8), b("HALT")], img))
        progs.append((f"after overlap error {code}", busy + [b("ST", src=0, dst=1000, len=600), b("HALT")], img))
    bad = badprog.bad_program(RANDOM_SEED + 45, isa.ERR_PC, cfg=cfg)   # past the end, units busy
    progs.append(("overlap error 5", bad.prog, bad.image))
    progs += ops.call("overlap_faults", b, busy, img)   # faults from data behind busy units
    for k in range(4):
        progs.append((f"colliding lm {k}", *collide.collide_program(rng, cfg, with_sm=k % 2 == 1, with_lm=True)))
    for k in range(3):
        prog, im = randprog.random_program(rng, cfg=cfg)
        progs.append((f"random overlap {k}", prog, im))
    if not quick:
        progs.extend(collide.edge_programs(cfg))     # one-word overlaps at every hull's ends
        progs.extend(collide.lm_edge_programs(cfg))  # the same with the new ops
    progs.extend((f"{label} overlap", randprog.with_acc(prog, rng), im)
                 for label, prog, im in (("colliding acc", *collide.collide_program(rng, cfg, with_sm=True)),))
    progs.extend(acc_programs(rng, cfg, n=1))
    progs += ops.call("overlap_programs", b, img)
    progs.extend((f"{label} overlap", prog, im) for label, prog, im in crafted_programs())
    if not quick:
        progs.extend((f"{label} overlap", prog, im) for label, prog, im in chapter9_programs(cfg))
        progs.extend((f"{label} overlap", prog, im) for label, prog, im in long_programs())
    # self-contained (both windows loaded first), so an aborted run's leftovers cannot matter
    prog, im = collide.collide_program(np.random.default_rng(RANDOM_SEED + 8), cfg, n_instr=20, with_sm=True)
    far = collide.FAR[1] - collide.FAR[0]
    prog = [b("LD", dst=collide.FAR[0], src=0, len=far)] + prog
    sched = timing.schedule(prog, cfg)
    for ev in sched.events[2:6]:                  # cut while the next ones are in flight
        at = ev.issue + 1
        progs.append((f"reset overlap at {at}", prog, im, at))
        progs.append((f"after reset overlap at {at}", prog, im))
    return progs


def suite_programs(quick=False):
    """[(label, prog, image)] in suite order: cheap and broad first, chapter 9 last.
    quick=True (the CI harness test) leaves out the one-check faults, the wrap,
    longest-transfer and chapter-9 programs, which tests/tb/test_bench_suite.py runs on
    both simulators anyway."""
    from tb.stimulus import badprog, randprog
    rng = np.random.default_rng(RANDOM_SEED)
    progs = []
    for k in range(N_RANDOM_FIRST):
        prog, img = randprog.random_program(rng, cfg=CFG)
        progs.append((f"random {k}", prog, img))
    for code in (1, 4, 2, 3, 5, 6):
        bad = badprog.bad_program(RANDOM_SEED + code, code, cfg=CFG)
        progs.append((f"error {code}", bad.prog, bad.image))
        fprog, fimg = badprog.follow_up(bad, cfg=CFG)
        progs.append((f"after error {code}", fprog, fimg))
    progs.extend(index_error_programs())
    progs.extend(crafted_programs())
    progs.extend(lm_programs())
    progs.extend(boundary_programs())
    if not quick:
        progs.extend(alone_programs())
        progs.extend(wrap_programs())
        progs.extend(long_programs())
    for k in range(N_RANDOM_LATE):
        prog, img = randprog.random_program(rng, cfg=CFG)
        progs.append((f"random {N_RANDOM_FIRST + k}", prog, img))
    progs.extend(acc_programs(rng, CFG))
    if not quick:
        progs.extend(chapter9_programs())
    progs.extend(reset_programs())
    return progs


def sp64k_programs():
    """[(label, prog, image)] of the sp64k suite (run on CFG_SP64K's build, after the other two,
    for the mutants they leave): what a 4,096-word scratchpad cannot hold.
    - top_bit_faults on CFG_SP64K that the suite chip has no program for (light faults):
      ranges whose span reaches their decoder wire's top bit only when the op's other
      ranges fit a larger scratchpad (e.g. a table span past 2^28 beside a row of more than
      4,096 words), or a length past the suite chip's softmax limit;
    - the one-word edge programs (collide.edge_programs, lm_edge_programs) with their
      regions at the top of the scratchpad (collide.top_base): every hull address has bits
      12..15 set, so a hull that loses one of them meets (or misses) the other's range;
    - end_faults on CFG_SP64K for every op: each range ending at its memory's last word
      (valid) and one word past it (a light fault)."""
    from model import isa
    from tb.stimulus import collide
    narrow = {label for label, _ in top_bit_faults(CFG)}
    progs = [(f"sp64k fault {label}", prog, None, 0, 1) for label, prog in top_bit_faults(CFG_SP64K)
             if label not in narrow]
    top = collide.top_base(CFG_SP64K)
    progs += [(f"sp64k {label}", prog, img) for label, prog, img in
              collide.edge_programs(CFG_SP64K, base=top) + collide.lm_edge_programs(CFG_SP64K, base=top)]
    # every range of every op (LD, ST and MM too) ending at word 65,535 or the external
    # memory's last, in programs of 40 that store the scratchpad's last 64 words, and each
    # one's twin a word further as a light fault: the end compares at this chip's widths
    valid, bad = end_faults(CFG_SP64K, skip=())
    store = [isa.build("ST", cfg=CFG_SP64K, src=CFG_SP64K.sp_words - 64, dst=0, len=64),
             isa.build("HALT", cfg=CFG_SP64K)]
    progs += [(f"sp64k end valid {k // 40}", valid[k:k + 40] + store, None) for k in range(0, len(valid), 40)]
    progs += [(f"sp64k fault {label}", prog, None, 0, 1) for label, prog in bad]
    return progs


def crafted_programs():
    """[(label, prog, image)]: data random programs rarely produce, each op's own (hook
    crafted_programs)."""
    return ops.call("crafted_programs")


def reset_programs():
    """Reset while busy: each op module's self-contained program cut by rst in the middle
    of each of its units and around their starts, each followed by the same program run
    in full (hook reset_programs, or the module's RESET_CUTS: tb/stimulus/resets.py), in
    module order. Entries are (label, prog, image, abort_at)."""
    out = []
    for m in ops.modules():
        if hasattr(m, "reset_programs"):
            out += m.reset_programs()
        elif hasattr(m, "RESET_CUTS"):
            out += resets.cut_at_starts(*m.self_contained_program(), *m.RESET_CUTS)
    return out


def lm_programs():
    """[(label, prog, image)]: tb/stimulus/hand.py's programs of the language model's ops
    that run to HALT (each op at its edges, hand.lm_programs()), on this chip."""
    from tb.stimulus import hand
    return [(f"crafted {name}", prog, img) for name, prog, img in hand.lm_programs()
            if name.startswith(("lm_", "pack4_", "ok_pack4", "rqc_", "swiglu_", "rope_", "smw_"))]


def bench_items(entries):
    """[(label, hw Item)] for the bench's entries, in the same order (tests/tb/test_bench_suite.py
    runs them so; tb/coverage_run.py too): (label, prog, image) -> Item(prog, image) (image
    None: an all-zero external memory, as the bench clears it); (label, prog, image,
    abort_at) -> the same cut by rst after abort_at cycles; (label, prog, None, 0, 1), a
    light fault program, -> Item(prog, KEEP_EXT): the external memory stays as the previous
    program left it."""
    from tb.judge import KEEP_EXT
    from tb.sim.run import DEFAULT_GAP, Item
    out = []
    for e in entries:
        if len(e) not in (3, 4, 5):
            raise ValueError(f"bench entry of {len(e)} fields: {e[0]!r}")
        label, prog, img = e[:3]
        abort_at = int(e[3]) if len(e) > 3 else 0
        light = bool(e[4]) if len(e) > 4 else False
        if light:
            # build_suite writes no ext/exp files for a light program: its image is unused
            if img is not None or abort_at:
                raise ValueError(f"{label}: a light entry with an image or a cut")
            img = KEEP_EXT
        out.append((label, Item(prog, img, None, DEFAULT_GAP, abort_at)))
    return out
