//! The automation engine of hookrig (`hookrig serve`): automations are
//! triggered by events, periodic ticks, cron expressions or file changes,
//! gather context with steps, may short-circuit, render a prompt, ask an LLM
//! and record every run in the store. It must not parse command lines, print, or
//! choose exit codes: the binary does, from the values and errors returned here.
//!
//! - [`template`] renders `{{step_N}}` / `{{event.field}}` placeholders.
//! - [`definition`] is the [`Automation`] type, loaded from TOML or JSON files.
//! - [`engine`] is the [`Engine`]: gates, last-run times, the life of a run.
//! - [`skip`] decides whether the step results short-circuit the LLM call.
//! - [`steps`] runs the context steps ([`steps::run_steps`]).
//! - [`llm`] sends the rendered prompt to a CLI or HTTP provider.
//! - [`tool_loop`] lets an HTTP provider's model call [`tools`] until it answers.
//! - [`notifier`] tells the log, Discord and Slack how runs go.
//! - [`repository`] describes an automation's workspace (its git remote) for the preamble.
//! - [`schedule`] says when cron and periodic automations are due.
//! - [`watch`] turns file-system changes into `file.changed` / `folder.changed` events.
//! - [`server`] is the [`Server`] of `hookrig serve`: the tick loop, the socket, the
//!   file watcher, recovery and a graceful stop; [`SharedDefinitions`] the automations
//!   the nodes of a shared store run.
//! - [`wiring`] connects the engine to the real steps, providers and notifiers.
//! - [`fire()`] runs one automation now, through a running serve or in this process;
//!   [`follow_runs`] reports runs as they change; [`add`], [`all`], [`get`],
//!   [`set_enabled`], [`remove`] and [`trust_files`] are what `hookrig auto` does to the
//!   store and the trust store.

mod catalog;
pub mod definition;
pub mod engine;
mod errors;
mod fire;
pub mod llm;
pub mod notifier;
mod report;
pub mod repository;
pub mod schedule;
pub mod server;
mod shared_definitions;
pub mod skip;
pub mod steps;
pub mod template;
pub mod tool_loop;
pub mod tools;
pub mod watch;
pub mod wiring;

pub use crate::catalog::{TrustedFiles, add, all, get, remove, set_enabled, trust_files};
pub use crate::definition::{Automation, Trigger, Watch};
pub use crate::engine::{
    Engine, EngineSettings, FireError, LlmBackend, RunObserver, RunPhase, StepRunner, Wiring,
};
pub use crate::errors::AutomationError;
pub use crate::fire::{Followed, fire, follow_runs};
pub use crate::report::{
    automation_details, automations_table, run_details, runs_table, tool_calls,
};
pub use crate::server::{Notice, NoticeSink, Server, ServerOptions};
pub use crate::shared_definitions::SharedDefinitions;
