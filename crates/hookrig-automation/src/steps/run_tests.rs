//! `run_tests`: a test command with its failures and test count parsed.
//!
//! Inputs: `command` (default `"pytest"`), `timeout` seconds (default 300),
//! `workspace` (default `"."`), `framework` (`"auto"`, `"pytest"` or `"jest"`).
//! Output: `stdout` (at most 100,000 characters), `stderr` (at most 50,000),
//! `exit_code` (-1 on timeout), `passed` (`exit_code == 0`), `failures` (at most
//! 50 names), `test_count`, `framework`.
//!
//! Both streams are parsed, since jest reports on stderr. Failure names:
//! pytest's `FAILED path::name` (without the ` - message` pytest appends),
//! jest/mocha's `✕ name` (without the `(5 ms)` duration), the generic `FAIL name`;
//! `pytest` looks only for the first kind, `jest` for the second, `auto` for all
//! three. The count: jest's `Tests: … N total`, else the last pytest summary line
//! (`2 failed, 40 passed in 0.3s` → 42, in whichever order pytest prints them).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::shell::run_shell;
use super::{StepEnv, resolve_path, str_field, timeout_field};

/// Characters of stdout kept.
pub const STDOUT_CHARS: usize = 100_000;
/// Characters of stderr kept.
pub const STDERR_CHARS: usize = 50_000;
/// Seconds before the suite is killed.
pub const DEFAULT_TIMEOUT_SECS: u64 = 300;
/// The most failure names reported.
pub const MAX_FAILURES: usize = 50;

macro_rules! pattern {
    ($name:ident, $re:literal) => {
        static $name: LazyLock<Regex> =
            LazyLock::new(|| Regex::new($re).expect("a constant pattern"));
    };
}

pattern!(PYTEST_FAILED, r"^\s*FAILED\s+(.+?)(?:\s+-\s.*)?\s*$");
pattern!(
    JEST_FAILED,
    r"^\s*✕\s+(.+?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?\s*$"
);
pattern!(GENERIC_FAIL, r"^\s*FAIL\s+(.+?)\s*$");
pattern!(JEST_TOTAL, r"^\s*Tests:.*?(\d+)\s+total");
pattern!(PYTEST_COUNT, r"(\d+)\s+(passed|failed)\b");

pub(crate) async fn run(step: &Value, env: &StepEnv) -> Result<Map<String, Value>, String> {
    let command = str_field(step, "command", "pytest")?;
    let timeout = timeout_field(step, DEFAULT_TIMEOUT_SECS)?;
    let workspace = resolve_path(&env.workspace, &str_field(step, "workspace", ".")?);
    let framework = str_field(step, "framework", "auto")?;
    let framework = match framework.as_str() {
        "auto" | "pytest" | "jest" => framework,
        other => {
            return Err(format!(
                "`framework` must be \"auto\", \"pytest\" or \"jest\", not {other:?}"
            ));
        }
    };
    let mut result = run_shell(&command, &workspace, timeout, (STDOUT_CHARS, STDERR_CHARS)).await?;
    let text = |key: &str| {
        result
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let output = format!("{}\n{}", text("stdout"), text("stderr"));
    let exit_code = result
        .get("exit_code")
        .and_then(Value::as_i64)
        .unwrap_or(-1);
    let failures = failures(&output, &framework);
    let test_count = test_count(&output, &framework);
    result.insert("passed".to_owned(), Value::Bool(exit_code == 0));
    result.insert("failures".to_owned(), Value::from(failures));
    result.insert("test_count".to_owned(), Value::from(test_count));
    result.insert("framework".to_owned(), Value::String(framework));
    Ok(result)
}

/// The failing tests' names, in output order, each once, at most [`MAX_FAILURES`].
pub fn failures(output: &str, framework: &str) -> Vec<String> {
    let patterns: &[&Regex] = match framework {
        "pytest" => &[&PYTEST_FAILED],
        "jest" => &[&JEST_FAILED],
        _ => &[&PYTEST_FAILED, &JEST_FAILED, &GENERIC_FAIL],
    };
    let mut names: Vec<String> = Vec::new();
    for line in output.lines() {
        if names.len() >= MAX_FAILURES {
            break;
        }
        let found = patterns
            .iter()
            .find_map(|pattern| pattern.captures(line).map(|caps| caps[1].to_owned()));
        if let Some(name) = found
            && !names.contains(&name)
        {
            names.push(name);
        }
    }
    names
}

/// How many tests the output's summary reports; 0 when it has none.
pub fn test_count(output: &str, framework: &str) -> u64 {
    let jest = || {
        output.lines().rev().find_map(|line| {
            JEST_TOTAL
                .captures(line)
                .and_then(|caps| caps[1].parse::<u64>().ok())
        })
    };
    let pytest = || {
        output
            .lines()
            .rev()
            .filter(|line| !JEST_TOTAL.is_match(line))
            .find(|line| PYTEST_COUNT.is_match(line))
            .map(|line| {
                PYTEST_COUNT
                    .captures_iter(line)
                    .filter_map(|caps| caps[1].parse::<u64>().ok())
                    .sum()
            })
    };
    match framework {
        "pytest" => pytest(),
        "jest" => jest(),
        _ => jest().or_else(pytest),
    }
    .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use test_case::test_case;

    use super::*;

    #[test_case("===== 2 failed, 40 passed in 0.30s =====", "pytest", 42 ; "failed first")]
    #[test_case("40 passed, 2 failed in 0.3s", "auto", 42 ; "passed first")]
    #[test_case("5 passed", "auto", 5 ; "only passed")]
    #[test_case("==== 1 failed, 3 passed, 2 skipped, 1 warning in 1.2s ====", "auto", 4 ; "skipped and warnings are not counted")]
    #[test_case("Tests:       1 failed, 4 passed, 5 total", "auto", 5 ; "jest total")]
    #[test_case("Tests:       1 failed, 4 passed, 5 total", "jest", 5 ; "jest total with jest hint")]
    #[test_case("Tests:       1 failed, 4 passed, 5 total", "pytest", 0 ; "pytest hint ignores jest summary")]
    #[test_case("3 passed\nlater: 7 passed, 1 failed", "auto", 8 ; "last summary line wins")]
    #[test_case("nothing here", "auto", 0 ; "no summary")]
    fn counts(output: &str, framework: &str, expected: u64) {
        assert_eq!(test_count(output, framework), expected);
    }

    #[test]
    fn failure_names_by_framework() {
        let output = "FAILED tests/a.py::test_x - assert 1 == 2\n  ✕ adds numbers (5 ms)\nFAIL src/b.test.js\nFAILED tests/a.py::test_x - again\nFAILURES\n";
        assert_eq!(
            failures(output, "auto"),
            ["tests/a.py::test_x", "adds numbers", "src/b.test.js"]
        );
        assert_eq!(failures(output, "pytest"), ["tests/a.py::test_x"]);
        assert_eq!(failures(output, "jest"), ["adds numbers"]);
    }

    #[test]
    fn at_most_fifty_failures() {
        let output = (0..80)
            .map(|i| format!("FAILED t.py::test_{i}"))
            .collect::<Vec<_>>()
            .join("\n");
        let names = failures(&output, "auto");
        assert_eq!(names.len(), MAX_FAILURES);
        assert_eq!(names[49], "t.py::test_49");
    }
}
