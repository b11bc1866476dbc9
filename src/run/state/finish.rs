//! The state turned into the run's summary: the agents' figures and the
//! models' roles, the cost, the tools, the subagent tree, the verdict and
//! its warnings.

use super::*;

impl RunState {
    /// Turn the state into a summary.
    /// Turn the state into a summary, concern by concern: the usage
    /// figures and the models' roles, the cost, the tools, the subagent
    /// tree, the verdict and its warnings.
    pub(crate) fn finish(mut self) -> RunSummary {
        let partial = self.partial.summary(&self.names);
        let mut warnings = std::mem::take(&mut self.warnings);
        let (mut usage, by_model, node_usage) = self.usage_figures();
        let cost = self.cost_check(&mut usage, by_model, &mut warnings);
        let (tools, tool_calls_by_agent) = self.tools.tallies(&self.names);
        let (subagents, subagent_check) =
            self.subagent_tree(node_usage, &tool_calls_by_agent, &mut warnings);
        let (stream_verdict, verdict_source) = self.verdict(partial.as_ref(), &mut warnings);
        let names = &self.names;

        let mut api_retries = std::mem::take(&mut self.retries);
        api_retries.statuses.sort_unstable();
        api_retries.last_error = self.retry_error.map(|e| names.resolve(e).to_string());

        let (model_calls, tool_calls) = if self.keep_calls {
            self.call_lists()
        } else {
            (Vec::new(), Vec::new())
        };

        RunSummary {
            session_id: self.session.take(),
            verdict: stream_verdict,
            stream_verdict,
            verdict_source,
            exit_code: None,
            events: self.events,
            first_line: self.first_line,
            last_line: self.last_line,
            inits: self.inits,
            model: self.model.take(),
            claude_code_version: self.version.take(),
            started_at: self.started_at.take(),
            ended_at: (!self.ended_at.is_empty()).then(|| std::mem::take(&mut self.ended_at)),
            wall_ms: self.first_ms.zip(self.last_ms).map(|(a, b)| b - a),
            duration_ms_sum: self.duration_ms_sum,
            results: u64::from(self.results),
            last_result: self.last_result.take(),
            usage,
            cost,
            tools,
            tool_results_without_use: self.tools.ledger.results_without_call().count() as u64,
            subagents,
            subagent_check,
            api_retries,
            api_errors: std::mem::take(&mut self.calls.api_errors),
            permission_denials: std::mem::take(&mut self.denials),
            hooks: std::mem::take(&mut self.hooks),
            notifications: std::mem::take(&mut self.notifications),
            compactions: self.compactions,
            partial,
            usage_checks: std::mem::take(&mut self.usage_checks),
            bad_lines: self.bad_lines,
            truncated: self.truncated,
            warnings,
            model_calls,
            tool_calls,
        }
    }

    /// The last result's `modelUsage` entries, each with its role (main,
    /// subagent, auxiliary) from the models the run's events answer under
    /// (see [`accounting`]).
    fn models_with_roles(&mut self) -> Vec<ModelUsageSummary> {
        let names = &self.names;
        // The roles of the models (see `accounting`).
        let resolve = |m: &SymMap<()>| -> Vec<&str> {
            let mut v: Vec<&str> = m.keys().map(|s| names.resolve(*s)).collect();
            v.sort_unstable();
            v
        };
        let init_models: Vec<&str> = self.init_models.iter().map(|s| names.resolve(*s)).collect();
        let main_models = resolve(&self.calls.main_models);
        let sub_models = resolve(&self.calls.sub_models);
        let mut by_model = std::mem::take(&mut self.model_usage);
        accounting::assign_roles(
            &mut by_model,
            &ModelsSeen {
                inits: &init_models,
                main: &main_models,
                subagents: &sub_models,
            },
        );
        by_model
    }

    /// The usage figures of the main agent and of each subagent node (see
    /// [`accounting`]), with the models' roles: the summary's usage, the
    /// models (their sums and costs not yet set) and each node's figure.
    fn usage_figures(&mut self) -> (UsageSummary, Vec<ModelUsageSummary>, Vec<AgentUsage>) {
        let by_model = self.models_with_roles();
        let names = &self.names;

        // Per-call sums of the main agent and of each node.
        let mut main_calls = AgentUsage::default();
        let mut complete = TokenCounts::default();
        let mut complete_calls = 0;
        let mut per_node: SymMap<(AgentUsage, Vec<Sym>)> = SymMap::default();
        for c in &self.calls.list {
            match c.agent {
                None => {
                    main_calls.add_call(&c.usage, c.source);
                    if c.source == CallUsageSource::CompleteMessage {
                        complete.add(&c.usage);
                        complete_calls += 1;
                    }
                }
                Some(a) => {
                    let (u, models) = per_node.entry(a).or_default();
                    u.add_call(&c.usage, c.source);
                    if let Some(m) = c.model {
                        models.push(m);
                    }
                }
            }
        }
        // Each node's models, each once (what the subagents' figure asks
        // of them: whether modelUsage covers every one).
        let per_node: SymMap<(AgentUsage, Vec<&str>)> = per_node
            .into_iter()
            .map(|(node, (u, mut models))| {
                models.sort_unstable();
                models.dedup();
                let models = models.into_iter().map(|m| names.resolve(m)).collect();
                (node, (u, models))
            })
            .collect();
        let reported = if self.reported_cumulative {
            self.reported_last
        } else {
            self.reported_sum
        };
        let main = accounting::main_figure(
            MainInputs {
                calls: main_calls,
                complete,
                complete_calls,
                reported,
            },
            &by_model,
        );
        // Each node's figure, then all subagents together.
        let empty: (AgentUsage, Vec<&str>) = (AgentUsage::default(), Vec::new());
        let inputs: Vec<SubagentInputs<'_>> = self
            .agents
            .nodes
            .iter()
            .map(|n| {
                let (calls, models) = n
                    .tool_use_id
                    .and_then(|id| per_node.get(&id))
                    .unwrap_or(&empty);
                SubagentInputs {
                    calls: *calls,
                    reported: n.reported_usage,
                    models,
                }
            })
            .collect();
        let mut node_usage: Vec<AgentUsage> =
            inputs.iter().map(accounting::subagent_figure).collect();
        // Calls under a parent_tool_use_id always have a node (agent_of), so
        // every subagent call is in some node's inputs.
        let subagents = accounting::subagents_figure(&mut node_usage, &inputs, &by_model);
        drop(inputs);

        let usage = UsageSummary {
            synthetic_messages: self.calls.synthetic,
            main,
            subagents,
            ..UsageSummary::default()
        };

        (usage, by_model, node_usage)
    }

    /// The cost by role from `modelUsage` (each model's calls summed into
    /// it), checked against the last result's `total_cost_usd`.
    fn cost_check(
        &self,
        usage: &mut UsageSummary,
        mut by_model: Vec<ModelUsageSummary>,
        warnings: &mut Vec<Warning>,
    ) -> CostCheck {
        let names = &self.names;
        // modelUsage: per-model sums and the cost by role.
        let mut cost = CostCheck {
            total_cost_usd: self.last_result.as_ref().and_then(|r| r.total_cost_usd),
            ..CostCheck::default()
        };
        let mut sum_cost = crate::run::ExactSum::new();
        let (mut main_cost, mut sub_cost, mut aux_cost) = (
            crate::run::ExactSum::new(),
            crate::run::ExactSum::new(),
            crate::run::ExactSum::new(),
        );
        // Each entry's calls, summed in one pass over the calls.
        let mut summed = vec![TokenCounts::default(); by_model.len()];
        {
            let index =
                accounting::ModelIndex::new(by_model.iter(), |m| m.role != ModelRole::Auxiliary);
            for c in &self.calls.list {
                if let Some(cm) = c.model {
                    for i in index.matching(names.resolve(cm)) {
                        summed[i].add(&c.usage);
                    }
                }
            }
        }
        for (m, t) in by_model.iter_mut().zip(summed) {
            m.summed = (m.role != ModelRole::Auxiliary).then_some(t);
            let c = m.cost_usd.unwrap_or(0.0);
            sum_cost.add(c);
            match m.role {
                ModelRole::Auxiliary => {
                    usage.auxiliary.add(&m.tokens);
                    aux_cost.add(c);
                }
                ModelRole::Subagent => {
                    usage.models.add(&m.tokens);
                    sub_cost.add(c);
                }
                _ => {
                    usage.models.add(&m.tokens);
                    main_cost.add(c);
                }
            }
        }
        let f = |s: crate::run::ExactSum| s.value().as_f64().unwrap_or(f64::MAX);
        cost.auxiliary_cost_usd = f(aux_cost);
        cost.subagent_cost_usd = f(sub_cost);
        cost.main_cost_usd = f(main_cost);
        if by_model.is_empty() {
            // Without modelUsage the run's cost is its main model's.
            cost.main_cost_usd = cost.total_cost_usd.unwrap_or(0.0);
        }
        let sum_cost = f(sum_cost);
        if self.model_usage_present {
            cost.model_usage_cost_usd = Some(sum_cost);
            cost.matches = cost.total_cost_usd.map(|t| costs_match(t, sum_cost));
        }
        usage.by_role = accounting::role_rows(
            &by_model,
            self.model.as_deref(),
            &usage.main,
            &usage.subagents,
            cost.total_cost_usd,
        );
        usage.by_model = by_model;
        if cost.matches == Some(false) {
            warnings.push(Warning {
                code: WARN_COST_MISMATCH,
                message: format!(
                    "total_cost_usd {} but modelUsage costs sum to {}",
                    cost.total_cost_usd.unwrap_or(0.0),
                    sum_cost
                ),
                line: self.last_result.as_ref().map(|r| r.line),
            });
        }

        cost
    }

    /// The subagent tree (each node with its usage figure), and what the
    /// stream shows of it against the last result's `subagent_stats`.
    fn subagent_tree(
        &self,
        node_usage: Vec<AgentUsage>,
        tool_calls_by_agent: &SymMap<u64>,
        warnings: &mut Vec<Warning>,
    ) -> (Vec<SubagentNode>, Option<SubagentCheck>) {
        let names = &self.names;
        // Subagent tree.
        let mut flat: Vec<(Option<Sym>, Option<Sym>, SubagentNode)> =
            Vec::with_capacity(self.agents.nodes.len());
        let opt = |s: Option<Sym>| s.map(|s| names.resolve(s).to_string());
        for (n, u) in self.agents.nodes.iter().zip(node_usage) {
            let tool_name = n
                .tool_use_id
                .and_then(|id| self.tools.ledger.get(&id))
                .map(|t| names.resolve(t.name).to_string());
            let status = n.notified_status.or(n.updated_status).or(n.result_status);
            flat.push((
                n.tool_use_id,
                n.parent,
                SubagentNode {
                    tool_use_id: opt(n.tool_use_id).unwrap_or_default(),
                    tool_name,
                    task_id: opt(n.task_id),
                    task_type: opt(n.task_type),
                    description: n.description.clone(),
                    subagent_type: opt(n.subagent_type),
                    spawn_depth: n.spawn_depth,
                    backgrounded: n.backgrounded,
                    status: opt(status),
                    progress_events: n.progress_events,
                    last_progress: n.last_progress,
                    workflow_agents: n.workflow_agents,
                    workflow_agents_done: n.workflow_agents_done,
                    final_usage: n.final_usage,
                    summary: n.summary.clone(),
                    report: n.report.clone(),
                    result_error: n.result_error,
                    usage: u,
                    events: n.events,
                    tool_calls: n
                        .tool_use_id
                        .and_then(|id| tool_calls_by_agent.get(&id))
                        .copied()
                        .unwrap_or(0),
                    children: Vec::new(),
                },
            ));
        }
        let is_agent = SubagentNode::is_agent;
        let (mut parents, mut depth_of) = parents_and_depths(&flat);
        let (mut seen_spawned, mut seen_completed) = (0, 0);
        for (_, _, n) in &flat {
            if is_agent(n) {
                seen_spawned += 1;
                if n.status.as_deref() == Some("completed") {
                    seen_completed += 1;
                }
            }
        }
        let seen_max_depth = flat
            .iter()
            .zip(&depth_of)
            .filter(|((_, _, n), _)| is_agent(n))
            .map(|(_, d)| *d)
            .max()
            .unwrap_or(0);
        if let Some((n, first)) = cap_nesting(&mut parents, &mut depth_of, MAX_NESTING) {
            // The line of the first moved node's tool use, if it has one.
            let line = flat[first]
                .0
                .and_then(|id| self.tools.ledger.get(&id))
                .map_or(self.last_line, |t| t.line);
            warnings.push(Warning {
                code: WARN_DEEP_SUBAGENTS,
                message: format!(
                    "{n} subagents nested deeper than {MAX_NESTING} levels (the stream nests them \
                     {seen_max_depth} deep) are drawn at level {MAX_NESTING}"
                ),
                line: Some(line),
            });
        }
        let subagents = build_tree(flat, &parents, &depth_of);
        let subagent_check = self.reported_subagents.map(
            |[reported_spawned, reported_completed, reported_max_depth]| SubagentCheck {
                seen_spawned,
                reported_spawned,
                seen_completed,
                reported_completed,
                seen_max_depth,
                reported_max_depth,
            },
        );

        (subagents, subagent_check)
    }

    /// The stream's verdict, where it comes from, and the warnings the last
    /// result and the partial messages give.
    fn verdict(
        &self,
        partial: Option<&PartialSummary>,
        warnings: &mut Vec<Warning>,
    ) -> (Verdict, VerdictSource) {
        // Verdict and its warnings.
        let (stream_verdict, verdict_source) = match &self.last_result {
            None => (Verdict::NoResult, VerdictSource::StreamEnd),
            // A result naming why Claude Code refused to start (2.1.274+).
            Some(r) if r.startup_failure_reason.is_some() => {
                (Verdict::StartupFailure, VerdictSource::Result)
            }
            Some(r) => (
                classify_result(
                    r.subtype.as_deref(),
                    r.is_error,
                    r.terminal_reason.as_deref(),
                    self.last_interrupt_seen,
                ),
                VerdictSource::Result,
            ),
        };
        if let Some(r) = &self.last_result {
            if stream_verdict == Verdict::Success {
                if r.stop_reason.as_deref() == Some("tool_use") {
                    warnings.push(Warning {
                        code: WARN_SUCCESS_STOP_TOOL_USE,
                        message: "success, but the last model call stopped to use a tool".into(),
                        line: Some(r.line),
                    });
                }
                if r.result_text.as_deref().is_none_or(|t| t.trim().is_empty()) {
                    warnings.push(Warning {
                        code: WARN_SUCCESS_EMPTY_RESULT,
                        message: "success with an empty result text".into(),
                        line: Some(r.line),
                    });
                }
            }
            if self.activity_after_result {
                warnings.push(Warning {
                    code: WARN_ACTIVITY_AFTER_RESULT,
                    message: "the run went on after its last result (a round without a result)"
                        .into(),
                    line: Some(self.last_line),
                });
            }
        }
        if let Some(p) = &partial {
            for m in &p.mismatches {
                warnings.push(Warning {
                    code: WARN_PARTIAL_MISMATCH,
                    message: format!("{} block {}: {}", m.block_type, m.index, m.reason),
                    line: Some(m.line),
                });
            }
        }

        (stream_verdict, verdict_source)
    }

    /// Every model call and every tool call, in order of first appearance.
    pub(super) fn call_lists(&self) -> (Vec<ModelCall>, Vec<ToolCall>) {
        let names = &self.names;
        let opt = |s: Option<Sym>| s.map(|s| names.resolve(s).to_string());
        let model_calls = self
            .calls
            .list
            .iter()
            .map(|c| ModelCall {
                message_id: opt(c.msg),
                request_id: None,
                agent: opt(c.agent),
                agent_id: None,
                sidechain: c.agent.is_some(),
                model: opt(c.model),
                usage: c.usage,
                final_usage: c.source.is_final(),
                source: c.source,
                cost_usd: None,
                file: None,
                line: c.line,
                first_line: c.first_line,
                last_line: c.last_seen_line,
                started_ms: c.first_ms,
                ended_ms: c.last_ms,
            })
            .collect();
        let tool_calls = self
            .tools
            .ledger
            .calls()
            .map(|(id, t, a)| {
                let o = a.outcome(t.start_ms);
                ToolCall {
                    tool_use_id: names.resolve(*id).to_string(),
                    name: names.resolve(t.name).to_string(),
                    agent: opt(t.agent),
                    agent_id: None,
                    sidechain: t.agent.is_some(),
                    file: None,
                    line: t.line,
                    result_line: o.result_line,
                    started_ms: t.start_ms,
                    duration_ms: o.duration_ms,
                    answered: o.answered,
                    error: o.error,
                    rejected: o.rejected,
                }
            })
            .collect();
        (model_calls, tool_calls)
    }
}

/// For each node, the index of the node that launched it (none for the
/// main agent, an unknown launcher, or an edge that would close a cycle),
/// and its depth (1 = launched by the main agent). Linear time.
fn parents_and_depths(
    flat: &[(Option<Sym>, Option<Sym>, SubagentNode)],
) -> (Vec<Option<usize>>, Vec<u64>) {
    let mut index: SymMap<usize> = SymMap::default();
    for (i, (id, _, _)) in flat.iter().enumerate() {
        if let Some(id) = id {
            index.entry(*id).or_insert(i);
        }
    }
    let mut parent: Vec<Option<usize>> = flat
        .iter()
        .enumerate()
        .map(|(i, (_, p, _))| p.and_then(|p| index.get(&p).copied()).filter(|&pi| pi != i))
        .collect();
    let depth = depths_cutting_cycles(&mut parent);
    (parent, depth)
}

/// Each node's depth in the forest `parent` draws (1 for a root), the
/// links that would close a cycle cut (set to none) on the way; a link
/// out of range counts as none. Linear time, no recursion, however deep
/// the forest (the subagent tree here, a run's spans in `otel`).
pub(crate) fn depths_cutting_cycles(parent: &mut [Option<usize>]) -> Vec<u64> {
    let n = parent.len();
    let mut depth = vec![0u64; n];
    // 0 unvisited, 1 on the current path, 2 depth known.
    let mut state = vec![0u8; n];
    let mut path = Vec::new();
    for start in 0..n {
        path.clear();
        let mut cur = start;
        loop {
            match state[cur] {
                2 => break,
                1 => {
                    // A cycle: cut the edge that closes it.
                    if let Some(&last) = path.last() {
                        parent[last] = None;
                    }
                    break;
                }
                _ => {}
            }
            state[cur] = 1;
            path.push(cur);
            match parent[cur] {
                Some(p) if p < n => cur = p,
                _ => {
                    parent[cur] = None;
                    break;
                }
            }
        }
        for &i in path.iter().rev() {
            depth[i] = parent[i].map_or(1, |p| depth[p] + 1);
            state[i] = 2;
        }
    }
    depth
}

/// The deepest level of the subagent tree: a node below it is drawn at it
/// ([`WARN_DEEP_SUBAGENTS`]), so that every walk over the tree, recursive
/// ones among them (serde's, drop's), stays within a bounded stack.
const MAX_NESTING: u64 = 32;

/// Parents and depths with no node deeper than `max`: a node whose
/// launcher is at level `max` or below goes under the launcher's own
/// (capped) parent, at level `max`. How many nodes moved, with the first
/// of them, if any did. Linear time after a sort by depth.
fn cap_nesting(parent: &mut [Option<usize>], depth: &mut [u64], max: u64) -> Option<(u64, usize)> {
    if depth.iter().all(|&d| d <= max) {
        return None;
    }
    // Shallowest first: a node's launcher is placed (at level `max` at
    // most) before the node, which then takes the launcher's parent and
    // sits beside it at level `max`.
    let mut order: Vec<usize> = (0..depth.len()).collect();
    order.sort_by_key(|&i| depth[i]);
    let mut moved = (0u64, usize::MAX);
    for &i in &order {
        if depth[i] <= max {
            continue;
        }
        if let Some(p) = parent[i] {
            parent[i] = parent[p];
        }
        depth[i] = max;
        moved = (moved.0 + 1, moved.1.min(i));
    }
    Some(moved)
}

/// Nest nodes under the node whose tool_use launched them; nodes whose
/// launcher is the main agent (or unknown) are roots. Order of appearance
/// is kept.
fn build_tree(
    flat: Vec<(Option<Sym>, Option<Sym>, SubagentNode)>,
    parent: &[Option<usize>],
    depth: &[u64],
) -> Vec<SubagentNode> {
    let n = flat.len();
    let mut slots: Vec<Option<SubagentNode>> =
        flat.into_iter().map(|(_, _, node)| Some(node)).collect();
    // Deepest first, so a child is complete before it moves into its parent.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(depth[i]));
    let mut children: Vec<Vec<(usize, SubagentNode)>> = (0..n).map(|_| Vec::new()).collect();
    for i in order {
        let Some(mut node) = slots[i].take() else {
            continue;
        };
        let mut kids = std::mem::take(&mut children[i]);
        kids.sort_by_key(|(k, _)| *k);
        node.children = kids.into_iter().map(|(_, c)| c).collect();
        match parent[i] {
            Some(p) => children[p].push((i, node)),
            None => slots[i] = Some(node),
        }
    }
    slots.into_iter().flatten().collect()
}
