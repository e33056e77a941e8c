//! Errors of hookrig-dialects.

use std::path::PathBuf;

use thiserror::Error;

/// A host's input that cannot be read as an event.
#[derive(Debug, Error)]
pub enum HostError {
    /// The payload on stdin is not JSON (the parser's message is part of this one, so it
    /// is not a cause of its own).
    #[error("stdin is not valid JSON: {0}; send one JSON object (or nothing for {{}})")]
    PayloadNotJson(serde_json::Error),
    /// The payload is JSON but not an object.
    #[error("the payload must be a JSON object, got {0}")]
    PayloadNotObject(&'static str),
    /// No event was given, and the host's input does not name one.
    #[error("no event: the host's input names none")]
    NoEvent,
}

/// A plugin package directory that cannot be registered.
#[derive(Debug, Error)]
pub enum PackageError {
    /// An id that cannot name a package.
    #[error("invalid plugin id `{0}`: it must match ^[a-z0-9][a-z0-9-]*$")]
    BadId(String),
    /// A directory that is not a valid package.
    #[error("cannot register {}: not a valid plugin package:\n{}", dir.display(), problems.join("\n"))]
    Invalid {
        /// The directory.
        dir: PathBuf,
        /// Every error, `path:line:col: message`.
        problems: Vec<String>,
    },
}
