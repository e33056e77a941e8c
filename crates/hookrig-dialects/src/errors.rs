//! Errors of hookrig-dialects.

use thiserror::Error;

/// A host's input that cannot be read as an event.
#[derive(Debug, Error)]
pub enum HostError {
    /// The payload on stdin is not JSON.
    #[error("stdin is not valid JSON: {0}; send one JSON object (or nothing for {{}})")]
    PayloadNotJson(#[source] serde_json::Error),
    /// The payload is JSON but not an object.
    #[error("the payload must be a JSON object, got {0}")]
    PayloadNotObject(&'static str),
    /// No event was given, and the host's input does not name one.
    #[error("no event: the host's input names none")]
    NoEvent,
}
