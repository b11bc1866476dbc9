"""The python json.loads loop the whole-process comparisons time, and
their oracle: events (JSON objects with a string `type`) by type/subtype,
as `cctape stats` names them, over every file listed in LIST (one path a
line).

    python3 benches/typecount.py LIST
"""

import json
import sys

counts = {}
for path in open(sys.argv[1]).read().splitlines():
    with open(path, "rb") as f:
        for line in f:
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if not isinstance(d, dict):
                continue
            t = d.get("type")
            if not isinstance(t, str):
                continue
            st = d.get("subtype")
            k = t + "/" + st if isinstance(st, str) and t in ("system", "result") else t
            counts[k] = counts.get(k, 0) + 1
print(json.dumps(counts, sort_keys=True))
