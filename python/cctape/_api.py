"""The package's Python side: `follow` over live streams, `Run` objects,
and the keyword-checked wrappers of the extension's `verdict`, `runs`,
`stats` and `to_arrow` (re-exported by `cctape`, which holds no other
name)."""

from __future__ import annotations

import dataclasses
import datetime
import itertools
import os
import time
from typing import TYPE_CHECKING, Any, AsyncIterator, Dict, Iterator, List, Optional, Union, overload

from ._cctape import Decoder, Event, LineError, ReadError, _Tail
from ._cctape import read as _read
from ._cctape import stats as _stats
from ._cctape import verdict as _verdict
from ._cctape import to_arrow as _to_arrow

if TYPE_CHECKING:
    from typing import Literal

    from ._cctape import ArrowTable, StatsReport, VerdictRecord, _Reader

    ToolKey = Literal["calls", "errors", "rejections"]
    AgentKey = Literal["main", "subagents"]
    TokenKey = Literal["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"]

#: Bytes asked of a stream at a time by `follow`.
CHUNK_SIZE = 64 * 1024


class Reader:
    """The iterator `read` returns: events and bad lines, in input order
    (each input's in line order), read by worker threads without the GIL.

    Items come in lists of up to a batch (1,024 records) that the loop
    walks in C, so a ``for`` loop pays no call per item; ``next(reader)``
    and a ``for`` loop take from the same place. Dropping the reader stops
    the workers at their next batch. `counts` are those of the inputs
    finished so far."""

    __slots__ = ("_batches", "_items")

    def __init__(self, batches: "_Reader") -> None:
        self._batches = batches
        # Lists until the empty one that says every input has ended.
        self._items: Iterator[Union[Event, LineError]] = itertools.chain.from_iterable(
            iter(batches.take, [])
        )

    def __iter__(self) -> Iterator[Union[Event, LineError]]:
        return self._items

    def __next__(self) -> Union[Event, LineError]:
        return next(self._items)

    @property
    def counts(self) -> Dict[str, int]:
        """What was read over every input finished so far: ``inputs``,
        ``lines``, ``blank_lines``, ``events``, ``errors``."""
        return self._batches.counts


def read(
    source: Any,
    *,
    format: str = "auto",
    errors: str = "yield",
    jobs: int = 0,
    max_line: Optional[int] = None,
    name: Optional[str] = None,
) -> Reader:
    r"""Events and bad lines from a path (a file, or a directory walked for
    stream files), bytes, a binary file object, or a list of these.

    ``errors``: ``"yield"`` hands bad lines out as `LineError` objects
    (an input that broke off too, ``kind == "io"``); ``"raise"`` raises
    `ReadError` at the first bad line; ``"skip"`` leaves bad lines out
    (still counted). Unless ``"yield"``, an input that breaks off raises
    `InputError`. A path that cannot be opened raises its ``OSError``
    when the call is made (a file found in a directory, when its turn
    comes).

    >>> [ev.kind for ev in read(b'{"type":"system","subtype":"init"}\n{"type":"user"}\n')]
    ['system/init', 'user']
    """
    return Reader(_read(source, format=format, errors=errors, jobs=jobs, max_line=max_line, name=name))


class Follow:
    r"""Events of a live stream, as they arrive: ``for ev in follow(f)`` over
    a binary (or text) file object such as ``subprocess.Popen(...).stdout``,
    or ``async for ev in follow(reader)`` over an ``asyncio.StreamReader``
    (``asyncio.create_subprocess_exec(..., stdout=PIPE).stdout``).

    Given a path (``str`` or ``os.PathLike``), it follows the file as
    ``tail -F`` does (``cctape -F``'s rules): what it holds, then what is
    appended, reopened when it is renamed away and re-created or
    truncated, waited for while it is deleted; file-system events wake it,
    and it looks at the file every ``poll`` seconds anyway. Such a follow
    never ends by itself: `close` it (or leave its ``with`` block), from
    any thread; ``async for`` over it waits on a worker thread, never
    blocking the event loop. ``from_end=True`` starts at the file's end.

    Each chunk is handed to a `Decoder` as it is read: a line cut between
    chunks is put together, a line longer than ``max_line`` is one
    ``line_too_long`` error (memory stays bounded), and a bad line is a
    `LineError` with its position; reading goes on. With ``errors="raise"``
    a bad line raises `ReadError`; with ``errors="skip"`` it is left out
    (still counted). A non-blocking stream whose ``read`` returns ``None``
    (nothing yet) is asked again after ``poll`` seconds, not at once.

    When the stream has ended, `verdict` gives the runs' records as
    ``cctape verdict --json`` prints them.

    >>> import io
    >>> f = follow(io.BytesIO(b'{"type":"system","subtype":"init","session_id":"s"}\n{"type":"result","subtype":"success","is_error":false,"session_id":"s"}'))
    >>> [ev.kind for ev in f]
    ['system/init', 'result/success']
    >>> [(r["verdict"], r["ok"]) for r in f.verdict(exit_code=0)]
    [('success', True)]
    """

    def __init__(
        self,
        stream: Any,
        *,
        name: Optional[str] = None,
        max_line: Optional[int] = None,
        errors: str = "yield",
        chunk_size: int = CHUNK_SIZE,
        poll: float = 0.25,
        from_end: bool = False,
    ) -> None:
        if errors not in ("yield", "raise", "skip"):
            raise ValueError(f"errors must be 'yield', 'raise' or 'skip', not {errors!r}")
        if not poll > 0:
            raise ValueError(f"poll must be > 0 seconds, not {poll!r}")
        self._tail: Optional[_Tail] = None
        if isinstance(stream, (str, os.PathLike)):
            path = os.fspath(stream)
            if isinstance(path, bytes):
                path = os.fsdecode(path)
            self._tail = _Tail(path, poll=poll, from_end=from_end)
            if name is None:
                name = path
        elif from_end:
            raise ValueError("from_end needs a path to follow")
        if name is None:
            n = getattr(stream, "name", None)
            name = n if isinstance(n, str) else "-"
        self.stream = stream
        self.decoder = Decoder(name=name, max_line=max_line)
        self.errors = errors
        self.chunk_size = chunk_size
        self.poll = poll
        self.closed = False

    def close(self) -> None:
        """Stop: a loop over the follow ends (after the lines read so far)
        within ``poll`` seconds. A file object passed in is not closed."""
        self.closed = True
        if self._tail is not None:
            self._tail.close()

    def __enter__(self) -> "Follow":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def changes(self) -> List[str]:
        """What happened to a followed path so far, oldest first:
        ``"truncated"``, ``"replaced"`` (renamed away and re-created),
        ``"gone"`` (deleted, waited for). Empty for a stream."""
        return self._tail.changes if self._tail is not None else []

    def _items(self, items: List[Union[Event, LineError]]) -> Iterator[Union[Event, LineError]]:
        for item in items:
            if isinstance(item, LineError):
                if self.errors == "skip":
                    continue
                if self.errors == "raise":
                    err = ReadError(str(item))
                    err.error = item
                    raise err
            yield item

    @staticmethod
    def _bytes(chunk: Any) -> bytes:
        return chunk.encode("utf-8") if isinstance(chunk, str) else bytes(chunk)

    def __iter__(self) -> Iterator[Union[Event, LineError]]:
        tail = self._tail
        if tail is not None:
            while not self.closed:
                # Waits up to `poll` in the extension, the GIL released.
                lines = tail.read(self.poll)
                if lines is not None:
                    yield from self._items(self.decoder.feed(lines))
            yield from self._items(self.decoder.finish())
            return
        read1 = getattr(self.stream, "read1", None)
        read = read1 if read1 is not None else self.stream.read
        while not self.closed:
            chunk = read(self.chunk_size)
            if chunk is None:
                # A non-blocking stream with nothing yet: asked again after
                # the poll interval, not at once.
                time.sleep(self.poll)
                continue
            if not chunk:
                break
            yield from self._items(self.decoder.feed(self._bytes(chunk)))
        yield from self._items(self.decoder.finish())

    async def _aiter(self) -> AsyncIterator[Union[Event, LineError]]:
        tail = self._tail
        if tail is not None:
            import asyncio

            loop = asyncio.get_running_loop()
            while not self.closed:
                lines = await loop.run_in_executor(None, tail.read, self.poll)
                if lines is not None:
                    for item in self._items(self.decoder.feed(lines)):
                        yield item
        else:
            while not self.closed:
                chunk = await self.stream.read(self.chunk_size)
                if not chunk:
                    break
                for item in self._items(self.decoder.feed(self._bytes(chunk))):
                    yield item
        for item in self._items(self.decoder.finish()):
            yield item

    def __aiter__(self) -> AsyncIterator[Union[Event, LineError]]:
        return self._aiter()

    def verdict(self, exit_code: Optional[int] = None) -> List["VerdictRecord"]:
        """The runs read, as ``cctape verdict --json`` records (the stream
        must have ended); ``exit_code`` (the process's) applies to the last
        run: non-zero fails it, zero over a failed run is a warning."""
        return self.decoder.verdict(exit_code=exit_code)

    def runs(self, exit_code: Optional[int] = None) -> List["Run"]:
        """`verdict` as `Run` objects."""
        return [Run.from_dict(r) for r in self.verdict(exit_code=exit_code)]

    @property
    def counts(self) -> Dict[str, int]:
        """Lines, blank lines, events and errors so far."""
        return self.decoder.counts


def follow(
    stream: Any,
    *,
    name: Optional[str] = None,
    max_line: Optional[int] = None,
    errors: str = "yield",
    chunk_size: int = CHUNK_SIZE,
    poll: float = 0.25,
    from_end: bool = False,
) -> Follow:
    """Follow a live stream (a file object, or an asyncio ``StreamReader``
    with ``async for``), or a growing file by its path as ``tail -F``
    does: see `Follow`."""
    return Follow(
        stream,
        name=name,
        max_line=max_line,
        errors=errors,
        chunk_size=chunk_size,
        poll=poll,
        from_end=from_end,
    )


class _Tokens:
    """A token count of a run's record: one agent's best figure
    (``usage.main`` or ``usage.subagents``), or the sum of both."""

    def __init__(self, *agents: "AgentKey", key: "TokenKey") -> None:
        self.agents = agents
        self.key: "TokenKey" = key
        who = " and ".join({"main": "the main agent", "subagents": "the subagents"}[a] for a in agents)
        self.__doc__ = f"``{key}`` of {who} (the best figure, ``usage.{'/'.join(agents)}``)."

    @overload
    def __get__(self, run: None, owner: Any) -> "_Tokens": ...
    @overload
    def __get__(self, run: "Run", owner: Any) -> int: ...
    def __get__(self, run: Optional["Run"], owner: Any) -> Union[int, "_Tokens"]:
        if run is None:
            return self
        usage = run.record["usage"]
        return sum(usage[a][self.key] for a in self.agents)


class _ToolCount:
    """A count over a run's tools (``tools.*.calls``, ``errors`` or
    ``rejections``), main agent and subagents."""

    def __init__(self, key: "ToolKey") -> None:
        self.key: "ToolKey" = key
        self.__doc__ = f"Tool calls' ``{key}`` summed over the run's tools."

    @overload
    def __get__(self, run: None, owner: Any) -> "_ToolCount": ...
    @overload
    def __get__(self, run: "Run", owner: Any) -> int: ...
    def __get__(self, run: Optional["Run"], owner: Any) -> Union[int, "_ToolCount"]:
        if run is None:
            return self
        return sum(t[self.key] for t in run.record["tools"].values())


@dataclasses.dataclass(frozen=True)
class Run:
    r"""One run's verdict record (``cctape verdict --json``): the most used
    fields as attributes, the figures a harness compares as typed
    properties (the same names and values as the columns of the ``runs``
    table, ``docs/export-schema.md``), every field in `record`, and
    `to_dict` for the record as the command prints it.

    >>> r = runs(b'{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.5,'
    ...          b'"usage":{"input_tokens":3,"output_tokens":7}}\n')[0]
    >>> r.verdict, r.main_output_tokens, r.main_tokens_source, r.cost_source, r.tool_calls
    ('success', 7, 'results', 'results', 0)
    """

    verdict: Optional[str]
    ok: bool
    file: str
    session_id: Optional[str]
    subtype: Optional[str]
    num_turns: Optional[int]
    duration_ms: Optional[int]
    total_cost_usd: Optional[Union[float, str]]
    model: Optional[str]
    #: The main agent's output tokens (the best figure): `main_output_tokens`.
    output_tokens: Optional[int]
    warnings: List[str]
    record: "VerdictRecord" = dataclasses.field(repr=False, compare=False)

    @classmethod
    def from_dict(cls, r: "VerdictRecord") -> "Run":
        usage: Dict[str, Any] = dict(r.get("usage") or {})
        main = usage.get("main") or {}
        return cls(
            verdict=r.get("verdict"),
            ok=bool(r.get("ok")),
            file=r.get("file", ""),
            session_id=r.get("session_id"),
            subtype=r.get("subtype"),
            num_turns=r.get("num_turns"),
            duration_ms=r.get("duration_ms"),
            total_cost_usd=r.get("total_cost_usd"),
            model=r.get("model"),
            output_tokens=main.get("output_tokens"),
            warnings=[w.get("code") for w in r.get("warnings") or []],
            record=r,
        )

    def to_dict(self) -> "VerdictRecord":
        """The record, keys in the documented order."""
        return self.record.copy()

    #: The main agent's best figure (``usage.main``), as the ``runs``
    #: table's ``main_*`` columns.
    main_input_tokens = _Tokens("main", key="input_tokens")
    main_output_tokens = _Tokens("main", key="output_tokens")
    main_cache_read_input_tokens = _Tokens("main", key="cache_read_input_tokens")
    main_cache_creation_input_tokens = _Tokens("main", key="cache_creation_input_tokens")
    #: All subagents together (``usage.subagents``): ``subagent_*``.
    subagent_input_tokens = _Tokens("subagents", key="input_tokens")
    subagent_output_tokens = _Tokens("subagents", key="output_tokens")
    subagent_cache_read_input_tokens = _Tokens("subagents", key="cache_read_input_tokens")
    subagent_cache_creation_input_tokens = _Tokens("subagents", key="cache_creation_input_tokens")
    #: The main agent and the subagents together.
    total_input_tokens = _Tokens("main", "subagents", key="input_tokens")
    total_output_tokens = _Tokens("main", "subagents", key="output_tokens")
    total_cache_read_input_tokens = _Tokens("main", "subagents", key="cache_read_input_tokens")
    total_cache_creation_input_tokens = _Tokens("main", "subagents", key="cache_creation_input_tokens")
    #: Tool calls (``tool_use`` blocks) of the main agent and the subagents,
    #: those whose result was an error (rejections not counted), and those
    #: rejected (permission denials): the ``runs`` table's columns.
    tool_calls = _ToolCount("calls")
    tool_errors = _ToolCount("errors")
    tool_rejections = _ToolCount("rejections")

    @property
    def main_tokens_source(self) -> str:
        """Where the main agent's figures come from: ``final_calls``,
        ``results``, ``results_and_complete_calls``, ``snapshot_calls`` (a
        lower bound), ``transcript_requests``, ``none``
        (docs/accounting.md)."""
        return self.record["usage"]["main"]["source"]

    @property
    def wall_ms(self) -> Optional[int]:
        """From the run's first ``timestamp`` to its last, in milliseconds
        (None for streams without timestamps)."""
        return self.record["wall_ms"]

    @property
    def cost_source(self) -> str:
        """Where `total_cost_usd` comes from: ``results`` (a stream's),
        ``records`` (a transcript's ``costUSD``), ``price_table``,
        ``records_and_price_table``, ``none``."""
        return self.record["cost"]["source"]


PathLike = Union[str, "os.PathLike[str]"]


def verdict(
    source: Any,
    *,
    exit_code: Union[None, int, Dict[Any, int]] = None,
    format: str = "auto",
    jobs: int = 0,
    max_line: Optional[int] = None,
    name: Optional[str] = None,
    pricing: Optional[PathLike] = None,
    timezone: Optional[str] = None,
    since: Union[None, str, "datetime.date"] = None,
    until: Union[None, str, "datetime.date"] = None,
) -> List["VerdictRecord"]:
    r"""The verdict records of every run, as ``cctape verdict --json``
    prints them (transcript sessions' after every input's). ``since`` and
    ``until`` are ``--since``/``--until`` (as in `stats`): the runs that
    started on those days.

    >>> [r["verdict"] for r in verdict(b'{"type":"result","subtype":"success","is_error":false}\n')]
    ['success']
    """
    return _verdict(
        source,
        exit_code=exit_code,
        format=format,
        jobs=jobs,
        max_line=max_line,
        name=name,
        pricing=pricing,
        timezone=timezone,
        since=_day(since),
        until=_day(until),
    )


def runs(
    source: Any,
    *,
    exit_code: Union[None, int, Dict[Any, int]] = None,
    format: str = "auto",
    jobs: int = 0,
    max_line: Optional[int] = None,
    name: Optional[str] = None,
    pricing: Optional[PathLike] = None,
    timezone: Optional[str] = None,
    since: Union[None, str, "datetime.date"] = None,
    until: Union[None, str, "datetime.date"] = None,
) -> List[Run]:
    r"""`verdict` as `Run` objects.

    >>> [r.verdict for r in runs(b'{"type":"result","subtype":"error_max_turns","is_error":false}\n')]
    ['max_turns']
    """
    return [
        Run.from_dict(r)
        for r in verdict(
            source,
            exit_code=exit_code,
            format=format,
            jobs=jobs,
            max_line=max_line,
            name=name,
            pricing=pricing,
            timezone=timezone,
            since=since,
            until=until,
        )
    ]


def to_arrow(
    source: Any,
    table: str = "events",
    *,
    raw: bool = False,
    pyarrow: bool = True,
    format: str = "auto",
    jobs: int = 0,
    max_line: Optional[int] = None,
    name: Optional[str] = None,
    pricing: Optional[PathLike] = None,
    timezone: Optional[str] = None,
) -> Any:
    r"""The Parquet export's table (``events``, ``runs`` or ``tools``; the
    same columns, types and rows as ``cctape export`` writes, see
    ``docs/export-schema.md``) as Arrow data, through the Arrow C stream
    interface: no copy into Python objects.

    Returns a ``pyarrow.Table`` (``polars.from_arrow(t)``, ``t.to_pandas()``,
    ``duckdb.sql("... from t")``); with ``pyarrow=False`` a `ArrowTable`,
    which implements ``__arrow_c_stream__`` for pyarrow-free consumers
    (``duckdb.sql("... from t")``, ``polars.DataFrame(t)``,
    ``pandas.DataFrame.from_arrow(t)``). ``raw=True`` adds the ``raw``
    column (each event's line) to ``events``.

    >>> t = to_arrow(b'{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.25}\n', "runs")
    >>> t.column("verdict").to_pylist(), t.column("total_cost_usd").to_pylist()
    (['success'], [0.25])
    """
    t = _to_arrow(
        source,
        table,
        raw=raw,
        format=format,
        jobs=jobs,
        max_line=max_line,
        name=name,
        pricing=pricing,
        timezone=timezone,
    )
    if not pyarrow:
        return t
    try:
        import pyarrow as pa
    except ImportError as e:
        raise ImportError(
            "to_arrow returns a pyarrow.Table: pip install pyarrow (or cctape[arrow]), "
            "or pass pyarrow=False for the PyCapsule object"
        ) from e
    return pa.table(t)


def stats(
    source: Any,
    *,
    by: Optional[str] = None,
    format: str = "auto",
    jobs: int = 0,
    max_line: Optional[int] = None,
    name: Optional[str] = None,
    pricing: Optional[PathLike] = None,
    timezone: Optional[str] = None,
    since: Union[None, str, "datetime.date"] = None,
    until: Union[None, str, "datetime.date"] = None,
) -> "StatsReport":
    r"""The report ``cctape stats --json [--by KEY]`` prints, as one dict
    (keys in the documented order, ``docs/accounting.md``); ``by`` is
    ``file``, ``session``, ``project``, ``model``, ``version``, ``day``,
    ``week`` (ISO weeks, keyed by their Monday), ``month`` or ``block``
    (ccusage's five-hour billing blocks, keyed by their start).
    ``pricing`` (a JSON price file overriding the shipped table) and
    ``timezone`` (an IANA name; the system's by default) are ``--pricing``
    and ``--timezone``: what session transcripts' requests cost, and the
    day each was made on. ``since`` and ``until`` (``--since``/``--until``:
    a ``datetime.date`` or ``"YYYY-MM-DD"``/``"YYYYMMDD"``, both included)
    keep the runs that started, and the transcript requests made, on those
    days in that zone.

    >>> s = stats(b'{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.5}\n')
    >>> s["runs"], s["verdicts"]["success"], s["total_cost_usd"]
    (1, 1, 0.5)
    """
    return _stats(
        source,
        by=by,
        format=format,
        jobs=jobs,
        max_line=max_line,
        name=name,
        pricing=pricing,
        timezone=timezone,
        since=_day(since),
        until=_day(until),
    )


def _day(d: Any) -> Optional[str]:
    """A ``since``/``until`` value as the day string the extension takes."""
    if d is None or isinstance(d, str):
        return d
    if isinstance(d, datetime.datetime):
        d = d.date()
    if isinstance(d, datetime.date):
        return d.isoformat()
    raise TypeError(f"expected a datetime.date or a string, got {type(d).__name__}")
