r"""cctape: read what Claude Code writes, fast and exactly, from Python.

A thin layer over the Rust library `cctape`: the same reading, the same run
rules and the same figures as the `cctape` command, with the GIL released
while Rust works and several inputs read in parallel.

Reading (a path, a directory walked for stream files, bytes, a binary file
object, or a list of these; gzip and zstd told by their first bytes; JSON
arrays and pretty JSON read element by element)::

    >>> import cctape
    >>> data = b'{"type":"system","subtype":"init","session_id":"s1"}\nnot json\n'
    >>> [(x.kind, x.line) if x.ok else (x.kind, x.line, x.message) for x in cctape.read(data)]
    [('system/init', 1), ('invalid_json', 2, 'expected `null`')]

Live output of a running process, chunk by chunk (``for`` or ``async for``)::

    follower = cctape.follow(proc.stdout)
    for ev in follower:
        ...
    print(follower.verdict(exit_code=proc.wait()))

Run verdicts and the stats report, as ``cctape verdict --json`` and
``cctape stats --json`` print them; the export's tables as Arrow data::

    cctape.verdict("runs/")            # list of dicts, one per run
    cctape.runs("runs/")               # the same as Run objects
    cctape.stats("runs/", by="model")  # one dict
    cctape.to_arrow("runs/", table="runs")  # pyarrow / polars / DuckDB take it

What cannot be read raises: a path that cannot be opened raises the
``OSError`` ``open`` would (``FileNotFoundError``, ...), from every
function; an input that breaks off while it is read is an `InputError`
(an ``OSError`` and a `ReadError`) with ``errors="raise"`` and from
`to_arrow`. Spark: ``cctape.spark`` (a Python data source, ``format("cctape")``).
"""

from ._cctape import (
    SCHEMA_VERSION,
    ArrowTable,
    Decoder,
    Event,
    InputError,
    LineError,
    ReadError,
    __version__,
    walk,
)
from ._api import CHUNK_SIZE, Follow, Reader, Run, follow, read, runs, stats, to_arrow, verdict

__all__ = [
    "CHUNK_SIZE",
    "SCHEMA_VERSION",
    "ArrowTable",
    "Decoder",
    "Event",
    "Follow",
    "InputError",
    "LineError",
    "ReadError",
    "Reader",
    "Run",
    "__version__",
    "follow",
    "read",
    "runs",
    "stats",
    "to_arrow",
    "verdict",
    "walk",
]
