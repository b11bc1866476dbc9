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
    "by", [None, "file", "session", "project", "model", "version", "day", "week", "month", "block"]
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


def _roots_and_days():
    """The real captures and the corpus, and their days in UTC (as the
    command's own report gives them)."""
    roots = [REALWORLD, REPO / "corpus"] if REALWORLD.is_dir() else [REPO / "corpus"]
    report = cli_json("stats", "--json", "--quiet", "--by", "day", "--timezone", "UTC", *roots)
    return roots, [g["key"] for g in report["groups"] if g["key"] != "unknown"]


@pytest.mark.parametrize("by", [None, "session", "day", "model"])
def test_since_and_until_equal_the_commands(by):
    # `since=`/`until=` are `--since`/`--until`: the days are taken from the
    # real captures' own report, and given as dates and as both strings.
    import datetime

    roots, days = _roots_and_days()
    assert len(days) >= 3, days
    since, until = days[len(days) // 3], days[2 * len(days) // 3]
    args = ["--since", since, "--until", until.replace("-", ""), "--timezone", "UTC"]
    want = cli_json("stats", "--json", "--quiet", *args, *(["--by", by] if by else []), *roots)
    assert 0 < want["runs"]
    got = cctape.stats(
        [str(r) for r in roots],
        by=by,
        format=CLI_FORMAT,
        timezone="UTC",
        since=datetime.date.fromisoformat(since),
        until=until.replace("-", ""),
    )
    assert got == want
    assert (got["since"], got["until"]) == (since, until)
    assert got["runs"] < cli_json("stats", "--json", "--quiet", *roots)["runs"]


def test_since_and_until_that_are_no_days_raise():
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        cctape.stats(str(REPO / "corpus"), since="2026-02-30")
    with pytest.raises(ValueError, match="after until"):
        cctape.stats(str(REPO / "corpus"), since="20260302", until="2026-03-01")
    with pytest.raises(TypeError):
        cctape.stats(str(REPO / "corpus"), since=20260301)


def test_walk_globs_equal_the_commands():
    # `walk(glob=, iglob=)` picks what `--glob`/`--iglob` pick, and stats
    # over it equal the command's with the same globs.
    root = REALWORLD if REALWORLD.is_dir() else REPO / "corpus"
    for globs, iglobs in [(["!wave2"], []), (["*.ndjson"], []), ([], ["*.JSON"]), (["!*.gz", "*/session-format/*"], [])]:
        flags = [a for g in globs for a in ("-g", g)] + [a for g in iglobs for a in ("--iglob", g)]
        want = cli_json("stats", "--json", "--quiet", *flags, root)
        files = cctape.walk(str(root), glob=globs, iglob=iglobs)
        assert [f["file"] for f in want["per_file"]] == files
        assert 0 < len(files) < len(cctape.walk(str(root)))
        assert cctape.stats(files, format=CLI_FORMAT) == want
    with pytest.raises(ValueError, match="unclosed"):
        cctape.walk(str(root), glob=["[a"])


def test_verdict_since_and_until_equal_the_commands():
    # `verdict(since=, until=)` and `runs(...)` are `cctape verdict --json
    # --since/--until`: the runs stats counts with the same bounds.
    import datetime

    roots, days = _roots_and_days()
    since, until = days[len(days) // 3], days[2 * len(days) // 3]
    args = ["--since", since, "--until", until, "--timezone", "UTC"]
    want = cli_json_lines("verdict", "--json", "--quiet", *args, *roots)
    got = cctape.verdict(
        [str(r) for r in roots],
        format=CLI_FORMAT,
        timezone="UTC",
        since=datetime.date.fromisoformat(since),
        until=until,
    )
    assert got == want
    assert 0 < len(got) < len(cctape.verdict([str(r) for r in roots], format=CLI_FORMAT))
    assert len(got) == cli_json("stats", "--json", "--quiet", *args, *roots)["runs"]
    runs = cctape.runs([str(r) for r in roots], format=CLI_FORMAT, timezone="UTC", since=since, until=until)
    assert [r.to_dict() for r in runs] == want


def test_the_system_zone_is_the_one_in_force_at_the_call(monkeypatch):
    # A zone set in the process (TZ, then time.tzset, as Python sets its
    # local zone) is the one stats and verdict take, as a command started
    # now takes it: not a zone an earlier call read.
    import time

    path = next(p for p in FILES if "session-format" in str(p))
    for tz in ("UTC", "Europe/Paris", "Etc/UTC"):
        monkeypatch.setenv("TZ", tz)
        time.tzset()
        want = cli_json("stats", "--json", "--quiet", path)
        assert want["transcripts"]["time_zone"] == tz
        assert cctape.stats(str(path), format=CLI_FORMAT) == want
    monkeypatch.undo()
    time.tzset()
