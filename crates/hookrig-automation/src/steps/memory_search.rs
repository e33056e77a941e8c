//! `memory_search`: the sections of the project's memory that best match a query.
//!
//! Inputs: `project_id` (default: the automation's project) and `query` (default
//! `""`), both taking placeholders; `top_k` (default 3). The memory is the
//! markdown notes under [`MemoryOptions::notes_dir`](super::MemoryOptions), split
//! at headings and re-indexed by modification time before each search, plus what
//! `memory.upsert` events stored. Ranking is lexical (SQLite FTS5, bm25); with an
//! embeddings endpoint configured, the best lexical candidates are re-ranked by
//! the cosine similarity of their embedding to the query's. Output: `content`
//! (each result as `### source — heading (score 0.123)` and its text; the
//! lexical score is relative to the best result's, the embeddings score the
//! cosine similarity), `count`,
//! `ranking` (`lexical` or `embeddings`). When the store cannot be used the step
//! returns empty content with count 0, not an error, so the run goes on; an
//! embeddings endpoint that fails leaves the lexical order and adds
//! `embeddings_error`.
//!
//! On a `hookrig serve` node with a shared store, the memory is the PostgreSQL index
//! every node searches: each node offers its own checkout's notes to it, keyed by their
//! path under the notes directory, and a note's copy there is replaced only by different
//! content from a file modified later (docs/postgres.md, "Memory").

use std::path::Path;

use hookrig_store::{MemoryIndex as _, PgStore, StoreError};
use serde_json::{Map, Value, json};

use super::http::{client, describe};
use super::notes;
use super::{EmbeddingsEndpoint, StepEnv, count_field, object, render, resolve_path, str_field};

/// Results returned when `top_k` is not given.
pub const DEFAULT_TOP_K: usize = 3;
/// How many lexical candidates per wanted result are re-ranked by embeddings.
const CANDIDATES_PER_RESULT: usize = 5;
/// The least number of candidates re-ranked.
const MIN_CANDIDATES: usize = 20;
/// How long the embeddings endpoint may take.
const EMBEDDINGS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

pub(crate) async fn run(
    step: &Value,
    earlier: &[Value],
    env: &StepEnv,
) -> Result<Map<String, Value>, String> {
    let project_id = render(&str_field(step, "project_id", "")?, earlier, env);
    let project_id = if project_id.is_empty() {
        env.project_id.clone()
    } else {
        project_id
    };
    let query = render(&str_field(step, "query", "")?, earlier, env);
    let top_k = count_field(step, "top_k", DEFAULT_TOP_K)?;
    let embeddings = env.memory.embeddings.clone();
    let candidates = if embeddings.is_some() {
        (top_k * CANDIDATES_PER_RESULT).max(MIN_CANDIDATES)
    } else {
        top_k
    };
    let (store, shared) = (env.store_path.clone(), env.shared.clone());
    let notes_dir = resolve_path(&env.workspace, &env.memory.notes_dir.to_string_lossy());
    let lexical_query = query.clone();
    let searched = tokio::task::spawn_blocking(move || {
        search(
            &store,
            shared.as_deref(),
            &project_id,
            &notes_dir,
            &lexical_query,
            candidates,
        )
    })
    .await;
    let Ok(Ok(mut hits)) = searched else {
        // Memory that cannot be read is no memory, not a failed run.
        return Ok(object(
            json!({"content": "", "count": 0, "ranking": "lexical"}),
        ));
    };
    // bm25 scores are tiny when a word is in half the sections (its idf is near
    // zero) and mean nothing across queries: shown relative to the best, they say
    // how close each result came.
    let best = hits.first().map_or(0.0, |hit| hit.score);
    for hit in &mut hits {
        hit.score = if best > 0.0 { hit.score / best } else { 0.0 };
    }
    let mut ranking = "lexical";
    let mut embeddings_error = None;
    if let Some(endpoint) = embeddings.filter(|_| !hits.is_empty()) {
        match rerank(&endpoint, &query, &hits).await {
            Ok(scores) => {
                for (hit, score) in hits.iter_mut().zip(scores) {
                    hit.score = score;
                }
                hits.sort_by(|a, b| b.score.total_cmp(&a.score));
                ranking = "embeddings";
            }
            Err(error) => embeddings_error = Some(error),
        }
    }
    hits.truncate(top_k);
    let content = hits
        .iter()
        .map(|hit| {
            let title = if hit.heading.is_empty() {
                hit.source.clone()
            } else {
                format!("{} — {}", hit.source, hit.heading)
            };
            format!("### {title} (score {:.3})\n{}", hit.score, hit.content)
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    let mut result = object(json!({"content": content, "count": hits.len(), "ranking": ranking}));
    if let Some(error) = embeddings_error {
        result.insert("embeddings_error".to_owned(), Value::String(error));
    }
    Ok(result)
}

/// The `limit` best hits of `query` in `project_id`'s memory, its notes under
/// `notes_dir` indexed first: in the `shared` store when there is one, else in the store
/// file `store`.
fn search(
    store: &Path,
    shared: Option<&PgStore>,
    project_id: &str,
    notes_dir: &Path,
    query: &str,
    limit: usize,
) -> Result<Vec<hookrig_store::MemoryHit>, StoreError> {
    if let Some(shared) = shared {
        notes::index_shared(shared, project_id, notes_dir, &notes::writer(notes_dir))?;
        return shared.memory().search(project_id, query, limit);
    }
    let store = hookrig_store::Store::open(store)?;
    notes::index(&store, project_id, notes_dir)?;
    store.memory().search(project_id, query, limit)
}

/// The cosine similarity of each hit to the query, in the hits' order.
async fn rerank(
    endpoint: &EmbeddingsEndpoint,
    query: &str,
    hits: &[hookrig_store::MemoryHit],
) -> Result<Vec<f64>, String> {
    let mut input = vec![query.to_owned()];
    input.extend(
        hits.iter()
            .map(|hit| format!("{}\n{}", hit.heading, hit.content)),
    );
    let vectors = tokio::time::timeout(EMBEDDINGS_TIMEOUT, embed(endpoint, &input))
        .await
        .map_err(|_| "embeddings endpoint timed out".to_owned())??;
    let (query_vector, candidates) = vectors
        .split_first()
        .ok_or_else(|| "embeddings endpoint returned no vectors".to_owned())?;
    Ok(candidates
        .iter()
        .map(|vector| cosine(query_vector, vector))
        .collect())
}

/// `POST {base_url}/v1/embeddings` with all inputs at once; the vectors in input
/// order (the answer's `index` says which is which).
async fn embed(endpoint: &EmbeddingsEndpoint, input: &[String]) -> Result<Vec<Vec<f64>>, String> {
    let url = format!("{}/v1/embeddings", endpoint.base_url.trim_end_matches('/'));
    let body = json!({"model": endpoint.model, "input": input}).to_string();
    let mut request = client()?
        .post(&url)
        .header("content-type", "application/json")
        .body(body);
    if let Some(key) = &endpoint.api_key {
        request = request.bearer_auth(key);
    }
    let response = request.send().await.map_err(|e| describe(&e))?;
    let status = response.status();
    let bytes = response.bytes().await.map_err(|e| describe(&e))?;
    if !status.is_success() {
        return Err(format!("embeddings endpoint answered {status}"));
    }
    let answer: Value = serde_json::from_slice(&bytes)
        .map_err(|error| format!("embeddings endpoint answered invalid json: {error}"))?;
    let data = answer
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| "embeddings answer has no `data` list".to_owned())?;
    let mut vectors = vec![None; input.len()];
    for (position, item) in data.iter().enumerate() {
        let index = item
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok())
            .unwrap_or(position);
        let vector: Vec<f64> = item
            .get("embedding")
            .and_then(Value::as_array)
            .ok_or_else(|| "embeddings answer has an item without `embedding`".to_owned())?
            .iter()
            .map(|x| {
                x.as_f64()
                    .ok_or_else(|| "embedding holds a non-number".to_owned())
            })
            .collect::<Result<_, _>>()?;
        if let Some(slot) = vectors.get_mut(index) {
            *slot = Some(vector);
        }
    }
    vectors
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| format!("embeddings answer has fewer than {} vectors", input.len()))
}

/// The cosine similarity of two vectors; 0 when either is zero or they differ in
/// length (an endpoint that changed models mid-answer).
fn cosine(a: &[f64], b: &[f64]) -> f64 {
    if a.len() != b.len() {
        return 0.0;
    }
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let denominator = norm(a) * norm(b);
    if denominator == 0.0 {
        0.0
    } else {
        dot / denominator
    }
}

#[cfg(test)]
mod tests {
    use super::cosine;

    #[test]
    fn cosine_of_vectors() {
        assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-12);
        assert!(cosine(&[1.0, 0.0], &[0.0, 1.0]).abs() < 1e-12);
        assert!(cosine(&[0.0, 0.0], &[1.0, 1.0]).abs() < 1e-12);
        assert!(cosine(&[1.0], &[1.0, 1.0]).abs() < 1e-12);
    }
}
