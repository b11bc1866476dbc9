"""The README's Python examples (a harness following a slow process, a
notebook's SQL over Arrow tables) run as they are, and print what the
README shows."""

import re
import subprocess
import sys

import pytest

from conftest import REPO


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
