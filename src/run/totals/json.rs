//! The JSON of [`RunTotals`], as `serde` views: written straight to the
//! output as it is serialized (`stats --json` writes one per input and one
//! per group; building a `serde_json` map of each first took a third of
//! the report's instructions), or made into a `serde_json::Value` from the
//! same entries ([`RunTotals::to_json`]). One definition, the same bytes
//! either way: `json!(x)` is `x` serialized, so a view that serializes the
//! fields in the order the maps were built prints what the maps printed.

use super::*;
use crate::run::summary::{Tokens, token_entries};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// `{key: count}` of a small map, in key order.
struct Counts<'a, K>(&'a SmallMap<K, u64>);

impl<K: AsRef<str>> Serialize for Counts<'_, K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, n)| (k.as_ref(), n)))
    }
}

/// `{verdict: count}` for every verdict, in [`Verdict::ALL`] order.
pub(crate) struct Verdicts<'a>(pub &'a RunTotals);

impl Serialize for Verdicts<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(
            Verdict::ALL
                .iter()
                .zip(&self.0.verdicts)
                .map(|(v, n)| (v.as_str(), n)),
        )
    }
}

/// One model's (or role's) figures: `{"runs", counts, "token_sources",
/// "cost_usd"}`, then its `roles` when given.
struct Role<'a> {
    t: &'a RoleTotals,
    roles: Option<(&'a RunTotals, &'a str)>,
}

impl Serialize for Role<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("runs", &self.t.runs)?;
        token_entries(&mut m, &self.t.tokens)?;
        m.serialize_entry("token_sources", &Counts(&self.t.sources))?;
        m.serialize_entry("cost_usd", &self.t.cost.value())?;
        if let Some((all, model)) = self.roles {
            m.serialize_entry("roles", &Roles { all, model })?;
        }
        m.end()
    }
}

/// `{role: {...}}` of one model.
struct Roles<'a> {
    all: &'a RunTotals,
    model: &'a str,
}

impl Serialize for Roles<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // The entries are sorted by (model, role): one model's roles lie
        // together, found by one search (a filter over every
        // entry for every model was quadratic in the models: 9.6 s for a
        // result naming 30,000).
        let first = (self.model.to_owned(), ModelRole::Main);
        s.collect_map(
            self.all
                .by_role
                .range_from(&first)
                .take_while(|((m, _), _)| m == self.model)
                .map(|((_, r), t)| (r.as_str(), Role { t, roles: None })),
        )
    }
}

/// `{model: {"runs", counts, "token_sources", "cost_usd", "roles": {role:
/// {...}}}}`: the figures per model, and per role within it.
pub(crate) struct ByModel<'a>(pub &'a RunTotals);

impl Serialize for ByModel<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let per_model = self.0.per_model();
        s.collect_map(per_model.iter().map(|(model, t)| {
            (
                *model,
                Role {
                    t,
                    roles: Some((self.0, model)),
                },
            )
        }))
    }
}

/// One agent's part of `usage`: the four counts, `messages`,
/// `lower_bound_runs`, `calls`.
struct Agent<'a> {
    tokens: &'a TokenCounts,
    messages: u64,
    lower_bound_runs: u64,
    calls: &'a TokenCounts,
}

impl Serialize for Agent<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        token_entries(&mut m, self.tokens)?;
        m.serialize_entry("messages", &self.messages)?;
        m.serialize_entry("lower_bound_runs", &self.lower_bound_runs)?;
        m.serialize_entry("calls", &Tokens(self.calls))?;
        m.end()
    }
}

/// `{"main", "subagents", "auxiliary", "all_models"}`.
struct Usage<'a>(&'a RunTotals);

impl Serialize for Usage<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry(
            "main",
            &Agent {
                tokens: &t.main,
                messages: t.main_messages,
                lower_bound_runs: t.main_lower_bound_runs,
                calls: &t.main_calls,
            },
        )?;
        m.serialize_entry(
            "subagents",
            &Agent {
                tokens: &t.subagents,
                messages: t.subagent_messages,
                lower_bound_runs: t.subagents_lower_bound_runs,
                calls: &t.subagent_calls,
            },
        )?;
        m.serialize_entry("auxiliary", &Tokens(&t.auxiliary))?;
        m.serialize_entry("all_models", &Tokens(&t.all_models()))?;
        m.end()
    }
}

/// Cost per role, every role.
struct CostByRole<'a>(&'a RunTotals);

impl Serialize for CostByRole<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(
            ModelRole::ALL
                .iter()
                .map(|role| (role.as_str(), self.0.role_cost(*role).value())),
        )
    }
}

/// Cost per source, every source.
struct CostBySource<'a>(&'a RunTotals);

impl Serialize for CostBySource<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(
            [
                CostSource::Results,
                CostSource::Records,
                CostSource::PriceTable,
            ]
            .iter()
            .map(|source| {
                let sum = self.0.cost_by_source.get(source);
                (
                    source.as_str(),
                    sum.map_or_else(|| ExactSum::new().value(), ExactSum::value),
                )
            }),
        )
    }
}

/// `{tool: {"calls", "errors", "rejections"}}`.
struct Tools<'a>(&'a RunTotals);

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.tools.iter().map(|(k, t)| (k.as_str(), Tool(t))))
    }
}

struct Tool<'a>(&'a ToolTotals);

impl Serialize for Tool<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("calls", &self.0.calls)?;
        m.serialize_entry("errors", &self.0.errors)?;
        m.serialize_entry("rejections", &self.0.rejections)?;
        m.end()
    }
}

/// `{"count", "by_type"}` (`by_type` alone for tasks).
struct Kinds<'a> {
    count: Option<u64>,
    by_type: &'a SmallMap<String, u64>,
}

impl Serialize for Kinds<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(n) = self.count {
            m.serialize_entry("count", &n)?;
        }
        m.serialize_entry("by_type", &Counts(self.by_type))?;
        m.end()
    }
}

/// `{code: {"count", "first"}}`: the first as `{"input", "line"}`, or,
/// given the inputs' names, `{"file", "line"}`.
struct Warnings<'a> {
    t: &'a RunTotals,
    names: Option<&'a [String]>,
}

impl Serialize for Warnings<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.t.warnings.iter().map(|(code, w)| {
            (
                *code,
                Warning {
                    w,
                    names: self.names,
                },
            )
        }))
    }
}

struct Warning<'a> {
    w: &'a WarningTotals,
    names: Option<&'a [String]>,
}

impl Serialize for Warning<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("count", &self.w.count)?;
        m.serialize_entry(
            "first",
            &self.w.first.map(|(input, line)| First {
                input,
                line,
                names: self.names,
            }),
        )?;
        m.end()
    }
}

struct First<'a> {
    input: usize,
    line: Option<u64>,
    names: Option<&'a [String]>,
}

impl Serialize for First<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match self.names {
            Some(names) => {
                m.serialize_entry("file", names.get(self.input).map_or("?", String::as_str))?
            }
            None => m.serialize_entry("input", &self.input)?,
        }
        m.serialize_entry("line", &self.line)?;
        m.end()
    }
}

/// The entries of [`RunTotals::to_json`], written into an object being
/// written (a report's total, an input's entry); with `names`, a warning's
/// first position names its file.
pub(crate) fn totals_entries<M: SerializeMap>(
    m: &mut M,
    t: &RunTotals,
    names: Option<&[String]>,
) -> Result<(), M::Error> {
    m.serialize_entry("runs", &t.runs)?;
    m.serialize_entry("verdicts", &Verdicts(t))?;
    m.serialize_entry("total_cost_usd", &t.cost.value())?;
    m.serialize_entry("costs_not_summed", &t.costs_not_summed)?;
    m.serialize_entry("usage", &Usage(t))?;
    m.serialize_entry("cost_by_role", &CostByRole(t))?;
    m.serialize_entry("cost_by_source", &CostBySource(t))?;
    m.serialize_entry("by_model", &ByModel(t))?;
    m.serialize_entry("tools", &Tools(t))?;
    m.serialize_entry(
        "subagents",
        &Kinds {
            count: Some(t.subagent_count),
            by_type: &t.subagent_types,
        },
    )?;
    m.serialize_entry(
        "tasks",
        &Kinds {
            count: None,
            by_type: &t.task_types,
        },
    )?;
    m.serialize_entry("api_retries", &t.api_retries)?;
    m.serialize_entry("warnings", &Warnings { t, names })
}

/// [`RunTotals::to_json`]'s object.
struct Totals<'a>(&'a RunTotals);

impl Serialize for Totals<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        totals_entries(&mut m, self.0, None)?;
        m.end()
    }
}

impl RunTotals {
    /// `{"runs", "verdicts": {class: count} (every class), "total_cost_usd",
    /// "costs_not_summed", "usage": {"main", "subagents", "auxiliary",
    /// "all_models"}, "cost_by_role", "cost_by_source", "by_model": {model:
    /// {"runs", counts, "token_sources", "cost_usd", "roles": {role:
    /// {...}}}}, "tools", "subagents", "tasks", "api_retries", "warnings":
    /// {code: {"count", "first": {"input", "line"}}}}`, in that order (see
    /// `docs/accounting.md`).
    pub fn to_json(&self) -> J {
        // Only a map with a key that is not a string fails; every key here
        // is one.
        serde_json::to_value(Totals(self)).unwrap_or(J::Null)
    }
}
