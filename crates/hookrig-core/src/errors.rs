//! Errors of hookrig-core.

use thiserror::Error;

/// A matcher pattern that is not a valid regex.
#[derive(Debug, Error)]
#[error("invalid matcher regex `{pattern}`")]
pub struct MatcherError {
    /// The pattern as written.
    pub pattern: String,
    /// The regex engine's explanation.
    #[source]
    pub source: Box<regex::Error>,
}
