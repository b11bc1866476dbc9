//! The `stats --json` object and the `--csv` records of a finished report
//! ([`StatsFigures`]), built whole ([`StatsFigures::to_json`], for the
//! library and Python) or written a group and a file at a time
//! ([`StatsFigures::write_json`], [`StatsFigures::for_each_csv_record`]),
//! the same bytes either way: what is held while writing is one record.

use super::*;
use std::io::{self, Write};

impl StatsFigures {
    /// The keys before `groups` and `per_file`.
    fn head(&self) -> Map<String, Value> {
        let names = &self.names;
        let mut obj = stats_json(&self.total.stats, names, Some(&self.formats));
        obj.insert("inputs_without_events".into(), self.no_events.to_json());
        if let Some(t) = &self.transcripts {
            obj.insert(
                "transcripts".into(),
                transcripts_json(t, &self.grouping.zone),
            );
        }
        runs_json(&self.total.runs.all, names, &mut obj);
        let range = &self.grouping.range;
        if !range.is_all() {
            obj.insert("since".into(), json!(range.since.map(|d| d.to_string())));
            obj.insert("until".into(), json!(range.until.map(|d| d.to_string())));
        }
        let calendar = self.grouping.by.is_some_and(GroupBy::is_calendar);
        if calendar || !range.is_all() {
            obj.insert("time_zone".into(), json!(self.grouping.zone.name()));
        }
        obj
    }

    /// One entry of `groups`.
    fn group_value(&self, (k, role): &GroupKey, g: &RunTotals) -> Value {
        let mut o = Map::new();
        o.insert("key".into(), json!(k));
        if let Some(role) = role {
            o.insert("role".into(), json!(role.as_str()));
        }
        if let (Some(blocks), Some(start)) = (&self.blocks, parse_millis(k)) {
            // ccusage's `endTime` and `actualEndTime`.
            let end = format_millis(start + BLOCK_MILLIS);
            let last = blocks
                .last_instant(BlockStart::at(start))
                .and_then(format_millis);
            o.insert("block_end".into(), json!(end));
            o.insert("last_activity".into(), json!(last));
        }
        o.extend(group_json(g));
        Value::Object(o)
    }

    /// One entry of `per_file`.
    fn file_value(&self, name: &str, f: &FileFigures) -> Value {
        let mut o = Map::new();
        o.insert("file".into(), json!(name));
        o.insert("format".into(), json!(f.format.map(Format::name)));
        o.extend(stats_json(&f.stats, &self.names, None));
        if f.format == Some(Format::Transcript) {
            o.insert("records_by_type".into(), json!(f.records_by_type));
        }
        runs_json(&f.runs, &self.names, &mut o);
        Value::Object(o)
    }

    /// The `stats --json` object; keys in the order of
    /// `docs/accounting.md` ("stats keys"). `per_file` is empty for a
    /// report made [`without_per_file`](StatsReport::without_per_file).
    pub fn to_json(&self) -> Value {
        let mut obj = self.head();
        if let Some(by) = self.grouping.by {
            let mut groups: Vec<Value> = Vec::new();
            self.groups(by, |k, g| groups.push(self.group_value(k, g)));
            obj.insert("groups".into(), Value::Array(groups));
        }
        let files: Vec<Value> = self
            .inputs
            .iter()
            .zip(&self.names)
            .map(|(f, n)| self.file_value(n, f))
            .collect();
        obj.insert("per_file".into(), Value::Array(files));
        Value::Object(obj)
    }

    /// Write [`to_json`](StatsFigures::to_json)'s text (compact, no line
    /// end) to `w`, a group and a file at a time.
    pub fn write_json<W: Write>(&self, w: &mut W) -> io::Result<()> {
        let mut first = true;
        let mut key = |w: &mut W, k: &str| -> io::Result<()> {
            w.write_all(if first { b"{" } else { b"," })?;
            first = false;
            serde_json::to_writer(&mut *w, k)?;
            w.write_all(b":")
        };
        for (k, v) in self.head() {
            key(w, &k)?;
            serde_json::to_writer(&mut *w, &v)?;
        }
        if let Some(by) = self.grouping.by {
            key(w, "groups")?;
            w.write_all(b"[")?;
            let (mut n, mut done) = (0, Ok(()));
            self.groups(by, |k, g| {
                if done.is_ok() {
                    done = (if n > 0 { w.write_all(b",") } else { Ok(()) }).and_then(|_| {
                        serde_json::to_writer(&mut *w, &self.group_value(k, g))
                            .map_err(io::Error::from)
                    });
                }
                n += 1;
            });
            done?;
            w.write_all(b"]")?;
        }
        key(w, "per_file")?;
        w.write_all(b"[")?;
        for (i, (f, n)) in self.inputs.iter().zip(&self.names).enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            serde_json::to_writer(&mut *w, &self.file_value(n, f))?;
        }
        w.write_all(b"]}")
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
