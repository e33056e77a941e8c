//! Running a suite: the cases a filter selects, on a bounded pool of threads, each
//! emitted in the sandbox and checked; the report lists them in file order whatever
//! order they finished in.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::case::Case;
use crate::discover::Suite;
use crate::expect;
use crate::report::{CaseReport, HookStderr, Report, Status, shown};
use crate::sandbox::Sandbox;

/// How a suite is run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Only the cases whose id (`FILE::NAME`) contains this text.
    pub filter: Option<String>,
    /// How many cases run at once; 0 for one per core.
    pub jobs: usize,
}

impl RunOptions {
    /// The number of threads to run on.
    fn threads(&self, cases: usize) -> usize {
        let jobs = if self.jobs == 0 {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        } else {
            self.jobs
        };
        jobs.clamp(1, cases.max(1))
    }
}

/// Runs the cases of `suite` that `options` selects in `sandbox`. Paths in the report
/// are shown relative to `cwd` where they are under it.
pub fn run(suite: &Suite, options: &RunOptions, sandbox: &Sandbox, cwd: &Path) -> Report {
    let selected: Vec<&Case> = suite
        .cases
        .iter()
        .filter(|case| {
            options
                .filter
                .as_deref()
                .is_none_or(|filter| case.id.contains(filter))
        })
        .collect();
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<CaseReport>>> = Mutex::new(vec![None; selected.len()]);
    std::thread::scope(|scope| {
        for _ in 0..options.threads(selected.len()) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = selected.get(index) else {
                        break;
                    };
                    let report = run_case(case, sandbox, cwd);
                    done.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)[index] = Some(report);
                }
            });
        }
    });
    let cases = done
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .into_iter()
        .flatten()
        .collect();
    Report::new(
        cases,
        suite
            .errors
            .iter()
            .map(|d| shown_diagnostic(d, cwd))
            .collect(),
        suite
            .warnings
            .iter()
            .map(|d| shown_diagnostic(d, cwd))
            .collect(),
    )
}

/// Emits one case and checks it.
pub fn run_case(case: &Case, sandbox: &Sandbox, cwd: &Path) -> CaseReport {
    let started = Instant::now();
    let emitted = sandbox.emit(case);
    let duration_ms = hookrig_core::duration_ms(started.elapsed());
    let mut report = CaseReport {
        id: case.id.clone(),
        place: format!("{}:{}:{}", shown(&case.file, cwd), case.line, case.col),
        status: Status::Pass,
        duration_ms,
        mismatches: Vec::new(),
        error: None,
        hook_stderr: Vec::new(),
    };
    match emitted {
        Ok(actual) => {
            report.mismatches = expect::check(&case.expect, &actual);
            if !report.mismatches.is_empty() {
                report.status = Status::Fail;
            }
            report.hook_stderr = actual
                .hook_stderr
                .into_iter()
                .map(|(hook, stderr)| HookStderr { hook, stderr })
                .collect();
        }
        Err(error) => {
            report.status = Status::Error;
            report.error = Some(error);
        }
    }
    report
}

/// A diagnostic as the report shows it: its path relative to `cwd`.
fn shown_diagnostic(diagnostic: &hookrig_core::Diagnostic, cwd: &Path) -> String {
    let mut shown_one = diagnostic.clone();
    shown_one.path = shown(&diagnostic.path, cwd).into();
    shown_one.to_string()
}
