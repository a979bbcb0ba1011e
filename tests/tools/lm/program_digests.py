"""The pin of the language model's step programs: the SHA-256 of every program the step
builders emit for the configurations the project runs, and of the memory image each lays
out (tests/tools/lm/program_digests.json; tests/tools/lm/test_program_digests.py
recomputes them).

Written before the two step builders (tools/lm/chip.py, tools/lm/remedies.py) were merged
into one compiler, so the merge is held to emit the same programs word for word. The cases:
both tasks and every trained variant (kv1, kv4, kv1 + kv4, ctx256, the draft), both timing
modes, batches of 1..16 with ragged starts and lengths, prefill chunks (several rows of one
sequence in a step), every remedy (4-bit cache, window with sinks, tiles, contexts of 256
and 1,024), the throughput sweeps' steps, and the servers' steps over paged memory maps
(every policy and prefill, preemption, speculative verification, the remedied server).

A program's digest is over its instructions' op names and field values (by name, sorted),
not over the encoding, so a change of the encoding alone does not move it; an image's over
its words as little-endian int64.

    python tests/tools/lm/program_digests.py            # compare with the committed pin
    python tests/tools/lm/program_digests.py --write    # record the pin (only before a merge)
    python tests/tools/lm/program_digests.py --only KEY # the cases whose name starts so

Each case is (name, long, build): long cases (the largest steps, seconds each to build) run
in make test-long; build() returns [(label, program or image)].
"""
import hashlib
import json
import sys
from functools import cache
from pathlib import Path

import numpy as np

PIN = Path(__file__).resolve().parent / "program_digests.json"
# Fields added to an op after the pin was recorded, each 0 by default (docs/isa.md): left out
# of a digest at 0, so a program that does not use them digests as it did; a non-zero one
# enters it (and moves it)
ADDED_SINCE_PIN = {"MM": ("khi", "a16"), "ADD": ("w",), "ARGMAX": ("base", "acc", "pair")}


def digest(obj):
    """SHA-256 of a program (a list of isa.Instr) or of an image (an integer array)."""
    h = hashlib.sha256()
    if isinstance(obj, np.ndarray):
        h.update(np.ascontiguousarray(obj, dtype="<i8").tobytes())
        return "image:" + h.hexdigest()
    for ins in obj:
        f = ins.fields()
        f = {k: v for k, v in f.items() if v or k not in ADDED_SINCE_PIN.get(ins.op, ())}
        h.update((ins.op + " " + " ".join(f"{k}={int(f[k])}" for k in sorted(f)) + "\n").encode())
    return f"program[{len(obj)}]:" + h.hexdigest()


# ---------------------------------------------------------------- the compiler's API
# The only lines that name the code under test: written for the two builders when the pin
# was recorded (commit 631d102), rewritten for the compiler that replaced them; the cases
# below unchanged.
def _api():
    from tools.lm import compiler as C
    from tools.lm import generation as G
    from tools.lm import long as L
    return dict(
        LM_CHIP=C.LM_CHIP, LM_CHIP_OVERLAP=C.LM_CHIP_OVERLAP, Row=C.Row,
        Remedies=C.Remedies,
        generation=lambda net, prompts, new, start=None, chip=None:
            G.Generation(net, prompts, new, start=start, chip=chip),
        remedied=lambda net, prompts, new, rem, mode, start=None:
            G.generation(net, prompts, new, rem, mode, start=start),
        step=lambda net, lay, rows, mem=None: C.step_program(net, lay, rows, mem=mem),
        layout=lambda net, batch, ctx, chip: C.Layout(C.describe(net), batch, ctx, chip),
        image=lambda lay, net, prompts: lay.image(net, prompts),
        long_case=L.case)


API = None


def api():
    global API
    if API is None:
        API = _api()
    return API


@cache
def net(task, kv_heads=0, kv_bits=8, ctx=0):
    from tools.lm.generate import load_model
    return load_model(task, kv_heads=kv_heads, kv_bits=kv_bits, ctx=ctx)


@cache
def draft():
    from tools.serve import spec
    return spec.load_draft()


def text(s):
    from tools.lm import data
    return [int(t) for t in data.encode(s)]


def add(a, b):
    from tools.lm import data
    return [int(t) for t in data.add_problem(a, b)[:4]]


def _gen(g):
    """A generation's image and every step's program."""
    A = api()
    return [("image", g.image())] + [(f"step {k}", A["step"](g.net, g.layout, rows))
                                     for k, rows in enumerate(g.steps)]


def _last(g):
    """A generation's image and its last step's program (a sweep's step)."""
    A = api()
    return [("image", g.image()), ("last", A["step"](g.net, g.layout, g.steps[-1]))]


def _chip(mode):
    A = api()
    return A["LM_CHIP"] if mode == "inorder" else A["LM_CHIP_OVERLAP"]


WORDS = ["The ", "def ", "class ", "A list is ", "x", "Exceptions ", "for ", "import "]
MODES = ("inorder", "overlap")


def cases():
    """[(name, long, build)]: every configuration pinned."""
    out = []

    def case(name, build, long=False):
        out.append((name, long, build))

    A = api
    # -- the unmodified model (tools/lm/chip.py's step; the whole plan) ----------------
    for mode in MODES:
        case(f"chip/text3/{mode}", lambda mode=mode: _gen(A()["generation"](
            net("text"), [text("The "), text("def "), text("A list is ")], 8, chip=_chip(mode))))
        rng = np.random.default_rng(7)
        probs = [(int(a), int(b)) for a, b in rng.integers(0, 100, size=(16, 2))]
        case(f"chip/add16/{mode}", lambda mode=mode, probs=probs: _gen(A()["generation"](
            net("add"), [add(a, b) for a, b in probs], 3, chip=_chip(mode))))
        # tools/lm/check.py's generations
        case(f"chip/check-text/{mode}", lambda mode=mode: _gen(A()["generation"](
            net("text"), [text(w) for w in ["The ", "def ", "A list is ", "x", "class ", "for ",
                                             "Exceptions "]], 4, start=[k % 3 for k in range(7)],
            chip=_chip(mode))))
        case(f"chip/check-add8/{mode}", lambda mode=mode: _gen(A()["generation"](
            net("add"), [add(a, b) for a, b in [(3, 4), (99, 99), (50, 50), (12, 88), (7, 93),
                                                 (0, 0), (45, 67), (81, 19)]], 3, chip=_chip(mode))))
        # batch invariance, ragged starts and lengths (tests/tools/lm/test_chip.py)
        for B in range(1, 17):
            def inv(B=B, mode=mode):
                rng = np.random.default_rng([3, B])
                start = [int(s) for s in rng.integers(0, 4, size=B)]
                new = [int(n) for n in rng.integers(1, 5, size=B)]
                new[:min(B, 4)] = [4] * min(B, 4)
                prompts = [text(WORDS[k % len(WORDS)]) for k in range(B)]
                return _gen(A()["generation"](net("text"), prompts, new, start=start,
                                              chip=_chip(mode)))
            case(f"chip/ragged-B{B}/{mode}", inv, long=B not in (1, 4, 9, 16))
        # the throughput sweep (tools/lm/sweep.py): one step of B rows at T - 1, both tasks
        for task in ("text", "add"):
            for T in (2, 8, 16, 24, 32, 64):
                for B in (1, 2, 3, 4, 8, 9, 12, 16):
                    def sweep(task=task, T=T, B=B, mode=mode):
                        try:
                            g = A()["generation"](net(task), [[0] * (T - 1)] * B, 1,
                                                  chip=_chip(mode))
                        except ValueError as e:          # does not fit: pinned as such
                            return [("refused", str(e))]
                        return _last(g)
                    case(f"chip/sweep-{task}-T{T}-B{B}/{mode}", sweep,
                         long=(T, B) not in ((8, 4), (16, 16), (64, 1)))
        # a whole prompt prefilled in one step, then decode steps (several rows of one
        # sequence: tests/tools/serve/test_lm_serving.py)
        def chunk(mode=mode):
            A_ = A()
            m, p = net("text"), text("class ")
            lay = A_["layout"](m, 8, 12, _chip(mode))
            R = A_["Row"]
            steps = [[R(0, t, t == len(p) - 1) for t in range(len(p))], [R(0, len(p), True)],
                     [R(0, len(p) + 1, True)], [R(0, t, False) for t in range(3)] + [R(1, 0, True)],
                     [R(1, 1, True), R(0, 3, False), R(0, 4, True), R(2, 0, False)]]
            return [("image", A_["image"](lay, m, [p]))] + \
                [(f"step {k}", A_["step"](m, lay, rows)) for k, rows in enumerate(steps)]
        case(f"chip/prefill-chunks/{mode}", chunk)
        # ga2 generate "12+34" --task add --tokens 3
        case(f"chip/ga2-add/{mode}", lambda mode=mode: _gen(A()["generation"](
            net("add"), [add(12, 34)], 3, chip=_chip(mode))))
        case(f"chip/ga2-text/{mode}", lambda mode=mode: _gen(A()["generation"](
            net("text"), [text("The ")], 20, chip=_chip(mode))))
        case(f"chip/draft/{mode}", lambda mode=mode: _gen(A()["generation"](
            draft(), [text("The "), text("def ")], 6, start=[0, 2], chip=_chip(mode))))
    # sixteen addition problems (check.py; pipelined in the overlap mode)
    case("chip/check-add16/overlap", lambda: _gen(A()["generation"](
        net("add"), [add(a, (a * 37 + 11) % 100) for a in range(0, 96, 6)], 3,
        chip=_chip("overlap"))))

    # -- the remedies (tools/lm/remedies.py's step; the tiled plan) --------------------

    def R(**kw):
        return A()["Remedies"](**kw)
    rem_cases = {
        # tests/tools/lm/test_remedies.py
        "gqa-add": (("add", 1), {}, lambda: [add(12, 34), add(99, 99), add(7, 80)], 3),
        "gqa-text": (("text", 1), {}, lambda: [text("The "), text("def ")], 6),
        "kv4": (("text", 0, 4), dict(kv_bits=4), lambda: [text("The "), text("A list is ")], 6),
        "window": (("text",), dict(window=8, sinks=2), lambda: [text("The "), text("x")], 12),
        "window-no-sinks": (("text",), dict(window=6), lambda: [text("def ")], 9),
        "tiles": (("text",), dict(tile=4), lambda: [text("The "), text("class ")], 7),
        "all": (("text", 1, 4), dict(kv_bits=4, window=8, sinks=2, tile=4),
                lambda: [text("The "), text("x")], 10),
        # tools/lm/check.py's
        "check-gqa-add": (("add", 1), {}, lambda: [add(12, 34), add(99, 99)], 3),
        "check-kv4": (("text", 0, 4), dict(kv_bits=4), lambda: [text("The "), text("x")], 5),
        "check-window": (("text",), dict(window=8, sinks=2), lambda: [text("The "), text("def ")], 10),
        "check-tiles": (("text",), dict(tile=4), lambda: [text("A list is ")], 4),
        "check-all": (("text", 1, 4), dict(kv_bits=4, window=6, sinks=1, tile=4),
                      lambda: [text("for "), text("x")], 8),
        "check-ctx70": (("text",), {}, lambda: [text("ab" * 33)], 4),
        "default": (("text",), {}, lambda: [text("The "), text("def "), text("x")], 5),
        "kv1-kv4-text": (("text", 1, 4), dict(kv_bits=4), lambda: [text("The ")], 5),
        "add-kv4": (("add", 0, 4), dict(kv_bits=4), lambda: [add(12, 34), add(5, 6)], 3),
        "add-kv1-kv4": (("add", 1, 4), dict(kv_bits=4), lambda: [add(12, 34), add(5, 6)], 3),
    }
    for name, (mk, kw, prompts, n) in rem_cases.items():
        for mode in MODES:
            def rem(mk=mk, kw=kw, prompts=prompts, n=n, mode=mode):
                ps = prompts()
                return _gen(A()["remedied"](net(*mk), ps, n, R(**kw), mode,
                                            start=[k % 2 for k in range(len(ps))]))
            case(f"remedies/{name}/{mode}", rem, long=name.startswith("check-") and mode == "inorder")
    case("remedies/check-16x40-xhi/overlap", lambda: _gen(A()["remedied"](
        net("text"), [text("The ")] + [[1] * 36] * 15, 4, R(), "overlap",
        start=[k % 2 for k in range(16)])), long=True)
    case("remedies/ragged-all/overlap", lambda: _gen(A()["remedied"](
        net("text", 1, 4), [text(w) for w in ("The ", "def ", "x", "A list is ", "for ")],
        [8, 8, 3, 5, 2], R(kv_bits=4, window=6, sinks=1, tile=4), "overlap", start=[0, 3, 1, 0, 2])))
    case("remedies/window-long/overlap", lambda: _gen(A()["remedied"](
        net("text", 1, 4), [text("The ")], 80, R(kv_bits=4, window=32, sinks=4), "overlap")),
        long=True)
    # the remedies' sweep (tools/lm/remedies_sweep.py): one step of B rows at T - 1
    sweep_rem = {"unmodified": ((0, 8), {}), "gqa": ((1, 8), {}), "kv4": ((0, 4), dict(kv_bits=4)),
                 "window": ((0, 8), dict(window=32, sinks=4)),
                 "all": ((1, 4), dict(kv_bits=4, window=32, sinks=4))}
    for name, ((kvh, bits), kw) in sweep_rem.items():
        for T in (64, 256):
            for B in (1, 2, 4, 8, 16):
                for mode in MODES:
                    def rs(kvh=kvh, bits=bits, kw=kw, T=T, B=B, mode=mode):
                        g = A()["remedied"](net("text", kvh, bits), [[0] * T] * B, 1, R(**kw), mode)
                        return _last(g)
                    quick = mode == "overlap" and (T, B) in ((64, 1), (64, 4), (256, 1))
                    case(f"remedies/sweep-{name}-T{T}-B{B}/{mode}", rs, long=not quick)
    for B in (1, 2, 4):                  # tiled against untiled at T = 64
        for tile in (32, 16):
            case(f"remedies/sweep-tile{tile}-T64-B{B}/overlap", lambda B=B, tile=tile: _last(
                A()["remedied"](net("text"), [[0] * 64] * B, 1, R(tile=tile), "overlap")),
                long=B != 1)
        case(f"remedies/sweep-default-T16-B{B}/overlap", lambda B=B: _last(
            A()["remedied"](net("text"), [[0] * 16] * B, 1, R(), "overlap")))
    # long contexts (tools/lm/long.py): the cache prefilled by the host, one step
    for T, B, kw, quick in ((65, 2, {}, True), (130, 2, dict(tile=16), True), (256, 1, {}, True),
                            (256, 2, {}, False), (256, 1, dict(kv_bits=4), True),
                            (256, 2, dict(kv_bits=4), False), (256, 16, {}, False),
                            (1024, 1, {}, False), (1024, 2, {}, False)):
        def lg(T=T, B=B, kw=kw):
            rem = R(**kw)
            m = net("text", 0, rem.kv_bits) if T <= 64 else net("text", 0, rem.kv_bits, T)
            gen, ext, prog, _ = A()["long_case"](m, rem, B, T)
            return [("image", ext), ("last", prog)]
        tag = "-".join(f"{k}{v}" for k, v in kw.items())
        case(f"long/T{T}-B{B}{'-' + tag if tag else ''}/overlap", lg, long=not quick)

    # -- the servers (tools/serve: paged memory maps, several rows of a sequence) -------
    def served(run):
        return [("image", run.image)] + [(f"step {k} {st.kind}", st.program)
                                         for k, st in enumerate(run.steps)]

    def work():
        from tools.serve import requests as rq
        return rq.poisson(6, 60, seed=4, max_new=(8, 16))

    from tools.serve import lm_engine as E
    for pol in E.POLICIES:
        for pf in E.PREFILLS:
            for mode in MODES:
                def srv(pol=pol, pf=pf, mode=mode):
                    return served(E.serve(net("text"), work(), "text", pol, pf, 24,
                                          chip_cfg=_chip(mode)))
                case(f"serve/{pol}-{pf}/{mode}", srv, long=pol != "preempt")
    case("serve/preempt-chunked-8/inorder", lambda: served(
        E.serve(net("text"), work(), "text", "preempt", "chunked", 8)))
    case("serve/reserve-chunked-8/inorder", lambda: served(
        E.serve(net("text"), work(), "text", "reserve", "chunked", 8)))
    for k in (0, 1, 2, 3, 4):
        def sp(k=k):
            from tools.serve import requests as rq
            from tools.serve import spec as S
            reqs = rq.poisson(2, 10, seed=3, prompt_len=(4, 8), max_new=(8, 8), ctx=S.SPEC_CTX)
            return served(S.spec_serve(net("text"), draft(), reqs, k)[0])
        case(f"serve/spec-k{k}/inorder", sp)
    srv_rem = {"kv_heads1": ((1, 8), None), "kv_bits4": ((0, 4), dict(kv_bits=4)),
               "window": ((0, 8), dict(window=8, sinks=2)),
               "all": ((1, 4), dict(kv_bits=4, window=8, sinks=2))}
    for name, ((kvh, bits), kw) in srv_rem.items():
        for mode in MODES:
            def sr(kvh=kvh, bits=bits, kw=kw, mode=mode):
                from tools.serve import requests as rq
                reqs = rq.poisson(3, 60, seed=1, prompt_len=(16, 22), max_new=(6, 10))
                return served(E.serve(net("text", kvh, bits), reqs, "text", "preempt", "chunked", 8,
                                      remedies=None if kw is None else R(**kw), chip_cfg=_chip(mode)))
            case(f"serve-remedies/{name}/{mode}", sr)
    for pol in ("reserve", "preempt"):
        def sw(pol=pol):
            from tools.serve import requests as rq
            reqs = rq.poisson(3, 200, seed=5, prompt_len=(20, 22), max_new=(9, 10))
            return served(E.serve(net("text"), reqs, "text", pol, "chunked", 6,
                                  remedies=R(window=8, sinks=2)))
        case(f"serve-remedies/window-{pol}-6/inorder", sw)
    return out


def compute(select=None, quick=False):
    """{case: {label: digest}} of the cases (select(name) -> bool; quick: no long case)."""
    out = {}
    for name, long, build in cases():
        if (select and not select(name)) or (quick and long):
            continue
        res = {}
        for label, obj in build():
            res[label] = obj if isinstance(obj, str) else digest(obj)
        out[name] = res
    return out


def long_names():
    return {name for name, long, _ in cases() if long}


def main(argv=None):
    import argparse
    import time
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="record the pin (before a merge only)")
    ap.add_argument("--only", default="", help="the cases whose name starts with this")
    ap.add_argument("--quick", action="store_true", help="leave out the long cases")
    a = ap.parse_args(argv)
    t0 = time.time()
    got = compute((lambda n: n.startswith(a.only)) if a.only else None, a.quick)
    n = sum(len(v) for v in got.values())
    if a.write:
        PIN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        print(f"wrote {PIN}: {len(got)} cases, {n} digests, {time.time() - t0:.0f} s")
        return 0
    pin = json.loads(PIN.read_text())
    bad = [f"{c} {lab}: {d} != pinned {pin.get(c, {}).get(lab)}" for c, v in got.items()
           for lab, d in v.items() if pin.get(c, {}).get(lab) != d]
    bad += [f"{c}: labels {sorted(set(pin.get(c, {})) ^ set(v))} differ" for c, v in got.items()
            if set(pin.get(c, {})) != set(v)]
    for b in bad:
        print("DIFFERS", b)
    print(f"{len(got)} cases, {n} digests, {len(bad)} differ, {time.time() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
