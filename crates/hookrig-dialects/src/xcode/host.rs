//! The x-code host format: x-code's hook payload in, x-code's hook reply out.
//!
//! x-code's payload (`event`, `session` {`cwd`, `modelId`}, `plugin`, and the event's
//! extras flattened in: `tool` {`name`, `args`, `callId`, `output`, `isError`}, `prompt`,
//! `turn`, `tokenUsage`, ...) is read into the canonical payload: `session.model`,
//! `tool.input`, `tool.call_id`, `tool.is_error`; `plugin` names the plugin of one hook,
//! so it is dropped; every other field passes through.
//!
//! The answer is the reply x-code reads from a hook, so that hookrig can be an x-code
//! plugin's one hook and everything its hooks decide reaches x-code: `decision`
//! `allow`, `deny` (with `reason`) or `modify`, with `args` (`PreToolUse`: the rewritten
//! tool input) or `output` (`PostToolUse`: the rewritten output, when it is a string), and
//! `context` (the hooks' contexts joined with a blank line, as x-code joins several
//! hooks' contexts). The exit status is 0 for all of them: x-code takes a non-zero
//! exit for a failed hook, which it lets through unless the entry's `failurePolicy` is
//! `block`, so a deny must travel in the JSON. x-code has no "ask": a hook that asks for
//! confirmation is answered as a deny, since nobody is there to confirm. The Outcome is
//! in the ledger (`hookrig why RUN`).

use hookrig_core::{Dialect, Dispatched, HookResult, Outcome};
use serde_json::{Map, Value, json};

use crate::errors::HostError;
use crate::host::{Host, HostAnswer, HostInput, no_failure_answer, parse_object, refusal};

/// x-code's host mode: its plugin payload in, its hook reply out.
pub(crate) const HOST: Host = Host::new(Dialect::Xcode, read, answer, no_failure_answer, true);

fn read(event: Option<&str>, stdin: &[u8]) -> Result<HostInput, HostError> {
    let input = parse_object(stdin)?.into_map();
    let from_payload = input
        .get("event")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let Some(event) = event.map(str::to_owned).or(from_payload) else {
        tracing::debug!("hooks.bus-error: the x-code payload names no event");
        return Err(HostError::NoEvent);
    };
    let mut payload = Map::new();
    for (key, value) in input {
        match key.as_str() {
            "event" | "plugin" => {}
            "session" => {
                payload.insert(key, renamed(value, &[("modelId", "model")]));
            }
            "tool" => {
                let names = [
                    ("args", "input"),
                    ("callId", "call_id"),
                    ("isError", "is_error"),
                ];
                payload.insert(key, renamed(value, &names));
            }
            _ => {
                payload.insert(key, value);
            }
        }
    }
    Ok(HostInput {
        event,
        payload: hookrig_core::Payload::from_map(payload),
    })
}

fn answer(_outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer {
    let mut reply = Map::new();
    let refused = refusal(dispatched, "x-code");
    if let Some(reason) = refused {
        reply.insert("decision".into(), json!("deny"));
        reply.insert("reason".into(), json!(reason));
    } else {
        let modified = dispatched
            .records
            .iter()
            .any(|r| r.result == HookResult::Modify);
        let tool = |field: &str| {
            dispatched
                .payload
                .as_map()
                .get("tool")
                .and_then(|t| t.get(field))
                .cloned()
        };
        let change = match (modified, dispatched.event.as_str()) {
            (true, "tool.before") => tool("input")
                .filter(Value::is_object)
                .map(|args| ("args", args)),
            (true, "tool.after") => tool("output")
                .filter(Value::is_string)
                .map(|output| ("output", output)),
            _ => None,
        };
        match change {
            Some((key, value)) => {
                reply.insert("decision".into(), json!("modify"));
                reply.insert(key.into(), value);
            }
            None => {
                reply.insert("decision".into(), json!("allow"));
            }
        }
        if !dispatched.context.is_empty() {
            reply.insert("context".into(), json!(dispatched.context.join("\n\n")));
        }
    }
    HostAnswer {
        stdout: format!("{}\n", Value::Object(reply)),
        stderr: None,
        exit_code: HostAnswer::PROCEED,
    }
}

/// An object with some keys renamed, in place; anything else as it is.
fn renamed(value: Value, names: &[(&str, &str)]) -> Value {
    let Value::Object(fields) = value else {
        return value;
    };
    Value::Object(
        fields
            .into_iter()
            .map(|(key, v)| {
                let key = names
                    .iter()
                    .find(|(from, _)| *from == key)
                    .map_or(key, |(_, to)| (*to).to_owned());
                (key, v)
            })
            .collect(),
    )
}
