//! From loaded configuration to a registry of runnable hooks.

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;

use hookrig_core::{Handler, Hook, Registry};
use hookrig_dialects::HookDef;
use hookrig_dialects::{LoadOptions, LoadedConfig};
use hookrig_exec::{
    CommandDef, CommandHandler, HttpHandler, Limits, ProcessGroups, Services, WorkerHandler,
    WorkerKey, WorkerSpec,
};

use crate::errors::RuntimeError;
use crate::scope::Scope;

/// Loads every source for the scope's working directory (kept between emits by a
/// resident engine: see the config cache).
pub fn load(scope: &Scope, options: &LoadOptions) -> Result<LoadedConfig, RuntimeError> {
    Ok(crate::config_cache::load(&scope.env, options))
}

/// Registers every configured hook with its handler: HTTP hooks with an HTTP handler,
/// the rest with a command handler. `groups` is shared by every command handler, so
/// that a signal can kill every running hook. Worker hooks answer `agent`'s events with
/// workers of that agent's own (see [`WorkerKey::agent`]), and the questions those
/// workers ask with `services`.
pub fn registry(
    config: &LoadedConfig,
    groups: &ProcessGroups,
    agent: Option<&str>,
    services: Option<&Arc<dyn Services>>,
) -> Registry {
    register(
        config.hooks.iter().cloned(),
        config,
        groups,
        agent,
        services,
    )
}

/// [`registry`] of a config used up: its hooks' definitions are moved into the
/// registry, not copied. An emit loads every configured hook and runs few of them, so
/// the copies of the others would be its work for nothing (docs/PERFORMANCE.md).
pub(crate) fn registry_of(
    mut config: LoadedConfig,
    groups: &ProcessGroups,
    agent: Option<&str>,
    services: Option<&Arc<dyn Services>>,
) -> Registry {
    let hooks = std::mem::take(&mut config.hooks);
    register(hooks.into_iter(), &config, groups, agent, services)
}

/// Registers `hooks`, with the settings of `config`.
fn register(
    hooks: impl Iterator<Item = HookDef>,
    config: &LoadedConfig,
    groups: &ProcessGroups,
    agent: Option<&str>,
    services: Option<&Arc<dyn Services>>,
) -> Registry {
    let mut registry = Registry::new();
    for def in hooks {
        let limits = Limits {
            timeout: def.spec.timeout,
            kill_grace: config.kill_grace(&def),
            ..Limits::default()
        };
        let worker = def.workers.is_some()
            && matches!(
                def.command,
                CommandDef::Shell { .. } | CommandDef::Exec { .. }
            );
        let handler: Arc<dyn Handler> = if worker {
            Arc::new(worker_handler(&def, &def.command, limits, agent, services))
        } else {
            match def.command {
                CommandDef::Http {
                    url,
                    headers,
                    secret_env,
                } => Arc::new(HttpHandler::new(
                    def.spec.name.clone(),
                    url,
                    headers,
                    secret_env,
                    limits,
                    def.protocol,
                )),
                command => Arc::new(CommandHandler::new(
                    def.spec.name.clone(),
                    command,
                    def.env,
                    limits,
                    def.protocol,
                    groups.clone(),
                )),
            }
        };
        registry.register(Hook {
            spec: def.spec,
            handler,
        });
    }
    registry
}

/// The handler of the worker hook `def` for `agent`: every caller that builds it for
/// the same hook and agent reaches the same pool of warm workers (an emit's chain, an
/// automation calling a plugin's tool).
pub(crate) fn worker_handler(
    def: &HookDef,
    command: &CommandDef,
    limits: Limits,
    agent: Option<&str>,
    services: Option<&Arc<dyn Services>>,
) -> WorkerHandler {
    let handler = WorkerHandler::new(
        def.spec.name.clone(),
        worker_key(def, agent),
        worker_spec(def, command, limits, agent),
        def.protocol.clone(),
    )
    .with_services(services.cloned());
    match hookrig_dialects::plugin_subscription(def) {
        // One subscription of a JavaScript plugin: the plugin's workers run that
        // handler alone.
        Some(sub) => {
            let mut fields = serde_json::Map::new();
            fields.insert("subscription".to_owned(), sub.handler.into());
            handler.with_request_fields(fields)
        }
        None => handler,
    }
}

/// The name a worker hook's pool is kept under: its own, or for a subscription of a
/// JavaScript plugin its plugin's (`ID:plugin`), so that every entry of one plugin
/// reaches the plugin's one worker per agent, and its state.
fn pool_name(def: &HookDef) -> &str {
    hookrig_dialects::plugin_subscription(def).map_or(&def.spec.name, |sub| &sub.plugin)
}

/// What tells a worker hook's pool from another: its file, its name, and a digest of
/// its definition and of the files its command names, so that an edit to either
/// starts fresh workers; and the agent, so that no worker's state crosses agents.
fn worker_key(def: &HookDef, agent: Option<&str>) -> WorkerKey {
    let mut digest = hookrig_dialects::definition_hash(def);
    let dir = def
        .spec
        .source
        .path
        .parent()
        .map(Path::to_owned)
        .unwrap_or_default();
    let words: Vec<String> = match &def.command {
        CommandDef::Shell { line, script } => script
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .chain(line.split_whitespace().map(str::to_owned))
            .collect(),
        CommandDef::Exec { argv } => argv.clone(),
        CommandDef::Http { .. } => Vec::new(),
    };
    for word in words {
        let file = dir.join(word.trim_matches(['"', '\'']));
        if file.is_file()
            && let Ok(bytes) = std::fs::read(&file)
        {
            digest.push(':');
            digest.push_str(&hookrig_config::content_hash(&bytes));
        }
    }
    WorkerKey {
        source: def.spec.source.path.clone(),
        name: pool_name(def).to_owned(),
        definition: digest,
        agent: agent.map(str::to_owned),
    }
}

/// How a worker hook's processes are started: its command as a program and arguments,
/// its configured environment, `HOOKRIG_HOOK` and the agent it serves as
/// `HOOKRIG_AGENT`, its limits.
fn worker_spec(
    def: &HookDef,
    command: &CommandDef,
    limits: Limits,
    agent: Option<&str>,
) -> WorkerSpec {
    let (program, args): (OsString, Vec<OsString>) = match command {
        CommandDef::Exec { argv } => {
            let mut argv = argv.iter().map(OsString::from);
            (argv.next().unwrap_or_default(), argv.collect())
        }
        CommandDef::Shell { line, .. } => (
            OsString::from("/bin/sh"),
            vec![OsString::from("-c"), OsString::from(line)],
        ),
        CommandDef::Http { url, .. } => (OsString::from(url), Vec::new()),
    };
    let mut env = def.env.clone();
    env.push(("HOOKRIG_HOOK".to_owned(), pool_name(def).to_owned()));
    // The pool is the agent's own; its environment says whose, even when the agent came
    // from a flag or the payload rather than from the host's environment.
    if let Some(agent) = agent {
        env.push(("HOOKRIG_AGENT".to_owned(), agent.to_owned()));
    }
    WorkerSpec {
        program,
        args,
        env,
        count: def.workers.unwrap_or(1),
        limits,
    }
}
