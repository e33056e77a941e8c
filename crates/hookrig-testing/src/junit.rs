//! The report as JUnit XML, the format CI systems read test results from: one
//! `<testsuite>` per test file, one `<testcase>` per case, a `<failure>` holding the
//! same text the report prints for it, an `<error>` for a case that could not run.
//!
//! Written by hand: the format needs a few elements and attribute escaping, and a JUnit
//! crate would bring an XML writer and a date library into the build for that.

use std::fmt::Write;

use crate::errors::TestingError;
use crate::report::{CaseReport, Report, Status};

/// Writes `report` as JUnit XML to the file at `path`.
pub fn write_junit(report: &Report, path: &std::path::Path) -> Result<(), TestingError> {
    std::fs::write(path, junit(report)).map_err(|err| TestingError::Write(path.to_owned(), err))
}

/// `report` as a JUnit XML document.
pub fn junit(report: &Report) -> String {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"hookrig\" tests=\"{}\" failures=\"{}\" errors=\"{}\">",
        report.cases.len() + report.invalid.len(),
        report.failed,
        report.errors
    );
    // Cases come in file order, so the cases of one file are next to each other.
    let mut start = 0;
    while start < report.cases.len() {
        let file = suite_of(&report.cases[start]);
        let end = report.cases[start..]
            .iter()
            .position(|case| suite_of(case) != file)
            .map_or(report.cases.len(), |offset| start + offset);
        suite(&mut xml, file, &report.cases[start..end]);
        start = end;
    }
    if !report.invalid.is_empty() {
        let _ = writeln!(
            xml,
            "  <testsuite name=\"invalid\" tests=\"{0}\" failures=\"0\" errors=\"{0}\">",
            report.invalid.len()
        );
        for invalid in &report.invalid {
            let _ = writeln!(
                xml,
                "    <testcase name=\"{}\" classname=\"invalid\">\n      <error message=\"{}\"/>\n    </testcase>",
                escape(invalid.split(": ").next().unwrap_or(invalid)),
                escape(invalid)
            );
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

/// The test file a case belongs to: the `FILE` of its id.
fn suite_of(case: &CaseReport) -> &str {
    case.id.split("::").next().unwrap_or_default()
}

fn suite(xml: &mut String, name: &str, cases: &[CaseReport]) {
    let count = |status| cases.iter().filter(|case| case.status == status).count();
    let time: f64 = cases.iter().map(|case| case.duration_ms).sum::<f64>() / 1000.0;
    let _ = writeln!(
        xml,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{time:.3}\">",
        escape(name),
        cases.len(),
        count(Status::Fail),
        count(Status::Error)
    );
    for case in cases {
        let case_name = case
            .id
            .split_once("::")
            .map_or(case.id.as_str(), |(_, n)| n);
        let _ = write!(
            xml,
            "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\"",
            escape(case_name),
            escape(name),
            case.duration_ms / 1000.0
        );
        match case.status {
            Status::Pass => xml.push_str("/>\n"),
            Status::Fail => {
                let mut body = String::new();
                for mismatch in &case.mismatches {
                    let _ = writeln!(body, "{}:\n{}", mismatch.what, mismatch.diff());
                }
                for stderr in &case.hook_stderr {
                    let _ = writeln!(body, "stderr of hook `{}`:\n{}", stderr.hook, stderr.stderr);
                }
                let _ = write!(
                    xml,
                    ">\n      <failure message=\"{} expectation{} not met at {}\">{}</failure>\n    </testcase>\n",
                    case.mismatches.len(),
                    if case.mismatches.len() == 1 { "" } else { "s" },
                    escape(&case.place),
                    escape(&body)
                );
            }
            Status::Error => {
                let _ = write!(
                    xml,
                    ">\n      <error message=\"{}\"/>\n    </testcase>\n",
                    escape(case.error.as_deref().unwrap_or_default())
                );
            }
        }
    }
    xml.push_str("  </testsuite>\n");
}

/// `text` with XML's special characters escaped, and the control characters XML 1.0
/// cannot hold at all dropped (a hook's stderr may have any byte).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}
