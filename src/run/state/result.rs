//! A `result` event folded into the run: its fields (the last result
//! decides the verdict), its `usage` checked against the per-call sums, its
//! `modelUsage`, denials, and the numbering of results (`result_index`).

use super::*;

impl RunState {
    pub(super) fn on_result(&mut self, ev: &Event<'_>) {
        let line = ev.line();
        let subtype = ev.raw_subtype();
        let is_error = ev.is_error();
        let result_index = u64_of(ev.get("result_index"));
        if let Some(i) = result_index {
            self.check_result_index(i, line);
        }
        self.subtype_warnings(subtype, is_error, line);
        let usage = ev
            .get("usage")
            .filter(|u| u.kind() == crate::json::ValueKind::Object)
            .map(|u| self.usage_of(u, line));
        if let Some(reported) = usage {
            self.check_usage(reported, line);
        }
        if let Some(list) = ev.get("permission_denials") {
            for d in list.elements() {
                if let Some(id) = str_of(d.get("tool_use_id")) {
                    self.add_denial(str_of(d.get("tool_name")).unwrap_or(""), id, true);
                }
            }
        }
        self.read_model_usage(ev.get("modelUsage"));
        let num_turns = self.int_field(ev, "num_turns");
        let duration_ms = self.int_field(ev, "duration_ms");
        let duration_api_ms = self.int_field(ev, "duration_api_ms");
        if let Some(d) = duration_ms {
            let sum = self.duration_ms_sum.get_or_insert(0);
            *sum = sum.saturating_add(d);
        }
        let (total_cost_usd, total_cost_text) = self.result_cost(ev, line);
        // `subagent_stats` is kept as its JSON text (no `serde_json` value
        // built per result: 21,700 instructions and some 25 allocations
        // for the generated archive's 310 bytes, 1.7% of `stats`), and the
        // three counts the stream is checked against are read now.
        let sub = ev.get("subagent_stats").filter(|v| !v.is_null());
        self.reported_subagents = sub.map(|s| {
            ["spawned", "completed", "max_depth"]
                .map(|k| last_entry(&s, k).and_then(|v| v.as_u64()))
        });
        let subagents = sub.map(
            |s| match s.raw().and_then(|b| std::str::from_utf8(b).ok()) {
                Some(text) => std::borrow::Cow::Borrowed(text),
                // A value without its bytes (the tape backend).
                None => std::borrow::Cow::Owned(to_serde(&s).to_string()),
            },
        );
        // The last result replaces the one before: its strings are reused,
        // so a result line allocates nothing once they are long enough.
        let old = self.last_result.take().unwrap_or_default();
        let r = ResultSummary {
            line,
            subtype: reuse(old.subtype, subtype),
            is_error,
            terminal_reason: reuse(old.terminal_reason, str_of(ev.get("terminal_reason"))),
            stop_reason: reuse(old.stop_reason, str_of(ev.get("stop_reason"))),
            num_turns,
            duration_ms,
            duration_api_ms,
            total_cost_usd,
            total_cost_text,
            result_text: reuse(old.result_text, str_of(ev.get("result"))),
            result_index,
            usage,
            errors: reuse_all(
                old.errors,
                ev.get("errors")
                    .into_iter()
                    .flat_map(|e| e.elements())
                    .filter_map(|x| x.as_str()),
            ),
            api_error_status: u64_of(ev.get("api_error_status")),
            startup_failure_reason: reuse(
                old.startup_failure_reason,
                str_of(ev.get("startup_failure_reason")),
            ),
            subagent_stats: reuse(old.subagent_stats, subagents.as_deref()),
        };
        self.last_result = Some(r);
        self.last_interrupt_seen = self.interrupt_in_round;
        self.interrupt_in_round = false;
        self.activity_after_result = false;
        self.results += 1;
    }

    /// The warnings a result's `subtype` and `is_error` give: when they
    /// disagree, when the subtype is not one the reference lists, when
    /// neither is there.
    fn subtype_warnings(&mut self, subtype: Option<&str>, is_error: Option<bool>, line: u64) {
        // Warnings that concern every result.
        match (subtype, is_error) {
            (Some("success"), Some(true)) => self.warn(
                WARN_IS_ERROR_DISAGREES,
                "subtype success with is_error true".into(),
                Some(line),
            ),
            (Some(s), Some(false)) if s.starts_with("error") => self.warn(
                WARN_IS_ERROR_DISAGREES,
                format!("subtype {s} with is_error false"),
                Some(line),
            ),
            _ => {}
        }
        match (subtype, is_error) {
            (
                Some(
                    "success"
                    | "error_during_execution"
                    | "error_max_turns"
                    | "error_max_budget_usd",
                ),
                _,
            ) => {}
            (Some(s), _) => self.warn(
                WARN_UNKNOWN_SUBTYPE,
                format!("result subtype {s:?}"),
                Some(line),
            ),
            (None, None) => self.warn(
                WARN_RESULT_UNDECIDED,
                "a result with neither subtype nor is_error".into(),
                Some(line),
            ),
            _ => {}
        }
    }

    /// A result's `usage` against the main agent's per-call sums of its
    /// round and of the run: which it states, and a warning when it is
    /// neither while both sides are final.
    fn check_usage(&mut self, reported: TokenCounts, line: u64) {
        let (round, cumulative, all_final) = self.calls.main_sums(self.results);
        let basis = if reported == round {
            UsageBasis::Round
        } else if reported == cumulative {
            UsageBasis::Cumulative
        } else {
            UsageBasis::Mismatch
        };
        if basis == UsageBasis::Cumulative && self.results > 0 {
            self.reported_cumulative = true;
        }
        if basis == UsageBasis::Mismatch
            && all_final
            && self.calls.list.iter().any(|c| c.agent.is_none())
        {
            // Both sides exact: one of them is wrong.
            self.warn(
                WARN_USAGE_MISMATCH,
                format!(
                    "result usage (output_tokens {}) differs from the main agent's final per-call usage of its round (output_tokens {})",
                    reported.output_tokens, round.output_tokens
                ),
                Some(line),
            );
        }
        let sum = self.reported_sum.get_or_insert_with(TokenCounts::default);
        sum.add(&reported);
        self.reported_last = Some(reported);
        self.usage_checks.push(UsageCheck {
            result: self.results,
            line,
            reported,
            round,
            cumulative,
            basis,
        });
    }

    /// A result's `modelUsage` (the last result's is the run's).
    fn read_model_usage(&mut self, model_usage: Option<Value<'_>>) {
        self.model_usage.clear();
        self.model_usage_present = false;
        if let Some(mu) = model_usage.filter(|m| !m.is_null()) {
            self.model_usage_present = true;
            for (k, v) in mu.entries() {
                let n = |key| u64_of(v.get(key)).unwrap_or(0);
                self.model_usage.push(ModelUsageSummary {
                    model: k.to_string(),
                    tokens: TokenCounts {
                        input_tokens: n("inputTokens"),
                        output_tokens: n("outputTokens"),
                        cache_read_input_tokens: n("cacheReadInputTokens"),
                        cache_creation_input_tokens: n("cacheCreationInputTokens"),
                    },
                    cost_usd: v
                        .get("costUSD")
                        .and_then(|c| c.as_f64())
                        .filter(|c| c.is_finite()),
                    role: ModelRole::Main,
                    auxiliary: false,
                    summed: None,
                    canonical_model: str_of(v.get("canonicalModel")).map(str::to_string),
                });
            }
        }
    }

    /// A result's cost (`total_cost_usd`, or the older names), or its text
    /// when no `f64` holds it (a warning says so).
    fn result_cost(&mut self, ev: &Event<'_>, line: u64) -> (Option<f64>, Option<String>) {
        let cost_value = ["total_cost_usd", "cost_usd", "total_cost"]
            .iter()
            .find_map(|k| ev.get(k).filter(|v| v.number().is_some()).map(|v| (*k, v)));
        match cost_value {
            None => (None, None),
            Some((k, v)) => match v.as_f64().filter(|c| c.is_finite()) {
                Some(c) => (Some(c), None),
                None => {
                    let text = number_text(&v);
                    self.warn_number(k, &v, line, "is beyond f64: kept as written, not summed");
                    (None, Some(text))
                }
            },
        }
    }

    /// A result's `result_index` against the one before (within a process
    /// the results are numbered 0, 1, ...; a new process, such as a resumed
    /// session appended to the same log, starts again at 0): a jump means
    /// results were lost.
    fn check_result_index(&mut self, index: u64, line: u64) {
        let expected = match self.last_result_index {
            Some(prev) if index > prev => prev + 1,
            // The same result written twice: nothing lost.
            Some(prev) if index == prev => index,
            _ => 0,
        };
        if index > expected {
            let lost = index - expected;
            let from = match expected {
                0 => "the start".to_string(),
                e => format!("result_index {}", e - 1),
            };
            self.warn(
                WARN_LOST_RESULT,
                format!(
                    "result_index {index} follows {from}: {lost} result{} lost",
                    if lost == 1 { "" } else { "s" }
                ),
                Some(line),
            );
        }
        self.last_result_index = Some(index);
    }
}
