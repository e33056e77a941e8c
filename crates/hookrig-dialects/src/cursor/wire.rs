//! Cursor's wire formats, each used in both directions.
//!
//! [`HookInput`] is what Cursor writes on a hook's stdin: hookrig writes it for the
//! Cursor hooks it runs, and reads it when Cursor runs `hookrig emit --dialect cursor` as
//! its hook. [`HookOutput`] is what a hook answers on stdout: hookrig reads it from the
//! Cursor hooks it runs, and writes it as its answer to Cursor. The fields common to
//! every event come first, in the order Cursor's reference lists them; the fields of one
//! event follow in the order written.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire::{absent, loose, present};

/// Cursor's hook input.
///
/// hookrig interprets only `hook_event_name`; every other field it carries between
/// Cursor's names and the canonical payload as it is, so they are values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HookInput {
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) conversation_id: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) generation_id: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) model: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) model_id: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) model_params: Option<Value>,
    /// The event, in Cursor's name; a value that is not a string names none.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) hook_event_name: Option<String>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) cursor_version: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) workspace_roots: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) user_email: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) transcript_path: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_name: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_input: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_use_id: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_output: Option<Value>,
    /// Every other field of the event (`command`, `cwd`, `prompt`, `status`, ..., and the
    /// canonical payload's own fields), in the order written.
    #[serde(flatten)]
    pub(crate) rest: Map<String, Value>,
}

/// Cursor's hook output: the union of every event's answer fields. Which of them an
/// event reads is in `events.rs` ([`super::events::Answer`]).
///
/// A field of the wrong type counts as absent, except `permission`, `updated_input` and
/// `continue`, whose wrong type the protocol refuses in its own words (an invalid reply
/// from a permission hook blocks the action).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HookOutput {
    /// `beforeSubmitPrompt` (and `sessionStart`, where Cursor does not enforce it).
    #[serde(
        rename = "continue",
        default,
        deserialize_with = "present",
        skip_serializing_if = "absent"
    )]
    pub(crate) proceed: Option<Value>,
    /// `allow`, `deny` or `ask`.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) permission: Option<Value>,
    /// `preToolUse` and `subagentStart` in Cursor's earlier reference: `allow` or `deny`
    /// in place of `permission`.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) decision: Option<String>,
    /// The earlier reference's message to the agent with `decision`.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) reason: Option<String>,
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) user_message: Option<String>,
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) agent_message: Option<String>,
    /// Cursor 1.7's spelling of `user_message`.
    #[serde(
        rename = "userMessage",
        default,
        deserialize_with = "loose",
        skip_serializing_if = "absent"
    )]
    pub(crate) user_message_camel: Option<String>,
    /// Cursor 1.7's spelling of `agent_message`.
    #[serde(
        rename = "agentMessage",
        default,
        deserialize_with = "loose",
        skip_serializing_if = "absent"
    )]
    pub(crate) agent_message_camel: Option<String>,
    /// `preToolUse`: the tool input to use instead; must be an object.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) updated_input: Option<Value>,
    /// `postToolUse` of an MCP tool: the output the model sees instead.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) updated_mcp_tool_output: Option<Value>,
    /// `sessionStart` and `postToolUse`.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) additional_context: Option<String>,
    /// `sessionStart`: variables for the session's later hooks.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) env: Option<Value>,
    /// `stop` and `subagentStop`: the next user message.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) followup_message: Option<String>,
}

impl HookOutput {
    /// The message for the user: `user_message`, else its earlier spelling.
    pub(crate) fn user_message(&self) -> Option<&str> {
        self.user_message
            .as_deref()
            .or(self.user_message_camel.as_deref())
            .filter(|m| !m.is_empty())
    }

    /// The message for the agent: `agent_message`, else its earlier spellings.
    pub(crate) fn agent_message(&self) -> Option<&str> {
        self.agent_message
            .as_deref()
            .or(self.agent_message_camel.as_deref())
            .or(self.reason.as_deref())
            .filter(|m| !m.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::round_trip;

    #[test]
    fn hook_input_round_trips() {
        let text = r#"{"conversation_id":"c1","generation_id":"g1","model":"m","model_id":"m-1","model_params":[{"id":"effort","value":"max"}],"hook_event_name":"preToolUse","cursor_version":"2.1.0","workspace_roots":["/w"],"user_email":null,"transcript_path":null,"tool_name":"Shell","tool_input":{"command":"ls"},"tool_use_id":"t1","tool_output":"ok","cwd":"/w","agent_message":"listing"}"#;
        let written = round_trip::<HookInput>(text);
        assert_eq!(written, text);
        insta::assert_snapshot!(written);
    }

    #[test]
    fn hook_output_round_trips() {
        let text = r#"{"continue":false,"permission":"deny","decision":"deny","reason":"r","user_message":"u","agent_message":"a","userMessage":"U","agentMessage":"A","updated_input":{"command":"ls"},"updated_mcp_tool_output":{"x":1},"additional_context":"ctx","env":{"K":"v"},"followup_message":"again","unknown":1}"#;
        let written = round_trip::<HookOutput>(text);
        insta::assert_snapshot!(written);
    }

    #[test]
    fn ill_typed_messages_are_absent_and_ill_typed_decisions_are_kept() {
        let output: HookOutput =
            serde_json::from_str(r#"{"user_message":5,"permission":7,"continue":"no"}"#)
                .expect("reads");
        assert_eq!(output.user_message(), None);
        assert_eq!(output.permission, Some(Value::from(7)));
        assert_eq!(output.proceed, Some(Value::from("no")));
    }
}
