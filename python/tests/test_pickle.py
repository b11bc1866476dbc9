"""Events and bad lines pickle: a round trip keeps every property, in this
process and through multiprocessing (another interpreter, which imports
cctape anew), so that they can be handed to a process pool."""

import multiprocessing
import pickle

import pytest

import cctape
from conftest import CLI_FORMAT, REALWORLD, REPO

EVENT_PROPERTIES = [
    "type", "subtype", "kind", "session_id", "line", "offset", "file", "raw", "ok",
    "uuid", "parent_tool_use_id", "timestamp", "model", "message_id", "usage",
    "total_cost_usd", "is_error", "num_turns", "duration_ms", "content_type",
    "tool_name", "tool_use_id",
]
ERROR_PROPERTIES = ["file", "line", "offset", "column", "element", "kind", "message", "raw", "ok", "fatal"]


def props(x):
    """Every property of an item, and what its methods give."""
    if x.ok:
        return (
            type(x).__name__,
            tuple(getattr(x, p) for p in EVENT_PROPERTIES),
            x.json(),
            x.get("message.content.0.type"),
            "message.usage" in x,
            repr(x),
        )
    return (type(x).__name__, tuple(getattr(x, p) for p in ERROR_PROPERTIES), x.to_dict(), str(x), repr(x))


def items(generated_tree):
    # Stream events, JSON array elements, pretty captures, transcript
    # records (their session_id is the record's sessionId) and bad lines.
    src = [str(REPO / "corpus"), str(generated_tree)] + ([str(REALWORLD)] if REALWORLD.is_dir() else [])
    return list(cctape.read(src, format=CLI_FORMAT))


def test_every_item_survives_a_pickle_round_trip(generated_tree):
    # Also the check of reading fields through the index kept with a
    # batch: an event read from an input reads its fields through it, an
    # unpickled one (made from its bytes) scans its line again.
    all_items = items(generated_tree)
    assert sum(not x.ok for x in all_items) >= 5 and sum(x.ok for x in all_items) > 1000
    for proto in (2, pickle.HIGHEST_PROTOCOL):
        data = pickle.dumps(all_items, protocol=proto)
        back = pickle.loads(data)
        assert len(back) == len(all_items)
        for a, b in zip(all_items, back):
            assert type(b) is type(a)
            assert props(b) == props(a)


def test_items_go_through_a_process_pool(generated_tree):
    sample = items(generated_tree)[::7]
    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter
    with ctx.Pool(2) as pool:
        got = pool.map(props, sample, chunksize=64)
    assert got == [props(x) for x in sample]


def test_an_event_is_made_from_its_bytes():
    raw = b'{"type":"system","subtype":"init","session_id":"s1","model":"m"}'
    ev = cctape.Event(raw, file="x.jsonl", line=4, offset=120)
    assert (ev.kind, ev.session_id, ev["model"], ev.file, ev.line, ev.offset, ev.raw) == (
        "system/init", "s1", "m", "x.jsonl", 4, 120, raw,
    )
    want = next(iter(cctape.read(raw + b"\n")))
    assert props(cctape.Event(raw, file="<bytes>")) == props(want)
    with pytest.raises(ValueError, match="not an event"):
        cctape.Event(b'{"no": "type"}')
