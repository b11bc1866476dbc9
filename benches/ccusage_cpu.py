"""`cctape stats --by session|day` against ccusage on one transcript tree,
one-core CPU of whole processes in turn (as benches/onecore.py times them).

    python3 benches/ccusage_cpu.py HOME [ROUNDS] [CCTAPE_BIN] [CCUSAGE_BIN]

HOME holds `.claude/projects` (`cargo run --release --example gentranscripts
-- gen HOME ...`). CCUSAGE_BIN defaults to the native binary .ci/run
installs (`npm install ccusage@20.0.24` under target/ccusage).
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onecore import arguments, cpu, rounds  # noqa: E402

CCUSAGE = "target/ccusage/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage"


def main():
    home, n_rounds, cctape, ccusage = arguments(__doc__, 9, "target/release/cctape", CCUSAGE)
    projects = os.path.join(home, ".claude", "projects")
    env = dict(os.environ, HOME=home)
    cmds = {}
    for by, report in (("session", "session"), ("day", "daily")):
        cmds[f"ccusage {report}"] = ([ccusage, report, "--offline", "--json", "-z", "UTC"], env)
        cmds[f"cctape stats --by {by}"] = (
            [cctape, "stats", projects, "--by", by, "--json", "-j1", "--timezone", "UTC"], None)
    times = rounds(cmds, n_rounds, lambda ce: cpu(*ce))
    m = {k: statistics.median(v) for k, v in times.items()}
    print(f"{projects}: one-core CPU, medians of {n_rounds} rounds")
    for k, v in m.items():
        print(f"| {k} | {v:.3f} s |")
    print(f"--by session {m['ccusage session'] / m['cctape stats --by session']:.2f}x ccusage, "
          f"--by day {m['ccusage daily'] / m['cctape stats --by day']:.2f}x")


if __name__ == "__main__":
    main()
