//! Context steps: what an automation gathers before its prompt is rendered.
//!
//! [`run_steps`] runs an automation's `context_steps` in order and returns one
//! JSON object per step, each with `_step_index`. A step that fails returns
//! `{"error": "..."}` (plus whatever it had gathered), an unknown type
//! `{"error": "Unknown step type: X"}`; nothing a step is given makes the run
//! fail or panic. The ten types (their fields are in docs/context-steps.md):
//!
//! | type | module |
//! |---|---|
//! | `shell` | [`shell`] |
//! | `read_file` | [`read_file`] |
//! | `http` | [`http`] |
//! | `db_query` | [`db_query`] |
//! | `git_diff` | [`git_diff`] |
//! | `run_tests` | [`run_tests`] |
//! | `memory_search` | [`memory_search`] |
//! | `create_task` | [`create_task`] |
//! | `list_files` | [`list_files`] |
//! | `file_diff` | [`file_diff`] |
//!
//! Relative paths resolve against [`StepEnv::workspace`]. Commands run in a
//! process group of their own, killed as a whole on timeout or when the future
//! of [`run_steps`] is dropped.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookrig_config::lexical_path;
use hookrig_store::PgStore;
use serde_json::{Map, Value};

use crate::template;

pub mod create_task;
pub mod db_query;
pub mod file_diff;
pub mod git_diff;
pub mod http;
pub mod list_files;
pub mod memory_search;
mod notes;
pub(crate) mod process;
pub mod read_file;
pub mod run_tests;
pub mod shell;

/// What the steps of one run share.
#[derive(Debug, Clone)]
pub struct StepEnv {
    /// The event that triggered the run (with `_event_type`), or the periodic
    /// timing data; `None` for a run without either.
    pub event: Option<Value>,
    /// The base directory for relative paths: the project root.
    pub workspace: PathBuf,
    /// The automation's project.
    pub project_id: String,
    /// The store file (`tasks`, the named queries, the memory index).
    pub store_path: PathBuf,
    /// The PostgreSQL store a `hookrig serve` node shares with the other nodes: the tasks
    /// and the memory index are kept there rather than in `store_path`
    /// (docs/postgres.md); `None` everywhere else.
    pub shared: Option<Arc<PgStore>>,
    /// Where `memory_search` finds notes, and how it may re-rank.
    pub memory: MemoryOptions,
}

/// How `memory_search` searches a project's memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryOptions {
    /// The directory of markdown notes; relative to the workspace unless absolute.
    pub notes_dir: PathBuf,
    /// An OpenAI-compatible embeddings endpoint to re-rank results with; without
    /// one the ranking is lexical (bm25).
    pub embeddings: Option<EmbeddingsEndpoint>,
}

impl Default for MemoryOptions {
    fn default() -> Self {
        MemoryOptions {
            notes_dir: PathBuf::from("notes"),
            embeddings: None,
        }
    }
}

/// An OpenAI-compatible embeddings API: `POST {base_url}/v1/embeddings`.
#[derive(Clone, PartialEq, Eq)]
pub struct EmbeddingsEndpoint {
    /// The server, without `/v1` (`https://api.openai.com`).
    pub base_url: String,
    /// The embedding model.
    pub model: String,
    /// Sent as a bearer token when present.
    pub api_key: Option<String>,
}

impl std::fmt::Debug for EmbeddingsEndpoint {
    // The key stays out of logs and panic messages.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddingsEndpoint")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// Runs `steps` in order and returns one result object per step, each with
/// `_step_index` (its zero-based position). Later steps see the results of
/// earlier ones where their fields take placeholders.
///
/// Dropping the future kills the process group of a command still running.
pub async fn run_steps(steps: &[Value], env: &StepEnv) -> Vec<Value> {
    let mut results: Vec<Value> = Vec::with_capacity(steps.len());
    for (index, step) in steps.iter().enumerate() {
        let mut result = match run_step(step, &results, env).await {
            Ok(result) => result,
            Err(error) => error_result(error),
        };
        result.insert("_step_index".to_owned(), Value::from(index));
        results.push(Value::Object(result));
    }
    results
}

/// One step's result, or the message of the `error` it ends with.
async fn run_step(
    step: &Value,
    earlier: &[Value],
    env: &StepEnv,
) -> Result<Map<String, Value>, String> {
    let kind = step.get("type");
    match kind.and_then(Value::as_str) {
        Some("shell") => shell::run(step, env).await,
        Some("read_file") => read_file::run(step, env).await,
        Some("http") => http::run(step).await,
        Some("db_query") => db_query::run(step, env).await,
        Some("git_diff") => git_diff::run(step, env).await,
        Some("run_tests") => run_tests::run(step, env).await,
        Some("memory_search") => memory_search::run(step, earlier, env).await,
        Some("create_task") => create_task::run(step, earlier, env).await,
        Some("list_files") => list_files::run(step, earlier, env).await,
        Some("file_diff") => file_diff::run(step, earlier, env).await,
        Some(other) => Err(format!("Unknown step type: {other}")),
        // A missing type is named as JSON's `null`, the language the automation
        // was written in.
        None => Err(format!(
            "Unknown step type: {}",
            kind.map_or_else(|| "null".to_owned(), Value::to_string)
        )),
    }
}

/// `{"error": message}`.
pub(crate) fn error_result(message: impl Into<String>) -> Map<String, Value> {
    let mut result = Map::new();
    result.insert("error".to_owned(), Value::String(message.into()));
    result
}

/// The map of a JSON object built with `json!({...})`.
pub(crate) fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => {
            let mut map = Map::new();
            map.insert("value".to_owned(), other);
            map
        }
    }
}

/// A step's string field, `default` when missing or null.
pub(crate) fn str_field(step: &Value, key: &str, default: &str) -> Result<String, String> {
    Ok(opt_str_field(step, key)?.unwrap_or_else(|| default.to_owned()))
}

/// A step's optional string field.
pub(crate) fn opt_str_field(step: &Value, key: &str) -> Result<Option<String>, String> {
    match step.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("`{key}` must be a string")),
    }
}

/// A step's integer field, `default` when missing or null.
pub(crate) fn int_field(step: &Value, key: &str, default: i64) -> Result<i64, String> {
    match step.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Number(n)) => n
            .as_i64()
            .ok_or_else(|| format!("`{key}` must be an integer")),
        Some(_) => Err(format!("`{key}` must be an integer")),
    }
}

/// A step's count field (`max_lines`, `top_k`, ...): a non-negative integer.
pub(crate) fn count_field(step: &Value, key: &str, default: usize) -> Result<usize, String> {
    let fallback = i64::try_from(default).unwrap_or(i64::MAX);
    usize::try_from(int_field(step, key, fallback)?)
        .map_err(|_| format!("`{key}` must not be negative"))
}

/// A step's boolean field, `default` when missing or null.
pub(crate) fn bool_field(step: &Value, key: &str, default: bool) -> Result<bool, String> {
    match step.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(format!("`{key}` must be true or false")),
    }
}

/// The longest timeout a step may ask for; past it a number is a mistake, and a
/// deadline that far out would overflow the clock.
const MAX_TIMEOUT: Duration = Duration::from_hours(7 * 24);

/// A step's timeout in seconds (an integer or a fraction), `default` when missing.
pub(crate) fn timeout_field(step: &Value, default_secs: u64) -> Result<Duration, String> {
    match step.get("timeout") {
        None | Some(Value::Null) => Ok(Duration::from_secs(default_secs)),
        Some(Value::Number(n)) => n
            .as_f64()
            .filter(|secs| *secs >= 0.0)
            .and_then(|secs| Duration::try_from_secs_f64(secs).ok())
            .map(|timeout| timeout.min(MAX_TIMEOUT))
            .ok_or_else(|| "`timeout` must be a number of seconds, not negative".to_owned()),
        Some(_) => Err("`timeout` must be a number of seconds".to_owned()),
    }
}

/// `{{...}}` placeholders of a step field, filled from the event and the earlier
/// results with the prompt template's rules.
pub(crate) fn render(text: &str, earlier: &[Value], env: &StepEnv) -> String {
    template::render(text, earlier, env.event.as_ref())
}

/// `path` against the workspace: absolute paths stay, relative ones are joined.
pub(crate) fn resolve_path(base: &Path, path: &str) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() {
        path.to_owned()
    } else if path == Path::new(".") || path.as_os_str().is_empty() {
        base.to_owned()
    } else {
        base.join(path)
    }
}

/// The path a step's `field` names: `written` is the field as the automation wrote it,
/// `rendered` the same after its placeholders were filled, resolved against `base`.
///
/// A path the automation wrote literally may be anything (the automation file is
/// trusted as written). A path that placeholders made (from the event, which anyone
/// who can send one to serve or make a watched file change controls, or from earlier
/// results) must stay inside the workspace: one with `..` or absolute that leaves it,
/// also through a symbolic link, is refused.
pub(crate) fn confined_path(
    env: &StepEnv,
    base: &Path,
    field: &str,
    written: &str,
    rendered: &str,
) -> Result<PathBuf, String> {
    let resolved = resolve_path(base, rendered);
    if written == rendered {
        return Ok(resolved);
    }
    if within(&env.workspace, &resolved) {
        return Ok(resolved);
    }
    Err(format!(
        "`{field}` {rendered:?} comes from placeholders and leaves the workspace {}; only a path written literally in the automation may",
        lexical_path(&env.workspace).display()
    ))
}

/// Whether `path` (absolute) lies inside `workspace`: lexically, and through the file
/// system where the path exists, so that neither `..` nor a link inside the workspace
/// pointing out of it passes.
pub(crate) fn within(workspace: &Path, path: &Path) -> bool {
    let workspace = lexical_path(workspace);
    let real = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| lexical_path(path));
    lexical_path(path).starts_with(&workspace) && real(path).starts_with(real(&workspace))
}

/// A timeout in seconds as the messages show it (`60s`, `0.5s`).
pub(crate) fn seconds(timeout: Duration) -> String {
    format!("{}s", timeout.as_secs_f64())
}
