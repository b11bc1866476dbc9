"""`cctape.stats` is `cctape stats --json [--by KEY]`: the same dict, for
every real capture alone, the whole folder, and every grouping."""

import pytest

import cctape
from conftest import CLI_FORMAT, REALWORLD, REPO, cli_json, cli_json_lines, realworld_files

FILES = realworld_files()


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(REALWORLD)) for p in FILES])
def test_stats_of_each_capture_equal_the_commands(path):
    assert cctape.stats(str(path), format=CLI_FORMAT) == cli_json("stats", "--json", "--quiet", path)


@pytest.mark.parametrize(
    "by", [None, "file", "session", "project", "model", "version", "day", "week", "month"]
)
def test_stats_of_everything_by_every_key_equal_the_commands(by):
    roots = [REALWORLD, REPO / "corpus"] if REALWORLD.is_dir() else [REPO / "corpus"]
    args = ["stats", "--json", "--quiet", *(["--by", by] if by else []), *roots]
    want = cli_json(*args)
    got = cctape.stats([str(r) for r in roots], by=by, format=CLI_FORMAT)
    assert list(got) == list(want)  # the documented key order
    assert got == want
    assert cctape.stats([str(r) for r in roots], by=by, format=CLI_FORMAT, jobs=1) == want


@pytest.mark.parametrize("fmt", ["stream", "json", "transcript"])
def test_every_forced_format_equals_the_commands(fmt):
    # `format=` is `--format`: every input read one way, whatever it is
    # (transcripts' records as events with `stream`, bad lines with the
    # others), the same figures and records as the command's.
    roots = [REALWORLD, REPO / "corpus"] if REALWORLD.is_dir() else [REPO / "corpus"]
    want = cli_json("stats", "--json", "--quiet", "--input-format", fmt, *roots)
    assert cctape.stats([str(r) for r in roots], format=fmt) == want
    want = cli_json_lines("verdict", "--json", "--quiet", "--format", fmt, *roots)
    assert cctape.verdict([str(r) for r in roots], format=fmt) == want
