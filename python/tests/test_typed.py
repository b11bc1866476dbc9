"""The typed surface: `__version__`, `Run`'s typed properties (equal to the
`runs` table's columns), the TypedDicts of the `.pyi` stubs (the keys, in
the order the command prints them and docs/accounting.md lists them, and
a type checker that reads them), and a namespace without typing names."""

import ast
import importlib.metadata
import re
import subprocess
import sys
import textwrap
import types

import pytest

import cctape
from conftest import CLI_FORMAT, PYTHON_DIR, REALWORLD, REPO

STUB = PYTHON_DIR / "cctape" / "_cctape.pyi"


def roots(generated_tree):
    return [str(r) for r in ([REALWORLD] if REALWORLD.is_dir() else []) + [REPO / "corpus", generated_tree]]


def cargo_version(path):
    """`version` of a Cargo.toml's [package]."""
    text = path.read_text()
    package = text.split("[package]", 1)[1].split("\n[", 1)[0]
    return re.search(r'^version = "([^"]+)"', package, re.M).group(1)


def test_version_is_the_crates_and_the_installed_distributions():
    assert cctape.__version__ == importlib.metadata.version("cctape")
    assert cctape.__version__ == cargo_version(PYTHON_DIR / "Cargo.toml") == cargo_version(REPO / "Cargo.toml")
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", cctape.__version__)


def test_the_namespace_holds_the_api_and_no_typing_names():
    names = {n for n in dir(cctape) if not n.startswith("__")}
    typing_names = {"Any", "Dict", "List", "Optional", "Union", "Iterator", "AsyncIterator", "TYPE_CHECKING"}
    assert not names & typing_names
    assert not names & {"annotations", "dataclasses", "datetime", "itertools", "os"}
    # Everything else is the API, or a submodule (`cctape.spark` once
    # imported, the private ones).
    public = {n for n in names if not n.startswith("_") and not isinstance(getattr(cctape, n), types.ModuleType)}
    assert public == set(cctape.__all__) - {"__version__"}
    for n in cctape.__all__:
        assert hasattr(cctape, n), n


RUN_COLUMNS = [
    "main_input_tokens",
    "main_output_tokens",
    "main_cache_read_input_tokens",
    "main_cache_creation_input_tokens",
    "subagent_input_tokens",
    "subagent_output_tokens",
    "subagent_cache_read_input_tokens",
    "subagent_cache_creation_input_tokens",
    "tool_calls",
    "tool_errors",
    "tool_rejections",
    "wall_ms",
    "cost_source",
    "main_tokens_source",
]


def test_run_properties_equal_the_runs_tables_columns(generated_tree):
    # Every run (stream runs, transcript sessions, inputs without events:
    # one run each, one `runs` row) of the real captures, the corpus and a
    # generated tree: each typed property is the column of the same name in
    # `to_arrow(..., "runs")` (the Parquet export's).
    src = roots(generated_tree)
    runs = cctape.runs(src, format=CLI_FORMAT)
    assert any("no_events" in r.record for r in runs)
    table = cctape.to_arrow(src, "runs", format=CLI_FORMAT).to_pylist()
    assert len(runs) == len(table) > 100
    assert {r.cost_source for r in runs} >= {"results", "price_table"}
    assert {r.main_tokens_source for r in runs} >= {"results", "transcript_requests", "final_calls"}
    assert sum(r.subagent_output_tokens for r in runs) > 0 and sum(r.tool_rejections for r in runs) > 0
    for run, row in zip(runs, table):
        assert (run.file, run.session_id, run.verdict) == (row["file"], row["session_id"], row["verdict"])
        for col in RUN_COLUMNS:
            assert getattr(run, col) == row[col], (run.file, col)
        for kind in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
            assert getattr(run, f"total_{kind}") == row[f"main_{kind}"] + row[f"subagent_{kind}"]
        assert run.output_tokens == run.main_output_tokens


def stub_classes():
    """The TypedDicts of the stub: name -> [(key, required)] in order."""
    out = {}
    for node in ast.parse(STUB.read_text()).body:
        if isinstance(node, ast.ClassDef) and any(getattr(b, "id", None) == "TypedDict" for b in node.bases):
            fields = []
            for st in node.body:
                if isinstance(st, ast.AnnAssign):
                    ann = ast.unparse(st.annotation)
                    fields.append((st.target.id, not ann.startswith("NotRequired[")))
            out[node.name] = fields
    return out


def check_keys(d, fields, where):
    keys = [k for k, _ in fields]
    assert set(d) <= set(keys), (where, set(d) - set(keys))
    assert list(d) == [k for k in keys if k in d], where  # the documented order
    assert {k for k, req in fields if req} <= set(d), (where, {k for k, req in fields if req} - set(d))


def doc_keys(label):
    """A key list of docs/accounting.md ("verdict keys: `a`, `b`, ...")."""
    text = (REPO / "docs" / "accounting.md").read_text()
    line = next(l for l in text.splitlines() if l.startswith(label))
    return re.findall(r"`([a-z_]+)`", re.sub(r"\([^)]*\)", "", line))


def test_typed_dicts_list_the_keys_the_docs_list():
    t = stub_classes()
    verdict_keys = [k for k, _ in t["VerdictRecord"] if k not in ("no_events", "transcript")]
    assert verdict_keys == doc_keys("verdict keys:")
    assert [k for k, _ in t["StatsReport"]] == doc_keys("stats keys:")


def test_verdict_records_have_the_typed_dicts_keys_in_order(generated_tree):
    t = stub_classes()
    records = cctape.verdict(roots(generated_tree), format=CLI_FORMAT)
    assert {"no_events" in r for r in records} == {True, False}
    assert any("transcript" in r for r in records)
    for r in records:
        where = (r["file"], r["session_id"])
        check_keys(r, t["VerdictRecord"], where)
        check_keys(r["usage"], t["RunUsage"], where)
        for agent in ("main", "subagents"):
            check_keys(r["usage"][agent], t["AgentUsage"], where)
            check_keys(r["usage"][agent]["figures"], t["AgentFigures"], where)
        for m in r["usage"]["by_model"].values():
            check_keys(m, t["ModelEntry"], where)
        for row in r["usage"]["by_role"]:
            check_keys(row, t["RoleRow"], where)
        check_keys(r["cost"], t["RunCost"], where)
        for tool in r["tools"].values():
            check_keys(tool, t["ToolFigures"], where)
        check_keys(r["api_retries"], t["ApiRetries"], where)
        check_keys(r["hooks"], t["Hooks"], where)
        for w in r["warnings"]:
            check_keys(w, t["RunWarning"], where)
        if "no_events" in r:
            check_keys(r["no_events"], t["NoEvents"], where)


@pytest.mark.parametrize("by", [None, "day", "model", "block"])
def test_stats_reports_have_the_typed_dicts_keys_in_order(generated_tree, by):
    t = stub_classes()
    s = cctape.stats(roots(generated_tree), by=by, format=CLI_FORMAT, since="2000-01-01" if by == "day" else None)
    check_keys(s, t["StatsReport"], by)
    check_keys(s["usage"], t["StatsUsage"], by)
    for agent in ("main", "subagents"):
        check_keys(s["usage"][agent], t["AgentTotals"], by)
    check_keys(s["inputs_without_events"], t["InputsWithoutEvents"], by)
    for e in s["errors"]:
        check_keys(e, t["ErrorEntry"], by)
    for tool in s["tools"].values():
        check_keys(tool, t["ToolTotals"], by)
    for w in s["warnings"].values():
        check_keys(w, t["WarningTotals"], by)
    for g in s.get("groups", []):
        check_keys(g, t["Group"], by)
    assert ("groups" in s) == (by is not None)


HARNESS = '''
import cctape

def cost_and_tokens(path: str) -> float:
    total = 0.0
    for r in cctape.verdict(path):
        main = r["usage"]["main"]
        n: int = main["output_tokens"] + r["usage"]["subagents"]["cache_read_input_tokens"]
        src: str = main["source"]
        if isinstance(r["total_cost_usd"], float):
            total += r["total_cost_usd"]
    for run in cctape.runs(path):
        calls: int = run.tool_calls + run.tool_errors + run.main_input_tokens
        wall: "int | None" = run.wall_ms
    s = cctape.stats(path, by="day")
    runs: int = s["runs"] + s["usage"]["main"]["lower_bound_runs"]
    for ev in cctape.read(path):
        if ev.ok:
            kind: str = ev.kind
    return total
'''


def mypy(tmp_path, code):
    pytest.importorskip("mypy")
    f = tmp_path / "harness.py"
    f.write_text(textwrap.dedent(code))
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(f)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    return r.returncode, r.stdout


def test_a_type_checker_reads_the_stubs(tmp_path):
    code, out = mypy(tmp_path, HARNESS)
    assert code == 0, out
    # A key that is not in a record, and a figure used as a string, are errors.
    bad = HARNESS.replace('main["output_tokens"]', 'main["output_tokenz"]').replace("src: str =", "src: int =")
    code, out = mypy(tmp_path, bad)
    assert code == 1
    assert '"output_tokenz"' in out and "AgentUsage" in out
    assert 'Incompatible types in assignment (expression has type "str", variable has type "int")' in out
