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
use serde_json::{Map, Value};

use super::wire::{HookPayload, HookReply, Tool};

use crate::errors::HostError;
use crate::host::{Host, HostAnswer, HostInput, no_failure_answer, parse_object, refusal};
use crate::wire::Shaped;

/// x-code's host mode: its plugin payload in, its hook reply out.
pub(crate) const HOST: Host = Host::new(Dialect::Xcode, read, answer, no_failure_answer, true);

fn read(event: Option<&str>, stdin: &[u8]) -> Result<HostInput, HostError> {
    let input = parse_object(stdin)?.into_map();
    let input: HookPayload =
        serde_json::from_value(Value::Object(input)).map_err(HostError::PayloadNotJson)?;
    let Some(event) = event.map(str::to_owned).or(input.event) else {
        tracing::debug!("hooks.bus-error: the x-code payload names no event");
        return Err(HostError::NoEvent);
    };
    // `plugin` names the plugin of one hook: it is not part of the event.
    let mut payload = Map::new();
    match input.session {
        Some(Shaped::Typed(session)) => {
            let mut canonical = Map::new();
            for (key, value) in [("cwd", session.cwd), ("model", session.model_id)] {
                if let Some(value) = value {
                    canonical.insert(key.to_owned(), value);
                }
            }
            canonical.extend(session.rest);
            payload.insert("session".to_owned(), Value::Object(canonical));
        }
        Some(Shaped::Other(value)) => {
            payload.insert("session".to_owned(), value);
        }
        None => {}
    }
    for (key, value) in input.extras {
        let value = if key == "tool" {
            canonical_tool(value)
        } else {
            value
        };
        payload.insert(key, value);
    }
    Ok(HostInput {
        event,
        payload: hookrig_core::Payload::from_map(payload),
    })
}

/// x-code's `tool` under canonical names: `input`, `call_id`, `is_error`; anything
/// else as it is.
fn canonical_tool(value: Value) -> Value {
    if !value.is_object() {
        return value;
    }
    let Ok(tool) = serde_json::from_value::<Tool>(value.clone()) else {
        return value;
    };
    let mut canonical = Map::new();
    let fields = [
        ("name", tool.name),
        ("input", tool.args),
        ("call_id", tool.call_id),
        ("output", tool.output),
        ("is_error", tool.is_error),
    ];
    for (key, value) in fields {
        if let Some(value) = value {
            canonical.insert(key.to_owned(), value);
        }
    }
    canonical.extend(tool.rest);
    Value::Object(canonical)
}

fn answer(_outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer {
    let mut reply = HookReply::default();
    if let Some(reason) = refusal(dispatched, "x-code") {
        reply.decision = Some("deny".to_owned());
        reply.reason = Some(reason);
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
        match (modified, dispatched.event.as_str()) {
            (true, "tool.before") => reply.args = tool("input").filter(Value::is_object),
            (true, "tool.after") => reply.output = tool("output").filter(Value::is_string),
            _ => {}
        }
        let changed = reply.args.is_some() || reply.output.is_some();
        reply.decision = Some(if changed { "modify" } else { "allow" }.to_owned());
        if !dispatched.context.is_empty() {
            reply.context = Some(dispatched.context.join("\n\n"));
        }
    }
    HostAnswer {
        stdout: format!(
            "{}\n",
            serde_json::to_string(&reply).expect("the reply always serializes")
        ),
        stderr: None,
        exit_code: HostAnswer::PROCEED,
    }
}
