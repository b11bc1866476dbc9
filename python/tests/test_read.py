"""Reading: every kind of source, formats, compression, lazy fields
against json.loads, bad lines as values with positions, errors= modes."""

import gzip
import io
import json
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

import cctape
import re

from conftest import REALWORLD, REPO, item_key, run_cli

STREAMS = REPO / "corpus" / "streams"
MIXED = STREAMS / "mixed-bad.jsonl"


def keys(src, **kw):
    return [item_key(x) for x in cctape.read(src, **kw)]


def test_every_source_kind_reads_the_same():
    data = MIXED.read_bytes()
    want = keys(str(MIXED))
    assert keys(MIXED) == want  # os.PathLike
    for src in (data, bytearray(data), memoryview(data), io.BytesIO(data), open(MIXED, "rb")):
        got = [k for k in keys(src)]
        assert got == want
    assert keys(io.BytesIO(data), name="x.jsonl")[0] == want[0]
    assert [x.file for x in cctape.read(data, name="x.jsonl")][0] == "x.jsonl"
    text = io.StringIO(data.decode("utf-8"))
    assert keys(text) == want


def test_gzip_and_zstd_are_told_by_their_bytes(tmp_path):
    data = MIXED.read_bytes()
    want = keys(data)
    gz = tmp_path / "a.log"  # the name says nothing
    gz.write_bytes(gzip.compress(data))
    assert keys(str(gz)) == want
    assert keys(gzip.compress(data)) == want
    if shutil.which("zstd"):
        zst = tmp_path / "b.jsonl.zst"
        subprocess.run(["zstd", "-q", "-o", str(zst), str(MIXED)], check=True)
        assert keys(str(zst)) == want


def test_bad_lines_keep_their_positions():
    lines = MIXED.read_bytes().split(b"\n")
    offsets = [0]
    for l in lines:
        offsets.append(offsets[-1] + len(l) + 1)
    errors = [x for x in cctape.read(str(MIXED)) if not x.ok]
    assert [(e.line, e.kind) for e in errors] == [
        (3, "invalid_json"),
        (6, "not_an_object"),
        (7, "missing_type"),
        (8, "missing_type"),
        (12, "duplicate_key"),
        (14, "truncated"),
    ]
    for e in errors:
        # The offset is the line's first byte, and raw its bytes.
        assert e.offset == offsets[e.line - 1]
        assert e.raw == lines[e.line - 1]
        assert str(e).startswith(f"{MIXED}:{e.line}: byte {e.offset}")
    events = [x for x in cctape.read(str(MIXED)) if x.ok]
    for ev in events:
        assert ev.raw == lines[ev.line - 1] and ev.offset == offsets[ev.line - 1]


def test_errors_raise_and_skip():
    with pytest.raises(cctape.ReadError) as exc:
        for _ in cctape.read(str(MIXED), errors="raise"):
            pass
    assert exc.value.error.line == 3 and exc.value.error.kind == "invalid_json"
    skipped = list(cctape.read(str(MIXED), errors="skip"))
    assert all(x.ok for x in skipped)
    assert len(skipped) == sum(1 for x in cctape.read(str(MIXED)) if x.ok)
    with pytest.raises(ValueError):
        cctape.read(str(MIXED), errors="ignore")


def lone_surrogates_replaced(v):
    """json.loads keeps an escaped lone surrogate; cctape reads it as U+FFFD."""
    if isinstance(v, str):
        return re.sub("[\ud800-\udfff]", "\ufffd", v)
    if isinstance(v, list):
        return [lone_surrogates_replaced(x) for x in v]
    if isinstance(v, dict):
        return {k: lone_surrogates_replaced(x) for k, x in v.items()}
    return v


def test_lazy_fields_equal_json_loads():
    for path in sorted(STREAMS.glob("*.jsonl")):
        for ev in cctape.read(str(path), errors="skip"):
            d = lone_surrogates_replaced(json.loads(ev.raw))
            assert ev.json() == d
            assert ev.type == d["type"] and ev.session_id == d.get("session_id")
            usage = (d.get("message") or {}).get("usage") if isinstance(d.get("message"), dict) else None
            if usage and "output_tokens" in usage:
                assert ev["message.usage.output_tokens"] == usage["output_tokens"]
                assert ev.usage["output_tokens"] == usage["output_tokens"]
            assert ev.get("no.such.path", 7) == 7
            with pytest.raises(KeyError):
                ev["no.such.path"]
            if d.get("type") == "result":
                assert ev.total_cost_usd == d.get("total_cost_usd")
                assert ev.is_error == d.get("is_error")


def test_json_arrays_are_read_element_by_element():
    twin = REALWORLD / "wave2" / "jedarden__spaxel__.beads-traces-spaxel-40tl-stdout.txt@03f7656"
    array, ndjson = Path(str(twin) + ".json"), Path(str(twin) + ".ndjson")
    if not array.exists():
        pytest.skip("../shared/realworld is missing")
    a = [x for x in cctape.read(str(array))]
    n = [x for x in cctape.read(str(ndjson))]
    assert all(x.ok for x in a) and len(a) == len(n) == 182
    assert [x.kind for x in a] == [x.kind for x in n]
    assert [x.json() for x in a] == [x.json() for x in n]
    # Forced as lines, the one-line array is one bad line.
    forced = list(cctape.read(str(array), format="stream"))
    assert [(x.ok, x.kind) for x in forced] == [(False, "not_an_object")]


def test_stopping_early_and_reading_from_threads():
    r = cctape.read(str(REALWORLD if REALWORLD.is_dir() else STREAMS), jobs=2)
    first = next(r)
    assert first.ok or not first.ok
    del r  # the workers stop at their next batch
    out = {}

    def work(i):
        out[i] = sum(1 for _ in cctape.read(str(STREAMS)))

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(set(out.values())) == 1 and out[0] > 100


def test_hot_fields_equal_json_loads_over_many_types_and_sessions():
    # More distinct types than the reader keeps as shared strings, and
    # sessions that change from line to line and come back: every event's
    # type, kind and session_id are still its own line's (json.loads).
    lines = []
    for i in range(300):
        d = {"type": f"t{i % 97}", "session_id": f"s{(i * 7) % 5}"}
        if i % 3 == 0:
            d = {"type": "system", "subtype": f"sub{i % 11}", "session_id": d["session_id"]}
        if i % 13 == 0:
            del d["session_id"]
        if i % 17 == 0:
            d["session_id"] = "s\u00e9"
        # Written as \u00e9 escapes on every other line, as UTF-8 on the rest.
        lines.append(json.dumps(d, ensure_ascii=i % 2 == 0))
    data = ("\n".join(lines) + "\n").encode()
    got = [(x.type, x.kind, x.session_id) for x in cctape.read(data)]
    want = []
    for line in data.splitlines():
        d = json.loads(line)
        kind = f"{d['type']}/{d['subtype']}" if "subtype" in d else d["type"]
        want.append((d["type"], kind, d.get("session_id")))
    assert got == want
    assert "s\u00e9" in {s for _, _, s in got}


def test_lines_longer_than_a_batch_come_whole_and_in_order():
    # Lines of 0.3 to 1.5 MiB between short ones: batches are handed on
    # before a line would not fit, and a line longer than a batch has one
    # of its own; each event is still its line, at its offset.
    sizes = [10, 300_000, 20, 1_500_000, 700_000, 5, 400_000, 400_000, 300_000, 1]
    lines = [json.dumps({"type": "user", "session_id": f"s{i}", "pad": "x" * n}).encode() for i, n in enumerate(sizes)]
    data = b"\n".join(lines) + b"\n"
    items = list(cctape.read(data))
    assert [x.raw for x in items] == lines
    offsets = [0]
    for l in lines[:-1]:
        offsets.append(offsets[-1] + len(l) + 1)
    assert [(x.line, x.offset, x.session_id) for x in items] == [
        (i + 1, offsets[i], f"s{i}") for i in range(len(lines))
    ]
    assert [len(x["pad"]) for x in items] == sizes
