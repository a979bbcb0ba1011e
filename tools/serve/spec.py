"""Speculative decoding on the chip: a small draft model proposes k tokens, the main model
verifies them in ONE step of k + 1 rows per request (docs/serving_lm.md, "Speculative
decoding").

The draft (tools/lm/weights/text_draft_int8.npz: `python -m tools.lm.train --task text
--size draft`, one layer, one head, d 16) and the main model share the requests' token
areas; each has its own weights and KV pool in external memory (lm_memory.MemoryMap).
A batch of B requests, all admitted at once, every block reserved, each generating its
limit (no stop token: the measure is the decoding speed). Per request:
  - prefill: both models feed the prompt's rows 0..P-2 (no output), in steps of up to
    `rows` rows;
  - a round, with L committed tokens (prompt + generated) and k' = min(k, tokens left -
    1) drafts: k' draft steps (the first feeds the draft's stale rows up to L - 1, each
    writes one proposal to the token area at L, L + 1, ...), then one verify step of the
    main model: rows L-1 .. L-1+k', every one with the output head, each writing the main
    model's own next token over the proposal at its t + 1;
  - the host compares (greedy acceptance): a = the proposals equal to the main model's
    tokens before the first that differs; the committed tokens are the main model's
    a + 1 tokens at L .. L+a (cut at the stop token and at the limit), so the output is
    the main model's greedy decoding, whatever the draft proposes. The main model's
    cache is valid through L + a - 1 (+ 1 row fed), the draft's through min(its last
    row, L + a - 1): the next round starts there.
The draft's steps run on the chip too and count in every figure.

The main model takes every remedy (SpecServer(..., remedies=Remedies(...)) with its model
variant: the compiler's tiled plan, a 4-bit cache, tiles, a window with sinks); the draft
stays the unmodified draft model (it only proposes: the output is the main model's greedy
decoding whatever it proposes). With a window the main model's tables grow as the rows go
(every step's blocks taken before it) and return each block whose positions left the
window of every future step once the round's committed rows are known.
"""
from pathlib import Path

from tools.lm.compiler import Row
from tools.lm.generate import WEIGHTS, load_model
from tools.serve import lm_engine as E
from tools.serve import lm_memory as lmm
from tools.serve.lm_engine import _pool_issues

DRAFT = Path(WEIGHTS) / "text_draft_int8.npz"
SPEC_CTX = 16             # a verify step at B = 4, k = 4 is 20 rows: their buffers fit at 16
SPEC_ROWS = 20


def load_draft(path=DRAFT):
    return load_model(path=path)


class SpecServer(E.Server):
    """A batch of requests decoded speculatively with k drafts per round (k = 0: plain
    greedy decoding with the same prefill, the baseline)."""

    def __init__(self, model, draft, reqs, k, n_blocks=None, rows=SPEC_ROWS, ctx=SPEC_CTX, **kw):
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= 4:
            raise ValueError(f"k must be 0..4 drafted tokens, got {k!r}")
        self.draft_model, self.k = draft, k
        reqs = [q._replace(arrival=0) for q in reqs]     # a batch: everyone at once
        n = n_blocks or len(reqs) * -(-ctx // lmm.BLOCK_TOKENS)
        super().__init__(model, reqs, "text", "static", "whole", n, slots=min(len(reqs), rows),
                         rows=rows, ctx=ctx, draft=draft, **kw)
        self.stop = ()          # every request generates its limit: decoding speed, not lengths
        if len(reqs) * (k + 1) > rows:
            raise ValueError(f"{len(reqs)} requests x {k + 1} rows exceed the {rows} rows of a step")
        self.dfree = list(range(self.mm.dpool.n_blocks))
        self.dtables = {}
        self.dfed = [0] * len(self.reqs)
        self.proposed = self.accepted = 0

    def image(self):
        ext = super().image()
        if getattr(self, "draft_model", None) is not None:
            d = self.mm.dlay
            ext[d.w["wte"]:d.weight_words] = d.image(self.draft_model, [])[d.w["wte"]:d.weight_words]
        return ext

    def tables_of(self, draft):
        return self.dtables if draft else self.tables

    def rows_of(self, spans):
        """compiler.Rows of [(b, first, last, writes)] spans; writes: "none", "last" (the last
        row writes the next token: a draft step) or "all" (a verify step)."""
        return [Row(b, t, w == "all" or (w == "last" and t == t1))
                for b, t0, t1, w in spans for t in range(t0, t1 + 1)]

    def chunked(self, spans, draft, kind):
        """Run spans [(b, first, last, write_last)] in steps of at most `rows` rows."""
        rows = self.rows_of(spans)
        for i in range(0, len(rows), self.rows):
            self.execute(kind, rows[i:i + self.rows], draft)

    def execute(self, kind, rows, draft=False):
        """A step; with a window, the main model's blocks for its rows taken first."""
        if self.window and not draft:
            for b in {row.b for row in rows}:
                top = max(row.t for row in rows if row.b == b)
                self.take(b, max(0, self.blocks_for(top + 1) - len(self.tables[b])))
        super().execute(kind, rows, draft)

    def run(self, max_steps=100000):
        self.arrive()
        self.admit()                       # static: everyone, every main block reserved
        for b in self.running:
            whole = self.blocks_for(len(self.prompt[b]) + self.reqs[b].max_new - 1)
            self.dtables[b] = [self.dfree.pop(0) for _ in range(whole)]     # no window
        pre = [(b, 0, len(self.prompt[b]) - 2, "none") for b in self.running if len(self.prompt[b]) > 1]
        if pre:
            self.chunked(pre, False, "prefill")
            if self.k:
                self.chunked(pre, True, "draft prefill")
        for b in self.running:
            self.fed[b] = self.dfed[b] = len(self.prompt[b]) - 1
            if self.window:
                self.retire_window(b)
        while self.running:
            L = {b: len(self.seq(b)) for b in self.running}
            kk = {b: min(self.k, self.reqs[b].max_new - len(self.gen[b]) - 1) for b in self.running}
            for j in range(max(kk.values())):
                spans = [(b, self.dfed[b], L[b] - 1 + j, "last") for b in self.running if j < kk[b]]
                self.execute("draft", self.rows_of(spans), True)
                for b, _t0, t1, _ in spans:
                    self.dfed[b] = t1 + 1
            props = {b: [int(self.ext[self.mm.token(b, L[b] + j)]) for j in range(kk[b])]
                     for b in self.running}
            self.execute("verify" if self.k else "decode",
                         self.rows_of([(b, self.fed[b], L[b] - 1 + kk[b], "all") for b in self.running]))
            for b in list(self.running):
                ys = [int(self.ext[self.mm.token(b, L[b] + j)]) for j in range(kk[b] + 1)]
                a = 0
                while a < kk[b] and props[b][a] == ys[a]:
                    a += 1
                self.proposed += kk[b]
                self.accepted += a
                self.fed[b] = L[b] + a
                self.dfed[b] = min(self.dfed[b], L[b] + a)
                if self.window:
                    self.retire_window(b)
                for y in props[b][:a] + ys[a:a + 1]:     # = ys[:a + 1] when verified
                    self.emit(b, y)
                    if self.done[b]:
                        break
            if len(self.steps) > max_steps:
                raise AssertionError("too many steps")
        return self.result()

    def release(self, b):
        super().release(b)
        self.dfree.extend(self.dtables.pop(b, []))

    def pool_issues(self):
        return super().pool_issues() + _pool_issues(self.dtables, self.dfree, self.mm.dpool.n_blocks, "draft pool")


def spec_serve(model, draft, reqs, k, **kw):
    """(Run, proposed, accepted) of a batch decoded with k drafts per round."""
    s = SpecServer(model, draft, reqs, k, **kw)
    run = s.run()
    return run, s.proposed, s.accepted
