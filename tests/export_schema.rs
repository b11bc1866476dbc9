//! docs/export-schema.md lists every column of every exported table with
//! its type, nullability and meaning, as `src/export/tables.rs` defines
//! them. `CCTAPE_UPDATE_DOCS=1 cargo test --test export_schema` rewrites the
//! generated part of the document.

#![cfg(feature = "parquet")]

use cctape::export::{ColumnDef, EventRows, RunRows, Table, ToolRows};
use std::path::Path;

fn render(name: &str, intro: &str, cols: &[ColumnDef]) -> String {
    let mut s = format!(
        "## `{name}`\n\n{intro}\n\n| column | type | null | meaning |\n|---|---|---|---|\n"
    );
    for c in cols {
        s.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            c.name,
            c.kind.sql_name(),
            if c.nullable { "nullable" } else { "required" },
            c.doc.replace('|', "\\|")
        ));
    }
    s
}

fn sections() -> Vec<(&'static str, String)> {
    vec![
        (
            EventRows::NAME,
            render(
                EventRows::NAME,
                "One row per event: every line that is a JSON object with a `type` (lines that are not events are counted in `runs.bad_lines`).",
                EventRows::COLUMNS,
            ),
        ),
        (
            RunRows::NAME,
            render(
                RunRows::NAME,
                "One row per run, as `cctape verdict` gives one record per run (the events that share a `session_id`, a transcript session, or an input without events, which is one run of its own: docs/accounting.md, \"What a run is\"), from the run layer's `RunSummary`.",
                RunRows::COLUMNS,
            ),
        ),
        (
            ToolRows::NAME,
            render(
                ToolRows::NAME,
                "One row per tool call (`tool_use` block), paired with its `tool_result` by id within the run.",
                ToolRows::COLUMNS,
            ),
        ),
    ]
}

#[test]
fn schema_doc_lists_every_column() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/export-schema.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let mut out = doc.clone();
    for (name, body) in sections() {
        let begin = format!("<!-- {name}:begin -->\n");
        let end = format!("<!-- {name}:end -->");
        let a = out.find(&begin).expect("begin marker") + begin.len();
        let b = out.find(&end).expect("end marker");
        out.replace_range(a..b, &body);
    }
    if std::env::var_os("CCTAPE_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &out).unwrap();
        return;
    }
    assert!(
        doc == out,
        "docs/export-schema.md is out of date: run CCTAPE_UPDATE_DOCS=1 cargo test --test export_schema"
    );
}

#[test]
fn column_names_are_unique_and_raw_is_last() {
    for cols in [EventRows::COLUMNS, RunRows::COLUMNS, ToolRows::COLUMNS] {
        let mut names: Vec<&str> = cols.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), cols.len());
    }
    assert_eq!(EventRows::COLUMNS.last().map(|c| c.name), Some("raw"));
}
