"""Every real capture gives, through the package, what the `cctape`
command gives: the same run records as `cctape verdict --json`, the same
event counts, bad lines and positions as `cctape stats --json`."""

from collections import Counter

import pytest

import cctape
from conftest import CLI_FORMAT, REALWORLD, cli_json, cli_json_lines, realworld_files


def rel(p):
    return str(p.relative_to(REALWORLD))


FILES = realworld_files()


@pytest.mark.parametrize("path", FILES, ids=[rel(p) for p in FILES])
def test_verdict_records_equal_the_commands(path):
    want = cli_json_lines("verdict", "--json", "--quiet", "--jobs", "1", path)
    got = cctape.verdict(str(path), format=CLI_FORMAT)
    assert got == want
    runs = cctape.runs(str(path), format=CLI_FORMAT)
    assert [r.to_dict() for r in runs] == want
    assert [(r.verdict, r.ok, r.session_id) for r in runs] == [
        (w["verdict"], w["ok"], w["session_id"]) for w in want
    ]


@pytest.mark.parametrize("path", FILES, ids=[rel(p) for p in FILES])
def test_events_and_bad_lines_equal_the_commands_stats(path):
    want = cli_json("stats", "--json", "--quiet", "--jobs", "1", path)
    reader = cctape.read(str(path), format=CLI_FORMAT)
    kinds = Counter()
    errors = []
    for x in reader:
        if x.ok:
            kinds[x.kind] += 1
        else:
            errors.append(x.to_dict())
    # A transcript's records are events to the reader; the report counts
    # them apart, by type (`records_by_type`).
    want_kinds = Counter(want["by_type"])
    want_kinds.update((want.get("transcripts") or {}).get("records_by_type") or {})
    assert kinds == want_kinds
    c = reader.counts
    assert (c["lines"], c["blank_lines"], c["events"], c["errors"]) == (
        want["lines"],
        want["blank_lines"],
        want["events"],
        want["error_count"],
    )
    # Bad lines keep their positions (line, byte offset, column) and kinds.
    assert errors[: len(want["errors"])] == want["errors"]


def test_a_whole_folder_in_parallel_equals_the_command_in_order(realworld):
    want = cli_json_lines("verdict", "--json", "--quiet", REALWORLD)
    for jobs in (1, 2, 0):
        got = cctape.verdict(str(REALWORLD), format=CLI_FORMAT, jobs=jobs)
        assert got == want
    seen = [(x.file, x.line) for x in cctape.read(str(REALWORLD), format=CLI_FORMAT, jobs=3)]
    # Inputs come out in the walk's order (the command's), each input's
    # lines in order.
    order = [f["file"] for f in cli_json("stats", "--json", "--quiet", REALWORLD)["per_file"]]
    distinct = list(dict.fromkeys(f for f, _ in seen))
    assert distinct == [f for f in order if f in set(distinct)]
    last = {}
    for f, line in seen:
        assert line >= last.get(f, 0)
        last[f] = line


@pytest.fixture(scope="module")
def big_stream(tmp_path_factory, realworld):
    """Every stream-json capture of both folders end to end (plain files
    only), with blank lines, bad lines and a long line between them: about
    20 MB, its longest lines 0.4 and 1.1 MB."""
    parts = []
    for p in realworld:
        if p.suffix in (".jsonl", ".ndjson"):
            data = p.read_bytes()
            parts.append(data if data.endswith(b"\n") else data + b"\n")
    parts.insert(3, b"\n  \n")
    parts.insert(5, b'{"type":"user","message":{"content":"' + b"z" * 400000 + b'"}}\n')
    parts.insert(7, b"not json\n")
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    path.write_bytes(b"".join(parts))
    return path


@pytest.mark.parametrize("chunk", ["1", "3000", "65536", "1000000"])
def test_a_large_file_folded_on_two_cores_equals_the_command(big_stream, monkeypatch, chunk):
    # The file is read in chunks of `chunk` bytes (CCTAPE_CHUNK), two at a
    # time parsed at once, folded in order: the command's records, read on
    # one thread, whatever the chunk size; lines past the maximum too.
    monkeypatch.setenv("CCTAPE_SPLIT_AT", "1")
    monkeypatch.setenv("CCTAPE_CHUNK", chunk)
    want = cli_json_lines("verdict", "--json", "--quiet", "--jobs", "1", big_stream)
    assert len(want) > 50
    assert cctape.verdict(str(big_stream), jobs=2) == want
    assert cctape.verdict(str(big_stream), jobs=1) == want
    # The two longest lines are past this maximum: errors in their places.
    want = cli_json_lines("verdict", "--json", "--quiet", "--jobs", "1", "--max-line", "300000", big_stream)
    assert sum(r["bad_lines"] for r in want) >= 3
    assert cctape.verdict(str(big_stream), jobs=2, max_line=300000) == want
