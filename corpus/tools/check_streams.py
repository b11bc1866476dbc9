#!/usr/bin/env python3
"""Validate corpus/streams/*.jsonl and derive the table in corpus/streams/README.md.

    python3 corpus/tools/check_streams.py                 # validate, print the table
    python3 corpus/tools/check_streams.py --update-readme # also rewrite the table in the README

Checks, per stream:
  * every line is LF-terminated (no CR) and parses with json.loads into an object with a string
    "type", without duplicate keys, lone surrogates or integers beyond u64 -- except the
    deliberately bad lines of mixed-bad.jsonl, which must be exactly the ones listed in MIXED_BAD;
  * every tool_result answers an earlier tool_use of the same stream, every tool_use gets exactly
    one tool_result (interrupted.jsonl may leave its Bash call unanswered);
  * assistant events sharing a message.id carry the same usage; subagent events point at an Agent call;
  * input_json_delta fragments concatenate to the JSON of the assistant tool_use input;
  * every result: total_cost_usd == sum of modelUsage costUSD (f64 addition, exact), and when its
    usage is non-zero it equals the main-agent per-call usage summed over distinct message.id
    (final message_delta usage when stream_event is present), and modelUsage[main model] equals
    main + subagent usage;
  * the verdict derived from the last result matches EXPECTED.
Stdlib only.
"""
from __future__ import annotations

import json
import sys
from collections import Counter, OrderedDict
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
STREAMS = REPO_ROOT / "corpus" / "streams"
README = STREAMS / "README.md"
BEGIN, END = "<!-- BEGIN streams table (check_streams.py) -->", "<!-- END streams table -->"

SHOWS = {
    "success-basic.jsonl": "write a file, read it back, answer; status before each call; task_summary (detail null) after the result",
    "two-subagents.jsonl": "two Agent calls in one model call (shared message.id), interleaved subagent events, task_* events, AgentResult tool results, subagent_stats",
    "interrupted.jsonl": "SIGINT during a Bash call: no tool_result, user text `[Request interrupted by user]`, reference's error_during_execution result",
    "max-turns.jsonl": "three Bash turns, then error_max_turns with is_error false",
    "api-error.jsonl": "two api_retry (no uuid), `<synthetic>` assistant with error, result success + is_error true, api_error_status 401",
    "no-result.jsonl": "run killed after a tool result: no result event",
    "partial-messages.jsonl": "`--include-partial-messages`: message_start/content_block_*/deltas/message_delta/message_stop around assistant events",
    "background-task.jsonl": "background Bash: backgroundTaskId, background_tasks_changed, local_bash task, two results (result_index 0/1, origin), second init",
    "tool-errors.jsonl": "`Exit code 1` error, `<tool_use_error>`, permission_denied + tool_result_meta, non-empty permission_denials",
    "hooks.jsonl": "hook_started/hook_response pairs (one exit_code 2, outcome error), thinking_tokens, thinking block, post_turn_summary",
    "mixed-bad.jsonl": "good events mixed with unparseable / non-event / edge-case lines and a truncated last line (see table below)",
}

EXPECTED = {
    "success-basic.jsonl": "success",
    "two-subagents.jsonl": "success",
    "interrupted.jsonl": "interrupted",
    "max-turns.jsonl": "max_turns",
    "api-error.jsonl": "error (api_error)",
    "no-result.jsonl": "no_result",
    "partial-messages.jsonl": "success",
    "background-task.jsonl": "success",
    "tool-errors.jsonl": "success",
    "hooks.jsonl": "success",
    "mixed-bad.jsonl": "success",
}

# mixed-bad.jsonl: line number -> class. Lines not listed must be ordinary good events.
MIXED_BAD = {
    3: "not-json", 4: "blank", 6: "not-object", 7: "no-type", 8: "non-string-type",
    9: "big-int", 10: "u2028-u2029", 11: "lone-surrogate", 12: "duplicate-key", 13: "u2028-u2029",
    14: "truncated",
}
UNANSWERED_OK = {"interrupted.jsonl": {"toolu_01A"}}
U64_MAX = 2**64 - 1
USAGE_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
MU_KEYS = ("inputTokens", "cacheCreationInputTokens", "cacheReadInputTokens", "outputTokens")


class Problem(Exception):
    pass


def _pairs(pairs):
    keys = [k for k, _ in pairs]
    dups = sorted({k for k in keys if keys.count(k) > 1})
    if dups:
        raise Problem(f"duplicate keys {dups}")
    return dict(pairs)


def _walk(v):
    if isinstance(v, dict):
        for x in v.values():
            yield from _walk(x)
    elif isinstance(v, list):
        for x in v:
            yield from _walk(x)
    else:
        yield v


def classify(raw: bytes, has_lf: bool) -> tuple[str, object]:
    """Return (class, obj). class is 'event' for a clean event line."""
    if not has_lf:
        try:
            return "truncated-but-valid", json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return "truncated", None
    if raw.strip() == b"":
        return "blank", None
    text = raw.decode("utf-8")
    try:
        loose = json.loads(text)
    except json.JSONDecodeError:
        return "not-json", None
    if not isinstance(loose, dict):
        return "not-object", loose
    if "type" not in loose:
        return "no-type", loose
    try:
        json.loads(text, object_pairs_hook=_pairs)
    except Problem:
        return "duplicate-key", loose
    if not isinstance(loose["type"], str):
        return "non-string-type", loose
    for v in _walk(loose):
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > U64_MAX:
            return "big-int", loose
        if isinstance(v, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in v):
            return "lone-surrogate", loose
    if "\u2028" in text or "\u2029" in text:
        return "u2028-u2029", loose
    if b"\r" in raw:
        return "cr", loose
    return "event", loose


def kind(o: dict) -> str:
    t = o["type"]
    if t in ("system", "result") and isinstance(o.get("subtype"), str):
        return f"{t}/{o['subtype']}"
    if t == "stream_event":
        return f"stream_event/{o['event']['type']}"
    msg = o.get("message") if isinstance(o.get("message"), dict) else {}
    content = msg.get("content")
    if t == "assistant":
        if msg.get("model") == "<synthetic>":
            return "assistant (synthetic)"
        return f"assistant ({content[0]['type']})" if content else t
    if t == "user":
        if isinstance(content, str):
            return "user (replay)" if o.get("isReplay") else "user (string)"
        return f"user ({content[0]['type']})" if content else t
    return t


def usage_tuple(u: dict) -> tuple[int, ...]:
    return tuple(u.get(k, 0) for k in USAGE_KEYS)


def add(a, b):
    return tuple(x + y for x, y in zip(a, b))


def check_stream(path: Path) -> dict:
    name = path.name
    data = path.read_bytes()
    segs = data.split(b"\n")
    ends_lf = data.endswith(b"\n")
    if ends_lf:
        segs = segs[:-1]
    lines = [(seg, (i < len(segs) - 1) or ends_lf) for i, seg in enumerate(segs)]

    events: list[tuple[int, dict]] = []
    bad: dict[int, str] = {}
    for n, (raw, has_lf) in enumerate(lines, 1):
        cls, obj = classify(raw, has_lf)
        if cls == "event":
            events.append((n, obj))
        else:
            bad[n] = cls
            # edge lines that a lenient reader can still use as events
            if cls in ("u2028-u2029", "big-int", "lone-surrogate", "duplicate-key") and obj.get("type") is not None:
                if isinstance(obj["type"], str):
                    events.append((n, obj))
    expected_bad = MIXED_BAD if name == "mixed-bad.jsonl" else {}
    if bad != expected_bad:
        raise Problem(f"{name}: unexpected line classes {bad} (expected {expected_bad})")

    # tool_use / tool_result pairing and per-message usage
    uses: "OrderedDict[str, dict]" = OrderedDict()
    answered: Counter = Counter()
    msg_usage: dict[str, tuple] = {}
    agent_ids = set()
    partial = any(o["type"] == "stream_event" for _, o in events)
    json_frags: dict[int, list[str]] = {}
    for n, o in events:
        t = o["type"]
        if t == "assistant":
            m = o["message"]
            u = usage_tuple(m["usage"])
            if m["id"] in msg_usage and msg_usage[m["id"]] != u:
                raise Problem(f"{name}:{n}: usage differs within message {m['id']}")
            msg_usage[m["id"]] = u
            if len(m["content"]) != 1:
                raise Problem(f"{name}:{n}: assistant content must hold exactly one block")
            b = m["content"][0]
            if b["type"] == "tool_use":
                if b["id"] in uses:
                    raise Problem(f"{name}:{n}: duplicate tool_use id {b['id']}")
                uses[b["id"]] = b
                if b["name"] == "Agent":
                    agent_ids.add(b["id"])
                if partial and o["parent_tool_use_id"] is None:
                    frags = json_frags.pop(0, None)
                    got = json.loads("".join(frags)) if frags else None
                    if got != b["input"]:
                        raise Problem(f"{name}:{n}: input_json_delta fragments {frags!r} != input")
        if t in ("assistant", "user") and o.get("parent_tool_use_id") is not None:
            if o["parent_tool_use_id"] not in agent_ids:
                raise Problem(f"{name}:{n}: parent_tool_use_id does not name an earlier Agent call")
            if not o.get("subagent_type") or not o.get("task_description"):
                raise Problem(f"{name}:{n}: subagent event without subagent_type/task_description")
        if t == "user" and isinstance(o["message"]["content"], list):
            for b in o["message"]["content"]:
                if b["type"] == "tool_result":
                    if b["tool_use_id"] not in uses:
                        raise Problem(f"{name}:{n}: tool_result for unknown tool_use {b['tool_use_id']}")
                    answered[b["tool_use_id"]] += 1
        if t == "stream_event":
            ev = o["event"]
            if ev["type"] == "content_block_start" and ev["content_block"]["type"] == "tool_use":
                json_frags[0] = []
            if ev["type"] == "content_block_delta" and ev["delta"]["type"] == "input_json_delta":
                json_frags.setdefault(0, []).append(ev["delta"]["partial_json"])
    for tid in uses:
        if answered[tid] > 1:
            raise Problem(f"{name}: {tid} answered {answered[tid]} times")
    unanswered = {tid for tid in uses if answered[tid] == 0}
    if unanswered != UNANSWERED_OK.get(name, set()):
        raise Problem(f"{name}: unanswered tool_use ids {sorted(unanswered)}")

    # results: cost and usage arithmetic
    results = [(n, o) for n, o in events if o["type"] == "result"]
    for rn, r in results:
        s = 0.0
        for mu in r["modelUsage"].values():
            s += mu["costUSD"]
        if s != r["total_cost_usd"]:
            raise Problem(f"{name}:{rn}: sum(costUSD)={s!r} != total_cost_usd={r['total_cost_usd']!r}")
        before = [(n, o) for n, o in events if n < rn]
        main_calls: dict[str, tuple] = {}
        sub_calls: dict[str, tuple] = {}
        last_delta = None
        for n, o in before:
            if o["type"] == "assistant" and o["message"]["model"] != "<synthetic>":
                target = main_calls if o["parent_tool_use_id"] is None else sub_calls
                target[o["message"]["id"]] = usage_tuple(o["message"]["usage"])
            if o["type"] == "stream_event":
                ev = o["event"]
                if ev["type"] == "message_start":
                    current = ev["message"]["id"]
                if ev["type"] == "message_delta":
                    main_calls[current] = usage_tuple(ev["usage"])
        got = usage_tuple(r["usage"])
        if any(got):
            want = (0, 0, 0, 0)
            for u in main_calls.values():
                want = add(want, u)
            if got != want:
                raise Problem(f"{name}:{rn}: result.usage {got} != summed main-agent usage {want}")
            main_model = next(o["model"] for _, o in events if o["type"] == "system" and o.get("subtype") == "init")
            for u in sub_calls.values():
                want = add(want, u)
            mu = r["modelUsage"][main_model]
            mu_t = tuple(mu[k] for k in ("inputTokens", "cacheCreationInputTokens", "cacheReadInputTokens",
                                         "outputTokens"))
            if mu_t != want:
                raise Problem(f"{name}:{rn}: modelUsage[{main_model}] {mu_t} != main+subagent usage {want}")

    verdict = derive_verdict(results[-1][1] if results else None)
    if verdict != EXPECTED[name]:
        raise Problem(f"{name}: derived verdict {verdict!r}, expected {EXPECTED[name]!r}")

    counts: Counter = Counter()
    order: list[str] = []
    for _, o in events:
        k = kind(o)
        if k not in counts:
            order.append(k)
        counts[k] += 1
    bad_counts = Counter(v for k, v in bad.items() if k not in {n for n, _ in events})
    return {
        "name": name, "lines": len(lines), "verdict": verdict,
        "events": ", ".join(f"{k} {counts[k]}" for k in order),
        "invalid": ", ".join(f"{k} {v}" for k, v in bad_counts.items()),
        "cost": (repr(results[-1][1]["total_cost_usd"]) if results else "n/a (no result)"),
        "n_events": len(events), "tool_uses": len(uses), "unanswered": sorted(unanswered),
    }


def derive_verdict(r: dict | None) -> str:
    if r is None:
        return "no_result"
    st, err, term = r["subtype"], r["is_error"], r.get("terminal_reason")
    if st == "success" and not err:
        return "success"
    if st == "success" and err:
        return f"error ({term})"
    if st == "error_max_turns":
        return "max_turns"
    if st == "error_max_budget_usd":
        return "max_budget_usd"
    if st == "error_during_execution" and term == "aborted_streaming":
        return "interrupted"
    return f"error ({st})"


def table(rows: list[dict]) -> str:
    out = ["| File | What it shows | Expected verdict | Lines | Events by type/subtype | total_cost_usd of last result |",
           "|---|---|---|---:|---|---:|"]
    for r in rows:
        ev = r["events"] + (f"; not events: {r['invalid']}" if r["invalid"] else "")
        out.append(f"| `{r['name']}` | {SHOWS[r['name']]} | {r['verdict']} | {r['lines']} | {ev} | {r['cost']} |")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    files = sorted(STREAMS.glob("*.jsonl"))
    missing = set(EXPECTED) - {f.name for f in files}
    extra = {f.name for f in files} - set(EXPECTED)
    if missing or extra:
        print(f"check_streams: missing {sorted(missing)}, unknown {sorted(extra)}", file=sys.stderr)
        return 1
    order = list(EXPECTED)
    rows = []
    try:
        for name in order:
            rows.append(check_stream(STREAMS / name))
    except Problem as e:
        print(f"check_streams: FAIL: {e}", file=sys.stderr)
        return 1
    for r in rows:
        print(f"ok  {r['name']:<24} {r['lines']:>3} lines  {r['n_events']:>3} events  "
              f"{r['tool_uses']} tool_use  verdict={r['verdict']}  cost={r['cost']}")
    md = table(rows)
    print()
    print(md)
    if "--update-readme" in argv:
        text = README.read_text(encoding="utf-8")
        a, b = text.index(BEGIN) + len(BEGIN), text.index(END)
        README.write_text(text[:a] + "\n" + md + "\n" + text[b:], encoding="utf-8")
        print(f"\nupdated {README.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
