//! Loading configuration for the commands that show it.

use std::path::{Path, PathBuf};

use hookrig_dialects::LoadedConfig;

use crate::errors::ExpectedError;

/// The working directory: `dir` made absolute (it must exist), else the current one.
pub(crate) fn working_dir(dir: Option<&Path>) -> Result<PathBuf, ExpectedError> {
    Ok(hookrig_runtime::working_dir(dir)?)
}

/// Says on stderr which sources (or entries) were skipped for an error, for the
/// commands that show what is loaded (`list`, `show`, `trust`): the rest loaded, and
/// without this the listing would look complete. `hookrig validate` lists everything.
pub(crate) fn report_skipped(config: &LoadedConfig) {
    report_errors(&config.warnings);
}

/// Prints the errors among `diagnostics` on stderr.
pub(crate) fn report_errors(diagnostics: &[hookrig_core::Diagnostic]) {
    for diagnostic in diagnostics {
        if diagnostic.severity == hookrig_core::Severity::Error {
            eprintln!("hookrig: error: {diagnostic}");
        }
    }
}
