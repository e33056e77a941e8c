//! hookrig's native wire formats, each used in both directions.
//!
//! [`HookInput`] is what a native hook reads on stdin: the canonical payload with the
//! event's canonical name first; hookrig writes it, and a hook (or a test) reads it back
//! with the same type. [`HookReply`] is what a native hook answers on stdout: hookrig
//! reads it, and a Rust hook or a test writes it with the same type. A host of the
//! native dialect sends the payload object itself and gets the Outcome
//! (`hookrig_core::Outcome`) back.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a native hook reads on stdin.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HookInput {
    /// The canonical event name.
    pub(crate) event: String,
    /// The payload, with `session.id` and `session.cwd` filled in, in its own order.
    #[serde(flatten)]
    pub(crate) payload: Map<String, Value>,
}

/// The reply object a native hook prints. Unknown fields are ignored so that hooks
/// written for a newer hookrig still work.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HookReply {
    /// `allow` (the default), `deny`, `ask` or `modify`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) decision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// With `modify`: the part of the payload to replace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) payload: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) context: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) system_prompt_append: Option<String>,
    /// `{"reason": "..."}` (or `true`): stop the agent, whatever the decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stop: Option<Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::round_trip;

    #[test]
    fn hook_input_round_trips() {
        let text = r#"{"event":"tool.before","session":{"id":"s1","cwd":"/w"},"tool":{"name":"Bash","input":{"command":"ls"}},"extra":[1,2]}"#;
        let written = round_trip::<HookInput>(text);
        assert_eq!(written, text);
        insta::assert_snapshot!(written);
    }

    #[test]
    fn hook_reply_round_trips() {
        let text = r#"{"decision":"modify","reason":"r","payload":{"tool":{"input":{}}},"context":"c","system_prompt_append":"s","stop":{"reason":"halt"},"future_field":1}"#;
        let written = round_trip::<HookReply>(text);
        insta::assert_snapshot!(written);
    }
}
