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

/// Why `hookrig install` or `uninstall` changed nothing.
#[derive(Debug, Error)]
pub enum InstallError {
    /// A file that does not parse as the host reads it, or whose hooks have a shape the
    /// host would reject: it is left as it is.
    #[error("{}:{line}:{col}: {message}; the file is left as it is", path.display())]
    Refused {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the problem.
        line: usize,
        /// The 1-based column of the problem.
        col: usize,
        /// What is wrong.
        message: String,
    },
    /// A file that is not UTF-8.
    #[error("{}: the file is not UTF-8; it is left as it is", .0.display())]
    NotUtf8(PathBuf),
    /// A file that cannot be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file that cannot be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `--http` for a host whose hooks are commands only.
    #[error("--http is for Claude Code only: {0} runs its hooks as commands")]
    HttpNotSupported(&'static str),
    /// A dialect that is not a host install knows.
    #[error("hookrig cannot install into `{0}`: the hosts are claude, codex, gemini and cursor")]
    UnknownHost(String),
    /// The trust store could not be updated for the moved hooks.
    #[error(transparent)]
    Trust(#[from] hookrig_config::TrustError),
}
