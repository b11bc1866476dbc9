//! Run: what a run did (verdict, usage, cost, tools, subagents), folded from
//! its events.
