"""The independent models the reference Machine's tests check it against (tests/model/
test_machine.py, test_machine_runs.py): plain-Python loops written from the contract
(docs/contract.md) and docs/isa.md, and a small list-based interpreter (ref_run) that also
recomputes the counters from the docs/isa.md timing table (doc_counters)."""


from model import config, isa
from model.softmax_gold import softmax_fixed

EXT = 4096


def B(op, **f):
    return isa.build(op, cfg=config.DEFAULT.replace(ext_words=EXT), **f)


HALT = isa.build("HALT")


# ---------------------------------------------------------------- independent models
def s8(w):
    w = int(w) & 0xFF
    return w - 256 if w >= 128 else w


def w32(v):
    v = int(v) & 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def rq(a, m, s):
    """Round half up of a*m/2^s, clamped (floor division, not a shift)."""
    p = a * m
    r = (p + 2 ** (s - 1)) // 2 ** s if s > 0 else p
    return max(-128, min(127, r))


def doc_busy(op, f):
    """docs/isa.md timing table, typed in again."""
    if op in ("LD", "ST", "RQ"):
        return f["len"] + 1
    if op == "MM":
        return f["K"] + 7 + f["M"] * f["N"]
    if op == "SM":
        return 2 * (f["len"] + 1) + 34 * f["len"]
    return 0


DOC_UNIT = {"LD": "dma", "ST": "dma", "MM": "mm", "RQ": "vec", "SM": "vec"}


def ref_run(prog, image, sp, ext_words=EXT):
    """A list-based interpreter of valid programs: (ext, sp, counters dict, trace)."""
    ext = [w32(v) for v in image] + [0] * (ext_words - len(image))
    sp = [int(v) for v in sp]
    cnt = dict(cycles=0, mm=0, dma=0, vec=0, instret=0, fetch=0)
    trace = []
    for pc, ins in enumerate(prog):
        op, f = ins.op, ins.fields()
        cnt["cycles"] += 2
        cnt["instret"] += 1
        cnt["fetch"] += 1
        if op == "HALT":
            trace.append((pc, cnt["cycles"]))
            return ext, sp, cnt, trace
        busy = doc_busy(op, f)
        cnt["cycles"] += busy
        cnt[DOC_UNIT[op]] += busy
        trace.append((pc, cnt["cycles"]))
        n = f.get("len")
        if op == "LD":
            for x in range(n):
                sp[f["dst"] + x] = ext[f["src"] + x]
        elif op == "ST":
            for x in range(n):
                ext[f["dst"] + x] = sp[f["src"] + x]
        elif op == "RQ":
            for x in range(n):
                sp[f["dst"] + x] = rq(w32(sp[f["src"] + x]), f["m"], f["s"])
        elif op == "SM":
            p = softmax_fixed([s8(sp[f["src"] + x]) for x in range(n)])
            for x in range(n):
                sp[f["dst"] + x] = p[x]
        elif op == "MM":
            M, K, N = f["M"], f["K"], f["N"]
            a = [[s8(sp[f["A"] + i * f["lda"] + k]) for k in range(K)] for i in range(M)]
            if f["tb"]:
                b = [[s8(sp[f["B"] + j * f["ldb"] + k]) for j in range(N)] for k in range(K)]
            else:
                b = [[s8(sp[f["B"] + k * f["ldb"] + j]) for j in range(N)] for k in range(K)]
            c = [[0] * N for _ in range(M)]
            for i in range(M):
                for j in range(N):
                    for k in range(K):
                        c[i][j] += a[i][k] * b[k][j]
            for i in range(M):
                for j in range(N):
                    sp[f["dst"] + i * f["ldc"] + j] = c[i][j]
    raise AssertionError("no HALT")


def doc_counters(prog):
    c = dict(cycles=0, mm=0, dma=0, vec=0, instret=0, fetch=0)
    for ins in prog:
        c["cycles"] += 2
        c["instret"] += 1
        c["fetch"] += 1
        if ins.op == "HALT":
            break
        b = doc_busy(ins.op, ins.fields())
        c["cycles"] += b
        c[DOC_UNIT[ins.op]] += b
    return (c["cycles"], c["mm"], c["dma"], c["vec"], c["instret"], c["fetch"])
