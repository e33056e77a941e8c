//! The hygge host format: hygge's `Input` on stdin, read into a canonical event, and
//! hygge's `Action` on stdout.
//!
//! The event is the EVENT argument when given, else the Input's `event` (`pre_tool`,
//! `post_tool`, `pre_message`, `post_message`, which the catalog knows as aliases).
//!
//! The answer is what hygge reads from a hook, so that hookrig can be hygge's one hook
//! and everything its hooks decide reaches hygge: `{"decision": "allow"}`;
//! `{"decision": "modify", ...}` with `modified_tool_input` (`pre_tool`),
//! `modified_tool_result` (`post_tool`) or `modified_message` (`pre_message`,
//! `post_message`) when a hook changed them; `system_prompt_append` with the hooks'
//! texts joined by a blank line; `{"decision": "deny", "reason": ...}` with exit 2 and
//! the reason on stderr, since hygge reads a non-zero exit as a deny with the reason
//! on stderr. hygge has no "ask": a hook that asks for confirmation is answered as a
//! deny, since nobody is there to confirm. The Outcome is in the ledger
//! (`hookrig why RUN`).

use hookrig_core::{Dialect, Dispatched, HookResult, Outcome, Payload};
use serde_json::{Map, Value};

use super::wire::{Action, Input, ToolResult};
use crate::errors::HostError;
use crate::host::{Host, HostAnswer, HostInput, parse_object, refusal};
use crate::wire::Shaped;

/// hygge's host mode: its `Input` in, its `Action` out.
pub(crate) const HOST: Host = Host::new(Dialect::Hygge, read, answer, failure, true);

fn read(event: Option<&str>, stdin: &[u8]) -> Result<HostInput, HostError> {
    let input = parse_object(stdin)?.into_map();
    let input: Input =
        serde_json::from_value(Value::Object(input)).map_err(HostError::PayloadNotJson)?;
    let named = input.event.clone().filter(|name| !name.is_empty());
    let event = event
        .map(str::to_owned)
        .or(named)
        .ok_or(HostError::NoEvent)?;
    let canonical = crate::events::resolve(&event);
    Ok(HostInput {
        payload: canonical_payload(canonical.as_str(), input),
        event,
    })
}

fn answer(_outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer {
    if let Some(reason) = refusal(dispatched, "hygge") {
        let action = Action {
            decision: Some("deny".to_owned()),
            reason: Some(reason.clone()),
            ..Action::default()
        };
        return HostAnswer {
            stdout: format!("{}\n", to_json(&action)),
            stderr: Some(format!("{reason}\n")),
            exit_code: HostAnswer::DENIED,
        };
    }
    let modified = dispatched
        .records
        .iter()
        .any(|r| r.result == HookResult::Modify);
    let mut action = if modified {
        modifications(dispatched)
    } else {
        Action::default()
    };
    let changed = action != Action::default();
    action.decision = Some(if changed { "modify" } else { "allow" }.to_owned());
    if !dispatched.system_prompt_append.is_empty() {
        action.system_prompt_append = Some(dispatched.system_prompt_append.join("\n\n"));
    }
    HostAnswer {
        stdout: format!("{}\n", to_json(&action)),
        stderr: None,
        exit_code: HostAnswer::PROCEED,
    }
}

fn to_json(action: &Action) -> String {
    serde_json::to_string(action).expect("the Action always serializes")
}

/// hygge reads every non-zero exit as a deny. Its form of a hook that failed without
/// deciding is a reply that is not a JSON object, which it logs as a warning: the error
/// line is that reply (and is on stderr too), with exit 0.
#[expect(
    clippy::unnecessary_wraps,
    reason = "the signature of every host's failure answer"
)]
fn failure(error: &str) -> Option<HostAnswer> {
    Some(HostAnswer {
        stdout: format!("hookrig: error: {error}\n"),
        stderr: Some(format!("hookrig: error: {error}\n")),
        exit_code: HostAnswer::PROCEED,
    })
}

/// The Action fields that carry the final payload back, for the event's kind.
fn modifications(dispatched: &Dispatched) -> Action {
    let payload = dispatched.payload.as_map();
    let tool = |field: &str| payload.get("tool").and_then(|t| t.get(field)).cloned();
    let mut action = Action::default();
    match dispatched.event.as_str() {
        "tool.before" => action.modified_tool_input = tool("input"),
        "tool.after" => {
            if let Some(output) = tool("output") {
                action.modified_tool_result = Some(ToolResult {
                    content: Some(output),
                    is_error: Some(tool("is_error").unwrap_or(Value::Bool(false))),
                });
            }
        }
        "prompt.submit" => {
            if let Some(Value::String(prompt)) = payload.get("prompt") {
                action.modified_message = Some(prompt.clone());
            }
        }
        "message.after" => {
            if let Some(Value::String(message)) = payload.get("message") {
                action.modified_message = Some(message.clone());
            }
        }
        _ => {}
    }
    action
}

/// Moves hygge's flat fields into the canonical sections; anything else passes through.
fn canonical_payload(event: &str, input: Input) -> Payload {
    // The name of the hook that received an Input is not part of the event.
    let mut payload = Map::new();
    let mut session = Map::new();
    if let Some(id) = input.session_id {
        session.insert("id".to_owned(), id);
    }
    if let Some(pwd) = input.pwd {
        session.insert("cwd".to_owned(), pwd);
    }
    let mut tool = Map::new();
    if let Some(name) = input.tool_name {
        tool.insert("name".to_owned(), name);
    }
    if let Some(args) = input.tool_input {
        tool.insert("input".to_owned(), args);
    }
    match input.tool_result {
        Some(Shaped::Typed(result)) => {
            if let Some(content) = result.content {
                tool.insert("output".to_owned(), content);
            }
            if let Some(is_error) = result.is_error {
                tool.insert("is_error".to_owned(), is_error);
            }
        }
        Some(Shaped::Other(other)) => {
            tool.insert("output".to_owned(), other);
        }
        None => {}
    }
    if let Some(message) = input.message {
        // The user's text before the turn, the assistant's after it.
        let key = if event == "prompt.submit" {
            "prompt"
        } else {
            "message"
        };
        payload.insert(key.to_owned(), message);
    }
    if !session.is_empty() {
        payload.insert("session".to_owned(), Value::Object(session));
    }
    if !tool.is_empty() {
        payload.insert("tool".to_owned(), Value::Object(tool));
    }
    if let Some(mode) = input.mode_name {
        payload.insert("mode_name".to_owned(), mode);
    }
    payload.extend(input.rest);
    Payload::from_map(payload)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read_json(event: Option<&str>, input: &Value) -> (String, Value) {
        let read = read(event, input.to_string().as_bytes()).expect("valid input");
        (read.event, Value::Object(read.payload.into_map()))
    }

    #[test]
    fn post_tool_input() {
        let (event, payload) = read_json(
            None,
            &json!({"event": "post_tool", "session_id": "s", "hook_name": "h", "pwd": "/w",
                    "tool_name": "bash", "tool_input": {"c": 1},
                    "tool_result": {"content": "ok", "is_error": true}, "extra": 2}),
        );
        assert_eq!(event, "post_tool");
        assert_eq!(
            payload,
            json!({"session": {"id": "s", "cwd": "/w"},
                   "tool": {"name": "bash", "input": {"c": 1}, "output": "ok", "is_error": true},
                   "extra": 2})
        );
    }

    #[test]
    fn message_goes_where_the_event_keeps_it() {
        let (_, payload) = read_json(None, &json!({"event": "pre_message", "message": "hi"}));
        assert_eq!(payload, json!({"prompt": "hi"}));
        let (event, payload) = read_json(
            Some("post_message"),
            &json!({"event": "pre_message", "message": "done", "mode_name": "plan"}),
        );
        assert_eq!(event, "post_message");
        assert_eq!(payload, json!({"message": "done", "mode_name": "plan"}));
    }

    #[test]
    fn no_event_anywhere_is_an_error() {
        assert!(matches!(
            read(None, br#"{"session_id": "s"}"#),
            Err(HostError::NoEvent)
        ));
    }
}
