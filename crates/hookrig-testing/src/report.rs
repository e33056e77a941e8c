//! The report of a test run: one entry per case in file order, the files and cases that
//! could not run, and the text `hookrig test` prints, in the style of nextest (a line per
//! case, then each failure with its diff and the hooks' stderr, then a summary).
//!
//! Its JSON (`hookrig test --json`) is this type serialized; [`crate::junit`] writes it
//! as JUnit XML.

use std::fmt::Write;
use std::path::Path;

use serde::Serialize;

use crate::expect::Mismatch;

/// What came of one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every expectation held.
    Pass,
    /// An expectation did not hold.
    Fail,
    /// The emit failed before any hook decided.
    Error,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Error => "ERROR",
        }
    }
}

/// What a hook wrote on stderr.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookStderr {
    /// The hook's name.
    pub hook: String,
    /// What it wrote (the start of it, up to the capture cap).
    pub stderr: String,
}

/// One case's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseReport {
    /// `FILE::NAME`.
    pub id: String,
    /// `path:line:col` of the case.
    pub place: String,
    /// Pass, fail or error.
    pub status: Status,
    /// How long its emit took, in milliseconds.
    pub duration_ms: f64,
    /// The expectations that did not hold.
    pub mismatches: Vec<Mismatch>,
    /// Why the emit failed, for an error.
    pub error: Option<String>,
    /// What the hooks wrote on stderr.
    pub hook_stderr: Vec<HookStderr>,
}

/// The report of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed.
    pub failed: usize,
    /// Cases whose emit failed, plus cases and files that could not be read.
    pub errors: usize,
    /// Each case run, in file order.
    pub cases: Vec<CaseReport>,
    /// Cases and files left out, as `path:line:col: message`.
    pub invalid: Vec<String>,
    /// Warnings about the test files (unknown keys).
    pub warnings: Vec<String>,
}

impl Report {
    /// The report of `cases`, with `invalid` cases and files and `warnings`.
    pub fn new(cases: Vec<CaseReport>, invalid: Vec<String>, warnings: Vec<String>) -> Report {
        let count = |status| cases.iter().filter(|case| case.status == status).count();
        Report {
            passed: count(Status::Pass),
            failed: count(Status::Fail),
            errors: count(Status::Error) + invalid.len(),
            cases,
            invalid,
            warnings,
        }
    }

    /// Whether everything ran and passed.
    pub fn success(&self) -> bool {
        self.failed == 0 && self.errors == 0
    }

    /// The text `hookrig test` prints.
    pub fn text(&self) -> String {
        let mut text = String::new();
        for warning in &self.warnings {
            let _ = writeln!(text, "warning: {warning}");
        }
        let _ = writeln!(
            text,
            "    Starting {} case{}",
            self.cases.len(),
            plural(self.cases.len())
        );
        for case in &self.cases {
            let _ = writeln!(text, "{:>12} {}", case.status.label(), case.id);
        }
        for invalid in &self.invalid {
            let _ = writeln!(text, "{:>12} {invalid}", "INVALID");
        }
        if self.cases.is_empty() && self.invalid.is_empty() {
            text.push_str(
                "no case ran: none in .hookrig/tests/ or $XDG_CONFIG_HOME/hookrig/tests/ (or none \
                 the filter matches); `hookrig test --new EVENT < payload.json` writes one\n",
            );
        }
        let failures: Vec<&CaseReport> = self
            .cases
            .iter()
            .filter(|case| case.status != Status::Pass)
            .collect();
        for case in &failures {
            failure(&mut text, case);
        }
        if !failures.is_empty() {
            text.push_str("------------\n");
        }
        let _ = writeln!(
            text,
            "     Summary {} case{} run: {} passed, {} failed, {} error{}",
            self.cases.len(),
            plural(self.cases.len()),
            self.passed,
            self.failed,
            self.errors,
            plural(self.errors)
        );
        text
    }
}

/// One failure's section: where the case is, each expectation with its diff, the
/// hooks' stderr.
fn failure(text: &mut String, case: &CaseReport) {
    let _ = writeln!(text, "\n--- {} {}", case.status.label(), case.id);
    let _ = writeln!(text, "  at {}", case.place);
    if let Some(error) = &case.error {
        let _ = writeln!(text, "  emit failed: {error}");
    }
    for mismatch in &case.mismatches {
        let _ = writeln!(text, "  {} (- expected, + actual):", mismatch.what);
        for line in mismatch.diff().lines() {
            let _ = writeln!(text, "    {line}");
        }
    }
    for stderr in &case.hook_stderr {
        let _ = writeln!(text, "  stderr of hook `{}`:", stderr.hook);
        for line in stderr.stderr.lines() {
            let _ = writeln!(text, "    | {line}");
        }
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// `path` relative to `cwd` when it is under it, else as it is.
pub(crate) fn shown(path: &Path, cwd: &Path) -> String {
    path.strip_prefix(cwd).unwrap_or(path).display().to_string()
}
