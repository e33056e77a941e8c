//! Which tools an automation's LLM may call: the read-only ones always, the others
//! only when its definition lists them in `tools = [...]`.
//!
//! The read-only tools ([`READ_ONLY`]) look at the automation's own workspace and
//! memory and change nothing, so every automation has them. A tool that changes
//! something or reaches out (`create_task`, `http_get`, `notify`, `shell`) must be
//! named; `shell` also needs `shell_allow`, the programs it may run. A project
//! automation runs only once its file is trusted as it is, so its grants are trusted
//! with it: editing `tools` makes the file untrusted again.
//!
//! A tool a registered JavaScript plugin adds with `ctx.tools.add` is granted as
//! `plugin:ID/TOOL` (the plugin's registered id, the tool's name), one grant per tool:
//! a plugin's later tools are not granted by an older grant. The model calls it as
//! `ID__TOOL`, since the APIs take only letters, digits, `_` and `-` in a tool's name,
//! and the prefix keeps it apart from hookrig's tools and other plugins' (a plugin id
//! has no `_`, so the first `__` ends it).

use hookrig_runtime::ToolRef;
use serde::{Deserialize, Serialize};

/// How a grant of a plugin's tool starts: `plugin:ID/TOOL`.
pub const PLUGIN_PREFIX: &str = "plugin:";

/// The longest tool name the LLM APIs take.
const MAX_MODEL_NAME: usize = 64;

/// The tool rounds a run may take when its definition does not say.
pub const DEFAULT_MAX_TOOL_ROUNDS: u32 = 10;

/// The tools every automation has (`plan_board` only when it names a plan).
pub const READ_ONLY: &[&str] = &["read_file", "list_files", "memory_search", "plan_board"];

/// The tools that act on the automation's plan, which it must name.
pub const PLAN_TOOLS: &[&str] = &["task_claim", "task_complete", "task_block", "plan_assert"];

/// Every tool there is, the read-only ones first.
pub const TOOL_NAMES: &[&str] = &[
    "read_file",
    "list_files",
    "memory_search",
    "plan_board",
    "create_task",
    "task_claim",
    "task_complete",
    "task_block",
    "plan_assert",
    "memory_upsert",
    "http_get",
    "emit",
    "notify",
    "shell",
];

/// The tool access of one automation, as its definition gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolGrants {
    /// The tools granted beyond the read-only ones, as written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// The programs `shell` may run (a name looked up in `PATH`, or a path).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shell_allow: Vec<String>,
    /// How many times the model may ask for tools before the run fails.
    #[serde(default = "default_rounds")]
    pub max_tool_rounds: u32,
    /// The plan file the plan tools read and act on, relative to the workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
}

fn default_rounds() -> u32 {
    DEFAULT_MAX_TOOL_ROUNDS
}

impl Default for ToolGrants {
    fn default() -> Self {
        ToolGrants {
            tools: Vec::new(),
            shell_allow: Vec::new(),
            max_tool_rounds: DEFAULT_MAX_TOOL_ROUNDS,
            plan: None,
        }
    }
}

impl ToolGrants {
    /// Checks the names and the shell allowlist: the message says what is wrong and
    /// what may be written instead.
    pub fn check(&self) -> Result<(), String> {
        for name in &self.tools {
            check_tool(name).map_err(|why| format!("`tools`: {why}"))?;
        }
        let shell = self.tools.iter().any(|t| t == "shell");
        if shell && self.shell_allow.is_empty() {
            return Err(
                "`tools` grants `shell` but `shell_allow` lists no program; list the programs it may run, e.g. shell_allow = [\"cargo\", \"git\"]"
                    .to_owned(),
            );
        }
        if !shell && !self.shell_allow.is_empty() {
            return Err("`shell_allow` is set but `tools` does not grant `shell`".to_owned());
        }
        if let Some(blank) = self.shell_allow.iter().find(|p| p.trim().is_empty()) {
            return Err(format!(
                "`shell_allow` holds an empty program name ({blank:?})"
            ));
        }
        if self.plan.is_none()
            && let Some(tool) = self.tools.iter().find(|t| PLAN_TOOLS.contains(&t.as_str()))
        {
            return Err(format!(
                "`tools` grants `{tool}` but the automation names no `plan`; set plan = \"PATH\" (a plan file of its workspace)"
            ));
        }
        if self.max_tool_rounds == 0 {
            return Err("`max_tool_rounds` must be at least 1".to_owned());
        }
        Ok(())
    }

    /// The tools the model is offered: the read-only ones and the granted ones, in
    /// [`TOOL_NAMES`] order.
    pub fn offered(&self) -> Vec<&'static str> {
        TOOL_NAMES
            .iter()
            .copied()
            .filter(|name| READ_ONLY.contains(name) || self.tools.iter().any(|t| t == name))
            .filter(|name| *name != "plan_board" || self.plan.is_some())
            .collect()
    }

    /// The plugins' tools granted, `plugin:ID/TOOL` in `tools`, in the order written.
    /// Grants that [`check`](Self::check) refuses are left out.
    pub fn plugin_tools(&self) -> Vec<ToolRef> {
        self.tools
            .iter()
            .filter_map(|name| plugin_tool(name).ok())
            .collect()
    }

    /// Whether the grants are the defaults (nothing to store).
    pub fn is_default(&self) -> bool {
        *self == ToolGrants::default()
    }
}

/// Whether `name` can be granted: one of [`TOOL_NAMES`], or `plugin:ID/TOOL`.
pub fn check_tool(name: &str) -> Result<(), String> {
    if name.starts_with(PLUGIN_PREFIX) {
        plugin_tool(name).map(drop)
    } else if TOOL_NAMES.contains(&name) {
        Ok(())
    } else {
        Err(format!(
            "unknown tool `{name}`; the tools are {}, and a plugin's tool is `plugin:ID/TOOL`",
            TOOL_NAMES.join(", ")
        ))
    }
}

/// The plugin tool a `plugin:ID/TOOL` grant names, or what is wrong with it.
fn plugin_tool(grant: &str) -> Result<ToolRef, String> {
    let refused = |why: &str| {
        format!(
            "`{grant}`: {why}; a plugin's tool is granted as `plugin:ID/TOOL`, e.g. `plugin:hermit-tools/word_count`"
        )
    };
    let rest = grant.strip_prefix(PLUGIN_PREFIX).unwrap_or(grant);
    let (plugin, tool) = rest
        .split_once('/')
        .ok_or_else(|| refused("no `/` between the plugin's id and the tool's name"))?;
    if !hookrig_dialects::valid_package_id(plugin) {
        return Err(refused(&format!(
            "`{plugin}` is not a plugin id (^[a-z0-9][a-z0-9-]*$)"
        )));
    }
    let tool_name = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if tool.is_empty() || !tool.chars().all(tool_name) {
        return Err(refused(&format!(
            "`{tool}` is not a tool name (letters, digits, `_` and `-`)"
        )));
    }
    let tool = ToolRef {
        plugin: plugin.to_owned(),
        tool: tool.to_owned(),
    };
    let called = model_name(&tool);
    if called.len() > MAX_MODEL_NAME {
        return Err(refused(&format!(
            "the model would call it `{called}`, longer than the {MAX_MODEL_NAME} characters the LLM APIs take"
        )));
    }
    Ok(tool)
}

/// The name the model calls the plugin tool `tool` by: `ID__TOOL`.
pub fn model_name(tool: &ToolRef) -> String {
    format!("{}__{}", tool.plugin, tool.tool)
}

#[cfg(test)]
mod tests {
    use test_case::test_case;

    use super::*;

    fn grants(tools: &[&str], allow: &[&str]) -> ToolGrants {
        ToolGrants {
            tools: tools.iter().map(|t| (*t).to_owned()).collect(),
            shell_allow: allow.iter().map(|t| (*t).to_owned()).collect(),
            max_tool_rounds: DEFAULT_MAX_TOOL_ROUNDS,
            plan: None,
        }
    }

    #[test]
    fn read_only_tools_are_offered_without_a_grant() {
        assert_eq!(
            ToolGrants::default().offered(),
            ["read_file", "list_files", "memory_search"]
        );
        assert_eq!(
            grants(&["shell", "create_task"], &["cargo"]).offered(),
            [
                "read_file",
                "list_files",
                "memory_search",
                "create_task",
                "shell"
            ]
        );
    }

    #[test_case(&["rm"], &[], "`tools`: unknown tool `rm`; the tools are read_file, list_files, memory_search, plan_board, create_task, task_claim, task_complete, task_block, plan_assert, memory_upsert, http_get, emit, notify, shell, and a plugin's tool is `plugin:ID/TOOL`"; "unknown")]
    #[test_case(&["plugin:hermit-tools"], &[], "`tools`: `plugin:hermit-tools`: no `/` between the plugin's id and the tool's name; a plugin's tool is granted as `plugin:ID/TOOL`, e.g. `plugin:hermit-tools/word_count`"; "plugin grant without a tool")]
    #[test_case(&["plugin:Tools/x"], &[], "`tools`: `plugin:Tools/x`: `Tools` is not a plugin id (^[a-z0-9][a-z0-9-]*$); a plugin's tool is granted as `plugin:ID/TOOL`, e.g. `plugin:hermit-tools/word_count`"; "plugin grant with a bad id")]
    #[test_case(&["plugin:t/a b"], &[], "`tools`: `plugin:t/a b`: `a b` is not a tool name (letters, digits, `_` and `-`); a plugin's tool is granted as `plugin:ID/TOOL`, e.g. `plugin:hermit-tools/word_count`"; "plugin grant with a bad tool")]
    #[test_case(&["task_claim"], &[], "`tools` grants `task_claim` but the automation names no `plan`; set plan = \"PATH\" (a plan file of its workspace)"; "plan tool without a plan")]
    #[test_case(&["shell"], &[], "`tools` grants `shell` but `shell_allow` lists no program; list the programs it may run, e.g. shell_allow = [\"cargo\", \"git\"]"; "shell without allowlist")]
    #[test_case(&[], &["git"], "`shell_allow` is set but `tools` does not grant `shell`"; "allowlist without shell")]
    #[test_case(&["shell"], &[" "], "`shell_allow` holds an empty program name (\" \")"; "blank program")]
    fn bad_grants_say_what_to_write(tools: &[&str], allow: &[&str], message: &str) {
        assert_eq!(grants(tools, allow).check().expect_err("refused"), message);
    }

    #[test]
    fn plugin_tools_are_granted_one_by_one_and_called_by_id_and_name() {
        let granted = grants(
            &["plugin:hermit-tools/word_count", "shell", "plugin:m-2/x_y"],
            &["cargo"],
        );
        assert_eq!(granted.check(), Ok(()));
        let tools = granted.plugin_tools();
        let called: Vec<String> = tools.iter().map(model_name).collect();
        assert_eq!(called, ["hermit-tools__word_count", "m-2__x_y"]);
        assert_eq!(
            granted.offered(),
            ["read_file", "list_files", "memory_search", "shell"],
            "a plugin's tool is not one of hookrig's"
        );
        let long = format!("plugin:{}/tool", "p".repeat(60));
        assert!(
            grants(&[&long], &[])
                .check()
                .expect_err("too long")
                .contains("longer than the 64 characters the LLM APIs take")
        );
    }
}
