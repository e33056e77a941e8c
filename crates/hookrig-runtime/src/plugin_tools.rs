//! The tools JavaScript plugins add with `ctx.tools.add`, called by whoever acts as an
//! agent (an automation's model, in its tool-use loop) through the plugin's warm
//! worker: the same worker, keyed by the plugin's definition and the agent, that
//! answers that agent's events, so that a tool sees the state the plugin's handlers
//! built (the metrics a listener counted).
//!
//! [`plugin_workers`] reads the registry and the manifests (blocking work);
//! [`PluginWorkers::describe`] asks each worker what its plugin registered, which
//! starts it when it is not running yet; [`PluginTools::call`] sends one call.

use std::path::PathBuf;
use std::sync::Arc;

use hookrig_dialects::{HookDef, PluginHost};
use hookrig_exec::{Limits, Services, WorkerHandler};
use serde_json::{Value, json};

use crate::errors::RuntimeError;
use crate::plugin_host::{Described, PluginTool, loaded_host};
use crate::scope::Scope;
use crate::services::{EmitServices, MemoryAt};

/// A tool of a plugin, by the plugin's registered id and the tool's name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToolRef {
    /// The id the plugin is registered under.
    pub plugin: String,
    /// The name it gave the tool in `ctx.tools.add`.
    pub tool: String,
}

/// The warm workers of the plugins whose tools were granted, before they were asked
/// what they registered.
#[derive(Debug, Clone)]
pub struct PluginWorkers {
    cwd: PathBuf,
    granted: Vec<ToolRef>,
    workers: Vec<(String, Arc<WorkerHandler>)>,
}

/// One granted tool as its plugin declared it.
#[derive(Debug, Clone, PartialEq)]
pub struct GrantedTool {
    /// Which tool.
    pub tool: ToolRef,
    /// Its description and the JSON schema of its arguments.
    pub spec: PluginTool,
}

/// The granted tools, each answered by its plugin's warm worker.
#[derive(Debug, Clone)]
pub struct PluginTools {
    cwd: PathBuf,
    tools: Vec<GrantedTool>,
    workers: Vec<(String, Arc<WorkerHandler>)>,
}

/// The workers of the plugins of `granted`, for the scope's agent (whose workers they
/// are, as for that agent's emits). Each plugin must be one an emit of that agent runs
/// (the scope's store's registry, then the shared registry of a serve node's scope:
/// `ledger::enabled_packages` decides for both) and a JavaScript plugin whose manifest
/// loads; its workers read `ctx.memory` of `project_id` from the scope's store, or from
/// `shared` (the PostgreSQL store of a `hookrig serve` node) when it is given.
pub fn plugin_workers(
    scope: &Scope,
    project_id: &str,
    granted: &[ToolRef],
    shared: Option<Arc<hookrig_store::PgStore>>,
) -> Result<PluginWorkers, RuntimeError> {
    let agent = scope.agent.as_deref();
    let memory = match shared {
        Some(shared) => MemoryAt::Shared(shared),
        None => MemoryAt::Ledger(Some(scope.store.clone())),
    };
    let services: Arc<dyn Services> = Arc::new(EmitServices::new(memory, project_id.to_owned()));
    let enabled = scope.packages()?;
    let mut workers: Vec<(String, Arc<WorkerHandler>)> = Vec::new();
    for id in granted.iter().map(|g| &g.plugin) {
        if workers.iter().any(|(known, _)| known == id) {
            continue;
        }
        let Some(package) = enabled.iter().find(|p| &p.id == id) else {
            return Err(not_run(scope, id)?);
        };
        let check = hookrig_dialects::check_package(&scope.env, package);
        let host = loaded_host(id, &check)?;
        let def = plugin_hook(id, &host)?;
        let limits = Limits {
            timeout: def.spec.timeout,
            ..Limits::default()
        };
        let handler =
            crate::registry::worker_handler(&def, &def.command, limits, agent, Some(&services));
        workers.push((id.clone(), Arc::new(handler)));
    }
    Ok(PluginWorkers {
        cwd: scope.cwd().to_owned(),
        granted: granted.to_vec(),
        workers,
    })
}

/// Why the scope's agent does not run the plugin `id`: registered in the store's
/// registry but not enabled for it; left out of the shared registry (which rows, and
/// why), or not enabled there; or registered nowhere.
fn not_run(scope: &Scope, id: &str) -> Result<RuntimeError, RuntimeError> {
    let agent = scope.agent.as_deref();
    let own = if scope.store.exists() {
        hookrig_store::Store::open(&scope.store)?
            .plugins()
            .get(id)?
    } else {
        None
    };
    if own.is_none()
        && let Some(shared) = &scope.shared_registry
    {
        return Ok(match shared.package(id, agent) {
            Err(why) => why,
            // Enabled since the list was read: the next run offers it.
            Ok(_) => RuntimeError::PluginHost {
                id: id.to_owned(),
                message: "the shared registry changed while its tools were read; the next \
                          run offers them"
                    .to_owned(),
            },
        });
    }
    if own.is_none() {
        return Ok(RuntimeError::UnknownPlugin(id.to_owned()));
    }
    let agent = agent.unwrap_or("*");
    Ok(RuntimeError::PluginHost {
        id: id.to_owned(),
        message: format!(
            "it is not enabled for agent `{agent}`; `hookrig plugins enable {id} --agent {agent}` (or `--all`) lets it call the plugin's tools"
        ),
    })
}

/// The JavaScript plugin `id` as one worker hook, `ID:plugin`: the pool every entry of
/// its chain reaches.
fn plugin_hook(id: &str, host: &PluginHost) -> Result<HookDef, RuntimeError> {
    host.worker
        .as_ref()
        .map(|worker| worker.0.clone())
        .ok_or_else(|| RuntimeError::PluginHost {
            id: id.to_owned(),
            message: "it loads no plugin host".to_owned(),
        })
}

impl PluginWorkers {
    /// Asks each worker what its plugin registered: the granted tools with their
    /// schemas. A plugin that fails to load, or lacks a granted tool, is an error that
    /// says which and what it has.
    pub async fn describe(self) -> Result<PluginTools, RuntimeError> {
        let mut tools = Vec::with_capacity(self.granted.len());
        for (id, worker) in &self.workers {
            let fail = |message: String| RuntimeError::PluginHost {
                id: id.clone(),
                message,
            };
            let answered = worker.request(json!({"describe": true}), &self.cwd).await;
            let reply = answered.reply.map_err(&fail)?;
            let described: Described = serde_json::from_value(Value::Object(reply))
                .map_err(|err| fail(format!("a description that cannot be read: {err}")))?;
            for granted in self.granted.iter().filter(|g| &g.plugin == id) {
                let spec = described
                    .tools
                    .iter()
                    .find(|t| t.name == granted.tool)
                    .ok_or_else(|| {
                        let known: Vec<&str> =
                            described.tools.iter().map(|t| t.name.as_str()).collect();
                        fail(format!(
                            "it has no tool `{}` (its tools: {})",
                            granted.tool,
                            if known.is_empty() {
                                "none".to_owned()
                            } else {
                                known.join(", ")
                            }
                        ))
                    })?;
                tools.push(GrantedTool {
                    tool: granted.clone(),
                    spec: spec.clone(),
                });
            }
        }
        Ok(PluginTools {
            cwd: self.cwd,
            tools,
            workers: self.workers,
        })
    }
}

impl PluginTools {
    /// The granted tools, plugin by plugin, in the order they were granted.
    pub fn tools(&self) -> &[GrantedTool] {
        &self.tools
    }

    /// Calls `tool` with `arguments` in its plugin's warm worker: the tool's result, or
    /// what failed (the tool threw, its arguments do not fit its schema, the worker
    /// timed out and was killed).
    pub async fn call(&self, tool: &ToolRef, arguments: &Value) -> Result<Value, String> {
        let Some((_, worker)) = self.workers.iter().find(|(id, _)| *id == tool.plugin) else {
            return Err(format!("plugin `{}` is not granted", tool.plugin));
        };
        let request = json!({"tool": tool.tool, "arguments": arguments});
        let mut reply = worker.request(request, &self.cwd).await.reply?;
        Ok(reply.remove("result").unwrap_or(Value::Null))
    }
}
