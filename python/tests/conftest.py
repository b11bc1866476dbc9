"""Shared fixtures: the repository, the real captures beside it, and the
`cctape` command built from the same tree (the oracle the package is
checked against)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parent.parent
REPO = PYTHON_DIR.parent
REALWORLD = (REPO / ".." / "shared" / "realworld").resolve()
# The stream files the command's walk picks up (as `is_stream_file_name`).
STREAM_SUFFIXES = (".jsonl", ".ndjson", ".json", ".log")


def stream_files(root: Path):
    out = []
    for p in sorted(root.rglob("*")):
        name = p.name.lower()
        for c in (".gz", ".zst", ".zstd"):
            if name.endswith(c):
                name = name[: -len(c)]
        if p.is_file() and name.endswith(STREAM_SUFFIXES):
            out.append(p)
    return out


def realworld_files():
    if not REALWORLD.is_dir():
        if os.environ.get("CI"):
            raise RuntimeError(f"{REALWORLD} is missing")
        return []
    return stream_files(REALWORLD)


def cli_bin() -> str:
    """The command: $CCTAPE_BIN, else target/release, else target/debug."""
    env = os.environ.get("CCTAPE_BIN")
    if env:
        return env
    for p in (REPO / "target" / "release" / "cctape", REPO / "target" / "debug" / "cctape"):
        if p.is_file():
            return str(p)
    found = shutil.which("cctape")
    if found:
        return found
    pytest.skip("no cctape binary (build it: cargo build --release)")


def run_cli(*args, check_codes=(0, 1)):
    r = subprocess.run([cli_bin(), *map(str, args)], capture_output=True)
    assert r.returncode in check_codes, r.stderr.decode()
    return r.stdout


def cli_json(*args):
    return json.loads(run_cli(*args))


def cli_json_lines(*args):
    return [json.loads(l) for l in run_cli(*args).splitlines() if l.strip()]


@pytest.fixture(scope="session")
def realworld():
    files = realworld_files()
    if not files:
        pytest.skip("../shared/realworld is missing")
    return files

# How inputs are read, by the command (its default: each input's format
# told from its first bytes) and by the package.
CLI_FORMAT = os.environ.get("CCTAPE_CLI_FORMAT", "auto")


def item_key(x):
    """What must be equal between two readings of the same bytes."""
    if x.ok:
        return ("event", x.kind, x.type, x.subtype, x.session_id, x.line, x.offset, x.raw)
    return ("error", x.kind, x.line, x.offset, x.column, x.element, x.message, x.raw)


def gentranscripts_bin():
    """examples/gentranscripts.rs as built by `cargo test` (CI builds it
    before the Python tests), or $CCTAPE_GENTRANSCRIPTS."""
    env = os.environ.get("CCTAPE_GENTRANSCRIPTS")
    if env:
        return env
    for profile in ("debug", "release"):
        p = REPO / "target" / profile / "examples" / "gentranscripts"
        if p.is_file():
            return str(p)
    if os.environ.get("CI"):
        raise RuntimeError("no target/*/examples/gentranscripts (cargo test builds it)")
    pytest.skip("no gentranscripts example (cargo build --example gentranscripts)")


@pytest.fixture(scope="session")
def generated_tree(tmp_path_factory):
    """A generated `~/.claude/projects` tree (4 projects of 5 sessions,
    subagents in about a third): its projects folder."""
    out = tmp_path_factory.mktemp("gentranscripts")
    subprocess.run(
        [gentranscripts_bin(), "gen", str(out), "--projects", "4", "--sessions", "5", "--turns", "10", "--seed", "7"],
        check=True,
        capture_output=True,
    )
    return out / ".claude" / "projects"
