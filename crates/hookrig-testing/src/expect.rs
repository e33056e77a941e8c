//! Checking what came of an emit against what its case expects: each expectation that
//! does not hold is a [`Mismatch`], with both sides as text for the report's diff.

use serde::Serialize;
use serde_json::Value;

use crate::case::{Expect, ReasonCheck};
use crate::sandbox::Actual;

/// One expectation that did not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// What was checked: `decision`, `reason_contains`, `payload_at /tool_input/command`...
    pub what: String,
    /// The expected value, as text (JSON values pretty-printed).
    pub expected: String,
    /// The actual value, as text; `(none)` when there was none.
    pub actual: String,
}

/// What is shown for a value that is not there.
const NONE: &str = "(none)";

impl Mismatch {
    fn new(
        what: impl Into<String>,
        expected: impl Into<String>,
        actual: impl Into<String>,
    ) -> Self {
        Mismatch {
            what: what.into(),
            expected: expected.into(),
            actual: actual.into(),
        }
    }

    /// The diff of the two sides, unified, each line prefixed `-` (expected) or `+`
    /// (actual), as `cargo test`'s `assert_eq` readers know it.
    pub fn diff(&self) -> String {
        let mut expected = self.expected.clone();
        let mut actual = self.actual.clone();
        // A last line without a newline would be marked as changed for that alone.
        for side in [&mut expected, &mut actual] {
            if !side.ends_with('\n') {
                side.push('\n');
            }
        }
        let diff = similar::TextDiff::from_lines(&expected, &actual);
        let mut text = String::new();
        for change in diff.iter_all_changes() {
            let sign = match change.tag() {
                similar::ChangeTag::Delete => '-',
                similar::ChangeTag::Insert => '+',
                similar::ChangeTag::Equal => ' ',
            };
            text.push(sign);
            text.push_str(change.value());
        }
        text
    }
}

/// Each expectation of `expect` that `actual` does not meet, in the order they are
/// documented.
pub fn check(expect: &Expect, actual: &Actual) -> Vec<Mismatch> {
    let mut found = Vec::new();
    let text = |value: Option<&str>| value.unwrap_or(NONE).to_owned();
    if let Some(decision) = &expect.decision
        && *decision != actual.decision
    {
        found.push(Mismatch::new("decision", decision, &actual.decision));
    }
    if let Some(by) = &expect.decided_by
        && Some(by) != actual.decided_by.as_ref()
    {
        found.push(Mismatch::new(
            "decided_by",
            by,
            text(actual.decided_by.as_deref()),
        ));
    }
    let reason = actual.reason.as_deref();
    for check in &expect.reason {
        let (what, expected, holds) = match check {
            ReasonCheck::Exact(exact) => ("reason", exact.clone(), reason == Some(exact)),
            ReasonCheck::Contains(part) => (
                "reason_contains",
                part.clone(),
                reason.is_some_and(|r| r.contains(part.as_str())),
            ),
            ReasonCheck::Matches(regex) => (
                "reason_matches",
                format!("/{}/", regex.as_str()),
                reason.is_some_and(|r| regex.is_match(r)),
            ),
        };
        if !holds {
            found.push(Mismatch::new(what, expected, text(reason)));
        }
    }
    if let Some(payload) = &expect.payload
        && *payload != actual.payload
    {
        found.push(Mismatch::new(
            "payload",
            pretty(payload),
            pretty(&actual.payload),
        ));
    }
    for (pointer, value) in &expect.payload_at {
        pointed(
            &mut found,
            "payload_at",
            pointer,
            value,
            Some(&actual.payload),
        );
    }
    lines(
        &mut found,
        "context",
        expect.context.as_ref(),
        &actual.context,
    );
    lines(&mut found, "ran", expect.ran.as_ref(), &actual.ran);
    lines(
        &mut found,
        "skipped",
        expect.skipped.as_ref(),
        &actual.skipped,
    );
    if let Some(code) = expect.exit_code
        && code != actual.exit_code
    {
        found.push(Mismatch::new(
            "exit_code",
            code.to_string(),
            actual.exit_code.to_string(),
        ));
    }
    if !expect.stdout.is_empty() {
        let stdout = serde_json::from_str::<Value>(&actual.stdout).ok();
        if stdout.is_none() {
            found.push(Mismatch::new(
                "stdout",
                "a JSON object",
                actual.stdout.trim_end(),
            ));
        } else {
            for (pointer, value) in &expect.stdout {
                pointed(&mut found, "stdout", pointer, value, stdout.as_ref());
            }
        }
    }
    found
}

fn pointed(
    found: &mut Vec<Mismatch>,
    what: &str,
    pointer: &str,
    expected: &Value,
    document: Option<&Value>,
) {
    let actual = document.and_then(|document| document.pointer(pointer));
    if actual != Some(expected) {
        found.push(Mismatch::new(
            format!("{what} {pointer}"),
            pretty(expected),
            actual.map_or_else(|| NONE.to_owned(), pretty),
        ));
    }
}

fn lines(found: &mut Vec<Mismatch>, what: &str, expected: Option<&Vec<String>>, actual: &[String]) {
    if let Some(expected) = expected
        && expected.as_slice() != actual
    {
        found.push(Mismatch::new(what, expected.join("\n"), actual.join("\n")));
    }
}

/// A JSON value as the report shows it: pretty-printed, so that a diff shows the field
/// that differs on a line of its own.
fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn actual() -> Actual {
        Actual {
            decision: "deny".to_owned(),
            decided_by: Some("no-rm".to_owned()),
            reason: Some("rm -rf is not allowed".to_owned()),
            payload: json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}),
            context: vec!["one".to_owned()],
            ran: vec!["no-rm".to_owned()],
            skipped: vec!["log".to_owned()],
            exit_code: 2,
            stdout: r#"{"decision": "block"}"#.to_owned(),
            hook_stderr: Vec::new(),
            held: Vec::new(),
        }
    }

    #[test]
    fn an_expectation_that_holds_is_no_mismatch() {
        let expect = Expect {
            decision: Some("deny".to_owned()),
            decided_by: Some("no-rm".to_owned()),
            reason: vec![
                ReasonCheck::Exact("rm -rf is not allowed".to_owned()),
                ReasonCheck::Contains("rm -rf".to_owned()),
                ReasonCheck::Matches(regex::Regex::new("^rm").expect("a regex")),
            ],
            payload_at: vec![("/tool_input/command".to_owned(), json!("rm -rf /"))],
            context: Some(vec!["one".to_owned()]),
            ran: Some(vec!["no-rm".to_owned()]),
            skipped: Some(vec!["log".to_owned()]),
            exit_code: Some(2),
            stdout: vec![("/decision".to_owned(), json!("block"))],
            ..Expect::default()
        };
        assert_eq!(check(&expect, &actual()), Vec::new());
    }

    #[test]
    fn each_expectation_that_fails_is_named_with_both_sides() {
        let expect = Expect {
            decision: Some("allow".to_owned()),
            reason: vec![ReasonCheck::Matches(
                regex::Regex::new("^ls").expect("a regex"),
            )],
            payload_at: vec![("/tool_input/cmd".to_owned(), json!("ls"))],
            exit_code: Some(0),
            stdout: vec![("/decision".to_owned(), json!("approve"))],
            ..Expect::default()
        };
        let found = check(&expect, &actual());
        let whats: Vec<&str> = found.iter().map(|m| m.what.as_str()).collect();
        assert_eq!(
            whats,
            [
                "decision",
                "reason_matches",
                "payload_at /tool_input/cmd",
                "exit_code",
                "stdout /decision"
            ]
        );
        assert_eq!(found[2].actual, NONE);
        assert_eq!(found[0].diff(), "-allow\n+deny\n");
    }

    #[test]
    fn a_payload_diff_marks_only_the_lines_that_differ() {
        let expect = Expect {
            payload: Some(json!({"tool_name": "Bash", "tool_input": {"command": "ls"}})),
            ..Expect::default()
        };
        let found = check(&expect, &actual());
        insta::assert_snapshot!(found[0].diff());
    }
}
