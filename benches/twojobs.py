"""Two jobs on one file against one (issue 23's gate: 1.7x): `cctape stats
-q` with `-j1` pinned to core 1 and `-j2` to cores 0 and 1, in turn,
medians of wall time (and each one's CPU). Several binaries, comma
separated, are measured side by side in the same rounds (a build before
and after a change: the machine's speed moves between runs, not within
one).

    python3 benches/twojobs.py FILE [ROUNDS] [CCTAPE_BIN[,CCTAPE_BIN...]] [COMMAND]

COMMAND is the cctape command and its options, as one argument (default
`stats -q`; `"filter --count -q"` measures validated classification).
`verdict`'s exit code 1 (some run did not succeed) is its answer, not a
failure.
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onecore import arguments, rounds, run  # noqa: E402


def main():
    path, n_rounds, bins, command = arguments(__doc__, 11, "target/release/cctape", "stats -q")
    bins = bins.split(",")
    words = command.split()
    cmds = {}
    for b in bins:
        cmds[(b, 1)] = ["taskset", "-c", "1", b, *words, "-j1", path]
        cmds[(b, 2)] = ["taskset", "-c", "0,1", b, *words, "-j2", path]
    codes = (0, 1) if words[0] == "verdict" else (0,)
    seen = rounds(cmds, n_rounds, lambda c: run(c, codes=codes))
    wall = {k: statistics.median(w for w, _ in v) for k, v in seen.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in seen.items()}
    for b in bins:
        one, two = (b, 1), (b, 2)
        name = f"{b}: " if len(bins) > 1 else ""
        print(f"{path}: {name}1 job {wall[one]:.3f} s ({cpu[one]:.3f} s CPU), 2 jobs "
              f"{wall[two]:.3f} s ({cpu[two]:.3f} s CPU): {wall[one] / wall[two]:.2f}x")


if __name__ == "__main__":
    main()
