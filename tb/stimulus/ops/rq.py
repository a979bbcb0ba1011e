"""RQ's directed programs (tb/stimulus/ops/__init__.py lists the hooks): every shift class,
overlapping src / dst, the requant edges, relu, its faults, its decode edges, the alias
reads of the overlap suite, the longest transfers of the vector unit."""
from model import isa
from tb.stimulus import shared_hooks

OPS = ("RQ",)
LM_STREAM = 3            # its place in the language-model hand programs' random stream
COLLIDE = "base"         # in every colliding program (collide.py)
EDGE_GROUP = 0           # its boundary edges chained with LD's and ST's
REGION_WEIGHT = 2        # its share of the plain check's region programs
EDGE = [-2**31, 2**31 - 1, -1, 0, 1, -128, 127, -129, 128, 2**30, -2**30, 12345678, -12345678]


# ------------------------------------------------------------------ hand programs
def hand_programs(B, R, rng, img):
    H = B("HALT")
    rq = [B("LD", dst=0, src=0, len=512)]
    for s in (0, 1, 7, 15, 16, 31, 40, 47, 62, 63):
        rq.append(B("RQ", dst=600 + 20 * s, src=rng.randrange(0, 400), len=rng.randrange(1, 20),
                    m=rng.randrange(0, 65536), s=s))
    rq += [B("RQ", dst=1, src=0, len=50, m=40000, s=14),       # dst overlaps ahead: streaming
           B("RQ", dst=100, src=103, len=50, m=30000, s=10),   # dst behind src
           B("RQ", dst=200, src=200, len=30, m=65535, s=3),    # in place
           B("RQ", dst=0, src=4000, len=96, m=12345, s=20),
           B("ST", src=0, dst=0, len=2000), H]
    edge = EDGE
    rqe = [B("LD", dst=0, src=0, len=len(edge))]
    out = 100
    for m_ in (0, 1, 16384, 32767, 65535):
        for s_ in (0, 1, 15, 16, 31, 32, 46, 47, 48, 62, 63):
            rqe.append(B("RQ", dst=out, src=0, len=len(edge), m=m_, s=s_))
            out += len(edge)
    rqe += [B("ST", src=100, dst=0, len=out - 100), H]
    return [("rq", rq, img), ("rq_edges", rqe, edge)]


def hand_faults(B, R, ld, H, img):
    return [("err4_rq_len0", [R("RQ", dst=0, src=0, len=0, m=1, s=0), H], img),
            ("err2_rq_dst", [R("RQ", dst=4095, src=0, len=2, m=1, s=0), H], img)]


def lm_programs(B, R, rng):
    """RQ with relu (and without, the same inputs)."""
    H = B("HALT")
    edge = EDGE
    rqr = [B("LD", dst=0, src=0, len=len(edge))]
    out = 100
    for m_ in (1, 16384, 65535):
        for s_ in (0, 1, 16, 31, 47, 63):
            for relu in (0, 1):
                rqr.append(B("RQ", dst=out, src=0, len=len(edge), m=m_, s=s_, relu=relu))
                out += len(edge)
    rqr += [B("RQ", dst=1, src=0, len=12, m=40000, s=14, relu=1), B("ST", src=0, dst=0, len=out), H]
    return [("lm_rq_relu", rqr, edge)]


def bench(B):
    return [B("RQ", dst=2100, src=2048, len=16, m=20000, s=20)]


def demo(b):
    return [b("RQ", dst=140, src=100, len=16, m=20000, s=20)]


# ------------------------------------------------------------------ the mutation suites
def overlap_programs(b, img):
    """A read 2048 words from a write in the same cycle (LD writing sp[k] while RQ reads
    sp[k + 2048]): the scratchpad's write-first compare must use every address bit."""
    out = []
    for src in (2048, 2049, 2050):
        out.append((f"alias read {src}", [b("LD", dst=2040, src=0, len=30), b("LD", dst=0, src=0, len=200),
                                          b("RQ", dst=3000, src=src, len=100, m=20000, s=10),
                                          b("ST", src=3000, dst=4000, len=100), b("HALT")], img))
    return out


def long_programs(b, img, SP, EXT):
    """The longest transfers the fields allow, so every counter and length bit is used:
    LD and ST of the whole scratchpad (len = SP_WORDS: the length field's top bit), RQ of
    the whole scratchpad in place and shifted by one, MM with K = 255 (the largest K) and
    the largest strides, SM of 64 elements at the scratchpad's end; results stored."""
    prog = [b("LD", dst=0, src=EXT - SP, len=SP),
            b("RQ", dst=0, src=0, len=SP, m=(1 << 16) - 1, s=9),
            b("ST", src=0, dst=0, len=SP),
            b("LD", dst=0, src=EXT - SP, len=SP),
            # K = 255 accumulating into words above 2048 (the old-C read's cycle and address
            # at their top bits), tb = 1 with a column step past 2048, K = 255, strides with
            # bit 11 set, SM of 64 at the end: all on random data, each result stored
            # before the shifted RQ below rewrites the whole scratchpad
            b("MM", dst=3000, A=0, B=1100, M=4, K=255, N=4, tb=0, lda=255, ldb=4, ldc=4, acc=1),
            b("MM", dst=2100, A=10, B=50, M=4, K=10, N=4, tb=1, lda=10, ldb=1000, ldc=4),
            b("MM", dst=SP - 16, A=0, B=1100, M=4, K=255, N=4, tb=0, lda=255, ldb=4, ldc=4),
            b("MM", dst=1000, A=0, B=100, M=2, K=200, N=2, tb=1, lda=3800, ldb=3000, ldc=2500),
            b("MM", dst=3200, A=5, B=0, M=2, K=2, N=4, tb=0, lda=2049, ldb=4000, ldc=1),
            b("SM", dst=SP - 64 - 80, src=SP - 64, len=64),
            b("ST", src=3000, dst=100, len=16),
            b("ST", src=2100, dst=200, len=16),
            b("ST", src=SP - 16, dst=300, len=16),
            b("ST", src=1000, dst=400, len=2),
            b("ST", src=3500, dst=410, len=2),
            b("ST", src=3200, dst=500, len=5),
            b("ST", src=SP - 64 - 80, dst=600, len=64),
            b("RQ", dst=1, src=0, len=SP - 1, m=1 << 15, s=16),
            b("ST", src=0, dst=SP, len=SP),
            b("HALT")]
    return [("long transfers", prog, img)]


def edges(v, x, SP, EXT, T):
    x("RQ len 0", "RQ", len=0, dst=5, src=5, m=1, s=1)
    for n in (1, 20):
        x(f"RQ src wrap {n}", "RQ", dst=0, src=T - n // 2 - 1, len=n, m=1, s=0)
        x(f"RQ dst wrap {n}", "RQ", dst=T - n // 2 - 1, src=0, len=n, m=1, s=0)


# ------------------------------------------------------------------ colliding programs
# the colliding programs' drawer and one-word edges, the n-word edges (tb/stimulus/shared_hooks.py)
collide_make, edge_producers, edge_consumers, edges_n = shared_hooks.requant("RQ", 14, 9, 125)


def fault_shape(dst, src):
    """An instruction DECODE refuses for its shape (len 0)."""
    return isa.raw("RQ", dst=dst, src=src, len=0, m=1, s=1)


# ------------------------------------------------------------------ bad programs
def bad_prefix(b, n):
    return [b("RQ", dst=128, src=64, len=n, m=20000, s=14)]


def bad_sp(SP):
    """A scratchpad-range fault: (instruction, the sp range it would have written)."""
    return isa.raw("RQ", dst=SP - 3, src=64, len=8, m=20000, s=10), (SP - 3, 3)


def bad_tail(SP):
    """A later DECODE fault (past the scratchpad)."""
    return isa.raw("RQ", dst=SP - 2, src=64, len=8, m=1, s=1)


# ------------------------------------------------------------------ holes, region programs
def hole_faults(r, top, far):
    return [("RQ len max", r("RQ", dst=0, src=0, len=top, m=1, s=0))]


def region(rng, cfg, op, addr, data, R, prog):
    n = rng.randrange(1, 80)
    src = addr(n)
    dst = rng.choice([addr(n), src + rng.randrange(-3, 4)])
    prog.append(isa.build("RQ", cfg=cfg, dst=max(0, dst), src=src, len=n,
                          m=rng.choice([rng.randrange(1 << 14, 1 << 15), rng.randrange(0, 1 << 16)]),
                          s=rng.choice([0, rng.randrange(0, 64), rng.randrange(8, 24)])))


def region_bad(rng):
    return isa.raw("RQ", dst=rng.randrange(3900, 65536), src=rng.randrange(0, 4096), len=rng.randrange(0, 300),
                   m=1, s=1)


def bad_len0(rng):
    """A shape fault, len 0: (instruction, the sp range it would have written)."""
    return isa.raw("RQ", dst=400, src=64, len=0, m=1, s=1), (400, 8)


def wrap_kinds():
    """badprog.WRAP_KINDS' entries of RQ: its ranges past 2^16."""
    return [("RQ", "src", 16), ("RQ", "dst", 16)]


def wrap_fields(ri):
    """Its value fields in a wrap program."""
    return dict(m=ri(1, 0xFFFF), s=ri(0, 40))
