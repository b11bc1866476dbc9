"""Type stubs of the extension module (the Rust side of `cctape`)."""

import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

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

class Event:
    """One event; hot fields decoded once, anything else read on demand."""

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
    def usage(self) -> Optional[Dict[str, int]]: ...
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
    def to_dict(self) -> Dict[str, Any]: ...

class Reader:
    """The iterator `read` returns."""

    def __iter__(self) -> "Reader": ...
    def __next__(self) -> Union[Event, LineError]: ...
    @property
    def counts(self) -> Dict[str, int]: ...

class Decoder:
    """The push reader under `follow`."""

    def __init__(self, name: str = "-", max_line: Optional[int] = None) -> None: ...
    def feed(self, data: bytes) -> List[Union[Event, LineError]]: ...
    def finish(self) -> List[Union[Event, LineError]]: ...
    def verdict(self, exit_code: Optional[int] = None) -> List[Dict[str, Any]]: ...
    @property
    def counts(self) -> Dict[str, int]: ...
    @property
    def bytes(self) -> int: ...
    @property
    def pending(self) -> int: ...

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
) -> Reader: ...
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
) -> List[Dict[str, Any]]: ...
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
) -> Dict[str, Any]: ...
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
