"""Map cctape over the partitions of an archive on Dask, combine the
per-run results, and print the figures `cctape stats --json` gives for the
same files.

Each partition holds whole top-level entries of the archive (a stream's
run never spans files; a session transcript's files, its subagents' among
them, sit in one project folder, so a session never spans partitions) and
is read by one Dask task with `cctape.verdict` (one record per run or
session, exactly the command's) and `cctape.stats` (events by kind); the
client combines the partitions' results. Costs are summed exactly (`math.fsum`, as the command
sums them), so the total does not depend on how the archive is cut.

    python examples/dask_stats.py ARCHIVE_DIR [--partitions N] [--scheduler ADDRESS]

Without --scheduler it starts a LocalCluster (two worker processes).
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections import Counter
from typing import Any, Dict, List, Optional

import cctape

#: Verdicts in the command's order (the library's: every verdict is a key
#: of the report, even over no input).
VERDICTS = list(cctape.stats([])["verdicts"])
TOKENS = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"]


def partition(files: List[str], fmt: str = "auto") -> Dict[str, Any]:
    """What one partition contributes: its runs' figures and its events by
    kind, as plain values (cheap to send back to the client)."""
    records = cctape.verdict(files, format=fmt, jobs=1)
    # Unreadable inputs (`verdict` null) are not runs; an input without
    # events (`no_events`) is one run of its own, as in every command, and
    # transcript sessions are runs.
    runs = [r for r in records if r["verdict"] is not None]
    counts = cctape.stats(files, format=fmt, jobs=1)
    main, subagents, tools = Counter(), Counter(), Counter()
    for r in runs:
        main.update({k: r["usage"]["main"][k] for k in TOKENS})
        subagents.update({k: r["usage"]["subagents"][k] for k in TOKENS})
        tools.update({name: t["calls"] for name, t in r["tools"].items()})
    return {
        "files": len(files),
        "verdicts": Counter(r["verdict"] for r in runs),
        "costs": [r["total_cost_usd"] for r in runs if isinstance(r["total_cost_usd"], float)],
        "main": main,
        "subagents": subagents,
        "tools": tools,
        "events": counts["events"],
        # Stream events by kind (transcript records are counted apart).
        "by_type": Counter(counts["by_type"]),
    }


def combine(parts: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The partitions' results as the command's figures (the keys of
    `cctape stats --json` they correspond to)."""
    total: Dict[str, Any] = {k: Counter() for k in ("verdicts", "main", "subagents", "tools", "by_type")}
    costs: List[float] = []
    files = events = 0
    for p in parts:
        files += p["files"]
        events += p["events"]
        costs.extend(p["costs"])
        for k in total:
            total[k].update(p[k])
    return {
        "files": files,
        "events": events,
        "by_type": dict(sorted(total["by_type"].items())),
        "runs": sum(total["verdicts"].values()),
        "verdicts": {v: total["verdicts"].get(v, 0) for v in VERDICTS},
        "total_cost_usd": math.fsum(costs),
        "usage": {a: {k: total[a].get(k, 0) for k in TOKENS} for a in ("main", "subagents")},
        "tool_calls": dict(sorted(total["tools"].items())),
    }


def run(root: str, partitions: int = 4, scheduler: Optional[str] = None, fmt: str = "auto") -> Dict[str, Any]:
    """Read `root` (a directory, walked as `cctape` walks it) on Dask."""
    import dask.bag as db
    from dask.distributed import Client, LocalCluster

    # Whole top-level entries per partition (see the module's doc).
    units: Dict[str, List[str]] = {}
    for f in cctape.walk(root):
        top = os.path.relpath(f, root).split(os.sep)[0]
        units.setdefault(top, []).append(f)
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
        scheduler = cluster.scheduler_address
    try:
        with Client(scheduler) as client:
            groups = list(units.values())
            bag = db.from_sequence(groups, npartitions=max(1, min(partitions, len(groups))))
            parts = client.compute(
                bag.map_partitions(lambda us: [partition([f for u in us for f in u], fmt)])
            ).result()
    finally:
        if cluster is not None:
            cluster.close()
    return combine(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description="cctape over an archive's partitions on Dask")
    ap.add_argument("root")
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--scheduler", help="a Dask scheduler's address (default: a LocalCluster)")
    ap.add_argument("--format", default="auto", help="auto, stream, json or transcript")
    a = ap.parse_args()
    print(json.dumps(run(a.root, a.partitions, a.scheduler, a.format), indent=2))


if __name__ == "__main__":
    main()
