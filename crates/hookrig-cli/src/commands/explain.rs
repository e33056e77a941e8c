//! `hookrig explain EVENT`: which hooks an event would run, and why the others would not.

use std::path::PathBuf;

use hookrig_runtime::Scope;

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::print;

pub(crate) fn run(
    scope: &Scope,
    event: &str,
    tool: Option<&str>,
    plugin_dirs: &[PathBuf],
) -> Result<u8, ExpectedError> {
    let options = scope.load_options(plugin_dirs)?;
    let explanation = hookrig_runtime::explain(scope, event, tool, &options)?;
    print(&explanation.to_string())?;
    Ok(exit_codes::PROCEED)
}
