"""What cannot be read raises, as Python's own file functions do: a path
that cannot be opened raises the OSError `open` raises (FileNotFoundError,
NotADirectoryError, ...) from every function; an input that breaks off
while it is read is an `InputError` (an OSError and a ReadError) with
`errors="raise"`, and from `to_arrow`, which never hands out a table that
leaves an input out."""

import errno
import gzip
import io
import os
import pickle
import time

import pytest

import cctape
import json

from conftest import REPO, run_cli


def stats_exit_2(path):
    """`cctape stats --json` of an input that breaks off (exit 2)."""
    return json.loads(run_cli("stats", "--json", "--quiet", path, check_codes=(2,)))

GOOD = REPO / "corpus" / "streams" / "success-basic.jsonl"

CALLS = {
    "read": lambda src: list(cctape.read(src)),
    "verdict": cctape.verdict,
    "runs": cctape.runs,
    "stats": cctape.stats,
    "to_arrow": cctape.to_arrow,
    "to_arrow runs": lambda src: cctape.to_arrow(src, "runs", pyarrow=False),
}


@pytest.mark.parametrize("call", CALLS, ids=list(CALLS))
def test_a_missing_path_raises_file_not_found(tmp_path, call):
    missing = tmp_path / "missing.jsonl"
    for src in (str(missing), missing, [str(GOOD), str(missing)]):
        with pytest.raises(FileNotFoundError) as exc:
            CALLS[call](src)
        assert exc.value.errno == errno.ENOENT
        assert exc.value.filename == str(missing)
        assert str(missing) in str(exc.value)


@pytest.mark.parametrize("call", CALLS, ids=list(CALLS))
def test_a_path_under_a_file_raises_not_a_directory(tmp_path, call):
    # Root reads every file whatever its mode, so the unreadable path the
    # tests can make is one whose folder is a file.
    f = tmp_path / "f.jsonl"
    f.write_bytes(GOOD.read_bytes())
    with pytest.raises(NotADirectoryError) as exc:
        CALLS[call](str(f / "x.jsonl"))
    assert isinstance(exc.value, OSError) and exc.value.errno == errno.ENOTDIR


def test_read_raises_when_the_call_is_made_not_later(tmp_path):
    # As open() does: no iterator is handed out for a path that is not there.
    with pytest.raises(FileNotFoundError):
        cctape.read(str(tmp_path / "missing.jsonl"))


def test_a_walked_file_gone_before_its_turn_raises_when_reached(tmp_path):
    d = tmp_path / "runs"
    d.mkdir()
    # More batches than the worker may send ahead: it waits on a.jsonl
    # until the loop takes them, so b.jsonl is opened after the unlink.
    (d / "a.jsonl").write_bytes(b'{"type":"user","session_id":"s"}\n' * 8000)
    (d / "b.jsonl").write_bytes(GOOD.read_bytes())
    reader = cctape.read(str(d), jobs=1)  # the walk lists both
    (d / "b.jsonl").unlink()
    seen = []
    with pytest.raises(FileNotFoundError) as exc:
        for ev in reader:
            seen.append(ev.file)
    assert exc.value.filename == str(d / "b.jsonl")
    # Everything of the input before it came out first.
    assert seen == [str(d / "a.jsonl")] * 8000


@pytest.fixture
def cut_gzip(tmp_path):
    """A gzip capture cut in the middle (a copy that stopped early)."""
    gz = gzip.compress(GOOD.read_bytes())
    p = tmp_path / "cut.jsonl.gz"
    p.write_bytes(gz[: len(gz) // 2])
    return p


def test_an_input_that_breaks_off_is_an_io_error_item_by_default(cut_gzip):
    items = list(cctape.read(str(cut_gzip)))
    last = items[-1]
    assert (last.ok, last.kind, last.fatal, last.file) == (False, "io", True, str(cut_gzip))
    assert all(x.ok for x in items[:-1]) and len(items) > 1
    # The command counts the same events and the same error.
    want = stats_exit_2(cut_gzip)
    assert want["errors"] == [last.to_dict()]
    assert len(items) - 1 == want["events"]


@pytest.mark.parametrize("errors", ["raise", "skip"])
def test_errors_raise_and_skip_raise_input_error_for_an_input_that_breaks_off(cut_gzip, errors):
    got = []
    with pytest.raises(cctape.InputError) as exc:
        for x in cctape.read(str(cut_gzip), errors=errors):
            got.append(x)
    e = exc.value
    assert isinstance(e, OSError) and isinstance(e, cctape.ReadError)
    assert e.filename == str(cut_gzip) and e.error.kind == "io" and e.error.fatal
    assert "the input ends inside it" in e.strerror
    assert str(e) == str(e.error) and str(e).startswith(f"{cut_gzip}:{e.error.line}: byte ")
    assert all(x.ok for x in got) and len(got) == sum(1 for x in cctape.read(str(cut_gzip)) if x.ok)


def test_a_bad_line_is_still_a_read_error_not_an_os_error():
    data = GOOD.read_bytes() + b"not json\n"
    with pytest.raises(cctape.ReadError) as exc:
        list(cctape.read(data, errors="raise"))
    assert not isinstance(exc.value, OSError) and exc.value.error.kind == "invalid_json"


def test_to_arrow_raises_for_an_input_that_breaks_off(cut_gzip):
    for table in ("events", "runs", "tools"):
        with pytest.raises(cctape.InputError) as exc:
            cctape.to_arrow([str(GOOD), str(cut_gzip)], table)
        assert exc.value.filename == str(cut_gzip)


def test_verdict_and_stats_of_an_input_that_breaks_off_say_so_as_the_command_does(cut_gzip):
    assert cctape.stats(str(cut_gzip)) == stats_exit_2(cut_gzip)
    records = cctape.verdict(str(cut_gzip))
    assert [(r["verdict"], r["bad_lines"]) for r in records] == [("no_result", 1)]


def test_a_file_object_that_fails_is_an_input_error_with_errors_raise():
    class Failing(io.RawIOBase):
        def __init__(self):
            self.n = 0

        def readable(self):
            return True

        def readinto(self, b):
            self.n += 1
            if self.n > 1:
                raise OSError(errno.EIO, "device gone")
            data = GOOD.read_bytes()[:300]
            b[: len(data)] = data
            return len(data)

    with pytest.raises(cctape.InputError) as exc:
        list(cctape.read(Failing(), errors="raise", name="dev"))
    assert "device gone" in str(exc.value) and exc.value.filename == "dev"


def test_input_error_pickles():
    with pytest.raises(cctape.InputError) as exc:
        list(cctape.read(gzip.compress(GOOD.read_bytes())[:200], errors="raise"))
    e = exc.value
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is cctape.InputError and back.errno == e.errno


def test_a_large_settled_file_truncated_while_read_is_told(tmp_path):
    """A large file not modified for two seconds (what the command maps)
    is read, not mapped: an event reads its bytes after it was handed out,
    and over a map those of a file cut meanwhile would be zeroed (the
    mapped version failed here about three times in eight). Cut after the
    first event, the rest is an `io` error saying the file shrank, and
    every event before it is the file's own line."""
    lines = [
        json.dumps({"type": "assistant", "session_id": "s",
                    "message": {"id": f"m{i}", "content": [{"type": "text", "text": "x" * 900}]}})
        for i in range(20_000)
    ]
    path = tmp_path / "settled.jsonl"
    path.write_text("\n".join(lines) + "\n")
    hour_ago = time.time() - 3600
    os.utime(path, (hour_ago, hour_ago))
    # Uncut, it reads as its bytes do (which are never mapped).
    assert [e.raw for e in cctape.read(str(path))] == [e.raw for e in cctape.read(path.read_bytes())]
    items = cctape.read(str(path))
    first = next(items)
    assert first.ok and first.line == 1
    with open("/proc/self/maps") as maps:
        assert not any(line.rstrip().endswith(str(path)) for line in maps), "mapped"
    os.truncate(path, 1 << 20)
    rest = list(items)
    last = rest[-1]
    assert (last.ok, last.kind, last.fatal) == (False, "io", True), last
    assert "the file shrank while it was read" in last.message, last.message
    events = [first] + [e for e in rest if e.ok]
    assert [e.line for e in events] == list(range(1, len(events) + 1))
    assert all(e.raw == lines[e.line - 1].encode() for e in events)
    assert [e for e in rest[:-1] if not e.ok] in ([], [rest[-2]]), "at most the cut line"


def _settled_large_file(tmp_path, name="settled.jsonl"):
    """A 20 MB stream file last modified an hour ago: what the command maps."""
    lines = [
        json.dumps({"type": "assistant", "session_id": f"s{i // 500}",
                    "message": {"id": f"m{i}", "content": [{"type": "text", "text": "x" * 900}],
                                "usage": {"input_tokens": 3, "output_tokens": i % 7}}})
        for i in range(20_000)
    ]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    hour_ago = time.time() - 3600
    os.utime(path, (hour_ago, hour_ago))
    return path


FOLDS = {
    "verdict": lambda src, **k: cctape.verdict(src, **k),
    "stats": lambda src, **k: cctape.stats(src, **k),
    "to_arrow runs": lambda src, **k: cctape.to_arrow(src, "runs", **k).to_pylist(),
}


@pytest.mark.parametrize("call", FOLDS, ids=list(FOLDS))
def test_functions_that_fold_before_they_return_map_large_settled_files(tmp_path, call):
    """`verdict`, `runs`, `stats` and `to_arrow` fold every byte before they
    return, so they map a large settled file as the command does (`read`
    does not: its events read their bytes later). A thread watching
    /proc/self/maps while the call runs sees the file mapped, and the
    answer is the one its bytes give."""
    import threading

    path = _settled_large_file(tmp_path)
    seen, done = [], threading.Event()

    def watch():
        while not done.is_set() and not seen:
            with open("/proc/self/maps") as maps:
                if any(line.rstrip().endswith(str(path)) for line in maps):
                    seen.append(True)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for _ in range(20):
            mapped = FOLDS[call]([str(path)] * 4, jobs=1, name="f")
            if seen:
                break
    finally:
        done.set()
        watcher.join()
    assert seen, "never mapped"
    assert mapped == FOLDS[call]([path.read_bytes()] * 4, jobs=1, name="f")
