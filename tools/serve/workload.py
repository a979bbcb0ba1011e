"""Serving on GA-2: requests and workload files (docs/serving.md).

A request has an id, a number of tokens to generate (its prompt is that many hidden rows,
test data as in chapter 9: tools/serve/oracle.py) and an arrival step; a workload is a list
of requests (JSON or CSV). Every request and file is checked here, with a ValueError that
names the request and the field. Example B's workload (tools/serve/workloads/example_b.json)
is the one statement of it, read by the chapter's example B and by `make serve`.
"""
import csv
import io
import json
from collections import namedtuple
from pathlib import Path

from tb import cli
from tools.serve import paged

Request = namedtuple("Request", "id tokens arrival")
Request.__doc__ = "One request: id (a non-empty string), tokens to generate (1..64), arrival step (>= 0)."


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
        detail = msg[len("workload: "):] if msg.startswith("workload: ") else msg
        raise ValueError(f"workload {path}: {detail}") from None
    return (path.stem if name == "workload" else name), reqs



WORKLOADS = Path(__file__).resolve().parent / "workloads"
# chapter 9's example B (14, 3, 9, 5, 12, 2, 7, 10 tokens, all at step 0): stated once, in
# its file, read here by make serve and by the chapter's example (tools/ch09/example_b.py)
EXAMPLE_B_FILE = WORKLOADS / "example_b.json"
EXAMPLE_B = load_workload(EXAMPLE_B_FILE)[1]
