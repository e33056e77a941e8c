//! Writing to stdout and rendering errors.

use std::io::{self, Write};

use crate::errors::ExpectedError;

/// Writes `text` to stdout. A closed pipe (`hookrig runs | head`) is not an error: the
/// reader has what it wanted.
pub(crate) fn print(text: &str) -> Result<(), ExpectedError> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(err) if err.kind() != io::ErrorKind::BrokenPipe => Err(ExpectedError::Stdout(err)),
        _ => Ok(()),
    }
}

/// An error and its causes on one line: `a: b: c`.
pub(crate) fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Points stdout at `/dev/null`, so that a host reading the Outcome sees end of file
/// while hookrig goes on waiting for async hooks.
pub(crate) fn release_stdout() {
    let _ = io::stdout().flush();
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = nix::unistd::dup2_stdout(&null);
    }
}
