//! Agents: a provider CLI started on a task of a plan, in its own git worktree.
//!
//! `hookrig agent spawn` picks the provider ([`provider`]), claims the task, prepares the
//! worktree and its provisioned files ([`worktree`]), builds the prompt ([`prompt`]) and
//! starts the provider detached under a small host process ([`host`]) that holds its
//! pseudo-terminal when keystrokes are injected, and waits for it to record its exit.
//! [`process`] says whether a recorded agent still runs and stops its process group.

pub(crate) mod errors;
pub(crate) mod host;
pub(crate) mod process;
pub(crate) mod prompt;
pub(crate) mod provider;
pub(crate) mod worktree;

pub(crate) use errors::AgentError;
