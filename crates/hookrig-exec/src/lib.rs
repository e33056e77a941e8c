//! Command hooks for hookrig: spawning processes, writing the event to stdin, bounded
//! capture of stdout and stderr, timeouts that kill the whole process group, and the
//! dialect protocols that present events and read replies.
//!
//! ```no_run
//! use hookrig_config::CommandDef;
//! use hookrig_config::ProtocolDef;
//! use hookrig_exec::{CommandHandler, Limits, ProcessGroups};
//!
//! let groups = ProcessGroups::new();
//! let handler = CommandHandler::new(
//!     "guard",
//!     CommandDef::Shell { line: "./guard.sh".into(), script: Some("/repo/.hookrig/guard.sh".into()) },
//!     Vec::new(),
//!     Limits::default(),
//!     ProtocolDef::Native,
//!     groups.clone(),
//! );
//! // `handler` implements `hookrig_core::Handler`; register it with a `HookSpec`.
//! # let _ = handler;
//! ```

mod claude;
mod command;
pub mod groups;
mod hence;
mod http;
mod hygge;
mod native;
mod pool;
pub mod process;
mod protocol;
mod reaper;
mod script;
mod unix;
mod xcode;

pub use command::{CommandHandler, Limits};
pub use groups::ProcessGroups;
pub use http::HttpHandler;
pub use pool::{AsyncPool, Drained};
pub use process::{EnvPolicy, ProcessOutput, ProcessSpec, Termination, run_process};
pub use reaper::{Guardian, Leftovers};
pub use script::executable_problem as script_problem;
