"""Requests for the language model on the chip: prompts, generation limits, stop tokens,
workload files and a seeded Poisson arrival process (docs/serving_lm.md, "Serving the
language model").

A request is an id, a prompt (text for the "text" model; "A+B" for the "add" model), a
generation limit max_new and an arrival time in chip cycles. It ends at its task's stop
token or at its limit, so its length is discovered while serving: the text model is a
word-completion service: it stops at the end of a word, a sentence or a line (a space,
a ".", a newline: the stop token is generated and returned; the greedy text model
rarely writes "." or a newline within 20 characters, so the space is what usually ends
a request), the addition model after the three digits of its answer (its "stop" is the
end of the answer: limit 3).

Workloads are JSON (a list of objects with id, prompt, max_new, arrival) or CSV (a
header with those columns); poisson() draws one: arrivals with exponential gaps at a
rate in requests per million cycles, prompts cut from the held-out text (or random
addition problems), limits uniform in a range, all from one seeded numpy Generator.
"""
import csv
import io
import json
from collections import namedtuple
from pathlib import Path

import numpy as np

from tools.lm import data, generate

LMRequest = namedtuple("LMRequest", "id prompt max_new arrival")
LMRequest.__doc__ = """One request: id (a non-empty string), prompt (its text), max_new (the
generation limit, >= 1), arrival (chip cycle at which it reaches the server, >= 0)."""

STOP = {"text": tuple(int(t) for t in data.encode(" .\n")), "add": ()}   # per task
ANSWER = 3                          # the addition model's answer: three digits, reversed
FIELDS = ("id", "prompt", "max_new", "arrival")


def stop_token(task):
    """The ids that end a request of task (a tuple; empty: only the limit ends it)."""
    return STOP[task]


def ids(task, req):
    """The prompt's token ids (tools.lm.generate.encode_prompt: ValueError if not valid);
    task may also be another model's encoder, a function of the text (tools/smollm2/serve.py)."""
    if callable(task):
        return task(req.prompt)
    return generate.encode_prompt(task, req.prompt)


def check(reqs, task, ctx):
    """The LMRequests of a list of dicts/LMRequests, or ValueError naming the first bad
    one: id non-empty and unique, prompt valid for the task, max_new >= 1 with the prompt
    and its tokens within ctx, arrival >= 0 (integers: cycles)."""
    if not isinstance(reqs, (list, tuple)) or not reqs:
        raise ValueError("workload: expected a non-empty list of requests")
    out, seen = [], set()
    for i, r in enumerate(reqs):
        if isinstance(r, LMRequest):
            r = r._asdict()
        where = f"request #{i + 1}"
        if not isinstance(r, dict):
            raise ValueError(f"{where}: expected an object with {', '.join(FIELDS)}, got {r!r}")
        extra = set(r) - set(FIELDS)
        if extra:
            raise ValueError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
        rid = r.get("id")
        if not isinstance(rid, str) or not rid.strip():
            raise ValueError(f"{where}: id must be a non-empty string, got {rid!r}")
        where = f"request {rid!r}"
        if rid in seen:
            raise ValueError(f"{where}: duplicate id")
        seen.add(rid)
        prompt = r.get("prompt")
        if not isinstance(prompt, str) or not prompt:
            raise ValueError(f"{where}: prompt must be a non-empty string, got {prompt!r}")
        vals = {}
        for f, lo in (("max_new", 1), ("arrival", 0)):
            v = r.get(f, 0 if f == "arrival" else None)
            if isinstance(v, str):
                try:
                    v = int(v.strip())
                except ValueError:
                    pass
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
                raise ValueError(f"{where}: {f} must be an integer >= {lo}, got {v!r}")
            vals[f] = int(v)
        q = LMRequest(rid, prompt, vals["max_new"], vals["arrival"])
        try:
            n = len(ids(task, q))
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        if task == "add" and q.max_new != ANSWER:
            raise ValueError(f"{where}: an addition request generates its {ANSWER} answer digits "
                             f"(max_new {ANSWER}), got {q.max_new}")
        if n + q.max_new > ctx:
            raise ValueError(f"{where}: {n} prompt tokens + {q.max_new} new ones exceed the "
                             f"serving context {ctx}")
        out.append(q)
    return out


def parse(text, fmt, task, ctx):
    """The LMRequests of a workload text in fmt ("json" or "csv")."""
    if fmt == "json":
        try:
            reqs = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"workload: not JSON ({e.msg} at line {e.lineno})") from None
    elif fmt == "csv":
        try:
            rows = list(csv.DictReader(io.StringIO(text)))
        except csv.Error as e:
            raise ValueError(f"workload: not CSV ({e})") from None
        for n, r in enumerate(rows, 2):
            if None in r:            # DictReader's key for the values past the header's columns
                raise ValueError(f"workload: line {n} has more values than the header has columns")
        if rows and set(rows[0]) - set(FIELDS):
            raise ValueError(f"workload: unknown CSV column(s) "
                             f"{', '.join(sorted(set(rows[0]) - set(FIELDS)))}")
        reqs = [{k: v for k, v in r.items() if v is not None} for r in rows]
    else:
        raise ValueError(f"workload: unknown format {fmt!r} (json or csv)")
    return check(reqs, task, ctx)


def load(path, task, ctx):
    """The LMRequests of a .json or .csv file; ValueError naming the file."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{path}: no such workload file")
    fmt = p.suffix.lower().lstrip(".")
    try:
        return parse(p.read_text(), fmt, task, ctx)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


def dump(reqs, path):
    """Write LMRequests as a JSON workload file."""
    Path(path).write_text(json.dumps([r._asdict() for r in reqs], indent=1) + "\n")


def poisson(n, rate, seed=1, task="text", prompt_len=(4, 12), max_new=(4, 16), ctx=32):
    """n requests arriving as a Poisson process of rate requests per million cycles
    (exponential gaps, the first at its gap from 0), from default_rng(seed): text
    prompts cut from the held-out text at random offsets (prompt_len characters, uniform,
    newlines and all), limits uniform in max_new; addition prompts random A+B."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"requests must be a positive integer, got {n!r}")
    if not (isinstance(rate, (int, float)) and rate > 0):
        raise ValueError(f"rate must be > 0 requests per million cycles, got {rate!r}")
    rng = np.random.default_rng(seed)
    t = np.cumsum(rng.exponential(1e6 / rate, size=n)).astype(np.int64)
    held = data.decode(data.text_split()[1]) if task == "text" else None
    out = []
    for i in range(n):
        if task == "text":
            k = int(rng.integers(prompt_len[0], prompt_len[1] + 1))
            at = int(rng.integers(0, len(held) - k))
            prompt, lim = held[at:at + k], int(rng.integers(max_new[0], max_new[1] + 1))
        else:
            a, b = (int(v) for v in rng.integers(0, 100, size=2))
            prompt, lim = f"{a}+{b}", ANSWER
        out.append(LMRequest(f"r{i:03d}", prompt, lim, int(t[i])))
    return check(out, task, ctx)
