"""Type stubs of the extension module (the Rust side of `cctape`), and the
records `verdict` and `stats` return as TypedDicts, keys in the order the
command prints them (docs/accounting.md, "JSON key order";
python/tests/test_typing.py checks both against real output)."""

import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from typing_extensions import NotRequired, TypedDict

__version__: str

# ---- the records `verdict` returns (`cctape verdict --json`) ----

class TokenCounts(TypedDict):
    """The four token counts."""

    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int

class AgentFigures(TypedDict):
    """Every figure of an agent, for audit."""

    calls: TokenCounts
    reported: Optional[TokenCounts]
    model_usage: Optional[TokenCounts]

class AgentUsage(TypedDict):
    """An agent's best figure (`usage.main`, `usage.subagents`) and its source."""

    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int
    source: str
    lower_bound: bool
    messages: int
    final_calls: int
    figures: AgentFigures

class ModelEntry(TypedDict):
    """A `usage.by_model` entry (a `modelUsage` model)."""

    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int
    cost_usd: Optional[float]
    role: str
    auxiliary: bool
    summed: Optional[TokenCounts]

class RoleRow(TypedDict):
    """A `usage.by_role` row: one model in one role."""

    model: str
    role: str
    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int
    cost_usd: Optional[float]
    from_model_usage: bool

class RunUsage(TypedDict):
    """A run's `usage`."""

    main: AgentUsage
    subagents: AgentUsage
    by_model: Dict[str, ModelEntry]
    by_role: List[RoleRow]
    models: TokenCounts
    auxiliary: TokenCounts
    synthetic_messages: int

class RunCost(TypedDict):
    """A run's `cost`: the total, its split by role, and its `source`."""

    total_cost_usd: Union[None, float, str]
    model_usage_cost_usd: Optional[float]
    main_cost_usd: float
    subagent_cost_usd: float
    auxiliary_cost_usd: float
    matches: Optional[bool]
    source: str

class ToolFigures(TypedDict):
    """A tool's figures in a run's `tools`."""

    calls: int
    errors: int
    rejections: int
    unanswered: int
    timed: int
    total_ms: int
    max_ms: Optional[int]

class LineSpan(TypedDict):
    first: int
    last: int

class ApiRetries(TypedDict):
    count: int
    statuses: Dict[str, int]
    last_error: Optional[str]
    last_status: Optional[int]

class Hooks(TypedDict):
    started: int
    responses: int
    failures: List[Dict[str, Any]]

class RunWarning(TypedDict):
    """A warning of the run layer."""

    code: str
    message: str
    line: int

class NoEvents(TypedDict):
    """What an input without events is (`no_events`)."""

    format: str
    first_line: Optional[str]
    last_line: Optional[str]
    final_error: Optional[Dict[str, Any]]
    advice: str

class VerdictRecord(TypedDict):
    """One run's record, as `cctape verdict --json` prints it. An input
    without events has `no_events` after `file`; a transcript session's
    record has `transcript` there (docs/transcripts.md)."""

    verdict: str
    ok: bool
    file: str
    no_events: NotRequired[NoEvents]
    transcript: NotRequired[Dict[str, Any]]
    session_id: Optional[str]
    stream_verdict: str
    exit_code: Optional[int]
    verdict_source: str
    results: int
    is_error: Optional[bool]
    subtype: Optional[str]
    terminal_reason: Optional[str]
    stop_reason: Optional[str]
    num_turns: Optional[int]
    duration_ms: Optional[int]
    duration_ms_sum: Optional[int]
    wall_ms: Optional[int]
    total_cost_usd: Union[None, float, str]
    result_text: Optional[str]
    errors: List[str]
    api_error_status: Optional[int]
    startup_failure_reason: Optional[str]
    events: int
    lines: LineSpan
    rounds: int
    model: Optional[str]
    claude_code_version: Optional[str]
    started_at: Optional[str]
    ended_at: Optional[str]
    usage: RunUsage
    cost: RunCost
    tools: Dict[str, ToolFigures]
    tool_results_without_use: int
    subagent_count: int
    subagents: List[Dict[str, Any]]
    subagent_check: Optional[Dict[str, Any]]
    api_retries: ApiRetries
    api_errors: List[Dict[str, Any]]
    permission_denials: List[Dict[str, Any]]
    hooks: Hooks
    notifications: List[Dict[str, Any]]
    compactions: int
    partial_messages: Optional[Dict[str, Any]]
    usage_checks: List[Dict[str, Any]]
    bad_lines: int
    truncated: bool
    warnings: List[RunWarning]

# ---- the report `stats` returns (`cctape stats --json`) ----

class ErrorEntry(TypedDict):
    """A bad line, as `LineError.to_dict()` gives it."""

    file: str
    line: int
    offset: int
    column: Optional[int]
    kind: str
    message: str

class InputsWithoutEvents(TypedDict):
    count: int
    by_format: Dict[str, int]
    inputs: List[Dict[str, Any]]

class AgentTotals(TypedDict):
    """An agent's figures summed over runs (`usage.main`, `usage.subagents`)."""

    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int
    messages: int
    lower_bound_runs: int
    calls: TokenCounts

class StatsUsage(TypedDict):
    main: AgentTotals
    subagents: AgentTotals
    auxiliary: TokenCounts
    all_models: TokenCounts

class ToolTotals(TypedDict):
    calls: int
    errors: int
    rejections: int

class Subagents(TypedDict):
    count: int
    by_type: Dict[str, int]

class Tasks(TypedDict):
    by_type: Dict[str, int]

class WarningFirst(TypedDict):
    file: str
    line: int

class WarningTotals(TypedDict):
    count: int
    first: WarningFirst

class Group(TypedDict):
    """A row of `groups` (`by=`)."""

    key: str
    role: NotRequired[str]
    block_end: NotRequired[str]
    last_activity: NotRequired[str]
    runs: int
    verdicts: Dict[str, int]
    total_cost_usd: Union[float, str]
    tokens: TokenCounts
    main: TokenCounts
    subagents_tokens: TokenCounts
    tool_calls: int
    tool_errors: int
    subagents: int
    api_retries: int
    by_model: Dict[str, Any]

class StatsReport(TypedDict):
    """The report, as `cctape stats --json [--by KEY]` prints it."""

    files: int
    formats: Dict[str, int]
    bytes: int
    lines: int
    blank_lines: int
    events: int
    by_type: Dict[str, int]
    unknown: Dict[str, int]
    error_count: int
    errors: List[ErrorEntry]
    inputs_without_events: InputsWithoutEvents
    transcripts: NotRequired[Dict[str, Any]]
    runs: int
    verdicts: Dict[str, int]
    total_cost_usd: Union[float, str]
    costs_not_summed: int
    usage: StatsUsage
    cost_by_role: Dict[str, float]
    cost_by_source: Dict[str, float]
    by_model: Dict[str, Any]
    tools: Dict[str, ToolTotals]
    subagents: Subagents
    tasks: Tasks
    api_retries: int
    warnings: Dict[str, WarningTotals]
    since: NotRequired[Optional[str]]
    until: NotRequired[Optional[str]]
    time_zone: NotRequired[str]
    groups: NotRequired[List[Group]]
    per_file: List[Dict[str, Any]]

# ---- the extension's classes and functions ----

_Source = Union[
    str,
    "os.PathLike[str]",
    bytes,
    bytearray,
    memoryview,
    Any,  # a binary (or text) file object with .read / .read1
    Sequence[Any],
]

SCHEMA_VERSION: str

class ReadError(Exception):
    """Raised for a bad line with ``errors="raise"``."""

    error: "LineError"

class InputError(ReadError, OSError):
    """An input that broke off while it was read (``errors="raise"`` or
    ``"skip"``, and `to_arrow`)."""

    error: "LineError"

class Event:
    """One event; hot fields decoded once, anything else read on demand."""

    def __init__(self, raw: bytes, file: str = "<bytes>", line: int = 1, offset: int = 0) -> None: ...
    def __reduce__(self) -> Tuple[Any, ...]: ...

    @property
    def type(self) -> str: ...
    @property
    def subtype(self) -> Optional[str]: ...
    @property
    def kind(self) -> str: ...
    @property
    def session_id(self) -> Optional[str]: ...
    @property
    def line(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def file(self) -> str: ...
    @property
    def raw(self) -> bytes: ...
    @property
    def ok(self) -> bool: ...
    def json(self) -> Dict[str, Any]: ...
    def get(self, path: str, default: Any = None) -> Any: ...
    def __getitem__(self, path: str) -> Any: ...
    def __contains__(self, path: str) -> bool: ...
    @property
    def uuid(self) -> Optional[str]: ...
    @property
    def parent_tool_use_id(self) -> Optional[str]: ...
    @property
    def timestamp(self) -> Optional[str]: ...
    @property
    def model(self) -> Optional[str]: ...
    @property
    def message_id(self) -> Optional[str]: ...
    @property
    def usage(self) -> Optional[TokenCounts]: ...
    @property
    def total_cost_usd(self) -> Optional[float]: ...
    @property
    def is_error(self) -> Optional[bool]: ...
    @property
    def num_turns(self) -> Optional[int]: ...
    @property
    def duration_ms(self) -> Optional[int]: ...
    @property
    def content_type(self) -> Optional[str]: ...
    @property
    def tool_name(self) -> Optional[str]: ...
    @property
    def tool_use_id(self) -> Optional[str]: ...

class LineError:
    """A line that is not an event, or why an input broke off (kind "io")."""

    file: str
    line: int
    offset: int
    column: Optional[int]
    element: Optional[int]
    kind: str
    message: str
    raw: Optional[bytes]
    @property
    def ok(self) -> bool: ...
    @property
    def fatal(self) -> bool: ...
    def to_dict(self) -> ErrorEntry: ...
    def __reduce__(self) -> Tuple[Any, ...]: ...

class _Reader:
    """The batches under `cctape.Reader`."""

    def take(self) -> List[Union[Event, LineError]]: ...
    @property
    def counts(self) -> Dict[str, int]: ...

class Decoder:
    """The push reader under `follow`."""

    def __init__(self, name: str = "-", max_line: Optional[int] = None) -> None: ...
    def feed(self, data: bytes) -> List[Union[Event, LineError]]: ...
    def finish(self) -> List[Union[Event, LineError]]: ...
    def verdict(self, exit_code: Optional[int] = None) -> List[VerdictRecord]: ...
    @property
    def counts(self) -> Dict[str, int]: ...
    @property
    def bytes(self) -> int: ...
    @property
    def pending(self) -> int: ...

class _Tail:
    """A followed path (the rules of ``tail -F``), under `follow`."""

    def __init__(self, path: str, *, poll: float = 0.25, from_end: bool = False) -> None: ...
    def read(self, timeout: float) -> Optional[bytes]: ...
    @property
    def changes(self) -> List[str]: ...
    def close(self) -> None: ...

class ArrowTable:
    """An export table as Arrow data (PyCapsule interface)."""

    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def __arrow_c_schema__(self) -> object: ...
    @property
    def table(self) -> str: ...
    @property
    def num_rows(self) -> int: ...
    @property
    def num_batches(self) -> int: ...
    @property
    def column_names(self) -> List[str]: ...
    def to_pyarrow(self) -> Any: ...
    def to_pandas(self) -> Any: ...
    def to_polars(self) -> Any: ...
    def __len__(self) -> int: ...

def read(
    source: _Source,
    *,
    format: str = "auto",
    errors: str = "yield",
    jobs: int = 0,
    max_line: Optional[int] = None,
    name: Optional[str] = None,
) -> _Reader: ...
def verdict(
    source: _Source,
    *,
    exit_code: Union[None, int, Mapping[Any, int]] = None,
    format: str = "auto",
    jobs: int = 0,
    max_line: Optional[int] = None,
    name: Optional[str] = None,
    pricing: Union[None, str, "os.PathLike[str]"] = None,
    timezone: Optional[str] = None,
    since: Optional[str] = None,
    until: Optional[str] = None,
) -> List[VerdictRecord]: ...
def stats(
    source: _Source,
    *,
    by: Optional[str] = None,
    format: str = "auto",
    jobs: int = 0,
    max_line: Optional[int] = None,
    name: Optional[str] = None,
    pricing: Union[None, str, "os.PathLike[str]"] = None,
    timezone: Optional[str] = None,
    since: Optional[str] = None,
    until: Optional[str] = None,
) -> StatsReport: ...
def to_arrow(
    source: _Source,
    table: str = "events",
    *,
    raw: bool = False,
    format: str = "auto",
    jobs: int = 0,
    max_line: Optional[int] = None,
    name: Optional[str] = None,
    pricing: Union[None, str, "os.PathLike[str]"] = None,
    timezone: Optional[str] = None,
) -> ArrowTable: ...
def walk(
    path: Union[str, "os.PathLike[str]"],
    *,
    follow_links: bool = False,
    glob: List[str] = ...,
    iglob: List[str] = ...,
) -> List[str]: ...
def units(
    source: _Source,
    *,
    format: str = "auto",
    jobs: int = 0,
) -> List[List[str]]: ...
