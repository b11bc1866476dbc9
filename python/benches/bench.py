"""Side by side: cctape for Python against the json.loads loops harnesses
write, and to_arrow + DuckDB against DuckDB's own read_json.

    python3 python/benches/bench.py FILE [ROUNDS] [--loops]

Each pair runs alternately in one process, ROUNDS times (default 5); the
table gives medians of wall time and of process CPU time (every thread),
and the ratio of the medians. Every pair is checked to give the same
answer before it is timed; where the answers differ by the rules (the
loop groups runs by session_id alone, DuckDB counts bad lines as rows) the
row says so and is timed anyway. `--loops`: the two json.loads pairs only.
"""

import json
import os
import statistics
import sys
import time
from collections import Counter

import duckdb

import cctape


def py_read(path):
    """The loop: json.loads each line, read type and session_id."""
    n, sessions = 0, set()
    with open(path, "rb") as f:
        for line in f:
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if not isinstance(d, dict) or not isinstance(d.get("type"), str):
                continue
            sessions.add(d.get("session_id"))
            n += 1
    return n, len(sessions)


def cc_read(path):
    n, sessions = 0, set()
    for ev in cctape.read(path):
        if ev.ok:
            _ = ev.type
            sessions.add(ev.session_id)
            n += 1
    return n, len(sessions)


def py_verdict(path):
    """The loop a harness writes for a verdict: per session, the last
    result decides (subtype, is_error), output tokens summed per message id,
    tool results that are errors counted."""
    runs = {}
    with open(path, "rb") as f:
        for line in f:
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if not isinstance(d, dict):
                continue
            r = runs.setdefault(d.get("session_id"), {"result": None, "calls": {}, "tool_errors": 0})
            t = d.get("type")
            if t == "result":
                r["result"] = d
            elif t == "assistant":
                m = d.get("message") or {}
                r["calls"][m.get("id")] = (m.get("usage") or {}).get("output_tokens", 0)
            elif t == "user":
                for b in (d.get("message") or {}).get("content") or []:
                    if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("is_error"):
                        r["tool_errors"] += 1
    out = []
    for sid, r in runs.items():
        res = r["result"]
        if res is None:
            v = "no_result"
        elif res.get("subtype") == "error_max_turns":
            v = "max_turns"
        elif res.get("subtype") == "success" and not res.get("is_error"):
            v = "success"
        else:
            v = "error"
        out.append((sid, v, (res or {}).get("total_cost_usd"), sum(r["calls"].values()), r["tool_errors"]))
    return len(out)


def cc_runs(path):
    return len(cctape.runs(path))


KIND = "CASE WHEN type IN ('system', 'result') AND subtype IS NOT NULL THEN type || '/' || subtype ELSE type END"


def duck_read_json(path):
    q = f"""SELECT {KIND} AS kind, count(*) FROM read_json('{path}', format = 'newline_delimited',
            columns = {{'type': 'VARCHAR', 'subtype': 'VARCHAR'}}, ignore_errors = true,
            maximum_object_size = 268435456) GROUP BY 1"""
    return dict(duckdb.sql(q).fetchall())


def cc_arrow_duck(path):
    t = cctape.to_arrow(path, pyarrow=False)
    return dict(duckdb.sql("SELECT kind, count(*) FROM t GROUP BY 1").fetchall())


def timed(f, path):
    w, c = time.perf_counter(), time.process_time()
    r = f(path)
    return r, time.perf_counter() - w, time.process_time() - c


def pair(name, base, ours, path, rounds):
    a, b = base(path), ours(path)
    if a != b:
        name += f" (answers differ: {a!r} / {b!r})"
    wa, ca, wb, cb = [], [], [], []
    for _ in range(rounds):
        _, w, c = timed(base, path)
        wa.append(w)
        ca.append(c)
        _, w, c = timed(ours, path)
        wb.append(w)
        cb.append(c)
    m = statistics.median
    print(
        f"| {name} | {m(wa):.2f} / {m(ca):.2f} | {m(wb):.2f} / {m(cb):.2f} | "
        f"{m(wa) / m(wb):.1f}x | {m(ca) / m(cb):.1f}x |"
    )
    sys.stdout.flush()


def main():
    path = sys.argv[1]
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rounds = int(args[1]) if len(args) > 1 else 5
    size = os.path.getsize(path)
    print(f"{path}: {size / 1e6:.0f} MB, {sum(1 for _ in open(path, 'rb'))} lines, {os.cpu_count()} cores, median of {rounds}")
    print("| question | baseline s wall / CPU | cctape s wall / CPU | ratio wall | ratio CPU |")
    print("|---|---|---|---|---|")
    pair("events: type and session_id (json.loads loop / `cctape.read`)", py_read, cc_read, path, rounds)
    pair("run verdicts (json.loads loop / `cctape.runs`)", py_verdict, cc_runs, path, rounds)
    if "--loops" not in sys.argv:
        pair("events per kind (DuckDB `read_json` / `to_arrow` + DuckDB)", duck_read_json, cc_arrow_duck, path, rounds)


if __name__ == "__main__":
    main()
