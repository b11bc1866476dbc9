"""Two jobs on one file against one (issue 23's gate: 1.7x): `cctape stats
-q` with `-j1` pinned to core 1 and `-j2` to cores 0 and 1, in turn,
medians of wall time (and each one's CPU).

    python3 benches/twojobs.py FILE [ROUNDS] [CCTAPE_BIN]
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onecore import arguments, rounds, run  # noqa: E402


def main():
    path, n_rounds, cctape = arguments(__doc__, 11, "target/release/cctape")
    cmds = {
        1: ["taskset", "-c", "1", cctape, "stats", "-q", "-j1", path],
        2: ["taskset", "-c", "0,1", cctape, "stats", "-q", "-j2", path],
    }
    seen = rounds(cmds, n_rounds, run)
    wall = {k: statistics.median(w for w, _ in v) for k, v in seen.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in seen.items()}
    print(f"{path}: 1 job {wall[1]:.3f} s ({cpu[1]:.3f} s CPU), 2 jobs {wall[2]:.3f} s "
          f"({cpu[2]:.3f} s CPU): {wall[1] / wall[2]:.2f}x")


if __name__ == "__main__":
    main()
