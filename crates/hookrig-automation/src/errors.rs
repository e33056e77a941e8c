//! Errors of hookrig-automation.

use thiserror::Error;

/// A stored automation that cannot be read back.
#[derive(Debug, Error)]
pub enum AutomationError {
    /// A JSON column no longer parses: the store was edited by something else.
    #[error("the {column} of automation `{id}` in the store is not valid: {message}")]
    CorruptRow {
        /// The automation.
        id: String,
        /// The column.
        column: &'static str,
        /// What the JSON reader said.
        message: String,
    },
}
