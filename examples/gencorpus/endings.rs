//! How a run ends: failing final calls (an interruption, an API error)
//! and the `result` event.

use std::io;

use crate::generator::{Gen, Outcome};
use crate::models::{HAIKU, MODELS, Usage, w_model_usage, w_usage_full, w_usage_msg};
use crate::primitives::{W, b58_id, escape_into, uuid};

impl<'p> Gen<'p> {
    // -- failing final calls -------------------------------------------------------

    pub(crate) fn aborted_call(&mut self) -> io::Result<()> {
        self.status()?;
        self.tick(300, 4000);
        if self.partial {
            let call = self.plan_call(Vec::new(), 1000, false);
            self.se_begin();
            {
                let model = MODELS[self.r.model].id;
                let w = &mut self.w;
                w.ks("type", "message_start");
                w.k("message");
                w.open();
                w.ks("model", model);
                w.ks("id", &call.msg_id);
                w.ks("type", "message");
                w.ks("role", "assistant");
                w.kraw("content", b"[]");
                w.knull("stop_reason");
                w.knull("stop_sequence");
                w.knull("stop_details");
                w.k("usage");
                w_usage_msg(w, &call.usage, 1);
                w.knull("diagnostics");
                w.close();
            }
            let ttft = self.rng.range(400, 3000);
            self.se_end(Some(ttft), false)?;
            self.se_begin();
            self.w.ks("type", "content_block_start");
            self.w.kn("index", 0);
            self.w
                .kraw("content_block", b"{\"type\":\"text\",\"text\":\"\"}");
            self.se_end(None, false)?;
            for _ in 0..self.rng.range(0, 4) {
                self.delta_begin(0, "text_delta");
                let t = *self
                    .rng
                    .pick(&["Let me ", "check the ", "failing ", "test first"]);
                self.w.ks("text", t);
                self.delta_end(false)?;
            }
        }
        self.tick(500, 20_000);
        let ts = self.ts();
        let u = self.uuid();
        let w = &mut self.w;
        w.open();
        w.ks("type", "user");
        w.kraw(
            "message",
            b"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"[Request interrupted by user]\"}]}",
        );
        w.knull("parent_tool_use_id");
        w.ks("session_id", &self.sid);
        w.ks("uuid", &u);
        w.ks("timestamp", &ts);
        w.close();
        self.end_line()
    }

    pub(crate) fn api_error_call(&mut self) -> io::Result<()> {
        self.status()?;
        let (st, e, text) = *self.rng.pick(&[
            (
                429u64,
                "rate_limit",
                "API Error: Request rejected (429) · Rate limited, please try again later.",
            ),
            (
                529,
                "overloaded",
                "API Error: Repeated 529 Overloaded errors · The API is temporarily overloaded.",
            ),
            (
                401,
                "authentication_failed",
                "Failed to authenticate. API Error: 401 OAuth access token is invalid.",
            ),
        ]);
        let n = self.rng.range(2, 4);
        self.api_retries(n, st, e)?;
        self.tick(100, 2000);
        let ts = self.ts();
        let mid = self.uuid();
        let u = self.uuid();
        let w = &mut self.w;
        w.open();
        w.ks("type", "assistant");
        w.k("message");
        w.open();
        w.ks("id", &mid);
        w.ks("model", "<synthetic>");
        w.ks("role", "assistant");
        w.ks("type", "message");
        w.ks("stop_reason", "stop_sequence");
        w.ks("stop_sequence", "");
        w.knull("container");
        w.knull("stop_details");
        w.kraw(
            "usage",
            b"{\"input_tokens\":0,\"output_tokens\":0,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"cache_creation\":{\"ephemeral_1h_input_tokens\":0,\"ephemeral_5m_input_tokens\":0},\"server_tool_use\":{\"web_search_requests\":0,\"web_fetch_requests\":0},\"service_tier\":null,\"inference_geo\":null,\"iterations\":null,\"speed\":null,\"fallback_credit\":null,\"output_tokens_details\":null}",
        );
        w.k("content");
        w.arr();
        w.open();
        w.ks("type", "text");
        w.ks("text", text);
        w.close();
        w.arr_end();
        w.knull("context_management");
        w.knull("diagnostics");
        w.close();
        w.knull("parent_tool_use_id");
        w.ks("session_id", &self.sid);
        w.ks("uuid", &u);
        w.ks("timestamp", &ts);
        w.ks("error", e);
        w.ks("request_id", &b58_id(&mut self.rng, "req_011C", 20));
        w.kb("is_api_error_message", true);
        w.close();
        self.r.last_text.clear();
        escape_into(&mut self.r.last_text, text.as_bytes());
        self.end_line()?;
        self.r.api_status = st;
        Ok(())
    }

    // -- result ----------------------------------------------------------------------------

    pub(crate) fn result(
        &mut self,
        outcome: Outcome,
        num_turns: u64,
        max_turns: u64,
    ) -> io::Result<()> {
        self.tick(50, 800);
        let main_model = &MODELS[self.r.model];
        let haiku = Usage {
            input: self.rng.range(880, 1000) * (1 + num_turns / 8),
            output: self.rng.range(10, 24),
            ..Usage::default()
        };
        let mut main_all = self.r.main;
        main_all.add(&self.r.subs);
        let haiku_cost = haiku.cost(&HAIKU);
        let main_cost = main_all.cost(main_model);
        let include_main = main_all.total() > 0;
        let total_cost = if include_main {
            haiku_cost + main_cost
        } else {
            haiku_cost
        };
        let duration = self.now - self.r.start;
        let (subtype, is_error, terminal, stop) = match outcome {
            Outcome::Success => ("success", false, "completed", Some("end_turn")),
            Outcome::MaxTurns => ("error_max_turns", true, "max_turns", Some("tool_use")),
            Outcome::Aborted => ("error_during_execution", true, "aborted_streaming", None),
            Outcome::ApiError => ("success", true, "api_error", Some("stop_sequence")),
        };

        let mut f: Vec<(&'static str, Vec<u8>)> = Vec::new();
        let mut put = |k: &'static str, build: &mut dyn FnMut(&mut W)| {
            let mut w = W::default();
            build(&mut w);
            f.push((k, w.b));
        };
        put("type", &mut |w| w.s("result"));
        put("subtype", &mut |w| w.s(subtype));
        put("is_error", &mut |w| w.bool(is_error));
        match outcome {
            Outcome::Success => put("api_error_status", &mut |w| w.null()),
            Outcome::ApiError => {
                let st = self.r.api_status;
                put("api_error_status", &mut |w| w.n(st));
            }
            _ => {}
        }
        put("duration_ms", &mut |w| w.n(duration));
        let api_ms = self.r.api_ms.min(duration);
        put("duration_api_ms", &mut |w| w.n(api_ms));
        put("num_turns", &mut |w| w.n(num_turns));
        if outcome == Outcome::Success || outcome == Outcome::ApiError {
            let text = &self.r.last_text;
            put("result", &mut |w| w.se(text));
        }
        put("stop_reason", &mut |w| match stop {
            Some(s) => w.s(s),
            None => w.null(),
        });
        let sid = &self.sid;
        put("session_id", &mut |w| w.s(sid));
        put("total_cost_usd", &mut |w| w.f(total_cost));
        let (main_u, last_u) = (self.r.main, self.r.last);
        put("usage", &mut |w| {
            if outcome == Outcome::Aborted {
                w.raw(b"{\"input_tokens\":0,\"output_tokens\":0,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"iterations\":[]}");
            } else {
                w_usage_full(w, &main_u, Some(&last_u));
            }
        });
        put("modelUsage", &mut |w| {
            w.open();
            w_model_usage(w, &HAIKU, &haiku, haiku_cost);
            if include_main {
                w_model_usage(w, main_model, &main_all, main_cost);
            }
            w.close();
        });
        put("permission_denials", &mut |w| w.raw(b"[]"));
        put("terminal_reason", &mut |w| w.s(terminal));
        match outcome {
            Outcome::MaxTurns => {
                let e = format!("Reached maximum number of turns ({max_turns})");
                put("errors", &mut |w| {
                    w.arr();
                    w.s(&e);
                    w.arr_end();
                });
            }
            Outcome::Aborted => put("errors", &mut |w| {
                w.raw(b"[\"[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null\"]")
            }),
            _ => {}
        }
        put("fast_mode_state", &mut |w| w.s("off"));
        put("fast_mode_disabled_reason", &mut |w| {
            w.s("sdk_opt_in_required")
        });
        let spawned = self.r.spawned;
        let by_type = &self.r.by_type;
        put("subagent_stats", &mut |w| {
            w.open();
            w.kn("spawned", spawned);
            w.k("requested");
            w.open();
            w.kn("background", 0);
            w.kn("foreground", spawned);
            w.kn("unset", 0);
            w.close();
            w.kn("started_in_background", 0);
            w.kn("max_depth", u64::from(spawned > 0));
            w.kn("spawned_by_subagents", 0);
            w.kn("completed", spawned);
            w.kn("failed", 0);
            w.kraw("killed", b"{\"parent\":0,\"user\":0,\"system\":0}");
            w.kraw(
                "refused",
                b"{\"depth_limit\":0,\"concurrency_limit\":0,\"budget\":0}",
            );
            w.k("by_type");
            w.open();
            for (t, n) in by_type {
                w.kn(t, *n);
            }
            w.close();
            w.close();
        });
        let u = uuid(&mut self.rng);
        put("uuid", &mut |w| w.s(&u));
        put("result_index", &mut |w| w.n(0));
        put("queued_turn_count", &mut |w| w.n(0));
        if outcome == Outcome::Success {
            let ttft = self.r.ttft;
            let stream = ttft * 3 / 5;
            let req = self.rng.range(10, 300);
            let fcf = stream + self.rng.range(50, 400);
            put("ttft_ms", &mut |w| w.n(ttft));
            put("ttft_stream_ms", &mut |w| w.n(stream));
            put("time_to_request_ms", &mut |w| w.n(req));
            put("first_content_frame_ms", &mut |w| w.n(fcf));
        }

        // Key order: as built (type first) for two thirds of the results,
        // otherwise one of the 2.1.2xx orders with "type" near the end.
        const LATE_A: &[&str] = &[
            "is_error",
            "duration_api_ms",
            "num_turns",
            "stop_reason",
            "session_id",
            "total_cost_usd",
            "usage",
            "modelUsage",
            "permission_denials",
            "terminal_reason",
            "fast_mode_state",
            "fast_mode_disabled_reason",
            "subagent_stats",
            "subtype",
            "errors",
            "api_error_status",
            "result",
            "ttft_ms",
            "ttft_stream_ms",
            "time_to_request_ms",
            "type",
            "duration_ms",
            "uuid",
        ];
        const LATE_B: &[&str] = &[
            "duration_api_ms",
            "stop_reason",
            "session_id",
            "total_cost_usd",
            "usage",
            "modelUsage",
            "permission_denials",
            "terminal_reason",
            "fast_mode_state",
            "fast_mode_disabled_reason",
            "subagent_stats",
            "is_error",
            "num_turns",
            "subtype",
            "api_error_status",
            "result",
            "errors",
            "ttft_ms",
            "type",
            "duration_ms",
            "uuid",
            "ttft_stream_ms",
            "time_to_request_ms",
            "first_content_frame_ms",
        ];
        let order: &[&str] = match self.rng.below(6) {
            0 => LATE_A,
            1 => LATE_B,
            _ => &[],
        };
        let mut used = vec![false; f.len()];
        let w = &mut self.w;
        w.open();
        for key in order {
            if let Some(i) = f.iter().position(|(k, _)| k == key) {
                w.k(f[i].0);
                w.b.extend_from_slice(&f[i].1);
                used[i] = true;
            }
        }
        for (i, (k, v)) in f.iter().enumerate() {
            if !used[i] {
                w.k(k);
                w.b.extend_from_slice(v);
            }
        }
        w.close();
        self.end_line()
    }
}
