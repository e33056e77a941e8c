//! Building the registry from loaded configuration.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hookrig_config::Environment;
use hookrig_core::{Handler, Hook, Registry};
use hookrig_dialects::{LoadOptions, LoadedConfig};
use hookrig_exec::{CommandDef, CommandHandler, HttpHandler, Limits, ProcessGroups};

use crate::errors::ExpectedError;

/// The working directory: `dir` made absolute (it must exist), else the current one.
pub(crate) fn working_dir(dir: Option<&Path>) -> Result<PathBuf, ExpectedError> {
    match dir {
        Some(dir) => {
            let dir = hookrig_config::normal_path(dir);
            if dir.is_dir() {
                Ok(dir)
            } else {
                Err(ExpectedError::NoSuchCwd(dir.display().to_string()))
            }
        }
        None => Ok(std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))),
    }
}

/// Loads every source for `dir` (see [`working_dir`]).
pub(crate) fn load(
    dir: Option<&Path>,
    options: &LoadOptions,
) -> Result<(Environment, LoadedConfig), ExpectedError> {
    let env = Environment::from_process(working_dir(dir)?)?;
    let config = hookrig_dialects::load(&env, options)?;
    Ok((env, config))
}

/// Says on stderr which sources (or entries) were skipped for an error, for the
/// commands that show what is loaded (`list`, `show`, `trust`): the rest loaded, and
/// without this the listing would look complete. `hookrig validate` lists everything.
pub(crate) fn report_skipped(config: &LoadedConfig) {
    for diagnostic in &config.warnings {
        if diagnostic.severity == hookrig_core::Severity::Error {
            eprintln!("hookrig: error: {diagnostic}");
        }
    }
}

/// Registers every configured hook with its handler: HTTP hooks with an HTTP handler,
/// the rest with a command handler.
pub(crate) fn registry(config: &LoadedConfig, groups: &ProcessGroups) -> Registry {
    let mut registry = Registry::new();
    for def in &config.hooks {
        let limits = Limits {
            timeout: def.spec.timeout,
            kill_grace: config.kill_grace(def),
            ..Limits::default()
        };
        let handler: Arc<dyn Handler> = match &def.command {
            CommandDef::Http {
                url,
                headers,
                secret_env,
            } => Arc::new(HttpHandler::new(
                def.spec.name.clone(),
                url.clone(),
                headers.clone(),
                secret_env.clone(),
                limits,
                def.protocol.clone(),
            )),
            command => Arc::new(CommandHandler::new(
                def.spec.name.clone(),
                command.clone(),
                def.env.clone(),
                limits,
                def.protocol.clone(),
                groups.clone(),
            )),
        };
        registry.register(Hook {
            spec: def.spec.clone(),
            handler,
        });
    }
    registry
}
