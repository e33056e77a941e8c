//! Errors of hookrig-automation.

use thiserror::Error;

/// What can go wrong in hookrig-automation: a stored automation that cannot be read
/// back, or a [`Server`](crate::server::Server) that cannot start.
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
    /// The server cannot listen (another one runs, the socket path is taken).
    #[error(transparent)]
    Ingress(#[from] hookrig_runtime::ingress::IngressError),
    /// The store cannot be opened, read or written.
    #[error(transparent)]
    Store(#[from] hookrig_store::StoreError),
    /// The server cannot install its signal handlers.
    #[error("cannot install the signal handlers")]
    Signals(#[source] std::io::Error),
}
