//! The `stats --json` object and the `--csv` records of a finished report
//! ([`StatsFigures`]), built whole ([`StatsFigures::to_json`], for the
//! library and Python) or written a group and a file at a time
//! ([`StatsFigures::write_json`], [`StatsFigures::for_each_csv_record`]),
//! the same bytes either way: what is held while writing is one record.

use super::*;
use crate::run::{ByModel, Tokens, Verdicts, totals_entries};
use crate::stats::ErrorRecord;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use std::io::{self, Write};

/// The counts of [`Stats`] as entries of the object being written;
/// `formats` (the total's) after `files`.
fn stats_entries<M: SerializeMap>(
    m: &mut M,
    s: &Stats,
    names: &[String],
    formats: Option<&BTreeMap<&'static str, u64>>,
) -> Result<(), M::Error> {
    m.serialize_entry("files", &s.files)?;
    if let Some(f) = formats {
        m.serialize_entry("formats", f)?;
    }
    m.serialize_entry("bytes", &s.bytes)?;
    m.serialize_entry("lines", &s.counts.lines)?;
    m.serialize_entry("blank_lines", &s.counts.blank_lines)?;
    m.serialize_entry("events", &s.counts.events)?;
    m.serialize_entry("by_type", &s.by_type())?;
    m.serialize_entry("unknown", &s.unknown())?;
    m.serialize_entry("error_count", &s.counts.errors)?;
    m.serialize_entry("errors", &Errors { s, names })
}

/// `[{"file", "line", "offset", "column", "kind", "message"}]`: the errors
/// kept, each with its file's name.
struct Errors<'a> {
    s: &'a Stats,
    names: &'a [String],
}

impl Serialize for Errors<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.s.errors.iter().map(|e| ErrorEntry {
            e,
            file: self.names.get(e.file).map_or("?", String::as_str),
        }))
    }
}

struct ErrorEntry<'a> {
    e: &'a ErrorRecord,
    file: &'a str,
}

impl Serialize for ErrorEntry<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.e;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("file", self.file)?;
        m.serialize_entry("line", &e.line)?;
        m.serialize_entry("offset", &e.offset)?;
        m.serialize_entry("column", &e.column)?;
        m.serialize_entry("kind", e.kind)?;
        m.serialize_entry("message", &e.message)?;
        m.end()
    }
}

/// One entry of `groups`: `key` (and `role`, and a block's `block_end`
/// and `last_activity`), then runs, verdicts, cost, tokens (over every
/// model), tool calls and errors, subagents, api retries, `by_model`.
struct Group<'a> {
    fig: &'a StatsFigures,
    key: &'a GroupKey,
    g: &'a RunTotals,
}

impl Serialize for Group<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ((k, role), g) = (self.key, self.g);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("key", k)?;
        if let Some(role) = role {
            m.serialize_entry("role", role.as_str())?;
        }
        if let (Some(blocks), Some(start)) = (&self.fig.blocks, parse_millis(k)) {
            // ccusage's `endTime` and `actualEndTime`.
            let end = format_millis(start + BLOCK_MILLIS);
            let last = blocks
                .last_instant(BlockStart::at(start))
                .and_then(format_millis);
            m.serialize_entry("block_end", &end)?;
            m.serialize_entry("last_activity", &last)?;
        }
        m.serialize_entry("runs", &g.runs)?;
        m.serialize_entry("verdicts", &Verdicts(g))?;
        m.serialize_entry("total_cost_usd", &g.cost.value())?;
        m.serialize_entry("tokens", &Tokens(&g.all_models()))?;
        m.serialize_entry("main", &Tokens(&g.main))?;
        m.serialize_entry("subagents_tokens", &Tokens(&g.subagents))?;
        let (calls, errors) = g.tool_calls();
        m.serialize_entry("tool_calls", &calls)?;
        m.serialize_entry("tool_errors", &errors)?;
        m.serialize_entry("subagents", &g.subagent_count)?;
        m.serialize_entry("api_retries", &g.api_retries)?;
        // ccusage's `modelBreakdowns`: the group's figures per model.
        m.serialize_entry("by_model", &ByModel(g))?;
        m.end()
    }
}

/// `groups`, in the report's order.
struct Groups<'a>(&'a StatsFigures, GroupBy);

impl Serialize for Groups<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        let mut done = Ok(());
        self.0.groups(self.1, |key, g| {
            if done.is_ok() {
                done = seq.serialize_element(&Group {
                    fig: self.0,
                    key,
                    g,
                });
            }
        });
        done?;
        seq.end()
    }
}

/// One entry of `per_file`.
struct File<'a> {
    fig: &'a StatsFigures,
    name: &'a str,
    f: &'a FileFigures,
}

impl Serialize for File<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (f, names) = (self.f, &self.fig.names);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("file", self.name)?;
        m.serialize_entry("format", &f.format.map(Format::name))?;
        stats_entries(&mut m, &f.stats, names, None)?;
        if f.format == Some(Format::Transcript) {
            m.serialize_entry("records_by_type", &f.records_by_type)?;
        }
        totals_entries(&mut m, &f.runs, Some(names))?;
        m.end()
    }
}

/// `per_file`, in input order.
struct Files<'a>(&'a StatsFigures);

impl Serialize for Files<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let fig = self.0;
        s.collect_seq(
            fig.inputs
                .iter()
                .zip(&fig.names)
                .map(|(f, name)| File { fig, name, f }),
        )
    }
}

/// The `stats --json` object, written as it is serialized: what is held
/// is one group's or one input's figures at a time.
impl Serialize for StatsFigures {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let names = &self.names;
        let mut m = s.serialize_map(None)?;
        stats_entries(&mut m, &self.total.stats, names, Some(&self.formats))?;
        m.serialize_entry("inputs_without_events", &self.no_events.to_json())?;
        if let Some(t) = &self.transcripts {
            m.serialize_entry("transcripts", &transcripts_json(t, &self.grouping.zone))?;
        }
        totals_entries(&mut m, &self.total.runs.all, Some(names))?;
        let range = &self.grouping.range;
        if !range.is_all() {
            m.serialize_entry("since", &range.since.map(|d| d.to_string()))?;
            m.serialize_entry("until", &range.until.map(|d| d.to_string()))?;
        }
        let calendar = self.grouping.by.is_some_and(GroupBy::is_calendar);
        if calendar || !range.is_all() {
            m.serialize_entry("time_zone", &self.grouping.zone.name())?;
        }
        if let Some(by) = self.grouping.by {
            m.serialize_entry("groups", &Groups(self, by))?;
        }
        m.serialize_entry("per_file", &Files(self))?;
        m.end()
    }
}

impl StatsFigures {
    /// The `stats --json` object; keys in the order of
    /// `docs/accounting.md` ("stats keys"). `per_file` is empty for a
    /// report made [`without_per_file`](StatsReport::without_per_file).
    pub fn to_json(&self) -> Value {
        // Only a map with a key that is not a string fails; every key here
        // is one.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Write [`to_json`](StatsFigures::to_json)'s text (compact, no line
    /// end) to `w`, a group and a file at a time, with no map built.
    pub fn write_json<W: Write>(&self, w: &mut W) -> io::Result<()> {
        serde_json::to_writer(w, self).map_err(io::Error::from)
    }

    /// The `stats --csv` records, header first: the key (and the role with
    /// `--by model`), `runs`, the verdicts, then [`CSV_COLUMNS`].
    pub fn csv_records(&self) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        let _ = self.for_each_csv_record(|r| {
            out.push(r.to_vec());
            Ok::<(), ()>(())
        });
        out
    }

    /// Each of [`csv_records`](StatsFigures::csv_records), one at a time.
    pub fn for_each_csv_record<E>(
        &self,
        mut f: impl FnMut(&[String]) -> Result<(), E>,
    ) -> Result<(), E> {
        let by = self.grouping.by.unwrap_or(GroupBy::File);
        let mut header = vec![by.name().to_string()];
        if by == GroupBy::Model {
            header.push("role".into());
        }
        header.push("runs".into());
        header.extend(Verdict::ALL.iter().map(|v| v.as_str().to_string()));
        header.extend(CSV_COLUMNS.iter().map(|c| c.to_string()));
        f(&header)?;
        let mut rec: Vec<String> = Vec::with_capacity(header.len());
        let mut done = Ok(());
        self.groups(by, |(k, role), g| {
            if done.is_err() {
                return;
            }
            rec.clear();
            rec.push(k.clone());
            if let Some(role) = role {
                rec.push(role.as_str().to_string());
            }
            rec.push(g.runs.to_string());
            rec.extend(g.verdicts.iter().map(u64::to_string));
            rec.push(match g.cost.value() {
                SumValue::Finite(c) => c.to_string(),
                SumValue::Beyond(t) => t,
            });
            let t = g.all_models();
            let (calls, errors) = g.tool_calls();
            for n in [
                t.input_tokens,
                t.output_tokens,
                t.cache_read_input_tokens,
                t.cache_creation_input_tokens,
                g.main.output_tokens,
                g.subagents.output_tokens,
                calls,
                errors,
                g.subagent_count,
                g.api_retries,
                g.main_lower_bound_runs,
                g.subagents_lower_bound_runs,
            ] {
                rec.push(n.to_string());
            }
            done = f(&rec);
        });
        done
    }
}
