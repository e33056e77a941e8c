//! Test helpers for hookrig: a [`TestEnv`] that gives each test its own temporary home,
//! XDG directories, `PATH` entry for fixture scripts and project (a directory holding
//! `.git`), runs a binary inside it with a clean environment, and finds processes a test
//! left behind by a marker in their command line.
//!
//! The crate knows nothing about the `hookrig` binary: the test that uses it passes the
//! binary's path (`env!("CARGO_BIN_EXE_hookrig")`), so this crate does not depend on the
//! CLI crate and can serve every crate's tests.
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

mod processes;
mod runner;
mod test_env;

pub use processes::{kill_all_with, no_leftover, processes_with};
pub use runner::{HANG_LIMIT, run_with_input, wait_for_file};
pub use test_env::TestEnv;
