//! The automation engine of hookrig (`hookrig serve`): automations are
//! triggered by events, periodic ticks, cron expressions or file changes,
//! gather context with steps, may short-circuit, render a prompt, ask an LLM
//! and record every run in the store.
//!
//! - [`template`] renders `{{step_N}}` / `{{event.field}}` placeholders.
//! - [`skip`] decides whether the step results short-circuit the LLM call.
//! - [`steps`] runs the context steps ([`steps::run_steps`]).

pub mod skip;
pub mod steps;
pub mod template;
