//! The tools registered JavaScript plugins add with `ctx.tools.add`, granted to an
//! automation as `plugin:ID/TOOL` ([`grants`](super::grants)) and offered to its model
//! as `ID__TOOL`.
//!
//! Each call goes to the plugin's warm worker for the automation's agent (its id), the
//! worker that also answers that agent's events: under `hookrig serve` it stays warm
//! between runs, and a tool sees what the plugin's handlers have kept. The plugin must be
//! enabled for the automation's id (or for every agent), as for an emit of that agent:
//! on a serve node with a shared store, the shared registry's packages that node runs
//! count too (docs/postgres.md, "Plugins").

use hookrig_runtime::{PluginTools, Scope, ScopeArgs, SharedRegistry, ToolRef, plugin_workers};
use serde_json::Value;

use super::grants::model_name;
use super::plan::error_chain;
use super::{ToolSpec, Toolbox, off_the_runtime};
use crate::engine::BoxFuture;
use crate::steps::StepEnv;

/// The plugin tools granted to one run.
#[derive(Debug, Clone)]
pub struct PluginToolbox {
    tools: PluginTools,
    /// Each tool as the model sees it, beside the tool it calls.
    offered: Vec<(ToolSpec, ToolRef)>,
}

impl PluginToolbox {
    /// The tools of `granted`, called as `agent` in `env`'s workspace; each plugin's
    /// worker is asked what it registered (and started when it does not run). An error
    /// says which plugin and what to do: it is not registered, not enabled for `agent`,
    /// fails to load, or has no such tool.
    pub async fn open(env: &StepEnv, agent: &str, granted: Vec<ToolRef>) -> Result<Self, String> {
        let (workspace, store) = (env.workspace.clone(), env.store_path.clone());
        let (agent, project_id) = (agent.to_owned(), env.project_id.clone());
        // A serve node's plugins read the memory its automations share, and come from
        // the shared registry too, under the rule of its emits.
        let shared = env.shared.clone();
        let workers = off_the_runtime(move || {
            let mut scope = Scope::resolve(ScopeArgs {
                cwd: Some(workspace),
                agent: Some(agent),
                plan: None,
                store: Some(store),
                no_ledger: false,
                ..ScopeArgs::default()
            })
            .map_err(|e| error_chain(&e))?;
            scope.shared_registry = shared
                .clone()
                .map(|store| SharedRegistry::cached(store, &scope.env.config_home));
            plugin_workers(&scope, &project_id, &granted, shared).map_err(|e| error_chain(&e))
        })
        .await?;
        let tools = workers.describe().await.map_err(|e| error_chain(&e))?;
        let offered = tools
            .tools()
            .iter()
            .map(|granted| {
                let spec = ToolSpec {
                    name: model_name(&granted.tool).into(),
                    description: granted.spec.description.clone().into(),
                    schema: granted.spec.schema.clone(),
                };
                (spec, granted.tool.clone())
            })
            .collect();
        Ok(PluginToolbox { tools, offered })
    }
}

impl Toolbox for PluginToolbox {
    fn specs(&self) -> Vec<ToolSpec> {
        self.offered.iter().map(|(spec, _)| spec.clone()).collect()
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        arguments: &'a Value,
    ) -> BoxFuture<'a, Result<Value, String>> {
        Box::pin(async move {
            let Some((_, tool)) = self.offered.iter().find(|(spec, _)| spec.name == name) else {
                return Err(format!("tool `{name}` is not granted to this automation"));
            };
            self.tools.call(tool, arguments).await
        })
    }
}
