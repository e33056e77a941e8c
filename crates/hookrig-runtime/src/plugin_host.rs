//! `hookrig plugins show` and `hookrig plugins call`: a registered package as it loads
//! today, and for an OpenHermit JavaScript plugin what its `register(ctx)` subscribed
//! and added, or why it failed, and a call of one of its tools.
//!
//! Both questions run the plugin host once, in a process of their own (`--describe`,
//! `--call=TOOL`), not through the engine's warm worker: they are asked by a person at a
//! terminal, and a worker answers events only. A tool therefore runs in a fresh load of
//! the plugin, without the state its event handlers built up in a worker.

use std::fmt::{self, Write as _};

pub use hookrig_dialects::{Described, PluginTool, Subscription};
use hookrig_dialects::{PackageCheck, PackageRef, PluginHost};
use hookrig_store::{PluginEntry, Store};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::errors::RuntimeError;
use crate::packages::enabled_for;
use crate::scope::Scope;

/// A registered package as `hookrig plugins show` presents it.
#[derive(Debug, Clone, Serialize)]
pub struct PluginDetail {
    /// The registry's row and for whom it is enabled.
    #[serde(flatten)]
    pub entry: PluginEntry,
    /// `js` (an OpenHermit JavaScript plugin) or `hooks` (an x-code manifest).
    pub kind: &'static str,
    /// Its hooks as an emit loads them, by name, with the events each listens to.
    pub hooks: Vec<PluginHook>,
    /// Every problem of its manifest, `path:line:col: message`; an error keeps the
    /// package out of every emit.
    pub problems: Vec<String>,
    /// What the JavaScript plugin's `register(ctx)` did, when it is one and loads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub js: Option<Described>,
}

/// `hookrig plugins show ID` as text: the row, then the package's hooks, or what the
/// JavaScript plugin registered (or why it failed to load).
impl fmt::Display for PluginDetail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl PluginDetail {
    fn text(&self) -> String {
        let plugin = &self.entry.plugin;
        let mut text = format!(
            "{} ({}, {})\n  path: {}\n  enabled for: {}\n",
            plugin.id,
            plugin.name,
            if self.kind == "js" {
                "JavaScript plugin"
            } else {
                "package of hooks"
            },
            plugin.path,
            enabled_for(&self.entry)
        );
        if let Some(version) = &plugin.version {
            let _ = writeln!(text, "  version: {version}");
        }
        if !plugin.description.is_empty() {
            let _ = writeln!(text, "  description: {}", plugin.description);
        }
        for problem in &self.problems {
            let _ = writeln!(text, "  problem: {problem}");
        }
        if self.js.is_none() {
            text.push_str("hooks:\n");
            if self.hooks.is_empty() {
                text.push_str("  none\n");
            }
            for hook in &self.hooks {
                let _ = writeln!(text, "  {}  {}", hook.name, hook.events.join(", "));
            }
        }
        if let Some(js) = &self.js {
            // What an emit runs: one entry per subscription when the plugin is
            // described, else the plugin as one hook (a problem above says why).
            text.push_str("chain:\n");
            if self.hooks.is_empty() {
                text.push_str("  none\n");
            }
            for hook in &self.hooks {
                let _ = writeln!(
                    text,
                    "  {}  {}  priority {}",
                    hook.name,
                    if hook.events.len() == 1 {
                        hook.events[0].clone()
                    } else {
                        format!("{} events", hook.events.len())
                    },
                    hook.priority
                );
            }
            if !js.loaded {
                let _ = writeln!(
                    text,
                    "load failure: {}\n{}",
                    js.error.as_deref().unwrap_or("unknown"),
                    indented(js.stack.as_deref().unwrap_or_default())
                );
                return text;
            }
            text.push_str("subscriptions:\n");
            if js.subscriptions.is_empty() {
                text.push_str("  none\n");
            }
            for sub in &js.subscriptions {
                let _ = writeln!(
                    text,
                    "  {}  {}  priority {}",
                    sub.event, sub.shape, sub.priority
                );
            }
            text.push_str("tools:\n");
            if js.tools.is_empty() {
                text.push_str("  none\n");
            }
            for tool in &js.tools {
                let _ = writeln!(text, "  {}  {}", tool.name, tool.description);
                let _ = writeln!(text, "    schema: {}", tool.schema);
            }
        }
        text
    }
}

/// Each line of `text` indented by two spaces (a load failure's stack).
fn indented(text: &str) -> String {
    text.lines()
        .map(|line| format!("  {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One hook of a package.
#[derive(Debug, Clone, Serialize)]
pub struct PluginHook {
    /// Its name.
    pub name: String,
    /// The canonical events it listens to.
    pub events: Vec<String>,
    /// Its place in the chain (lower runs first): a JavaScript plugin's subscription's
    /// own priority, or the manifest's for the plugin as one hook.
    pub priority: i32,
}

/// The host's answer to `--call=TOOL`.
#[derive(Debug, Clone, Deserialize)]
struct Called {
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    stack: Option<String>,
}

/// The registered package `id` in `store`, checked as an emit would load it, and for a
/// JavaScript plugin what its host says it registered (a load failure is part of the
/// answer, with its stack, not an error).
pub fn show_plugin(scope: &Scope, store: &Store, id: &str) -> Result<PluginDetail, RuntimeError> {
    let entry = store
        .plugins()
        .list()?
        .into_iter()
        .find(|e| e.plugin.id == id)
        .ok_or_else(|| RuntimeError::UnknownPlugin(id.to_owned()))?;
    show_entry(scope, entry)
}

/// [`show_plugin`] of a registry entry read already (one of the shared registry's that
/// verify: `SharedRegistry::entries`).
pub fn show_entry(scope: &Scope, entry: PluginEntry) -> Result<PluginDetail, RuntimeError> {
    let id = entry.plugin.id.clone();
    let check = check(scope, &entry);
    let host = check.package.as_ref().and_then(|p| p.host.clone());
    let js = match &host {
        Some(host) => Some(describe(scope, &id, host)?),
        None => None,
    };
    Ok(PluginDetail {
        kind: if host.is_some() || is_js(&entry) {
            "js"
        } else {
            "hooks"
        },
        hooks: check
            .hooks
            .iter()
            .map(|def| PluginHook {
                name: def.spec.name.clone(),
                priority: def.spec.priority,
                events: def
                    .spec
                    .events
                    .iter()
                    .map(|e| e.as_str().to_owned())
                    .collect(),
            })
            .collect(),
        problems: check.diagnostics.iter().map(ToString::to_string).collect(),
        js,
        entry,
    })
}

/// Calls the tool `tool` of the JavaScript plugin registered as `id` with `args` (a
/// JSON object): the tool's result, or an error saying what failed and where.
pub fn call_plugin_tool(
    scope: &Scope,
    store: &Store,
    id: &str,
    tool: &str,
    args: &Value,
) -> Result<Value, RuntimeError> {
    let row = store
        .plugins()
        .get(id)?
        .ok_or_else(|| RuntimeError::UnknownPlugin(id.to_owned()))?;
    let package = PackageRef {
        id: id.to_owned(),
        path: row.path.into(),
    };
    call_package_tool(scope, &package, tool, args)
}

/// [`call_plugin_tool`] of a package found already (one of the shared registry's that
/// this node runs: `SharedRegistry::package`).
pub fn call_package_tool(
    scope: &Scope,
    package: &PackageRef,
    tool: &str,
    args: &Value,
) -> Result<Value, RuntimeError> {
    let id = package.id.as_str();
    let check = hookrig_dialects::check_package(&scope.env, package);
    let host = loaded_host(id, &check)?;
    let answer = run(
        scope,
        id,
        &host,
        &format!("--call={tool}"),
        args.to_string(),
    )?;
    let called: Called =
        serde_json::from_value(answer).map_err(|err| RuntimeError::PluginHost {
            id: id.to_owned(),
            message: format!("an answer to a tool call that cannot be read: {err}"),
        })?;
    match (called.result, called.error) {
        (_, Some(error)) => Err(RuntimeError::PluginTool {
            id: id.to_owned(),
            tool: tool.to_owned(),
            error,
            stack: called.stack.unwrap_or_default(),
        }),
        (result, None) => Ok(result.unwrap_or(Value::Null)),
    }
}

/// The package of `entry` as an emit would load it.
fn check(scope: &Scope, entry: &PluginEntry) -> PackageCheck {
    hookrig_dialects::check_package(
        &scope.env,
        &PackageRef {
            id: entry.plugin.id.clone(),
            path: entry.plugin.path.clone().into(),
        },
    )
}

/// Whether the package's directory holds an OpenHermit manifest (for a package whose
/// manifest no longer loads, so that `show` still says what it is).
fn is_js(entry: &PluginEntry) -> bool {
    let dir = std::path::Path::new(&entry.plugin.path);
    dir.join("manifest.json").is_file() && !dir.join("plugin.json").is_file()
}

/// The host of a package that loads and is a JavaScript plugin.
pub(crate) fn loaded_host(id: &str, check: &PackageCheck) -> Result<PluginHost, RuntimeError> {
    let errors: Vec<String> = check
        .diagnostics
        .iter()
        .filter(|d| d.severity == hookrig_core::Severity::Error)
        .map(ToString::to_string)
        .collect();
    if !errors.is_empty() {
        return Err(RuntimeError::PluginHost {
            id: id.to_owned(),
            message: format!("its manifest does not load: {}", errors.join("; ")),
        });
    }
    check
        .package
        .as_ref()
        .and_then(|p| p.host.clone())
        .ok_or_else(|| RuntimeError::PluginHost {
            id: id.to_owned(),
            message: "it is a package of hooks, not a JavaScript plugin with tools".to_owned(),
        })
}

/// Asks the host what the plugin registered, and keeps the answer as the description
/// the chain is built from: `show` is also how a user has a plugin described again.
fn describe(scope: &Scope, id: &str, host: &PluginHost) -> Result<Described, RuntimeError> {
    let answer = run(scope, id, host, "--describe", String::new())?;
    let described = serde_json::from_value(answer).map_err(|err| RuntimeError::PluginHost {
        id: id.to_owned(),
        message: format!("a description that cannot be read: {err}"),
    })?;
    hookrig_dialects::remember_description(host, &described);
    Ok(described)
}

/// Runs the host once with `mode`, `stdin` on its stdin, to its timeout; its one JSON
/// answer.
fn run(
    scope: &Scope,
    id: &str,
    host: &PluginHost,
    mode: &str,
    stdin: String,
) -> Result<Value, RuntimeError> {
    hookrig_dialects::run_plugin_host(host, scope.cwd(), scope.agent.as_deref(), mode, stdin)
        .map_err(|message| RuntimeError::PluginHost {
            id: id.to_owned(),
            message,
        })
}
