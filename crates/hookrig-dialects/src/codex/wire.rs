//! Codex CLI's wire formats, each used in both directions.
//!
//! [`HookInput`] is what Codex writes on a hook's stdin: hookrig writes it for the Codex
//! hooks it runs, and reads it when Codex runs `hookrig emit --dialect codex` as its
//! hook. [`HookOutput`] is what a hook answers on stdout: hookrig reads it from the Codex
//! hooks it runs, and writes it as its answer to Codex. Fields are in Codex's order.
//!
//! Codex reads its hooks' output strictly (docs/dialects/codex.md): an unknown field or
//! a field of the wrong type makes the whole output invalid, so [`HookOutput`] refuses
//! both, and the protocol then checks which fields the event accepts.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire::{absent, loose, present};

/// Codex's hook input.
///
/// hookrig interprets only `hook_event_name`; every other field it carries between
/// Codex's names and the canonical payload as it is, so they are values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HookInput {
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) session_id: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) turn_id: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) agent_id: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) agent_type: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) transcript_path: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) agent_transcript_path: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) cwd: Option<Value>,
    /// The event, in Codex's name; a value that is not a string names none.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) hook_event_name: Option<String>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) model: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) permission_mode: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_name: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_input: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_response: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_use_id: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) prompt: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) source: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) trigger: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) stop_hook_active: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) last_assistant_message: Option<Value>,
    /// Every other field of the event (the canonical payload's own fields), in the
    /// order written.
    #[serde(flatten)]
    pub(crate) rest: Map<String, Value>,
}

/// Codex's hook output (its JSON form, read on exit 0): every field any event accepts.
/// An unknown field or a value of the wrong type is refused, as Codex refuses it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HookOutput {
    /// `false` stops Codex where the event allows it; invalid on `PreToolUse` and
    /// `PermissionRequest`.
    #[serde(rename = "continue", default, skip_serializing_if = "absent")]
    pub(crate) proceed: Option<bool>,
    #[serde(rename = "stopReason", default, skip_serializing_if = "absent")]
    pub(crate) stop_reason: Option<String>,
    #[serde(rename = "suppressOutput", default, skip_serializing_if = "absent")]
    pub(crate) suppress_output: Option<bool>,
    #[serde(rename = "systemMessage", default, skip_serializing_if = "absent")]
    pub(crate) system_message: Option<String>,
    /// `block` (`approve` too on `PreToolUse`, where Codex refuses it).
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) decision: Option<String>,
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) reason: Option<String>,
    #[serde(rename = "hookSpecificOutput", default, skip_serializing_if = "absent")]
    pub(crate) hook_specific_output: Option<HookSpecificOutput>,
}

/// `hookSpecificOutput` of Codex's hook output: the fields of every event that has one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct HookSpecificOutput {
    /// A Codex event name (Codex does not check that it is the event the hook ran for).
    pub(crate) hook_event_name: String,
    /// `allow`, `deny` or `ask` (`PreToolUse`).
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) permission_decision: Option<String>,
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) permission_decision_reason: Option<String>,
    /// The tool input to use instead (`PreToolUse`, with `permissionDecision: allow`).
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) updated_input: Option<Value>,
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) additional_context: Option<String>,
    /// The decision of a `PermissionRequest` hook.
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) decision: Option<PermissionDecision>,
    /// The tool output to use instead (`PostToolUse`).
    #[serde(
        rename = "updatedMCPToolOutput",
        default,
        skip_serializing_if = "absent"
    )]
    pub(crate) updated_mcp_tool_output: Option<Value>,
}

/// `hookSpecificOutput.decision` of a `PermissionRequest` hook.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct PermissionDecision {
    /// `allow` or `deny`.
    pub(crate) behavior: String,
    /// Reserved by Codex: present, the output is invalid.
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) updated_input: Option<Value>,
    /// Reserved by Codex: present, the output is invalid.
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) updated_permissions: Option<Value>,
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) message: Option<String>,
    /// Reserved by Codex: `true`, the output is invalid.
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) interrupt: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::round_trip;

    #[test]
    fn hook_input_round_trips() {
        let text = r#"{"session_id":"s1","turn_id":"t1","agent_id":"a1","agent_type":"worker","transcript_path":null,"agent_transcript_path":"/a.jsonl","cwd":"/w","hook_event_name":"PostToolUse","model":"gpt-5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"ok","tool_use_id":"call_1","prompt":"hi","source":"startup","trigger":"auto","stop_hook_active":false,"last_assistant_message":null,"extra":{"a":1}}"#;
        let written = round_trip::<HookInput>(text);
        assert_eq!(written, text);
        insta::assert_snapshot!(written);
    }

    #[test]
    fn hook_output_round_trips() {
        let text = r#"{"continue":true,"stopReason":"halt","suppressOutput":false,"systemMessage":"hi","decision":"block","reason":"no","hookSpecificOutput":{"hookEventName":"PermissionRequest","permissionDecision":"deny","permissionDecisionReason":"sure?","updatedInput":{"command":"ls"},"additionalContext":"ctx","decision":{"behavior":"deny","updatedInput":{},"updatedPermissions":[],"message":"no","interrupt":false},"updatedMCPToolOutput":{"ok":true}}}"#;
        let written = round_trip::<HookOutput>(text);
        assert_eq!(written, text);
        insta::assert_snapshot!(written);
    }

    #[test]
    fn unknown_and_ill_typed_fields_are_refused() {
        for text in [
            r#"{"decison":"block"}"#,
            r#"{"continue":"no"}"#,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","extra":1}}"#,
            r#"{"hookSpecificOutput":{"permissionDecision":"deny"}}"#,
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"message":"x"}}}"#,
        ] {
            assert!(serde_json::from_str::<HookOutput>(text).is_err(), "{text}");
        }
    }
}
