"""One-core CPU of whole processes side by side: `cctape stats` and
`cctape filter --count` against jq, a python json.loads loop and DuckDB,
each counting events by type/subtype (the loop is `benches/typecount.py`,
processes.sh's oracle; DuckDB also sums `total_cost_usd`,
as issue 23's gate words it) over one JSONL file.

    python3 benches/onecore.py FILE [ROUNDS] [CCTAPE_BIN]

Every process is pinned with `taskset -c 1`; its CPU is the user + system
time `wait4` reports for it. The commands run in turn, ROUNDS times
(default 9) after one warm-up round; the table gives medians and the
ratios issue 23's gates use. `duckdb (import)` is the same interpreter
importing duckdb and doing nothing: what DuckDB's row costs before it reads.
Needs jq on PATH and the `duckdb` package in this interpreter.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

JQ_COUNT = (
    'as $e ({}; .[$e.type + (if ($e.type == "system" or $e.type == "result") '
    'and ($e.subtype | type) == "string" then "/" + $e.subtype else "" end)] += 1)'
)
JQ_PROG = 'reduce (inputs | objects | select(.type | type == "string")) ' + JQ_COUNT

DUCK = r"""
import sys, duckdb
con = duckdb.connect()
con.execute("SET threads=1")
con.execute("SET enable_progress_bar=false")
path = sys.argv[1].replace("'", "''")
q = ("SELECT type, subtype, count(*), sum(total_cost_usd) FROM read_json('" + path + "', "
     "format='newline_delimited', columns={type:'VARCHAR', subtype:'VARCHAR', "
     "total_cost_usd:'DOUBLE'}) GROUP BY ALL")
print(con.execute(q).fetchall())
"""


def run(cmd, env=None, codes=(0,)):
    """Wall and CPU (user + system) seconds of `cmd` run to its end; an
    exit code outside `codes` stops the measurement."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) not in codes:
        sys.exit(f"{cmd[0]} failed ({status})")
    return wall, ru.ru_utime + ru.ru_stime


def cpu(cmd, env=None):
    """CPU seconds of `cmd` run on core 1."""
    return run(["taskset", "-c", "1"] + cmd, env)[1]


def rounds(cmds, n, measure):
    """Each of `cmds` (name -> what `measure` takes) measured once to warm
    up, then `n` rounds taking them in turn: name -> the `n` measures."""
    for c in cmds.values():
        measure(c)
    seen = {k: [] for k in cmds}
    for _ in range(n):
        for k, c in cmds.items():
            seen[k].append(measure(c))
    return seen


def arguments(doc, *defaults):
    """INPUT [ROUNDS] [CCTAPE_BIN] [more...]: the first is required (else
    the usage, `doc`), ROUNDS an int (default 9), the rest as given or
    their defaults."""
    argv = sys.argv[1:]
    if not argv:
        sys.exit(doc)
    rest = list(defaults)
    rest[:len(argv) - 1] = argv[1:len(defaults) + 1]
    return [argv[0], int(rest[0])] + rest[1:]


def main():
    path, n_rounds, cctape = arguments(__doc__, 9, "target/release/cctape")
    py = sys.executable
    here = os.path.dirname(os.path.abspath(__file__))
    listed = tempfile.NamedTemporaryFile("w", suffix=".list", delete=False)
    listed.write(path + "\n")
    listed.close()
    cmds = {
        "cctape stats -j1": [cctape, "stats", "-j1", path],
        "cctape filter --count -j1": [cctape, "filter", "--count", "--type", "result", "-j1", path],
        "jq reduce by type/subtype": ["jq", "-n", JQ_PROG, path],
        "python json.loads loop": [py, os.path.join(here, "typecount.py"), listed.name],
        "duckdb read_json (1 thread)": [py, "-c", DUCK, path],
        "duckdb (import)": [py, "-c", "import duckdb"],
    }
    times = rounds(cmds, n_rounds, cpu)
    os.unlink(listed.name)
    m = {k: statistics.median(v) for k, v in times.items()}
    stats = m["cctape stats -j1"]
    print(f"{path}: one-core CPU, medians of {n_rounds} rounds")
    print("| command | s CPU | x stats |")
    print("|---|--:|--:|")
    for k, v in m.items():
        print(f"| {k} | {v:.3f} | {v / stats:.2f} |")
    print(f"stats: {m['jq reduce by type/subtype'] / stats:.2f}x jq, "
          f"{m['python json.loads loop'] / stats:.2f}x python, "
          f"{stats / m['duckdb read_json (1 thread)']:.3f} of DuckDB's CPU, "
          f"{m['cctape filter --count -j1'] / stats:.2f} of classification's speed")


if __name__ == "__main__":
    main()
