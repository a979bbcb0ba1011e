"""The plain check's random programs: crowded into a small scratchpad region, valid or with one bad instruction.

region_program(rng, ext_words, bad) draws a program whose accesses stay in a region of
64 to 4096 words, so instructions overlap often; with bad, one bad instruction anywhere
(not only at the end, as badprog.py's). region_cases(seed, n) is tb/plain_check.py
--random's list. From a random.Random (not numpy's): their seeds are the plain check's.
"""
import random

from model import config, isa
from tb.stimulus import ops


# their accesses crowded into a small region so that instructions overlap often, a few
# with one bad instruction anywhere (not only at the end, as bad_program's).
def region_program(rng, ext_words, bad=None):
    """(prog, image): a random valid program on config.DEFAULT with ext_words external
    words whose scratchpad accesses stay in a region of R = 64, 256, 1024 or 4096 words
    (rng: a random.Random); with bad = 0, 1, ..., one bad instruction of kind bad % K (0
    an illegal opcode, 1 an MM shape, 2 an LD/ST external range, then each op module's
    region_bad, last an MM with random fields) at a random place. Each other op's
    instructions come from its module's region hook, its share its REGION_WEIGHT. It ends in an ST of the region to
    ext[ext_words - R ..] (when R < ext_words) and HALT."""
    cfg = config.DEFAULT.replace(ext_words=ext_words)
    R_ = rng.choice([64, 256, 1024, 4096])
    data = ext_words - R_ if ext_words > R_ else ext_words
    img = [rng.choice([rng.randrange(-128, 128), rng.randrange(-2**31, 2**31)]) for _ in range(data)]
    prog = []

    def addr(n):
        return rng.randrange(0, max(1, R_ - n + 1))

    choices = ["LD", "LD", "ST", "MM", "MM", "MM"]
    for m in ops.modules():
        if hasattr(m, "region"):
            choices += [op for op in m.OPS for _ in range(m.REGION_WEIGHT)]
    for _ in range(rng.randrange(1, 14)):
        op = rng.choice(choices)
        try:
            if op in ("LD", "ST"):
                n = rng.choice([1, 2, rng.randrange(1, 64), rng.randrange(1, min(R_, data) + 1)])
                spa, exa = addr(n), rng.randrange(0, data - n + 1)
                f = dict(dst=spa, src=exa) if op == "LD" else dict(src=spa, dst=exa)
                prog.append(isa.build(op, cfg=cfg, len=n, **f))
            elif op == "MM":
                M, N = rng.randrange(1, 5), rng.randrange(1, 5)
                K = rng.choice([1, 2, rng.randrange(1, 20), rng.randrange(1, 256)])
                lda, ldb = rng.choice([0, 1, K, rng.randrange(0, 64)]), rng.choice([0, 1, N, K, rng.randrange(0, 64)])
                ldc = rng.choice([0, 1, N, rng.randrange(0, 16)])
                prog.append(isa.build("MM", cfg=cfg, dst=addr(64), A=addr(K + 3 * lda), B=addr(K * max(ldb, 1) + 4),
                                      M=M, K=K, N=N, tb=rng.randrange(2), lda=lda, ldb=ldb, ldc=ldc))
            else:
                ops.owner(op).region(rng, cfg, op, addr, data, R_, prog)
        except ValueError:
            continue
    if bad is not None:
        own = ops.hooks("region_bad")
        kind = bad % (4 + len(own))
        if kind == 0:
            w = rng.choice(isa.ILLEGAL_OPCODES) | (rng.getrandbits(100) << 4)
        elif kind == 1:
            w = isa.raw("MM", dst=0, A=0, B=0, M=rng.choice([0, 5, 7]), K=rng.randrange(0, 3), N=rng.randrange(0, 8),
                  tb=0, lda=0, ldb=0, ldc=0)
        elif kind == 2:
            op, n = rng.choice(["LD", "ST"]), rng.randrange(1, 100)          # external range
            spa, exa = rng.randrange(0, 4096 - n), rng.randrange(ext_words - n + 1, 65536 - n)
            w = isa.raw(op, len=n, **(dict(dst=spa, src=exa) if op == "LD" else dict(src=spa, dst=exa)))
        elif kind < 3 + len(own):
            w = own[kind - 3](rng)
        else:
            w = isa.raw("MM", dst=rng.randrange(0, 4096), A=rng.randrange(0, 4096), B=rng.randrange(0, 4096),
                  M=rng.randrange(1, 5),
                  K=rng.randrange(1, 256), N=rng.randrange(1, 5), tb=rng.randrange(2), lda=rng.randrange(0, 4096),
                  ldb=rng.randrange(0, 4096), ldc=rng.randrange(0, 4096))
        prog.insert(rng.randrange(0, len(prog) + 1), w)
    if ext_words > R_:
        prog.append(isa.build("ST", cfg=cfg, src=0, dst=ext_words - R_, len=R_))
    prog.append(isa.build("HALT"))
    return prog, img


def region_cases(seed, n, ext_words=8192):
    """[(name, prog, image, bad)]: n region programs from one seed; every third (k % 3 ==
    2) has a bad instruction of kind k // 3 (bad None for the others)."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        bad = k // 3 if k % 3 == 2 else None
        prog, img = region_program(rng, ext_words, bad=bad)
        out.append((f"random{k}", prog, img, bad))
    return out
