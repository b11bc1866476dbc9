"""Live reading: bytes cut anywhere give the same events and bad lines as
reading the file whole (hypothesis picks the cuts), from a file object, an
asyncio stream, and a process writing slowly."""

import asyncio
import io
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cctape
from conftest import REPO, item_key, realworld_files

CORPUS = sorted((REPO / "corpus").rglob("*.jsonl"))
# Stream-json inputs read as lines (the live reader reads lines).
FILES = [p for p in CORPUS + realworld_files() if not p.name.endswith((".json", ".gz", ".zst"))]
WHOLE = {}


def whole(path):
    if path not in WHOLE:
        WHOLE[path] = [item_key(x) for x in cctape.read(str(path), format="stream")]
    return WHOLE[path]


def chunks(data, sizes):
    at, i = 0, 0
    while at < len(data):
        n = sizes[i % len(sizes)]
        yield data[at : at + n]
        at += n
        i += 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(FILES),
    st.lists(st.integers(min_value=1, max_value=70000), min_size=1, max_size=12),
)
def test_chunks_cut_anywhere_give_the_events_of_the_whole_file(path, sizes):
    data = Path(path).read_bytes()
    dec = cctape.Decoder(name=str(path))
    got = []
    for c in chunks(data, sizes):
        got.extend(item_key(x) for x in dec.feed(c))
    got.extend(item_key(x) for x in dec.finish())
    assert got == whole(path)
    assert dec.bytes == len(data)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(FILES), st.integers(min_value=1, max_value=4096))
def test_follow_a_file_object_and_an_asyncio_stream(path, size):
    data = Path(path).read_bytes()
    want = whole(path)
    got = [item_key(x) for x in cctape.follow(io.BytesIO(data), chunk_size=size)]
    assert got == want

    async def run():
        reader = asyncio.StreamReader()
        for c in chunks(data, [size]):
            reader.feed_data(c)
        reader.feed_eof()
        return [item_key(x) async for x in cctape.follow(reader, chunk_size=size)]

    assert asyncio.run(run()) == want


def test_follow_gives_the_verdict_of_the_command():
    path = REPO / "corpus" / "streams" / "max-turns.jsonl"
    f = cctape.follow(open(path, "rb"))
    assert [x.kind for x in f][-1].startswith("result/")
    assert f.verdict() == cctape.verdict(str(path))
    assert f.verdict(exit_code=3)[0]["exit_code"] == 3
    assert [r.verdict for r in f.runs()] == ["max_turns"]


def test_a_slow_process_is_followed_line_by_line():
    # The writer sleeps between half lines: each event is handed out as
    # soon as its LF arrives, never later than the next chunk.
    lines = (REPO / "corpus" / "streams" / "success-basic.jsonl").read_bytes().splitlines(True)
    script = (
        "import sys, time\n"
        "for l in sys.stdin.buffer.read().splitlines(True):\n"
        "    h = len(l) // 2\n"
        "    sys.stdout.buffer.write(l[:h]); sys.stdout.flush(); time.sleep(0.01)\n"
        "    sys.stdout.buffer.write(l[h:]); sys.stdout.flush(); time.sleep(0.01)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    proc.stdin.write(b"".join(lines))
    proc.stdin.close()
    f = cctape.follow(proc.stdout)
    got = [x.line for x in f]
    assert proc.wait() == 0
    assert got == [i + 1 for i, l in enumerate(lines) if l.strip()]
    assert f.verdict(exit_code=0)[0]["verdict"] == "success"


def test_a_line_past_the_limit_is_one_error_and_reading_goes_on():
    data = b'{"type":"user","pad":"' + b"x" * 3000 + b'"}\n{"type":"user"}\n'
    for sizes in ([1], [7], [4096], [100000]):
        dec = cctape.Decoder(max_line=1000)
        items = [x for c in chunks(data, sizes) for x in dec.feed(c)] + dec.finish()
        assert [(x.ok, x.line, x.offset) for x in items] == [(False, 1, 0), (True, 2, 3025)]
        assert items[0].kind == "line_too_long" and items[0].raw is None
        assert dec.pending < 1000 * 2
    whole_ = list(cctape.read(data, max_line=1000))
    assert [item_key(x) for x in whole_] == [item_key(x) for x in items]


def test_reading_ends_an_input_with_no_lf_for_four_times_the_limit():
    # As the command reads /dev/zero: the rest of such an input is not read.
    data = b"x" * 5000 + b'\n{"type":"user"}\n'
    items = list(cctape.read(data, max_line=1000))
    assert [(x.kind, x.line) for x in items] == [("line_too_long", 1), ("io", 1)]
    assert "no LF in more than 4000 bytes" in items[1].message
