//! What can stop the runtime from answering an event or a question about the config.
//! A hook that fails is not among these: it is a value, recorded and turned into a
//! verdict by its failure policy.

use std::path::PathBuf;

use thiserror::Error;

/// A failure of hookrig itself while emitting, explaining or listing.
#[derive(Debug, Error)]
pub enum RuntimeError {
    /// The working directory named on the command line does not exist.
    #[error("--cwd {}: no such directory", .0.display())]
    NoSuchCwd(PathBuf),
    /// A versioned event name whose version the catalog does not declare.
    #[error("{0}; `hookrig events` lists the catalog")]
    UnknownVersion(#[from] hookrig_core::UnknownVersionError),
    /// The configuration cannot be loaded at all (no home directory).
    #[error("{0}")]
    Config(#[from] hookrig_config::ConfigError),
    /// The store cannot be read.
    #[error(transparent)]
    Store(#[from] hookrig_store::StoreError),
    /// The async runtime could not start.
    #[error("cannot start the async runtime")]
    AsyncRuntime(#[source] std::io::Error),
}
