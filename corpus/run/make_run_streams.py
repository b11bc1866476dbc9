#!/usr/bin/env python3
"""Write corpus/run/*.jsonl: one small stream per run-semantics rule.

Each stream is named after the rule it shows; README.md beside this script
lists them with what tests/run/ asserts. Shapes follow the field
reference and the real streams of ../shared/realworld (key order included
where it matters: 2.1.2xx results start with is_error, not type).
Run from the repository root: python3 corpus/run/make_run_streams.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
S1 = "11111111-1111-4111-8111-111111111111"
S2 = "22222222-2222-4222-8222-222222222222"
MAIN = "claude-sonnet-5-5"
AUX = "claude-haiku-4-5-20251001"

_uuid = [0]


def uuid():
    _uuid[0] += 1
    return "00000000-0000-4000-8000-%012d" % _uuid[0]


def ts(sec, ms=0):
    return "2026-10-03T15:%02d:%02d.%03dZ" % (sec // 60, sec % 60, ms)


def usage(i=2, o=10, cr=1000, cc=100):
    return {"input_tokens": i, "cache_creation_input_tokens": cc,
            "cache_read_input_tokens": cr, "output_tokens": o}


def init(sid=S1, model=MAIN):
    return {"type": "system", "subtype": "init", "cwd": "/work/repo", "session_id": sid,
            "tools": ["Task", "Bash", "Read"], "model": model, "permissionMode": "auto",
            "claude_code_version": "2.1.288", "uuid": uuid()}


def prompt(text, sid=S1):
    return {"type": "user", "message": {"role": "user", "content": text},
            "parent_tool_use_id": None, "session_id": sid, "uuid": uuid(),
            "timestamp": ts(0), "isReplay": True}


def assistant(msg_id, block, u=None, sid=S1, parent=None, t=1, model=MAIN, **extra):
    ev = {"type": "assistant",
          "message": {"model": model, "id": msg_id, "type": "message", "role": "assistant",
                      "content": [block], "stop_reason": None, "stop_sequence": None,
                      "usage": u or usage()},
          "parent_tool_use_id": parent, "session_id": sid, "uuid": uuid(), "timestamp": ts(t)}
    ev.update(extra)
    return ev


def text(s):
    return {"type": "text", "text": s}


def tool_use(tid, name, inp=None):
    return {"type": "tool_use", "id": tid, "name": name, "input": inp or {},
            "caller": {"type": "direct"}}


def tool_result(tid, content, is_error=None, sid=S1, parent=None, t=2, ms=0, tur=None, **extra):
    block = {"tool_use_id": tid, "type": "tool_result", "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    ev = {"type": "user", "message": {"role": "user", "content": [block]},
          "parent_tool_use_id": parent, "session_id": sid, "uuid": uuid(), "timestamp": ts(t, ms)}
    if tur is not None:
        ev["tool_use_result"] = tur
    ev.update(extra)
    return ev


def user_text(s, sid=S1, parent=None):
    return {"type": "user", "message": {"role": "user", "content": [text(s)]},
            "parent_tool_use_id": parent, "session_id": sid, "uuid": uuid(), "timestamp": ts(9)}


def result(subtype="success", is_error=False, sid=S1, text_="Done.", cost=0.01,
           u=None, model_usage=None, **extra):
    ev = {"is_error": is_error, "duration_ms": 1000, "num_turns": 1, "stop_reason": "end_turn",
          "session_id": sid, "total_cost_usd": cost, "usage": u or usage(),
          "modelUsage": model_usage if model_usage is not None else
          {MAIN: {"inputTokens": 2, "outputTokens": 10, "cacheReadInputTokens": 1000,
                  "cacheCreationInputTokens": 100, "costUSD": cost}},
          "permission_denials": [], "terminal_reason": "completed"}
    if subtype is not None:
        ev["subtype"] = subtype
    if text_ is not None:
        ev["result"] = text_
    ev.update(extra)
    ev["type"] = "result"
    ev["uuid"] = uuid()
    return ev


def system(subtype, sid=S1, **fields):
    ev = {"type": "system", "subtype": subtype}
    ev.update(fields)
    ev["uuid"] = uuid()
    ev["session_id"] = sid
    return ev


def stream(ev_obj, sid=S1):
    return {"type": "stream_event", "event": ev_obj, "session_id": sid,
            "parent_tool_use_id": None, "uuid": uuid()}


FILES = {}


def stream_file(name, events, tail=""):
    FILES[name] = "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n"
                          for e in events) + tail


# --- what a run is ---------------------------------------------------------

stream_file("runs-by-session.jsonl", [
    init(S1), prompt("first"), assistant("msg_A1", text("one")), result(sid=S1, text_="one"),
    init(S2), prompt("second", S2), assistant("msg_B1", text("two"), sid=S2),
    # a line with no session_id belongs to the run of the line before it
    {"type": "control_cancel_request", "request_id": "req-1"},
    # session 1 again, later: the same run
    system("task_summary", S1, detail=None),
    result(sid=S2, text_="two"),
])

stream_file("rounds-result-index.jsonl", [
    init(), prompt("go"), assistant("msg_A", text("round one")),
    result(text_="round one", result_index=0),
    init(), assistant("msg_B", text("round two"), u=usage(3, 20, 2000, 50)),
    result(text_="round two", u=usage(3, 20, 2000, 50), cost=0.03, result_index=1,
           origin={"kind": "task-notification", "producer": "session-task"},
           modelUsage={MAIN: {"inputTokens": 5, "outputTokens": 30, "cacheReadInputTokens": 3000,
                              "cacheCreationInputTokens": 150, "costUSD": 0.03}}),
])

stream_file("leading-lines-without-session.jsonl", [
    {"type": "control_response", "response": {"subtype": "success", "request_id": "r0"}},
    init(), assistant("msg_A", text("hi")), result(text_="hi"),
])

# --- the verdict -------------------------------------------------------------

stream_file("last-result-decides.jsonl", [
    init(), prompt("go"), assistant("msg_A", text("first")), result(text_="first"),
    init(), assistant("msg_B", tool_use("toolu_X", "Bash", {"command": "make"})),
    result("error_during_execution", True, text_=None, terminal_reason="api_error",
           errors=["[ede_diagnostic] boom"], stop_reason=None),
    system("task_summary", detail=None),
])

stream_file("verdict-success.jsonl", [
    init(), prompt("say hi"), assistant("msg_A", text("hi")), result(text_="hi"),
])

stream_file("verdict-max-turns-is-error-false.jsonl", [
    init(), assistant("msg_A", tool_use("toolu_A", "Bash", {"command": "ls"})),
    tool_result("toolu_A", "a\nb"),
    result("error_max_turns", False, text_=None, stop_reason="tool_use",
           terminal_reason="max_turns", errors=["Reached maximum number of turns (1)"]),
])

stream_file("verdict-max-budget.jsonl", [
    # top-level usage all zeros while modelUsage has the numbers (hazard 12)
    result("error_max_budget_usd", True, text_=None, cost=0.06260525,
           u=usage(0, 0, 0, 0), terminal_reason="budget_exhausted",
           model_usage={AUX: {"inputTokens": 9, "outputTokens": 2441, "cacheReadInputTokens": 0,
                              "cacheCreationInputTokens": 40313, "costUSD": 0.06260525}},
           errors=["Reached maximum budget ($0.01)"]),
])

stream_file("verdict-interrupted-aborted.jsonl", [
    init(), assistant("msg_A", tool_use("toolu_A", "Write", {"file_path": "x", "content": "ok"})),
    tool_result("toolu_A", "The user doesn't want to proceed with this tool use.", True,
                tur="User rejected tool use",
                tool_result_meta=[{"id": "toolu_A", "non_execution_kind": "user-rejected"}]),
    result("error_during_execution", True, text_=None, terminal_reason="aborted_tools",
           stop_reason="tool_use", errors=["[ede_diagnostic] result_type=user"],
           permission_denials=[{"tool_name": "Write", "tool_use_id": "toolu_A",
                                "tool_input": {"file_path": "x", "content": "ok"}}]),
])

stream_file("verdict-interrupted-message.jsonl", [
    init(), assistant("msg_A", tool_use("toolu_A", "Bash", {"command": "sleep 100"})),
    user_text("[Request interrupted by user]"),
    # no terminal_reason (older stream): the interrupt message decides
    {k: v for k, v in result("error_during_execution", True, text_=None,
                             stop_reason=None).items() if k != "terminal_reason"},
])

stream_file("verdict-error-during-execution.jsonl", [
    init(), assistant("msg_A", text("working")),
    result("error_during_execution", True, text_=None, terminal_reason="tool_error",
           errors=["something broke"]),
])

stream_file("verdict-unknown-subtype.jsonl", [
    init(), assistant("msg_A", text("working")),
    result("error_something_new", False, text_=None),
])

stream_file("verdict-success-is-error.jsonl", [
    {"type": "assistant", "message": {"id": "4253da7b-e3bf-4c2c-a118-18cb1b29675f", "model": "<synthetic>",
                                      "role": "assistant", "type": "message", "stop_reason": "stop_sequence",
                                      "usage": usage(0, 0, 0, 0),
                                      "content": [text("Not logged in · Please run /login")]},
     "parent_tool_use_id": None, "session_id": S1, "uuid": uuid(), "timestamp": ts(1),
     "error": "authentication_failed", "is_api_error_message": True},
    result("success", True, text_="Not logged in · Please run /login", cost=0, u=usage(0, 0, 0, 0),
           model_usage={}, terminal_reason="api_error", stop_reason="stop_sequence"),
])

stream_file("verdict-no-result.jsonl", [
    init(), prompt("go"), assistant("msg_A", tool_use("toolu_A", "Bash", {"command": "cargo test"})),
    tool_result("toolu_A", "ok"),
])

stream_file("verdict-legacy-no-subtype.jsonl", [
    {"type": "system", "subtype": "init", "session_id": S1, "tools": [], "mcp_servers": []},
    {"type": "assistant", "message": {"id": "msg_A", "type": "message", "role": "assistant",
                                      "model": MAIN, "content": [text("hi")], "usage": usage()},
     "session_id": S1},
    {"type": "result", "cost_usd": 0.06300585, "is_error": False, "duration_ms": 4369,
     "num_turns": 1, "result": "hi", "total_cost": 0.06300585, "session_id": S1},
    {"type": "system", "subtype": "init", "session_id": S2, "tools": [], "mcp_servers": []},
    {"type": "result", "cost_usd": 0.001, "is_error": True, "duration_ms": 100,
     "num_turns": 1, "result": "failed", "total_cost": 0.001, "session_id": S2},
])

FILES["empty.jsonl"] = ""

# --- warnings ---------------------------------------------------------------

stream_file("warn-success-stop-tool-use.jsonl", [
    init(), assistant("msg_A", tool_use("toolu_A", "Bash", {"command": "ls"})),
    result(text_="Let me look.", stop_reason="tool_use"),
])

stream_file("warn-success-empty-result.jsonl", [
    init(), assistant("msg_A", text("")), result(text_=""),
])

stream_file("warn-truncated-line.jsonl", [
    init(), assistant("msg_A", text("hi")), result(text_="hi"),
], tail='{"type":"system","subtype":"task_summary","detail":null,"uui')

# --- usage and cost ----------------------------------------------------------

stream_file("usage-dedup-message-id.jsonl", [
    init(),
    # one model call, three blocks: the usage repeats; the last is kept
    assistant("msg_A", {"type": "thinking", "thinking": "", "signature": "c2ln"}, u=usage(2, 5, 1000, 100)),
    assistant("msg_A", text("Reading."), u=usage(2, 5, 1000, 100)),
    assistant("msg_A", tool_use("toolu_A", "Read", {"file_path": "a"}), u=usage(2, 40, 1000, 100)),
    tool_result("toolu_A", "1\tA"),
    assistant("msg_B", text("A."), u=usage(1, 7, 1100, 20), t=3),
    result(text_="A.", u=usage(3, 47, 2100, 120)),
])

stream_file("usage-main-vs-subagent.jsonl", [
    init(),
    assistant("msg_M1", tool_use("toolu_AG", "Agent", {"description": "Sub", "prompt": "p",
                                                        "subagent_type": "general-purpose"}),
              u=usage(2, 30, 1000, 100)),
    user_text("p", parent="toolu_AG"),
    assistant("msg_S1", text("sub work"), u=usage(5, 50, 500, 10), parent="toolu_AG",
              model=AUX),
    tool_result("toolu_AG", [text("sub work")], t=4,
                tur={"status": "completed", "handbackReport": {"text": "sub work"}}),
    assistant("msg_M2", text("Done."), u=usage(1, 8, 1200, 30), t=5),
    result(u=usage(3, 38, 2200, 130), cost=0.02,
           model_usage={MAIN: {"inputTokens": 3, "outputTokens": 38, "cacheReadInputTokens": 2200,
                               "cacheCreationInputTokens": 130, "costUSD": 0.015},
                        AUX: {"inputTokens": 5, "outputTokens": 50, "cacheReadInputTokens": 500,
                              "cacheCreationInputTokens": 10, "costUSD": 0.005}}),
])

stream_file("usage-synthetic-not-usage.jsonl", [
    init(),
    assistant("msg_A", text("trying"), u=usage(2, 10, 1000, 100)),
    {"type": "assistant", "message": {"id": "6f0b0e9c-0000-4000-8000-000000000001", "model": "<synthetic>",
                                      "role": "assistant", "type": "message",
                                      "usage": usage(99, 99, 99, 99),
                                      "content": [text("API Error: Claude's response exceeded the 32000 output token maximum.")]},
     "parent_tool_use_id": None, "session_id": S1, "uuid": uuid(), "timestamp": ts(3)},
    result("success", True, text_="API Error: Claude's response exceeded the 32000 output token maximum."),
])

stream_file("cost-model-usage-auxiliary.jsonl", [
    init(), prompt("read it"),
    assistant("msg_A", text("The file says hello."), u=usage(6, 248, 94923, 5300)),
    # the reference's own numbers: 0.001015 + 0.0426766 != 0.0436916 in f64
    result(text_="The file says hello.", cost=0.0436916, u=usage(6, 248, 94923, 5300),
           model_usage={AUX: {"inputTokens": 925, "outputTokens": 18, "cacheReadInputTokens": 0,
                              "cacheCreationInputTokens": 0, "costUSD": 0.001015,
                              "canonicalModel": "claude-haiku-4-5"},
                        MAIN: {"inputTokens": 6, "outputTokens": 248, "cacheReadInputTokens": 94923,
                               "cacheCreationInputTokens": 5300, "costUSD": 0.0426766,
                               "canonicalModel": MAIN}}),
])

stream_file("cost-mismatch.jsonl", [
    init(), assistant("msg_A", text("ok")),
    result(text_="ok", cost=1.4020935,
           model_usage={MAIN: {"inputTokens": 2, "outputTokens": 10, "cacheReadInputTokens": 1000,
                               "cacheCreationInputTokens": 100, "costUSD": 1.4014955}}),
])

stream_file("cost-legacy-fields.jsonl", [
    {"type": "system", "subtype": "init", "session_id": S1, "tools": [], "mcp_servers": []},
    {"type": "assistant", "message": {"id": "msg_A", "type": "message", "role": "assistant",
                                      "model": MAIN, "content": [text("Hi!")],
                                      "usage": usage(4, 19, 0, 13000)}, "session_id": S1},
    {"type": "result", "subtype": "success", "cost_usd": 0.06300585, "is_error": False,
     "duration_ms": 4369, "duration_api_ms": 7225, "num_turns": 1, "result": "Hi!",
     "total_cost": 0.06300585, "session_id": S1},
])

stream_file("usage-reconcile-mismatch.jsonl", [
    init(),
    # non-partial streams: assistant usage is the message_start snapshot
    assistant("msg_A", text("Long answer"), u=usage(2, 4, 17071, 20758)),
    result(text_="Long answer", u=usage(2, 145, 17071, 20758)),
])

# --- tools ------------------------------------------------------------------

stream_file("tools-pairing-any-order.jsonl", [
    init(),
    assistant("msg_A", tool_use("toolu_A", "Read", {"file_path": "a"}), t=1),
    assistant("msg_A", tool_use("toolu_B", "Read", {"file_path": "b"}), t=1),
    # results in completion order, not call order
    tool_result("toolu_B", "1\tB", t=2, ms=500),
    tool_result("toolu_A", "1\tA", t=4),
    # a result whose use never appears
    tool_result("toolu_GHOST", "?", t=5),
    # a result that comes before its use (excerpts, reordered logs)
    tool_result("toolu_C", "done", t=6),
    assistant("msg_B", tool_use("toolu_C", "Bash", {"command": "true"}), t=5),
    assistant("msg_C", text("ok"), t=7),
    result(text_="ok"),
])

stream_file("tools-errors.jsonl", [
    init(),
    assistant("msg_A", tool_use("toolu_A", "Bash", {"command": "touch /root/x"})),
    tool_result("toolu_A", "Exit code 1\n/root/x: Read-only file system", True,
                tur="Error: Exit code 1\n/root/x: Read-only file system"),
    assistant("msg_B", tool_use("toolu_B", "Bash", {"command": "sleep 10"})),
    tool_result("toolu_B", "<tool_use_error>Blocked: sleep 10.</tool_use_error>"),
    assistant("msg_C", tool_use("toolu_C", "Edit", {"file_path": "a"})),
    tool_result("toolu_C", "File has not been read yet.", tur="Error: File has not been read yet."),
    assistant("msg_D", tool_use("toolu_D", "Bash", {"command": "true"})),
    tool_result("toolu_D", "", False),
    assistant("msg_E", text("done")),
    result(text_="done"),
])

stream_file("tools-rejections.jsonl", [
    init(),
    assistant("msg_A", tool_use("toolu_A", "Bash", {"command": "rm -rf target"})),
    system("permission_denied", tool_name="Bash", tool_use_id="toolu_A",
           decision_reason_type="asyncAgent", decision_reason="no approval surface",
           message="Permission for this tool use was denied."),
    tool_result("toolu_A", "Permission for this tool use was denied.", True,
                tur="Error: Permission for this tool use was denied.",
                tool_result_meta=[{"id": "toolu_A", "non_execution_kind": "permission-rule"}]),
    assistant("msg_B", tool_use("toolu_B", "Write", {"file_path": "x", "content": "y"})),
    tool_result("toolu_B", "The user doesn't want to proceed with this tool use.", True,
                tur="User rejected tool use",
                tool_result_meta=[{"id": "toolu_B", "non_execution_kind": "user-rejected"}]),
    assistant("msg_C", text("I was not allowed.")),
    result(text_="I was not allowed.",
           permission_denials=[{"tool_name": "Bash", "tool_use_id": "toolu_A",
                                "tool_input": {"command": "rm -rf target"}},
                               {"tool_name": "Write", "tool_use_id": "toolu_B",
                                "tool_input": {"file_path": "x", "content": "y"}}]),
])

stream_file("tools-unanswered.jsonl", [
    init(),
    assistant("msg_A", tool_use("toolu_A", "Bash", {"command": "cargo build --release"})),
    user_text("[Request interrupted by user]"),
    result("error_during_execution", True, text_=None, terminal_reason="aborted_streaming",
           stop_reason=None, u=usage(0, 0, 0, 0),
           model_usage={AUX: {"inputTokens": 954, "outputTokens": 14, "costUSD": 0.001024}},
           cost=0.001024),
])

# --- subagents ----------------------------------------------------------------

stream_file("subagents-nested.jsonl", [
    init(),
    assistant("msg_M1", tool_use("toolu_P", "Agent", {"description": "Parent task", "prompt": "do",
                                                       "subagent_type": "general-purpose"})),
    system("task_started", task_id="a_parent", tool_use_id="toolu_P", description="Parent task",
           subagent_type="general-purpose", is_backgrounded=False, spawn_depth=1,
           task_type="local_agent", prompt="do"),
    user_text("do", parent="toolu_P"),
    assistant("msg_P1", tool_use("toolu_C", "Agent", {"description": "Child task", "prompt": "sub",
                                                       "subagent_type": "Explore"}),
              parent="toolu_P", u=usage(3, 20, 500, 50)),
    system("task_started", task_id="a_child", tool_use_id="toolu_C", description="Child task",
           subagent_type="Explore", is_backgrounded=False, spawn_depth=2, task_type="local_agent"),
    user_text("sub", parent="toolu_C"),
    assistant("msg_C1", tool_use("toolu_R", "Read", {"file_path": "x"}), parent="toolu_C",
              u=usage(1, 5, 400, 40)),
    system("task_progress", task_id="a_child", tool_use_id="toolu_C", description="Reading x",
           usage={"total_tokens": 446, "tool_uses": 1, "duration_ms": 300}, last_tool_name="Read"),
    tool_result("toolu_R", "1\tx", parent="toolu_C"),
    assistant("msg_C2", text("x says x"), parent="toolu_C", u=usage(1, 6, 450, 5)),
    system("task_updated", task_id="a_child", patch={"status": "completed", "end_time": 1791041391076}),
    system("task_notification", task_id="a_child", tool_use_id="toolu_C", status="completed",
           output_file="", summary="child done", usage={"total_tokens": 908, "tool_uses": 1, "duration_ms": 900}),
    tool_result("toolu_C", [text("x says x")], parent="toolu_P",
                tur={"status": "completed", "agentId": "a_child", "handbackReport": {"text": "x says x"}}),
    assistant("msg_P2", text("child said x"), parent="toolu_P", u=usage(1, 9, 600, 9)),
    system("task_notification", task_id="a_parent", tool_use_id="toolu_P", status="completed",
           output_file="", summary="parent done", usage={"total_tokens": 1700, "tool_uses": 1, "duration_ms": 2000}),
    tool_result("toolu_P", [text("child said x")], t=5,
                tur={"status": "completed", "agentId": "a_parent",
                     "handbackReport": {"text": "child said x"}}),
    assistant("msg_M2", text("All done."), t=6),
    result(text_="All done.", u=usage(4, 20, 2000, 200),
           subagent_stats={"spawned": 2, "completed": 2, "failed": 0, "max_depth": 2,
                           "spawned_by_subagents": 1, "by_type": {"general-purpose": 1, "Explore": 1}}),
])

stream_file("subagents-workflow-and-stats-mismatch.jsonl", [
    init(),
    assistant("msg_M1", tool_use("toolu_W", "Workflow", {"script": "review.js"})),
    tool_result("toolu_W", "launched", tur={"status": "async_launched", "taskId": "w1",
                                             "taskType": "local_workflow", "workflowName": "review"}),
    system("task_started", task_id="w1", tool_use_id="toolu_W", description="review",
           task_type="local_workflow", workflow_name="review"),
    system("task_progress", task_id="w1", tool_use_id="toolu_W", description="2 agents",
           usage={"total_tokens": 5000, "tool_uses": 4, "duration_ms": 3000}, summary="running",
           workflow_progress=[{"type": "workflow_phase", "index": 0, "title": "Review"},
                              {"type": "workflow_agent", "index": 0, "agentId": "wa1", "state": "done"},
                              {"type": "workflow_agent", "index": 1, "agentId": "wa2", "state": "progress"}]),
    system("task_notification", task_id="w1", tool_use_id="toolu_W", status="completed",
           output_file="", summary="review done", usage={"total_tokens": 9000, "tool_uses": 7, "duration_ms": 6000}),
    assistant("msg_M2", text("Reviewed.")),
    # the stats claim a subagent the stream never shows
    result(text_="Reviewed.", u=usage(4, 20, 2000, 200),
           subagent_stats={"spawned": 1, "completed": 1, "failed": 0, "max_depth": 1}),
])

# --- errors, permissions, hooks, notifications ----------------------------------

stream_file("api-retry.jsonl", [
    init(),
    system("api_retry", attempt=1, max_retries=10, retry_delay_ms=532.1, error_status=429, error="rate_limit"),
    system("api_retry", attempt=2, max_retries=10, retry_delay_ms=1115.0, error_status=529, error="overloaded"),
    system("api_retry", attempt=3, max_retries=10, retry_delay_ms=2413.4, error_status=529, error="overloaded"),
    assistant("msg_A", text("pong")),
    result(text_="pong"),
])

stream_file("hooks-and-notification.jsonl", [
    system("hook_started", hook_id="h1", hook_name="SessionStart:startup", hook_event="SessionStart"),
    system("hook_response", hook_id="h1", hook_name="SessionStart:startup", hook_event="SessionStart",
           output="", stdout="", stderr="", exit_code=0, outcome="success"),
    init(),
    assistant("msg_A", text("done")),
    system("hook_started", hook_id="h2", hook_name="Stop", hook_event="Stop"),
    system("hook_response", hook_id="h2", hook_name="Stop", hook_event="Stop",
           output="lint failed", stdout="", stderr="lint failed", exit_code=2, outcome="error"),
    system("notification", key="stop-hook-error", text="Stop hook error occurred", priority="immediate"),
    result(text_="done"),
])

# --- partial messages -----------------------------------------------------------

MSG_START = {"type": "message_start", "message": {"model": MAIN, "id": "msg_P", "type": "message",
                                                  "role": "assistant", "content": [], "stop_reason": None,
                                                  "usage": usage(2, 1, 1000, 100)}}

stream_file("partial-incomplete-block.jsonl", [
    init(),
    stream(MSG_START),
    stream({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    stream({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me"}}),
    stream({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " check."}}),
    assistant("msg_P", text("Let me check."), u=usage(2, 1, 1000, 100)),
    stream({"type": "content_block_stop", "index": 0}),
    stream({"type": "content_block_start", "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_P", "name": "Bash", "input": {},
                              "caller": {"type": "direct"}}}),
    stream({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}}),
    stream({"type": "content_block_delta", "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": "{\"command\": \"cargo"}}),
    # killed here: no assistant event, no content_block_stop, no result
])

stream_file("partial-mismatch.jsonl", [
    init(),
    stream(MSG_START),
    stream({"type": "content_block_start", "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_P", "name": "Bash", "input": {}}}),
    stream({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": "{\"command\": \"ls\"}"}}),
    assistant("msg_P", tool_use("toolu_P", "Bash", {"command": "ls -la"}), u=usage(2, 1, 1000, 100)),
    stream({"type": "content_block_stop", "index": 0}),
    stream({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 42}}),
    stream({"type": "message_stop"}),
    tool_result("toolu_P", "a"),
    assistant("msg_Q", text("ok"), u=usage(1, 3, 1100, 10)),
    result(text_="ok", u=usage(3, 45, 2100, 110)),
])

# --- newer Claude Code: the public record past the field reference (issue 22) ---
# Shapes as corpus/README.md says where each comes from.

stream_file("verdict-startup-failure-reason.jsonl", [
    # 2.1.274+: Claude Code refused to start and says why (no init before it).
    result("error_during_execution", is_error=True, text_=None, cost=0, u=usage(0, 0, 0, 0),
           model_usage={}, num_turns=0, duration_ms=0, duration_api_ms=0,
           terminal_reason="turn_setup_failed",
           errors=["Error: the working directory /work/repo no longer exists"],
           startup_failure_reason="cwd_unavailable"),
])

stream_file("rounds-lost-result.jsonl", [
    init(), prompt("go"), assistant("msg_A", text("round one")),
    result(text_="round one", result_index=0, queued_turn_count=0),
    init(), assistant("msg_B", text("round two")),
    # result_index 1 never came (the harness lost the line)
    init(), assistant("msg_C", text("round three")),
    result(text_="round three", result_index=2, queued_turn_count=0),
])

stream_file("system-newer-subtypes.jsonl", [
    # seen before init, without a session id or uuid
    {"type": "system", "subtype": "dev_intent", "kind": "android_app", "trigger": "project_scan"},
    init(),
    prompt("commit and push"),
    assistant("msg_A", tool_use("toolu_G", "Bash", {"command": "git commit -am wip && git push"})),
    tool_result("toolu_G", "[main 1a2b3c4] wip"),
    system("vcs_state_changed", kind="commit", cwd="/work/repo"),
    system("vcs_state_changed", kind="push", cwd="/work/repo", branch="main"),
    system("peer_message_hold", message_uuid="peer-1", **{"from": "plan-agent"},
           from_name="Planning agent", state="held", cause="mode-mismatch", lane="socket"),
    system("peer_message_hold", message_uuid="peer-1", **{"from": "plan-agent"},
           from_name="Planning agent", state="dropped", cause="mode-mismatch", outcome="discarded"),
    system("per_turn_effort_changed"),
    system("turn_preempted"),
    system("cloud_session_delta"),
    # a headless /usage report beside the message: session totals, not this
    # call's usage (its inner keys stand in for the server's rows)
    assistant("msg_B", text("Pushed."), u=usage(3, 12, 2000, 10),
              usage_report={"session": {"input_tokens": 900000, "output_tokens": 40000},
                            "rows": [{"window": "five_hour", "utilization": 0.4}],
                            "extra_usage": None}),
    result(text_="Pushed.", u=usage(5, 22, 3000, 110), queued_turn_count=0,
           user_message_uuid="00000000-0000-4000-8000-000000009001",
           user_message_uuids=["00000000-0000-4000-8000-000000009001"]),
])


def server_block(kind, **fields):
    block = {"type": kind}
    block.update(fields)
    return block


stream_file("tools-server.jsonl", [
    init(),
    prompt("find the S3 error codes"),
    # Anthropic's server tools: the use and its result in the message itself
    assistant("msg_S", server_block("server_tool_use", id="srvtoolu_01", name="web_search",
                                    input={"query": "S3 error responses"})),
    assistant("msg_S", server_block("web_search_tool_result", tool_use_id="srvtoolu_01",
                                    content=[{"type": "web_search_result",
                                              "url": "https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html",
                                              "title": "Error responses", "encrypted_content": "EqoB...",
                                              "page_age": None}])),
    assistant("msg_S", server_block("server_tool_use", id="srvtoolu_02", name="web_fetch",
                                    input={"url": "https://example.com/gone"})),
    assistant("msg_S", server_block("web_fetch_tool_result", tool_use_id="srvtoolu_02",
                                    content={"type": "web_fetch_tool_result_error",
                                             "error_code": "url_not_accessible"})),
    # z.ai's built-in webReader: a server_tool_use, its result a tool_result
    # block inside the assistant event (wave3's bf-1kbuqm)
    assistant("msg_Z", server_block("server_tool_use", id="call_01", name="webReader", input={})),
    assistant("msg_Z", {"type": "tool_result", "tool_use_id": "call_01",
                        "content": [{"type": "text", "text": "# Error responses ..."}]}),
    assistant("msg_T", text("NoSuchKey, AccessDenied, ..."), u=usage(4, 30, 2000, 10)),
    result(text_="NoSuchKey, AccessDenied, ..."),
])


def main():
    for name, body in FILES.items():
        with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as f:
            f.write(body)
    print("wrote %d files" % len(FILES))


if __name__ == "__main__":
    main()
