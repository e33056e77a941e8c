//! The automation engine of hookrig (`hookrig serve`): automations are
//! triggered by events, periodic ticks, cron expressions or file changes,
//! gather context with steps, may short-circuit, render a prompt, ask an LLM
//! and record every run in the store.
//!
//! - [`template`] renders `{{step_N}}` / `{{event.field}}` placeholders.
//! - [`definition`] is the [`Automation`] type, loaded from TOML or JSON files.
//! - [`engine`] is the [`Engine`]: gates, last-run times, run records.
//! - [`skip`] decides whether the step results short-circuit the LLM call.

pub mod definition;
pub mod engine;
mod errors;
pub mod skip;
pub mod template;

pub use crate::definition::{Automation, Trigger, Watch};
pub use crate::engine::{
    Engine, EngineSettings, FireError, LlmBackend, RunObserver, RunPhase, RunRecord, StepRunner,
    Wiring,
};
pub use crate::errors::AutomationError;
