//! From loaded configuration to a registry of runnable hooks.

use std::sync::Arc;

use hookrig_core::{Handler, Hook, Registry};
use hookrig_dialects::{LoadOptions, LoadedConfig};
use hookrig_exec::{CommandDef, CommandHandler, HttpHandler, Limits, ProcessGroups};

use crate::errors::RuntimeError;
use crate::scope::Scope;

/// Loads every source for the scope's working directory.
pub fn load(scope: &Scope, options: &LoadOptions) -> Result<LoadedConfig, RuntimeError> {
    Ok(hookrig_dialects::load(&scope.env, options)?)
}

/// Registers every configured hook with its handler: HTTP hooks with an HTTP handler,
/// the rest with a command handler. `groups` is shared by every command handler, so
/// that a signal can kill every running hook.
pub fn registry(config: &LoadedConfig, groups: &ProcessGroups) -> Registry {
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
