//! Errors of hookrig-automation.

use thiserror::Error;

/// What can go wrong in hookrig-automation: an automation file that is not valid, a
/// stored automation that cannot be read back, a run that cannot be fired, or a
/// [`Server`](crate::server::Server) that cannot start.
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
    /// An automation file that cannot be read or is not valid (`path:line:col: message`).
    #[error("{0}")]
    Invalid(hookrig_core::Diagnostic),
    /// A run could not be fired, or the automation named is unknown (the engine's
    /// messages, in Hence's wording).
    #[error(transparent)]
    Fire(Box<crate::engine::FireError>),
    /// The trust store cannot be read or written.
    #[error(transparent)]
    Trust(#[from] hookrig_config::TrustError),
    /// The async runtime of a server, a fire or a follow could not start or install its
    /// signal handlers.
    #[error("cannot start the async runtime")]
    AsyncRuntime(#[source] std::io::Error),
}

impl From<crate::engine::FireError> for AutomationError {
    fn from(err: crate::engine::FireError) -> Self {
        AutomationError::Fire(Box::new(err))
    }
}

impl From<hookrig_core::Diagnostic> for AutomationError {
    fn from(diagnostic: hookrig_core::Diagnostic) -> Self {
        AutomationError::Invalid(diagnostic)
    }
}
