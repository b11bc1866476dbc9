//! What a node of a run's subagent tree shows, the same in `cctape tree`
//! and in the HTML report: its label, and its output tokens, tool calls
//! and duration.

use crate::run::SubagentNode;

/// Output tokens (the node's best figure, see
/// [`AgentUsage`](crate::run::AgentUsage)), tool calls and duration in
/// milliseconds of a node: tool calls are its own where the stream shows
/// them, else what its task events report; the duration is its task's.
pub fn node_figures(n: &SubagentNode) -> (u64, u64, Option<u64>) {
    let task = n.final_usage.or(n.last_progress);
    let tools = match (n.tool_calls, task.and_then(|t| t.tool_uses)) {
        (0, Some(t)) => t,
        (own, _) => own,
    };
    (
        n.usage.tokens.output_tokens,
        tools,
        task.and_then(|t| t.duration_ms),
    )
}

/// `Explore: find the parser`, `local_bash`, or for a transcript's
/// subagent (known by its id) `agent a7be2f0`.
///
/// ```
/// use cctape::report::node_label;
/// use cctape::run::SubagentNode;
///
/// let mut n = SubagentNode::default();
/// n.subagent_type = Some("Explore".into());
/// n.description = Some("find the parser".into());
/// assert_eq!(node_label(&n), "Explore: find the parser");
/// ```
pub fn node_label(n: &SubagentNode) -> String {
    if let (None, None, None, Some(id)) = (&n.subagent_type, &n.task_type, &n.tool_name, &n.task_id)
    {
        // A transcript's subagent: known by its id (and the call that
        // spawned it).
        return format!("agent {id}");
    }
    let kind = n
        .subagent_type
        .as_deref()
        .or(n.task_type.as_deref())
        .or(n.tool_name.as_deref())
        .unwrap_or("task");
    match &n.description {
        Some(d) => format!("{kind}: {d}"),
        None => kind.to_string(),
    }
}
