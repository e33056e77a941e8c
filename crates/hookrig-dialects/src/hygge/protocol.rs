//! The hygge protocol: how its hooks read an event and how their replies are read.
//!
//! Stdin: hygge's `Input` as compact JSON without a trailing newline, keys in the order
//! of its Go struct. Environment: only `PATH HOME LANG USER TERM LC_ALL LC_CTYPE` from
//! hookrig's own, plus the hook's `env` table; no `HOOKRIG_*` variables, since hygge
//! hooks never got any and the point of the minimal environment is that nothing else
//! leaks in. Reply: hygge's rules, in its order (timeout, non-zero exit, empty stdout,
//! not JSON, then the `Action`).

use hookrig_core::{Action, Dialect, Failure, FailureKind, Invocation, Reply, Verdict};
use hookrig_exec::process::{EnvPolicy, ProcessOutput, SpawnError, SpawnErrorKind, Termination};
use hookrig_exec::{Limits, Protocol};
use serde_json::{Map, Value, json};

use super::loader::format_go_duration;
use super::wire::{Action as WireAction, Input, ToolResult};
use crate::native::cut;
use crate::protocol::DialectProtocol;
use crate::wire::Shaped;

/// hygge's protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HyggeProtocol;

impl Protocol for HyggeProtocol {
    fn stdin(&self, hook: &str, invocation: &Invocation) -> Vec<u8> {
        stdin(hook, invocation)
    }

    fn env(
        &self,
        hook: &str,
        invocation: &Invocation,
        configured: &[(String, String)],
    ) -> EnvPolicy {
        env(hook, invocation, configured)
    }

    fn reply(
        &self,
        hook: &str,
        limits: &Limits,
        invocation: &Invocation,
        output: &ProcessOutput,
    ) -> Reply {
        reply(hook, limits, invocation, output)
    }
}

impl DialectProtocol for HyggeProtocol {
    fn dialect(&self) -> Dialect {
        Dialect::Hygge
    }

    fn definition(&self) -> String {
        "Hygge".to_owned()
    }
}

/// Longest deny reason taken from stderr: hygge's 1 KiB.
const REASON_CAP: usize = 1024;

/// The parent's variables a hygge hook gets.
const KEEP: [&str; 7] = ["PATH", "HOME", "LANG", "USER", "TERM", "LC_ALL", "LC_CTYPE"];

/// The text of a JSON string; empty for anything else.
fn text(value: Option<&Value>) -> &str {
    value.and_then(Value::as_str).unwrap_or_default()
}

/// hygge's name of a canonical event.
fn hygge_event(canonical: &str) -> &str {
    // The loader registers hygge hooks only for hygge's four events.
    super::events::name_of(canonical).unwrap_or(canonical)
}

fn stdin(hook: &str, invocation: &Invocation) -> Vec<u8> {
    let context = &invocation.context;
    let payload = invocation.payload.as_map();
    let tool = payload.get("tool").and_then(Value::as_object);
    let tool_field = |field: &str| tool.and_then(|t| t.get(field));
    let event = context.name.as_str();
    let tool_result = (event == "tool.after"
        && (tool_field("output").is_some() || tool_field("is_error").is_some()))
    .then(|| ToolResult {
        content: Some(Value::String(match tool_field("output") {
            Some(Value::String(text)) => text.clone(),
            None | Some(Value::Null) => String::new(),
            // hygge's content is text; structured output is passed as its JSON.
            Some(other) => other.to_string(),
        })),
        is_error: Some(Value::Bool(
            tool_field("is_error")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        )),
    });
    let message = match event {
        "prompt.submit" => text(payload.get("prompt")),
        "message.after" => text(payload.get("message")),
        _ => "",
    };
    // Go's `omitempty`: an empty text is left out.
    let unless_empty = |text: &str| (!text.is_empty()).then(|| Value::String(text.to_owned()));
    let input = Input {
        event: Some(hygge_event(event).to_owned()),
        session_id: Some(Value::String(context.session_id.clone())),
        hook_name: Some(Value::String(hook.to_owned())),
        pwd: Some(Value::String(context.cwd.to_string_lossy().into_owned())),
        tool_name: unless_empty(text(tool_field("name"))),
        tool_input: tool_field("input").cloned(),
        tool_result: tool_result.map(Shaped::Typed),
        message: unless_empty(message),
        mode_name: unless_empty(text(payload.get("mode_name"))),
        rest: Map::new(),
    };
    serde_json::to_vec(&input).expect("the Input always serializes")
}

fn env(_hook: &str, _invocation: &Invocation, configured: &[(String, String)]) -> EnvPolicy {
    EnvPolicy::Only {
        keep: KEEP.iter().map(|&name| name.to_owned()).collect(),
        set: configured.to_vec(),
    }
}

fn reply(hook: &str, limits: &Limits, invocation: &Invocation, output: &ProcessOutput) -> Reply {
    let _ = limits;
    let event = invocation.context.name.as_str();
    let exited_with_error = |detail: String| {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stderr = stderr.trim();
        if stderr.is_empty() {
            format!("hook {hook} exited with error: {detail}")
        } else {
            cut(stderr, REASON_CAP).to_owned()
        }
    };
    let failure = |kind, message| Reply::Failure(Failure { kind, message });
    let reply = match &output.termination {
        Termination::TimedOut { after, .. } => failure(
            FailureKind::Timeout,
            format!("hook {hook} timed out after {}", format_go_duration(*after)),
        ),
        Termination::Interrupted => failure(
            FailureKind::Interrupted,
            format!(
                "hook {hook} was killed before it finished: hookrig was interrupted or stopped waiting for it"
            ),
        ),
        Termination::SpawnFailed(err) => {
            failure(FailureKind::Spawn, exited_with_error(go_spawn_error(err)))
        }
        Termination::Signaled(signal) => failure(
            FailureKind::Crash,
            exited_with_error(format!("signal: {}", signal_name(*signal))),
        ),
        // hygge's documented deny: a non-zero exit, the reason on stderr.
        Termination::Exited(code) if *code != 0 => Reply::Verdict(Verdict::deny(
            exited_with_error(format!("exit status {code}")),
        )),
        Termination::Exited(_) => action(hook, event, output),
    };
    if event == "tool.after" {
        post_tool(hook, reply)
    } else {
        reply
    }
}

/// hygge runs `post_tool` hooks through `RunPost`, which has no deny: what would deny
/// (a deny decision, a non-zero exit, a timeout, a failure to start) lets the result
/// through with a warning. hookrig's tool.after can deny, so the answer is rewritten
/// here, where the dialect is known.
fn post_tool(hook: &str, reply: Reply) -> Reply {
    let reason = match reply {
        Reply::Verdict(verdict) if verdict.action != Action::Deny => {
            return Reply::Verdict(verdict);
        }
        Reply::Failure(failure) if failure.kind == FailureKind::Interrupted => {
            return Reply::Failure(failure);
        }
        Reply::Verdict(verdict) => verdict.reason.unwrap_or_default(),
        Reply::Failure(failure) => failure.message,
    };
    let mut verdict = Verdict::allow();
    verdict.warnings.push(format!(
        "hook {hook}: deny on post_tool ignored (hygge post hooks cannot deny): {reason}"
    ));
    Reply::Verdict(verdict)
}

/// The hook's stdout, read as an `Action` once it exited 0.
fn action(hook: &str, event: &str, output: &ProcessOutput) -> Reply {
    let allow_with = |warning: String| {
        let mut verdict = Verdict::allow();
        verdict.warnings.push(warning);
        Reply::Verdict(verdict)
    };
    if output.stdout.trim_ascii().is_empty() {
        return Reply::Verdict(Verdict::allow());
    }
    let wire = match serde_json::from_slice::<Value>(&output.stdout) {
        Ok(value @ Value::Object(_)) => match serde_json::from_value::<WireAction>(value)
            .and_then(|wire| wire.check().map(|()| wire))
        {
            Ok(wire) => wire,
            Err(err) => {
                return allow_with(format!(
                    "hook {hook}: stdout is not a valid hygge Action ({err}); treated as allow"
                ));
            }
        },
        Ok(_) | Err(_) => {
            return allow_with(format!(
                "hook {hook}: stdout is not one JSON object; treated as allow"
            ));
        }
    };

    let mut verdict = Verdict::allow();
    verdict.reason = wire.reason.filter(|r| !r.is_empty());
    match wire.decision.as_deref() {
        None | Some("" | "allow") => {}
        Some("deny") => verdict.action = Action::Deny,
        Some("modify") => {
            let patch = modification(
                hook,
                event,
                wire.modified_tool_input,
                wire.modified_message,
                wire.modified_tool_result,
                &mut verdict.warnings,
            );
            if let Some(patch) = patch {
                verdict.action = Action::Modify;
                verdict.patch = Some(patch);
            }
        }
        Some(other) => verdict.warnings.push(format!(
            "hook {hook}: unknown decision `{other}` treated as allow"
        )),
    }
    // Honoured for allow and modify only, and only where hygge reads it.
    if event == "prompt.submit" && verdict.action != Action::Deny {
        verdict.system_prompt_append = wire.system_prompt_append.filter(|s| !s.is_empty());
    }
    Reply::Verdict(verdict)
}

/// The canonical patch of a `modify`: only the field hygge acts on for `event`.
fn modification(
    hook: &str,
    event: &str,
    tool_input: Option<Value>,
    message: Option<String>,
    tool_result: Option<ToolResult>,
    warnings: &mut Vec<String>,
) -> Option<Map<String, Value>> {
    // Go's `omitempty` fields: null and "" are the same as absent.
    let tool_input = tool_input.filter(|v| !v.is_null());
    let message = message.filter(|m| !m.is_empty());
    let patch = match event {
        "tool.before" => tool_input.map(|input| json!({"tool": {"input": input}})),
        "prompt.submit" => message.map(|text| json!({"prompt": text})),
        "message.after" => message.map(|text| json!({"message": text})),
        "tool.after" => tool_result.map(
            |result| json!({"tool": {"output": result.content_text(), "is_error": result.is_error()}}),
        ),
        _ => None,
    };
    if let Some(Value::Object(patch)) = patch {
        return Some(patch);
    }
    warnings.push(format!(
        "hook {hook}: decision \"modify\" without a field hygge acts on for {} changes nothing",
        hygge_event(event)
    ));
    None
}

/// Go's `exec` error text for a program that could not be started.
fn go_spawn_error(err: &SpawnError) -> String {
    let program = err.program.to_string_lossy();
    match err.kind {
        SpawnErrorKind::NotFound if !program.contains('/') => {
            format!("exec: \"{program}\": executable file not found in $PATH")
        }
        SpawnErrorKind::NotFound => format!("fork/exec {program}: no such file or directory"),
        SpawnErrorKind::PermissionDenied => format!("fork/exec {program}: permission denied"),
        SpawnErrorKind::Other => format!("fork/exec {program}: {}", err.message),
    }
}

/// Go's name of a signal (`syscall.Signal.String`), for `signal: killed`.
fn signal_name(signal: i32) -> String {
    let name = match signal {
        1 => "hangup",
        2 => "interrupt",
        3 => "quit",
        4 => "illegal instruction",
        5 => "trace/breakpoint trap",
        6 => "aborted",
        7 => "bus error",
        8 => "floating point exception",
        9 => "killed",
        10 => "user defined signal 1",
        11 => "segmentation fault",
        12 => "user defined signal 2",
        13 => "broken pipe",
        14 => "alarm clock",
        15 => "terminated",
        other => return format!("signal {other}"),
    };
    name.to_owned()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::time::Duration;

    use hookrig_core::{EventContext, EventName, Payload};

    use super::*;

    fn invocation(event: &str, payload: Value) -> Invocation {
        let Value::Object(map) = payload else {
            panic!("payload must be an object")
        };
        Invocation {
            context: Arc::new(EventContext {
                name: EventName::resolve(event),
                session_id: "s1".to_owned(),
                cwd: PathBuf::from("/work"),
                env: None,
            }),
            payload: Payload::from_map(map),
        }
    }

    fn output(termination: Termination, stdout: &str, stderr: &str) -> ProcessOutput {
        ProcessOutput {
            termination,
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            stdout_truncated: false,
            stderr_truncated: false,
            leaked: false,
            leftovers: hookrig_exec::Leftovers::default(),
            duration: Duration::from_millis(3),
        }
    }

    fn read(event: &str, termination: Termination, stdout: &str, stderr: &str) -> Reply {
        reply(
            "guard",
            &Limits::default(),
            &invocation(event, json!({})),
            &output(termination, stdout, stderr),
        )
    }

    fn verdict(reply: Reply) -> Verdict {
        match reply {
            Reply::Verdict(v) => v,
            Reply::Failure(f) => panic!("expected a verdict, got {f:?}"),
        }
    }

    #[test]
    fn stdin_for_each_event() {
        let stdin = |event, payload| {
            String::from_utf8(super::stdin("guard", &invocation(event, payload))).expect("utf-8")
        };
        assert_eq!(
            stdin(
                "tool.before",
                json!({"tool": {"name": "bash", "input": {"cmd": "ls"}}, "mode_name": ""})
            ),
            r#"{"event":"pre_tool","session_id":"s1","hook_name":"guard","pwd":"/work","tool_name":"bash","tool_input":{"cmd":"ls"}}"#
        );
        assert_eq!(
            stdin(
                "tool.after",
                json!({"tool": {"name": "bash", "input": {}, "output": {"n": 1}}})
            ),
            r#"{"event":"post_tool","session_id":"s1","hook_name":"guard","pwd":"/work","tool_name":"bash","tool_input":{},"tool_result":{"content":"{\"n\":1}","is_error":false}}"#
        );
        assert_eq!(
            stdin(
                "prompt.submit",
                json!({"prompt": "hi", "message": "no", "mode_name": "plan"})
            ),
            r#"{"event":"pre_message","session_id":"s1","hook_name":"guard","pwd":"/work","message":"hi","mode_name":"plan"}"#
        );
    }

    #[test]
    fn exit_and_spawn_details_read_like_go() {
        let v = verdict(read("tool.before", Termination::Exited(3), "", " \n"));
        assert_eq!(
            v.reason.as_deref(),
            Some("hook guard exited with error: exit status 3")
        );
        let long = "é".repeat(1000);
        let v = verdict(read("tool.before", Termination::Exited(1), "", &long));
        assert_eq!(v.reason.map(|r| r.len()), Some(1024));
        let spawn = |program: &str, kind| {
            go_spawn_error(&SpawnError {
                program: program.into(),
                kind,
                message: String::new(),
            })
        };
        assert_eq!(
            spawn("nope", SpawnErrorKind::NotFound),
            "exec: \"nope\": executable file not found in $PATH"
        );
        assert_eq!(
            spawn("/x/nope", SpawnErrorKind::NotFound),
            "fork/exec /x/nope: no such file or directory"
        );
        let Reply::Failure(f) = read("tool.before", Termination::Signaled(9), "", "") else {
            panic!("a crash is a failure")
        };
        assert_eq!(f.message, "hook guard exited with error: signal: killed");
    }

    #[test]
    fn post_tool_never_denies() {
        let v = verdict(read(
            "tool.after",
            Termination::Exited(0),
            r#"{"decision":"deny","reason":"no"}"#,
            "",
        ));
        assert_eq!(v.action, Action::Allow);
        assert_eq!(
            v.warnings,
            ["hook guard: deny on post_tool ignored (hygge post hooks cannot deny): no"]
        );
    }

    #[test]
    fn modify_fields_apply_only_to_their_event() {
        let v = verdict(read(
            "prompt.submit",
            Termination::Exited(0),
            r#"{"decision":"modify","modified_tool_input":{"a":1},"system_prompt_append":"x"}"#,
            "",
        ));
        assert_eq!(v.action, Action::Allow);
        assert_eq!(v.system_prompt_append.as_deref(), Some("x"));
        assert_eq!(v.warnings.len(), 1, "{:?}", v.warnings);
    }
}
