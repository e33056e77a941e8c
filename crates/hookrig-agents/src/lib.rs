//! Agents: a provider CLI started on a task of a plan, in its own git worktree, and
//! everything done to it afterwards. This crate owns the providers (the built-in
//! claude, codex, gemini and aider, the `[[providers]]` and `[[agents]]` of
//! config.toml, the selection order and the version probes), the task's worktree and
//! the files provisioned into it, the prompt, the host process that holds a provider's
//! pseudo-terminal and records its exit, the control of recorded agents (list, log,
//! stop, clean), and [`watch_plan`], which keeps agents working on a plan. It claims
//! tasks through hookrig-plan's lifecycle in-process and starts and stops every process
//! through hookrig-exec. It must not parse command lines, print, or choose exit codes
//! (that is the binary's), and must not deliver events to hooks itself: the caller
//! does, from [`SpawnObserver::claimed`] and [`Noticed::Ended`].
//!
//! ```no_run
//! use std::ops::ControlFlow;
//! use std::path::Path;
//!
//! use hookrig_agents::{HostProgram, Spawn, SpawnObserver, SpawnRequest, spawn};
//! use hookrig_plan::lifecycle::Outcome;
//!
//! struct Quiet;
//! impl SpawnObserver for Quiet {
//!     type Stop = ();
//!     fn warning(&mut self, warning: String) {
//!         eprintln!("warning: {warning}");
//!     }
//!     fn claimed(&mut self, _: &Outcome, _: &Path, _: &str) -> ControlFlow<()> {
//!         ControlFlow::Continue(())
//!     }
//! }
//!
//! let request = SpawnRequest {
//!     task: "api".into(),
//!     plan: "/repo/plan.spl".into(),
//!     agent: "coder".into(),
//!     provider: None,
//!     resume: false,
//!     force: false,
//!     store: "/state/ledger.db".into(),
//!     config_home: "/home/me/.config".into(),
//!     host: HostProgram { program: "/usr/bin/hookrig".into(), args: vec!["agent".into(), "__host".into()] },
//! };
//! if let Spawn::Started(spawned) = spawn(&request, &mut Quiet)? {
//!     println!("pid {}", spawned.pid);
//! }
//! # Ok::<(), hookrig_agents::AgentError>(())
//! ```

mod config;
mod control;
mod errors;
mod host;
mod process;
mod prompt;
mod provider;
mod spawn;
mod version;
mod watch;
mod worktree;

pub use control::{AgentStatus, Cleaned, StopReport, Watch, Watched, agents_at, clean, list, stop};
pub use errors::AgentError;
pub use hookrig_exec::Stopped;
pub use host::run_host;
pub use process::State;
pub use provider::{Found, Origin, Reason};
pub use spawn::{HostProgram, Spawn, SpawnObserver, SpawnRequest, Spawned, spawn};
pub use version::{ProviderStatus, Version, list_providers};
pub use watch::{Noticed, PlanWatch, Progress, StopRequest, WatchEnd, WatchObserver, watch_plan};
pub use worktree::Prepared;
