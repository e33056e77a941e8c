//! Building the registry from loaded configuration.

use std::sync::Arc;

use hookrig_config::{CommandDef, LoadedConfig};
use hookrig_core::{Handler, Hook, Registry};
use hookrig_exec::{CommandHandler, HttpHandler, Limits, ProcessGroups};

/// Registers every configured hook with its handler: HTTP hooks with an HTTP handler,
/// the rest with a command handler.
pub(crate) fn registry(config: &LoadedConfig, groups: &ProcessGroups) -> Registry {
    let mut registry = Registry::new();
    for def in &config.hooks {
        let limits = Limits {
            timeout: def.spec.timeout,
            kill_grace: config.settings.kill_grace,
            ..Limits::default()
        };
        let handler: Arc<dyn Handler> = match &def.command {
            CommandDef::Http { url, headers } => Arc::new(HttpHandler::new(
                def.spec.name.clone(),
                url.clone(),
                headers.clone(),
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
