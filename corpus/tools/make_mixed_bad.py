#!/usr/bin/env python3
"""Write corpus/streams/mixed-bad.jsonl byte for byte.

The file mixes a few well-formed events with lines a tolerant stream-json
reader has to survive.  It is generated rather than hand-edited because
several lines depend on exact bytes (a CR, raw U+2028/U+2029, an escaped lone
surrogate, a missing final LF).  Line-by-line description:
corpus/streams/README.md.  Stdlib only.

    python3 corpus/tools/make_mixed_bad.py
"""
from __future__ import annotations

import json
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
OUT = REPO_ROOT / "corpus" / "streams" / "mixed-bad.jsonl"

SID = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
MODEL = "claude-sonnet-5-5"
HAIKU = "claude-haiku-4-5-20251001"


def uuid(n: int) -> str:
    return f"0000000b-0000-4000-8000-{n:012d}"


def dumps(obj: object) -> bytes:
    # ensure_ascii=False writes U+2028/U+2029 as raw UTF-8 (json never escapes them)
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


ANSWER = "First line\u2028second line (after U+2028)\u2029new paragraph (after U+2029)"

INIT = {
    "type": "system", "subtype": "init", "cwd": "/work/repo", "session_id": SID,
    "tools": ["Task", "Bash", "Edit", "Glob", "Grep", "Read", "Write", "WebFetch", "WebSearch"],
    "mcp_servers": [], "model": MODEL, "permissionMode": "auto",
    "slash_commands": ["compact", "init"], "terminal_slash_commands": ["doctor"],
    "apiKeySource": "none", "claude_code_version": "2.1.288", "output_style": "default",
    "agents": ["Explore", "general-purpose", "Plan"], "skills": [], "plugins": [],
    "capabilities": ["msg_lifecycle_v1"], "analytics_disabled": False, "product_feedback_disabled": False,
    "uuid": uuid(1),
    "memory_paths": {"auto": "/tmp/claude/memory/", "team": "/tmp/claude/memory/team/"},
    "scratchpad_path": f"/tmp/claude-0/-work-repo/{SID}/scratchpad",
    "messaging_socket_path": "/tmp/claude-0/cc-socks/1.sock",
    "fast_mode_state": "off", "fast_mode_disabled_reason": "sdk_opt_in_required",
    "per_turn_effort_active": True, "view_mode": "default",
    "startup_timing": {"phases": {"node_boot_ms": 146}},
}

REPLAY = {
    "type": "user", "message": {"role": "user", "content": "Reply with two lines separated by U+2028."},
    "parent_tool_use_id": None, "session_id": SID, "uuid": uuid(2),
    "timestamp": "2026-10-03T17:00:00.005Z", "isReplay": True,
}

STATUS = {"type": "system", "subtype": "status", "status": "requesting", "uuid": uuid(3), "session_id": SID}

USAGE = {"input_tokens": 2, "cache_creation_input_tokens": 4950, "cache_read_input_tokens": 28275,
         "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 4950},
         "output_tokens": 40, "service_tier": "standard", "inference_geo": "not_available"}

ASSISTANT = {
    "type": "assistant",
    "message": {"model": MODEL, "id": "msg_01A", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": ANSWER}], "container": None, "stop_reason": None,
                "stop_sequence": None, "stop_details": None, "usage": USAGE, "input_transformations": [],
                "diagnostics": None, "context_management": None},
    "parent_tool_use_id": None, "session_id": SID, "uuid": uuid(6),
    "timestamp": "2026-10-03T17:00:01.730Z", "request_id": "req_01A",
}

# costs use the prices implied by the reference (see corpus/streams/README.md):
# sonnet-5-5: 2*2 + 40*10 + 28275*0.2 + 4950*4 = 25859 -> 0.025859 ; haiku: 925*1 + 18*5 -> 0.001015
RESULT = {
    "type": "result", "subtype": "success", "is_error": False, "result": ANSWER, "stop_reason": "end_turn",
    "terminal_reason": "completed", "api_error_status": None, "num_turns": 1, "duration_ms": 2210,
    "duration_api_ms": 1730, "total_cost_usd": 0.026874,
    "usage": {"input_tokens": 2, "cache_creation_input_tokens": 4950, "cache_read_input_tokens": 28275,
              "output_tokens": 40, "output_tokens_details": {"thinking_tokens": 0},
              "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0}, "service_tier": "standard",
              "cache_creation": {"ephemeral_1h_input_tokens": 4950, "ephemeral_5m_input_tokens": 0},
              "inference_geo": "not_available",
              "iterations": [{"input_tokens": 2, "output_tokens": 40, "cache_read_input_tokens": 28275,
                              "cache_creation_input_tokens": 4950, "type": "message"}],
              "speed": "standard", "fallback_credit": None},
    "modelUsage": {
        HAIKU: {"inputTokens": 925, "outputTokens": 18, "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0,
                "webSearchRequests": 0, "costUSD": 0.001015, "contextWindow": 200000, "maxOutputTokens": 32000,
                "thinkingTokens": 0, "canonicalModel": "claude-haiku-4-5", "provider": "firstParty",
                "costBasis": "list"},
        MODEL: {"inputTokens": 2, "outputTokens": 40, "cacheReadInputTokens": 28275,
                "cacheCreationInputTokens": 4950, "webSearchRequests": 0, "costUSD": 0.025859,
                "contextWindow": 1000000, "maxOutputTokens": 128000, "thinkingTokens": 0,
                "canonicalModel": "claude-sonnet-5-5", "provider": "firstParty", "costBasis": "list"},
    },
    "permission_denials": [], "session_id": SID, "uuid": uuid(9), "result_index": 0, "queued_turn_count": 0,
}

LINES: list[tuple[bytes, str]] = [
    (dumps(INIT), "good: system/init"),
    (dumps(REPLAY), "good: user (isReplay, string content)"),
    (b"not json at all", "bad: not JSON"),
    (b"   \r", "bad: blank line made of three spaces and a CR (CRLF line ending)"),
    (dumps(STATUS), "good: system/status"),
    (b"[1,2]", "bad: JSON array, not an object"),
    (b'{"foo":1}', "bad: object without type"),
    (b'{"type":7,"session_id":"' + SID.encode() + b'","uuid":"' + uuid(4).encode() + b'"}',
     "bad: type is a number"),
    (b'{"type":"system","subtype":"thinking_tokens","estimated_tokens":18446744073709551616,'
     b'"estimated_tokens_delta":1,"uuid":"' + uuid(5).encode() + b'","session_id":"' + SID.encode() + b'"}',
     "edge: system/thinking_tokens with estimated_tokens 18446744073709551616 (2^64, > u64::MAX)"),
    (dumps(ASSISTANT), "good but tricky: assistant text with raw U+2028 and U+2029 inside the string"),
    (b'{"type":"system","subtype":"task_summary","detail":"Reading notes \\ud83d","uuid":"'
     + uuid(7).encode() + b'","session_id":"' + SID.encode() + b'"}',
     "edge: system/task_summary whose detail has the escaped lone surrogate \\ud83d"),
    (b'{"type":"assistant","subtype":"status","status":"requesting","type":"system","uuid":"'
     + uuid(8).encode() + b'","session_id":"' + SID.encode() + b'"}',
     'edge: duplicate "type" keys: first "assistant", last "system" (last-wins gives system/status)'),
    (dumps(RESULT), "good: result/success (its result string also has raw U+2028/U+2029)"),
]
TRUNCATED = dumps({"type": "system", "subtype": "task_summary", "detail": None, "uuid": uuid(10),
                   "session_id": SID})[:60]


def main() -> None:
    data = b"".join(line + b"\n" for line, _ in LINES) + TRUNCATED
    # self-checks on the exact bytes
    assert "\u2028".encode() in LINES[9][0] and "\u2029".encode() in LINES[9][0]
    assert b"\\ud83d" in LINES[10][0] and json.loads(LINES[10][0])["detail"].endswith("\ud83d")
    assert json.loads(LINES[8][0])["estimated_tokens"] == 2**64
    assert json.loads(LINES[11][0])["type"] == "system"  # Python keeps the last duplicate
    assert not data.endswith(b"\n")
    try:
        json.loads(TRUNCATED)
    except json.JSONDecodeError:
        pass
    else:
        raise AssertionError("truncated line unexpectedly parses")
    total = 0.0
    for m in RESULT["modelUsage"].values():
        total += m["costUSD"]
    assert total == RESULT["total_cost_usd"]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(data)
    for n, (_, what) in enumerate(LINES, 1):
        print(f"{n:>2}  {what}")
    print(f"{len(LINES) + 1:>2}  bad: last line, no trailing LF, cut after {len(TRUNCATED)} bytes: {TRUNCATED.decode()}")
    print(f"wrote {OUT.relative_to(REPO_ROOT)} ({len(data)} bytes)")


if __name__ == "__main__":
    main()
