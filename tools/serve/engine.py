"""Serving on GA-2, part 2: the schedulers, the block pool and the check (docs/serving.md).

The Scheduler admits requests (tools/serve/workload.py) into batch slots (policy "static"
or "continuous", a capacity of 1..8 slots), owns the block pool of the paged KV cache
(tools/serve/paged.py) and, tick by tick, says which requests run at which token with
which block table (plan()). Every step program follows from that state alone, so a whole
run's programs are built ahead, run on the reference and checked against each request
alone (tools/serve/oracle.py), then run on the chip in ONE simulator process
(tools/serve/run.py), the external memory carried from step to step and the scratchpad
garbage at every step's start on both sides.

`python -m tools.serve.engine --check [--quick]` runs check_serving on the reference Machine
(the model-side bus monitor: each program's LD/ST ranges) and prints a PROBLEM line per
finding (the mutation harness, tools/serve/mutants.py, runs it).
"""
import heapq
import sys
from collections import namedtuple

from tb import cli
from tools.serve import paged
from tools.serve.oracle import CFG, model_data, reference_run
from tools.serve.paged import blocks_needed
from tools.serve.workload import EXAMPLE_B, Request, check_request

POLICIES = ("static", "continuous")

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


# ---------------------------------------------------------------- the scheduler
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
    return cli.check_command(argv, "tools.serve.engine", "serving", check_serving, "the staggered workload only")


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
