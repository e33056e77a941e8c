//! What can go wrong answering a page, and how the browser is told.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::layout;

/// A request the dashboard could not answer.
#[derive(Debug, thiserror::Error)]
pub enum UiError {
    /// The ledger or the work file could not be read or written.
    #[error(transparent)]
    Store(#[from] hookrig_store::StoreError),
    /// Loading the config, explaining or trusting failed.
    #[error(transparent)]
    Runtime(#[from] hookrig_runtime::RuntimeError),
    /// Nothing of that name or id.
    #[error("{0}")]
    NotFound(String),
    /// A form or query that cannot be read: what is wrong and what to do.
    #[error("{0}")]
    BadRequest(String),
    /// A POST without the page's CSRF token.
    #[error("the form is out of date or came from another site; reload the page and try again")]
    Csrf,
    /// No token, or another one.
    #[error("open the dashboard with the link `hookrig ui` prints: it carries the token")]
    Unauthorized,
    /// Something the dashboard ran (a background task) did not finish.
    #[error("the dashboard failed: {0}")]
    Internal(String),
    /// A command of the plan or the agents failed; the message is theirs.
    #[error("{0}")]
    Action(String),
}

impl UiError {
    fn status(&self) -> StatusCode {
        match self {
            UiError::NotFound(_) => StatusCode::NOT_FOUND,
            UiError::BadRequest(_) | UiError::Action(_) => StatusCode::BAD_REQUEST,
            UiError::Csrf => StatusCode::FORBIDDEN,
            UiError::Unauthorized => StatusCode::UNAUTHORIZED,
            UiError::Store(_) | UiError::Runtime(_) | UiError::Internal(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
        }
    }
}

impl IntoResponse for UiError {
    fn into_response(self) -> Response {
        let message = hookrig_core::error_chain(&self);
        (self.status(), layout::error_page(&message)).into_response()
    }
}
