//! `http`: a GET request.
//!
//! Inputs: `url` (default `""`), `timeout` seconds (default 30, for the whole
//! exchange). Output: `body` (at most 50,000 characters; reading stops there),
//! `status_code`. A 4xx or 5xx answer keeps its body and status and adds
//! `error` (`HTTP Error 404: Not Found`); a request that gets no answer has
//! `status_code` 0, an empty body and `error`. Redirects are followed.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::process::truncate_chars;
use super::{object, seconds, str_field, timeout_field};

/// Characters of the body kept.
pub const BODY_CHARS: usize = 50_000;
/// Seconds before the request is abandoned.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

pub(crate) async fn run(step: &Value) -> Result<Map<String, Value>, String> {
    let url = str_field(step, "url", "")?;
    let timeout = timeout_field(step, DEFAULT_TIMEOUT_SECS)?;
    Ok(match tokio::time::timeout(timeout, get(&url)).await {
        Ok(Ok((status, reason, body))) => {
            let mut result = object(json!({
                "body": truncate_chars(String::from_utf8_lossy(&body).into_owned(), BODY_CHARS),
                "status_code": status,
            }));
            if status >= 400 {
                result.insert(
                    "error".to_owned(),
                    Value::String(format!("HTTP Error {status}: {reason}")),
                );
            }
            result
        }
        Ok(Err(error)) => network_error(&error),
        Err(_elapsed) => network_error(&format!("request timed out after {}", seconds(timeout))),
    })
}

fn network_error(error: &str) -> Map<String, Value> {
    object(json!({"body": "", "status_code": 0, "error": error}))
}

/// Status, reason phrase and at most the bytes the body cap needs.
async fn get(url: &str) -> Result<(u16, String, Vec<u8>), String> {
    let client = client()?;
    let mut response = client.get(url).send().await.map_err(|e| describe(&e))?;
    let status = response.status();
    let cap = BODY_CHARS * 4;
    let mut body = Vec::new();
    while body.len() < cap {
        match response.chunk().await.map_err(|e| describe(&e))? {
            Some(chunk) => body.extend_from_slice(&chunk[..chunk.len().min(cap - body.len())]),
            None => break,
        }
    }
    Ok((
        status.as_u16(),
        status.canonical_reason().unwrap_or("").to_owned(),
        body,
    ))
}

/// A client for the steps' HTTP requests (also the embeddings endpoint).
pub(crate) fn client() -> Result<reqwest::Client, String> {
    // rustls with ring, as hookrig-exec: the default aws-lc-rs provider does not
    // build without cmake. A provider installed earlier is kept.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| describe(&e))
}

/// reqwest's message with its causes, which say what actually happened.
pub(crate) fn describe(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
