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

The machine's own ceiling is measured in the same rounds: two one-job
processes of the first binary started at once, one on core 0 and one on
core 1. Two cores give two jobs 2x only if each of those runs as fast as
one alone; where they share a physical core or its memory bandwidth
(virtual CPUs), each is slower, and `2 * one alone / the pair` is what any
two-job design could give at most on this machine. The last line gives it,
and each binary's two jobs as a share of it.
"""

import os
import statistics
import subprocess
import sys
import time

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
    pair = [["taskset", "-c", str(core), bins[0], *words, "-j1", path] for core in (0, 1)]
    cmds["pair"] = pair

    def measure(c):
        return both(c, codes) if c is pair else run(c, codes=codes)

    seen = rounds(cmds, n_rounds, measure)
    wall = {k: statistics.median(w for w, _ in v) for k, v in seen.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in seen.items()}
    for b in bins:
        one, two = (b, 1), (b, 2)
        name = f"{b}: " if len(bins) > 1 else ""
        print(f"{path}: {name}1 job {wall[one]:.3f} s ({cpu[one]:.3f} s CPU), 2 jobs "
              f"{wall[two]:.3f} s ({cpu[two]:.3f} s CPU): {wall[one] / wall[two]:.2f}x")
    ceiling = 2 * wall[(bins[0], 1)] / wall["pair"]
    shares = ", ".join(f"{wall[(b, 1)] / wall[(b, 2)] / ceiling:.0%}" for b in bins)
    print(f"{path}: two 1-job processes at once {wall['pair']:.3f} s ({cpu['pair']:.3f} s CPU "
          f"each): the machine's ceiling {ceiling:.2f}x; 2 jobs reach {shares} of it")


def both(cmds, codes):
    """Two processes started together: the wall time until both ended, and
    the mean of their CPU times."""
    t = time.perf_counter()
    procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for c in cmds]
    cpu = 0.0
    for p in procs:
        _, status, ru = os.wait4(p.pid, 0)
        if os.waitstatus_to_exitcode(status) not in codes:
            sys.exit(f"{p.args} failed ({status})")
        cpu += ru.ru_utime + ru.ru_stime
    return time.perf_counter() - t, cpu / len(procs)


if __name__ == "__main__":
    main()
