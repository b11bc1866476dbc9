#!/usr/bin/env python3
"""Latency from a writer's flush to the reader's line, through cctape.

A writer appends stream-json lines at a steady rate (default 1,000 lines a
second), each carrying the CLOCK_MONOTONIC time it was flushed at; cctape
reads them live and prints them; this script reads cctape's stdout and takes
the time each line arrives. The latency of a line is arrival minus flush,
in one clock shared by both processes. It prints p50, p99 and the maximum
for each way of reading:

  pipe      writer | cctape filter --type assistant
  tail      tail -F FILE | cctape filter --type assistant
  filter-F  cctape filter -F FILE --type assistant
  watch-F   cctape watch -q -F FILE (every byte passed through)

Usage: benches/live_latency.py [--cctape PATH] [--rate N] [--seconds S]
       [--only NAME]...
The figures go in bench.d (measure target/profiling/cctape: cargo build
--profile profiling).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time


def line(n: int) -> bytes:
    # The time goes in last, written just before the flush.
    return (
        '{"type":"assistant","message":{"id":"m%d","content":[{"type":"text","text":"x"}]},'
        '"session_id":"s","n":%d,"t":%d}\n' % (n, n, time.monotonic_ns())
    ).encode()


def write(sink, rate: int, count: int, flush) -> None:
    start = time.monotonic()
    for n in range(count):
        due = start + n / rate
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        sink.write(line(n))
        flush()


def read(stdout, count: int, lat: list) -> None:
    for raw in stdout:
        now = time.monotonic_ns()
        i = raw.rfind(b'"t":')
        if i < 0:
            continue
        t = int(raw[i + 4 :].rstrip(b"}\r\n"))
        lat.append((now - t) / 1e6)
        if len(lat) >= count:
            return


def run(name: str, exe: str, rate: int, count: int, tmp: str) -> list:
    path = os.path.join(tmp, name + ".jsonl")
    open(path, "wb").close()
    lat: list = []
    tail = None
    if name == "pipe":
        p = subprocess.Popen(
            [exe, "filter", "--type", "assistant"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        sink = p.stdin
        flush = sink.flush
    else:
        if name == "tail":
            tail = subprocess.Popen(
                ["tail", "-F", "-n", "+1", path], stdout=subprocess.PIPE
            )
            cmd = [exe, "filter", "--type", "assistant"]
            p = subprocess.Popen(cmd, stdin=tail.stdout, stdout=subprocess.PIPE)
        elif name == "filter-F":
            cmd = [exe, "filter", "-F", path, "--type", "assistant"]
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE)
        else:
            cmd = [exe, "watch", "-q", "-F", path]
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        sink = open(path, "ab", buffering=0)
        flush = lambda: None  # unbuffered: each write is its flush
    reader = threading.Thread(target=read, args=(p.stdout, count, lat))
    reader.start()
    write(sink, rate, count, flush)
    reader.join(timeout=30)
    sink.close()
    for q in (p, tail):
        if q is not None:
            q.terminate()
            q.wait()
    return lat


def pct(xs: list, q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cctape", default="target/profiling/cctape")
    ap.add_argument("--rate", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--only", action="append")
    a = ap.parse_args()
    count = int(a.rate * a.seconds)
    names = a.only or ["pipe", "tail", "filter-F", "watch-F"]
    print(f"{count} lines at {a.rate} lines/s; latency flush -> line, ms")
    print("| reading | lines | p50 | p99 | max |")
    print("| --- | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            lat = run(name, a.cctape, a.rate, count, tmp)
            if len(lat) < count:
                print(f"| {name} | {len(lat)} of {count} | - | - | - |")
                continue
            print(
                f"| {name} | {len(lat)} | {pct(lat, 0.5):.2f} | {pct(lat, 0.99):.2f} "
                f"| {max(lat):.2f} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
