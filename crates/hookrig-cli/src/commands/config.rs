//! `hookrig config show`: the merged `config.toml` in effect
//! (`hookrig_config::Effective`), and the file and line every value came from.

use hookrig_config::{ConfigToml, Effective};
use hookrig_runtime::Scope;

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{json_or_text, warn_all};

/// Loads the merged `config.toml` seen from the scope's working directory, printing its
/// warnings (unknown keys) on stderr. Errors stop the caller: exit 1 with every
/// `path:line:col: message`.
pub(crate) fn load(scope: &Scope) -> Result<ConfigToml, ExpectedError> {
    let mut warnings = Vec::new();
    let config = hookrig_config::load_config_toml(&scope.env, &mut warnings)?;
    warn_all(warnings);
    Ok(config)
}

pub(crate) fn show(scope: &Scope, json: bool) -> Result<u8, ExpectedError> {
    let effective = load(scope)?.effective();
    json_or_text(json, &effective, Effective::annotated_toml)?;
    Ok(exit_codes::PROCEED)
}
