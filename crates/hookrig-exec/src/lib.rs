//! Every child process of hookrig, through one spawn API, and the command hooks built on
//! it: spawning processes, writing the event to stdin, bounded capture of stdout and
//! stderr, timeouts that kill the whole process group, and the command and HTTP handlers.
//! It must not read configuration files, know any dialect's rules or any command of the
//! binary: it runs what it is given.
//!
//! A [`Command`] describes any child (what runs, where, with which environment); it is
//! captured ([`Command::capture`]: hooks, validators, steps, provider probes, board
//! formatters, git), run on the terminal ([`Command::run_inherited`]: external
//! commands), started detached ([`Command::spawn_detached`]: agents) or on a
//! pseudo-terminal (`Command::spawn_in_pty`, feature `pty`). Every process group is
//! stopped the same way, SIGTERM, a grace period, SIGKILL; a [`Job`] is the handle to a
//! group hookrig does not wait for itself, re-created from its recorded id. The
//! [`keeper`] is the detached hookrig to which a one-shot emit hands its async hooks, so
//! that it can exit once its host has the answer.
//!
//! A hook's dialect is a [`Protocol`]: how an event is presented to the hook and how
//! its reply is read. This crate owns what a hook runs ([`CommandDef`]) and that trait,
//! but no dialect's rules (those live in hookrig-dialects).
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

mod child;
mod command;
mod detached;
mod foreground;
pub mod groups;
pub mod guardian;
mod http;
mod job;
pub mod keeper;
mod pool;
pub mod process;
mod protocol;
#[cfg(feature = "pty")]
mod pty;
mod reaper;
mod script;
mod unix;
pub mod worker;

pub use child::{Capture, Command, Exit, Program, Stderr};
pub use command::{CommandDef, CommandHandler, Limits};
pub use detached::{Detached, DetachedChild, Grouping, Stream};
pub use groups::ProcessGroups;
pub use http::HttpHandler;
pub use job::{Job, Stopped};
pub use pool::{AsyncPool, Drained};
pub use process::{
    EnvPolicy, ProcessOutput, ProcessSpec, SpawnError, SpawnErrorKind, Termination, run_process,
};
pub use protocol::{Protocol, read_reply};
#[cfg(feature = "pty")]
pub use pty::{PtyChild, PtyWriter, TerminalSize};
pub use reaper::Leftovers;
pub use script::{Probe, executable_problem as script_problem, probe};
pub use worker::{Answered, Services, WorkerHandler, WorkerKey, WorkerSpec};
