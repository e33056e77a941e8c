//! Test files: `[[case]]` tables, each one event to emit and what its answer must be,
//! lowered into [`Case`]s with every problem placed at `path:line:col`.
//!
//! A case that cannot run (a payload file that is missing, an unknown dialect, a reason
//! pattern that is not a regex) is left out with an error at its place, so that the
//! file's other cases still run and the report counts the error.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use hookrig_config::Lowering;
use hookrig_core::{Diagnostic, Dialect, Severity};
use serde::Deserialize;
use serde_json::Value;
use toml::Spanned;

/// Every key a test file may hold, for the did-you-mean of an unknown one.
const KNOWN: &[&str] = &[
    "case",
    "name",
    "event",
    "dialect",
    "payload",
    "payload_file",
    "cwd",
    "env",
    "agent",
    "expect",
    "decision",
    "decided_by",
    "reason",
    "reason_contains",
    "reason_matches",
    "payload_at",
    "context",
    "ran",
    "skipped",
    "exit_code",
    "stdout",
];

/// The decisions an emit answers with.
const DECISIONS: &[&str] = &["allow", "deny", "ask"];

/// One test case: an event to emit in a sandbox, and what must come of it.
#[derive(Debug, Clone)]
pub struct Case {
    /// `FILE::NAME`, FILE being the test file's name without `.toml`: what a filter
    /// matches and the report names.
    pub id: String,
    /// The test file.
    pub file: PathBuf,
    /// Where the case starts in it (1-based line and column).
    pub line: usize,
    /// See `line`.
    pub col: usize,
    /// The event, in any dialect's spelling.
    pub event: String,
    /// The dialect the host speaks: the payload is that host's input, the answer its.
    pub dialect: Dialect,
    /// The host's input (for `native`, the payload).
    pub payload: Value,
    /// The directory the event happens in.
    pub cwd: PathBuf,
    /// Variables set for the emit on top of the runner's environment.
    pub env: Vec<(String, String)>,
    /// The agent emitting.
    pub agent: Option<String>,
    /// What must come of it.
    pub expect: Expect,
}

/// What a case expects; what is left out is not checked.
#[derive(Debug, Clone, Default)]
pub struct Expect {
    /// `allow`, `deny` or `ask`.
    pub decision: Option<String>,
    /// The hook that decided (denied or asked).
    pub decided_by: Option<String>,
    /// Checks of the reason, all of which must hold.
    pub reason: Vec<ReasonCheck>,
    /// The whole final payload.
    pub payload: Option<Value>,
    /// Values in the final payload, by JSON pointer.
    pub payload_at: Vec<(String, Value)>,
    /// The context lines, in order.
    pub context: Option<Vec<String>>,
    /// The hooks that ran, in order.
    pub ran: Option<Vec<String>>,
    /// The hooks that were considered and skipped, in order.
    pub skipped: Option<Vec<String>>,
    /// The host answer's exit code.
    pub exit_code: Option<u8>,
    /// Values in the host answer's stdout (JSON), by JSON pointer.
    pub stdout: Vec<(String, Value)>,
}

/// One check of the reason.
#[derive(Debug, Clone)]
pub enum ReasonCheck {
    /// `reason`: exactly this text.
    Exact(String),
    /// `reason_contains`: this text somewhere in it.
    Contains(String),
    /// `reason_matches`: the regex finds a match.
    Matches(regex::Regex),
}

/// A test file lowered: its cases, and the errors that left a case (or the whole file)
/// out.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The cases that can run, in file order.
    pub cases: Vec<Case>,
    /// A case (or the file) left out, each at its place.
    pub errors: Vec<Diagnostic>,
}

#[derive(Deserialize)]
struct RawFile {
    #[serde(default)]
    case: Vec<Spanned<RawCase>>,
}

#[derive(Deserialize)]
struct RawCase {
    name: Option<Spanned<String>>,
    event: Option<Spanned<String>>,
    dialect: Option<Spanned<String>>,
    payload: Option<Spanned<toml::Value>>,
    payload_file: Option<Spanned<String>>,
    cwd: Option<Spanned<String>>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    agent: Option<String>,
    expect: Option<Spanned<RawExpect>>,
}

#[derive(Deserialize)]
struct RawExpect {
    decision: Option<Spanned<String>>,
    decided_by: Option<String>,
    reason: Option<String>,
    reason_contains: Option<String>,
    reason_matches: Option<Spanned<String>>,
    payload: Option<toml::Value>,
    #[serde(default)]
    payload_at: BTreeMap<String, toml::Value>,
    context: Option<Vec<String>>,
    ran: Option<Vec<String>>,
    skipped: Option<Vec<String>>,
    exit_code: Option<Spanned<i64>>,
    #[serde(default)]
    stdout: BTreeMap<String, toml::Value>,
}

/// Lowers the test file at `path` whose text is `text`. A relative `cwd` is taken from
/// `base` (the project's directory, or where the run started), which is also the
/// default; a relative `payload_file` from the test file's directory. Warnings (unknown
/// keys) go to `warnings`.
pub fn parse(path: &Path, text: &str, base: &Path, warnings: &mut Vec<Diagnostic>) -> Parsed {
    let mut lowering = Lowering::new(path, text, warnings);
    let raw: RawFile = match lowering.toml(KNOWN) {
        Ok(raw) => raw,
        Err(err) => {
            let error = lowering.toml_error(&err, Severity::Error, "");
            return Parsed {
                cases: Vec::new(),
                errors: vec![error],
            };
        }
    };
    let stem = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut parsed = Parsed::default();
    for (index, raw) in raw.case.into_iter().enumerate() {
        let span = raw.span();
        let mut errors = Vec::new();
        let case = lower_case(
            &mut lowering,
            &mut errors,
            &CaseAt {
                stem: &stem,
                index,
                span,
                base,
            },
            raw.into_inner(),
        );
        match case {
            Some(case) if errors.is_empty() => parsed.cases.push(case),
            _ => parsed.errors.extend(errors),
        }
    }
    parsed
}

/// Where a case sits: its file's stem, its index among the file's cases, its span, and
/// the directory relative paths start from.
struct CaseAt<'a> {
    stem: &'a str,
    index: usize,
    span: Range<usize>,
    base: &'a Path,
}

fn lower_case(
    lowering: &mut Lowering<'_>,
    errors: &mut Vec<Diagnostic>,
    at: &CaseAt<'_>,
    raw: RawCase,
) -> Option<Case> {
    let mut error = |lowering: &mut Lowering<'_>, span: &Range<usize>, message: String| {
        errors.push(lowering.at(Some(span.start), Severity::Error, message));
    };
    let name = raw.name.as_ref().map_or_else(
        || format!("case-{}", at.index + 1),
        |name| name.get_ref().clone(),
    );
    let Some(event) = raw.event.filter(|event| !event.get_ref().trim().is_empty()) else {
        error(
            lowering,
            &at.span,
            format!(
                "case `{name}` names no event; add `event = \"tool.before\"` (any dialect's name)"
            ),
        );
        return None;
    };
    if let Err(err) = hookrig_dialects::events::parse(event.get_ref()) {
        error(lowering, &event.span(), format!("{err}"));
    }
    let dialect = match &raw.dialect {
        None => Dialect::Native,
        Some(raw) => raw.get_ref().parse().unwrap_or_else(|_| {
            let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.as_str()).collect();
            error(
                lowering,
                &raw.span(),
                format!(
                    "unknown dialect `{}`; use one of {}",
                    raw.get_ref(),
                    names.join(", ")
                ),
            );
            Dialect::Native
        }),
    };
    let payload = payload(lowering, &mut error, raw.payload, raw.payload_file);
    let cwd = match &raw.cwd {
        None => at.base.to_owned(),
        Some(cwd) => {
            let dir = hookrig_config::normal_path(&at.base.join(cwd.get_ref()));
            if !dir.is_dir() {
                error(
                    lowering,
                    &cwd.span(),
                    format!("cwd `{}` is not a directory", dir.display()),
                );
            }
            dir
        }
    };
    let expect = raw
        .expect
        .map(|expect| lower_expect(lowering, &mut error, expect))
        .unwrap_or_default();
    let (line, col) = hookrig_core::line_col(lowering.text(), at.span.start);
    Some(Case {
        id: format!("{}::{name}", at.stem),
        file: lowering.path().to_owned(),
        line,
        col,
        event: event.into_inner(),
        dialect,
        payload: payload?,
        cwd,
        env: raw.env.into_iter().collect(),
        agent: raw.agent,
        expect,
    })
}

type ErrorAt<'e> = dyn FnMut(&mut Lowering<'_>, &Range<usize>, String) + 'e;

/// The case's payload: inline (a TOML table, or a string of JSON), or read from a file;
/// `{}` when it gives none.
fn payload(
    lowering: &mut Lowering<'_>,
    error: &mut ErrorAt<'_>,
    inline: Option<Spanned<toml::Value>>,
    file: Option<Spanned<String>>,
) -> Option<Value> {
    match (inline, file) {
        (Some(_), Some(file)) => {
            error(
                lowering,
                &file.span(),
                "give `payload` or `payload_file`, not both".to_owned(),
            );
            None
        }
        (None, None) => Some(Value::Object(serde_json::Map::new())),
        (Some(inline), None) => {
            let span = inline.span();
            match inline.into_inner() {
                toml::Value::String(text) => json_text(lowering, error, &span, &text, "payload"),
                toml::Value::Table(table) => Some(json_of(toml::Value::Table(table))),
                _ => {
                    error(
                        lowering,
                        &span,
                        "`payload` must be a table or a string of JSON".to_owned(),
                    );
                    None
                }
            }
        }
        (None, Some(file)) => {
            let dir = lowering.path().parent().unwrap_or(Path::new("."));
            let path = dir.join(file.get_ref());
            match std::fs::read_to_string(&path) {
                Ok(text) => json_text(
                    lowering,
                    error,
                    &file.span(),
                    &text,
                    &path.display().to_string(),
                ),
                Err(err) => {
                    error(
                        lowering,
                        &file.span(),
                        format!(
                            "cannot read payload file {}: {err}; the path is relative to the test file",
                            path.display()
                        ),
                    );
                    None
                }
            }
        }
    }
}

fn json_text(
    lowering: &mut Lowering<'_>,
    error: &mut ErrorAt<'_>,
    span: &Range<usize>,
    text: &str,
    what: &str,
) -> Option<Value> {
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Some(value),
        Ok(_) => {
            error(lowering, span, format!("{what} must be a JSON object"));
            None
        }
        Err(err) => {
            error(
                lowering,
                span,
                format!(
                    "{what} is not JSON: {} (line {}, column {})",
                    hookrig_config::json_message(&err),
                    err.line(),
                    err.column()
                ),
            );
            None
        }
    }
}

/// A TOML value as JSON (a datetime becomes its text).
fn json_of(value: toml::Value) -> Value {
    match value {
        toml::Value::String(text) => Value::String(text),
        toml::Value::Integer(number) => Value::from(number),
        toml::Value::Float(number) => Value::from(number),
        toml::Value::Boolean(flag) => Value::Bool(flag),
        toml::Value::Datetime(datetime) => Value::String(datetime.to_string()),
        toml::Value::Array(items) => Value::Array(items.into_iter().map(json_of).collect()),
        toml::Value::Table(table) => Value::Object(
            table
                .into_iter()
                .map(|(key, value)| (key, json_of(value)))
                .collect(),
        ),
    }
}

fn lower_expect(
    lowering: &mut Lowering<'_>,
    error: &mut ErrorAt<'_>,
    raw: Spanned<RawExpect>,
) -> Expect {
    let span = raw.span();
    let raw = raw.into_inner();
    let decision = raw.decision.and_then(|decision| {
        if DECISIONS.contains(&decision.get_ref().as_str()) {
            return Some(decision.into_inner());
        }
        error(
            lowering,
            &decision.span(),
            format!(
                "unknown decision `{}`; use allow, deny or ask",
                decision.get_ref()
            ),
        );
        None
    });
    let mut reason = Vec::new();
    reason.extend(raw.reason.map(ReasonCheck::Exact));
    reason.extend(raw.reason_contains.map(ReasonCheck::Contains));
    if let Some(pattern) = raw.reason_matches {
        match regex::Regex::new(pattern.get_ref()) {
            Ok(regex) => reason.push(ReasonCheck::Matches(regex)),
            Err(err) => error(
                lowering,
                &pattern.span(),
                // The regex engine explains on its last line, under the pattern.
                format!(
                    "reason_matches is not a regex: {}",
                    err.to_string()
                        .lines()
                        .last()
                        .unwrap_or_default()
                        .trim()
                        .trim_start_matches("error: ")
                ),
            ),
        }
    }
    let mut pointers = |map: BTreeMap<String, toml::Value>, key: &str| {
        let mut found = Vec::new();
        for (pointer, value) in map {
            if !pointer.is_empty() && !pointer.starts_with('/') {
                error(
                    lowering,
                    &span,
                    format!(
                        "`{key}` key `{pointer}` is not a JSON pointer; write `\"/{pointer}\"`"
                    ),
                );
            }
            found.push((pointer, json_of(value)));
        }
        found
    };
    let payload_at = pointers(raw.payload_at, "payload_at");
    let stdout = pointers(raw.stdout, "stdout");
    let exit_code = raw.exit_code.and_then(|code| {
        let fits = u8::try_from(*code.get_ref()).ok();
        if fits.is_none() {
            error(
                lowering,
                &code.span(),
                "exit_code must be between 0 and 255".to_owned(),
            );
        }
        fits
    });
    Expect {
        decision,
        decided_by: raw.decided_by,
        reason,
        payload: raw.payload.map(json_of),
        payload_at,
        context: raw.context,
        ran: raw.ran,
        skipped: raw.skipped,
        exit_code,
        stdout,
    }
}
