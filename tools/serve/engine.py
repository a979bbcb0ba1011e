"""Serving on GA-2, part 2: requests, workloads, the schedulers and the checks (docs/serving.md).

A request has an id, a prompt (its hidden rows: one int8 row of 16 per token it will
generate, test data as in chapter 9) and a number of tokens to generate; a workload is a
list of requests with arrival steps (load_workload: JSON or CSV). The Scheduler admits
requests into batch slots (policy "static" or "continuous", a capacity of 1..8 slots),
owns the block pool of the paged KV cache (tools/serve/paged.py) and, tick by tick, says which
requests run at which token with which block table (plan()). Every step program follows
from that state alone, so a whole run's programs are built ahead (build_programs), run on
the reference (reference_run) and then on the chip in ONE simulator process
(tools/serve/run.py), the external memory carried from step to step and the scratchpad
garbage at every step's start on both sides.

The oracle is independent of the paged builder: each request alone, through chapter 9's
plain-Python integer reference (model.batch.int_reference / int_kv on a one-request
batch holding only its rows), no instructions, no addresses but the output rows.

`python -m tools.serve.engine --check [--quick]` runs check_serving on the reference Machine
(the model-side bus monitor: each program's LD/ST ranges) and prints a PROBLEM line per
finding (the mutation harness, tools/serve/mutants.py, runs it).
"""
import csv
import heapq
import io
import json
import random
import sys
import time
from collections import namedtuple
from pathlib import Path

import numpy as np

from tools.ch09 import batch
from model import config, timing
from tools.serve import paged
from model.machine import Machine
from model.quant import quantize
from tb import cli

POLICIES = ("static", "continuous")
CFG = config.CH09

Request = namedtuple("Request", "id tokens arrival")
Request.__doc__ = "One request: id (a non-empty string), tokens to generate (1..64), arrival step (>= 0)."

Step = namedtuple("Step", "tick entries slots blocks_in_use rows_in_use admitted finished riding",
                  defaults=((),))
Step.__doc__ = """One executed step of a plan: tick (the scheduler's step clock), entries
[(request index, t, block table)] in batch-slot order, slots (the batch slot of each
entry), blocks_in_use and rows_in_use (pool blocks allocated, token rows holding K/V,
after this step's append), admitted and finished (request indices), riding [(slot,
request index, t)]: finished requests still computed in their slots (static batching
with ride_along, as chapter 9's example B prices it; not served: no program, no blocks)."""

Plan = namedtuple("Plan", "policy capacity requests layout steps completion_tick arrivals "
                          "idle_ticks rejected block_waits")
Plan.__doc__ = """A whole run: policy, capacity, requests (accepted, in order: the request
indices), layout (tools/serve/paged.py), steps (executed Steps), completion_tick and arrivals
per request index, idle_ticks (ticks with nothing to run), rejected [(request, message)]
(strict=False), block_waits (ticks the queue's head waited for blocks with a slot free)."""


# ---------------------------------------------------------------- workloads
def _where(req, i):
    rid = req.get("id") if isinstance(req, dict) else None
    return f"request {rid!r}" if rid not in (None, "") else f"request #{i + 1}"


def _as_int(v, what, where):
    if isinstance(v, bool):
        raise ValueError(f"{where}: {what} {v!r} is not an integer")
    if isinstance(v, str):
        try:
            v = int(v.strip())
        except ValueError:
            raise ValueError(f"{where}: {what} {v!r} is not an integer") from None
    if not isinstance(v, int):
        raise ValueError(f"{where}: {what} {v!r} is not an integer")
    return v


def check_request(req, max_ctx=paged.MAX_CTX, where=None):
    """A Request from a dict or Request, or ValueError naming it: id a non-empty string,
    tokens 1..max_ctx, arrival >= 0."""
    if isinstance(req, Request):
        req = req._asdict()
    if not isinstance(req, dict):
        raise ValueError(f"{where or 'request'}: expected an object with id, tokens, arrival, got {req!r}")
    where = where or _where(req, 0)
    extra = set(req) - {"id", "tokens", "arrival"}
    if extra:
        raise ValueError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
    rid = req.get("id")
    if not isinstance(rid, str) or not rid.strip():
        raise ValueError(f"{where}: id must be a non-empty string, got {rid!r}")
    if "tokens" not in req:
        raise ValueError(f"{where}: no tokens")
    n = _as_int(req["tokens"], "tokens", where)
    if n == 0:
        raise ValueError(f"{where}: zero tokens to generate")
    if not 1 <= n <= max_ctx:
        raise ValueError(f"{where}: {n} tokens, outside 1..{max_ctx} (the maximum context)")
    a = _as_int(req.get("arrival", 0), "arrival", where)
    if a < 0:
        raise ValueError(f"{where}: arrival step {a} < 0")
    return Request(rid.strip(), n, a)


def check_workload(reqs, max_ctx=paged.MAX_CTX):
    """The Requests of a list of dicts/Requests, or ValueError naming the first bad one
    (a duplicate id included)."""
    if not isinstance(reqs, (list, tuple)) or not reqs:
        raise ValueError("workload: expected a non-empty list of requests")
    out, seen = [], set()
    for i, r in enumerate(reqs):
        q = check_request(r, max_ctx, _where(r, i) if isinstance(r, dict) else f"request #{i + 1}")
        if q.id in seen:
            raise ValueError(f"request {q.id!r}: duplicate id")
        seen.add(q.id)
        out.append(q)
    return out


def parse_workload(text, fmt):
    """(name, [Request]) from a workload file's text; fmt 'json' or 'csv'.

    JSON: {"name": ..., "requests": [{"id": "A", "tokens": 14, "arrival": 0}, ...]}
    (or just the list). CSV: a header line id,tokens,arrival then one line per request."""
    if fmt == "json":
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"workload: malformed JSON: {e}") from None
        name = "workload"
        if isinstance(obj, dict):
            name = str(obj.get("name", name))
            if "requests" not in obj:
                raise ValueError("workload: JSON object without a 'requests' list")
            obj = obj["requests"]
        return name, check_workload(obj)
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(text)))
        rows = [r for r in rows if r and any(c.strip() for c in r) and not r[0].lstrip().startswith("#")]
        if not rows:
            raise ValueError("workload: empty CSV")
        head = [c.strip() for c in rows[0]]
        if head[:2] != ["id", "tokens"] or not set(head) <= {"id", "tokens", "arrival"}:
            raise ValueError(f"workload: CSV header must be id,tokens[,arrival], got {','.join(head)}")
        reqs = []
        for ln, r in enumerate(rows[1:], 2):
            if len(r) != len(head):
                raise ValueError(f"workload: CSV line {ln} has {len(r)} fields, the header {len(head)}"
                                 + (f" (request {r[0].strip()!r})" if r else ""))
            reqs.append(dict(zip(head, [c.strip() for c in r])))
        return "workload", check_workload(reqs)
    raise ValueError(f"workload: unknown format {fmt!r} (json or csv)")


def load_workload(path):
    """(name, [Request]) of a .json or .csv workload file; ValueError naming the problem."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in ("json", "csv"):
        raise ValueError(f"workload {path}: the file must end in .json or .csv")
    text = cli.text_file(path, f"workload {path}")
    try:
        name, reqs = parse_workload(text, fmt)
    except ValueError as e:
        msg = str(e)
        raise ValueError(f"workload {path}: {msg[len('workload: '):] if msg.startswith('workload: ') else msg}") from None
    return (path.stem if name == "workload" else name), reqs


# ---------------------------------------------------------------- the scheduler
def blocks_needed(tokens, block_tokens):
    """Blocks a request of `tokens` tokens holds at its end."""
    return -(-tokens // block_tokens)


class Scheduler:
    """Batch slots, the block pool and the admission policy (docs/serving.md).

    submit(req) checks a request against the others and the pool (ValueError naming it,
    the state unchanged); tick() advances the step clock by one and returns the Step run
    in it (entries empty on an idle tick). Blocks are allocated as a request grows (one
    when its token count crosses a block boundary, the lowest free block first) and
    returned when it finishes. Admission: FIFO by arrival; a request is admitted only when
    the free blocks, less what the admitted requests will still allocate, cover all the
    blocks it will ever need, so an admitted request never waits for a block and nothing
    admitted is preempted, corrupted or dropped; the head of the queue waits otherwise (no
    overtaking). static: a new group is admitted only when every slot is empty (a group
    runs until its longest request ends); continuous: a slot freed at the end of a step
    is refilled before the next one.

    ride_along (static only): a finished request's slot is still computed until its group
    ends, at tokens past its last (its tokens thrown away): listed in Step.riding, not in
    the entries (chapter 9's example B prices these steps with its batched program; the
    served steps never compute them). Its blocks are returned when it finishes.
    """

    def __init__(self, policy, capacity, block_tokens, n_blocks, max_ctx=paged.MAX_CTX, ride_along=False):
        if policy not in POLICIES:
            raise ValueError(f"policy {policy!r} not one of {', '.join(POLICIES)}")
        if ride_along and policy != "static":
            raise ValueError("ride_along is static batching's: a continuous scheduler refills a freed slot")
        if isinstance(capacity, bool) or not isinstance(capacity, int) or not 1 <= capacity <= paged.MAX_BATCH:
            raise ValueError(f"capacity {capacity!r} outside 1..{paged.MAX_BATCH}")
        paged.make_layout(block_tokens, n_blocks, [])        # checks the pool sizes
        self.policy, self.capacity = policy, capacity
        self.block_tokens, self.n_blocks, self.max_ctx = block_tokens, n_blocks, max_ctx
        self.requests = []                 # submitted, in submit order (index = request index)
        self.free = list(range(n_blocks))  # a heap: the lowest free block first
        self.owner = {}                    # block -> request index
        self.tables = {}                   # request index -> [blocks]
        self.done = {}                     # request index -> tokens produced
        self.slots = [None] * capacity
        self.queue = []
        self.now = 0
        self.completion_tick = {}
        self.arrived = set()
        self.block_waits = 0
        self.ride_along = bool(ride_along)
        self.riding = {}                   # slot -> [request index, next token] (ride_along)

    def need(self, r):
        return blocks_needed(self.requests[r].tokens, self.block_tokens)

    def submit(self, req):
        """Add a request (a Request or a dict); ValueError naming it when it is bad, a
        duplicate, or needs more blocks than the whole pool (nothing else changes)."""
        q = check_request(req, self.max_ctx)
        if any(o.id == q.id for o in self.requests):
            raise ValueError(f"request {q.id!r}: duplicate id")
        if blocks_needed(q.tokens, self.block_tokens) > self.n_blocks:
            raise ValueError(f"request {q.id!r}: needs {blocks_needed(q.tokens, self.block_tokens)} "
                             f"blocks of {self.block_tokens} tokens, the pool has only {self.n_blocks}")
        self.requests.append(q)
        return len(self.requests) - 1

    def active(self):
        return [r for r in self.slots if r is not None]

    def finished(self):
        return len(self.completion_tick) == len(self.requests)

    def _fits(self, r):
        outstanding = sum(self.need(a) - len(self.tables[a]) for a in self.active())
        return self.need(r) <= len(self.free) - outstanding

    def _admit(self, r, j):
        self.slots[j] = r
        self.tables[r] = []
        self.done[r] = 0

    def _alloc(self, r):
        if not self.free:
            raise RuntimeError(f"pool exhausted: admitted request {self.requests[r].id!r} cannot grow "
                               f"(admission must have reserved its blocks)")
        blk = heapq.heappop(self.free)
        if blk in self.owner:
            raise RuntimeError(f"block {blk} handed to request {self.requests[r].id!r} while "
                               f"request {self.requests[self.owner[blk]].id!r} holds it")
        self.owner[blk] = r
        self.tables[r].append(blk)

    def _release(self, r):
        for blk in self.tables[r]:
            del self.owner[blk]
            heapq.heappush(self.free, blk)
        self.tables[r] = []

    def tick(self):
        """Run one step of the clock: arrivals, admission, growth, the step, completions."""
        for r, q in enumerate(self.requests):
            if r not in self.arrived and q.arrival <= self.now:
                self.arrived.add(r)
                self.queue.append(r)
        admitted = []
        if self.policy == "continuous" or not self.active():
            for j in range(self.capacity):
                if self.slots[j] is None and self.queue and self._fits(self.queue[0]):
                    r = self.queue.pop(0)
                    self._admit(r, j)
                    admitted.append(r)
            if None in self.slots and self.queue and not self._fits(self.queue[0]):
                self.block_waits += 1
        if not self.active() and self.queue:
            raise RuntimeError(f"deadlock: nothing runs and request {self.requests[self.queue[0]].id!r} "
                               f"cannot have its blocks ({len(self.free)} of {self.n_blocks} free)")
        entries, slots = [], []
        for j, r in enumerate(self.slots):
            if r is None:
                continue
            t = self.done[r] + 1
            if (t - 1) % self.block_tokens == 0:
                self._alloc(r)
            entries.append((r, t, tuple(self.tables[r])))
            slots.append(j)
        rows = sum(t for _, t, _ in entries)
        riding = tuple((j, r, t) for j, (r, t) in sorted(self.riding.items()))
        step = Step(self.now, entries, slots, self.n_blocks - len(self.free), rows, admitted, [], riding)
        for j in self.riding:
            self.riding[j][1] += 1
        for j, r in enumerate(self.slots):
            if r is None:
                continue
            self.done[r] += 1
            if self.done[r] == self.requests[r].tokens:
                self._release(r)
                self.slots[j] = None
                self.completion_tick[r] = self.now
                step.finished.append(r)
                if self.ride_along:
                    self.riding[j] = [r, self.done[r] + 1]
        if not self.active():
            self.riding = {}               # the group has ended
        self.now += 1
        return step


def plan(requests, policy, capacity, block_tokens, n_blocks, cfg=CFG, strict=True, max_ticks=1 << 20,
         max_ctx=None, ride_along=False):
    """The whole run of a workload under a policy: a Plan (steps, completion ticks, ...).

    strict: the first bad request raises ValueError naming it; otherwise bad requests are
    listed in Plan.rejected as (request, message) and the others are served. max_ctx: the
    longest request (default the step's longest context on cfg); ride_along: the
    Scheduler's (static: finished requests' slots listed in Step.riding)."""
    sch = Scheduler(policy, capacity, block_tokens, n_blocks,
                    paged.max_context(cfg) if max_ctx is None else max_ctx, ride_along)
    rejected = []
    for q in requests:
        try:
            sch.submit(q)
        except ValueError as e:
            if strict:
                raise
            rejected.append((q, str(e)))
    steps, idle = [], 0
    while not sch.finished():
        if sch.now >= max_ticks:
            raise RuntimeError(f"plan: not finished after {max_ticks} ticks")
        st = sch.tick()
        if st.entries:
            steps.append(st)
        else:
            idle += 1
    reqs = list(sch.requests)
    lay = paged.make_layout(block_tokens, n_blocks, [q.tokens for q in reqs])
    return Plan(policy, capacity, reqs, lay, steps, dict(sch.completion_tick),
                {r: q.arrival for r, q in enumerate(reqs)}, idle, rejected, sch.block_waits)


def config_for(layout, base=CFG):
    """base (chapter 9's chip) with the smallest external memory of 8192, 16384, 32768 or
    65536 words that holds the layout (the timing mode and every other field kept)."""
    for n in (8192, 16384, 32768, 65536):
        if n >= layout.ext_words:
            return base if base.ext_words == n else base.replace(ext_words=n)
    raise ValueError(f"the serving layout needs {layout.ext_words} external words, more than "
                     f"the 65536 the 16-bit addresses reach: use a smaller pool or fewer requests")


# ---------------------------------------------------------------- data and the oracle
def model_data(seed=1):
    """The model: chapter 9's weights and ONE set of scales (batch.make_batch(4, 16, seed)),
    its integer weights Wi and requantization parameters P."""
    ex = batch.make_batch(batch.BMAX, batch.LMAX, seed)
    return {"seed": seed, "Wi": ex["Wi"], "scales": ex["scales"], "P": batch.rq_params(ex)}


def request_rows(model, req):
    """A request's prompt: req.tokens int8 hidden rows, N(0, 1) from random.Random of the
    model seed and the request id (the same whatever company it keeps), quantized with the
    model's x scale."""
    rng = random.Random(f"serve {model['seed']} {req.id}")
    sx = model["scales"]["x"]
    return [[quantize(rng.gauss(0, 1), sx) for _ in range(paged.DM)] for _ in range(req.tokens)]


class Oracle:
    """Each request decoded ALONE by chapter 9's plain-Python integer reference."""

    def __init__(self, model, requests):
        self.model = model
        self.ex = [{"nseq": 1, "L": q.tokens, "Xi": [request_rows(model, q)], "Wi": model["Wi"],
                    "scales": model["scales"]} for q in requests]
        self._out = {}

    def output(self, r, t):
        """Request r's attention output at its t-th token (16 ints)."""
        if (r, t) not in self._out:
            self._out[(r, t)] = batch.int_reference(self.ex[r], 0, t)
        return self._out[(r, t)]

    def kv(self, r, t):
        """Request r's K and V rows 0..t-1."""
        return batch.int_kv(self.ex[r], 0, t)


def base_image(lay, model, oracle, seed=0):
    """The external memory of layout lay before the first program: the weights and the
    hidden rows of every request of the oracle; the rest (the pool, the output rows) holds
    seeded garbage (an engine that reads a K/V row or an output it never wrote gets a
    wrong answer)."""
    rng = np.random.default_rng(seed)
    img = rng.integers(-128, 128, size=lay.ext_words, dtype=np.int64)
    w = np.concatenate([np.array(model["Wi"][n]).ravel() for n in ("wq", "wk", "wv")])
    img[paged.EXT_W:paged.EXT_W + paged.W_WORDS] = w
    for r in range(len(oracle.ex)):
        rows = np.array(oracle.ex[r]["Xi"][0]).ravel()
        a = paged.in_addr(lay, r)
        img[a:a + rows.size] = rows
    return img


def ext_image(plan_, model, oracle, seed=0):
    """The external memory before a plan's first step (base_image of its layout)."""
    return base_image(plan_.layout, model, oracle, seed)


def build_programs(plan_, model, cfg=CFG):
    """Every step's program, in order."""
    return [paged.step_program(st.entries, plan_.layout, model["P"], cfg) for st in plan_.steps]


def garbage_sps(plan_, tag, cfg=CFG):
    """Each step's garbage scratchpad image (batch.garbage_sp, seeded by tag and step)."""
    return [batch.garbage_sp(batch.garbage_seed(f"serve {tag} step {i}"), cfg) for i in range(len(plan_.steps))]


def step_issues(ext, plan_, i, oracle, where):
    """Findings after step i in an external memory image: the step's outputs against each
    request alone, and every active request's K/V rows in its blocks against the oracle."""
    st = plan_.steps[i]
    lay = plan_.layout
    probs = []
    for r, t, table in st.entries:
        rid = plan_.requests[r].id
        a = paged.out_addr(lay, r) + paged.D * (t - 1)
        got = [int(v) for v in ext[a:a + paged.D]]
        if got != oracle.output(r, t):
            probs.append(f"{where} step {i}: request {rid!r} token {t}: output {got} != alone {oracle.output(r, t)}")
        K, V = oracle.kv(r, t)
        for row in range(t):
            blk = table[row // lay.block_tokens]
            off = paged.D * (row % lay.block_tokens)
            k = [int(v) for v in ext[paged.k_page(lay, blk) + off:paged.k_page(lay, blk) + off + paged.D]]
            v = [int(x) for x in ext[paged.v_page(lay, blk) + off:paged.v_page(lay, blk) + off + paged.D]]
            if k != K[row] or v != V[row]:
                probs.append(f"{where} step {i}: request {rid!r} K/V row {row} in block {blk} corrupted")
                break
    return probs


def final_issues(ext, plan_, oracle, where):
    """Every token of every request in the final external memory against it alone."""
    probs = []
    lay = plan_.layout
    for r, q in enumerate(plan_.requests):
        for t in range(1, q.tokens + 1):
            a = paged.out_addr(lay, r) + paged.D * (t - 1)
            got = [int(v) for v in ext[a:a + paged.D]]
            if got != oracle.output(r, t):
                probs.append(f"{where}: request {q.id!r} token {t}: final output != alone")
                break
    return probs


def pool_issues(plan_, where):
    """Block-table invariants of each step: tables disjoint, the right length."""
    probs = []
    for i, st in enumerate(plan_.steps):
        seen = {}
        for r, t, table in st.entries:
            if len(table) != blocks_needed(t, plan_.layout.block_tokens):
                probs.append(f"{where} step {i}: request {plan_.requests[r].id!r} has {len(table)} blocks at token {t}")
            for b in table:
                if b in seen:
                    probs.append(f"{where} step {i}: block {b} in the tables of "
                                 f"{plan_.requests[seen[b]].id!r} and {plan_.requests[r].id!r}")
                seen[b] = r
    return probs


def reference_run(plan_, model, cfg=CFG, tag="run", oracle=None, check=True):
    """Run every step on ONE reference Machine (external memory carried, scratchpad garbage
    at each step), checking as it goes. Returns a dict: programs, image, sps, step_cycles
    (from the counters), predicted (timing.schedule), bus (the model-side monitor's
    ranges per step), problems, final ext."""
    oracle = oracle or Oracle(model, plan_.requests)
    progs = build_programs(plan_, model, cfg)
    image = ext_image(plan_, model, oracle)
    paged.check_config(cfg, plan_.layout)
    sps = garbage_sps(plan_, tag, cfg)
    m = Machine(cfg)
    ext = image.copy()
    probs = pool_issues(plan_, tag) if check else []
    cycles, bus = [], []
    for i, (prog, sp) in enumerate(zip(progs, sps)):
        m.sp[:] = sp
        res = m.run(prog, ext)
        ext = res.ext
        cycles.append(int(res.counters.cycles))
        acc = paged.accesses(prog)
        bus.append(acc)
        if check:
            probs += paged.isolation_issues(acc, plan_.steps[i].entries, plan_.layout, f"{tag} step {i}")
            probs += step_issues(ext, plan_, i, oracle, tag)
    if check:
        probs += final_issues(ext, plan_, oracle, tag)
    predicted = [timing.schedule(p, cfg).cycles for p in progs]
    return {"programs": progs, "image": image, "sps": sps, "step_cycles": cycles,
            "predicted": predicted, "bus": bus, "problems": probs, "ext": ext, "oracle": oracle}


# ---------------------------------------------------------------- figures of merit
def metrics(plan_, step_cycles):
    """Steps, total cycles, cycles per generated token, completion times (cycles from the
    start of the request's arrival tick to the end of the step of its last token), idle
    slot-steps, and the KV memory figures (words; paging against a fixed reservation of
    the maximum context per admitted request)."""
    lay = plan_.layout
    clock_at = {}                # tick -> cycles at the start of that tick
    clock, end_of = 0, {}
    for st, c in zip(plan_.steps, step_cycles):
        clock_at.setdefault(st.tick, clock)
        clock += c
        end_of[st.tick] = clock

    def start_of(tick):
        # an arrival tick with no step (idle) starts when the clock stood then
        before = [t for t in end_of if t < tick]
        return end_of[max(before)] if before else 0

    comp = {}
    for r, q in enumerate(plan_.requests):
        comp[q.id] = end_of[plan_.completion_tick[r]] - start_of(q.arrival)
    tokens = sum(q.tokens for q in plan_.requests)
    bw = 2 * paged.block_words(lay)                          # K page + V page
    alloc_words = [st.blocks_in_use * bw for st in plan_.steps]
    used_words = [st.rows_in_use * 2 * paged.D for st in plan_.steps]
    reserve = [len(st.entries) * paged.MAX_CTX * 2 * paged.D for st in plan_.steps]
    peak = int(np.argmax(alloc_words))
    frag = [1 - u / a for u, a in zip(used_words, alloc_words)]
    return {
        "steps": len(plan_.steps), "idle_ticks": plan_.idle_ticks, "block_waits": plan_.block_waits, "total_cycles": int(clock),
        "tokens": tokens, "cycles_per_token": clock / tokens,
        "completion": comp, "mean_completion": float(np.mean(list(comp.values()))),
        "worst_completion": int(max(comp.values())),
        "idle_slot_steps": sum(plan_.capacity - len(st.entries) for st in plan_.steps),
        "kv": {"block_tokens": lay.block_tokens, "pool_blocks": lay.n_blocks,
               "pool_words": lay.n_blocks * bw,
               "peak_blocks": max(st.blocks_in_use for st in plan_.steps),
               "peak_words_paged": max(alloc_words), "peak_words_used": max(used_words),
               "peak_words_reserved": max(reserve),
               "reserved_per_request": paged.MAX_CTX * 2 * paged.D,
               "slot_reservation_words": plan_.capacity * paged.MAX_CTX * 2 * paged.D,
               "fragmentation_at_peak": frag[peak],
               "mean_fragmentation": float(np.mean(frag))},
        "occupancy": [st.blocks_in_use for st in plan_.steps],
    }


# ---------------------------------------------------------------- workloads shipped
WORKLOADS = Path(__file__).resolve().parent / "workloads"
# chapter 9's example B (14, 3, 9, 5, 12, 2, 7, 10 tokens, all at step 0): stated once, in
# its file, read here by make serve and by the chapter's example (tools/ch09/example_b.py)
EXAMPLE_B_FILE = WORKLOADS / "example_b.json"
EXAMPLE_B = load_workload(EXAMPLE_B_FILE)[1]


def check_serving(quick=False):
    """Findings of the serving check on the reference (the mutation harness's check):
    example B, a staggered workload and one whose second request must wait for blocks
    (a 4-block pool) under both policies, every token
    against each request alone, every step's caches, the model-side bus monitor."""
    model = model_data(1)
    stag = [Request("r0", 9, 0), Request("r1", 3, 0), Request("r2", 6, 1), Request("r3", 2, 2),
            Request("r4", 7, 3), Request("r5", 5, 3), Request("r6", 4, 8)]
    tight = [Request("a", 12, 0), Request("b", 10, 0), Request("c", 3, 1)]
    cases = [("staggered", stag, 3, 4, 6), ("tight pool", tight, 2, 4, 4)]
    if not quick:
        cases.append(("example B", EXAMPLE_B, 4, 4, 12))
    probs = []
    for name, reqs, cap, bt, nb in cases:
        for pol in POLICIES:
            try:
                p = plan(reqs, pol, cap, bt, nb)
            except RuntimeError as e:           # the scheduler broke its own promises
                probs.append(f"{name} {pol}: scheduler failed: {e}")
                continue
            probs += reference_run(p, model, tag=f"{name} {pol}")["problems"]
    return probs


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description="serving check on the reference (check_serving)")
    ap.add_argument("--check", action="store_true", help="run check_serving (the default action)")
    ap.add_argument("--quick", action="store_true", help="the staggered workload only")
    a = ap.parse_args(argv)
    t0 = time.time()
    probs = check_serving(a.quick)
    for p in probs[:20]:
        print("PROBLEM", p)
    print(f"check_serving{' (quick)' if a.quick else ''}: {len(probs)} problem(s) in {time.time() - t0:.2f} s")
    return 1 if probs else 0


if __name__ == "__main__":
    sys.exit(main())
