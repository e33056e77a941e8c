//! Test helpers shared by every hookrig crate's tests. It must not be a normal
//! dependency of any crate (tests and benches only) and depends on no hookrig crate. It
//! owns:
//!
//! - a [`TestEnv`] that gives each test its own temporary home, XDG directories, `PATH`
//!   entry for fixture scripts and project (a directory holding `.git`), and runs a
//!   binary inside it with a clean environment;
//! - [`HttpStub`], a loopback HTTP server that records requests and answers with
//!   [`Reply`]s, and [`refused_url`] for a port nothing listens on;
//! - process scanning: [`processes_with`] a marker in their command line,
//!   [`no_leftover`], [`kill_all_with`], [`is_alive`];
//! - [`Recorder`], a list that handlers append to and the test reads back;
//! - [`TestDatabase`], a PostgreSQL database of its own for a test, on the cluster
//!   `HOOKRIG_TEST_POSTGRES` names (the test skips itself where it is unset);
//! - [`git()`] with a fixed identity and no user configuration, and [`write_executable`]
//!   for fixture scripts outside a [`TestEnv`].
//!
//! The crate depends on no hookrig crate (the test that runs a binary passes its path,
//! `env!("CARGO_BIN_EXE_hookrig")`), so any crate can take it as a dev-dependency, unit
//! tests included, without a dependency cycle.
//!
//! ```no_run
//! use hookrig_test_support::TestEnv;
//!
//! let env = TestEnv::new("/path/to/hookrig");
//! env.write_script(".hookrig/guard.sh", "exit 2");
//! env.write_project_config(
//!     r#"
//!     [[hooks]]
//!     name = "guard"
//!     events = ["tool.before"]
//!     command = "./guard.sh"
//!     "#,
//! );
//! let output = env.run(["emit", "tool.before"], b"{}");
//! assert_eq!(output.status.code(), Some(2));
//! assert!(env.leftovers().is_empty());
//! ```

mod git;
mod http;
mod postgres;
mod processes;
mod recorder;
mod runner;
mod test_env;

pub use git::git;
pub use http::{HttpStub, Reply, Request, refused_url};
pub use postgres::{POSTGRES_VAR, TestDatabase};
pub use processes::{is_alive, kill_all_with, no_leftover, processes_with};
pub use recorder::Recorder;
pub use runner::{HANG_LIMIT, run_with_input, wait_for_file, wait_until};
pub use test_env::{TestEnv, write_executable};
