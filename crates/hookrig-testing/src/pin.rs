//! `hookrig test --new`: a case written from an event, with the answer today's hooks
//! give it as the expectation, so that one command pins current behaviour.
//!
//! The event is emitted in a [`Sandbox`] as `hookrig test` would emit the case, and the
//! case is appended to a test file of the project's `.hookrig/tests/` (made when there is
//! none, beside the nearest `.hookrig/`, else in the working directory). The payload is written as a string of JSON, which a case accepts as it accepts
//! a table, so that any payload (`null`s, keys TOML would need to quote) reads back as
//! it was.

use std::ffi::OsString;
use std::fmt::Write;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use hookrig_config::Environment;
use hookrig_core::Dialect;
use hookrig_store::EmitRecord;
use serde_json::Value;

use crate::case::{self, Case, Expect};
use crate::discover::{PROJECT_TESTS, project_tests};
use crate::errors::TestingError;
use crate::sandbox::{Actual, Sandbox};

/// The test file a new case goes to when none is named.
pub const DEFAULT_FILE: &str = "pinned.toml";

/// An event to write a case from.
#[derive(Debug, Clone)]
pub struct NewCase {
    /// The event, in any dialect's spelling.
    pub event: String,
    /// The host's dialect, in which `payload` is its input.
    pub dialect: Dialect,
    /// The host's input.
    pub payload: Value,
    /// The agent emitting.
    pub agent: Option<String>,
    /// The case's name; `EVENT-N` when `None`.
    pub name: Option<String>,
    /// The test file's name in `.hookrig/tests/`; [`DEFAULT_FILE`] when `None`.
    pub file: Option<String>,
}

impl NewCase {
    /// A case from an emit recorded in the ledger: its event and the payload it came
    /// with (the canonical payload, so the case speaks `native`).
    pub fn from_run(run: &EmitRecord) -> Result<NewCase, TestingError> {
        let payload = serde_json::from_str(&run.payload_in)
            .map_err(|err| TestingError::Payload(err.to_string()))?;
        Ok(NewCase {
            event: run.event.clone(),
            dialect: Dialect::Native,
            payload,
            agent: run.agent.clone(),
            name: None,
            file: None,
        })
    }
}

/// The case written.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Pinned {
    /// The test file it was appended to.
    pub path: PathBuf,
    /// Its name.
    pub name: String,
    /// The text appended.
    pub text: String,
}

/// Emits `new` in the project of `env` (hooks starting from `base_env`) and appends a
/// case expecting what came of it to the project's test file.
pub fn pin(
    env: &Environment,
    base_env: Vec<(OsString, OsString)>,
    new: &NewCase,
) -> Result<Pinned, TestingError> {
    if !new.payload.is_object() {
        return Err(TestingError::Payload(format!("got {}", new.payload)));
    }
    // Beside the project's nearest `.hookrig/` (its hooks.toml, say), else in the
    // working directory: not at the repository's root, which may hold many projects.
    let (dir, base) = project_tests(env).unwrap_or_else(|| {
        let base = hookrig_config::find_project(env)
            .nearest_dir(".hookrig")
            .and_then(|dir| dir.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| env.cwd.clone());
        (base.join(PROJECT_TESTS), base)
    });
    let path = dir.join(new.file.as_deref().unwrap_or(DEFAULT_FILE));
    let existing = std::fs::read_to_string(&path).unwrap_or_default();
    let taken = case_names(&path, &existing, &base);
    let name = match &new.name {
        Some(name) if taken.contains(name) => {
            return Err(TestingError::CaseExists(path, name.clone()));
        }
        Some(name) => name.clone(),
        // One more number than there are cases: at least one of them is free.
        None => (1..=taken.len() + 1)
            .map(|n| format!("{}-{n}", new.event))
            .find(|name| !taken.contains(name))
            .unwrap_or_default(),
    };
    let case = Case {
        id: name.clone(),
        file: path.clone(),
        line: 1,
        col: 1,
        event: new.event.clone(),
        dialect: new.dialect,
        payload: new.payload.clone(),
        cwd: base,
        env: Vec::new(),
        agent: new.agent.clone(),
        expect: Expect::default(),
    };
    let sandbox = Sandbox::new(base_env)?;
    let actual = sandbox.emit(&case).map_err(TestingError::Emit)?;
    let text = case_text(&name, new, &actual);
    std::fs::create_dir_all(&dir).map_err(|err| TestingError::Write(dir.clone(), err))?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|err| TestingError::Write(path.clone(), err))?;
    let separator = if existing.is_empty() || existing.ends_with("\n\n") {
        ""
    } else if existing.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    };
    file.write_all(format!("{separator}{text}").as_bytes())
        .map_err(|err| TestingError::Write(path.clone(), err))?;
    Ok(Pinned { path, name, text })
}

/// The names of the cases of the test file at `path`, whose text is `text`.
fn case_names(path: &Path, text: &str, base: &Path) -> Vec<String> {
    let parsed = case::parse(path, text, base, &mut Vec::new());
    parsed
        .cases
        .into_iter()
        .filter_map(|case| case.id.split_once("::").map(|(_, name)| name.to_owned()))
        .collect()
}

/// The `[[case]]` text of a case expecting `actual`. Strings are written as JSON
/// strings, which are TOML basic strings too.
fn case_text(name: &str, new: &NewCase, actual: &Actual) -> String {
    let quoted = |text: &str| Value::from(text).to_string();
    let list = |items: &[String]| {
        let items: Vec<String> = items.iter().map(|item| quoted(item)).collect();
        format!("[{}]", items.join(", "))
    };
    let mut text = String::from("[[case]]\n");
    let _ = writeln!(text, "name = {}", quoted(name));
    let _ = writeln!(text, "event = {}", quoted(&new.event));
    if new.dialect != Dialect::Native {
        let _ = writeln!(text, "dialect = {}", quoted(new.dialect.as_str()));
    }
    if let Some(agent) = &new.agent {
        let _ = writeln!(text, "agent = {}", quoted(agent));
    }
    // A literal string reads as the JSON itself; one holding `'` needs the escapes.
    let payload = new.payload.to_string();
    if payload.contains('\'') {
        let _ = writeln!(text, "payload = {}", quoted(&payload));
    } else {
        let _ = writeln!(text, "payload = '{payload}'");
    }
    text.push_str("[case.expect]\n");
    let _ = writeln!(text, "decision = {}", quoted(&actual.decision));
    if let Some(by) = &actual.decided_by {
        let _ = writeln!(text, "decided_by = {}", quoted(by));
    }
    if let Some(reason) = &actual.reason {
        let _ = writeln!(text, "reason = {}", quoted(reason));
    }
    if !actual.context.is_empty() {
        let _ = writeln!(text, "context = {}", list(&actual.context));
    }
    let _ = writeln!(text, "ran = {}", list(&actual.ran));
    let _ = writeln!(text, "skipped = {}", list(&actual.skipped));
    let _ = writeln!(text, "exit_code = {}", actual.exit_code);
    // What a host reads besides the exit code: for a host that takes its answer from
    // stdout (Cursor's `permission`, say), the decision lives there, not in the code.
    if new.dialect != Dialect::Native
        && let Ok(stdout) = serde_json::from_str::<Value>(&actual.stdout)
    {
        let mut leaves = Vec::new();
        json_leaves(&stdout, &mut String::new(), &mut leaves);
        if !leaves.is_empty() {
            let fields: Vec<String> = leaves
                .iter()
                .map(|(pointer, value)| format!("{} = {value}", quoted(pointer)))
                .collect();
            let _ = writeln!(text, "stdout = {{ {} }}", fields.join(", "));
        }
    }
    text
}

/// The strings, numbers and booleans of `value`, each with its JSON pointer, in
/// document order (TOML has no null, and a case checks containers through their
/// leaves).
fn json_leaves(value: &Value, at: &mut String, leaves: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let len = at.len();
                at.push('/');
                at.push_str(&key.replace('~', "~0").replace('/', "~1"));
                json_leaves(inner, at, leaves);
                at.truncate(len);
            }
        }
        Value::Array(items) => {
            for (index, inner) in items.iter().enumerate() {
                let len = at.len();
                let _ = write!(at, "/{index}");
                json_leaves(inner, at, leaves);
                at.truncate(len);
            }
        }
        Value::Null => {}
        leaf => leaves.push((at.clone(), leaf.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn actual(stdout: &str) -> Actual {
        Actual {
            decision: "allow".to_owned(),
            decided_by: None,
            reason: None,
            payload: Value::Null,
            context: Vec::new(),
            ran: vec!["guard".to_owned()],
            skipped: Vec::new(),
            exit_code: 0,
            stdout: stdout.to_owned(),
            hook_stderr: Vec::new(),
            held: Vec::new(),
        }
    }

    fn new(dialect: Dialect) -> NewCase {
        NewCase {
            event: "beforeShellExecution".to_owned(),
            dialect,
            payload: serde_json::json!({"command": "rm -rf build"}),
            agent: None,
            name: None,
            file: None,
        }
    }

    // guards: a host that reads its decision from stdout (Cursor's `permission`) gets it
    // pinned, so that a hook that stops denying fails the pinned case
    #[test]
    fn a_host_dialects_pin_expects_what_the_host_reads_on_stdout() {
        let stdout = r#"{"permission":"deny","user_message":"no \"rm\"","n":2,"a/b":{"ok":true},"gone":null}"#;
        let text = case_text("rm-rf", &new(Dialect::Cursor), &actual(stdout));
        let line = text
            .lines()
            .find(|line| line.starts_with("stdout = "))
            .expect("a stdout line");
        assert_eq!(
            line,
            r#"stdout = { "/permission" = "deny", "/user_message" = "no \"rm\"", "/n" = 2, "/a~1b/ok" = true }"#
        );
        let parsed: toml::Table = toml::from_str(&text).expect("the case is TOML");
        assert!(parsed.contains_key("case"), "{text}");
        // The native Outcome is checked through decision, reason and the rest.
        let native = case_text("rm-rf", &new(Dialect::Native), &actual(stdout));
        assert!(!native.contains("stdout = "), "{native}");
    }
}
