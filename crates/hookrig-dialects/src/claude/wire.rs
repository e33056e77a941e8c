//! Claude Code's wire formats, each used in both directions.
//!
//! [`HookInput`] is what Claude Code writes on a hook's stdin: hookrig writes it for the
//! Claude hooks it runs, and reads it when Claude Code (or Codex, Cursor, Gemini) runs
//! `hookrig emit --dialect claude` as its hook. [`HookOutput`] is what a hook answers on
//! stdout: hookrig reads it from the Claude hooks it runs, and writes it as its answer to
//! Claude Code. Fields are in Claude Code's order, the order they are written in.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire::{Shaped, absent, loose, present};

/// Claude Code's hook input.
///
/// hookrig interprets only `hook_event_name`; every other field it carries between
/// Claude's names and the canonical payload as it is, so they are values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HookInput {
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) session_id: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) transcript_path: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) cwd: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) permission_mode: Option<Value>,
    /// The event, in Claude Code's name; a value that is not a string names none.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) hook_event_name: Option<String>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_name: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_input: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_use_id: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_response: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) prompt: Option<Value>,
    /// Every other field of the event (`notification_type`, `source`, `reason`, ...,
    /// and the canonical payload's own fields), in the order written.
    #[serde(flatten)]
    pub(crate) rest: Map<String, Value>,
}

/// Claude Code's hook output (its JSON form, read on exit 0).
///
/// A field of the wrong type counts as absent, as Claude Code reads it; only
/// `hookSpecificOutput` must be an object, and its `updatedInput` too.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HookOutput {
    /// `false` stops everything, whatever else the output says.
    #[serde(
        rename = "continue",
        default,
        deserialize_with = "loose",
        skip_serializing_if = "absent"
    )]
    pub(crate) proceed: Option<bool>,
    #[serde(
        rename = "stopReason",
        default,
        deserialize_with = "loose",
        skip_serializing_if = "absent"
    )]
    pub(crate) stop_reason: Option<String>,
    /// `block` (or `approve`, which changes nothing).
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) decision: Option<String>,
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) reason: Option<String>,
    #[serde(rename = "hookSpecificOutput", default, skip_serializing_if = "absent")]
    pub(crate) hook_specific_output: Option<Shaped<HookSpecificOutput>>,
    #[serde(
        rename = "systemMessage",
        default,
        deserialize_with = "loose",
        skip_serializing_if = "absent"
    )]
    pub(crate) system_message: Option<String>,
    /// `true` hides the hook's output from the transcript.
    #[serde(
        rename = "suppressOutput",
        default,
        deserialize_with = "loose",
        skip_serializing_if = "absent"
    )]
    pub(crate) suppress_output: Option<bool>,
    /// An escape sequence (OSC or BEL) Claude Code writes to the terminal itself, after
    /// checking it against its allow-list.
    #[serde(
        rename = "terminalSequence",
        default,
        deserialize_with = "loose",
        skip_serializing_if = "absent"
    )]
    pub(crate) terminal_sequence: Option<String>,
}

/// `hookSpecificOutput` of Claude Code's hook output.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HookSpecificOutput {
    /// Must name the event the hook ran for.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) hook_event_name: Option<String>,
    /// `allow`, `deny`, `ask` or `defer` (`PreToolUse`).
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) permission_decision: Option<String>,
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) permission_decision_reason: Option<String>,
    /// The tool input to use instead; must be an object.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) updated_input: Option<Value>,
    /// The tool output to use instead, as it is.
    #[serde(
        rename = "updatedMCPToolOutput",
        default,
        deserialize_with = "present",
        skip_serializing_if = "absent"
    )]
    pub(crate) updated_mcp_tool_output: Option<Value>,
    /// The tool output to use instead, as it is (`PostToolUse`).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) updated_tool_output: Option<Value>,
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) additional_context: Option<String>,
    /// A permission request's answer (`PermissionRequest`).
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) decision: Option<Shaped<PermissionDecision>>,
    /// The event's other fields (`watchPaths`, `retry`, `sessionTitle`, ...), which
    /// Claude Code reads itself: `claude::fields` says which event takes which, and the
    /// host mode passes those on as they are.
    #[serde(flatten)]
    pub(crate) rest: Map<String, Value>,
}

/// `hookSpecificOutput.decision` of a `PermissionRequest` hook: what Claude Code does with
/// the permission dialog it was about to show.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PermissionDecision {
    /// `allow` or `deny`.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) behavior: Option<String>,
    /// The tool input to run with (allow).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) updated_input: Option<Value>,
    /// Permission rules to add (allow), as Claude Code's settings write them.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) updated_permissions: Option<Value>,
    /// Why (deny), told to Claude.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) message: Option<String>,
    /// `true` stops Claude as well (deny).
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) interrupt: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::round_trip;

    #[test]
    fn hook_input_round_trips() {
        let text = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/w","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1","tool_response":null,"prompt":"hi","extra":{"a":1}}"#;
        let written = round_trip::<HookInput>(text);
        assert_eq!(written, text);
        insta::assert_snapshot!(written);
    }

    #[test]
    fn hook_output_round_trips() {
        let text = r#"{"continue":false,"stopReason":"halt","decision":"block","reason":"no","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?","updatedInput":{"command":"ls"},"updatedMCPToolOutput":null,"additionalContext":"ctx"},"systemMessage":"hi","unknown":1}"#;
        let written = round_trip::<HookOutput>(text);
        insta::assert_snapshot!(written);
    }

    #[test]
    fn ill_typed_fields_are_absent_and_a_non_object_specific_output_is_kept() {
        let output: HookOutput =
            serde_json::from_str(r#"{"decision":5,"hookSpecificOutput":"x","continue":"no"}"#)
                .expect("reads");
        assert_eq!(output.decision, None);
        assert_eq!(output.proceed, None);
        assert_eq!(
            output.hook_specific_output,
            Some(Shaped::Other(Value::String("x".to_owned())))
        );
    }
}
