"""Directed programs for the holes the first `make coverage` report showed (tb/coverage_run.py
set "holes"; docs/coverage.md lists the holes before and after).

The other sets never put these fields at the top of their encoding: an address field at
65535 (MM dst, A, B; LDX src), a len at 8191 (LD, RQ, ADD, ARGMAX, LDX) or MM's lda and
ldc at 4095. Most of them can only fault on this chip (a span past the 4096-word
scratchpad): each such instruction ends its own program, after an LD that leaves work
behind, and check() says which field it blames (the coverage model counts the other
fields' top values as reached, the blamed field's as outside). MM's strides at 4095 are
legal with M = 2 from word 0 (the second row is the scratchpad's last word). And the
overlap suite's resets always had the dma or the vector unit busy: cut_programs() restarts
the chip with each unit alone busy and with none, in both modes.

hole_jobs(mode) -> [(Config, items)]: one job per mode on config.DEFAULT.
"""
import numpy as np

from model import config, isa


def fault_programs(cfg):
    """[(label, prog)]: one faulting instruction with a field at its encoding's top each."""
    b = lambda op, **f: isa.build(op, cfg=cfg, **f)  # noqa: E731
    r = isa.raw
    top = (1 << 13) - 1                            # len: 13 bits
    far = (1 << isa.ADDR_W) - 1                    # an address: 16 bits
    bad = [("LD len max", r("LD", dst=0, src=0, len=top)),
           ("RQ len max", r("RQ", dst=0, src=0, len=top, m=1, s=0)),
           ("ADD len max", r("ADD", dst=0, src=0, len=top, src2=0)),
           ("ARGMAX len max", r("ARGMAX", dst=0, src=0, len=top)),
           ("LDX src and len max", r("LDX", dst=0, src=far, len=top, idx=0, rows=1)),
           ("MM dst max", r("MM", dst=far, A=0, B=0, M=1, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0)),
           ("MM A max", r("MM", dst=0, A=far, B=0, M=1, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0)),
           ("MM B max", r("MM", dst=0, A=0, B=far, M=1, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0))]
    out = []
    for label, ins in bad:
        if isa.check(ins, cfg) is None:
            raise AssertionError(f"{label}: meant to fault on {cfg.name}")
        out.append((label, [b("LD", dst=0, src=0, len=64), ins, b("HALT")]))
    return out


def stride_program(cfg):
    """MM with lda = 4095 and with ldc = 4095 (M = 2 from word 0: rows at 0 and 4095),
    the results stored back; valid."""
    b = lambda op, **f: isa.build(op, cfg=cfg, **f)  # noqa: E731
    s = (1 << 12) - 1
    return [b("LD", dst=0, src=0, len=64), b("LD", dst=s, src=64, len=1),
            b("MM", dst=100, A=0, B=8, M=2, K=1, N=2, tb=0, lda=s, ldb=2, ldc=2),
            b("MM", dst=0, A=8, B=16, M=2, K=1, N=1, tb=0, lda=1, ldb=1, ldc=s),
            b("ST", src=100, dst=200, len=4), b("ST", src=0, dst=210, len=1),
            b("ST", src=s, dst=211, len=1), b("HALT")]


def cut_programs(cfg):
    """[(label, prog, abort_at)]: a restart while one unit alone is busy (the dma's LD, the
    matrix unit's MM, the vector unit's SM: cut half way into its busy cycles, from the
    timing model's schedule) and while none is (the first cycle of the run)."""
    from model import timing
    b = lambda op, **f: isa.build(op, cfg=cfg, **f)  # noqa: E731
    H = b("HALT")
    out = []
    for unit, ins in (("dma", b("LD", dst=0, src=0, len=200)),
                      ("mm", b("MM", dst=2000, A=0, B=0, M=4, K=200, N=4, tb=1, lda=0, ldb=0, ldc=4)),
                      ("vec", b("SM", dst=2000, src=0, len=64))):
        ev = timing.schedule([ins, H], cfg).events[0]
        out.append((f"restart in {unit}", [ins, H], ev.start + (ev.end - ev.start) // 2))
    out.append(("restart before any unit", [b("LD", dst=0, src=0, len=8), H], 1))
    return out


def hole_jobs(mode):
    """[(Config, [hw Item])] of the holes set in a timing mode. After a cut program the next
    one preloads the scratchpad (the reference cannot know what the cut left there)."""
    from tb.sim.run import Item
    cfg = config.DEFAULT.replace(mode=mode)
    img = np.random.default_rng(24).integers(-128, 128, size=256)
    items = [Item(stride_program(cfg), img)]
    items += [Item(prog, img) for _, prog in fault_programs(cfg)]
    zeros = np.zeros(cfg.sp_words, dtype=np.int64)
    for _, prog, at in cut_programs(cfg):
        items.append(Item(prog, img, abort_at=at))
        items.append(Item(prog, img, sp=zeros))          # the same run in full
    return [(cfg, items)]
