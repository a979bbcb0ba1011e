"""The language-model server's scheduler: continuous batching over a paged KV pool, with
whole or chunked prefill on the chip, reservation or optimistic admission with
preemption by recompute (docs/serving_lm.md, "Serving the language model").

serve(model, requests, policy, prefill, ...) runs a workload on the reference chip
(model.machine.Machine), step by step, as a server does: at the clock (chip cycles, the
sum of the steps' counters) it admits the requests that have arrived, picks the step's
rows, allocates blocks, compiles the step's program (tools/lm/compiler's step_program
with this step's block tables as its address protocol, mem=), runs it, reads the tokens
the step wrote, and ends each request at its stop token or its limit: lengths are
discovered while serving. With chip= a live simulator session (tb.hw.Live: Icarus or
Verilator) each step runs on the circuit instead, and what the host decides next is
taken from the chip's outcome, as a real server takes it: the tokens read back from the
chip's memory image, the clock from the chip's counters; the session judges every step
against the reference chip before the server sees it (a disagreement raises
hw.ChipMismatch: the run stops there), and the server holds the chip's bus record to the
step's allowed set. The Run holds every step's program, scratchpad garbage, rows, tables
and cycles.

Policies (admission):
  static    batches: up to `slots` requests admitted together into an empty batch, which
            runs until all of them finish; every block a request could need reserved.
  reserve   continuous: a free slot takes the queue's head when every block it could
            need (prompt + limit) is free (FIFO: a head that does not fit waits, and so
            does everyone behind it).
  preempt   continuous, optimistic: the head is admitted when its current tokens' blocks
            are free; blocks are allocated as requests grow; when the pool runs out, the
            newest running request is preempted by recompute: its blocks freed, it goes
            back to the queue in its arrival place, and when readmitted its prompt and
            the tokens it had generated are prefilled again (they stay in its token area).
Prefill:
  whole     while a request has prompt rows to feed, the step is a prefill step of up to
            `rows` prompt rows (oldest request first), with no decode rows.
  chunked   Sarathi-Serve: every step first takes one row of every decoding request, then
            fills its token budget (`rows`) with prompt rows, oldest first.
A row of sequence b at position t feeds token t; the last pending row of a request writes
its next token (ARGMAX on chip, stored in its token area at t + 1).

Remedies (Server(..., remedies=Remedies(...)) with the model variant of
generate.load_model(task, kv_heads=, kv_bits=); docs/serving_lm.md "Remedies in the
server"): the steps are the compiler's tiled plan (with lm_memory.Paged's kv_attend), a
pool row is row_words words; tiles as in a generation. With a sliding window of W
positions and S sinks the table stays indexed by position; after every step each block
whose positions have all left the window of every future step (all >= S and <= fed -
(W - S)) returns to the pool
(its table entry None), so a request holds at most window_blocks() blocks: the
reservation and static policies reserve that many, not prompt + limit, and the pool
invariant holds each request to it. The reference is tools/lm/remedies_ref.py's greedy
decoding (reference_tokens with window=, sinks=).
"""
from collections import namedtuple

import numpy as np

from model import timing
from model.machine import Machine
from tb import hw
from tools.lm import compiler as C
from tools.lm import remedies_ref
from tools.lm.generate import garbage_sp
from tools.lm.int8 import argmax
from tools.serve import lm_memory as lmm
from tools.serve import paged
from tools.serve import requests as rq

POLICIES = ("static", "reserve", "preempt")
PREFILLS = ("whole", "chunked")
SLOTS = 4

StepRec = namedtuple("StepRec", "kind rows tables program cycles predicted start sp allowed running blocks")
StepRec.__doc__ = """One executed step: kind ("prefill", "decode", "mixed"; spec.py adds
"draft", "verify"), rows (compiler.Row list: b = request index), tables {b: block table}
(copies), program, cycles (the reference chip's counters), predicted (model.timing's),
start (the clock at its start), sp (the scratchpad garbage it started from), allowed
(the isolation monitor's sets), running (requests holding a slot), blocks (pool blocks
allocated)."""

Run = namedtuple("Run", "policy prefill requests image steps tokens arrival first finish "
                        "preemptions recomputed admitted end idle problems mm slots final "
                        "first_step finish_step")
Run.__doc__ = """A served workload: tokens[b] the ids generated for request b, arrival /
first / finish [b] clock values (cycles: arrival, end of the step of its first token, end
of the step of its last), preemptions[b], recomputed[b] (rows fed again after a
preemption), admitted (request indices in order of first admission), end (the last
step's end), idle (cycles with nothing to run), problems (the reference-side checks),
mm (the MemoryMap), slots, final (the external memory after the last step), first_step
and finish_step [b] (the index of the step that wrote its first and its last token: the
report re-times them from any per-step cycles, the chip's counters included)."""


class Stopped(Exception):
    """The server found a step it must not run (Server.problems says which): the run ends."""


def reference_tokens(model, prompt_ids, max_new, stop, ctx, remedies=None):
    """A request served alone: greedy decoding of the integer reference (Int8Model, from
    the spec, not from the compiler), to one of its stop tokens (a tuple) or its limit.
    remedies: a compiler.Remedies (or None): then tools/lm/remedies_ref.py's forward (the
    grouped-query and 4-bit models are their own int8 models; window and sinks masked)."""
    ids = list(prompt_ids)
    out = []
    plain = remedies is None and not model.cfg.kv_heads and getattr(model, "kv_bits", 8) == 8
    w, s = (remedies.window, remedies.sinks) if remedies is not None else (0, 0)
    while len(out) < max_new and len(ids) < ctx + 1:
        lg = model.logits(np.array([ids])) if plain else \
            remedies_ref.forward(model, np.array([ids]), w, s)[0]
        nxt = int(argmax(lg[0, -1]))
        out.append(nxt)
        ids.append(nxt)
        if nxt in stop:
            break
    return out


class Server:
    """The scheduler's state over one run (see the module docstring)."""

    def __init__(self, model, reqs, task, policy, prefill, n_blocks, slots=SLOTS,
                 rows=lmm.ROWS, block_tokens=lmm.BLOCK_TOKENS, ctx=lmm.CTX, chip_cfg=lmm.SERVE_CHIP,
                 garbage=1, draft=None, chip=None, remedies=None):
        if policy not in POLICIES:
            raise ValueError(f"unknown policy {policy!r} (policies: {', '.join(POLICIES)})")
        if prefill not in PREFILLS:
            raise ValueError(f"unknown prefill {prefill!r} (prefills: {', '.join(PREFILLS)})")
        if isinstance(slots, bool) or not isinstance(slots, int) or not 1 <= slots <= rows:
            raise ValueError(f"slots must be 1..{rows} (the rows per step), got {slots!r}")
        self.model, self.task, self.policy, self.prefill = model, task, policy, prefill
        self.draft_model = draft         # spec.py's draft (its steps: execute(..., draft=True))
        self.reqs = list(reqs)
        self.mm = self.memory_map(n_blocks, block_tokens, ctx, rows, chip_cfg, remedies)
        rem = self.mm.remedies
        self.window, self.sinks = (rem.window, rem.sinks) if rem is not None else (0, 0)
        self.cfg = chip_cfg
        self.slots, self.rows, self.bt, self.stop = slots, rows, block_tokens, self.stop_ids()
        self.prompt = [self.prompt_ids(q) for q in self.reqs]
        for b, q in enumerate(self.reqs):
            if self.need_total(b) > n_blocks:
                raise ValueError(f"request {q.id!r}: needs {self.need_total(b)} "
                                 f"blocks, the pool has {n_blocks}")
        self.order = sorted(range(len(self.reqs)), key=lambda b: (self.reqs[b].arrival, b))
        self.free = list(range(n_blocks))
        self.tables = {}
        self.gen = [[] for _ in self.reqs]
        self.fed = [0] * len(self.reqs)
        self.done = [False] * len(self.reqs)
        self.running = []            # request indices, in admission order
        self.queue = []              # arrived, waiting (or preempted), in arrival order
        self.arrived = 0             # requests of self.order released into the queue
        self.first = [None] * len(self.reqs)
        self.finish = [None] * len(self.reqs)
        self.first_step = [None] * len(self.reqs)
        self.finish_step = [None] * len(self.reqs)
        self.preempted = [0] * len(self.reqs)
        self.recomputed = [0] * len(self.reqs)
        self.admitted = []
        self.now = 0
        self.idle = 0
        self.steps = []
        self.problems = []
        self.garbage = garbage
        self.ext = self.image()
        self.chip = chip                 # a live simulator session (tb.hw.Live), or None
        self.machine = Machine(chip_cfg) if chip is None else None

    # -- what a model brings (a subclass serves another model: tools/smollm2/serve.py) -----
    def memory_map(self, n_blocks, block_tokens, ctx, rows, chip_cfg, remedies):
        """Where the run's weights, token areas and KV pool are (lm_memory.MemoryMap)."""
        return lmm.MemoryMap(self.model, len(self.reqs), n_blocks, block_tokens, ctx, rows,
                             draft=self.draft_model, chip_cfg=chip_cfg, remedies=remedies)

    def prompt_ids(self, q):
        return rq.ids(self.task, q)

    def stop_ids(self):
        return rq.stop_token(self.task)

    def compile(self, rows, tables, draft):
        """(program, allowed sets) of one step: the compiler's step over the tables' paged
        pool, and the words the isolation monitor lets it touch. Stopped (the finding in
        self.problems) for a step that would read a block its table does not hold."""
        if not draft:
            gone = lmm.released_reads(self.mm, rows, tables)
            if gone:
                self.problems += [f"step {len(self.steps)}: {p}" for p in gone]
                raise Stopped(gone[0])
        mem = lmm.Paged(self.mm, tables, draft)
        model = self.draft_model if draft else self.model
        prog = C.step_program(model, self.mm.layout(draft), rows, mem=mem)
        return prog, lmm.allowed(self.mm, rows, tables, draft)

    # -- memory ---------------------------------------------------------------------
    def image(self):
        """The external memory the host writes before the run: the weights (the Layout's
        image of the weights alone) and every request's prompt ids in its token area."""
        ext = np.zeros(self.mm.ext_words, dtype=np.int64)
        ext[:self.mm.lay.weight_words] = self.mm.lay.image(self.model, [])[:self.mm.lay.weight_words]
        for b, p in enumerate(self.prompt):
            ext[self.mm.token(b, 0):self.mm.token(b, 0) + len(p)] = p
        return ext

    def blocks_for(self, positions):
        """Blocks holding rows 0..positions-1."""
        return -(-positions // self.bt)

    def seq(self, b):
        return self.prompt[b] + self.gen[b]

    def pending(self, b):
        """Rows request b still has to feed before its next token: positions fed..len-1."""
        return len(self.seq(b)) - self.fed[b]

    def need_total(self, b):
        """Every block request b could need: rows 0 .. prompt + limit - 2 (with a window,
        at most window_blocks() of them at once)."""
        n = self.blocks_for(len(self.prompt[b]) + self.reqs[b].max_new - 1)
        return min(n, self.window_blocks()) if self.window else n

    def window_blocks(self):
        """The blocks a windowed request holds at most: its sinks' blocks and those of
        the W - S + rows - 1 consecutive positions a step of up to `rows` of its rows
        attends or stores (L consecutive positions touch at most ceil((L - 1) / bt) + 1
        blocks)."""
        span = self.window - self.sinks + self.rows - 1
        return self.blocks_for(self.sinks) + self.blocks_for(span - 1) + 1

    def held(self, b):
        """The blocks request b's table holds (a windowed table has None where a block
        returned to the pool)."""
        return sum(blk is not None for blk in self.tables.get(b, []))

    def release(self, b):
        self.free.extend(blk for blk in self.tables.pop(b, []) if blk is not None)
        self.free.sort()

    def retire_window(self, b):
        """Return to the pool request b's blocks that no future step attends: every
        position in them >= S (no sink) and <= fed - (W - S) (the next query, at fed,
        attends u < S or u > fed - (W - S))."""
        last = self.fed[b] - (self.window - self.sinks)     # the newest dead position
        tab = self.tables[b]
        for k, blk in enumerate(tab):
            if blk is not None and k * self.bt >= self.sinks and (k + 1) * self.bt - 1 <= last:
                self.free.append(blk)
                tab[k] = None
        self.free.sort()

    def take(self, b, n):
        """Give request b n more blocks (the lowest free first)."""
        self.tables.setdefault(b, [])
        for _ in range(n):
            self.tables[b].append(self.free.pop(0))

    # -- admission ------------------------------------------------------------------
    def arrive(self):
        while self.arrived < len(self.order) and self.reqs[self.order[self.arrived]].arrival <= self.now:
            self.queue.append(self.order[self.arrived])
            self.arrived += 1
        self.queue.sort(key=lambda b: (self.reqs[b].arrival, b))

    def admit(self):
        if self.policy == "static" and self.running:
            return
        while self.queue and len(self.running) < self.slots:
            b = self.queue[0]
            if self.policy == "preempt":
                n = self.blocks_for(len(self.seq(b)))
            else:
                n = self.need_total(b)
            if self.window:          # blocks for its first step now, the rest as it grows;
                first = self.blocks_for(min(len(self.seq(b)), self.rows))   # a reservation
                owed = sum(self.need_total(a) - self.held(a) for a in self.running)  # counts
                if self.policy != "preempt" and n + owed > len(self.free):   # what the
                    return                                 # admitted will still take
                n = first
            if n > len(self.free):
                return
            self.queue.pop(0)
            self.take(b, n)
            self.running.append(b)
            if b not in self.admitted:
                self.admitted.append(b)

    def preempt(self, b):
        """Preempt request b by recompute: its blocks freed, back to the queue."""
        self.running.remove(b)
        self.release(b)
        self.recomputed[b] += self.fed[b]
        self.fed[b] = 0
        self.preempted[b] += 1
        self.queue.append(b)
        self.queue.sort(key=lambda q: (self.reqs[q].arrival, q))

    # -- a step ---------------------------------------------------------------------
    def pick(self):
        """The step's [(b, first position, rows)] (decodes first, then prompt rows)."""
        dec = [b for b in self.running if self.pending(b) == 1]
        pre = [b for b in self.running if self.pending(b) > 1]
        if self.prefill == "whole" and pre:
            dec = []
        out, budget = [], self.rows
        for b in dec:
            out.append((b, self.fed[b], 1))
            budget -= 1
        for b in pre:
            if budget <= 0:
                break
            n = min(budget, self.pending(b))
            out.append((b, self.fed[b], n))
            budget -= n
        return out

    def grow(self, picks):
        """Blocks for the picked rows; under preempt, preempt the newest while short.
        The picks that still run."""
        while True:
            short = [(b, self.blocks_for(t0 + n) - len(self.tables[b])) for b, t0, n in picks]
            need = sum(max(0, k) for _, k in short)
            if need <= len(self.free):
                for b, k in short:
                    if k > 0:
                        self.take(b, k)
                return picks
            if self.policy != "preempt":       # cannot happen: every block was reserved
                self.problems.append(f"step {len(self.steps)}: a reserving run ran out of blocks")
            victim = self.running[-1]
            self.preempt(victim)
            picks = [p for p in picks if p[0] != victim]
            if not picks:
                return picks

    def step(self):
        picks = self.grow(self.pick())
        if not picks:
            return False
        rows = []
        for b, t0, n in picks:
            last = len(self.seq(b)) - 1
            rows += [C.Row(b, t, t == last) for t in range(t0, t0 + n)]
        dec = [self.pending(b) == 1 for b, _, _ in picks]
        kind = "decode" if all(dec) else "prefill" if not any(dec) else "mixed"
        self.execute(kind, rows, draft=False)
        for b, _t0, n in picks:
            self.fed[b] += n
            if self.window:
                self.retire_window(b)
        for row in rows:
            if row.write:
                self.emit(row.b, int(self.ext[self.mm.token(row.b, row.t + 1)]))
        return True

    def execute(self, kind, rows, draft=False):
        """Build, check and run one step on the reference chip; the clock advances."""
        self.problems += [f"step {len(self.steps)}: {p}" for p in self.pool_issues()]
        tables = {b: list(self.tables_of(draft)[b]) for b in {r.b for r in rows}}
        prog, allowed = self.compile(rows, tables, draft)
        sp = garbage_sp(self.garbage, len(self.steps), self.cfg) if self.garbage is not None else None
        self.problems += lmm.isolation_issues(paged.accesses(prog), allowed,
                                              f"step {len(self.steps)} (program)")
        if self.chip is not None:        # the circuit: judged by the session, then believed
            r = self.chip.run(hw.Item(prog, self.ext if not self.steps else hw.KEEP_EXT, sp))
            bus = (r.host or {}).get("bus")
            self.problems += (lmm.isolation_issues(bus, allowed, f"step {len(self.steps)} (chip bus)")
                              if bus is not None else [f"step {len(self.steps)}: no bus record"])
        else:
            if sp is not None:
                self.machine.sp[:] = sp
            r = self.machine.run(prog, self.ext)
        self.ext = self.ext_after(r.ext)
        pred = timing.schedule(prog, self.cfg).cycles
        cyc = int(r.counters.cycles)
        if cyc != pred:
            self.problems.append(f"step {len(self.steps)}: {cyc} cycles, timing model {pred}")
        self.steps.append(StepRec(kind, rows, tables, prog, cyc, pred, self.now, sp, allowed,
                                  len(self.running), self.blocks_used()))
        self.now += cyc

    def ext_after(self, ext):
        """The external memory after a step: the outcome's whole memory, or a read-back
        window's (first, words) over the memory before the step (a live session with
        window=: the judge holds every write of the chip's bus inside the window)."""
        if isinstance(ext, tuple):
            first, words = ext
            out = self.ext.copy()
            out[first:first + len(words)] = np.asarray(words, dtype=np.int64)
            return out
        return np.asarray(ext, dtype=np.int64)

    def pool_issues(self):
        """The pool's invariant: every block either free or in exactly one live request's
        table (a running one's), none in two places."""
        live = {b: [blk for blk in t if blk is not None] for b, t in self.tables.items()
                if b in self.running}
        out = _pool_issues(live, self.free, self.mm.pool.n_blocks, "pool")
        if self.window:
            out += [f"pool: request {b} holds {len(t)} blocks, more than a window's "
                    f"{self.window_blocks()}" for b, t in sorted(live.items())
                    if len(t) > self.window_blocks()]
        stale = sorted(b for b in self.tables if b not in self.running)
        if stale:
            out.append(f"pool: request(s) {stale} hold tables without a slot")
        return out

    def tables_of(self, draft):
        return self.tables

    def blocks_used(self):
        return self.mm.pool.n_blocks - len(self.free)

    def emit(self, b, tok):
        """Request b generated tok: record it; end the request at its stop or limit."""
        self.gen[b].append(tok)
        if self.first[b] is None:
            self.first[b], self.first_step[b] = self.now, len(self.steps) - 1
        q = self.reqs[b]
        if tok in self.stop or len(self.gen[b]) >= q.max_new:
            self.done[b] = True
            self.finish[b], self.finish_step[b] = self.now, len(self.steps) - 1
            self.running.remove(b)
            self.release(b)

    def run(self, max_steps=100000):
        try:
            self._loop(max_steps)
        except Stopped:
            pass
        return self.result()

    def _loop(self, max_steps):
        while not all(self.done):
            self.arrive()
            self.admit()
            if not self.running:
                if self.arrived >= len(self.order):
                    raise AssertionError("requests waiting with nothing running")
                nxt = self.reqs[self.order[self.arrived]].arrival
                self.idle += max(0, nxt - self.now)
                self.now = max(self.now, nxt)
                continue
            if not self.step():
                continue
            if len(self.steps) > max_steps:
                raise AssertionError("too many steps")

    def result(self):
        return Run(self.policy, self.prefill, self.reqs, self.image(), self.steps, self.gen,
                   [q.arrival for q in self.reqs], self.first, self.finish, self.preempted,
                   self.recomputed, self.admitted, self.now, self.idle, self.problems, self.mm,
                   self.slots, self.ext, self.first_step, self.finish_step)


def _pool_issues(tables, free, n, what):
    seen = {}
    out = []
    for b, t in sorted(tables.items()):
        for blk in t:
            if blk in seen:
                out.append(f"{what}: block {blk} in the tables of requests {seen[blk]} and {b}")
            seen[blk] = b
    for blk in free:
        if blk in seen:
            out.append(f"{what}: block {blk} free while request {seen[blk]}'s table holds it")
    if len(set(free)) != len(free):
        out.append(f"{what}: a block twice in the free list")
    if set(free) | set(seen) != set(range(n)):
        out.append(f"{what}: block(s) {sorted(set(range(n)) - set(free) - set(seen))} lost")
    return out


def serve(model, reqs, task, policy, prefill, n_blocks, **kw):
    """Serve a workload on the reference chip: a Run (see Server)."""
    return Server(model, reqs, task, policy, prefill, n_blocks, **kw).run()


def check_run(run, model, task, alone=None):
    """Findings of a Run against the requests served alone (reference_tokens) and the
    scheduler's promises: every request finished with its alone tokens, first admissions
    in arrival order, every request's token area (prompt, then its tokens) in the final
    memory. alone: precomputed reference tokens per request."""
    probs = list(run.problems)
    ctx = run.mm.ctx
    ext = run.final
    for b, q in enumerate(run.requests):
        p = rq.ids(task, q)
        want = alone[b] if alone is not None else \
            reference_tokens(model, p, q.max_new, rq.stop_token(task), ctx, run.mm.remedies)
        if run.tokens[b] != want:
            probs.append(f"request {q.id}: tokens {run.tokens[b]} != served alone {want}")
        area = [int(v) for v in ext[run.mm.token(b, 0):run.mm.token(b, 0) + len(p) + len(want)]]
        if area != p + want:
            probs.append(f"request {q.id}: its token area holds {area}, expected {p + want}")
    order = sorted(range(len(run.requests)), key=lambda b: (run.arrival[b], b))
    if run.admitted != order:
        probs.append(f"requests admitted out of arrival order: {run.admitted[:8]}...")
    return probs
