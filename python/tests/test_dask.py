"""The Dask example (examples/dask_stats.py) on a LocalCluster: cctape
mapped over the partitions of an archive, per-run results combined, equals
`cctape stats --json` on the same files however the archive is cut: the
real captures and a generated transcript tree (whose sessions' files a
partition keeps together)."""

import importlib.util

import pytest

from conftest import CLI_FORMAT, PYTHON_DIR, REALWORLD, REPO, cli_json

pytest.importorskip("dask.distributed")


def example():
    spec = importlib.util.spec_from_file_location("dask_stats", PYTHON_DIR / "examples" / "dask_stats.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("which", ["realworld", "generated"])
def test_partitions_on_dask_combine_to_the_commands_stats(generated_tree, which):
    if which == "generated":
        root = generated_tree
    else:
        root = REALWORLD if REALWORLD.is_dir() else REPO / "corpus"
    want = cli_json("stats", "--json", "--quiet", root)
    mod = example()
    for partitions in (1, 5):
        got = mod.run(str(root), partitions=partitions, fmt=CLI_FORMAT)
        assert got["files"] == want["files"]
        assert got["events"] == want["events"]
        assert got["by_type"] == want["by_type"]
        assert got["runs"] == want["runs"]
        assert got["verdicts"] == want["verdicts"]
        assert got["total_cost_usd"] == want["total_cost_usd"]
        for agent in ("main", "subagents"):
            for k, v in got["usage"][agent].items():
                assert v == want["usage"][agent][k], (agent, k)
        assert got["tool_calls"] == {k: t["calls"] for k, t in sorted(want["tools"].items())}
