//! The tables ccusage's users read, and what a terminal gets: `stats --by
//! day|week|month|session|block` over transcripts with ccusage's columns
//! and a Total row (and `--breakdown` rows with them), `--compact`, a bar
//! chart column on a terminal (`--chart`, `--no-chart`), project folders
//! shown as the paths they encode, `verdict`'s closing line on a
//! terminal, and clap's suggestions for mistyped commands and flags.
//!
//! A terminal is a pseudo-terminal made by `script` (util-linux): the
//! command runs as a user's shell would run it.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

#[path = "support/scratch.rs"]
mod scratch;

#[allow(dead_code)]
#[path = "../examples/gentranscripts.rs"]
mod gentranscripts;

fn cctape(cwd: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .current_dir(cwd)
        .args(args)
        .env("TZ", "UTC")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .expect("run cctape");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `cctape ARGS` with its stdout a terminal (`script`); what it printed,
/// line ends as LF.
fn on_terminal(cwd: &Path, args: &[&str]) -> String {
    let cmd = std::iter::once(env!("CARGO_BIN_EXE_cctape"))
        .chain(args.iter().copied())
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join(" ");
    let o = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(cwd)
        .env("TZ", "UTC")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .expect("run script (util-linux)");
    String::from_utf8_lossy(&o.stdout).replace("\r\n", "\n")
}

fn tree() -> scratch::Scratch {
    let tmp = scratch::scratch("tables");
    let opts = gentranscripts::Opts {
        projects: 3,
        sessions: 3,
        turns: 6,
        seed: 11,
    };
    gentranscripts::generate(&tmp, &opts).expect("generate a tree");
    tmp
}

/// The lines of the table under `by KEY`.
fn table(out: &str, by: &str) -> Vec<String> {
    out.lines()
        .skip_while(|l| *l != format!("by {by}"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A row's cells: runs of two or more spaces apart.
fn cells(line: &str) -> Vec<String> {
    line.trim()
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
        .collect()
}

fn thousands(v: &Value) -> String {
    let s = v.as_u64().unwrap().to_string();
    let mut o = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            o.push(',');
        }
        o.push(c);
    }
    o
}

fn money(v: &Value) -> String {
    let s = format!("{:.4}", v.as_f64().unwrap());
    let (i, f) = s.split_once('.').unwrap();
    format!("{}.{f}", thousands(&Value::from(i.parse::<u64>().unwrap())))
}

/// ccusage's columns of a token object and a cost.
fn ccusage_cells(t: &Value, cost: &Value) -> Vec<String> {
    let n = |k: &str| t[k].as_u64().unwrap();
    let total = n("input_tokens")
        + n("output_tokens")
        + n("cache_creation_input_tokens")
        + n("cache_read_input_tokens");
    vec![
        thousands(&t["input_tokens"]),
        thousands(&t["output_tokens"]),
        thousands(&t["cache_creation_input_tokens"]),
        thousands(&t["cache_read_input_tokens"]),
        thousands(&Value::from(total)),
        money(cost),
    ]
}

#[test]
fn transcript_tables_have_ccusages_columns_and_a_total_row() {
    let tmp = tree();
    for by in ["day", "week", "month", "session", "block"] {
        let (_, out, err) = cctape(
            &tmp,
            &["stats", "--by", by, "--breakdown", ".claude/projects"],
        );
        let rows = table(&out, by);
        assert_eq!(
            cells(&rows[0]),
            [
                by,
                "input",
                "output",
                "cache create",
                "cache read",
                "total tokens",
                "cost $"
            ],
            "{out}{err}"
        );
        let (_, json, _) = cctape(&tmp, &["stats", "--json", "--by", by, ".claude/projects"]);
        let j: Value = serde_json::from_str(&json).unwrap();
        let mut want = Vec::new();
        for g in j["groups"].as_array().unwrap() {
            let mut row = vec![g["key"].as_str().unwrap().to_string()];
            row.extend(ccusage_cells(&g["tokens"], &g["total_cost_usd"]));
            want.push(row);
            for (m, x) in g["by_model"].as_object().unwrap() {
                let mut row = vec![format!("└ {m}")];
                row.extend(ccusage_cells(x, &x["cost_usd"]));
                want.push(row);
            }
        }
        let mut total = vec!["Total".to_string()];
        total.extend(ccusage_cells(
            &j["usage"]["all_models"],
            &j["total_cost_usd"],
        ));
        want.push(total);
        let got: Vec<Vec<String>> = rows[1..].iter().map(|l| cells(l)).collect();
        assert_eq!(got, want, "--by {by}\n{out}");
    }
    // Compact: the key, input, output and cost.
    let (_, out, _) = cctape(
        &tmp,
        &["stats", "--by", "day", "--compact", ".claude/projects"],
    );
    let rows = table(&out, "day");
    assert_eq!(cells(&rows[0]), ["day", "input", "output", "cost $"]);
    assert_eq!(cells(rows.last().unwrap())[0], "Total");
    assert!(rows.iter().all(|r| r.len() < 60), "{out}");
}

#[test]
fn project_folders_shown_as_paths_and_chosen_with_project() {
    let tmp = tree();
    let (_, out, _) = cctape(&tmp, &["stats", "--by", "project", ".claude/projects"]);
    let rows = table(&out, "project");
    let (_, json, _) = cctape(
        &tmp,
        &["stats", "--json", "--by", "project", ".claude/projects"],
    );
    let j: Value = serde_json::from_str(&json).unwrap();
    let folders: Vec<String> = j["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["key"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(folders.len(), 3);
    for (row, folder) in rows[1..].iter().zip(&folders) {
        // The JSON keeps the folder's name; the table shows its path.
        assert!(folder.starts_with("-home-dev-src-"), "{folder}");
        assert_eq!(cells(row)[0], folder.replace('-', "/"));
    }
    // --project by folder name, by path, by its last part: that folder's
    // runs alone.
    let folder = &folders[0];
    let (_, alone, _) = cctape(
        &tmp,
        &["stats", "--json", &format!(".claude/projects/{folder}")],
    );
    let alone: Value = serde_json::from_str(&alone).unwrap();
    let last = folder.rsplit('-').next().unwrap();
    let path = folder.replace('-', "/");
    let tail = format!("src/{}", &folder["-home-dev-src-".len()..]);
    for name in [folder.as_str(), &path, &tail] {
        let (code, json, err) = cctape(
            &tmp,
            &["stats", "--json", "--project", name, ".claude/projects"],
        );
        assert_eq!(code, Some(0), "{err}");
        let j: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(j["runs"], alone["runs"], "--project {name}");
        assert_eq!(
            j["total_cost_usd"], alone["total_cost_usd"],
            "--project {name}"
        );
        assert_eq!(j["files"], alone["files"], "--project {name}");
    }
    // A last component shared by no folder: nothing read.
    let (_, json, _) = cctape(
        &tmp,
        &[
            "stats",
            "--json",
            "--project",
            &format!("x{last}"),
            ".claude/projects",
        ],
    );
    let j: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(j["runs"], 0);
}

#[test]
fn chart_column_on_a_terminal_off_with_no_chart() {
    let tmp = tree();
    let args = ["stats", "--by", "day", ".claude/projects"];
    let bars = |out: &str| {
        table(out, "day")
            .iter()
            .filter(|l| l.contains(['█', '▉', '▊', '▋', '▌', '▍', '▎', '▏']))
            .count()
    };
    let shown = on_terminal(&tmp, &args);
    let days = table(&shown, "day").len() - 2;
    assert_eq!(bars(&shown), days, "{shown}");
    assert!(table(&shown, "day")[0].trim_end().ends_with("cost bar"));
    // The dearest day's bar is the longest, 24 cells.
    assert!(shown.contains(&"█".repeat(24)), "{shown}");
    assert!(!shown.contains(&"█".repeat(25)), "{shown}");
    let mut off = args.to_vec();
    off.insert(1, "--no-chart");
    assert_eq!(bars(&on_terminal(&tmp, &off)), 0);
    // Piped: no chart, unless asked for.
    let (_, piped, _) = cctape(&tmp, &args);
    assert_eq!(bars(&piped), 0);
    let mut on = args.to_vec();
    on.insert(1, "--chart");
    let (_, forced, _) = cctape(&tmp, &on);
    assert_eq!(bars(&forced), days, "{forced}");
    // Not for groupings that are not periods.
    let (_, model, _) = cctape(
        &tmp,
        &["stats", "--chart", "--by", "model", ".claude/projects"],
    );
    assert_eq!(
        table(&model, "model")
            .iter()
            .filter(|l| l.contains('█'))
            .count(),
        0
    );
}

#[test]
fn verdict_ends_with_a_summary_line_on_a_terminal() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shown = on_terminal(root, &["verdict", "corpus"]);
    let last = shown.lines().last().unwrap();
    // The runs, verdicts and cost `stats` gives for the same inputs.
    let (_, stats, _) = cctape(root, &["stats", "corpus"]);
    let runs = stats.lines().nth(1).unwrap().replace("; cost $", "; $");
    assert_eq!(
        last,
        format!("{runs}; 1 input without events among them (1 startup_failure)"),
        "{shown}"
    );
    // Piped, every line is a JSON record.
    let (_, piped, _) = cctape(root, &["verdict", "corpus"]);
    assert!(piped.lines().all(|l| l.starts_with('{')), "{piped}");
}

#[test]
fn mistyped_commands_and_flags_get_suggestions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (code, _, err) = cctape(root, &["stat", "corpus"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("similar subcommand exists: 'stats'"), "{err}");
    let (code, _, err) = cctape(root, &["stats", "--jsno", "corpus"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("similar argument exists: '--json'"), "{err}");
}

#[test]
fn help_and_man_name_the_sessions_folder_and_ccusage() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (_, help, _) = cctape(root, &["--help"]);
    let first = help.lines().next().unwrap();
    assert!(
        first.contains("~/.claude/projects") && first.contains("ccusage"),
        "{first}"
    );
    // Which command does which job, in the help too.
    for c in [
        "`stats`",
        "`report --html`",
        "`verdict`",
        "`check`",
        "`export`",
    ] {
        assert!(help.contains(c), "{c} in\n{help}");
    }
    let (_, man, _) = cctape(root, &["man"]);
    let name = man
        .lines()
        .skip_while(|l| !l.starts_with(".SH NAME"))
        .nth(1)
        .unwrap_or_else(|| panic!("{man}"));
    assert!(name.starts_with("cctape"), "{name}");
    assert!(
        name.contains("claude/projects") && name.contains("ccusage"),
        "{name}"
    );
}
