//! Board formatters: `hookrig plan board --format NAME` runs the program
//! `hookrig-board-NAME` (or `hence-board-NAME`, or a plugin package's formatter NAME)
//! with the board JSON on stdin, and prints what it prints.

use std::ffi::{OsStr, OsString};
use std::time::Duration;

use hookrig_exec::{Capture, Command, Stderr, Termination};

use crate::errors::RuntimeError;
use crate::programs::{Lookup, PackageFiles, Programs};
use crate::scope::Scope;

/// The prefixes of board formatter programs, hookrig's first.
const PREFIXES: [&str; 2] = ["hookrig-board-", "hence-board-"];

/// How long a board formatter may run before it is stopped with its process group.
///
/// A formatter renders a board that is already computed, which takes well under a second
/// even for a plan of thousands of tasks; 30 s leaves room for one that starts a slow
/// interpreter or calls a renderer such as Graphviz on a loaded machine, and is still
/// short enough that a formatter waiting for input that never comes fails while the user
/// is looking at the prompt. docs/plans.md documents it.
pub const FORMATTER_TIMEOUT: Duration = Duration::from_secs(30);

/// Between SIGTERM and SIGKILL for a formatter that ran out of time.
const GRACE: Duration = Duration::from_secs(1);

/// The most a formatter may print: far more than any board, small enough to hold.
const OUTPUT_CAP: usize = 64 << 20;

/// Runs the formatter `name` of the scope (found in `PATH`, `plugin_path`, then the
/// plugin packages enabled for the scope's agent) with `board` on stdin, in the scope's
/// working directory with the scope's variables, under [`FORMATTER_TIMEOUT`]; returns
/// what it printed (not necessarily UTF-8). Packages whose formatters are not available
/// and processes the formatter left behind are told to `warn` as they are met.
pub fn format_board(
    scope: &Scope,
    name: &str,
    board: Vec<u8>,
    warn: &mut dyn FnMut(String),
) -> Result<Vec<u8>, RuntimeError> {
    let programs = Programs::named(&PREFIXES)
        .with_path()
        .with_plugin_path(scope)?
        .with_packages(scope, PackageFiles::Formatters)?;
    for warning in &programs.warnings {
        warn(warning.clone());
    }
    let path = match programs.find(OsStr::new(name)) {
        Lookup::Found(path) => path,
        Lookup::NotExecutable(path) => {
            return Err(RuntimeError::FormatterNotExecutable {
                name: name.to_owned(),
                path,
            });
        }
        Lookup::Missing => {
            return Err(RuntimeError::UnknownFormat {
                name: name.to_owned(),
                found: programs.all().into_keys().collect(),
            });
        }
    };
    run(scope, name, &path, board, FORMATTER_TIMEOUT, warn)
}

/// Runs the formatter at `path` with `board` on stdin and returns its stdout. Its stderr
/// is hookrig's, so its own error messages reach the user. It runs in a process group of
/// its own, stopped with everything it started when it runs out of `timeout`.
fn run(
    scope: &Scope,
    name: &str,
    path: &std::path::Path,
    board: Vec<u8>,
    timeout: Duration,
    warn: &mut dyn FnMut(String),
) -> Result<Vec<u8>, RuntimeError> {
    let mut command = Command::exec(path, Vec::<OsString>::new(), scope.cwd().to_owned());
    for (variable, value) in scope.child_env() {
        command = command.env(variable, value.to_string_lossy().as_ref());
    }
    let output = command.capture_blocking(Capture {
        stdin: board,
        stdout_cap: OUTPUT_CAP,
        stderr: Stderr::Inherit,
        timeout: Some(timeout),
        kill_grace: GRACE,
    });
    if let Some(warning) = output.leftover_warning(&format!("formatter '{name}'")) {
        warn(warning);
    }
    let name = name.to_owned();
    let how = match output.termination {
        Termination::Exited(0) if output.stdout_truncated => {
            return Err(RuntimeError::FormatterOutputTooLarge {
                name,
                cap: OUTPUT_CAP,
            });
        }
        Termination::Exited(0) => return Ok(output.stdout),
        Termination::Exited(code) => format!("exit {code}"),
        Termination::Signaled(signal) => format!("killed by signal {signal}"),
        Termination::Interrupted => "interrupted".to_owned(),
        Termination::TimedOut { after, .. } => {
            return Err(RuntimeError::FormatterTimedOut {
                name,
                path: path.to_owned(),
                after,
            });
        }
        Termination::SpawnFailed(source) => {
            return Err(RuntimeError::FormatterSpawn {
                name,
                path: path.to_owned(),
                source,
            });
        }
    };
    Err(RuntimeError::FormatterFailed { name, how })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Instant;

    use hookrig_config::Environment;

    use super::*;
    use crate::scope::PlanFile;

    #[test]
    fn a_formatter_that_never_exits_is_stopped_with_its_group() {
        // guards: a board formatter that never exits hung `plan board`
        let dir = tempfile::Builder::new()
            .prefix("hookrig-formatter-test-")
            .tempdir()
            .expect("tempdir");
        let marker = dir.path().to_str().expect("UTF-8 temp path").to_owned();
        let sleep = dir.path().join("sleep");
        std::os::unix::fs::symlink("/bin/sleep", &sleep).expect("symlink sleep");
        let path = dir.path().join("hookrig-board-stuck");
        hookrig_test_support::write_executable(
            &path,
            &format!("'{0}' 300 &\n'{0}' 301\n", sleep.display()),
        );
        let home = dir.path().join("home");
        let scope = Scope {
            env: Environment {
                config_home: home.join(".config"),
                state_home: home.join(".local/state"),
                data_home: home.join(".local/share"),
                xcode_home: home.join(".x-code"),
                home,
                cwd: dir.path().to_owned(),
                trust_all: false,
            },
            agent: None,
            plan: Some(PlanFile::new(PathBuf::from("/p/plan.spl"))),
            store: dir.path().join("ledger.db"),
            store_url: None,
            record: false,
            host_env: None,
            ledger_writers: None,
            shared_registry: None,
        };
        let started = Instant::now();
        let error = run(
            &scope,
            "stuck",
            &path,
            b"{}".to_vec(),
            Duration::from_millis(300),
            &mut |_| {},
        )
        .expect_err("timed out");
        assert!(started.elapsed() < Duration::from_secs(20));
        assert_eq!(
            error.to_string(),
            format!(
                "formatter 'stuck' ({}) did not finish within 300ms and was stopped",
                path.display()
            )
        );
        let left = hookrig_test_support::no_leftover(&marker, Duration::from_secs(10));
        hookrig_test_support::kill_all_with(&marker);
        assert!(
            left.is_empty(),
            "processes of the formatter are left: {left:?}"
        );
    }
}
