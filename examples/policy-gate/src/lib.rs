//! An example hookrig Rust plugin: a policy gate that vetoes `rm -rf` anywhere in a
//! tool's input.
//!
//! It subscribes a veto handler to `tool.before` and adds an in-process tool,
//! `policy_check`, that answers whether a command would pass the gate (so an agent can
//! ask before it tries). Refusals are logged through the plugin's logger.
//!
//! ```no_run
//! use std::collections::BTreeMap;
//! use std::sync::Arc;
//! use hookrig_core::{LogSink, MemoryView, PluginHost, SessionView, Tools};
//! use hookrig_example_policy_gate::PolicyGate;
//! # fn sink() -> Arc<dyn LogSink> { unimplemented!() }
//!
//! // A bus that knows every dialect's event names, as an agent builds one.
//! let bus = hookrig_dialects::events::bus();
//! let mut tools = Tools::new();
//! let memory: Arc<dyn MemoryView> = Arc::new(BTreeMap::new());
//! let mut host = PluginHost {
//!     bus: &bus,
//!     tools: &mut tools,
//!     session: &SessionView::default(),
//!     memory: &memory,
//!     log: &sink(),
//! };
//! host.install(&PolicyGate::default()).expect("installs");
//! ```

use hookrig_core::{BusHandler, HandlerError, Payload, Plugin, PluginContext, VetoReply};
use serde_json::{Value, json};

/// The gate. Its priority is low (runs early) so that later handlers never see a
/// payload it refuses.
#[derive(Debug, Clone, Copy)]
pub struct PolicyGate {
    /// Where in the `tool.before` chain it runs.
    pub priority: i32,
}

impl Default for PolicyGate {
    fn default() -> Self {
        Self { priority: 10 }
    }
}

/// The reason given for a refusal.
pub const REASON: &str = "recursive forced removal (rm -rf) is not allowed";

impl Plugin for PolicyGate {
    fn id(&self) -> &'static str {
        "policy-gate"
    }

    fn register(&self, ctx: &mut PluginContext<'_>) -> Result<(), HandlerError> {
        let logger = ctx.logger();
        ctx.bus().on(
            "tool.before@v1",
            BusHandler::veto(move |payload: &Payload| {
                let input = payload.as_map().get("tool").and_then(|t| t.get("input"));
                match input.and_then(offending) {
                    Some(command) => {
                        logger.warn(&format!("refused `{command}`"));
                        Ok(VetoReply::deny(REASON))
                    }
                    None => Ok(VetoReply::Allow),
                }
            }),
            self.priority,
        )?;
        ctx.tools().add(
            "policy_check",
            json!({
                "type": "object",
                "properties": {"command": {"type": "string"}},
                "required": ["command"]
            }),
            |input| {
                let command = input
                    .get("command")
                    .and_then(Value::as_str)
                    .ok_or("`command` must be a string")?;
                Ok(if removes_recursively_by_force(command) {
                    json!({"allowed": false, "reason": REASON})
                } else {
                    json!({"allowed": true})
                })
            },
        )?;
        Ok(())
    }
}

/// The first string anywhere in `input` (the tool's own field names vary: `command`,
/// `cmd`, `args`, ...) that runs `rm` recursively and by force.
fn offending(input: &Value) -> Option<&str> {
    match input {
        Value::String(text) => removes_recursively_by_force(text).then_some(text.as_str()),
        Value::Array(items) => items.iter().find_map(offending),
        Value::Object(fields) => fields.values().find_map(offending),
        _ => None,
    }
    .or_else(|| argv_offends(input))
}

/// An argv array (`["rm", "-r", "-f", "x"]`) is a command too.
fn argv_offends(input: &Value) -> Option<&str> {
    let Value::Array(items) = input else {
        return None;
    };
    let words: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
    (words.len() == items.len() && command_offends(&words)).then_some("(argv)")
}

/// Whether a shell command line contains an `rm` with both a recursive and a force
/// flag, in any spelling: `-rf`, `-fr`, `-Rf`, `-r -f`, `--recursive --force`, after
/// `sudo`, `;`, `&&`, `|` or a newline, or as `/bin/rm`.
pub fn removes_recursively_by_force(command: &str) -> bool {
    command
        .split([';', '&', '|', '\n', '(', ')', '`'])
        .any(|part| command_offends(&part.split_whitespace().collect::<Vec<_>>()))
}

/// Whether one simple command's words run `rm` with both flags.
fn command_offends(words: &[&str]) -> bool {
    words
        .iter()
        .enumerate()
        .filter(|(_, word)| {
            let word = word.trim_matches(['"', '\'']);
            word == "rm" || word.ends_with("/rm")
        })
        .any(|(at, _)| {
            let (mut recursive, mut force) = (false, false);
            for word in &words[at + 1..] {
                let word = word.trim_matches(['"', '\'']);
                match word {
                    "--" => break,
                    "--recursive" => recursive = true,
                    "--force" => force = true,
                    flags if flags.starts_with('-') && !flags.starts_with("--") => {
                        recursive |= flags.contains(['r', 'R']);
                        force |= flags.contains('f');
                    }
                    // Flags may follow operands (GNU rm reads `rm x -rf`), so keep going.
                    _ => {}
                }
            }
            recursive && force
        })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};

    use hookrig_core::{
        Bus, LogLevel, LogSink, MemoryView, PluginHost, SessionView, Tools, VetoOutcome,
    };
    use test_case::test_case;

    use super::*;

    #[test_case("rm -rf /", true; "plain")]
    #[test_case("rm -fr build", true; "reversed")]
    #[test_case("rm -Rf build", true; "capital r")]
    #[test_case("rm -r -f build", true; "separate flags")]
    #[test_case("rm --recursive --force build", true; "long flags")]
    #[test_case("rm -r build --force", true; "flag after operand")]
    #[test_case("sudo rm -rf /var", true; "sudo")]
    #[test_case("cd /tmp && rm -rf x", true; "after and")]
    #[test_case("make; /bin/rm -rf out", true; "absolute path")]
    #[test_case("echo hi\nrm -rf ~", true; "second line")]
    #[test_case("rm \"-rf\" x", true; "quoted flags")]
    #[test_case("rm -r build", false; "recursive only")]
    #[test_case("rm -f file", false; "force only")]
    #[test_case("rm -- -rf", false; "operand named -rf")]
    #[test_case("echo rm; ls -rf", false; "flags on another command")]
    #[test_case("git rm -r --cached x", false; "git rm without force")]
    #[test_case("cargo test", false; "harmless")]
    fn detects_recursive_forced_removal(command: &str, refused: bool) {
        assert_eq!(removes_recursively_by_force(command), refused);
    }

    #[derive(Default)]
    struct Lines(Mutex<Vec<String>>);

    impl LogSink for Lines {
        fn log(&self, plugin_id: &str, level: LogLevel, message: &str) {
            self.0
                .lock()
                .expect("test lock")
                .push(format!("{plugin_id} {level:?}: {message}"));
        }
    }

    struct Agent {
        bus: Bus,
        tools: Tools,
        lines: Arc<Lines>,
    }

    fn agent_with_gate() -> Agent {
        let bus = hookrig_dialects::events::bus();
        let mut tools = Tools::new();
        let lines = Arc::new(Lines::default());
        let sink: Arc<dyn LogSink> = lines.clone();
        let memory: Arc<dyn MemoryView> = Arc::new(BTreeMap::new());
        PluginHost {
            bus: &bus,
            tools: &mut tools,
            session: &SessionView::default(),
            memory: &memory,
            log: &sink,
        }
        .install(&PolicyGate::default())
        .expect("installs");
        Agent { bus, tools, lines }
    }

    fn tool_before(input: &Value) -> Payload {
        let Value::Object(map) = json!({"tool": {"name": "bash", "input": input}}) else {
            unreachable!("an object literal")
        };
        Payload::from_map(map)
    }

    #[test_case(&json!({"command": "rm -rf /"}), true; "command field")]
    #[test_case(&json!({"cmd": "cd x && rm -fr y"}), true; "other field")]
    #[test_case(&json!({"args": ["rm", "-r", "-f", "y"]}), true; "argv")]
    #[test_case(&json!({"steps": [{"run": "sudo rm -Rf /opt"}]}), true; "nested")]
    #[test_case(&json!({"command": "cargo test"}), false; "harmless")]
    #[test_case(&json!({"path": "notes/rm -rf.md", "content": "x"}), true; "any string counts")]
    #[test_case(&json!(null), false; "no input")]
    fn vetoes_rm_rf_in_tool_input(input: &Value, refused: bool) {
        let agent = agent_with_gate();

        let outcome = agent
            .bus
            .veto("PreToolUse", tool_before(input))
            .expect("vetoes");

        if refused {
            assert_eq!(
                outcome,
                VetoOutcome::Deny {
                    plugin_id: "policy-gate".to_owned(),
                    reason: Some(REASON.to_owned())
                }
            );
            assert_eq!(agent.lines.0.lock().expect("test lock").len(), 1);
        } else {
            assert_eq!(
                outcome,
                VetoOutcome::Allow {
                    payload: tool_before(input)
                }
            );
            assert!(agent.lines.0.lock().expect("test lock").is_empty());
        }
    }

    #[test]
    fn the_refusal_is_logged_with_the_command() {
        let agent = agent_with_gate();
        agent
            .bus
            .veto("tool.before", tool_before(&json!({"command": "rm -rf /"})))
            .expect("vetoes");
        assert_eq!(
            *agent.lines.0.lock().expect("test lock"),
            ["policy-gate Warn: refused `rm -rf /`"]
        );
    }

    #[test]
    fn later_handlers_never_see_a_refused_call() {
        let agent = agent_with_gate();
        let seen = Arc::new(Mutex::new(0));
        let counter = seen.clone();
        agent
            .bus
            .on(
                "tool.before",
                "audit",
                BusHandler::veto(move |_| {
                    *counter.lock().expect("test lock") += 1;
                    Ok(VetoReply::Allow)
                }),
                100,
            )
            .expect("subscribes");

        agent
            .bus
            .veto("tool.before", tool_before(&json!({"command": "rm -rf /"})))
            .expect("vetoes");
        agent
            .bus
            .veto("tool.before", tool_before(&json!({"command": "ls"})))
            .expect("vetoes");

        assert_eq!(*seen.lock().expect("test lock"), 1);
    }

    #[test]
    fn policy_check_tool_answers_without_running_anything() {
        let agent = agent_with_gate();
        let tool = agent.tools.get("policy_check").expect("added");

        assert_eq!(tool.schema["required"], json!(["command"]));
        assert_eq!(
            tool.call(&json!({"command": "rm -rf /"})),
            Ok(json!({"allowed": false, "reason": REASON}))
        );
        assert_eq!(
            tool.call(&json!({"command": "ls"})),
            Ok(json!({"allowed": true}))
        );
        assert_eq!(
            tool.call(&json!({})).expect_err("bad input").to_string(),
            "tool `policy_check` of plugin `policy-gate` failed: `command` must be a string"
        );
    }
}
