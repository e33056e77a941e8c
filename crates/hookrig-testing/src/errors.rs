//! The errors of hookrig-testing: what stops a test run as a whole. A case that fails or
//! cannot run is not one of them: it is in the [`crate::Report`].

use std::path::PathBuf;

/// What stops a test run, or the writing of a new case.
#[derive(Debug, thiserror::Error)]
pub enum TestingError {
    /// The sandbox's temporary directory could not be made.
    #[error("cannot make the sandbox's temporary directory")]
    Sandbox(#[source] std::io::Error),
    /// A directory of test files could not be listed.
    #[error("cannot list test files in {0}")]
    ListDir(PathBuf, #[source] std::io::Error),
    /// The new case's file could not be written.
    #[error("cannot write {0}")]
    Write(PathBuf, #[source] std::io::Error),
    /// The new case's file already holds a case of that name.
    #[error("{0} already has a case named `{1}`; give another --name")]
    CaseExists(PathBuf, String),
    /// The payload of a new case is not a JSON object.
    #[error("the payload is not a JSON object: {0}")]
    Payload(String),
    /// The ledger cannot be read.
    #[error(transparent)]
    Store(#[from] hookrig_store::StoreError),
    /// The emit of a new case failed before any hook decided.
    #[error("the emit failed: {0}")]
    Emit(String),
}
