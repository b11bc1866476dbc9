"""Arrow tables: the same schema and the same rows as the Parquet export
(`cctape export`, read back by pyarrow), taken by DuckDB, polars and pandas
without pyarrow in between."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import cctape
from conftest import CLI_FORMAT, REALWORLD, REPO, run_cli

TABLES = ("events", "runs", "tools")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    src = REALWORLD if REALWORLD.is_dir() else REPO / "corpus"
    out = tmp_path_factory.mktemp("exported")
    # The corpus holds bad lines (corpus/streams/mixed-bad.jsonl): they are
    # missing from the tables, which are written without them, so the exit
    # code is 2 (as grep's after an error; `cctape export --help`).
    run_cli("export", "--quiet", "--raw", "--out", out, src, REPO / "corpus", check_codes=(2,))
    for t in TABLES:
        assert list((out / t).glob("*.parquet")), t
    return src, out


@pytest.mark.parametrize("table", TABLES)
def test_schema_and_rows_equal_the_parquet_export(exported, table):
    src, out = exported
    want = pq.read_table(out / table)
    got = cctape.to_arrow([str(src), str(REPO / "corpus")], table, raw=True, format=CLI_FORMAT)
    assert isinstance(got, pa.Table)
    # Names, types (timestamps in ms, UTC) and nullability, in order.
    assert [(f.name, f.type, f.nullable) for f in got.schema] == [
        (f.name, f.type, f.nullable) for f in want.schema
    ]
    assert got.schema.metadata[b"cctape.schema_version"] == cctape.SCHEMA_VERSION.encode()
    assert got.num_rows == want.num_rows > 0
    assert got.equals(want.cast(got.schema))


def test_without_raw_the_column_is_absent():
    t = cctape.to_arrow(str(REPO / "corpus" / "streams"))
    assert "raw" not in t.column_names and "kind" in t.column_names


def test_engines_take_the_capsule_object_without_pyarrow():
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    pd = pytest.importorskip("pandas")
    runs = cctape.to_arrow(str(REPO / "corpus" / "streams"), "runs", pyarrow=False)
    assert type(runs).__name__ == "ArrowTable" and len(runs) == runs.num_rows
    want = {r["verdict"]: 0 for r in cctape.verdict(str(REPO / "corpus" / "streams"))}
    for r in cctape.verdict(str(REPO / "corpus" / "streams")):
        want[r["verdict"]] += 1
    got = dict(duckdb.sql("SELECT verdict, count(*) FROM runs GROUP BY 1").fetchall())
    assert got == want
    # The stream can be taken again and again.
    assert duckdb.sql("SELECT count(*) FROM runs").fetchall() == [(sum(want.values()),)]
    assert pl.DataFrame(runs).shape == (sum(want.values()), len(runs.column_names))
    assert runs.to_polars().shape == pl.DataFrame(runs).shape
    if hasattr(pd.DataFrame, "from_arrow"):
        assert pd.DataFrame.from_arrow(runs).shape[0] == sum(want.values())
    assert runs.to_pandas().shape[0] == sum(want.values())
    assert pl.from_arrow(runs.to_pyarrow()).shape == pl.DataFrame(runs).shape
