//! hookrig's tools, as an automation's LLM sees them: each a name, a description, the
//! JSON schema of its arguments, and a call.
//!
//! Most reuse a context step (`read_file`, `list_files`, `memory_search`,
//! `create_task`, `http_get`), so a tool answers as the step of the same kind does
//! (docs/context-steps.md), with two differences: what the model gives is never a
//! template (placeholders are not filled), and every path it names must stay inside
//! the automation's workspace, symbolic links resolved. `shell` runs one program of
//! the automation's `shell_allow`, with arguments but without a shell, so that
//! `cargo test; rm -rf ~` is one program named `cargo` given odd arguments.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookrig_store::MemoryIndex as _;
use serde_json::{Map, Value, json};

use super::{ToolGrants, ToolSpec, Toolbox};
use crate::engine::BoxFuture;
use crate::notifier::Notifiers;
use crate::steps::{self, StepEnv};

/// Seconds a `shell` call may run when it does not say.
pub const SHELL_TIMEOUT_SECS: u64 = 60;
/// The longest a `shell` call may ask for.
pub const SHELL_MAX_TIMEOUT_SECS: u64 = 600;

/// What the tools of one run work on.
#[derive(Debug, Clone)]
pub struct ToolEnv {
    /// The automation's workspace, store and memory (its `event` is not used: a
    /// tool's arguments are not templates).
    pub steps: StepEnv,
    /// The automation's name, which `notify` messages carry.
    pub automation_name: String,
    /// The agent the plan tools act as: the automation's id.
    pub agent: String,
    /// Where `notify` posts; `None` when the run has no notifiers.
    pub notifiers: Option<Notifiers>,
}

/// The built-in tools granted to one automation.
#[derive(Debug, Clone)]
pub struct BuiltinTools {
    env: Arc<ToolEnv>,
    grants: ToolGrants,
}

impl BuiltinTools {
    /// The tools `grants` allows, working in `env`.
    pub fn new(mut env: ToolEnv, grants: ToolGrants) -> Self {
        env.steps.event = None;
        BuiltinTools {
            env: Arc::new(env),
            grants,
        }
    }
}

impl Toolbox for BuiltinTools {
    fn specs(&self) -> Vec<ToolSpec> {
        self.grants.offered().into_iter().filter_map(spec).collect()
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        arguments: &'a Value,
    ) -> BoxFuture<'a, Result<Value, String>> {
        Box::pin(async move {
            if !self.grants.offered().contains(&name) {
                return Err(format!("tool `{name}` is not granted to this automation"));
            }
            let env = &self.env.steps;
            let result = match name {
                "read_file" => {
                    let step = with_path(arguments, env, "path", None)?;
                    steps::read_file::run(&step, env).await
                }
                "list_files" => {
                    let step = with_path(arguments, env, "path", Some("."))?;
                    steps::list_files::run(&step, &[], env).await
                }
                "memory_search" => steps::memory_search::run(arguments, &[], env).await,
                "create_task" => steps::create_task::run(arguments, &[], env).await,
                "http_get" => steps::http::run(arguments).await,
                "memory_upsert" => self.remember(arguments).await,
                "emit" => super::emit::emit(env, arguments, self.env.agent.clone()).await,
                "notify" => self.notify(arguments),
                "plan_board" => {
                    super::plan::board(super::plan::plan_path(env, self.grants.plan.as_deref())?)
                        .await
                }
                "task_claim" | "task_complete" | "task_block" | "plan_assert" => {
                    let plan = super::plan::plan_path(env, self.grants.plan.as_deref())?;
                    let action = super::plan::action(name, arguments)?;
                    super::plan::perform(env, plan, action, self.env.agent.clone()).await
                }
                "shell" => self.shell(arguments).await,
                other => Err(format!("no tool `{other}`")),
            }?;
            // A step reports some failures inside its result (`http_get`'s 404): the
            // model is told them as errors, as the run records them.
            if let Some(error) = result.get("error").and_then(Value::as_str) {
                return Err(error.to_owned());
            }
            Ok(Value::Object(result))
        })
    }
}

impl BuiltinTools {
    fn notify(&self, arguments: &Value) -> Result<Map<String, Value>, String> {
        let message = arguments
            .get("message")
            .and_then(Value::as_str)
            .filter(|m| !m.trim().is_empty())
            .ok_or("`message` must be a non-empty string")?;
        let Some(notifiers) = &self.env.notifiers else {
            return Err("no notifiers are configured ([[notifiers]] in config.toml)".to_owned());
        };
        notifiers.note(&self.env.automation_name, message);
        Ok(steps::object(json!({"sent": true})))
    }

    /// Stores a memory of the automation's project, as a `memory.upsert` event does.
    async fn remember(&self, arguments: &Value) -> Result<Map<String, Value>, String> {
        let text = |key: &str| {
            arguments
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let content = text("content")
            .filter(|c| !c.trim().is_empty())
            .ok_or("`content` must be a non-empty string")?;
        let source = text("source").unwrap_or_else(|| format!("automation:{}", self.env.agent));
        let heading = text("heading").unwrap_or_default();
        let env = &self.env.steps;
        let (store, project) = (env.store_path.clone(), env.project_id.clone());
        let shared = env.shared.clone();
        super::off_the_runtime(move || {
            match shared {
                Some(shared) => shared
                    .memory()
                    .upsert(&project, &source, &heading, &content),
                None => hookrig_store::Store::open(&store)
                    .and_then(|store| store.memory().upsert(&project, &source, &heading, &content)),
            }
            .map_err(|e| super::plan::error_chain(&e))?;
            Ok(steps::object(
                json!({"stored": true, "source": source, "heading": heading}),
            ))
        })
        .await
    }

    async fn shell(&self, arguments: &Value) -> Result<Map<String, Value>, String> {
        let program = arguments
            .get("program")
            .and_then(Value::as_str)
            .ok_or("`program` must be a string")?;
        if !self.grants.shell_allow.iter().any(|p| p == program) {
            return Err(format!(
                "program `{program}` is not in this automation's shell_allow ({})",
                self.grants.shell_allow.join(", ")
            ));
        }
        let args = match arguments.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|a| a.as_str().ok_or("`args` must be a list of strings"))
                .collect::<Result<Vec<_>, _>>()?,
            Some(_) => return Err("`args` must be a list of strings".to_owned()),
        };
        let timeout = match arguments.get("timeout") {
            None | Some(Value::Null) => SHELL_TIMEOUT_SECS,
            Some(value) => value
                .as_u64()
                .filter(|t| (1..=SHELL_MAX_TIMEOUT_SECS).contains(t))
                .ok_or_else(|| {
                    format!("`timeout` must be a whole number of seconds from 1 to {SHELL_MAX_TIMEOUT_SECS}")
                })?,
        };
        steps::shell::run_program(
            program,
            &args,
            &self.env.steps.workspace,
            Duration::from_secs(timeout),
        )
        .await
    }
}

/// `arguments` with the path field `key` (or `default` when absent) resolved against
/// the workspace and refused when it leaves it.
fn with_path(
    arguments: &Value,
    env: &StepEnv,
    key: &str,
    default: Option<&str>,
) -> Result<Value, String> {
    let written = match arguments.get(key) {
        Some(Value::String(path)) => path.as_str(),
        None | Some(Value::Null) => default.ok_or_else(|| format!("`{key}` is required"))?,
        Some(_) => return Err(format!("`{key}` must be a string")),
    };
    let resolved: PathBuf = steps::resolve_path(&env.workspace, written);
    if !steps::within(&env.workspace, &resolved) {
        return Err(format!(
            "`{key}` {written:?} is outside the workspace; tools may only read inside {}",
            env.workspace.display()
        ));
    }
    let mut step = arguments.clone();
    step[key] = Value::String(path_text(&resolved));
    Ok(step)
}

fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// The spec of the tool `name`.
fn spec(name: &'static str) -> Option<ToolSpec> {
    if let Some(spec) = super::plan::spec(name) {
        return Some(spec);
    }
    let (description, schema) = match name {
        "read_file" => (
            "Read the first lines of a file of the workspace.",
            json!({"type": "object", "properties": {
                "path": {"type": "string", "description": "relative to the workspace"},
                "max_lines": {"type": "integer", "minimum": 1, "default": 500}
            }, "required": ["path"]}),
        ),
        "list_files" => (
            "List the files of a directory of the workspace (hidden ones skipped).",
            json!({"type": "object", "properties": {
                "path": {"type": "string", "default": "."},
                "recursive": {"type": "boolean", "default": false},
                "extensions": {"type": "array", "items": {"type": "string"}},
                "max_files": {"type": "integer", "minimum": 1, "default": 200}
            }}),
        ),
        "memory_search" => (
            "Search the project's memory (notes and stored entries).",
            json!({"type": "object", "properties": {
                "query": {"type": "string"},
                "top_k": {"type": "integer", "minimum": 1, "default": 3}
            }, "required": ["query"]}),
        ),
        "create_task" => (
            "Create a task in hookrig's task store.",
            json!({"type": "object", "properties": {
                "title_template": {"type": "string", "description": "the title"},
                "description_template": {"type": "string", "description": "the description"},
                "project_id": {"type": "string"},
                "parent_task_id": {"type": "string"},
                "branch_name": {"type": "string"},
                "priority": {"type": "integer", "default": 100}
            }, "required": ["title_template"]}),
        ),
        "memory_upsert" => (
            "Store a memory of the project, found later by memory_search; replaces what the same source and heading held.",
            json!({"type": "object", "properties": {
                "content": {"type": "string"},
                "heading": {"type": "string"},
                "source": {"type": "string", "description": "default: automation:<id>"}
            }, "required": ["content"]}),
        ),
        "emit" => (
            "Emit an event into hookrig: hooks decide on it and automations may run on it.",
            json!({"type": "object", "properties": {
                "event": {"type": "string"},
                "payload": {"type": "object"}
            }, "required": ["event"]}),
        ),
        "http_get" => (
            "GET a URL; answers the status code and the body.",
            json!({"type": "object", "properties": {
                "url": {"type": "string"},
                "timeout": {"type": "integer", "minimum": 1, "default": 30}
            }, "required": ["url"]}),
        ),
        "notify" => (
            "Post a message to the operator's channels.",
            json!({"type": "object", "properties": {
                "message": {"type": "string"}
            }, "required": ["message"]}),
        ),
        "shell" => (
            "Run one allowed program with arguments (no shell) in the workspace.",
            json!({"type": "object", "properties": {
                "program": {"type": "string"},
                "args": {"type": "array", "items": {"type": "string"}},
                "timeout": {"type": "integer", "minimum": 1, "maximum": SHELL_MAX_TIMEOUT_SECS, "default": SHELL_TIMEOUT_SECS}
            }, "required": ["program"]}),
        ),
        _ => return None,
    };
    Some(ToolSpec {
        name: name.into(),
        description: description.into(),
        schema,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::steps::MemoryOptions;

    fn tools(ws: &Path, tools: &[&str], allow: &[&str]) -> BuiltinTools {
        BuiltinTools::new(
            ToolEnv {
                steps: StepEnv {
                    event: None,
                    workspace: ws.to_owned(),
                    project_id: "p".to_owned(),
                    store_path: ws.join("store.db"),
                    memory: MemoryOptions::default(),
                    shared: None,
                },
                automation_name: "a".to_owned(),
                agent: "a".to_owned(),
                notifiers: None,
            },
            ToolGrants {
                tools: tools.iter().map(|t| (*t).to_owned()).collect(),
                shell_allow: allow.iter().map(|t| (*t).to_owned()).collect(),
                ..ToolGrants::default()
            },
        )
    }

    #[tokio::test]
    async fn a_symbolic_link_out_of_the_workspace_is_refused() {
        // guards: a link inside the workspace pointing out of it.
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = dir.path().join("ws");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&ws).expect("mkdir");
        std::fs::create_dir_all(&outside).expect("mkdir");
        std::fs::write(outside.join("secret.txt"), "key").expect("write");
        std::os::unix::fs::symlink(&outside, ws.join("link")).expect("symlink");
        let tools = tools(&ws, &[], &[]);
        for (tool, path) in [
            ("read_file", "link/secret.txt"),
            ("list_files", "link"),
            ("read_file", "/etc/hostname"),
        ] {
            let err = tools
                .call(tool, &json!({"path": path}))
                .await
                .expect_err("refused");
            assert!(
                err.contains("is outside the workspace"),
                "{tool} {path}: {err}"
            );
        }
    }

    #[tokio::test]
    async fn shell_runs_only_allowed_programs_and_never_a_shell() {
        let dir = tempfile::tempdir().expect("tempdir");
        let tools = tools(dir.path(), &["shell"], &["printf"]);
        let ran = tools
            .call(
                "shell",
                &json!({"program": "printf", "args": ["%s|", "a; rm -rf ~", "$HOME"]}),
            )
            .await
            .expect("runs");
        assert_eq!(ran["stdout"], "a; rm -rf ~|$HOME|");
        assert_eq!(ran["exit_code"], 0);
        for program in ["rm", "/usr/bin/printf", "sh"] {
            let err = tools
                .call(
                    "shell",
                    &json!({"program": program, "args": ["-c", "true"]}),
                )
                .await
                .expect_err("refused");
            assert_eq!(
                err,
                format!("program `{program}` is not in this automation's shell_allow (printf)")
            );
        }
    }

    const PLAN: &str = "(given task-design)\n(given task-api)\n(normally r-ready-design task-design ready-design)\n(normally r-ready-api (and task-api completed-design) ready-api)\n";

    #[tokio::test]
    async fn plan_tools_act_on_the_named_plan_through_its_lifecycle() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("plan.spl"), PLAN).expect("write");
        let mut tools = tools(
            dir.path(),
            &["task_claim", "task_complete", "plan_assert"],
            &[],
        );
        tools.grants.plan = Some("plan.spl".to_owned());
        let offered: Vec<String> = tools.specs().iter().map(|s| s.name.to_string()).collect();
        assert_eq!(
            offered,
            [
                "read_file",
                "list_files",
                "memory_search",
                "plan_board",
                "task_claim",
                "task_complete",
                "plan_assert"
            ]
        );
        let claimed = tools
            .call("task_claim", &json!({"task": "design"}))
            .await
            .expect("claimed");
        assert_eq!(
            (
                &claimed["state_before"],
                &claimed["state_after"],
                &claimed["changed"]
            ),
            (&json!("ready"), &json!("in_progress"), &json!(true))
        );
        tools
            .call("task_complete", &json!({"task": "design"}))
            .await
            .expect("completed");
        let board = tools.call("plan_board", &json!({})).await.expect("a board");
        let text = board.to_string();
        assert!(text.contains("\"api\""), "{text}");
        let spl = std::fs::read_to_string(dir.path().join("plan.spl")).expect("read");
        assert!(spl.len() > PLAN.len(), "the actions were appended: {spl}");
        let err = tools
            .call("task_claim", &json!({"task": "nope"}))
            .await
            .expect_err("no such task");
        assert!(!err.is_empty());
        let err = tools
            .call("plan_assert", &json!({"spl": "(given"}))
            .await
            .expect_err("not SPL");
        assert!(!err.is_empty());
    }

    #[tokio::test]
    async fn a_memory_stored_by_the_model_is_found_by_memory_search() {
        let dir = tempfile::tempdir().expect("tempdir");
        let tools = tools(dir.path(), &["memory_upsert"], &[]);
        let stored = tools
            .call(
                "memory_upsert",
                &json!({"heading": "flaky", "content": "test_login fails on Mondays"}),
            )
            .await
            .expect("stored");
        assert_eq!(stored["source"], "automation:a");
        let found = tools
            .call("memory_search", &json!({"query": "test_login Mondays"}))
            .await
            .expect("searched");
        assert_eq!(found["count"], 1, "{found}");
        assert!(
            found["content"]
                .as_str()
                .is_some_and(|c| c.contains("fails on Mondays")),
            "{found}"
        );
    }

    #[tokio::test]
    async fn an_automation_without_a_plan_has_no_plan_board() {
        let dir = tempfile::tempdir().expect("tempdir");
        let tools = tools(dir.path(), &[], &[]);
        assert!(!tools.specs().iter().any(|s| s.name == "plan_board"));
        let err = tools
            .call("plan_board", &json!({}))
            .await
            .expect_err("refused");
        assert_eq!(err, "tool `plan_board` is not granted to this automation");
    }

    #[tokio::test]
    async fn an_ungranted_tool_is_refused_by_the_toolbox_too() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = tools(dir.path(), &[], &[])
            .call("shell", &json!({"program": "printf"}))
            .await
            .expect_err("refused");
        assert_eq!(err, "tool `shell` is not granted to this automation");
    }
}
