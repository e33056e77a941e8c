//! hookrig's hook tests: test files of cases (an event, its payload, what must come of
//! it), run in a sandbox in parallel, reported as text, JSON or JUnit XML.
//!
//! It owns the test file format ([`case`]: `.hookrig/tests/*.toml` and
//! `$XDG_CONFIG_HOME/hookrig/tests/*.toml`, found by [`discover()`]), the [`Sandbox`]
//! (a temporary ledger, the project's hooks trusted for the run only), the runner
//! ([`run`]: a bounded pool of threads), the [`Report`] with its renderings, and the
//! writing of a case that pins what today's hooks answer ([`pin()`], `hookrig test --new`),
//! and the replay of the ledger's emits against today's config ([`replay()`]). Each
//! case is emitted through hookrig-runtime exactly as `hookrig emit` emits for a host.
//! It does not parse argv, print or choose exit codes. It is a crate of its own so that
//! its dependencies (regex, similar) stay out of the runtime every emit loads.
//!
//! ```no_run
//! use hookrig_testing::{RunOptions, Sandbox, discover, run};
//!
//! let env = hookrig_config::Environment::from_process(std::env::current_dir()?)?;
//! let suite = discover(&env)?;
//! let sandbox = Sandbox::new(std::env::vars_os().collect())?;
//! let report = run(&suite, &RunOptions::default(), &sandbox, &env.cwd);
//! print!("{}", report.text());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod case;
mod discover;
mod errors;
mod expect;
mod junit;
mod pin;
mod replay;
mod report;
mod runner;
mod sandbox;

pub use case::{Case, Expect, ReasonCheck};
pub use discover::{PROJECT_TESTS, Suite, discover, project_tests, read_file, user_tests};
pub use errors::TestingError;
pub use expect::{Mismatch, check};
pub use junit::{junit, write_junit};
pub use pin::{DEFAULT_FILE, NewCase, Pinned, pin};
pub use replay::{Decision, Replay, ReplayOptions, Replayed, replay};
pub use report::{CaseReport, HookStderr, Report, Status};
pub use runner::{RunOptions, run, run_case};
pub use sandbox::{Actual, Sandbox};
