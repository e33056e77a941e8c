//! hookrig's runtime: what the product does, end to end, as library calls that every
//! caller shares — `hookrig emit`, the task lifecycle's events, agents, `hookrig serve`
//! and embedders.
//!
//! It owns the [`Scope`] (working directory, agent, plan and store, resolved once from
//! flags and environment), the emit path ([`Emit`]: load the config, build the
//! registry, dispatch, record in the ledger, hand the event to a running serve, drain
//! async hooks), [`explain()`], [`list`] and [`validate`] as typed values, project
//! [`trust`], plan actions with their lifecycle events ([`lifecycle::perform`]), plan
//! checks with their validators ([`check_plan`]), board formatters ([`format_board`]),
//! plugin package registration ([`register_package`]), the tools of JavaScript plugins
//! called through their warm workers ([`plugin_workers`]),
//! the search for the programs hookrig runs by name ([`programs`]), and the local socket
//! of `hookrig serve` ([`ingress`]). It does not parse argv, print, or choose exit codes:
//! that is the binary's job, and an embedder's. The async hooks of a one-shot emit are
//! run to their end by a detached [`keeper`], so that the emit can exit.
//!
//! ```no_run
//! use hookrig_core::Payload;
//! use hookrig_runtime::{Emit, EmitRequest, Scope, ScopeArgs};
//!
//! let scope = Scope::resolve(ScopeArgs::default())?;
//! let event = hookrig_dialects::events::parse("PreToolUse")?;
//! let request = EmitRequest::new(event, Payload::new());
//! let decided = Emit::prepare(&scope, request)?.dispatch()?;
//! println!("{}", serde_json::to_string(&decided.outcome())?);
//! let finished = decided.finish();
//! # let _ = finished;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod call;
mod config_cache;
mod emit;
pub mod engine;
mod errors;
mod explain;
mod formatter;
pub mod http;
pub mod ingress;
mod interrupt;
pub mod keeper;
pub mod ledger;
pub mod lifecycle;
mod listing;
pub mod log;
mod packages;
mod plugin_host;
mod plugin_tools;
mod pool;
pub mod programs;
mod registry;
mod registry_cache;
mod scope;
mod services;
mod shared_registry;
pub mod trust;
mod validation;
mod validators;

pub use call::{CallSite, EmitCall, HostReply, answer, failure, host_mode};
pub use config_cache::CacheStatus;
pub use emit::{
    Decided, Emit, EmitRequest, Finished, Prepared, RUNNING_ROW_AFTER, Recorded, Signals, Suppress,
    event_dir, payload_agent,
};
pub use errors::RuntimeError;
pub use explain::{Considered, Explanation, explain};
pub use formatter::{FORMATTER_TIMEOUT, format_board};
pub use interrupt::StopSignal;
pub use listing::{ListedHook, Listing, Select, Trust, list};
pub use packages::{Registration, plugins_table, register_package};
pub use plugin_host::{
    Described, PluginDetail, PluginHook, PluginTool, Subscription, call_package_tool,
    call_plugin_tool, show_entry, show_plugin,
};
pub use plugin_tools::{GrantedTool, PluginTools, PluginWorkers, ToolRef, plugin_workers};
pub use registry::{load, registry};
pub use scope::{PlanFile, Scope, ScopeArgs, SharedStore, working_dir};
pub use shared_registry::SharedRegistry;
pub use validation::{Validation, validate};
pub use validators::{Entry, PlanCheck, PlanReport, check_plan};
