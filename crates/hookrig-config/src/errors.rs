//! Errors and diagnostics of hookrig-config.

use std::path::PathBuf;

use hookrig_core::Diagnostic;

use thiserror::Error;

/// A configuration that cannot be used.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// One or more files have errors; every error is listed.
    #[error("{}", render(errors))]
    Invalid {
        /// The errors that stop the load.
        errors: Vec<Diagnostic>,
        /// Everything else found on the way (warnings, entries a dialect skipped), for
        /// `hookrig validate`, which reports it all.
        other: Vec<Diagnostic>,
    },
    /// The user's home directory is unknown, so the global config cannot be found.
    #[error("cannot find the home directory: set HOME to an absolute path")]
    NoHome,
}

/// The trust store cannot be used.
#[derive(Debug, Error)]
pub enum TrustError {
    /// It exists but cannot be read.
    #[error("cannot read the trust store {}", path.display())]
    Read {
        /// The store file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It is not a trust store. What the JSON reader said is part of the message (before
    /// the advice), so it is not a cause of its own.
    #[error("the trust store {} is not valid: {reason}; fix or remove it", path.display())]
    Corrupt {
        /// The store file.
        path: PathBuf,
        /// What the JSON reader said.
        reason: serde_json::Error,
    },
    /// Its lock file cannot be created or locked.
    #[error("cannot lock the trust store with {}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It cannot be written.
    #[error("cannot write the trust store {}", path.display())]
    Write {
        /// The store file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// What went wrong with the trust store, for a diagnostic that already names the file.
pub(crate) fn without_path(err: &TrustError) -> String {
    match err {
        TrustError::Read { source, .. }
        | TrustError::Lock { source, .. }
        | TrustError::Write { source, .. } => {
            format!("cannot use the trust store: {source}")
        }
        TrustError::Corrupt { reason, .. } => format!("the trust store is not valid: {reason}"),
    }
}

fn render(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}
