//! config.toml as agents read it: providers, `[[agents]]` and worktree provisioning.

use std::path::Path;

use hookrig_config::{ConfigToml, Environment};

use crate::errors::AgentError;

/// The merged config.toml files seen from `dir`; their warnings go to `warn`.
pub(crate) fn load(dir: &Path, warn: &mut dyn FnMut(String)) -> Result<ConfigToml, AgentError> {
    let dir = hookrig_config::normal_path(dir);
    if !dir.is_dir() {
        return Err(AgentError::NoSuchDir(dir));
    }
    let env = Environment::from_process(dir)?;
    let mut warnings = Vec::new();
    let config = hookrig_config::load_config_toml(&env, &mut warnings)?;
    for warning in warnings {
        warn(warning.to_string());
    }
    Ok(config)
}
