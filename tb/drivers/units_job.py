"""Unit-level cocotb tests of the GA-2 units in tb/hdl/units_tb.v, against independent references.

- mm_ctrl (the systolic array): random M, N, K, strides, tb and bases against numpy
  products; busy = K + 7 + M*N; all reads before the first write; other words untouched.
- softmax, FAST = 0 (test_softmax) and FAST = 1 (test_softmax_fast, the overlap mode's
  reciprocal divide): random vectors of every length 1..64, ties, all equal, extreme
  spreads against model.softmax_gold.softmax_fixed; busy = timing.busy_cycles (the op record's formula) of the
  matching timing mode (2(len+1) + 34 len; 3 len + 36); last in the final busy cycle;
  one write per element; reads before writes.
- smw (test_smw): score rows of the measured range and its corners, lengths 1 .. 1,024
  (on Icarus those below 64), in place, apart and overlapping by 1, 2, len - 1 words
  either way, against model/func.py's execute; busy = 19 len + 3; len writes, the first
  after both read passes.
- vec_rq: random and edge values and overlapping src/dst against model.quant.requant
  applied element by element in order; busy = len + 1.
- requant (combinational): random and edge a, m, s against model.quant.requant, and the
  RTL mutation bench's vectors (tb/stimulus/vectors.py requant_vectors).
- divu: random and edge operands against Python's divmod; last 32 cycles after start; and
  the mutation bench's divu vectors (vectors.divu_vectors) with its handshake checks, on a
  divu driven cycle by cycle (u_div_hs): busy exactly WIDTH + 1 cycles with last in the
  final one, results (and busy, last low) holding after last until the next start,
  back-to-back starts in the last cycle, reset at last and mid-division leave it idle.
- restart (every unit with a handshake): a start while busy abandons the running job,
  from the next cycle on the unit's outputs are those of the same unit started from idle
  in that cycle; tb/hdl/restart_chk.v (units_tb's u_rc, the mutation bench's restart
  check) runs its scenarios (dma, vec_rq, mm_ctrl, softmax FAST 0 and 1, divu, restarted
  in every phase) and compares each restarted instance with its twin cycle by cycle.
Seeded by GA2_UNIT_SEED (default 1); GA2_UNIT_SCALE scales the vector counts.
"""

import cocotb
import numpy as np
from cocotb.triggers import FallingEdge, First, RisingEdge, Timer
from cocotb.utils import get_sim_time

from model import config, func, isa, ops, timing
from model.quant import requant
from model.softmax_gold import softmax_fixed
from tb import vecunits
from tb.drivers.units_bench import (
    CLK_NS,
    EXT,
    MEM,
    SEED,
    TIMEOUT_MS,
    V_DMA,
    Runner,
    ascii_of,
    fill,
    lengths,
    read_hex,
    s8,
    scaled,
    w32,
    write_hex,
)
from tb.stimulus import randops, vectors


@cocotb.test(timeout_time=TIMEOUT_MS, timeout_unit="ms")
async def test_mm_tiles(dut):
    """mm_ctrl: C = A @ B (int8 operands = low bytes, or int16 A = low halves with a16;
    depths past 255 through khi; int32 results) against numpy."""
    rng = np.random.default_rng(SEED)
    r = Runner(dut)
    await Timer(1, unit="ns")
    for t in range(scaled(90)):
        acc = int(t % 3 == 2)       # every third tile accumulates: dst += A x B
        M, N = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        K = int(rng.choice([1, 2, 3, 4, 5, 8, 16, 31, 64, 255])) if t % 3 else int(rng.integers(1, 40))
        if t < 3:                           # depths past 255 (khi): 256, one past, and 700
            K = (256, 257, 700)[t]
        a16 = int(rng.integers(0, 2))
        tb = int(rng.integers(0, 2))
        lda = K + int(rng.integers(0, 5)) if rng.random() < 0.8 else int(rng.integers(0, 4))
        ldb = (K if tb else N) + int(rng.integers(0, 5)) if rng.random() < 0.8 else int(rng.integers(0, 3))
        ldc = N + int(rng.integers(0, 5)) if rng.random() < 0.85 else int(rng.integers(0, N + 1))
        if K > 255 and not tb:              # a deep B read column-wise: the tightest stride
            ldb = min(ldb, N)
        a_span = (M - 1) * lda + K
        b_span = ((N - 1) * ldb + K) if tb else ((K - 1) * ldb + N)
        c_span = (M - 1) * ldc + N
        A0 = int(rng.integers(0, MEM - a_span + 1))
        B0 = int(rng.integers(0, MEM - b_span + 1))
        C0 = MEM - c_span if t % 7 == 0 else int(rng.integers(0, MEM - c_span + 1))
        mem = fill(rng, MEM)
        i, k, j = np.arange(M)[:, None], np.arange(K)[None, :], np.arange(N)[None, :]
        a = mem[A0 + i * lda + k]
        a = ((a & 0xFFFF) ^ 0x8000) - 0x8000 if a16 else s8(a)
        b = s8(mem[B0 + (j.T * ldb + k if tb else k.T * ldb + j)])
        C = a @ (b.T if tb else b)
        expect = mem.copy()
        for ii in range(M):
            for jj in range(N):
                w = C0 + ii * ldc + jj                      # row-major: the later write wins
                expect[w] = w32(int(expect[w]) + int(C[ii, jj])) if acc else C[ii, jj]
        out = await r.run(0, mem, f_dst=C0, f_src=A0, f_b=B0, f_m=M, f_k=K & 255, f_khi=K >> 8,
                          f_a16=a16, f_n=N, f_tb=tb, f_lda=lda, f_ldb=ldb, f_ldc=ldc, f_acc=acc)
        what = (f"MM M={M} K={K} N={N} tb={tb} lda={lda} ldb={ldb} ldc={ldc} acc={acc} a16={a16} "
                f"A={A0} B={B0} C={C0}")
        diff = np.nonzero(out["mem"] != w32(expect))[0]
        assert diff.size == 0, f"{what}: mem[{diff[0]}] = {out['mem'][diff[0]]} vs {w32(expect)[diff[0]]}"
        busy = K + config.DEFAULT.mm_fill + M * N
        assert out["busy_cycles"] == busy, f"{what}: busy {out['busy_cycles']} vs {busy}"
        assert out["last_cycle"] == busy - 1, what
        assert out["n_writes"] == M * N, what
        if not acc:     # acc = 1 reads each old C word the cycle before its write
            assert out["last_read"] < out["first_write"], \
                f"{what}: read at {out['last_read']} after write at {out['first_write']}"


def _sm_cases(rng, fast=False):
    cases = [[5], [-128], [127] * 64, [-128] * 64, [127] + [-128] * 63, [-128] * 63 + [127],
             [0, 0, 1, 1], [3] * 17, list(range(-32, 32)), [127, -128] * 32,
             # e*65536 = S - 1 mod S for elements 1 and 2: a remainder of S - 1 (for FAST,
             # after a right estimate: the other side of the correction's comparison)
             [127, -44, -44], [-121, 50, -121]]
    if fast:
        # the reciprocal's corners: len 1 (p = 65536 = S*65536/S, a remainder of exactly S
        # after the estimate), all equal (exact divisions for powers of two), the largest
        # sum with a near-zero element, values within a few LSBs of the maximum
        cases += [[-7], [127], [0]]
        cases += [[v] * n for n, v in ((2, 0), (3, 9), (4, -5), (7, 1), (8, 127), (16, -128),
                                       (31, 64), (32, 2), (63, -1), (64, 77))]
        cases += [[127] * 63 + [-128], [-128, 127], [127, 126], [126] + [127] * 63]
        for n in (2, 5, 13, 64):
            cases.append(rng.integers(120, 128, size=n).tolist())
    for n in lengths(64):
        cases.append(rng.integers(-128, 128, size=n).tolist())
    for _ in range(scaled(10)):
        n = int(rng.integers(1, 65))
        cases.append(rng.choice([-128, 127, 0, 100], size=n).tolist())      # ties and extremes
    return cases


@cocotb.test(timeout_time=TIMEOUT_MS, timeout_unit="ms")
async def test_softmax(dut):
    """softmax FAST = 0: Q16 probabilities of lengths 1..64 against softmax_fixed; timing
    (the in-order mode's busy_cycles) and order."""
    await _softmax(dut, fast=False)


@cocotb.test(timeout_time=TIMEOUT_MS, timeout_unit="ms")
async def test_softmax_fast(dut):
    """softmax FAST = 1 (overlap mode): the same exact values, busy = the overlap mode's
    busy_cycles (at most 3 len + 40)."""
    await _softmax(dut, fast=True)


async def _softmax(dut, fast):
    rng = np.random.default_rng(SEED + (5 if fast else 1))
    cfg = config.DEFAULT.replace(mode="overlap") if fast else config.DEFAULT
    r = Runner(dut)
    await Timer(1, unit="ns")
    for x in _sm_cases(rng, fast):
        n = len(x)
        src = int(rng.integers(0, MEM - n + 1)) if rng.random() < 0.8 else MEM - n
        dst = src if rng.random() < 0.2 else int(rng.integers(0, MEM - n + 1))
        mem = fill(rng, MEM)
        # store each int8 with random upper bits: only the low byte may count
        hi = rng.integers(-(1 << 23), 1 << 23, size=n) << 8
        mem[src:src + n] = w32(np.asarray(x) & 0xFF | hi)
        expect = mem.copy()
        expect[dst:dst + n] = softmax_fixed(x)
        out = await r.run(1, mem, f_dst=dst, f_src=src, f_len=n, f_fast=int(fast))
        diff = np.nonzero(out["mem"] != w32(expect))[0]
        assert diff.size == 0, (f"SM fast={int(fast)} len={n} x={x[:8]}..: mem[{diff[0]}] = "
                                f"{out['mem'][diff[0]]} vs {expect[diff[0]]}")
        busy = timing.busy_cycles(isa.raw("SM", dst=0, src=0, len=n), cfg)
        assert not fast or busy <= 3 * n + 40
        assert out["busy_cycles"] == busy, f"SM fast={int(fast)} len={n}: busy {out['busy_cycles']} vs {busy}"
        assert out["last_cycle"] == busy - 1, f"SM len={n}: last in busy cycle {out['last_cycle']}"
        assert out["n_writes"] == n
        assert out["last_read"] < out["first_write"], f"SM len={n}: a read after a write"


@cocotb.test(timeout_time=TIMEOUT_MS, timeout_unit="ms")
async def test_vec_rq(dut):
    """vec_rq: element-by-element requant in order (overlapping src/dst included), with
    relu 0 and 1 (max(requant, 0))."""
    rng = np.random.default_rng(SEED + 2)
    r = Runner(dut)
    await Timer(1, unit="ns")
    for t in range(scaled(40)):
        n = int(rng.choice([1, 2, 3, 17, 64, 200])) if t % 2 else int(rng.integers(1, 100))
        src = int(rng.integers(0, MEM - n + 1))
        if t % 3 == 0:
            dst = min(max(src + int(rng.integers(-n, n + 1)), 0), MEM - n)
        else:
            dst = int(rng.integers(0, MEM - n + 1))
        m = (int(rng.choice([0, 1, 1 << 14, (1 << 15) - 1, (1 << 16) - 1])) if t % 4 == 0
             else int(rng.integers(0, 1 << 16)))
        s = int(rng.choice([0, 1, 31, 32, 47, 62, 63])) if t % 5 == 0 else int(rng.integers(0, 64))
        relu = t % 2
        mem = fill(rng, MEM)
        expect = [int(v) for v in mem]
        for e in range(n):
            y = requant(int(w32(expect[src + e])), m, s)
            expect[dst + e] = max(y, 0) if relu else y
        out = await r.run(2, mem, f_dst=dst, f_src=src, f_len=n, f_rqm=m, f_rqs=s, f_relu=relu)
        diff = np.nonzero(out["mem"] != w32(expect))[0]
        assert diff.size == 0, f"RQ n={n} src={src} dst={dst} m={m} s={s} relu={relu}: mem[{diff[0]}]"
        assert out["busy_cycles"] == n + 1, f"RQ n={n}: busy {out['busy_cycles']}"


def _requant_vectors(rng):
    a_edges = [0, 1, -1, 127, -128, (1 << 31) - 1, -(1 << 31), 1 << 16, -(1 << 16), 12345, -12345]
    m_edges = [0, 1, 1 << 14, (1 << 15) - 1, 1 << 15, (1 << 16) - 1]
    s_edges = [0, 1, 2, 15, 16, 30, 31, 32, 46, 47, 48, 62, 63]
    for a in a_edges:
        for m in m_edges:
            for s in s_edges:
                yield a, m, s
    for _ in range(scaled(1500)):
        a = int(rng.integers(-(1 << 31), 1 << 31)) if rng.random() < 0.5 else int(rng.integers(-70000, 70000))
        yield a, int(rng.integers(0, 1 << 16)), int(rng.integers(0, 64))
    # ties: a*m + 2^(s-1) exactly on a multiple of 2^s
    for _ in range(scaled(200)):
        s = int(rng.integers(1, 20))
        m = 1 << int(rng.integers(0, 16))
        q = int(rng.integers(-300, 300))
        num = q * (1 << s) - (1 << (s - 1))
        if num % m == 0 and -(1 << 31) <= num // m < (1 << 31):
            yield num // m, m, s


@cocotb.test(timeout_time=TIMEOUT_MS, timeout_unit="ms")
async def test_requant(dut):
    """requant: y == quant.requant(a, m, s) on edges, random values and rounding ties."""
    rng = np.random.default_rng(SEED + 3)
    n = 0
    for a, m, s in _requant_vectors(rng):
        dut.rq_a.value = a & 0xFFFFFFFF
        dut.rq_m.value = m
        dut.rq_s.value = s
        await Timer(1, unit="ns")
        y = int(w32(int(dut.rq_y.value)))
        assert y == requant(a, m, s), f"requant({a}, {m}, {s}) = {y}, expected {requant(a, m, s)}"
        n += 1
    # the RTL mutation bench's vectors (tb/hdl/mut_rtl_tb.v checks requant on these)
    bench = vectors.requant_vectors()
    for a, m, s, y_exp in bench:
        assert y_exp == requant(a, m, s)
        dut.rq_a.value = a & 0xFFFFFFFF
        dut.rq_m.value = m
        dut.rq_s.value = s
        await Timer(1, unit="ns")
        y = int(w32(int(dut.rq_y.value)))
        assert y == y_exp, f"bench vector: requant({a}, {m}, {s}) = {y}, expected {y_exp}"
        n += 1
    dut._log.info("requant: %d vectors (%d of the mutation bench)", n, len(bench))


@cocotb.test(timeout_time=TIMEOUT_MS, timeout_unit="ms")
async def test_divu(dut):
    """divu: quotient and remainder against divmod; busy 33 cycles (32 steps and the
    result cycle), last in the final one, 32 cycles after the first busy cycle; then the
    mutation bench's vectors with its handshake checks (_divu_contract)."""
    rng = np.random.default_rng(SEED + 4)
    r = Runner(dut)
    await Timer(1, unit="ns")
    cases = [(0, 1), (1, 1), (0xFFFFFFFF, 1), (0xFFFFFFFF, 0xFFFFFFFF), (65535 * 65536, 65535),
             (65535 * 65536, 65535 * 64), (12345, 0xFFFFFFFF), (1 << 31, 3), (7, 2)]
    for _ in range(scaled(150)):
        cases.append((int(rng.integers(0, 1 << 32)), int(rng.integers(1, 1 << 32))))
        cases.append((int(rng.integers(0, 65536)) << 16, int(rng.integers(1, 65 * 65536))))
    for a, b in cases:
        out = await r.run(3, None, f_dividend=a, f_divisor=b)
        assert (out["div_q"], out["div_r"]) == divmod(a, b), f"divu {a} / {b}: {out['div_q']}, {out['div_r']}"
        assert out["busy_cycles"] == 33 and out["last_cycle"] == 32, f"divu timing {out}"
    # the mutation bench's vectors and handshake checks, on the directly driven instance
    bench = vectors.divu_vectors()
    assert all((q, r) == divmod(a, b) for a, b, q, r in bench)
    await _divu_contract(dut, bench)
    dut._log.info("divu: %d vectors, then the bench's %d with the handshake checks", len(cases), len(bench))


DV_LAT = 32     # ga2_divu #(.WIDTH(32)): cycles from the start pulse to last (the bench's DV_LAT)


async def _divu_contract(dut, vecs):
    """The mutation bench's divu section (tb/hdl/mut_rtl_tb.v), on u_div_hs: every
    signal sampled mid-cycle (falling edge of clk_o), inputs changed there too."""
    clk = dut.clk_o

    def bit(sig):
        return str(sig.value)

    def word(sig):
        v = sig.value
        assert v.is_resolvable, f"divu: {sig._name} is x/z"
        return int(v)

    dut.hs_rst.value = 1
    dut.hs_start.value = 0
    dut.hs_a.value = 0
    dut.hs_b.value = 1
    await FallingEdge(clk)
    await FallingEdge(clk)
    dut.hs_rst.value = 0
    for i, (a, b, q, r) in enumerate(vecs):
        what = f"divu vector {i}: {a} / {b}"
        dut.hs_a.value = a
        dut.hs_b.value = b
        dut.hs_start.value = 1          # odd vectors: in the cycle of the previous last
        await FallingEdge(clk)
        dut.hs_start.value = 0
        n = 0
        while bit(dut.hs_last) != "1" and n < 100:
            assert bit(dut.hs_busy) == "1", f"{what}: busy {bit(dut.hs_busy)} before last (cycle {n})"
            await FallingEdge(clk)
            n += 1
        assert bit(dut.hs_last) == "1", f"{what}: no last within 100 cycles"
        assert n == DV_LAT, f"{what}: last after {n} cycles, expected {DV_LAT}"
        assert bit(dut.hs_busy) == "1", f"{what}: busy low in its last cycle"
        assert (word(dut.hs_q), word(dut.hs_r)) == (q, r), \
            f"{what}: q={word(dut.hs_q)} r={word(dut.hs_r)}, expected q={q} r={r}"
        if i % 2 == 0:                  # results hold, busy and last low until the next start
            for k in range(2):
                await FallingEdge(clk)
                got = (bit(dut.hs_last), bit(dut.hs_busy), word(dut.hs_q), word(dut.hs_r))
                assert got == ("0", "0", q, r), f"{what}: {k + 1} cycles after last: last, busy, q, r = {got}"
    # reset in the cycle of last: no last after it
    dut.hs_rst.value = 1
    await FallingEdge(clk)
    dut.hs_rst.value = 0
    assert (bit(dut.hs_busy), bit(dut.hs_last)) == ("0", "0"), "divu: busy or last after a reset at last"
    # reset in the middle of a division: idle (not busy, no last) until the next start
    dut.hs_start.value = 1
    await FallingEdge(clk)
    dut.hs_start.value = 0
    for _ in range(DV_LAT - 4):
        await FallingEdge(clk)
    assert bit(dut.hs_busy) == "1", "divu: not busy in the middle of a division"
    dut.hs_rst.value = 1
    await FallingEdge(clk)
    dut.hs_rst.value = 0
    for k in range(DV_LAT + 2):
        assert (bit(dut.hs_busy), bit(dut.hs_last)) == ("0", "0"), \
            f"divu: busy or last {k} cycles after a reset mid-division"
        await FallingEdge(clk)
    # start and reset in the same cycle: reset wins, the unit stays idle
    dut.hs_start.value = 1
    dut.hs_rst.value = 1
    await FallingEdge(clk)
    dut.hs_start.value = 0
    dut.hs_rst.value = 0
    for k in range(DV_LAT + 2):
        assert (bit(dut.hs_busy), bit(dut.hs_last)) == ("0", "0"), \
            f"divu: busy or last {k} cycles after a start with reset"
        await FallingEdge(clk)
    # a start while busy restarts the division with the new operands
    # (the second start in the middle, then in the final step cycle)
    (a0, b0, _, _), (a1, b1, q1, r1) = vecs[0], vecs[1]
    for wait in (DV_LAT // 2, DV_LAT):
        dut.hs_a.value, dut.hs_b.value, dut.hs_start.value = a0, b0, 1
        await FallingEdge(clk)
        dut.hs_start.value = 0
        for _ in range(wait - 1):
            await FallingEdge(clk)
        dut.hs_a.value, dut.hs_b.value, dut.hs_start.value = a1, b1, 1
        await FallingEdge(clk)
        dut.hs_start.value = 0
        n = 0
        while bit(dut.hs_last) != "1" and n < 100:
            await FallingEdge(clk)
            n += 1
        assert n == DV_LAT and (word(dut.hs_q), word(dut.hs_r)) == (q1, r1), \
            f"divu: a start {wait} cycles into a division did not restart it ({n} cycles, " \
            f"q={word(dut.hs_q)}, expected {q1})"
        await FallingEdge(clk)


@cocotb.test(timeout_time=TIMEOUT_MS, timeout_unit="ms")
async def test_perf(dut):
    """ga2_perf #(.CW(5)) against plain counting (vectors.perf_vectors, the mutation bench's
    vectors): reset and clear zero the six counts, each counts its input, all wrap."""
    clk = dut.clk_o
    cycles = vectors.perf_vectors()
    await FallingEdge(clk)
    for i, (rst, clear, running, busy, retire, fetch, *exp) in enumerate(cycles):
        dut.pf_rst.value, dut.pf_clear.value, dut.pf_running.value = rst, clear, running
        dut.pf_busy.value, dut.pf_retire.value, dut.pf_fetch.value = busy, retire, fetch
        await FallingEdge(clk)
        v = dut.pf_out.value
        assert v.is_resolvable, f"ga2_perf cycle {i}: x/z in {v}"
        got = [(int(v) >> (5 * (6 - k))) & 31 for k in range(7)]
        assert got == exp, f"ga2_perf cycle {i} (rst {rst} clear {clear} running {running} busy {busy} " \
                           f"retire {retire} fetch {fetch}): {got}, expected {exp}"
    dut._log.info("ga2_perf: %d cycles", len(cycles))


RESTART_LIMIT = 40000   # cycles: the check runs about 17,000 (the mutation bench's limit)


def _smw_rows(rng):
    """SMW's score rows (int32, log2 units in Q8): the compiler's measured range
    (-25,900 .. 7,400) at lengths 1, 2, 3, 17 and 1,024, a key 70 below the maximum (its p
    is 0), ties, narrow rows (every key contributes), keys at the cut (d = 4095, 4096), a
    key of e = 1 beside the maximum (2^15 / 65537: a hair below the rounding's half),
    the truncation's worst keys (d = 14 * 256 + 1), the int32 extremes."""
    rows = [rng.integers(-25900, 7401, size=n) for n in (1, 2, 3, 17, 1024)]
    rows += [np.array([5000, 5000 - round(70 * 256 * 1.4426950408889634)]),
             np.zeros(1024, dtype=np.int64), np.full(64, -7), rng.integers(-300, 301, size=200),
             np.array([0, -4095, -4096, -4097, -4095, 0]), np.array([100] + [100 - 14 * 256 - 1] * 99),
             np.array([7400, 7400 - 3841]), np.array([0, -4067, -3881]),
             np.array([-(1 << 31), (1 << 31) - 1, 0, (1 << 31) - 1]), np.array([-(1 << 31)] * 5),
             rng.integers(-4096, 1, size=300)]
    return [np.asarray(x, dtype=np.int64) for x in rows]


@cocotb.test(timeout_time=TIMEOUT_MS, timeout_unit="ms")
async def test_smw(dut):
    """SMW (ga2_smw) on score rows of the measured range and its corners (_smw_rows),
    placed apart from, over (in place) and ahead of or behind its destination by 1, 2 and
    len - 1 words (pass 3 streams): the scratchpad equal to model/func.py's execute, busy =
    the record's 19 len + 3, last in its final cycle, len writes, the first after both
    read passes (cycle 2 (len + 1) + 17)."""
    rng = np.random.default_rng(SEED + 11)
    r = Runner(dut)
    await Timer(1, units="ns")
    var = next(v for v, (_, module, _) in enumerate(vecunits.variants()) if module == "ga2_smw")
    cfg = config.DEFAULT.replace(sp_words=MEM, ext_words=EXT)
    short = not cocotb.SIM_NAME.lower().startswith("verilator")     # Icarus: rows below 64 (make test's time)
    for k, x in enumerate(_smw_rows(rng)):
        n = len(x)
        if short and n >= 64:
            continue
        src = int(rng.integers(0, MEM - 2 * n)) if k % 5 else MEM - n
        for off in ([None, 0, 1, 2, -1, n - 1, 1 - n] if n < 1024 else [None, 0, 1]):
            dst = int(rng.integers(0, MEM - n + 1)) if off is None else min(max(src + off, 0), MEM - n)
            ins = isa.build("SMW", cfg=cfg, dst=dst, src=src, len=n)
            sp = w32(randops.random_image(rng, MEM))
            sp[src:src + n] = x
            want = sp.copy()
            func.execute(ins, np.zeros(EXT, dtype=np.int64), want)
            dut.f_instr.value = isa.encode(ins)
            out = await r.run(4, mem=sp, f_var=var)
            busy = timing.busy_cycles(ins, cfg)
            assert busy == 19 * n + 3
            assert out["busy_cycles"] == busy and out["last_cycle"] == busy - 1, \
                f"SMW len={n}: busy {out['busy_cycles']} last {out['last_cycle']}, model {busy}"
            bad = np.flatnonzero(out["mem"] != want)
            assert bad.size == 0, (f"SMW len={n} src={src} dst={dst}: scratchpad word {int(bad[0])} is "
                                   f"{int(out['mem'][bad[0]])}, model {int(want[bad[0]])}")
            assert out["n_writes"] == n and out["first_write"] == 2 * (n + 1) + 17, \
                f"SMW len={n}: {out['n_writes']} writes, the first in cycle {out['first_write']}"


@cocotb.test(timeout_time=TIMEOUT_MS, timeout_unit="ms")
async def test_restart(dut):
    """A start while busy restarts, for dma, vec_rq, mm_ctrl, softmax (FAST 0 and 1) and
    divu: restart_chk's scenarios, each restarted instance equal cycle by cycle to a twin
    started from idle in the restart cycle (docs/rtl.md "Start while busy")."""
    clk = dut.clk_o
    dut.rc_go.value = 0
    for _ in range(2):
        await FallingEdge(clk)
    dut.rc_go.value = 1
    # wait for done in the simulator, not a Python call every cycle (17,000 of them: most
    # of this test's time on Icarus); then sample at a falling edge, as every check here
    t0 = get_sim_time(unit="ns")
    await First(RisingEdge(dut.rc_done), Timer(RESTART_LIMIT * CLK_NS, unit="ns"))
    await FallingEdge(clk)
    n = round((get_sim_time(unit="ns") - t0) / CLK_NS)
    dut.rc_go.value = 0
    assert str(dut.rc_done.value) == "1", f"restart check: no done within {RESTART_LIMIT} cycles"
    fail, fid = str(dut.rc_fail.value), dut.rc_fail_id.value
    scn = int(fid) >> 4 if fid.is_resolvable else str(fid)
    assert fail == "0", (f"unit restart {ascii_of(dut.rc_unit_name)} scenario {scn} {ascii_of(dut.rc_sig_name)} "
                         f"(fail {fail}, fail_id {int(fid) if fid.is_resolvable else str(fid)})")
    dut._log.info("restart: every scenario passed in %d cycles", n)


def unit_cases():
    """[(op, f_var, variant name, cfg)] of the by-instruction cases: every op of every
    vector unit variant (tb/vecunits.py) and the DMA's ops (the matrix unit: test_mm_tiles)."""
    out = []
    for v, (name, module, overlap) in enumerate(vecunits.variants()):
        cfg = config.DEFAULT.replace(mode="overlap" if overlap else "inorder")
        out += [(r.name, v, name, cfg) for r in ops.TABLE.values() if r.module == module]
    out += [(r.name, V_DMA, "dma", config.DEFAULT) for r in ops.TABLE.values() if r.module == "ga2_dma"]
    return out


@cocotb.test(timeout_time=4 * TIMEOUT_MS, timeout_unit="ms")
async def test_ops(dut):
    """Every op of every vector unit and of the DMA, started alone with its instruction word
    (sel 4; the vector units generated from the op records, tb/vecunits.py): random valid
    instructions from the records' stimulus ranges on random memories; the scratchpad (and
    the external memory for the DMA) equal model/func.py's execute of the same
    instruction, the busy cycles equal model/timing.py's (the variant's timing mode), last
    in the final busy cycle, a lookup's index fault (idx_err) exactly when the reference's."""
    rng = np.random.default_rng(SEED + 7)
    r = Runner(dut)
    await Timer(1, unit="ns")
    assert int(dut.n_var.value) == len(vecunits.variants()), "units_vec holds another set of units"
    seen = {}
    for op, var, name, cfg in unit_cases():
        cfg = cfg.replace(sp_words=MEM, ext_words=EXT)

        def b(o, cfg=cfg, **f):
            return isa.build(o, cfg=cfg, **f)
        for _ in range(scaled(12)):
            ins = randops.rand_op(rng, cfg, b, op)
            sp = w32(randops.random_image(rng, MEM))
            if rng.random() < 0.5:                       # small index words: a lookup's rows
                sp = np.where(rng.random(MEM) < 0.5, rng.integers(0, 8, size=MEM), sp)
            ext = w32(randops.random_image(rng, EXT))
            want_sp, want_ext = sp.copy(), ext.copy()
            faulted = bool(func.execute(ins, want_ext, want_sp))
            if var == V_DMA:
                write_hex("ext_in.hex", ext)
            dut.f_instr.value = isa.encode(ins)
            out = await r.run(4, mem=sp, f_var=var)
            busy = timing.busy_cycles(ins, cfg)
            assert out["busy_cycles"] == busy and out["last_cycle"] == busy - 1, \
                f"{name} {ins}: busy {out['busy_cycles']} last {out['last_cycle']}, model {busy}"
            bad = np.flatnonzero(out["mem"] != want_sp)
            assert bad.size == 0, (f"{name} {ins}: scratchpad word {int(bad[0])} is {int(out['mem'][bad[0]])}, "
                                   f"model {int(want_sp[bad[0]])}")
            if var == V_DMA:
                got_ext = read_hex("ext_out.hex")
                bad = np.flatnonzero(got_ext != want_ext)
                assert bad.size == 0, f"{name} {ins}: external word {int(bad[0])} differs"
                assert int(dut.idx_err_seen.value) == faulted, \
                    f"{name} {ins}: idx_err {dut.idx_err_seen.value}, model {faulted}"
            seen[(op, name)] = seen.get((op, name), 0) + 1
    dut._log.info("ops: %s", seen)
