//! hookrig's native protocol.
//!
//! Stdin: the payload with `event` (canonical name) first and `session.id` /
//! `session.cwd` filled in, compact JSON, no trailing newline. Reply: exit 0 with empty
//! stdout = allow; exit 0 with one JSON object = a verdict (its `stop` stops the agent);
//! exit 2 = deny with stderr as the reason; anything else is a failure, turned into allow or deny by `on_error`.

use hookrig_core::{
    Action, Dialect, EventContext, Failure, FailureKind, Invocation, Reply, Stop, Verdict,
    display_duration,
};
use serde_json::Value;

use hookrig_exec::process::{EnvPolicy, ProcessOutput, Termination};
use hookrig_exec::{Limits, Protocol};

use super::wire::{HookInput, HookReply};
use crate::protocol::DialectProtocol;

/// hookrig's native protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NativeProtocol;

impl Protocol for NativeProtocol {
    fn stdin(&self, hook: &str, invocation: &Invocation) -> Vec<u8> {
        stdin(hook, invocation)
    }

    fn env(
        &self,
        hook: &str,
        invocation: &Invocation,
        configured: &[(String, String)],
    ) -> EnvPolicy {
        env(hook, &invocation.context, configured)
    }

    fn reply(
        &self,
        hook: &str,
        limits: &Limits,
        _invocation: &Invocation,
        output: &ProcessOutput,
    ) -> Reply {
        reply(hook, limits, output)
    }
}

impl DialectProtocol for NativeProtocol {
    fn dialect(&self) -> Dialect {
        Dialect::Native
    }

    fn definition(&self) -> String {
        "Native".to_owned()
    }
}

/// Longest deny reason taken from stderr.
const REASON_CAP: usize = 1024;

fn stdin(_hook: &str, invocation: &Invocation) -> Vec<u8> {
    let context = &invocation.context;
    let mut payload = invocation.payload.clone();
    payload.fill_session(&context.session_id, &context.cwd.to_string_lossy());
    let mut payload = payload.into_map();
    // The event's name is the canonical one, whatever the payload says.
    payload.shift_remove("event");
    let input = HookInput {
        event: context.name.as_str().to_owned(),
        payload,
    };
    serde_json::to_vec(&input).expect("the hook input always serializes")
}

fn env(hook: &str, context: &EventContext, configured: &[(String, String)]) -> EnvPolicy {
    let mut set = configured.to_vec();
    set.push(("HOOKRIG_EVENT".to_owned(), context.name.as_str().to_owned()));
    set.push(("HOOKRIG_HOOK".to_owned(), hook.to_owned()));
    set.push(("HOOKRIG_SESSION".to_owned(), context.session_id.clone()));
    EnvPolicy::Inherit { set }
}

/// The failure for a hook that did not exit on its own (timed out, interrupted, could
/// not start, crashed): the same words whichever dialect reads the exit codes.
/// Returns the exit code of a hook that exited.
pub(crate) fn exit_code(hook: &str, limits: &Limits, ended: &Termination) -> Result<i32, Failure> {
    let failure = |kind, message: String| Err(Failure { kind, message });
    match ended {
        Termination::TimedOut { .. } => {
            let limit = limits.timeout.map_or_else(String::new, display_duration);
            failure(
                FailureKind::Timeout,
                format!("hook {hook} timed out after {limit}"),
            )
        }
        Termination::Interrupted => failure(
            FailureKind::Interrupted,
            format!(
                "hook {hook} was killed before it finished: hookrig was interrupted or stopped waiting for it"
            ),
        ),
        Termination::SpawnFailed(err) => failure(FailureKind::Spawn, format!("hook {hook}: {err}")),
        Termination::Signaled(signal) => failure(
            FailureKind::Crash,
            format!("hook {hook} crashed: killed by signal {signal}"),
        ),
        Termination::Exited(code) => Ok(*code),
    }
}

fn reply(hook: &str, limits: &Limits, output: &ProcessOutput) -> Reply {
    let failure = |kind, message: String| Reply::Failure(Failure { kind, message });
    let leaked = output.leftover_warning(&format!("hook {hook}"));
    let reply = match exit_code(hook, limits, &output.termination) {
        Err(failure) => Reply::Failure(failure),
        Ok(2) => Reply::Verdict(Verdict::deny(deny_reason(hook, &output.stderr))),
        Ok(0) => parse_stdout(hook, output),
        Ok(code) => failure(FailureKind::Exit, format!("hook {hook} exited {code}")),
    };
    match (reply, leaked) {
        (Reply::Verdict(mut verdict), Some(warning)) => {
            verdict.warnings.push(warning);
            Reply::Verdict(verdict)
        }
        (reply, _) => reply,
    }
}

fn deny_reason(hook: &str, stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim();
    if text.is_empty() {
        return format!("denied by hook {hook}");
    }
    cut(text, REASON_CAP).to_owned()
}

/// The longest prefix of `text` of at most `max` bytes that ends on a char boundary.
pub(crate) fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn parse_stdout(hook: &str, output: &ProcessOutput) -> Reply {
    let malformed = |detail: String| {
        Reply::Failure(Failure {
            kind: FailureKind::Malformed,
            message: format!("hook {hook}: {detail}"),
        })
    };
    if output.stdout.trim_ascii().is_empty() {
        return Reply::Verdict(Verdict::allow());
    }
    let value: Value = match serde_json::from_slice(&output.stdout) {
        Ok(value @ Value::Object(_)) => value,
        Ok(_) | Err(_) => return malformed("reply is not a JSON object".to_owned()),
    };
    let wire: HookReply = match serde_json::from_value(value) {
        Ok(wire) => wire,
        Err(err) => return malformed(format!("invalid reply: {err}")),
    };
    let action = match wire.decision.as_deref() {
        None | Some("allow") => Action::Allow,
        Some("deny") => Action::Deny,
        Some("ask") => Action::Ask,
        Some("modify") => Action::Modify,
        Some(other) => {
            return malformed(format!(
                "unknown decision `{other}` (expected allow, deny, ask or modify)"
            ));
        }
    };
    let mut verdict = Verdict::with_action(action);
    verdict.stop = match wire.stop {
        None | Some(Value::Null | Value::Bool(false)) => None,
        Some(Value::Bool(true)) => Some(Stop::default()),
        Some(Value::Object(stop)) => match stop.get("reason") {
            None | Some(Value::Null) => Some(Stop::default()),
            Some(Value::String(reason)) => Some(Stop {
                reason: Some(reason.clone()),
            }),
            Some(_) => return malformed("`stop.reason` must be a string".to_owned()),
        },
        Some(_) => return malformed("`stop` must be an object or a boolean".to_owned()),
    };
    verdict.reason = wire.reason;
    verdict.context = wire.context;
    verdict.system_prompt_append = wire.system_prompt_append;
    match (action, wire.payload) {
        (Action::Modify, Some(Value::Object(patch))) => verdict.patch = Some(patch),
        (Action::Modify, Some(_)) => {
            return malformed("`payload` must be a JSON object".to_owned());
        }
        (_, None) => {}
        (_, Some(_)) => verdict.warnings.push(format!(
            "hook {hook}: `payload` ignored because decision is not \"modify\""
        )),
    }
    Reply::Verdict(verdict)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;

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

    fn read(termination: Termination, stdout: &str, stderr: &str) -> Reply {
        let limits = Limits {
            timeout: Some(Duration::from_secs(5)),
            ..Limits::default()
        };
        reply("guard", &limits, &output(termination, stdout, stderr))
    }

    fn verdict(reply: Reply) -> Verdict {
        match reply {
            Reply::Verdict(v) => v,
            Reply::Failure(f) => panic!("expected a verdict, got {f:?}"),
        }
    }

    fn failure(reply: Reply) -> Failure {
        match reply {
            Reply::Failure(f) => f,
            Reply::Verdict(v) => panic!("expected a failure, got {v:?}"),
        }
    }

    #[test]
    fn empty_stdout_allows() {
        assert_eq!(
            verdict(read(Termination::Exited(0), " \n", "")).action,
            Action::Allow
        );
    }

    #[test]
    fn json_verdict_with_modify_patch() {
        let v = verdict(read(
            Termination::Exited(0),
            r#"{"decision":"modify","payload":{"tool":{"input":{}}},"context":"c","future_field":1}"#,
            "",
        ));
        assert_eq!(v.action, Action::Modify);
        assert_eq!(
            Value::Object(v.patch.expect("patch")),
            json!({"tool": {"input": {}}})
        );
        assert_eq!(v.context.as_deref(), Some("c"));
    }

    #[test]
    fn stop_in_a_reply_stops_the_agent_whatever_the_decision() {
        let stop = |stdout: &str| verdict(read(Termination::Exited(0), stdout, "")).stop;
        assert_eq!(
            stop(r#"{"stop":{"reason":"budget spent"}}"#),
            Some(Stop {
                reason: Some("budget spent".to_owned())
            })
        );
        assert_eq!(stop(r#"{"stop":true}"#), Some(Stop::default()));
        assert_eq!(stop(r#"{"stop":{}}"#), Some(Stop::default()));
        assert_eq!(stop(r#"{"stop":false}"#), None);
        assert_eq!(stop(r#"{"stop":null}"#), None);
        let v = verdict(read(
            Termination::Exited(0),
            r#"{"decision":"deny","reason":"no","stop":{"reason":"halt"}}"#,
            "",
        ));
        assert_eq!((v.action, v.stop.is_some()), (Action::Deny, true));
        let f = failure(read(Termination::Exited(0), r#"{"stop":"now"}"#, ""));
        assert_eq!(
            f.message,
            "hook guard: `stop` must be an object or a boolean"
        );
        let f = failure(read(Termination::Exited(0), r#"{"stop":{"reason":5}}"#, ""));
        assert_eq!(f.message, "hook guard: `stop.reason` must be a string");
    }

    #[test]
    fn exit_two_denies_with_stderr_cut_to_one_kib() {
        let long = "é".repeat(1000);
        let v = verdict(read(Termination::Exited(2), "", &format!("  {long}\n")));
        assert_eq!(v.action, Action::Deny);
        let reason = v.reason.expect("reason");
        assert!(
            reason.len() <= 1024 && reason.len() >= 1022,
            "{}",
            reason.len()
        );
        let v = verdict(read(Termination::Exited(2), "", ""));
        assert_eq!(v.reason.as_deref(), Some("denied by hook guard"));
    }

    #[test]
    fn failures_name_the_hook_and_cause() {
        let f = failure(read(
            Termination::TimedOut {
                after: Duration::from_secs(5),
                killed: false,
            },
            "",
            "",
        ));
        assert_eq!(
            (f.kind, f.message.as_str()),
            (FailureKind::Timeout, "hook guard timed out after 5s")
        );
        let f = failure(read(Termination::Exited(3), "", "oops"));
        assert_eq!(f.message, "hook guard exited 3");
        let f = failure(read(Termination::Exited(0), "not json", ""));
        assert_eq!(f.message, "hook guard: reply is not a JSON object");
        let f = failure(read(Termination::Exited(0), "[1]", ""));
        assert_eq!(f.message, "hook guard: reply is not a JSON object");
        let f = failure(read(Termination::Exited(0), r#"{"decision":"maybe"}"#, ""));
        assert!(
            f.message.contains("unknown decision `maybe`"),
            "{}",
            f.message
        );
        let f = failure(read(Termination::Signaled(11), "", ""));
        assert_eq!(f.kind, FailureKind::Crash);
    }

    #[test]
    fn payload_without_modify_is_ignored_with_a_warning() {
        let v = verdict(read(Termination::Exited(0), r#"{"payload":{"a":1}}"#, ""));
        assert_eq!(v.action, Action::Allow);
        assert!(v.patch.is_none());
        assert_eq!(v.warnings.len(), 1);
    }
}
