//! Transcript record views: the public session transcripts of
//! `../shared/realworld` (`session-format/`, and wave2's normalized
//! `dotclaude` session) read through every view accessor, each field
//! compared with serde_json's reading of the same line, and the drift
//! census of what the tables do not list kept as a snapshot.

#[path = "support/realworld.rs"]
mod realworld_files;

use cctape::EventKind;
use cctape::framing::Lines;
use cctape::json::Scanner;
use cctape::transcript::{RecordHeader, RecordView};
use cctape::views::{Census, UserContent};
use serde_json::Value as J;
use std::path::PathBuf;

fn transcripts() -> Option<Vec<PathBuf>> {
    let dir = realworld_files::realworld_dir()?;
    let files: Vec<PathBuf> = realworld_files::all_files(&dir)
        .into_iter()
        .filter(|p| {
            let name = p.to_string_lossy();
            p.extension().is_some_and(|e| e == "jsonl")
                && (name.contains("/session-format/") || name.contains("-dotclaude-"))
        })
        .collect();
    Some(files)
}

fn s(v: &J) -> Option<&str> {
    v.as_str()
}

/// What serde_json reads for the fields the views' helpers derive.
fn tool_result_blocks(o: &J) -> Vec<(Option<String>, bool)> {
    match o.pointer("/message/content") {
        Some(J::Array(blocks)) => blocks
            .iter()
            .filter(|b| b["type"] == "tool_result")
            .map(|b| {
                (
                    b["tool_use_id"].as_str().map(str::to_owned),
                    b["is_error"].as_bool().unwrap_or(false),
                )
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn real_transcripts_read_through_their_views_as_serde_reads_them() {
    let Some(files) = transcripts() else { return };
    assert!(files.len() >= 10, "{} transcript files", files.len());
    let mut scanner = Scanner::new();
    let mut census = Census::default();
    let (mut records, mut output_tokens, mut serde_output_tokens) = (0u64, 0u64, 0u64);
    let (mut results, mut relayed) = (0usize, 0usize);
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        for line in Lines::new(&bytes) {
            let Ok(scanned) = scanner.scan(&line) else {
                continue;
            };
            let rec = scanned.record();
            let o: J = serde_json::from_slice(line.bytes).unwrap();
            let at = format!("{}:{}", f.display(), line.number);
            records += 1;
            census.add_record(&rec);
            let h = RecordHeader::new(rec.root());
            assert_eq!(h.session_id(), o["sessionId"].as_str(), "{at}");
            assert_eq!(h.timestamp(), o["timestamp"].as_str(), "{at}");
            assert_eq!(h.type_(), o["type"].as_str(), "{at}");
            assert_eq!(h.is_sidechain(), o["isSidechain"].as_bool(), "{at}");
            match RecordView::of(&rec) {
                RecordView::Assistant(a) => {
                    assert_eq!(rec.kind(), EventKind::Assistant);
                    assert_eq!(a.request_id(), s(&o["requestId"]), "{at}");
                    assert_eq!(a.version(), s(&o["version"]), "{at}");
                    let m = a.message().unwrap();
                    assert_eq!(m.id(), s(&o["message"]["id"]), "{at}");
                    assert_eq!(m.model(), s(&o["message"]["model"]), "{at}");
                    let uses: Vec<_> = a.tool_uses().map(|(id, name, _)| (id, name)).collect();
                    let want: Vec<_> = o["message"]["content"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|b| b["type"] == "tool_use")
                        .map(|b| (b["id"].as_str().unwrap(), b["name"].as_str().unwrap()))
                        .collect();
                    assert_eq!(uses, want, "{at}");
                    if let Some(t) = a.request_tokens() {
                        output_tokens += t.output;
                        serde_output_tokens +=
                            o["message"]["usage"]["output_tokens"].as_u64().unwrap();
                    }
                }
                RecordView::User(u) => {
                    let got: Vec<_> = u
                        .tool_results()
                        .map(|(id, e)| (id.map(str::to_owned), e))
                        .collect();
                    assert_eq!(got, tool_result_blocks(&o), "{at}");
                    results += got.len();
                    let text = match &o["message"]["content"] {
                        J::String(t) => Some(t.as_str()),
                        J::Array(b) => b
                            .iter()
                            .find(|b| b["type"] == "text")
                            .and_then(|b| b["text"].as_str()),
                        _ => None,
                    };
                    assert_eq!(u.text(), text, "{at}");
                    assert_eq!(
                        u.is_interrupt(),
                        text.is_some_and(|t| t.starts_with("[Request interrupted by user")),
                        "{at}"
                    );
                    let content = u.message().and_then(|m| m.content());
                    assert_eq!(
                        matches!(content, Some(UserContent::Text(_))),
                        o["message"]["content"].is_string(),
                        "{at}"
                    );
                    assert_eq!(
                        u.source_tool_assistant_uuid(),
                        s(&o["sourceToolAssistantUUID"]),
                        "{at}"
                    );
                }
                RecordView::System(v) => {
                    assert_eq!(v.subtype(), s(&o["subtype"]), "{at}");
                    assert_eq!(v.level(), s(&o["level"]), "{at}");
                    assert_eq!(
                        v.compact_metadata().and_then(|c| c.pre_tokens()),
                        o["compactMetadata"]["preTokens"].as_u64(),
                        "{at}"
                    );
                    assert_eq!(
                        v.hook_errors().map(|e| e.len()),
                        o["hookErrors"].as_array().map(Vec::len),
                        "{at}"
                    );
                }
                RecordView::Progress(p) => {
                    assert_eq!(p.tool_use_id(), s(&o["toolUseID"]), "{at}");
                    assert_eq!(
                        p.data().and_then(|d| d.type_()),
                        s(&o["data"]["type"]),
                        "{at}"
                    );
                    let m = p.agent_assistant_message();
                    assert_eq!(
                        m.is_some(),
                        o["data"]["message"]["type"] == "assistant",
                        "{at}"
                    );
                    if let Some((_, request, _)) = m {
                        assert_eq!(request, s(&o["data"]["message"]["requestId"]), "{at}");
                        relayed += 1;
                    }
                }
                RecordView::FileHistorySnapshot(v) => {
                    assert_eq!(v.message_id(), s(&o["messageId"]), "{at}");
                    let files = v
                        .snapshot()
                        .and_then(|s| s.tracked_file_backups())
                        .map(|m| m.len());
                    assert_eq!(
                        files,
                        o["snapshot"]["trackedFileBackups"]
                            .as_object()
                            .map(|m| m.len()),
                        "{at}"
                    );
                }
                RecordView::QueueOperation(q) => {
                    assert_eq!(q.operation(), s(&o["operation"]), "{at}");
                    assert_eq!(q.content(), s(&o["content"]), "{at}");
                }
                RecordView::Summary(v) => {
                    assert_eq!(v.summary(), s(&o["summary"]), "{at}");
                    assert_eq!(v.leaf_uuid(), s(&o["leafUuid"]), "{at}");
                }
                RecordView::Result(r) => {
                    assert_eq!(r.tool_use_id(), s(&o["toolUseId"]), "{at}");
                }
                RecordView::Other(_) => {
                    assert_eq!(rec.kind(), EventKind::Unknown, "{at}");
                }
                _ => {}
            }
        }
    }
    assert!(records > 3000, "{records} records");
    assert!(
        results > 100 && relayed > 10,
        "{results} results, {relayed} relayed"
    );
    assert_eq!(output_tokens, serde_output_tokens);
    insta::assert_snapshot!("realworld_transcript_census", census.to_string());
}
