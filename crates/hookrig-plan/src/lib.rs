//! Plans and tasks of hookrig, compatible with Hence: the SPL reader and printer
//! ([`spl`]), a defeasible-logic reasoner ([`reasoner`]), the plan model with task
//! states and the statements each task action appends ([`plan`]), the board JSON
//! ([`board`]) with its built-in text formats ([`render`]), the built-in checks of
//! `plan validate` ([`validate`]), and the plan lifecycle ([`lifecycle`]): a task
//! action performed on a plan file under its lock, with the lifecycle events it
//! produced. It must not run hooks, depend on a hookrig crate other than hookrig-core,
//! or know the command line: the caller delivers the events [`lifecycle::apply`]
//! returns.
//!
//! Only [`lifecycle`] does I/O (it reads, locks and appends to the plan file); the
//! parser, reasoner and plan model are pure.
//!
//! ```no_run
//! use std::path::Path;
//! use hookrig_plan::{board::Board, plan::Plan, spl};
//!
//! let path = Path::new("plan.spl");
//! let text = std::fs::read_to_string(path).unwrap();
//! let statements = spl::parse(path, &text).unwrap();
//! let plan = Plan::new(&statements);
//! let board = Board::new("plan.spl", &plan);
//! println!("{}", serde_json::to_string_pretty(&board).unwrap());
//! ```

pub mod board;
mod errors;
pub mod lifecycle;
mod names;
pub mod plan;
pub mod reasoner;
pub mod render;
pub mod spl;
pub mod validate;

pub use errors::{ActionError, LifecycleError, SplError};
