"""An event's fields read through the index kept with its batch against
the same fields of the same events made from their bytes (which scan the
line again, as every field did before issue 23 item 7).

    taskset -c 1 python3 python/benches/fields.py FILE [ROUNDS]

Reads `uuid`, `model`, `usage` and `get("message.content.0.type")` of
every event, both sets alternately, ROUNDS times (default 7) after a
warm-up; prints the median process CPU time of each and checks that both
give the same answers.
"""

import resource
import statistics
import sys

import cctape


def fields(events):
    n = 0
    for e in events:
        n += (e.uuid is not None) + (e.model is not None) + (e.usage is not None)
        n += e.get("message.content.0.type") is not None
    return n


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main():
    path = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    kept = [e for e in cctape.read(path) if e.ok]
    made = [cctape.Event(e.raw, file=e.file, line=e.line, offset=e.offset) for e in kept]
    assert fields(kept) == fields(made)
    times = {"kept index": [], "scanned again": []}
    for r in range(rounds + 1):
        for name, events in (("kept index", kept), ("scanned again", made)):
            t = cpu()
            fields(events)
            if r:
                times[name].append(cpu() - t)
    for name, v in times.items():
        per = statistics.median(v) / len(kept) / 4 * 1e6
        print(f"{name}: {statistics.median(v) * 1e3:.1f} ms for {len(kept)} events, {per:.2f} us a field")


if __name__ == "__main__":
    main()
