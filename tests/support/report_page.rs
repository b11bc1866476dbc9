//! Reading `cctape report --html` pages (the file, or the DOM a browser
//! dumps) and checking their marked figures against `stats --json` and
//! `verdict --json` for the same inputs: the totals, the per-model costs,
//! the failed runs, the charts' tables, and that nothing is loaded from
//! anywhere.
#![allow(dead_code)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// One element's attributes, by name.
pub type Attrs = BTreeMap<String, String>;

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// The attributes of a start tag's text (after its name, up to `>`).
fn attrs(tag: &str) -> Attrs {
    let mut out = Attrs::new();
    let mut rest = tag;
    while let Some(eq) = rest.find("=\"") {
        let name = rest[..eq]
            .trim()
            .rsplit(' ')
            .next()
            .unwrap_or("")
            .to_string();
        let value_end = rest[eq + 2..].find('"').expect("closing quote");
        out.insert(name, unescape(&rest[eq + 2..eq + 2 + value_end]));
        rest = &rest[eq + 2 + value_end + 1..];
    }
    out
}

/// Every `<tag ...>` in `html`, each with its attributes and the position
/// of its end.
pub fn elements(html: &str, tag: &str) -> Vec<(Attrs, usize)> {
    let open = format!("<{tag} ");
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = html[at..].find(&open) {
        let start = at + i + open.len();
        let end = start + html[start..].find('>').expect("end of tag");
        out.push((attrs(&html[start..end]), end));
        at = end;
    }
    out
}

/// The element with this `id`: its attributes.
pub fn by_id(html: &str, id: &str) -> Attrs {
    let needle = format!("id=\"{id}\"");
    let i = html
        .find(&needle)
        .unwrap_or_else(|| panic!("no element {needle}"));
    let start = html[..i].rfind('<').unwrap();
    let end = i + html[i..].find('>').unwrap();
    let name_end = html[start..].find(' ').unwrap() + start;
    attrs(&html[name_end..end])
}

/// The text of the table with this `id`, from its start tag to its end.
pub fn table<'a>(html: &'a str, id: &str) -> &'a str {
    let needle = format!("<table id=\"{id}\"");
    let i = html
        .find(&needle)
        .unwrap_or_else(|| panic!("no table {id}"));
    let end = i + html[i..].find("</table>").unwrap();
    &html[i..end]
}

fn value_of(html: &str, id: &str) -> String {
    by_id(html, id)
        .remove("data-value")
        .unwrap_or_else(|| panic!("{id} has no data-value"))
}

fn num(html: &str, id: &str) -> u64 {
    value_of(html, id).parse().unwrap()
}

/// Runs `cctape ARGS` with `TZ=UTC`; its stdout, asserting exit 0 or 1.
pub fn cctape(cwd: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .current_dir(cwd)
        .args(args)
        .env("TZ", "UTC")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .expect("run cctape");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "cctape {args:?}: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `stats --json ARGS` as a value.
pub fn stats(cwd: &Path, args: &[&str]) -> Value {
    let mut a = vec!["stats", "--json", "--timezone", "UTC"];
    a.extend(args);
    serde_json::from_slice(&cctape(cwd, &a)).expect("stats JSON")
}

/// `verdict --json ARGS`, one value a record.
pub fn verdicts(cwd: &Path, args: &[&str]) -> Vec<Value> {
    let mut a = vec!["verdict", "--json", "--timezone", "UTC"];
    a.extend(args);
    cctape(cwd, &a)
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("verdict JSON"))
        .collect()
}

/// The page names nothing to load: no `src`, no `href` but to a place in
/// the page, no `url(...)`, `@import`, `<link>`, `<script>`, `<img>`,
/// `<iframe>` or `<object>`, and no attribute or style holding `http:` or
/// `https:`.
pub fn loads_nothing(html: &str) {
    for bad in [
        " src=", "url(", "@import", "<link", "<script", "<img", "<iframe", "<object", "<embed",
    ] {
        assert!(!html.contains(bad), "the page holds {bad:?}");
    }
    for (a, _) in elements(html, "a") {
        let href = a.get("href").map_or("", String::as_str);
        assert!(href.starts_with('#'), "a link out: {href:?}");
    }
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        let end = i + rest[i..].find('>').unwrap_or(rest.len() - i);
        let tag = &rest[i..end];
        assert!(
            !tag.contains("http:") && !tag.contains("https:"),
            "an attribute names a URL: {tag}"
        );
        rest = &rest[end..];
    }
    let style = html.find("<style>").map(|i| {
        let e = html[i..].find("</style>").unwrap() + i;
        &html[i..e]
    });
    assert!(
        !style.unwrap_or("").contains("http"),
        "the style names a URL"
    );
}

/// The marked figures of a page (file or DOM) equal `stats` (the
/// `stats --json` object of the same inputs) and `verdicts` (its records):
/// the totals, each model's and role's runs and cost, the failed runs.
pub fn same_figures(html: &str, stats: &Value, verdicts: &[Value]) {
    let runs = stats["runs"].as_u64().unwrap();
    assert_eq!(num(html, "total-runs"), runs);
    // Healthy: a stream's success, a transcript session's ended.
    let failed = runs
        - stats["verdicts"]["success"].as_u64().unwrap()
        - stats["verdicts"]["ended"].as_u64().unwrap_or(0);
    assert_eq!(num(html, "failed-runs"), failed, "failed runs");
    let cost: Value = serde_json::from_str(&value_of(html, "total-cost")).unwrap();
    assert_eq!(cost, stats["total_cost_usd"], "total cost");
    let t = &stats["usage"]["all_models"];
    for (id, key) in [
        ("total-input", "input_tokens"),
        ("total-output", "output_tokens"),
        ("total-cache-write", "cache_creation_input_tokens"),
        ("total-cache-read", "cache_read_input_tokens"),
    ] {
        assert_eq!(num(html, id), t[key].as_u64().unwrap(), "{id}");
    }
    let tools = stats["tools"].as_object().unwrap();
    let sum = |k: &str| tools.values().map(|t| t[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(num(html, "total-tool-calls"), sum("calls"));
    assert_eq!(num(html, "total-tool-errors"), sum("errors"));
    assert_eq!(
        num(html, "total-subagents"),
        stats["subagents"]["count"].as_u64().unwrap()
    );
    assert_eq!(
        num(html, "total-api-retries"),
        stats["api_retries"].as_u64().unwrap()
    );
    assert_eq!(
        num(html, "inputs-without-events"),
        stats["inputs_without_events"]["count"].as_u64().unwrap()
    );
    // Every model and role, with its runs and exact cost.
    let mut want = BTreeMap::new();
    for (m, e) in stats["by_model"].as_object().unwrap() {
        for (r, x) in e["roles"].as_object().unwrap() {
            want.insert(
                (m.clone(), r.clone()),
                (x["runs"].clone(), x["cost_usd"].clone()),
            );
        }
    }
    let models = table(html, "models");
    let mut got = BTreeMap::new();
    for (a, _) in elements(models, "tr") {
        if let Some(m) = a.get("data-model") {
            let cost: Value = serde_json::from_str(&a["data-cost"]).unwrap();
            let runs: Value = serde_json::from_str(&a["data-runs"]).unwrap();
            got.insert((m.clone(), a["data-role"].clone()), (runs, cost));
        }
    }
    assert_eq!(got, want, "runs and cost per model and role");
    // The failed runs: as many rows as stats counts, the runs verdict says
    // are not ok (an input without events is one run).
    let failed_records = verdicts
        .iter()
        .filter(|v| v["ok"] == false && !v["verdict"].is_null())
        .count() as u64;
    assert_eq!(failed_records, failed, "verdict's failed runs");
    if failed > 0 {
        let rows = elements(table(html, "failed"), "tr")
            .into_iter()
            .filter(|(a, _)| a.contains_key("data-verdict"))
            .count() as u64;
        assert_eq!(rows, failed.min(2000), "rows of the failed-run list");
    }
}

/// A chart table's rows: each key with its total cell's exact value.
pub fn chart_totals(html: &str, id: &str) -> Vec<(String, Value)> {
    let t = table(html, id);
    let mut out = Vec::new();
    let mut rest = t;
    while let Some(i) = rest.find("<tr data-key=\"") {
        let row_end = rest[i..].find("</tr>").unwrap() + i;
        let row = &rest[i..row_end];
        let key = attrs(&row[3..row.find('>').unwrap()])["data-key"].clone();
        let total = elements(row, "td")
            .into_iter()
            .find_map(|(a, _)| a.get("data-total").cloned())
            .unwrap();
        out.push((key, serde_json::from_str(&total).unwrap()));
        rest = &rest[row_end..];
    }
    out
}

/// The groups of `stats --json --by BY`: each key with a figure of it.
pub fn group_figures(stats: &Value, figure: &dyn Fn(&Value) -> Value) -> Vec<(String, Value)> {
    stats["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["key"].as_str().unwrap().to_string(), figure(g)))
        .collect()
}
