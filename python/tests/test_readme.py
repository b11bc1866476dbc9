"""The README's Python examples (a harness following a slow process, a
notebook's SQL over Arrow tables) run as they are, and print what the
README shows."""

import re
import subprocess
import sys

import pytest

from conftest import REPO, cli_json_lines


def examples():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    pairs = re.findall(r"```python\n(.*?)```\n\n```text\n(.*?)```", section, re.S)
    assert len(pairs) >= 2, "the harness and the notebook examples, each with its output"
    return pairs


@pytest.mark.parametrize("code,output", examples(), ids=["harness", "notebook"])
def test_readme_example_prints_what_the_readme_shows(code, output):
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == output


def test_the_package_pages_examples_run():
    # python/README.md (the PyPI page): its harness, with a stand-in for
    # `claude` that replays a captured run, and its folder example over the
    # corpus, run as they are written otherwise.
    text = (REPO / "python" / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 2
    harness, folder = blocks
    claude = '["claude", "-p", "Fix the failing test", "--output-format", "stream-json", "--verbose"]'
    assert claude in harness and '"outputs/"' in folder
    stand_in = repr([sys.executable, "-c", "import sys; sys.stdout.buffer.write(open('corpus/streams/success-basic.jsonl', 'rb').read())"])
    code = harness.replace(claude, stand_in) + folder.replace('"outputs/', '"corpus/streams/')
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:2] == ["line 4: Write", "line 7: Read"]
    # verdict, ok, cost, main output tokens and their source, tool calls,
    # tool errors, wall time: the command's figures for the capture.
    want = cli_json_lines("verdict", "--json", REPO / "corpus" / "streams" / "success-basic.jsonl")[0]
    assert lines[2] == "success True {} {} results 2 0 {}".format(
        want["total_cost_usd"], want["usage"]["main"]["output_tokens"], want["wall_ms"]
    )
    runs = cli_json_lines("verdict", "--json", "--quiet", REPO / "corpus" / "streams")
    failed = sorted({r["verdict"] for r in runs if not r["ok"]})
    total = sum(r["usage"]["main"]["output_tokens"] + r["usage"]["subagents"]["output_tokens"] for r in runs)
    assert lines[3] == f"{total} output tokens, {sum(not r['ok'] for r in runs)} failed: {failed}"
