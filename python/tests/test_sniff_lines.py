"""Sniffing decides per line (issue 22, item 1), in the package as in the
command: an input whose first line is not JSON (a Node warning, a second
byte order mark, a logger's line, half a line) has its events read as
events and its other lines as errors at their places; text with no JSON
line is one finding. Inputs generated here."""

import json

import pytest

import cctape

from conftest import cli_json

RUN = [
    {"type": "system", "subtype": "init", "session_id": "s", "model": "claude-sonnet-4-5"},
    {
        "type": "assistant",
        "message": {
            "id": "m1",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "hi"}],
            "usage": {"input_tokens": 3, "output_tokens": 12},
        },
        "session_id": "s",
    },
    {"type": "result", "subtype": "success", "is_error": False, "num_turns": 1, "session_id": "s"},
]


def run_bytes():
    return b"".join(json.dumps(e).encode() + b"\n" for e in RUN)


CAUSES = {
    "node-warning": (b"(node:7) [DEP0040] DeprecationWarning: punycode\n" + run_bytes(), [1], 3),
    "second-bom": (b"\xef\xbb\xbf\xef\xbb\xbf" + run_bytes(), [1], 2),
    "info-line": (b"[2026-01-05T10:00:00Z] [INFO] starting\n" + run_bytes(), [1], 3),
    "tail-c": (run_bytes()[40:], [1], 2),
}


@pytest.mark.parametrize("name", sorted(CAUSES))
def test_each_cause_reads_its_events_as_the_command_does(name, tmp_path):
    data, bad, events = CAUSES[name]
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(data)
    for src in (str(path), data):
        items = list(cctape.read(src))
        assert sum(1 for x in items if x.ok) == events
        assert [x.line for x in items if not x.ok] == bad
    assert cctape.stats(str(path)) == cli_json("stats", "--json", "--quiet", path)
    [run] = cctape.verdict(str(path))
    assert run["verdict"] == "success"
    assert run["bad_lines"] == len(bad)
    assert cctape.verdict(str(path)) == [cli_json("verdict", "--json", "--quiet", path)]


def test_text_alone_is_one_finding(tmp_path):
    path = tmp_path / "answer.txt"
    path.write_bytes(b"I changed two files.\nError: Reached max turns (30)\n")
    assert [x for x in cctape.read(str(path)) if not x.ok] == []
    [run] = cctape.verdict(str(path))
    assert run["verdict"] == "max_turns"
    assert run["no_events"]["format"] == "text"
