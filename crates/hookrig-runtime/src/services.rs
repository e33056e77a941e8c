//! What hookrig answers a worker hook that asks while it answers an event: a
//! JavaScript plugin's `ctx.memory.search(query, { limit })` and
//! `ctx.memory.get(source, heading)`, read from the project's memory in the emit's store
//! (read-only by design: a plugin reaches hookrig's state through these questions and
//! never opens the store itself), or in the PostgreSQL store the emit records into; and
//! the failures of a plugin's handlers, kept to be delivered as `plugin.error@v1` once
//! the event's chain has run.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use hookrig_exec::Services;
use hookrig_store::{MemoryEntry, MemoryIndex, PgStore, Store, StoreError};
use serde_json::Value;

/// The most hits one search returns, whatever the worker asks for.
const MAX_HITS: usize = 50;
/// The hits of a search that names no limit.
const DEFAULT_HITS: usize = 5;

/// The most `plugin.error@v1` events one emit delivers: a plugin failing in a loop must
/// not turn one event into thousands.
const MAX_ERRORS: usize = 16;

/// Where the memory a plugin reads is.
#[derive(Debug, Clone)]
pub(crate) enum MemoryAt {
    /// The work file of this ledger file (`None`: `--no-ledger`).
    Ledger(Option<PathBuf>),
    /// The PostgreSQL store at this URL: the one an engine records its emits into, which
    /// the operator named (a serve node's shared store, or the user's `[store] url`).
    Database(String),
    /// A PostgreSQL store already open (a serve node's, for its automations' plugin
    /// tools).
    Shared(Arc<PgStore>),
}

/// The PostgreSQL store at `url`, opened once for the life of the process: a plugin's
/// question must not pay a connection and a schema check (tens of milliseconds) each
/// time, and an engine records into one or two databases at most.
pub(crate) fn database(url: &str) -> Result<Arc<PgStore>, StoreError> {
    static OPEN: OnceLock<Mutex<HashMap<String, Arc<PgStore>>>> = OnceLock::new();
    let mut open = OPEN
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(store) = open.get(url) {
        return Ok(Arc::clone(store));
    }
    let store = Arc::new(PgStore::open(url)?);
    open.insert(url.to_owned(), Arc::clone(&store));
    Ok(store)
}

/// The answers of one emit: where its memory is and the project the event happened in,
/// and the plugin failures reported so far.
#[derive(Debug)]
pub(crate) struct EmitServices {
    /// Where the memory is.
    pub(crate) memory: MemoryAt,
    /// The project whose memory is searched.
    pub(crate) project_id: String,
    /// The payloads of the `plugin.error@v1` events to deliver after the chain.
    errors: Mutex<Vec<Value>>,
    /// Set while those are delivered: a failure then is not reported again, so that an
    /// error in a `plugin.error@v1` handler never emits another.
    delivering: AtomicBool,
}

impl EmitServices {
    pub(crate) fn new(memory: MemoryAt, project_id: String) -> Self {
        Self {
            memory,
            project_id,
            errors: Mutex::default(),
            delivering: AtomicBool::new(false),
        }
    }

    /// The `plugin.error@v1` payloads reported while the chain ran; from now on no more
    /// are taken.
    pub(crate) fn take_errors(&self) -> Vec<Value> {
        self.delivering.store(true, Ordering::SeqCst);
        std::mem::take(&mut *self.errors.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Keeps a failure for delivery; `false` when it will not be delivered (the worker
    /// then tells the plugin's own listeners, as without an engine to ask).
    fn report(&self, error: &Value) -> Result<Value, String> {
        if self.delivering.load(Ordering::SeqCst) {
            return Err(
                "not delivered: it happened while plugin.error@v1 was delivered".to_owned(),
            );
        }
        let mut errors = self.errors.lock().unwrap_or_else(PoisonError::into_inner);
        if errors.len() >= MAX_ERRORS {
            return Err(format!(
                "not delivered: more than {MAX_ERRORS} plugin errors in one emit"
            ));
        }
        errors.push(error.clone());
        Ok(Value::Bool(true))
    }
}

impl Services for EmitServices {
    fn answer(&self, question: &Value) -> Result<Value, String> {
        if let Some(error) = question.get("plugin_error") {
            return self.report(error);
        }
        match question.get("memory").and_then(Value::as_str) {
            Some("search") => self.search(question),
            Some("get") => self.get(question),
            Some(other) => Err(format!(
                "ctx.memory has no `{other}`: it is read-only and offers search(query, {{ limit }}) and get(source, heading)"
            )),
            None => Err(format!("a question hookrig does not answer: {question}")),
        }
    }
}

impl EmitServices {
    fn search(&self, question: &Value) -> Result<Value, String> {
        let query = question
            .get("query")
            .and_then(Value::as_str)
            .ok_or("ctx.memory.search(query): the query must be a string")?;
        let limit = match question.get("limit") {
            None | Some(Value::Null) => DEFAULT_HITS,
            Some(limit) => limit
                .as_u64()
                .and_then(|l| usize::try_from(l).ok())
                .filter(|l| *l > 0)
                .ok_or("ctx.memory.search: limit must be a positive integer")?
                .min(MAX_HITS),
        };
        // No store file yet means nothing remembered yet, not an error.
        let hits = self
            .with_memory(|memory| memory.search(&self.project_id, query, limit))?
            .unwrap_or_default();
        serde_json::to_value(hits).map_err(|err| err.to_string())
    }

    /// The one entry stored under `source` and `heading` (default empty), or `null`.
    fn get(&self, question: &Value) -> Result<Value, String> {
        let text = |key: &str, default: Option<&'static str>| match question.get(key) {
            Some(Value::String(text)) => Ok(text.clone()),
            None | Some(Value::Null) => default.map(str::to_owned).ok_or_else(|| {
                format!("ctx.memory.get(source, heading): the {key} must be a string")
            }),
            Some(_) => Err(format!(
                "ctx.memory.get(source, heading): the {key} must be a string"
            )),
        };
        let (source, heading) = (text("source", None)?, text("heading", Some(""))?);
        let entry: Option<MemoryEntry> = self
            .with_memory(|memory| memory.get(&self.project_id, &source, &heading))?
            .flatten();
        serde_json::to_value(entry).map_err(|err| err.to_string())
    }

    /// `read` of the emit's memory; `None` while its store has no file.
    fn with_memory<T>(
        &self,
        read: impl FnOnce(&dyn MemoryIndex) -> Result<T, StoreError>,
    ) -> Result<Option<T>, String> {
        let failed = |err: StoreError| format!("hookrig's memory cannot be read: {err}");
        let shared = match &self.memory {
            MemoryAt::Ledger(None) => {
                return Err("hookrig's memory is not read by an emit with --no-ledger".to_owned());
            }
            MemoryAt::Ledger(Some(ledger)) => {
                if !ledger.exists() {
                    return Ok(None);
                }
                let store = Store::open(ledger).map_err(failed)?;
                return read(&store.memory()).map(Some).map_err(failed);
            }
            MemoryAt::Database(url) => database(url).map_err(failed)?,
            MemoryAt::Shared(store) => Arc::clone(store),
        };
        read(&shared.memory()).map(Some).map_err(failed)
    }
}
