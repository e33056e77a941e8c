//! The tools an automation's LLM may call while it runs (the tool-use loop of
//! [`crate::tool_loop`]), and the record of each call.
//!
//! A [`Toolbox`] offers the tools granted to one run, each described by a [`ToolSpec`]
//! (its name, what it does, the JSON schema of its arguments) and answered by
//! [`Toolbox::call`]. Every call the model makes, granted or not, goes through an
//! [`ActionLog`], which keeps one [`Action`] per call (what the run records as
//! `actions_taken`) and tells whoever watches the run as each call ends.
//!
//! [`grants`] says which tools an automation may use; [`builtin`] implements hookrig's
//! own, [`PluginToolbox`] calls those of JavaScript plugins, and [`Toolboxes`] offers
//! several toolboxes as one.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::BoxFuture;

pub mod builtin;
mod emit;
pub mod grants;
mod plan;
mod plugin;

pub use builtin::{BuiltinTools, ToolEnv};
pub use grants::{DEFAULT_MAX_TOOL_ROUNDS, PLAN_TOOLS, READ_ONLY, TOOL_NAMES, ToolGrants};
pub use plugin::PluginToolbox;

/// How many characters of a tool's result are fed back to the model: a whole log or
/// file would otherwise eat the run's token budget in one call.
pub const RESULT_CHARS: usize = 50_000;

/// One tool as the model sees it. The names and descriptions of hookrig's own tools
/// are fixed text; a plugin's tool brings its own, known once its plugin has loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolSpec {
    /// The name the model calls it by.
    pub name: Cow<'static, str>,
    /// What it does, for the model.
    pub description: Cow<'static, str>,
    /// The JSON schema of its arguments (an object schema).
    pub schema: Value,
}

/// The tools of one run.
pub trait Toolbox: Send + Sync {
    /// The tools the model is offered, in a stable order.
    fn specs(&self) -> Vec<ToolSpec>;

    /// Calls the tool `name` with `arguments`: its result, or an error message that is
    /// fed back to the model (a tool error does not end the run). Dropping the future
    /// stops whatever the tool started.
    fn call<'a>(
        &'a self,
        name: &'a str,
        arguments: &'a Value,
    ) -> BoxFuture<'a, Result<Value, String>>;
}

/// A toolbox without tools: the LLM is asked once, as before tools existed.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTools;

impl Toolbox for NoTools {
    fn specs(&self) -> Vec<ToolSpec> {
        Vec::new()
    }

    fn call<'a>(&'a self, name: &'a str, _: &'a Value) -> BoxFuture<'a, Result<Value, String>> {
        Box::pin(async move { Err(format!("no tool `{name}`: this run has no tools")) })
    }
}

/// Several toolboxes offered as one: their tools in order, a call going to the first
/// that offers the name.
pub struct Toolboxes(pub Vec<Box<dyn Toolbox>>);

impl Toolbox for Toolboxes {
    fn specs(&self) -> Vec<ToolSpec> {
        self.0.iter().flat_map(|tools| tools.specs()).collect()
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        arguments: &'a Value,
    ) -> BoxFuture<'a, Result<Value, String>> {
        let found = self
            .0
            .iter()
            .find(|tools| tools.specs().iter().any(|spec| spec.name == name));
        match found {
            Some(tools) => tools.call(name, arguments),
            None => Box::pin(async move { Err(format!("no tool `{name}`")) }),
        }
    }
}

/// One tool call of a run, as `actions_taken` records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Action {
    /// The tool the model asked for.
    pub name: String,
    /// The arguments it gave (a string when they were not JSON).
    pub arguments: Value,
    /// What the tool returned, when it succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Why it failed or was refused, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How long the call took, in milliseconds.
    pub duration_ms: f64,
}

/// Told of the calls of a run as each ends: every call so far, oldest first.
pub type OnAction = Arc<dyn Fn(&[Action]) + Send + Sync>;

/// The calls of one run, kept where a run that times out can still read them.
#[derive(Default)]
pub struct ActionLog {
    actions: Mutex<Vec<Action>>,
    on_action: Option<OnAction>,
}

impl std::fmt::Debug for ActionLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActionLog")
            .field("actions", &self.actions())
            .finish_non_exhaustive()
    }
}

impl ActionLog {
    /// A log that tells `on_action` of each call as it ends.
    pub fn watched(on_action: OnAction) -> Self {
        ActionLog {
            actions: Mutex::new(Vec::new()),
            on_action: Some(on_action),
        }
    }

    /// The calls so far, oldest first.
    pub fn actions(&self) -> Vec<Action> {
        self.lock().clone()
    }

    /// Calls `name` in `tools` when it is granted (one of `tools.specs()`), refuses it
    /// otherwise, and records the call either way. `arguments` that are not a JSON
    /// object (`Err` holds their text) are refused without calling the tool.
    pub async fn call(
        &self,
        tools: &dyn Toolbox,
        name: &str,
        arguments: Result<Value, String>,
    ) -> Result<Value, String> {
        let started = Instant::now();
        let specs = tools.specs();
        let granted: Vec<&str> = specs.iter().map(|s| &*s.name).collect();
        let (arguments, outcome) = match arguments {
            Err(text) => {
                let error = "the arguments are not a JSON object".to_owned();
                (Value::String(text), Err(error))
            }
            Ok(arguments) if !granted.contains(&name) => {
                let error = if granted.is_empty() {
                    format!("tool `{name}` is not granted to this automation; it has no tools")
                } else {
                    format!(
                        "tool `{name}` is not granted to this automation; it may call {}",
                        granted.join(", ")
                    )
                };
                (arguments, Err(error))
            }
            Ok(arguments) if !arguments.is_object() => (
                arguments,
                Err("the arguments are not a JSON object".to_owned()),
            ),
            Ok(arguments) => {
                let outcome = tools.call(name, &arguments).await;
                (arguments, outcome)
            }
        };
        let action = Action {
            name: name.to_owned(),
            arguments,
            result: outcome.as_ref().ok().cloned(),
            error: outcome.as_ref().err().cloned(),
            // To the microsecond: finer is noise, and it reads better.
            duration_ms: (started.elapsed().as_secs_f64() * 1e6).round() / 1e3,
        };
        let snapshot = {
            let mut actions = self.lock();
            actions.push(action);
            self.on_action.as_ref().map(|_| actions.clone())
        };
        if let (Some(on_action), Some(snapshot)) = (&self.on_action, snapshot) {
            on_action(&snapshot);
        }
        outcome
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Action>> {
        self.actions.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Runs `work` on a thread of its own: the plan lifecycle takes a file lock, and an
/// emit runs hooks with a runtime of its own; neither may happen on the run's runtime.
pub(crate) async fn off_the_runtime<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    let (send, receive) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let _ = send.send(work());
    });
    receive
        .await
        .map_err(|_| "the tool stopped before it finished".to_owned())?
}

/// What the model is told of a call: the result as JSON text, or `error: ...`; cut to
/// [`RESULT_CHARS`] characters.
pub fn fed_back(outcome: &Result<Value, String>) -> String {
    let text = match outcome {
        Ok(Value::String(text)) => text.clone(),
        Ok(value) => value.to_string(),
        Err(error) => format!("error: {error}"),
    };
    crate::notifier::cut(&text, RESULT_CHARS)
}
