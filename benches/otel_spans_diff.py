"""Compare two `cctape otel --out` folders span by span, ids aside.

    python3 benches/otel_spans_diff.py OLD_DIR NEW_DIR [--show N]

Each span is reduced to its path of names up to the root, its times, its
attributes and its status; the two folders' spans are compared as
multisets of those. Prints the span counts, how many span ids both hold,
how many reduced spans only one side has (by kind), and the attribute keys
one side has more of; `--show N` prints N reduced spans of each side's
difference. Says whether an output change is one of ids only.
"""

import collections
import json
import sys


def load(folder):
    spans = []
    with open(folder + "/traces.jsonl", encoding="utf-8") as f:
        for line in f:
            for rs in json.loads(line)["resourceSpans"]:
                for ss in rs["scopeSpans"]:
                    spans.extend(ss["spans"])
    return spans


def reduced(spans):
    by_id = {s["spanId"]: s for s in spans}

    def path(s):
        names = []
        while s:
            names.append(s["name"])
            s = by_id.get(s.get("parentSpanId", ""))
        return "<".join(names)

    out = collections.Counter()
    for s in spans:
        attrs = tuple(
            sorted((a["key"], json.dumps(a["value"], sort_keys=True)) for a in s.get("attributes", []))
        )
        status = json.dumps(s.get("status"), sort_keys=True)
        out[(path(s), s["startTimeUnixNano"], s["endTimeUnixNano"], attrs, status, s["traceId"])] += 1
    return out


def main():
    args = sys.argv[1:]
    show = 0
    if "--show" in args:
        i = args.index("--show")
        show = int(args[i + 1])
        del args[i : i + 2]
    old, new = load(args[0]), load(args[1])
    print("spans", len(old), len(new))
    print("span ids both hold", len({s["spanId"] for s in old} & {s["spanId"] for s in new}))
    a, b = reduced(old), reduced(new)
    only_old, only_new = a - b, b - a
    kind = lambda k: k[0].split("<")[0].split(" ")[0]
    print("only old", sum(only_old.values()), dict(collections.Counter(kind(k) for k in only_old.elements())))
    print("only new", sum(only_new.values()), dict(collections.Counter(kind(k) for k in only_new.elements())))
    keys_old, keys_new = collections.Counter(), collections.Counter()
    for k in only_old.elements():
        keys_old.update(x[0] for x in k[3])
    for k in only_new.elements():
        keys_new.update(x[0] for x in k[3])
    print("attribute keys old has more of", dict(keys_old - keys_new))
    print("attribute keys new has more of", dict(keys_new - keys_old))
    for k in list(only_old)[:show]:
        print("OLD", k)
    for k in list(only_new)[:show]:
        print("NEW", k)


if __name__ == "__main__":
    main()
