//! The x-code host format: x-code's hook payload in, an Outcome out.
//!
//! x-code's payload (`event`, `session` {`cwd`, `modelId`}, `plugin`, and the event's
//! extras flattened in: `tool` {`name`, `args`, `callId`, `output`, `isError`}, `prompt`,
//! `turn`, `tokenUsage`, ...) is read into the canonical payload: `session.model`,
//! `tool.input`, `tool.call_id`, `tool.is_error`; `plugin` names the plugin of one hook,
//! so it is dropped; every other field passes through. The answer is the Outcome: its
//! `context` list keeps each hook's context apart, and an x-code host joins them with a
//! blank line (`"\n\n"`), as x-code does.

use serde_json::{Map, Value};

use super::HostInput;
use crate::errors::ExpectedError;

pub(super) fn read(event: Option<&str>, stdin: &[u8]) -> Result<HostInput, ExpectedError> {
    let input = super::native::parse_object(stdin)?.into_map();
    let from_payload = input
        .get("event")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let Some(event) = event.map(str::to_owned).or(from_payload) else {
        tracing::debug!("hooks.bus-error: the x-code payload names no event");
        return Err(ExpectedError::NoEvent);
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
