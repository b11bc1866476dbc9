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
