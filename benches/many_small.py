#!/usr/bin/env python3
"""Write N small stream-json files (167 bytes each: an init and a result,
one run each, on one day) into a folder, for measuring what `cctape stats`
keeps per input (bench.d/stats22.md).

    python3 benches/many_small.py /tmp/many-small 100000
"""
import os
import sys


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        h, m, s = (i // 3600) % 24, (i // 60) % 60, i % 60
        init = (
            '{"type":"system","subtype":"init","session_id":"s%06d",'
            '"timestamp":"2025-06-01T%02d:%02d:%02dZ"}\n' % (i, h, m, s)
        )
        result = (
            '{"type":"result","subtype":"success","is_error":false,'
            '"total_cost_usd":1}\n'
        )
        body = (init + result).encode()
        assert len(body) == 167, len(body)
        # 1,000 files a folder, as a projects tree holds them.
        d = os.path.join(out, "p%03d" % (i // 1000))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "run-%06d.jsonl" % i), "wb") as f:
            f.write(body)


if __name__ == "__main__":
    main()
