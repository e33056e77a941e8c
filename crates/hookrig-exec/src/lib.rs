//! Child processes and hook handlers for hookrig: spawning processes, writing the event
//! to stdin, bounded capture of stdout and stderr, timeouts that kill the whole process
//! group, and the command and HTTP handlers. It owns what a hook runs ([`CommandDef`])
//! and the [`Protocol`] trait through which a dialect presents an event and reads the
//! reply; it must not know any dialect's rules (those live in hookrig-dialects) nor read
//! configuration files.
//!
//! ```no_run
//! use std::sync::Arc;
//! use hookrig_exec::{CommandDef, CommandHandler, Limits, ProcessGroups, Protocol};
//!
//! # fn handler(protocol: Arc<dyn Protocol>) {
//! let groups = ProcessGroups::new();
//! let handler = CommandHandler::new(
//!     "guard",
//!     CommandDef::Shell { line: "./guard.sh".into(), script: Some("/repo/.hookrig/guard.sh".into()) },
//!     Vec::new(),
//!     Limits::default(),
//!     protocol, // the hook's dialect
//!     groups.clone(),
//! );
//! // `handler` implements `hookrig_core::Handler`; register it with a `HookSpec`.
//! # let _ = handler;
//! # }
//! ```

mod command;
pub mod groups;
mod http;
mod pool;
pub mod process;
mod protocol;
mod reaper;
mod script;
mod unix;

pub use command::{CommandDef, CommandHandler, Limits};
pub use groups::ProcessGroups;
pub use http::HttpHandler;
pub use pool::{AsyncPool, Drained};
pub use process::{EnvPolicy, ProcessOutput, ProcessSpec, Termination, run_process};
pub use protocol::{Protocol, read_reply};
pub use reaper::{Guardian, Leftovers};
pub use script::executable_problem as script_problem;
