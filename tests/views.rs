//! Views: every field of the reference read through its accessor and
//! compared with serde_json's reading; realworld files through every
//! accessor, with the drift census printed.

use cctape::SliceEvents;
use cctape::json::{Value, ValueKind};
use cctape::views::{
    Answer, Block, CATALOG, Census, NoVisitor, ToolUseResult, View, Visitor, to_json,
};
use cctape::{EventKind, Field};
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

#[path = "support/calls.rs"]
mod calls_visitor;
use calls_visitor::Calls;
#[path = "views/calls.rs"]
mod calls;

/// Hand-made lines, one per shape the TypeScript definitions give that the
/// reference's JSON examples do not show (and the real-stream extras), so
/// that every known field of every view is read at least once.
const FIELD_LINES: &str = r##"
{"type":"system","subtype":"init","cwd":"/w","session_id":"S","tools":["Task"],"mcp_servers":[{"name":"github","status":"connected"}],"model":"claude-opus-5","permissionMode":"default","slash_commands":[],"terminal_slash_commands":[],"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.289","output_style":"default","agents":["Plan"],"skills":["pdf"],"plugins":[{"name":"p","path":"/p","source":"marketplace"}],"capabilities":[],"analytics_disabled":true,"product_feedback_disabled":true,"uuid":"U","memory_paths":{"auto":"/m","team":"/t"},"scratchpad_path":"/s","messaging_socket_path":"/sock","fast_mode_state":"off","fast_mode_disabled_reason":"sdk_opt_in_required","per_turn_effort_active":false,"view_mode":"default","startup_timing":{"phases":{"node_boot_ms":146.5,"settings_ms":3}}}
{"type":"system","subtype":"status","status":"requesting","uuid":"U","session_id":"S"}
{"type":"system","subtype":"hook_progress","hook_id":"h1","hook_name":"SessionStart:startup","hook_event":"SessionStart","stdout":"","stderr":"warn\n","output":"warn\n","uuid":"U","session_id":"S"}
{"type":"system","subtype":"status","status":null,"uuid":"U","session_id":"S"}
{"type":"system","subtype":"task_summary","detail":"Writing probe-r1.txt","uuid":"U","session_id":"S"}
{"type":"system","subtype":"task_summary","detail":null,"uuid":"U","session_id":"S"}
{"type":"system","subtype":"post_turn_summary","summarizes_uuid":"A","status_category":"review_ready","status_detail":"Wrote the file","needs_action":"","uuid":"U","session_id":"S"}
{"type":"system","subtype":"thinking_tokens","estimated_tokens":120,"estimated_tokens_delta":40,"uuid":"U","session_id":"S"}
{"type":"system","subtype":"api_retry","session_id":"S","attempt":1,"max_retries":300,"retry_delay_ms":512.25,"error_status":401,"error":"authentication_failed"}
{"type":"system","subtype":"api_retry","session_id":"S","uuid":"U","attempt":2,"max_retries":300,"retry_delay_ms":1000,"error_status":529,"error":"overloaded"}
{"type":"system","subtype":"background_tasks_changed","tasks":[{"task_id":"b1","task_type":"local_bash","description":"sleep 5"},{"task_id":"w1","task_type":"local_workflow","description":"flow"}],"uuid":"U","session_id":"S"}
{"type":"system","subtype":"background_tasks_changed","tasks":[],"uuid":"U","session_id":"S"}
{"type":"system","subtype":"task_started","task_id":"w1","tool_use_id":"toolu_W","description":"Run flow","task_type":"local_workflow","prompt":"phase('a')","workflow_name":"flow","uuid":"U","session_id":"S"}
{"type":"system","subtype":"task_started","task_id":"b1","tool_use_id":"toolu_B","description":"sleep 5","task_type":"local_bash","is_backgrounded":true,"uuid":"U","session_id":"S"}
{"type":"system","subtype":"task_progress","task_id":"w1","tool_use_id":"toolu_W","description":"Phase 1","usage":{"total_tokens":10,"tool_uses":1,"duration_ms":5},"last_tool_name":"Read","summary":"one agent running","workflow_progress":[{"type":"workflow_phase","index":0,"title":"Gather"},{"type":"workflow_agent","index":0,"label":"reader","phaseIndex":0,"phaseTitle":"Gather","agentId":"a1","model":"claude-haiku-4-5","state":"progress","attempt":1,"queuedAt":1791041391000,"startedAt":1791041391010,"lastProgressAt":1791041391070,"durationMs":60,"tokens":900,"toolCalls":2,"lastToolName":"Read","lastToolSummary":"Read a.txt","promptPreview":"Read the","promptFramed":true,"resultPreview":""},{"type":"workflow_note","index":2}],"uuid":"U","session_id":"S"}
{"type":"system","subtype":"task_updated","task_id":"b1","patch":{"status":"killed","end_time":1791041391076},"uuid":"U","session_id":"S"}
{"type":"system","subtype":"task_notification","task_id":"b1","tool_use_id":"toolu_B","status":"stopped","output_file":"","summary":"Background command stopped","uuid":"U","session_id":"S"}
{"type":"system","subtype":"compact_boundary","session_id":"S","uuid":"U","compact_metadata":{"trigger":"auto","pre_tokens":155193}}
{"type":"system","subtype":"notification","key":"stop-hook-error","text":"Stop hook failed","priority":"immediate","uuid":"U","session_id":"S"}
{"type":"assistant","message":{"id":"msg_02","type":"message","role":"assistant","model":"claude-opus-5","content":[{"type":"thinking","thinking":"","signature":"c2ln"}],"stop_reason":null,"stop_sequence":null,"stop_details":null,"container":null,"context_management":null,"diagnostics":null,"input_transformations":[],"usage":{"input_tokens":2,"output_tokens":7,"cache_read_input_tokens":3,"cache_creation_input_tokens":4,"service_tier":"standard","inference_geo":"","output_tokens_details":{"thinking_tokens":5},"iterations":[{"type":"message","input_tokens":2,"output_tokens":7,"cache_read_input_tokens":3,"cache_creation_input_tokens":4,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":4}}],"speed":"standard","fallback_credit":null,"server_tool_use":{"web_search_requests":1,"web_fetch_requests":2}}},"parent_tool_use_id":"toolu_P","session_id":"S","uuid":"U","timestamp":"2026-10-03T15:29:17.247Z","request_id":"req_02","thinking_duration_ms":812,"subagent_type":"general-purpose","task_description":"Create sub1.txt"}
{"type":"assistant","message":{"id":"msg_03","type":"message","role":"assistant","model":"claude-opus-5","content":[{"type":"tool_use","id":"toolu_03","name":"Edit","input":{"file_path":"/w/a","old_string":"a","new_string":"b","replace_all":true},"caller":{"type":"direct"}}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}},"parent_tool_use_id":null,"session_id":"S","uuid":"U","wire_tool_inputs":{"toolu_03":{"file_path":"/w/a","old_string":"a","new_string":"b","replace_all":true}}}
{"type":"assistant","message":{"id":"msg_04","type":"message","role":"assistant","model":"claude-opus-5","content":[{"type":"tool_use","id":"toolu_04","name":"Bash","input":{"command":"sleep 5","description":"wait","timeout":60000,"run_in_background":true},"caller":{"type":"direct"}}]},"parent_tool_use_id":null,"session_id":"S","uuid":"U","wire_tool_inputs":{"toolu_04":{"command":"sleep 5","description":"wait","timeout":60000,"run_in_background":true},"toolu_05":{"description":"Create sub1.txt","prompt":"Create a file","subagent_type":"general-purpose","run_in_background":false},"toolu_06":{"skill":"pdf"},"toolu_07":{"script":"phase('a')"},"toolu_08":{"file_path":"/w/b","content":"hello"}}}
{"type":"assistant","message":{"id":"msg_05","type":"message","role":"assistant","model":"claude-opus-5","content":[{"type":"redacted_thinking","data":"xyz"}]},"parent_tool_use_id":null,"session_id":"S","uuid":"U"}
{"type":"user","message":{"role":"user","content":"Write probe-r1.txt"},"parent_tool_use_id":null,"session_id":"S","uuid":"U","timestamp":"2026-10-03T15:29:10.000Z","isReplay":true}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Skill text"}]},"parent_tool_use_id":"toolu_P","session_id":"S","uuid":"U","timestamp":"2026-10-03T15:29:11.000Z","isSynthetic":true,"subagent_type":"general-purpose","task_description":"Create sub1.txt"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_04","type":"tool_result","content":"Command running in background","is_error":false}]},"parent_tool_use_id":null,"session_id":"S","uuid":"U","timestamp":"T","tool_use_result":{"stdout":"","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false,"backgroundTaskId":"b1"}}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_08","type":"tool_result","content":"File created"}]},"parent_tool_use_id":null,"session_id":"S","uuid":"U","timestamp":"T","tool_use_result":{"type":"create","filePath":"/w/b","content":"hello","structuredPatch":[],"originalFile":null,"userModified":false}}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_03","type":"tool_result","content":"Edited"}]},"parent_tool_use_id":null,"session_id":"S","uuid":"U","timestamp":"T","tool_use_result":{"filePath":"/w/a","oldString":"a","newString":"b","originalFile":"a\n","replaceAll":true,"userModified":false,"structuredPatch":[{"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":["-a","+b"]}]}}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_06","type":"tool_result","content":"Launching skill: pdf"}]},"parent_tool_use_id":null,"session_id":"S","uuid":"U","timestamp":"T","tool_use_result":{"commandName":"pdf","content":"# PDF skill"}}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_07","type":"tool_result","content":"Workflow launched"}]},"parent_tool_use_id":null,"session_id":"S","uuid":"U","timestamp":"T","tool_use_result":{"status":"async_launched","taskId":"w1","taskType":"local_workflow","workflowName":"flow","runId":"r1","summary":"launched","transcriptDir":"/t","scriptPath":"/s.js"}}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_05","type":"tool_result","content":[{"type":"text","text":"Done: created sub1.txt"}]}]},"parent_tool_use_id":null,"session_id":"S","uuid":"U","timestamp":"T","tool_use_result":{"status":"completed","agentId":"a1","agentType":"general-purpose","prompt":"Create a file","handback":"send","handbackReport":{"text":"Created sub1.txt"},"content":[{"type":"text","text":"Done: created sub1.txt"}],"resolvedModel":"claude-opus-5","totalDurationMs":4473,"totalTokens":24865,"totalToolUseCount":2,"usage":{"input_tokens":3,"output_tokens":40,"cache_read_input_tokens":20000,"cache_creation_input_tokens":800,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":800},"service_tier":"standard","inference_geo":"not_available"},"toolStats":{"readCount":0,"searchCount":0,"bashCount":0,"editFileCount":1,"linesAdded":1,"linesRemoved":0,"otherToolCount":0},"harnessNoteCount":0,"harnessTailCount":0,"harnessSectionHash":"h"}}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_09","type":"tool_result","content":"User rejected tool use","is_error":true}]},"parent_tool_use_id":null,"session_id":"S","uuid":"U","timestamp":"T","tool_use_result":"User rejected tool use","tool_result_meta":[{"id":"toolu_09","non_execution_kind":"permission-rule"}]}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_10","type":"tool_result","content":"a.txt"}]},"parent_tool_use_id":null,"session_id":"S","uuid":"U","timestamp":"T","tool_use_result":{"type":"glob","filenames":["a.txt"],"numFiles":1}}
{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}},"session_id":"S","parent_tool_use_id":null,"uuid":"U","thinking_display":"updates"}
{"type":"stream_event","event":{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}},"session_id":"S","parent_tool_use_id":null,"uuid":"U"}
{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"","estimated_tokens":12}},"session_id":"S","parent_tool_use_id":null,"uuid":"U","thinking_display":"updates"}
{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"","estimated_tokens":null}},"session_id":"S","parent_tool_use_id":null,"uuid":"U"}
{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}},"session_id":"S","parent_tool_use_id":null,"uuid":"U"}
{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello"}},"session_id":"S","parent_tool_use_id":null,"uuid":"U"}
{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"citations_delta","citation":{}}},"session_id":"S","parent_tool_use_id":null,"uuid":"U"}
{"type":"stream_event","event":{"type":"ping"},"session_id":"S","parent_tool_use_id":null,"uuid":"U"}
{"type":"result","subtype":"success","is_error":false,"result":"{\"ok\":true}","structured_output":{"ok":true},"stop_reason":"end_turn","terminal_reason":"completed","api_error_status":null,"num_turns":2,"duration_ms":9,"duration_api_ms":5,"total_cost_usd":0.5,"usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":3,"cache_creation_input_tokens":4},"modelUsage":{"claude-opus-5":{"inputTokens":1,"outputTokens":2,"cacheReadInputTokens":3,"cacheCreationInputTokens":4,"thinkingTokens":0,"webSearchRequests":0,"costUSD":0.5,"costBasis":"list","provider":"firstParty","canonicalModel":"claude-opus-5","contextWindow":1000000,"maxOutputTokens":128000}},"permission_denials":[{"tool_name":"Bash","tool_use_id":"toolu_09","tool_input":{"command":"rm -rf /tmp/x"}}],"subagent_stats":{"spawned":2,"requested":{"background":1,"foreground":1,"unset":0},"started_in_background":1,"max_depth":1,"spawned_by_subagents":0,"completed":2,"failed":0,"killed":{"parent":0,"user":0,"system":0},"refused":{"depth_limit":0,"concurrency_limit":0,"budget":0},"by_type":{"general-purpose":2}},"result_index":1,"origin":{"kind":"task-notification","producer":"session-task"},"queued_turn_count":0,"fast_mode_state":"off","fast_mode_disabled_reason":"sdk_opt_in_required","ttft_ms":2249,"ttft_stream_ms":2250,"first_content_frame_ms":2251.5,"time_to_request_ms":120,"time_to_request_phases_ms":{"settings":3},"time_to_request_cpu_ms":80.5,"time_to_request_loop_lag_ms":1.25,"time_to_request_major_faults":0,"time_to_request_from_spawn_ms":400,"time_origin_ms":1791041391000.5,"input_attachments_detail":[],"turn_start_resume_kind":"fresh","process_turn_index":0,"warm_spare_claimed":false,"flag_fetch_kick":null,"session_id":"S","uuid":"U"}
{"type":"result","subtype":"error_max_budget_usd","is_error":true,"terminal_reason":"budget_exhausted","errors":["Reached maximum budget ($0.01)"],"stop_reason":null,"num_turns":1,"duration_ms":9,"duration_api_ms":0,"total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"modelUsage":{},"permission_denials":[],"session_id":"S","uuid":"U","result_index":0,"queued_turn_count":0}
{"type":"result","subtype":"success","cost_usd":0.003,"total_cost":0.003,"duration_ms":1200,"num_turns":1,"result":"hi","session_id":"S","is_error":false}
{"type":"active_goal","value":null,"session_id":"S","uuid":"U"}
{"type":"autocompact_state","value":{"source":"env","threshold":0.8},"session_id":"S","uuid":"U"}
{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1791050000,"rateLimitType":"five_hour","overageStatus":"rejected","overageDisabledReason":"org_level_disabled","isUsingOverage":false,"unifiedWindows":{"five_hour":{"utilization":0.5,"resetsAt":1791050000},"seven_day":{"utilization":0.25,"resetsAt":1791500000}},"utilization":0.9,"surpassedThreshold":0.75},"session_id":"S","uuid":"U"}
{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Write","display_name":"Write","input":{"file_path":"/w/c","content":"x"},"description":"Write /w/c","permission_suggestions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}],"tool_use_id":"toolu_11"},"session_id":"S","uuid":"U"}
{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"still_queued":[]}},"session_id":"S","uuid":"U"}
{"type":"control_cancel_request","request_id":"r1"}
{"type":"tool_progress","tool_use_id":"toolu_12-heartbeat-0","tool_name":"Bash","parent_tool_use_id":null,"elapsed_time_seconds":30.5,"heartbeat":true,"task_id":"b2","session_id":"S","uuid":"U"}
{"type":"system","subtype":"vcs_state_changed","kind":"push","cwd":"/w","branch":"main","uuid":"U","session_id":"S"}
{"type":"system","subtype":"dev_intent","kind":"android_app","trigger":"project_scan","uuid":"U","session_id":"S"}
{"type":"system","subtype":"turn_preempted","uuid":"U","session_id":"S"}
{"type":"system","subtype":"cloud_session_delta","uuid":"U","session_id":"S"}
{"type":"system","subtype":"per_turn_effort_changed","uuid":"U","session_id":"S"}
{"type":"system","subtype":"peer_message_hold","message_uuid":"M","from":"plan-agent","from_name":"Planning agent","state":"dropped","cause":"explicit-setting","lane":"socket","outcome":"discarded","uuid":"U","session_id":"S"}
{"type":"assistant","message":{"id":"msg_06","type":"message","role":"assistant","model":"claude-opus-5","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"mcp_search","input":{"q":"x"},"server_name":"docs","caller":{"type":"direct"}}]},"parent_tool_use_id":null,"session_id":"S","uuid":"U","api_error_code":"credits_required","usage_report":{"session":{"input_tokens":9}}}
{"type":"assistant","message":{"id":"msg_06","type":"message","role":"assistant","model":"claude-opus-5","content":[{"type":"mcp_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"mcp_tool_result_error","error_code":"unavailable"},"is_error":true}]},"parent_tool_use_id":null,"session_id":"S","uuid":"U"}
{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["Error: cannot start"],"num_turns":0,"duration_ms":0,"duration_api_ms":0,"total_cost_usd":0,"user_message_uuid":"M1","user_message_uuids":["M1"],"queued_turn_count":0,"startup_failure_reason":"cwd_unavailable","runner_exit":{"phase":"setup","exit_code":1,"signal":null},"api_error_code":"credits_required","resume_reason":"resumed","session_id":"S","uuid":"U"}
"##;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Numbers compare by value (an f64 accessor reads `146` as `146.0`), floats
/// within 2 ulps: serde_json without its `float_roundtrip` feature can be one
/// ulp off (it reads `0.24159999999999998` as `0.2416`), simd-json is exact.
fn json_eq(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (a, b) {
        (J::Number(x), J::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => {
                x == y || (x - y).abs() <= 2.0 * f64::EPSILON * x.abs().max(y.abs())
            }
            _ => false,
        },
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

struct Frame<'d> {
    obj: Value<'d>,
    view: &'static str,
    path: String,
    read: BTreeSet<&'static str>,
}

/// Checks, at every view entered, that each accessor's reading equals the
/// raw field (by our owned copy, itself checked against serde_json on the
/// whole line) and that every key of the object was read by an accessor.
struct Checker<'d> {
    open: HashMap<&'static str, bool>,
    stack: Vec<Frame<'d>>,
    errors: Vec<String>,
    /// (view, key) pairs read present and equal.
    tally: BTreeSet<(&'static str, &'static str)>,
}

impl<'d> Checker<'d> {
    fn new() -> Self {
        Checker {
            open: CATALOG.iter().map(|v| (v.name, v.open)).collect(),
            stack: Vec::new(),
            errors: Vec::new(),
            tally: BTreeSet::new(),
        }
    }
}

impl<'d> Visitor<'d> for Checker<'d> {
    fn enter(&mut self, key: &'static str, view: &'static str, obj: Value<'d>) {
        let path = match self.stack.last() {
            Some(f) => format!("{}.{}", f.path, key),
            None => key.to_string(),
        };
        self.stack.push(Frame {
            obj,
            view,
            path,
            read: BTreeSet::new(),
        });
    }

    fn leave(&mut self) {
        let f = self.stack.pop().expect("balanced enter/leave");
        if self.open.get(f.view).copied().unwrap_or(false) || f.view.starts_with("Other") {
            return;
        }
        for (k, _) in f.obj.entries() {
            if !f.read.contains(k) && k != "..." {
                self.errors
                    .push(format!("{} ({}): no accessor for `{k}`", f.path, f.view));
            }
        }
    }

    fn field(
        &mut self,
        obj: Value<'d>,
        key: &'static str,
        raw: Option<Value<'d>>,
        read: &dyn Answer<'d>,
    ) {
        let f = self.stack.last_mut().expect("a field inside a view");
        assert_eq!(
            obj.raw().map(<[u8]>::as_ptr),
            f.obj.raw().map(<[u8]>::as_ptr)
        );
        f.read.insert(key);
        let want = obj.get(key).map(to_json);
        assert_eq!(raw.map(to_json), want, "{key}: the walk's member");
        let got = read.to_json();
        assert_eq!(got.is_some(), read.is_present());
        match (&got, &want) {
            (None, None) => {}
            (Some(g), Some(w)) if json_eq(g, w) => {
                self.tally.insert((f.view, key));
            }
            _ => self.errors.push(format!(
                "{} ({}): `{key}` reads {got:?}, the line has {want:?}",
                f.path, f.view
            )),
        }
    }

    fn unknown(&mut self, _obj: Value<'d>, key: &'d str, _value: Value<'d>) {
        let f = self.stack.last().expect("inside a view");
        // `Other*` views stand for shapes the reference does not define:
        // their fields are unknown by design.
        if key != "..." && !f.view.starts_with("Other") {
            self.errors
                .push(format!("{} ({}): unknown field `{key}`", f.path, f.view));
        }
    }
}

/// Run the checker over every line of `input`; returns the (view, key)
/// pairs read. Fails on any error, unknown field or type mismatch.
fn check_lines(
    what: &str,
    input: &[u8],
    tally: &mut BTreeSet<(&'static str, &'static str)>,
) -> usize {
    let mut events = SliceEvents::new(input);
    let mut n = 0;
    let mut errors = Vec::new();
    while let Some(item) = events.next_event() {
        let ev = item.unwrap_or_else(|e| panic!("{what}: {e}"));
        let line = String::from_utf8_lossy(ev.raw()).into_owned();
        let oracle: serde_json::Value = serde_json::from_slice(ev.raw()).expect("serde reads it");
        let view = ev.view();
        assert!(
            json_eq(&view.to_owned_json(), &oracle),
            "{what}:{}: owned copy differs from serde_json",
            ev.line()
        );
        if ev.kind() != EventKind::Unknown && ev.kind() != EventKind::SystemOther {
            assert!(!matches!(view, View::Other(_)), "{what}: {line}");
        }
        let mut c = Checker::new();
        view.visit_all(&mut c);
        assert!(c.stack.is_empty());
        for e in c.errors {
            errors.push(format!("{what}:{}: {e}", ev.line()));
        }
        // Type mismatches, counted over the tape (the opt-in backend, which
        // counts them on its document).
        let mut tape = cctape::json::tape::Parser::new();
        let doc = tape.parse(&line_of(&ev)).expect("the tape reads it");
        View::new(ev.kind(), doc.value()).visit_all(&mut Checker::new());
        let mismatches = doc.type_mismatches();
        if mismatches != 0 {
            errors.push(format!(
                "{what}:{}: {mismatches} type mismatches",
                ev.line()
            ));
        }
        tally.extend(c.tally);
        n += 1;
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    n
}

#[test]
fn reference_examples_read_through_their_views() {
    let dir = root().join("corpus/reference");
    let mut tally = BTreeSet::new();
    let all = std::fs::read(dir.join("examples.jsonl")).unwrap();
    assert_eq!(check_lines("examples.jsonl", &all, &mut tally), 21);
}

#[test]
fn hand_made_lines_read_through_their_views() {
    let mut tally = BTreeSet::new();
    check_lines("FIELD_LINES", FIELD_LINES.trim().as_bytes(), &mut tally);
}

#[test]
fn corpus_streams_read_through_their_views() {
    let mut tally = BTreeSet::new();
    for entry in std::fs::read_dir(root().join("corpus/streams")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".jsonl") && name != "mixed-bad.jsonl" {
            check_lines(&name, &std::fs::read(&path).unwrap(), &mut tally);
        }
    }
}

#[test]
fn every_known_field_of_every_view_is_read_by_a_test() {
    let mut tally = BTreeSet::new();
    let dir = root().join("corpus/reference");
    check_lines(
        "examples.jsonl",
        &std::fs::read(dir.join("examples.jsonl")).unwrap(),
        &mut tally,
    );
    check_lines("FIELD_LINES", FIELD_LINES.trim().as_bytes(), &mut tally);
    let mut missing = Vec::new();
    for v in CATALOG {
        for k in v.known {
            if !tally.contains(&(v.name, *k)) {
                missing.push(format!("{}.{k}", v.name));
            }
        }
    }
    assert!(missing.is_empty(), "never read by a test: {missing:?}");
    let names: BTreeSet<_> = CATALOG.iter().map(|v| v.name).collect();
    assert_eq!(names.len(), CATALOG.len(), "view names are unique");
}

// ---------------------------------------------------------------------------
// Realworld files: every accessor of every view; drift census.

fn realworld_files() -> Option<Vec<PathBuf>> {
    let dir = root().join("../shared/realworld");
    if !dir.is_dir() {
        return None;
    }
    let mut out = Vec::new();
    let mut todo = vec![dir];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|e| e == "jsonl" || e == "ndjson") {
                out.push(p);
            }
        }
    }
    out.sort();
    Some(out)
}

/// What a real-world file is, as the READMEs describe it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FileClass {
    /// A stream-json capture.
    Stream,
    /// A session transcript (`session-format/`, and the author-normalized
    /// `dotclaude` session of `wave2/transformed/`).
    Transcript,
    /// Message literals from peers' test suites (`wave2/peer-fixtures/`),
    /// mostly hand-written.
    PeerFixture,
}

fn file_class(f: &std::path::Path) -> FileClass {
    let under = |dir: &str| f.components().any(|c| c.as_os_str() == dir);
    let name = f
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if under("peer-fixtures") {
        FileClass::PeerFixture
    } else if under("session-format") || name.contains("-dotclaude-") {
        FileClass::Transcript
    } else {
        FileClass::Stream
    }
}

#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn realworld_events_through_every_accessor_with_drift_census() {
    let Some(files) = realworld_files() else {
        eprintln!("SKIP: ../shared/realworld is missing");
        assert!(
            std::env::var_os("CI").is_none(),
            "../shared/realworld is required in CI"
        );
        return;
    };
    assert!(!files.is_empty());
    let shared = root().join("../shared");
    let reference =
        std::fs::read_to_string(shared.join("spec/stream-json-reference.zh.txt")).unwrap();
    let mut readmes = String::new();
    let mut dirs = vec![shared.join("realworld")];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.file_name().is_some_and(|n| n == "README.md") {
                readmes.push_str(&std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    let mut events_seen = 0u64;
    let mut report = String::new();
    for (label, class) in [
        ("stream-json", FileClass::Stream),
        ("session-format", FileClass::Transcript),
        ("peer-fixture", FileClass::PeerFixture),
    ] {
        let mut census = Census::default();
        for f in &files {
            if file_class(f) != class {
                continue;
            }
            let bytes = std::fs::read(f).unwrap();
            let mut events = SliceEvents::new(&bytes);
            while let Some(item) = events.next_event() {
                let Ok(ev) = item else { continue };
                events_seen += 1;
                census.add(&ev);
                let view = ev.view();
                view.visit_all(&mut NoVisitor);
                assert_eq!(
                    Calls::of(&view, true),
                    Calls::of(&view, false),
                    "{}:{}: a visit without readings differs",
                    f.display(),
                    ev.line()
                );
                let _ = view.unknown_fields().count();
                if let Ok(oracle) = serde_json::from_slice::<serde_json::Value>(ev.raw()) {
                    assert!(
                        json_eq(&view.to_owned_json(), &oracle),
                        "{}:{}: owned copy differs from serde_json",
                        f.display(),
                        ev.line()
                    );
                }
            }
        }
        // Real stream captures have a view for every kind the field
        // reference describes; a kind newer than the reference (wave3's
        // `system/vcs_state_changed`, Claude Code 2.1.219 and later) may
        // have none yet, but only one that the captures' READMEs name, so
        // that new drift in the data is noticed. Typing such a kind adds a
        // view, and the test still holds. Transcripts and the peers'
        // hand-written fixtures carry kinds of their own, which are
        // accepted and counted.
        if class == FileClass::Stream {
            for kind in census.without_view.keys() {
                let name = kind.rsplit('/').next().unwrap_or(kind);
                assert!(
                    !reference.contains(&format!("\"{name}\"")),
                    "stream-json events without a view, of a kind the field reference \
                     describes: {kind} ({:?})",
                    census.without_view
                );
                assert!(
                    readmes.contains(kind.as_str()),
                    "stream-json events without a view, of a kind no README names: {kind} ({:?})",
                    census.without_view
                );
            }
        }
        report.push_str(&format!("\n=== drift census: {label} files ===\n{census}"));
    }
    println!("{report}");
    assert!(events_seen > 2000, "{events_seen} events");
}

// ---------------------------------------------------------------------------
// Behaviour.

/// Line `n` (1-based) of corpus/reference/examples.jsonl: the reference's
/// `n`th example (corpus/reference/examples.tsv names them).
fn reference_example(n: usize) -> Vec<u8> {
    let all = std::fs::read(root().join("corpus/reference/examples.jsonl")).unwrap();
    all.split(|&b| b == b'\n').nth(n - 1).unwrap().to_vec()
}

/// The line an event was read from.
fn line_of<'a>(ev: &cctape::Event<'a>) -> cctape::Line<'a> {
    cctape::Line {
        bytes: ev.raw(),
        number: ev.line(),
        offset: ev.offset(),
        terminated: true,
    }
}

/// `f` on the first event of `line` through the index, then over the tape
/// (the opt-in backend, which counts type mismatches on its document):
/// the mismatches the second reading counted.
fn both_backends(line: &str, f: impl Fn(&cctape::Event<'_>)) -> u32 {
    let kind = first_event(line, |ev| {
        f(ev);
        ev.kind()
    });
    let l = cctape::framing::Lines::new(line.as_bytes()).next().unwrap();
    let mut p = cctape::json::tape::Parser::new();
    let doc = p.parse(&l).unwrap();
    f(&cctape::Event::from_parts(doc.value(), l, kind));
    doc.type_mismatches()
}

fn first_event<R>(line: &str, f: impl FnOnce(&cctape::Event<'_>) -> R) -> R {
    let mut events = SliceEvents::new(line.as_bytes());
    let ev = events.next_event().unwrap().unwrap();
    f(&ev)
}

#[test]
fn field_tells_null_from_missing_and_counts_wrong_types() {
    let mismatches = both_backends(
        r#"{"type":"result","subtype":"success","api_error_status":null,"stop_reason":5,"num_turns":"3","total_cost_usd":1}"#,
        |ev| {
            let r = ev.as_result().unwrap();
            assert_eq!(r.api_error_status(), Field::Null);
            assert_eq!(r.stop_reason(), Field::Missing);
            assert_eq!(r.terminal_reason(), None);
            assert_eq!(r.num_turns(), None);
            assert_eq!(r.total_cost_usd(), Some(1.0));
        },
    );
    assert_eq!(mismatches, 2);
}

#[test]
fn arrays_and_maps_skip_and_count_wrong_elements() {
    let mismatches = both_backends(
        r#"{"type":"system","subtype":"init","tools":["Bash",7,"Read"],"startup_timing":{"phases":{"a_ms":1,"b_ms":"x","c_ms":2.5}}}"#,
        |ev| {
            let init = ev.as_init().unwrap();
            let tools = init.tools().unwrap();
            assert_eq!(tools.len(), 3);
            assert_eq!(tools.get(2), Some("Read"));
            assert_eq!(tools.collect::<Vec<_>>(), ["Bash", "Read"]);
            let phases = init.startup_timing().unwrap().phases().unwrap();
            assert_eq!(phases.get("c_ms"), Some(2.5));
            assert_eq!(phases.get("b_ms"), None);
            assert_eq!(phases.collect::<Vec<_>>(), [("a_ms", 1.0), ("c_ms", 2.5)]);
        },
    );
    assert_eq!(mismatches, 2);
}

#[test]
fn model_usage_is_a_map_of_views() {
    let all = reference_example(15);
    let mut events = SliceEvents::new(&all);
    let ev = events.next_event().unwrap().unwrap();
    let r = ev.as_result().unwrap();
    let mu = r.model_usage().unwrap();
    assert_eq!(mu.len(), 2);
    let sonnet = mu.get("claude-sonnet-5-5").unwrap();
    assert_eq!(sonnet.output_tokens(), Some(248));
    assert_eq!(sonnet.canonical_model(), Some("claude-sonnet-5-5"));
    let sum: f64 = mu.filter_map(|(_, m)| m.cost_usd()).sum();
    assert!((sum - r.total_cost_usd().unwrap()).abs() < 1e-12);
    let stats = r.subagent_stats().unwrap();
    assert_eq!(stats.killed().unwrap().user(), Some(0));
    assert_eq!(stats.by_type().unwrap().count(), 0);
    let usage = r.usage().unwrap();
    assert_eq!(
        usage
            .output_tokens_details()
            .value()
            .unwrap()
            .thinking_tokens(),
        Some(32)
    );
    assert_eq!(usage.iterations().value().unwrap().count(), 1);
    assert_eq!(usage.token_counts().total(), 6 + 248 + 94923 + 5300);
}

#[test]
fn assistant_blocks_and_tool_inputs() {
    let line = String::from_utf8(reference_example(5)).unwrap();
    first_event(&line, |ev| {
        let a = ev.as_assistant().unwrap();
        let Some(Block::ToolUse(t)) = a.block() else {
            panic!("a tool_use block")
        };
        assert_eq!(t.name(), Some("Bash"));
        assert_eq!(
            t.input().unwrap().get("command").unwrap().as_str(),
            Some("cargo test")
        );
        assert_eq!(t.tool_input().unwrap().description(), Some("Run tests"));
        assert_eq!(t.caller().unwrap().type_(), Some("direct"));
        let wire = a.wire_tool_inputs().unwrap();
        assert_eq!(wire.get("toolu_01A").unwrap().command(), Some("cargo test"));
        let m = a.message().unwrap();
        assert_eq!(m.stop_reason(), Field::Null);
        assert!(!m.is_synthetic());
        assert_eq!(
            m.usage()
                .unwrap()
                .cache_creation()
                .unwrap()
                .ephemeral_1h_input_tokens(),
            Some(4950)
        );
        assert_eq!(a.parent_tool_use_id(), Field::Null);
    });
}

#[test]
fn tool_use_results_by_shape() {
    let mut kinds = Vec::new();
    let mut events = SliceEvents::new(FIELD_LINES.trim().as_bytes());
    while let Some(item) = events.next_event() {
        let ev = item.unwrap();
        if let Some(r) = ev.as_user().and_then(|u| u.tool_use_result()) {
            kinds.push(match r {
                ToolUseResult::Text(_) => "text",
                ToolUseResult::Bash(b) => {
                    assert_eq!(b.background_task_id(), Some("b1"));
                    "bash"
                }
                ToolUseResult::Read(_) => "read",
                ToolUseResult::Write(w) => {
                    assert_eq!(w.original_file(), Field::Null);
                    "write"
                }
                ToolUseResult::Edit(e) => {
                    let h = e.structured_patch().unwrap().next().unwrap();
                    assert_eq!(h.lines().unwrap().collect::<Vec<_>>(), ["-a", "+b"]);
                    "edit"
                }
                ToolUseResult::Skill(_) => "skill",
                ToolUseResult::Workflow(_) => "workflow",
                ToolUseResult::Agent(a) => {
                    assert_eq!(
                        a.handback_report().unwrap().text(),
                        Some("Created sub1.txt")
                    );
                    assert_eq!(a.tool_stats().unwrap().lines_added(), Some(1));
                    assert_eq!(a.usage().unwrap().input_tokens(), Some(3));
                    "agent"
                }
                ToolUseResult::Other(o) => {
                    assert_eq!(
                        o.unknown_fields().map(|(k, _)| k).collect::<Vec<_>>(),
                        ["filenames", "numFiles"]
                    );
                    "other"
                }
                _ => "?",
            });
        }
    }
    assert_eq!(
        kinds,
        [
            "bash", "write", "edit", "skill", "workflow", "agent", "text", "other"
        ]
    );
    let line = String::from_utf8(reference_example(8)).unwrap();
    first_event(&line, |ev| {
        let u = ev.as_user().unwrap();
        let r = u.tool_use_result().unwrap();
        assert!(r.is_error_text());
        let Some(Block::ToolResult(b)) = u.block() else {
            panic!("a tool_result block")
        };
        assert_eq!(b.is_error(), Some(true));
    });
}

#[test]
fn user_content_string_and_unknown_blocks() {
    first_event(
        r#"{"type":"user","message":{"role":"user","content":"hello"},"isReplay":true}"#,
        |ev| {
            let u = ev.as_user().unwrap();
            assert_eq!(u.text(), Some("hello"));
            assert!(u.block().is_none());
            assert_eq!(u.is_replay(), Some(true));
        },
    );
    first_event(
        r#"{"type":"assistant","message":{"content":[{"type":"image","source":{}}]},"extra":1}"#,
        |ev| {
            let a = ev.as_assistant().unwrap();
            let Some(Block::Other(o)) = a.block() else {
                panic!("an unknown block")
            };
            assert_eq!(o.type_(), Some("image"));
            assert_eq!(
                o.unknown_fields().map(|(k, _)| k).collect::<Vec<_>>(),
                ["source"]
            );
            assert_eq!(
                a.unknown_fields().map(|(k, _)| k).collect::<Vec<_>>(),
                ["extra"]
            );
        },
    );
}

#[test]
fn stream_events_and_deltas() {
    let lines = std::fs::read(root().join("corpus/reference/examples.jsonl")).unwrap();
    let mut events = SliceEvents::new(&lines);
    let mut types = Vec::new();
    while let Some(item) = events.next_event() {
        let ev = item.unwrap();
        if let Some(s) = ev.as_stream_event() {
            let e = s.event().unwrap();
            types.push(e.type_().unwrap().to_string());
            match e {
                cctape::views::ApiEvent::ContentBlockDelta(d) => {
                    let cctape::views::Delta::InputJson(j) = d.delta().unwrap() else {
                        panic!()
                    };
                    assert_eq!(j.partial_json(), Some("{\"command\": \"cargo"));
                }
                cctape::views::ApiEvent::MessageDelta(d) => {
                    assert_eq!(d.delta().unwrap().stop_reason(), Field::Value("tool_use"));
                    assert_eq!(
                        d.context_management()
                            .unwrap()
                            .applied_edits()
                            .unwrap()
                            .len(),
                        0
                    );
                }
                cctape::views::ApiEvent::MessageStart(m) => {
                    assert_eq!(s.ttft_ms(), Some(521));
                    assert_eq!(m.message().unwrap().content().unwrap().len(), 0);
                }
                _ => {}
            }
        }
    }
    assert_eq!(
        types,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
}

#[test]
fn legacy_cost_and_view_names() {
    first_event(
        r#"{"type":"result","subtype":"success","cost_usd":0.003,"total_cost":0.004}"#,
        |ev| {
            let r = ev.as_result().unwrap();
            assert_eq!(r.total_cost_usd(), None);
            assert_eq!(r.cost(), Some(0.003));
            assert_eq!(ev.view().name(), "result");
            assert!(ev.as_init().is_none());
        },
    );
    first_event(r#"{"type":"progress","data":{}}"#, |ev| {
        let v = ev.view();
        assert!(matches!(v, View::Other(_)));
        assert_eq!(v.name(), "other");
        assert_eq!(
            v.unknown_fields().map(|(k, _)| k).collect::<Vec<_>>(),
            ["type", "data"]
        );
    });
}

#[test]
fn big_numbers_render_as_strings_in_owned_copies() {
    let mismatches = both_backends(
        r#"{"type":"system","subtype":"thinking_tokens","estimated_tokens":18446744073709551616}"#,
        |ev| {
            let t = ev.as_thinking_tokens().unwrap();
            assert_eq!(t.estimated_tokens(), None);
            assert_eq!(
                t.to_owned_json()["estimated_tokens"],
                "18446744073709551616"
            );
            assert_eq!(to_json(t.value()).get("type").unwrap(), "system");
            assert_eq!(
                t.value().get("estimated_tokens").unwrap().kind(),
                ValueKind::Number
            );
        },
    );
    assert_eq!(mismatches, 1);
}

// ---------------------------------------------------------------------------
// Random shapes: any JSON under any known key, for every kind, never panics
// and the owned copy matches serde_json.

mod random {
    use super::*;
    use proptest::prelude::*;

    const TYPES: &[&str] = &[
        "system",
        "assistant",
        "user",
        "stream_event",
        "result",
        "active_goal",
        "autocompact_state",
        "rate_limit_event",
        "control_request",
        "control_response",
        "control_cancel_request",
        "tool_progress",
        "text",
        "thinking",
        "tool_use",
        "tool_result",
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "text_delta",
        "thinking_delta",
        "signature_delta",
        "input_json_delta",
        "workflow_phase",
        "workflow_agent",
        "create",
        "update",
        "message",
        "direct",
    ];
    const SUBTYPES: &[&str] = &[
        "init",
        "status",
        "task_summary",
        "post_turn_summary",
        "thinking_tokens",
        "api_retry",
        "permission_denied",
        "hook_started",
        "hook_response",
        "background_tasks_changed",
        "task_started",
        "task_progress",
        "task_updated",
        "task_notification",
        "compact_boundary",
        "notification",
        "success",
        "error_during_execution",
        "error_max_turns",
        "error_max_budget_usd",
        "x",
    ];

    fn keys() -> Vec<&'static str> {
        let mut k: Vec<_> = CATALOG
            .iter()
            .flat_map(|v| v.known.iter().copied())
            .collect();
        k.extend([
            "agentId",
            "stdout",
            "file",
            "oldString",
            "commandName",
            "workflowName",
            "zzz",
        ]);
        k.sort();
        k.dedup();
        k
    }

    fn json() -> impl Strategy<Value = serde_json::Value> {
        use serde_json::Value as J;
        let leaf = prop_oneof![
            Just(J::Null),
            any::<bool>().prop_map(J::Bool),
            any::<i64>().prop_map(J::from),
            any::<u64>().prop_map(J::from),
            (-1e6f64..1e6).prop_map(J::from),
            prop::sample::select(TYPES).prop_map(J::from),
            "[a-z]{0,4}".prop_map(J::String),
        ];
        let keys = keys();
        leaf.prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(J::Array),
                prop::collection::vec((prop::sample::select(keys.clone()), inner), 0..6).prop_map(
                    |kv| J::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
                ),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn any_shape_under_known_keys_is_safe(
            ty in prop::sample::select(TYPES),
            sub in prop::sample::select(SUBTYPES),
            fields in prop::collection::vec((prop::sample::select(keys()), json()), 0..12),
        ) {
            let mut obj = serde_json::Map::new();
            obj.insert("type".into(), ty.into());
            obj.insert("subtype".into(), sub.into());
            for (k, v) in fields {
                obj.entry(k.to_string()).or_insert(v);
            }
            let line = serde_json::to_vec(&serde_json::Value::Object(obj)).unwrap();
            let oracle: serde_json::Value = serde_json::from_slice(&line).unwrap();
            let mut events = SliceEvents::new(&line);
            let ev = events.next_event().unwrap().unwrap();
            let view = ev.view();
            view.visit_all(&mut NoVisitor);
            let mut census = Census::default();
            census.add(&ev);
            prop_assert!(json_eq(&view.to_owned_json(), &oracle));
        }
    }
}
