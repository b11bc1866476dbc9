"""Following a growing file by its path (issue 24, item 4): the rules of
``tail -F`` (appends, a rename and re-creation, a truncation), no busy
loop on a non-blocking stream's ``None``, ``Follow`` as a context manager
that can be closed from another thread, and ``async for`` over a path.
Waits are generous; nothing here times how fast lines come."""

import asyncio
import json
import os
import threading
import time

import pytest

import cctape

WAIT = 30.0


def event(n):
    return json.dumps({"type": "user", "n": n, "session_id": "s"}) + "\n"


def append(path, a, b):
    with open(path, "a") as f:
        f.write("".join(event(n) for n in range(a, b)))


def numbers(items):
    return [json.loads(bytes(ev.raw))["n"] for ev in items if ev.kind == "user"]


def collect_until(f, want, got):
    for ev in f:
        got.append(ev)
        if len(numbers(got)) >= want:
            return


def wait_for(cond):
    start = time.monotonic()
    while not cond():
        assert time.monotonic() - start < WAIT
        time.sleep(0.01)


def test_follow_a_path_through_rotation_and_truncation(tmp_path):
    log = tmp_path / "run.jsonl"
    append(log, 0, 10)
    got = []
    with cctape.follow(str(log), poll=0.05) as f:
        t = threading.Thread(target=collect_until, args=(f, 40, got))
        t.start()
        wait_for(lambda: len(numbers(got)) >= 10)
        append(log, 10, 20)
        os.rename(log, tmp_path / "run.jsonl.1")
        append(log, 20, 30)
        wait_for(lambda: len(numbers(got)) >= 30)
        with open(log, "w"):
            pass
        wait_for(lambda: "truncated" in f.changes)
        append(log, 30, 40)
        t.join(WAIT)
        assert not t.is_alive()
        assert numbers(got) == list(range(40))
        assert "replaced" in f.changes or "gone" in f.changes


def test_close_from_another_thread_ends_the_loop(tmp_path):
    log = tmp_path / "run.jsonl"
    append(log, 0, 3)
    f = cctape.follow(log, poll=0.05)
    got = []
    t = threading.Thread(target=lambda: got.extend(f))
    t.start()
    wait_for(lambda: len(got) >= 3)
    f.close()
    t.join(WAIT)
    assert not t.is_alive()
    assert numbers(got) == [0, 1, 2]
    assert f.verdict()[0]["events"] == 3


def test_from_end_skips_what_the_file_holds(tmp_path):
    log = tmp_path / "run.jsonl"
    append(log, 0, 5)
    got = []
    with cctape.follow(log, poll=0.05, from_end=True) as f:
        t = threading.Thread(target=collect_until, args=(f, 2, got))
        t.start()
        time.sleep(0.2)
        append(log, 5, 7)
        t.join(WAIT)
    assert numbers(got) == [5, 6]


class NonBlocking:
    """A stream with nothing for a while: ``read`` returns None."""

    def __init__(self, nones):
        self.nones = nones
        self.calls = 0

    def read(self, n):
        self.calls += 1
        if self.nones > 0:
            self.nones -= 1
            return None
        if self.nones == 0:
            self.nones = -1
            return event(0).encode()
        return b""


def test_no_busy_loop_on_none_reads():
    s = NonBlocking(nones=3)
    start = time.monotonic()
    items = list(cctape.follow(s, poll=0.1))
    # Three waits of the poll interval, not a spin.
    assert time.monotonic() - start >= 0.25
    assert s.calls == 5
    assert numbers(items) == [0]


def test_async_for_over_a_path(tmp_path):
    log = tmp_path / "run.jsonl"
    append(log, 0, 2)

    async def run():
        got = []
        with cctape.follow(log, poll=0.05) as f:
            async for ev in f:
                got.append(ev)
                if len(got) == 2:
                    append(log, 2, 3)
                if len(got) == 3:
                    break
        return got

    assert numbers(asyncio.run(run())) == [0, 1, 2]


def test_bad_arguments():
    with pytest.raises(ValueError):
        cctape.follow("x.jsonl", poll=0)
    import io

    with pytest.raises(ValueError):
        cctape.follow(io.BytesIO(b""), from_end=True)
