//! `emit`: an event into hookrig, as `hookrig emit` sends one: the hooks of the
//! automation's workspace decide on it, it is recorded in the ledger, and it is handed
//! to a running `hookrig serve`, whose automations it may trigger (automations chain).
//! A run's own automation is in flight while it emits, so an event it triggers on
//! itself is recorded as not run rather than looping.

use hookrig_core::Payload;
use hookrig_runtime::{Emit, EmitRequest};
use hookrig_runtime::{Scope, ScopeArgs, SharedRegistry};
use serde_json::{Map, Value};

use super::off_the_runtime;
use super::plan::error_chain;
use crate::steps::StepEnv;

/// Emits the event `arguments.event` with `arguments.payload` (an object, default
/// `{}`) as `agent`; answers the Outcome the hooks decided.
pub(crate) async fn emit(
    env: &StepEnv,
    arguments: &Value,
    agent: String,
) -> Result<Map<String, Value>, String> {
    let event = arguments
        .get("event")
        .and_then(Value::as_str)
        .filter(|e| !e.trim().is_empty())
        .ok_or("`event` must name an event, e.g. \"task.completed\"")?
        .to_owned();
    let payload = match arguments.get("payload") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => return Err("`payload` must be a JSON object".to_owned()),
    };
    let workspace = env.workspace.clone();
    let store = env.store_path.clone();
    let shared = env.shared.clone();
    off_the_runtime(move || {
        let mut scope = Scope::resolve(ScopeArgs {
            cwd: Some(workspace),
            agent: Some(agent.clone()),
            plan: None,
            store: Some(store),
            no_ledger: false,
            ..ScopeArgs::default()
        })
        .map_err(|e| error_chain(&e))?;
        // A serve node on the store its operator named runs the packages of the shared
        // registry that verify with the key in its own configuration directory, and
        // keeps what it read of the registry until it changes.
        scope.shared_registry =
            shared.map(|store| SharedRegistry::cached(store, &scope.env.config_home));
        let name = hookrig_dialects::events::parse(&event).map_err(|e| e.to_string())?;
        let mut request = EmitRequest::new(name, Payload::from_map(payload));
        request.agent = Some(agent);
        let decided = Emit::prepare(&scope, request)
            .and_then(hookrig_runtime::Prepared::dispatch)
            .map_err(|e| error_chain(&e))?;
        let outcome = serde_json::to_value(decided.outcome()).map_err(|e| e.to_string())?;
        decided.finish();
        match outcome {
            Value::Object(map) => Ok(map),
            other => Err(format!("the outcome is not an object: {other}")),
        }
    })
    .await
}
