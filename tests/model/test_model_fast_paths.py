"""The reference's fast paths (tools/bench/bench_model.py's speed work) against facts stated
here: host images checked with array ops name the same first bad word as the contract
says (model/hostio.py), a memoised decode is decode's own view of the word, MM acc wraps
to 32 bits whatever the old word, and cached schedules hand out fresh traces."""
import numpy as np
import pytest

from model import config, func, isa, timing
from model.hostio import memory_image
from model.machine import Machine

CFG = config.DEFAULT
HALT = isa.build("HALT")


# ---------------------------------------------------------------- host images
@pytest.mark.parametrize("image, expect", [
    ([1, -1, 0xFFFFFFFF, -(1 << 31), (1 << 31)], [1, -1, -1, -(1 << 31), -(1 << 31)]),
    ([np.int64(3), np.int64(-4)], [3, -4]),
    ([np.uint32(0xFFFFFFFF), np.uint32(7)], [-1, 7]),
    ([np.int64(5), 7, np.uint32(9)], [5, 7, 9]),           # mixed kinds: the word-by-word path
    ([], []),
    (range(3), [0, 1, 2]),
])
def test_list_images_mean_the_same_bits_as_arrays(image, expect):
    got = memory_image(image, 8)
    assert got.dtype == np.int64 and got.tolist() == expect + [0] * (8 - len(expect))


@pytest.mark.parametrize("image, msg", [
    ([1, 1 << 32, 2.5], r"word 1 = 4294967296 does not fit"),          # the first bad word
    ([1, 2.5, 1 << 32], r"word 1 = 2\.5 is not an integer"),
    ([0, 0, 1 << 70], r"word 2 = 1180591620717411303424 does not fit"),  # past 64 bits
    ([0, -(1 << 63)], r"word 1 = -9223372036854775808 does not fit"),
    ([np.int64(1), np.int64(1 << 40)], r"word 1 = 1099511627776 does not fit"),
    ([np.uint64((1 << 64) - 1)], r"word 0 = 18446744073709551615 does not fit"),
    ([0, True], r"word 1 = True is not an integer"),
    ([np.bool_(False)], r"word 0 = np\.False_ is not an integer"),
])
def test_list_images_name_the_first_bad_word(image, msg):
    with pytest.raises(ValueError, match=msg):
        memory_image(image, 8)


# ---------------------------------------------------------------- decode memo
def test_decoded_is_decodes_view_of_the_word():
    ld = isa.build("LD", dst=11, src=22, len=33)
    w = isa.as_words([ld])[0]
    assert isa.decoded(w) == (isa.decode(w), None) == (ld, None)
    # an Instr that is not what decode gives back: its word decodes to decode's values
    wide = isa.Instr("LD", ((1 << 16) + 5, 2, 3, 0))       # dst past its 16 bits: masked
    w = isa.as_words([wide])[0]
    assert w == isa.encode(wide) and isa.decoded(w)[0].args == (5, 2, 3, 0)
    npy = isa.Instr("ST", (np.int64(4), 5, 6, 0))
    w = isa.as_words([npy])[0]
    ins = isa.decoded(w)[0]
    assert ins == isa.decode(w) and all(type(v) is int for v in ins.args)


# ---------------------------------------------------------------- MM acc
def test_mm_acc_wraps_the_low_32_bits_of_any_old_word():
    ins = isa.build("MM", dst=100, A=0, B=8, M=1, K=2, N=2, tb=1, lda=2, ldb=2, ldc=2, acc=1)
    sp = np.zeros(CFG.sp_words, dtype=np.int64)
    sp[0:2] = [3, -4]
    sp[8:12] = [5, 6, -7, 8]
    c = [3 * 5 - 4 * 6, -3 * 7 - 4 * 8]                     # -9, -53
    sp[100:102] = [(1 << 62) + 5, -(1 << 31)]               # not a 32-bit word; the smallest one
    func.execute(ins, np.zeros(4, dtype=np.int64), sp)
    assert sp[100:102].tolist() == [5 + c[0], (1 << 31) + c[1]]


# ---------------------------------------------------------------- hazards, caches
@pytest.mark.parametrize("xs, ys, meet", [
    (((0, 3),), ((3, 9),), True), (((0, 3),), ((4, 9),), False), ((), ((0, 9),), False),
    (((10, 12), (0, 1)), ((5, 6), (1, 1)), True),
])
def test_meet_by_hand(xs, ys, meet):
    assert timing._meet(xs, ys) is meet and timing._meet(ys, xs) is meet


@pytest.mark.parametrize("cfg", [config.DEFAULT, config.CH09_OVERLAP])
def test_cached_schedules_hand_out_fresh_results(cfg):
    prog = [isa.build("LD", cfg=cfg, dst=0, src=0, len=8),
            isa.build("MM", cfg=cfg, dst=64, A=0, B=0, M=2, K=4, N=2, tb=1, lda=4, ldb=4, ldc=2),
            isa.build("ST", cfg=cfg, src=64, dst=100, len=4), HALT]
    timing._SCHED.clear()
    a = Machine(cfg).run(prog, list(range(16)))
    want = list(a.trace)
    a.trace.append((99, 99))
    a.sp[:] = 7
    b = Machine(cfg).run(prog, list(range(16)))              # the schedule is cached now
    assert b.trace == want and b.counters == a.counters and not (b.sp == 7).all()
    assert timing.trace(timing.schedule(prog, cfg)) == want
