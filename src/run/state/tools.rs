//! Tool calls and their results: `tool_use` blocks of assistant events,
//! `tool_result` blocks of user events, rejections, and the server tools
//! whose use and result both sit inside the assistant's content
//! (`server_tool_use` and a `*_tool_result` block).

use super::*;

/// What a content block is to the tool tally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BlockRole {
    /// A call: `tool_use`, or a server tool's `server_tool_use` (web search,
    /// web fetch, code execution, z.ai's `webReader`) or `mcp_tool_use`
    /// (the MCP connector), which the API runs itself.
    Use,
    /// A result: `tool_result`, or a server tool's `*_tool_result`
    /// (`web_search_tool_result`, `web_fetch_tool_result`,
    /// `code_execution_tool_result`, `mcp_tool_result`, ...).
    Result,
    /// Anything else (text, thinking, images).
    Other,
}

impl BlockRole {
    /// The role of a block of this `type`.
    pub(super) fn of(ty: &str) -> BlockRole {
        match ty {
            "tool_use" | "server_tool_use" | "mcp_tool_use" => BlockRole::Use,
            t if t == "tool_result" || t.ends_with("_tool_result") => BlockRole::Result,
            _ => BlockRole::Other,
        }
    }
}

/// True when a result block says it failed: `is_error` true, text in
/// `<tool_use_error>`, or a server tool's error content (an object, or an
/// element of an array, of `type` `*_tool_result_error`, or carrying an
/// `error_code`: the API's shape, e.g. `{"type":
/// "web_search_tool_result_error", "error_code": "max_uses_exceeded"}`).
fn result_block_error(block: Value<'_>) -> bool {
    if block.get("is_error").and_then(|v| v.as_bool()) == Some(true) {
        return true;
    }
    let Some(content) = block.get("content") else {
        return false;
    };
    let is_error_object = |v: Value<'_>| {
        str_of(v.get("type")).is_some_and(|t| t.ends_with("_tool_result_error"))
            || v.get("error_code").is_some()
    };
    if is_error_object(content) || content.elements().any(is_error_object) {
        return true;
    }
    first_text(content).is_some_and(|t| t.str_starts_with("<tool_use_error>", true))
}

impl RunState {
    /// A result inside an assistant event: a server tool's (`*_tool_result`,
    /// or a `tool_result` some backends write there, as z.ai's `webReader`
    /// does), answering the `server_tool_use` before it in the same
    /// message.
    pub(super) fn on_server_tool_result(&mut self, block: Value<'_>, end: Option<i64>, line: u64) {
        let Some(id) = str_of(block.get("tool_use_id")) else {
            return;
        };
        let error = result_block_error(block);
        let id = self.names.intern(id);
        self.on_tool_result(id, error, end, line);
    }
    pub(super) fn on_tool_use(
        &mut self,
        id: &str,
        name: &str,
        agent: Option<Sym>,
        start: Option<i64>,
        block: Value<'_>,
        line: u64,
    ) {
        let id = self.names.intern(id);
        if self.tool_by_id.contains_key(&id) {
            return;
        }
        let name_sym = self.names.intern(name);
        let mut t = ToolUse {
            id,
            name: name_sym,
            agent,
            line,
            result_line: None,
            start_ms: start,
            answered: false,
            error: false,
            rejected: false,
            duration_ms: None,
        };
        if let Some((error, end, result_line)) = self.early_results.remove(&id) {
            t.answered = true;
            t.error = error;
            t.result_line = Some(result_line);
            t.duration_ms = start.zip(end).map(|(s, e)| e - s);
        }
        if let Some(p) = self.early_rejections.iter().position(|r| *r == id) {
            self.early_rejections.swap_remove(p);
            t.rejected = true;
        }
        self.tool_by_id.insert(id, self.tools.len() as u32);
        self.tools.push(t);
        if launches_subagent(name) {
            let i = self.node_for_tool(id);
            let n = &mut self.nodes[i];
            n.parent = agent;
            if n.description.is_none() {
                n.description = str_of(block.get_path("input.description")).map(str::to_string);
            }
            if n.subagent_type.is_none() {
                n.subagent_type =
                    str_of(block.get_path("input.subagent_type")).map(|s| self.names.intern(s));
            }
        } else if let Some(&i) = self.node_by_tool.get(&id) {
            self.nodes[i as usize].parent = agent;
        }
    }

    pub(super) fn on_user(&mut self, ev: &Event<'_>) {
        let _agent = self.agent_of(ev);
        let Some(content) = ev.message_get("content") else {
            return;
        };
        if content.kind() == ValueKind::String {
            if is_interrupt(content) {
                self.interrupt_in_round = true;
            }
            return;
        }
        let end = ev.timestamp().and_then(parse_millis);
        let tur = ev.get("tool_use_result");
        let results = content
            .elements()
            .filter(|b| str_of(b.get("type")) == Some("tool_result"))
            .count();
        if results > 0 && self.results > 0 {
            self.activity_after_result = true;
        }
        for block in content.elements() {
            match str_of(block.get("type")) {
                Some("text") if block.get("text").is_some_and(is_interrupt) => {
                    self.interrupt_in_round = true;
                }
                Some("tool_result") => {
                    let Some(id) = str_of(block.get("tool_use_id")) else {
                        continue;
                    };
                    let mut error = block.get("is_error").and_then(|v| v.as_bool()) == Some(true);
                    let text = block.get("content").and_then(first_text);
                    if text.is_some_and(|t| t.str_starts_with("<tool_use_error>", true)) {
                        error = true;
                    }
                    if results == 1 && tur.is_some_and(|t| t.str_starts_with("Error: ", false)) {
                        error = true;
                    }
                    let id = self.names.intern(id);
                    self.on_tool_result(id, error, end, ev.line());
                    if results == 1 {
                        if let (Some(&i), Some(t)) = (self.node_by_tool.get(&id), tur) {
                            let n = &mut self.nodes[i as usize];
                            n.result_error |= error;
                            if let Some(r) = str_of(t.get_path("handbackReport.text")) {
                                n.report = Some(r.to_string());
                            }
                            if let Some(s) = str_of(t.get("status")) {
                                n.result_status = Some(self.names.intern(s));
                            }
                            if let Some(u) = t
                                .get("usage")
                                .filter(|u| u.kind() == crate::json::ValueKind::Object)
                            {
                                let reported = self.usage_of(u, ev.line());
                                self.nodes[i as usize].reported_usage = Some(reported);
                            }
                        } else if let Some(&i) = self.node_by_tool.get(&id) {
                            self.nodes[i as usize].result_error |= error;
                        }
                    }
                }
                _ => {}
            }
        }
        if let Some(meta) = ev.get("tool_result_meta") {
            for m in meta.elements() {
                if let Some(id) = str_of(m.get("id")) {
                    let sym = self.names.intern(id);
                    self.reject(sym);
                }
            }
        }
    }

    pub(super) fn on_tool_result(&mut self, id: Sym, error: bool, end: Option<i64>, line: u64) {
        match self.tool_by_id.get(&id) {
            Some(&i) => {
                let t = &mut self.tools[i as usize];
                t.answered = true;
                t.error |= error;
                t.duration_ms = t.start_ms.zip(end).map(|(s, e)| e - s);
                t.result_line = Some(line);
            }
            None => {
                self.early_results.insert(id, (error, end, line));
            }
        }
    }
}
