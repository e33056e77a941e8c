//! Writing to stdout, the shapes text output shares (tables, counts), and rendering
//! errors and warnings.

use std::io::{self, Write};

pub(crate) use hookrig_core::error_chain as chain;
pub(crate) use hookrig_core::text::count;

use crate::errors::ExpectedError;

/// Writes `text` to stdout. A closed pipe (`hookrig runs | head`) is not an error: the
/// reader has what it wanted.
pub(crate) fn print(text: &str) -> Result<(), ExpectedError> {
    write(text.as_bytes()).map(drop)
}

/// Writes `bytes` to stdout as they are (a board formatter may print bytes that are not
/// UTF-8); `false` when the reader has gone (a closed pipe), which is not an error.
pub(crate) fn write(bytes: &[u8]) -> Result<bool, ExpectedError> {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(true),
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Ok(false),
        Err(err) => Err(ExpectedError::Stdout(err)),
    }
}

/// Writes `value` to stdout as pretty JSON and a newline.
pub(crate) fn print_json(value: &(impl serde::Serialize + ?Sized)) -> Result<(), ExpectedError> {
    let mut text = serde_json::to_string_pretty(value).expect("values hookrig prints serialize");
    text.push('\n');
    print(&text)
}

/// Prints `value` as JSON with `json`, else as the text `text` makes of it.
pub(crate) fn json_or_text<T: serde::Serialize + ?Sized>(
    json: bool,
    value: &T,
    text: impl FnOnce(&T) -> String,
) -> Result<(), ExpectedError> {
    if json {
        print_json(value)
    } else {
        print(&text(value))
    }
}

/// Prints each warning on stderr.
pub(crate) fn warn_all(warnings: impl IntoIterator<Item = impl std::fmt::Display>) {
    for warning in warnings {
        warn(warning);
    }
}

/// Prints a warning on stderr: the sink the libraries' warnings go to.
pub(crate) fn warn(warning: impl std::fmt::Display) {
    eprintln!("hookrig: warning: {warning}");
}

/// Points stdout at `/dev/null`, so that a host reading the Outcome sees end of file
/// while hookrig goes on waiting for async hooks.
pub(crate) fn release_stdout() {
    let _ = io::stdout().flush();
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = nix::unistd::dup2_stdout(&null);
    }
}

/// Says on stderr which sources (or entries) were skipped for an error, for the
/// commands that show what is loaded (`list`, `show`, `trust`): the rest loaded, and
/// without this the listing would look complete. `hookrig validate` lists everything.
pub(crate) fn report_errors(diagnostics: &[hookrig_core::Diagnostic]) {
    for diagnostic in diagnostics {
        if diagnostic.severity == hookrig_core::Severity::Error {
            eprintln!("hookrig: error: {diagnostic}");
        }
    }
}
