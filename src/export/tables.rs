//! The three tables: their columns (names, kinds, meaning) and the rows
//! built from events, run summaries and tool calls.

use super::columns::{ColMut, ColRef, ColumnDef, Kind, NumCol, StrCol};
use crate::event::{Event, EventKind, TokenCounts};
use crate::run::{ModelCall, RunSummary, ToolCall, VerdictSource};
use std::ops::Range;

/// A table's rows, column by column.
pub trait Table: Default + Send {
    /// The table's name: its folder under the output directory.
    const NAME: &'static str;
    /// Its columns, in order.
    const COLUMNS: &'static [ColumnDef];
    /// The column buffers, in the order of [`Table::COLUMNS`].
    #[doc(hidden)]
    fn cols(&self) -> Vec<ColRef<'_>>;
    /// The column buffers, mutably.
    #[doc(hidden)]
    fn cols_mut(&mut self) -> Vec<ColMut<'_>>;

    /// Rows held.
    fn len(&self) -> usize {
        self.cols().first().map_or(0, |c| c.len())
    }

    /// True when no rows are held.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// About how many bytes the rows take in memory (a bound on their
    /// encoded size).
    fn bytes(&self) -> usize {
        self.cols().iter().map(|c| c.bytes()).sum()
    }

    /// Append rows `r` of another table of the same kind.
    fn append_range(&mut self, o: &Self, r: Range<usize>) {
        for (a, b) in self.cols_mut().into_iter().zip(o.cols()) {
            a.append_range(b, r.clone());
        }
    }

    /// Append every row of another table.
    fn append(&mut self, o: &Self) {
        self.append_range(o, 0..o.len());
    }

    /// Remove every row.
    fn clear(&mut self) {
        for c in self.cols_mut() {
            c.clear();
        }
    }

    /// Write the rows as they are held (see [`crate::export::InputRows::spill_to`]).
    #[doc(hidden)]
    fn dump(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        w.write_all(&(self.len() as u64).to_le_bytes())?;
        for c in self.cols() {
            c.dump(w)?;
        }
        Ok(())
    }

    /// Read rows written by [`Table::dump`] into an empty table.
    #[doc(hidden)]
    fn load(&mut self, r: &mut dyn std::io::Read) -> std::io::Result<()> {
        let mut n = [0; 8];
        r.read_exact(&mut n)?;
        let rows = usize::try_from(u64::from_le_bytes(n)).map_err(|_| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, "spilled rows: too many")
        })?;
        for c in self.cols_mut() {
            c.load(rows, r)?;
        }
        Ok(())
    }
}

macro_rules! col_type {
    (Str) => { StrCol };
    (I64) => { NumCol<i64> };
    (Timestamp) => { NumCol<i64> };
    (F64) => { NumCol<f64> };
    (Bool) => { NumCol<bool> };
}

macro_rules! table {
    (
        $(#[$meta:meta])*
        $ty:ident = $table:literal {
            $( $field:ident $name:literal : $kind:ident $nullable:ident $doc:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default)]
        pub struct $ty {
            $(
                #[doc = $doc]
                pub $field: col_type!($kind),
            )*
        }

        impl Table for $ty {
            const NAME: &'static str = $table;
            const COLUMNS: &'static [ColumnDef] = &[
                $( ColumnDef {
                    name: $name,
                    kind: Kind::$kind,
                    nullable: table!(@null $nullable),
                    doc: $doc,
                }, )*
            ];
            fn cols(&self) -> Vec<ColRef<'_>> {
                vec![ $( (&self.$field).into(), )* ]
            }
            fn cols_mut(&mut self) -> Vec<ColMut<'_>> {
                vec![ $( (&mut self.$field).into(), )* ]
            }
            // Without building the vector of columns: asked once per row
            // while an input's rows are kept.
            fn len(&self) -> usize {
                [ $( self.$field.len(), )* ][0]
            }
            fn bytes(&self) -> usize {
                0 $( + self.$field.bytes() )*
            }
        }
    };
    (@null null) => { true };
    (@null required) => { false };
}

table! {
    /// Rows of the `events` table: one per event (a line that is a JSON
    /// object with a `type`), in line order within each run.
    EventRows = "events" {
        file "file": Str required
            "The input as named on the command line (a path below a directory given, or `<stdin>` for standard input, as ripgrep names it).",
        line "line": I64 required
            "The event's line number in the input (1-based, after decompression; for a JSON element, the line it starts on).",
        byte_offset "byte_offset": I64 required
            "The byte offset of the line's (or element's) first byte in the input (after decompression).",
        run_line "run_line": I64 required
            "The first line of the event's run: `(file, run_line)` is the run's key in `runs` (its `first_line`); 0 for a session transcript's record (join on `session_id`: its session's row has `first_line` 0).",
        session_id "session_id": Str null
            "`session_id` (absent on `control_cancel_request` and old streams); a session transcript record's `sessionId`.",
        uuid "uuid": Str null
            "`uuid`.",
        ty "type": Str required
            "`type`, as written.",
        subtype "subtype": Str null
            "`subtype`, when it is a string.",
        kind "kind": Str required
            "`type/subtype` for `system` and `result` events (and for unknown types that carry a subtype), `type` otherwise: the keys of `cctape stats --json` `by_type`.",
        parent_tool_use_id "parent_tool_use_id": Str null
            "`parent_tool_use_id`: null on the main agent's events (null or absent in the line), the launching Agent call's id on a subagent's.",
        timestamp "timestamp": Timestamp null
            "`timestamp` (assistant and user events of recent versions), when it is RFC 3339.",
        model "model": Str null
            "`message.model` (assistant events; `<synthetic>` on CLI-made API error messages).",
        message_id "message_id": Str null
            "`message.id` (assistant events; one model call is one message id, spread over one event per content block).",
        content_type "content_type": Str null
            "`message.content[0].type`: `text`, `thinking`, `tool_use`, `tool_result`, ...",
        stream_event_type "stream_event_type": Str null
            "`event.type` of a `stream_event`: `message_start`, `content_block_delta`, `message_delta`, ...",
        tool_name "tool_name": Str null
            "For a `tool_use` block: the tool's `name`.",
        tool_use_id "tool_use_id": Str null
            "For a `tool_use` block its `id`; for a `tool_result` block the `tool_use_id` it answers.",
        is_error "is_error": Bool null
            "`is_error` of a result, or of a `tool_result` block.",
        carries_usage "carries_usage": Bool required
            "True on exactly one row per model call: the row whose usage is the call's (by the run layer's rule: its last `message_delta` in partial streams, else the last of its assistant events with the most final and largest usage, which in real streams is its last). Sum the token columns over these rows. Never on a session transcript's rows: its usage is counted per API request across records and files, on its session's `runs` row.",
        input_tokens "input_tokens": I64 null
            "The call's `input_tokens`, on the row that carries its usage (null elsewhere).",
        output_tokens "output_tokens": I64 null
            "The call's `output_tokens`, on the row that carries its usage.",
        cache_read_input_tokens "cache_read_input_tokens": I64 null
            "The call's `cache_read_input_tokens`, on the row that carries its usage.",
        cache_creation_input_tokens "cache_creation_input_tokens": I64 null
            "The call's `cache_creation_input_tokens`, on the row that carries its usage.",
        total_cost_usd "total_cost_usd": F64 null
            "A result's `total_cost_usd` (`cost_usd`/`total_cost` in 1.0.x): cumulative over the session, so sum the `runs` table, not this column.",
        num_turns "num_turns": I64 null
            "A result's `num_turns`.",
        duration_ms "duration_ms": I64 null
            "A result's `duration_ms`.",
        duration_api_ms "duration_api_ms": I64 null
            "A result's `duration_api_ms`.",
        raw "raw": Str null
            "The line itself, bytes unchanged (a JSON array's or pretty capture's element: its bytes, pretty or not; only with `--raw`; the column is absent otherwise).",
    }
}

table! {
    /// Rows of the `runs` table: one per run (the events that share a
    /// `session_id`), from the run layer's [`RunSummary`].
    RunRows = "runs" {
        file "file": Str required
            "The input as named on the command line.",
        first_line "first_line": I64 required
            "The run's first line: `(file, first_line)` identifies the run (`run_line` in `events` and `tools`).",
        last_line "last_line": I64 required
            "The run's last line.",
        session_id "session_id": Str null
            "The run's `session_id` (null when no event carried one).",
        verdict "verdict": Str required
            "How the run ended: `success`, `max_turns`, `max_budget`, `interrupted`, `error`, `no_result`, `startup_failure`; a transcript session's `ended`, `api_error`, `cut_off` (see `cctape verdict`).",
        ok "ok": Bool required
            "True when the verdict is a healthy one: `success`, or a session's `ended`.",
        results "results": I64 required
            "`result` events of the run (one per round).",
        subtype "subtype": Str null
            "The last result's `subtype`.",
        is_error "is_error": Bool null
            "The last result's `is_error`.",
        terminal_reason "terminal_reason": Str null
            "The last result's `terminal_reason`.",
        stop_reason "stop_reason": Str null
            "The last result's `stop_reason`.",
        api_error_status "api_error_status": I64 null
            "The last result's `api_error_status`.",
        num_turns "num_turns": I64 null
            "The last result's `num_turns`.",
        duration_ms "duration_ms": I64 null
            "The last result's `duration_ms` (its round only).",
        duration_api_ms "duration_api_ms": I64 null
            "The last result's `duration_api_ms`.",
        duration_ms_sum "duration_ms_sum": I64 null
            "The rounds' `duration_ms` summed.",
        wall_ms "wall_ms": I64 null
            "Wall time from the run's first timestamp to its last, in milliseconds.",
        total_cost_usd "total_cost_usd": F64 null
            "The last result's `total_cost_usd` (the session's cost; `cctape stats` sums this).",
        main_cost_usd "main_cost_usd": F64 required
            "The cost of the models in the main role (`modelUsage` costs; the whole cost without `modelUsage`).",
        subagent_cost_usd "subagent_cost_usd": F64 required
            "The cost of the models only subagents used.",
        auxiliary_cost_usd "auxiliary_cost_usd": F64 required
            "The cost of the auxiliary models (in `modelUsage` without a message of their own).",
        model "model": Str null
            "`model` of the run's first `system/init`.",
        claude_code_version "claude_code_version": Str null
            "`claude_code_version` of the run's first `system/init`.",
        started_at "started_at": Timestamp null
            "The run's first `timestamp` (from its first assistant or user event that has one).",
        ended_at "ended_at": Timestamp null
            "The run's last `timestamp`.",
        events "events": I64 required
            "Events of the run.",
        rounds "rounds": I64 required
            "`system/init` events of the run (one per round).",
        main_calls "main_calls": I64 required
            "Model calls (distinct message ids) of the main agent.",
        main_tokens_source "main_tokens_source": Str required
            "Where the main agent's token figures come from (`final_calls`, `results`, `results_and_complete_calls`, `snapshot_calls` (a lower bound), `none`; see docs/accounting.md).",
        main_input_tokens "main_input_tokens": I64 required
            "Main agent `input_tokens` (the best figure, as `cctape verdict` `usage.main`).",
        main_output_tokens "main_output_tokens": I64 required
            "Main agent `output_tokens` (the best figure).",
        main_cache_read_input_tokens "main_cache_read_input_tokens": I64 required
            "Main agent `cache_read_input_tokens` (the best figure).",
        main_cache_creation_input_tokens "main_cache_creation_input_tokens": I64 required
            "Main agent `cache_creation_input_tokens` (the best figure).",
        subagent_calls "subagent_calls": I64 required
            "Model calls of subagents.",
        subagent_tokens_source "subagent_tokens_source": Str required
            "Where the subagents' token figures come from (`final_calls`, `model_usage`, `subagent_reports` or `snapshot_calls` (lower bounds), `none`).",
        subagent_input_tokens "subagent_input_tokens": I64 required
            "Subagents' `input_tokens` (the best figure, as `cctape verdict` `usage.subagents`).",
        subagent_output_tokens "subagent_output_tokens": I64 required
            "Subagents' `output_tokens` (the best figure).",
        subagent_cache_read_input_tokens "subagent_cache_read_input_tokens": I64 required
            "Subagents' `cache_read_input_tokens` (the best figure).",
        subagent_cache_creation_input_tokens "subagent_cache_creation_input_tokens": I64 required
            "Subagents' `cache_creation_input_tokens` (the best figure).",
        tool_calls "tool_calls": I64 required
            "Tool calls (`tool_use` blocks), main agent and subagents.",
        tool_errors "tool_errors": I64 required
            "Tool calls whose result was an error (rejections not counted).",
        tool_rejections "tool_rejections": I64 required
            "Tool calls rejected without running: permission denials, and calls the user rejected (the `rejected` of `tools`), in both dialects.",
        subagents "subagents": I64 required
            "Subagents launched, at any depth, from every signal the version writes (Agent/Task tool uses, `local_agent` tasks, events under a `parent_tool_use_id`), as `cctape stats` counts them.",
        api_retries "api_retries": I64 required
            "`system/api_retry` events.",
        api_errors "api_errors": I64 required
            "`<synthetic>` API error messages.",
        bad_lines "bad_lines": I64 required
            "Lines of the run that were not events (not JSON, no `type`, ...).",
        truncated "truncated": Bool required
            "The input ends in the middle of one of the run's lines.",
        warnings "warnings": I64 required
            "Warnings of the run layer (see `cctape verdict`).",
        warning_codes "warning_codes": Str null
            "The distinct warning codes, comma-separated, in order of first appearance.",
        cost_source "cost_source": Str required
            "Where `total_cost_usd` comes from: `results` (a stream's), `records` (a transcript's `costUSD`), `price_table` (a transcript priced from the table), `records_and_price_table`, `none`.",
    }
}

table! {
    /// Rows of the `tools` table: one per tool call (`tool_use` block),
    /// paired with its `tool_result` by id within the run (a transcript
    /// session's calls: by id within the session).
    ToolRows = "tools" {
        file "file": Str required
            "The input as named on the command line (a transcript session's call: its session's own file, as in `runs`).",
        run_line "run_line": I64 required
            "The first line of the call's run (`first_line` in `runs`; 0 for a transcript session's call, as its session's row).",
        session_id "session_id": Str null
            "The run's `session_id`.",
        tool_use_id "tool_use_id": Str required
            "The `tool_use` block's `id`.",
        tool_name "tool_name": Str required
            "The tool's `name`.",
        parent_tool_use_id "parent_tool_use_id": Str null
            "The calling agent: null for the main agent, else the subagent's launching call id (a transcript subagent's `parentToolUseID`, null when its parent does not say: see `sidechain`).",
        line "line": I64 required
            "The line of the assistant event with the `tool_use` block (a transcript's: in `record_file`).",
        result_line "result_line": I64 null
            "The line of the user event with its first `tool_result` (null when unanswered; a result given again changes only `is_error`; a transcript's: in its own file, usually `record_file`).",
        started_at "started_at": Timestamp null
            "The `timestamp` of the tool_use's event.",
        duration_ms "duration_ms": I64 null
            "From the tool_use's `timestamp` to the tool_result's (null unless both carry one).",
        answered "answered": Bool required
            "A `tool_result` answered the call.",
        is_error "is_error": Bool required
            "The result was an error (`is_error`, `<tool_use_error>`, or an `Error: ` result string), not counting rejections: `cctape stats` `tools.*.errors`.",
        rejected "rejected": Bool required
            "The call was rejected: a permission denial, `tool_result_meta`, or a result with `is_error` that is the CLI's notice of the user's rejection (`The user doesn't want to proceed with this tool use`), in both dialects.",
        record_file "record_file": Str null
            "A transcript's call: the file whose record holds the `tool_use` block (the session's own or a subagent's); null for a stream's (`file`).",
        agent_id "agent_id": Str null
            "A transcript's call made by a subagent: its `agentId` (or its file's id); null for the main chain's and a stream's.",
        sidechain "sidechain": Bool null
            "A transcript's call: true when a subagent made it (a sidechain record, a subagent's file); null for a stream's (see `parent_tool_use_id`).",
    }
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl EventRows {
    /// Append one event's row, its usage columns left empty (see
    /// [`EventRows::set_usage`]).
    pub(crate) fn push_event(&mut self, file: &str, run_line: u64, ev: &Event<'_>, raw: bool) {
        self.push_row(file, run_line, ev.session_id(), ev, raw);
    }

    /// Append a session transcript record's row: its `sessionId` as the
    /// session, `run_line` 0 (a session's run row has `first_line` 0), no
    /// usage (a transcript's usage is on its session's run row).
    pub(crate) fn push_record(&mut self, file: &str, ev: &Event<'_>, raw: bool) {
        let session = ev.get("sessionId").and_then(|v| v.as_str());
        self.push_row(file, 0, session, ev, raw);
    }

    fn push_row(
        &mut self,
        file: &str,
        run_line: u64,
        session: Option<&str>,
        ev: &Event<'_>,
        raw: bool,
    ) {
        let kind = ev.kind();
        self.file.push(Some(file));
        self.line.push(Some(to_i64(ev.line())));
        self.byte_offset.push(Some(to_i64(ev.offset())));
        self.run_line.push(Some(to_i64(run_line)));
        self.session_id.push(session);
        self.uuid.push(ev.uuid());
        let ty = ev.raw_type();
        let sub = ev.raw_subtype();
        self.ty.push(Some(ty));
        self.subtype.push(sub);
        match (kind.name(), sub) {
            (Some(name), _) => self.kind.push(Some(name)),
            (None, None) => self.kind.push(Some(ty)),
            (None, Some(sub)) => {
                let mut k = String::with_capacity(ty.len() + 1 + sub.len());
                k.push_str(ty);
                k.push('/');
                k.push_str(sub);
                self.kind.push(Some(&k));
            }
        }
        self.parent_tool_use_id
            .push(ev.parent_tool_use_id().value());
        self.timestamp
            .push(ev.timestamp().and_then(crate::run::parse_timestamp_millis));
        let message = matches!(kind, EventKind::Assistant | EventKind::User);
        let block = if message { ev.content_block() } else { None };
        let block_type = block.and_then(|b| b.get("type")).and_then(|t| t.as_str());
        if message {
            self.model.push(ev.model());
            self.message_id.push(ev.message_id());
        } else {
            self.model.push(None);
            self.message_id.push(None);
        }
        self.content_type.push(block_type);
        let str_of = |k: &str| block.and_then(|b| b.get(k)).and_then(|v| v.as_str());
        match block_type {
            Some("tool_use") => {
                self.tool_name.push(str_of("name"));
                self.tool_use_id.push(str_of("id"));
            }
            Some("tool_result") => {
                self.tool_name.push(None);
                self.tool_use_id.push(str_of("tool_use_id"));
            }
            _ => {
                self.tool_name.push(None);
                self.tool_use_id.push(None);
            }
        }
        if kind == EventKind::StreamEvent {
            self.stream_event_type
                .push(ev.get_path("event.type").and_then(|v| v.as_str()));
        } else {
            self.stream_event_type.push(None);
        }
        let result = kind.is_result();
        if result {
            self.is_error.push(ev.is_error());
            self.total_cost_usd.push(ev.total_cost_usd());
            self.num_turns.push(ev.num_turns().map(to_i64));
            self.duration_ms.push(ev.duration_ms().map(to_i64));
            self.duration_api_ms.push(
                ev.get("duration_api_ms")
                    .and_then(|v| v.as_u64())
                    .map(to_i64),
            );
        } else {
            let e = if block_type == Some("tool_result") {
                block
                    .and_then(|b| b.get("is_error"))
                    .and_then(|v| v.as_bool())
            } else {
                None
            };
            self.is_error.push(e);
            self.total_cost_usd.push(None);
            self.num_turns.push(None);
            self.duration_ms.push(None);
            self.duration_api_ms.push(None);
        }
        self.carries_usage.push(Some(false));
        self.input_tokens.push(None);
        self.output_tokens.push(None);
        self.cache_read_input_tokens.push(None);
        self.cache_creation_input_tokens.push(None);
        self.raw.push_bytes(raw.then(|| ev.raw()));
    }

    /// Put a call's usage on row `i`.
    pub(crate) fn set_usage(&mut self, i: usize, t: &TokenCounts) {
        self.carries_usage.set(i, Some(true));
        self.input_tokens.set(i, Some(to_i64(t.input_tokens)));
        self.output_tokens.set(i, Some(to_i64(t.output_tokens)));
        self.cache_read_input_tokens
            .set(i, Some(to_i64(t.cache_read_input_tokens)));
        self.cache_creation_input_tokens
            .set(i, Some(to_i64(t.cache_creation_input_tokens)));
    }

    /// Put each call's usage on the row of its line ([`ModelCall::line`]);
    /// the rows must be in line order (one input's). Where several rows
    /// share the line (the elements of a JSON array written on one line),
    /// the call's row is the last of them with its message id. Returns the
    /// calls whose line has no row (none when the rows are the calls'
    /// input's).
    pub fn apply_calls(&mut self, calls: &[ModelCall]) -> usize {
        calls
            .iter()
            .filter(|c| !self.apply_call(c.line, c.message_id.as_deref(), &c.usage))
            .count()
    }

    /// Put one call's usage on the row of `line` (see
    /// [`EventRows::apply_calls`]); false when no row has that line.
    pub(crate) fn apply_call(&mut self, line: u64, id: Option<&str>, usage: &TokenCounts) -> bool {
        let line = to_i64(line);
        let start = self.line.vals.partition_point(|&l| l < line);
        let end = self.line.vals.partition_point(|&l| l <= line);
        if start == end {
            return false;
        }
        let mut row = start;
        if end - start > 1
            && let Some(id) = id
            && let Some(i) = (start..end)
                .rev()
                .find(|&i| self.message_id.get(i) == Some(id.as_bytes()))
        {
            row = i;
        }
        self.set_usage(row, usage);
        true
    }

    /// The line of the last row.
    pub(crate) fn last_line(&self) -> Option<u64> {
        self.line
            .vals
            .last()
            .map(|&l| u64::try_from(l).unwrap_or(0))
    }
}

impl RunRows {
    /// Append one run's row.
    pub(crate) fn push_run(&mut self, file: &str, r: &RunSummary) {
        let last = r.last_result.as_ref();
        self.file.push(Some(file));
        self.first_line.push(Some(to_i64(r.first_line)));
        self.last_line.push(Some(to_i64(r.last_line)));
        self.session_id.push(r.session_id.as_deref());
        self.verdict.push(Some(r.verdict.as_str()));
        self.ok.push(Some(r.ok()));
        self.results.push(Some(to_i64(r.results)));
        self.subtype.push(last.and_then(|l| l.subtype.as_deref()));
        self.is_error.push(last.and_then(|l| l.is_error));
        self.terminal_reason
            .push(last.and_then(|l| l.terminal_reason.as_deref()));
        self.stop_reason
            .push(last.and_then(|l| l.stop_reason.as_deref()));
        self.api_error_status
            .push(last.and_then(|l| l.api_error_status).map(to_i64));
        self.num_turns.push(last.and_then(|l| l.num_turns));
        self.duration_ms.push(last.and_then(|l| l.duration_ms));
        self.duration_api_ms
            .push(last.and_then(|l| l.duration_api_ms));
        self.duration_ms_sum.push(r.duration_ms_sum);
        self.wall_ms.push(r.wall_ms);
        self.total_cost_usd.push(r.cost.total_cost_usd);
        self.main_cost_usd.push(Some(r.cost.main_cost_usd));
        self.subagent_cost_usd.push(Some(r.cost.subagent_cost_usd));
        self.auxiliary_cost_usd
            .push(Some(r.cost.auxiliary_cost_usd));
        self.model.push(r.model.as_deref());
        self.claude_code_version
            .push(r.claude_code_version.as_deref());
        self.started_at.push(
            r.started_at
                .as_deref()
                .and_then(crate::run::parse_timestamp_millis),
        );
        self.ended_at.push(
            r.ended_at
                .as_deref()
                .and_then(crate::run::parse_timestamp_millis),
        );
        self.events.push(Some(to_i64(r.events)));
        self.rounds.push(Some(to_i64(r.inits)));
        let m = &r.usage.main;
        self.main_calls.push(Some(to_i64(m.messages)));
        self.main_tokens_source.push(Some(m.source.as_str()));
        self.main_input_tokens
            .push(Some(to_i64(m.tokens.input_tokens)));
        self.main_output_tokens
            .push(Some(to_i64(m.tokens.output_tokens)));
        self.main_cache_read_input_tokens
            .push(Some(to_i64(m.tokens.cache_read_input_tokens)));
        self.main_cache_creation_input_tokens
            .push(Some(to_i64(m.tokens.cache_creation_input_tokens)));
        let s = &r.usage.subagents;
        self.subagent_calls.push(Some(to_i64(s.messages)));
        self.subagent_tokens_source.push(Some(s.source.as_str()));
        self.subagent_input_tokens
            .push(Some(to_i64(s.tokens.input_tokens)));
        self.subagent_output_tokens
            .push(Some(to_i64(s.tokens.output_tokens)));
        self.subagent_cache_read_input_tokens
            .push(Some(to_i64(s.tokens.cache_read_input_tokens)));
        self.subagent_cache_creation_input_tokens
            .push(Some(to_i64(s.tokens.cache_creation_input_tokens)));
        self.tool_calls.push(Some(to_i64(r.tool_calls_total())));
        self.tool_errors.push(Some(to_i64(r.tool_errors_total())));
        self.tool_rejections
            .push(Some(to_i64(r.tool_rejections_total())));
        self.subagents.push(Some(to_i64(r.subagent_count())));
        self.api_retries.push(Some(to_i64(r.api_retries.count)));
        self.api_errors
            .push(Some(to_i64(r.usage.synthetic_messages)));
        self.bad_lines.push(Some(to_i64(r.bad_lines)));
        self.truncated.push(Some(r.truncated));
        self.warnings.push(Some(to_i64(r.warnings.len() as u64)));
        let mut codes: Vec<&str> = Vec::new();
        for w in &r.warnings {
            if !codes.contains(&w.code) {
                codes.push(w.code);
            }
        }
        if codes.is_empty() {
            self.warning_codes.push(None);
        } else {
            self.warning_codes.push(Some(&codes.join(",")));
        }
        self.cost_source.push(Some(r.cost.source().as_str()));
    }
}

impl ToolRows {
    /// Append one tool call's row, under its run's `file` and first line
    /// (a transcript session's: its own file's name, and line 0, as its
    /// `runs` row). A transcript's call also says its record's file, its
    /// agent's id and whether a subagent made it; a stream's leaves those
    /// null (its run is one file, its agents are `parent_tool_use_id`).
    pub(crate) fn push_call(&mut self, file: &str, run: &RunSummary, t: &ToolCall) {
        let transcript = run.verdict_source == VerdictSource::Transcript;
        self.file.push(Some(file));
        self.run_line.push(Some(to_i64(run.first_line)));
        self.session_id.push(run.session_id.as_deref());
        self.tool_use_id.push(Some(&t.tool_use_id));
        self.tool_name.push(Some(&t.name));
        self.parent_tool_use_id.push(t.agent.as_deref());
        self.line.push(Some(to_i64(t.line)));
        self.result_line.push(t.result_line.map(to_i64));
        self.started_at.push(t.started_ms);
        self.duration_ms.push(t.duration_ms);
        self.answered.push(Some(t.answered));
        self.is_error.push(Some(t.error && !t.rejected));
        self.rejected.push(Some(t.rejected));
        self.record_file.push(t.file.as_deref());
        self.agent_id.push(t.agent_id.as_deref());
        self.sidechain.push(transcript.then_some(t.sidechain));
    }
}
