//! Models, usage and costs, and the tools (kinds, Bash commands, agent
//! types, prompts).

use crate::pools::Src;
use crate::primitives::W;

// ---------------------------------------------------------------------------
// Models, usage, costs
// ---------------------------------------------------------------------------

pub(crate) struct Model {
    pub(crate) id: &'static str,
    canonical: &'static str,
    context: u64,
    max_out: u64,
    /// USD per million tokens: input, output, cache read, cache write.
    price: [f64; 4],
}

pub(crate) const MODELS: &[Model] = &[
    Model {
        id: "claude-sonnet-5-5",
        canonical: "claude-sonnet-5-5",
        context: 1_000_000,
        max_out: 128_000,
        price: [3.0, 15.0, 0.3, 6.0],
    },
    Model {
        id: "claude-opus-5",
        canonical: "claude-opus-5",
        context: 1_000_000,
        max_out: 64_000,
        price: [5.0, 25.0, 0.5, 10.0],
    },
    Model {
        id: "claude-fable-5",
        canonical: "claude-fable-5",
        context: 1_000_000,
        max_out: 64_000,
        price: [10.0, 50.0, 1.0, 20.0],
    },
    Model {
        id: "claude-sonnet-4-6",
        canonical: "claude-sonnet-4-6",
        context: 200_000,
        max_out: 64_000,
        price: [3.0, 15.0, 0.3, 3.75],
    },
];

pub(crate) const HAIKU: Model = Model {
    id: "claude-haiku-4-5-20251001",
    canonical: "claude-haiku-4-5",
    context: 200_000,
    max_out: 32_000,
    price: [1.0, 5.0, 0.1, 2.0],
};

#[derive(Clone, Copy, Default)]
pub(crate) struct Usage {
    pub(crate) input: u64,
    pub(crate) output: u64,
    pub(crate) cache_read: u64,
    pub(crate) cache_create: u64,
    pub(crate) thinking: u64,
}

impl Usage {
    pub(crate) fn add(&mut self, o: &Usage) {
        self.input += o.input;
        self.output += o.output;
        self.cache_read += o.cache_read;
        self.cache_create += o.cache_create;
        self.thinking += o.thinking;
    }
    pub(crate) fn total(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_create
    }
    pub(crate) fn cost(&self, m: &Model) -> f64 {
        (self.input as f64 * m.price[0]
            + self.output as f64 * m.price[1]
            + self.cache_read as f64 * m.price[2]
            + self.cache_create as f64 * m.price[3])
            / 1_000_000.0
    }
}

fn w_cache_creation(w: &mut W, u: &Usage) {
    w.k("cache_creation");
    w.open();
    w.kn("ephemeral_5m_input_tokens", 0);
    w.kn("ephemeral_1h_input_tokens", u.cache_create);
    w.close();
}

/// `assistant.message.usage` and `message_start` usage.
pub(crate) fn w_usage_msg(w: &mut W, u: &Usage, output: u64) {
    w.open();
    w.kn("input_tokens", u.input);
    w.kn("cache_creation_input_tokens", u.cache_create);
    w.kn("cache_read_input_tokens", u.cache_read);
    w_cache_creation(w, u);
    w.kn("output_tokens", output);
    w.ks("service_tier", "standard");
    w.ks("inference_geo", "not_available");
    w.close();
}

pub(crate) fn w_iteration(w: &mut W, u: &Usage) {
    w.open();
    w.kn("input_tokens", u.input);
    w.kn("output_tokens", u.output);
    w.kn("cache_read_input_tokens", u.cache_read);
    w.kn("cache_creation_input_tokens", u.cache_create);
    w_cache_creation(w, u);
    w.ks("type", "message");
    w.close();
}

/// Usage with `server_tool_use` etc. as on `result` and `AgentResult`.
pub(crate) fn w_usage_full(w: &mut W, u: &Usage, last: Option<&Usage>) {
    w.open();
    w.kn("input_tokens", u.input);
    w.kn("cache_creation_input_tokens", u.cache_create);
    w.kn("cache_read_input_tokens", u.cache_read);
    w.kn("output_tokens", u.output);
    w.k("output_tokens_details");
    w.open();
    w.kn("thinking_tokens", u.thinking);
    w.close();
    w.k("server_tool_use");
    w.open();
    w.kn("web_search_requests", 0);
    w.kn("web_fetch_requests", 0);
    w.close();
    w.ks("service_tier", "standard");
    w.k("cache_creation");
    w.open();
    w.kn("ephemeral_1h_input_tokens", u.cache_create);
    w.kn("ephemeral_5m_input_tokens", 0);
    w.close();
    w.ks("inference_geo", "not_available");
    w.k("iterations");
    w.arr();
    if let Some(l) = last {
        w_iteration(w, l);
    }
    w.arr_end();
    w.ks("speed", "standard");
    w.knull("fallback_credit");
    w.close();
}

pub(crate) fn w_model_usage(w: &mut W, m: &Model, u: &Usage, cost: f64) {
    w.k(m.id);
    w.open();
    w.kn("inputTokens", u.input);
    w.kn("outputTokens", u.output);
    w.kn("cacheReadInputTokens", u.cache_read);
    w.kn("cacheCreationInputTokens", u.cache_create);
    w.kn("webSearchRequests", 0);
    w.kf("costUSD", cost);
    w.kn("contextWindow", m.context);
    w.kn("maxOutputTokens", m.max_out);
    w.kn("thinkingTokens", u.thinking);
    w.ks("canonicalModel", m.canonical);
    w.ks("provider", "firstParty");
    w.ks("costBasis", "list");
    w.close();
}

// ---------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------

pub(crate) enum Kind {
    Bash {
        out: Src,
        err: Option<Src>,
        exit: u64,
    },
    Read {
        path: String,
        src: Src,
        start: usize,
        total: usize,
        missing: bool,
    },
    Write {
        path: String,
        src: Src,
        hunks: bool,
    },
    Edit {
        path: String,
        orig: Src,
        at: usize,
        old_n: usize,
        new: Src,
        fail: bool,
    },
    Grep {
        src: Src,
        files: bool,
        path: String,
    },
    Agent {
        sub_type: &'static str,
        desc: String,
        prompt: Src,
    },
}

pub(crate) struct ToolCall {
    pub(crate) id: String,
    pub(crate) name: &'static str,
    /// Serialized JSON object, used verbatim for `input`, `wire_tool_inputs`
    /// and (split) for `input_json_delta`.
    pub(crate) input: Vec<u8>,
    pub(crate) kind: Kind,
}

pub(crate) const BASH_CMDS: &[(&str, &str)] = &[
    (
        "cargo test --release 2>&1 | tail -120",
        "Run the test suite",
    ),
    ("cargo build --release 2>&1", "Build in release mode"),
    ("npm run test -- --run", "Run vitest"),
    ("python3 -m pytest -x -q tests/", "Run pytest"),
    (
        "git status --short && git diff --stat",
        "Show working tree status",
    ),
    ("ls -la src/", "List source files"),
    (
        "grep -rn \"TODO\\|FIXME\" src/ | head -50",
        "Find TODO markers",
    ),
    (
        "cat > /tmp/probe.json <<'EOF'\n{\"type\": \"probe\", \"n\": 1}\nEOF\njq . /tmp/probe.json",
        "Write and check a probe file",
    ),
    (
        "journalctl -u app --since \"10 min ago\" --no-pager | tail -200",
        "Show recent service logs",
    ),
    (
        "for f in src/*.rs; do wc -l \"$f\"; done",
        "Count lines per file",
    ),
    (
        "printf '%s\\t%s\\n' \"$(date -u +%FT%TZ)\" ok",
        "Print a timestamp",
    ),
    (
        "rg -n --color=always 'fn parse' src/",
        "Search for parse functions",
    ),
    (
        "docker compose logs --tail=300 api",
        "Tail API container logs",
    ),
    ("go test ./... 2>&1 | tail -60", "Run Go tests"),
];

pub(crate) const AGENT_TYPES: &[&str] = &["general-purpose", "Explore", "Plan"];

pub(crate) const PROMPTS: &[&str] = &[
    "The parser drops the last line when the input has no trailing newline. Find the cause, fix it and add a regression test.",
    "Add a `--json` flag to the CLI that prints the summary as one JSON object per line. Keep the text output unchanged.",
    "Profile the import step and make it at least twice as fast. 请保持现有接口不变。",
    "Refactor the session cache so it no longer holds the whole file in memory, then run the full test suite.",
    "Investigate why CI fails on Windows paths like C:\\Users\\runner\\work and fix the path handling.",
    "Write docs for the `stream` module with examples, and make sure `cargo test --doc` passes.",
];
