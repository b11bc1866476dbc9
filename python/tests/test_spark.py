"""The Spark data source (cctape/spark.py) on a local Spark (local[2], one
SparkSession for the module): the export's tables read from raw files by
cctape on the executors, whose sums, counts and per-tool figures are
`cctape stats --json`'s, on the real captures and a generated transcript
tree, however the inputs are cut into partitions."""

import math
import os
import shutil
import sys
import time

import pytest

from conftest import REALWORLD, cli_json

pyspark = pytest.importorskip("pyspark", minversion="4.0")
if not shutil.which("java"):
    if os.environ.get("CI"):
        raise RuntimeError("no java for the Spark test (Debian openjdk-17-jre-headless)")
    pytest.skip("no java", allow_module_level=True)

import cctape  # noqa: E402
import cctape.spark  # noqa: E402

TOKENS = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"]


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # The workers run this interpreter, so that they import the same cctape.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ["TZ"] = "UTC"
    time.tzset()
    s = (
        SparkSession.builder.master("local[2]")
        .appName("cctape-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    cctape.spark.register(s)
    yield s
    s.stop()


def roots(generated_tree):
    out = {"generated": generated_tree}
    if REALWORLD.is_dir():
        out["realworld"] = REALWORLD
    elif os.environ.get("CI"):
        raise RuntimeError(f"{REALWORLD} is missing")
    return out


def load(spark, root, table, **options):
    r = spark.read.format("cctape").option("table", table)
    for k, v in options.items():
        r = r.option(k, str(v))
    return r.load(str(root))


def figures(spark, root, **options):
    """The figures `cctape stats --json` gives, in Spark SQL over the three
    tables (one query each)."""
    for table in ("events", "runs", "tools"):
        load(spark, root, table, **options).createOrReplaceTempView(table)
    q = lambda sql: spark.sql(sql).collect()  # noqa: E731
    # Stream events are in runs (run_line > 0); a transcript's records
    # have run_line 0 and are counted apart (`records_by_type`).
    kinds = q("SELECT run_line = 0, kind, count(*) FROM events GROUP BY 1, 2")
    by_verdict = q(
        "SELECT verdict, count(*), "
        + ", ".join(f"sum({a}_{t})" for a in ("main", "subagent") for t in TOKENS)
        + ", sum(total_cost_usd), collect_list(total_cost_usd) FROM runs GROUP BY verdict"
    )
    per_tool = {
        r[0]: {"calls": r[1], "errors": r[2], "rejections": r[3]}
        for r in q(
            "SELECT tool_name, count(*), sum(CAST(is_error AS INT)), sum(CAST(rejected AS INT)) FROM tools GROUP BY tool_name"
        )
    }
    tokens = lambda i: sum(r[2 + i] for r in by_verdict)  # noqa: E731
    return {
        "partitions": spark.table("events").rdd.getNumPartitions(),
        "by_type": {k: n for transcript, k, n in kinds if not transcript},
        "records_by_type": {k: n for transcript, k, n in kinds if transcript},
        "events": sum(n for _, _, n in kinds),
        "runs": sum(r[1] for r in by_verdict),
        "verdicts": {r[0]: r[1] for r in by_verdict},
        "main": {k: tokens(i) for i, k in enumerate(TOKENS)},
        "subagents": {k: tokens(4 + i) for i, k in enumerate(TOKENS)},
        "cost": math.fsum(c for r in by_verdict for c in r[11]),
        "spark_cost": sum(r[10] or 0.0 for r in by_verdict),
        "tools": per_tool,
    }


@pytest.mark.parametrize("which,max_bytes", [("realworld", None), ("generated", 256 << 10)])
def test_tables_on_spark_give_the_commands_stats(spark, generated_tree, which, max_bytes):
    root = roots(generated_tree).get(which)
    if root is None:
        pytest.skip("../shared/realworld is missing")
    want = cli_json("stats", "--json", "--quiet", root)
    options = {} if max_bytes is None else {"maxPartitionBytes": max_bytes}
    got = figures(spark, root, **options)
    if max_bytes is not None:
        # Each project folder of the tree is a task of its own.
        assert got["partitions"] == 4
    assert got["events"] == want["events"]
    assert got["by_type"] == want["by_type"]
    assert got["records_by_type"] == (want.get("transcripts") or {}).get("records_by_type", {})
    assert got["runs"] == want["runs"]
    assert got["verdicts"] == {v: n for v, n in want["verdicts"].items() if n}
    for agent in ("main", "subagents"):
        for k in TOKENS:
            assert got[agent][k] == want["usage"][agent][k], (agent, k)
    assert got["cost"] == want["total_cost_usd"]  # summed exactly, as the command does
    assert got["spark_cost"] == pytest.approx(want["total_cost_usd"], rel=1e-9)
    assert got["runs"] > 10 and got["tools"]
    assert got["tools"] == want["tools"]


def test_schema_is_the_exports(spark, generated_tree):
    # The columns, their order, types and nullability: the Arrow tables'
    # (themselves the Parquet export's, test_arrow.py) in Spark's types.
    names = {"string": "string", "int64": "bigint", "double": "double", "bool": "boolean"}
    for table in cctape.spark.TABLES:
        df = load(spark, generated_tree, table)
        arrow = cctape.to_arrow(b"", table).schema
        assert [(f.name, f.nullable) for f in df.schema] == [(f.name, f.nullable) for f in arrow]
        for f, a in zip(df.schema, arrow):
            want = "timestamp" if str(a.type).startswith("timestamp") else names[str(a.type)]
            assert f.dataType.simpleString() == want, (table, f.name)
    raw = load(spark, generated_tree, "events", raw="true")
    assert raw.schema.names[-1] == "raw" and "raw" not in load(spark, generated_tree, "events").schema.names
    # Timestamps are the instants the lines say (milliseconds, as Spark's
    # microseconds; collected as naive UTC datetimes, TZ=UTC here).
    got = sorted(r[0] for r in load(spark, generated_tree, "runs").select("started_at").collect() if r[0])
    arrow = cctape.to_arrow(str(generated_tree), "runs").column("started_at").to_pylist()
    assert got == sorted(v.replace(tzinfo=None) for v in arrow if v) and len(got) > 10


def test_partitions_hold_whole_project_folders(generated_tree):
    units = cctape._cctape.units(str(generated_tree))
    projects = {os.path.relpath(f, generated_tree).split(os.sep)[0] for u in units for f in u}
    # One unit per project folder: its sessions and their subagents' files.
    assert len(units) == len(projects) == 4
    for u in units:
        assert len({os.path.relpath(f, generated_tree).split(os.sep)[0] for f in u}) == 1
        assert any("/subagents/" in f for f in u) or len(u) >= 5
    parts = cctape.spark.pack(units, 1, 0)
    assert sorted(map(sorted, parts)) == sorted(map(sorted, units))  # never cut


def test_bad_options_say_what_is_expected(spark, generated_tree):
    with pytest.raises(Exception, match="table must be one of events, runs, tools"):
        load(spark, generated_tree, "sessions").schema
