"""Spark: cctape as a Python data source (Spark 4's
``pyspark.sql.datasource``), registered as ``cctape``.

    import cctape.spark
    cctape.spark.register(spark)            # once per SparkSession
    runs = spark.read.format("cctape").option("table", "runs").load("archive/")

The tables and their schema are the export's (``events``, ``runs``,
``tools``; docs/export-schema.md), read straight from the raw files: no
Parquet in between. The driver walks ``path`` as ``cctape`` walks it and
cuts the inputs into partitions of whole units (`cctape._cctape.units`: a
stream file alone, a session transcript's files by project folder, since a
session's subagents are other files); each task reads its partition with
`cctape.to_arrow` on the executor and hands Spark Arrow record batches.
So every figure is the command's: ``sum(main_output_tokens)`` over ``runs``
is ``cctape stats --json`` ``usage.main.output_tokens``, however the
archive is cut.

Options (all strings, as Spark passes them):

- ``table``: ``events`` (default), ``runs`` or ``tools``;
- ``raw``: ``true`` adds ``events.raw`` (each event's line);
- ``format``: ``auto`` (default), ``stream``, ``json``, ``transcript``;
- ``pricing``, ``timezone``: as ``cctape stats --pricing/--timezone``
  (transcripts' costs and days);
- ``maxPartitionBytes``: the bytes of input a partition takes before the
  next one starts (default 128 MiB, Spark's ``spark.sql.files.maxPartitionBytes``;
  a unit larger than that is a partition of its own), each file counted
  with ``openCostInBytes`` more (default 4 MiB, as Spark does).

Every executor needs the same Python packages as the driver (cctape and
pyarrow): set ``PYSPARK_PYTHON`` to that interpreter (or ship a venv).
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import (
    BooleanType,
    DataType,
    DoubleType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from . import _cctape
from ._api import to_arrow

__all__ = ["CctapeDataSource", "register"]

#: The export's tables.
TABLES = ("events", "runs", "tools")
#: Spark's defaults for file sources.
MAX_PARTITION_BYTES = 128 << 20
OPEN_COST_BYTES = 4 << 20


def register(spark: Any) -> None:
    """Register the data source with a SparkSession: then
    ``spark.read.format("cctape")`` reads raw captures and transcripts."""
    spark.dataSource.register(CctapeDataSource)


def _options(options: Any) -> Dict[str, str]:
    """Spark's options, keys in lower case (Spark's are case-insensitive,
    and it hands them over lower-cased)."""
    return {str(k).lower(): v for k, v in dict(options).items()}


def _flag(options: Dict[str, str], key: str) -> bool:
    v = str(options.get(key, "false")).strip().lower()
    if v not in ("true", "false"):
        raise ValueError(f"cctape: option {key} must be true or false, not {v!r}")
    return v == "true"


def _table(options: Dict[str, str]) -> str:
    t = options.get("table", "events")
    if t not in TABLES:
        raise ValueError(f"cctape: option table must be one of {', '.join(TABLES)}, not {t!r}")
    return t


def _spark_type(t: pa.DataType) -> DataType:
    if pa.types.is_string(t):
        return StringType()
    if pa.types.is_int64(t):
        return LongType()
    if pa.types.is_timestamp(t):
        return TimestampType()
    if pa.types.is_float64(t):
        return DoubleType()
    if pa.types.is_boolean(t):
        return BooleanType()
    raise TypeError(f"cctape: no Spark type for {t}")


def spark_schema(table: str, raw: bool = False) -> StructType:
    """The table's Spark schema, from its Arrow schema (`to_arrow`'s, the
    export's columns): string, bigint, timestamp (UTC instants), double
    and boolean columns, nullable where the export's are
    (docs/export-schema.md, "Types")."""
    schema = to_arrow(b"", table, raw=raw).schema
    return StructType([StructField(f.name, _spark_type(f.type), f.nullable) for f in schema])


def _batch_schema(schema: pa.Schema) -> pa.Schema:
    """The Arrow schema Spark takes the batches in: timestamps in
    microseconds (Spark's unit), the rest as they are."""
    return pa.schema(
        [
            pa.field(f.name, pa.timestamp("us", tz="UTC"), f.nullable) if pa.types.is_timestamp(f.type) else f
            for f in schema
        ],
        metadata=schema.metadata,
    )


class FilesPartition(InputPartition):
    """Whole units of inputs (see the module's doc), read by one task."""

    def __init__(self, files: List[str]) -> None:
        super().__init__(files)
        self.files = files


def pack(units: Sequence[List[str]], max_bytes: int, open_cost: int) -> List[List[str]]:
    """Units into partitions as Spark packs files (largest first, a new
    partition when the next would pass `max_bytes`), each file counted with
    `open_cost` more; the files of a partition in their walk order."""
    order = {f: i for i, u in enumerate(units) for f in u}

    def size(u: List[str]) -> int:
        return sum(os.path.getsize(f) + open_cost for f in u)

    parts: List[List[str]] = []
    current: List[str] = []
    used = 0
    for u in sorted(units, key=size, reverse=True):
        s = size(u)
        if current and used + s > max_bytes:
            parts.append(current)
            current, used = [], 0
        current.extend(u)
        used += s
    if current:
        parts.append(current)
    return [sorted(p, key=order.__getitem__) for p in parts]


class CctapeReader(DataSourceReader):
    """Partitions of whole units, each read by cctape on an executor."""

    def __init__(self, options: Mapping[str, str], schema: Optional[StructType]) -> None:
        self.options = _options(options)
        self.table = _table(self.options)
        self.raw = _flag(self.options, "raw")
        self.fmt = self.options.get("format", "auto")
        self.pricing = self.options.get("pricing")
        self.timezone = self.options.get("timezone")
        path = self.options.get("path")
        if not path:
            raise ValueError('cctape: no path: spark.read.format("cctape").load(PATH)')
        self.path = path
        self.max_bytes = int(self.options.get("maxpartitionbytes", MAX_PARTITION_BYTES))
        self.open_cost = int(self.options.get("opencostinbytes", OPEN_COST_BYTES))

    def partitions(self) -> Sequence[InputPartition]:
        units = _cctape.units(self.path, format=self.fmt)
        return [FilesPartition(p) for p in pack(units, self.max_bytes, self.open_cost)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        files = partition.value
        t = to_arrow(
            files,
            self.table,
            raw=self.raw,
            format=self.fmt,
            jobs=1,
            pricing=self.pricing,
            timezone=self.timezone,
        )
        yield from t.cast(_batch_schema(t.schema)).to_batches()


class CctapeDataSource(DataSource):
    """``spark.read.format("cctape")``: the export's tables of raw captures
    and transcripts (see the module's doc for the options)."""

    @classmethod
    def name(cls) -> str:
        return "cctape"

    def schema(self) -> StructType:
        options = _options(self.options)
        return spark_schema(_table(options), _flag(options, "raw"))

    def reader(self, schema: StructType) -> DataSourceReader:
        return CctapeReader(self.options, schema)
