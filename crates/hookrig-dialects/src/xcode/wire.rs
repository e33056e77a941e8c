//! x-code's wire formats, each used in both directions.
//!
//! [`HookPayload`] is what x-code writes on a plugin hook's stdin: hookrig writes it for
//! the x-code hooks it runs, and reads it when x-code runs `hookrig emit --dialect
//! xcode` as a plugin's hook. [`HookReply`] is what a hook answers on stdout: hookrig
//! reads it from the x-code hooks it runs, and writes it as its answer to x-code. Fields
//! are in x-code's order, the order they are written in.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire::{Shaped, absent, loose, present};

/// x-code's hook payload: `event`, `session`, `plugin`, then the event's extras
/// flattened in (`tool`, `prompt`, `turn`, `tokenUsage`, ...), in the order written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HookPayload {
    /// x-code's event name; a value that is not a string names none.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) event: Option<String>,
    /// A [`Session`] object; anything else is carried as it is.
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) session: Option<Shaped<Session>>,
    /// The plugin of the one hook the payload was written for; not part of the event.
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) plugin: Option<Shaped<Plugin>>,
    /// The event's extras. `tool` is among them, at its place, in x-code's shape
    /// ([`Tool`]).
    #[serde(flatten)]
    pub(crate) extras: Map<String, Value>,
}

/// `session` of x-code's payload.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Session {
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) cwd: Option<Value>,
    #[serde(
        rename = "modelId",
        default,
        deserialize_with = "present",
        skip_serializing_if = "absent"
    )]
    pub(crate) model_id: Option<Value>,
    /// Fields x-code may add; carried as they are.
    #[serde(flatten)]
    pub(crate) rest: Map<String, Value>,
}

/// `plugin` of x-code's payload.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Plugin {
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) id: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) dir: Option<Value>,
}

/// The `tool` extra of x-code's payload; `output` and `isError` on `PostToolUse` only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Tool {
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) name: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) args: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) call_id: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) output: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) is_error: Option<Value>,
    /// Fields x-code may add; carried as they are.
    #[serde(flatten)]
    pub(crate) rest: Map<String, Value>,
}

/// x-code's hook reply. A field of the wrong type counts as absent (`args` and `output`
/// are kept as written, for the reader to refuse with its own words).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HookReply {
    /// `allow`, `deny` or `modify`.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) decision: Option<String>,
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) reason: Option<String>,
    /// `PreToolUse`: the tool input to use instead; must be an object.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) args: Option<Value>,
    /// `PostToolUse`: the tool output to use instead; must be a string.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) output: Option<Value>,
    /// `UserPromptSubmit`: text for the model.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) context: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::round_trip;

    #[test]
    fn hook_payload_round_trips() {
        let text = r#"{"event":"PostToolUse","session":{"cwd":"/w","modelId":"m1","extra":1},"plugin":{"id":"p@local","dir":"/p"},"prompt":"hi","tool":{"name":"bash","args":{"c":1},"callId":"t1","output":"ok","isError":false,"extra":2},"turn":3}"#;
        let written = round_trip::<HookPayload>(text);
        assert_eq!(written, text);
        insta::assert_snapshot!(written);
        let payload: HookPayload = serde_json::from_str(text).expect("reads");
        let tool = payload.extras.get("tool").cloned().expect("a tool");
        let tool: Tool = serde_json::from_value(tool).expect("a tool object");
        assert_eq!(
            serde_json::to_string(&tool).expect("writes"),
            r#"{"name":"bash","args":{"c":1},"callId":"t1","output":"ok","isError":false,"extra":2}"#
        );
    }

    #[test]
    fn hook_reply_round_trips() {
        let text = r#"{"decision":"modify","reason":"r","args":{"c":2},"output":"o","context":"c","unknown":1}"#;
        let written = round_trip::<HookReply>(text);
        insta::assert_snapshot!(written);
    }
}
