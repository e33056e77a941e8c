//! What hookrig answers a worker hook that asks while it answers an event: today a
//! JavaScript plugin's `ctx.memory.search(query, { limit })`, read from the project's
//! memory in the emit's store. Read-only by design: a plugin reaches hookrig's state
//! through these questions and never opens the store itself.

use std::path::PathBuf;

use hookrig_exec::Services;
use hookrig_store::Store;
use serde_json::{Value, json};

/// The most hits one search returns, whatever the worker asks for.
const MAX_HITS: usize = 50;
/// The hits of a search that names no limit.
const DEFAULT_HITS: usize = 5;

/// The answers of one emit: its store file and the project the event happened in.
#[derive(Debug, Clone)]
pub(crate) struct EmitServices {
    /// The ledger file; the memory is in its work file.
    pub(crate) ledger: PathBuf,
    /// The project whose memory is searched.
    pub(crate) project_id: String,
}

impl Services for EmitServices {
    fn answer(&self, question: &Value) -> Result<Value, String> {
        match question.get("memory").and_then(Value::as_str) {
            Some("search") => self.search(question),
            Some(other) => Err(format!(
                "ctx.memory has no `{other}`: it is read-only and offers search(query, {{ limit }})"
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
        if !self.ledger.exists() {
            return Ok(json!([]));
        }
        let store = Store::open(&self.ledger)
            .map_err(|err| format!("hookrig's memory cannot be read: {err}"))?;
        let hits = store
            .memory()
            .search(&self.project_id, query, limit)
            .map_err(|err| format!("hookrig's memory cannot be searched: {err}"))?;
        serde_json::to_value(hits).map_err(|err| err.to_string())
    }
}
