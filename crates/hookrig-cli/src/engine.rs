//! Building the registry from loaded configuration.

use std::sync::Arc;

use hookrig_config::LoadedConfig;
use hookrig_core::{Hook, Registry};
use hookrig_exec::{CommandHandler, Limits, ProcessGroups};

/// Registers every configured hook with a command handler.
pub(crate) fn registry(config: &LoadedConfig, groups: &ProcessGroups) -> Registry {
    let mut registry = Registry::new();
    for def in &config.hooks {
        let limits = Limits {
            timeout: def.spec.timeout,
            kill_grace: config.settings.kill_grace,
            ..Limits::default()
        };
        let handler = CommandHandler::new(
            def.spec.name.clone(),
            def.command.clone(),
            def.env.clone(),
            limits,
            def.protocol.clone(),
            groups.clone(),
        );
        registry.register(Hook {
            spec: def.spec.clone(),
            handler: Arc::new(handler),
        });
    }
    registry
}
