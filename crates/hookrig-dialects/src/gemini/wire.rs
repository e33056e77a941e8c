//! Gemini CLI's wire formats, each used in both directions.
//!
//! [`HookInput`] is what Gemini CLI writes on a hook's stdin: hookrig writes it for the
//! Gemini hooks it runs, and reads it when Gemini CLI runs `hookrig emit --dialect
//! gemini` as its hook. [`HookOutput`] is what a hook answers on stdout: hookrig reads it
//! from the Gemini hooks it runs, and writes it as its answer to Gemini CLI. Fields are
//! in Gemini CLI's order (its `HookInput` and `HookOutput` types), the order they are
//! written in.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire::{Shaped, absent, loose, present};

/// Gemini CLI's hook input: the base fields every event has, the tool fields of the
/// tool events, and every other field of the event (`prompt`, `llm_request`, `source`,
/// ...) as it is.
///
/// hookrig interprets only `hook_event_name`; the other fields it carries between
/// Gemini's names and the canonical payload as they are, so they are values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HookInput {
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) session_id: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) transcript_path: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) cwd: Option<Value>,
    /// The event, in Gemini CLI's name; a value that is not a string names none.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) hook_event_name: Option<String>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) timestamp: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_name: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_input: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_response: Option<Value>,
    /// Every other field of the event, in the order written.
    #[serde(flatten)]
    pub(crate) rest: Map<String, Value>,
}

/// Gemini CLI's hook output (the JSON a hook prints on exit 0).
///
/// A field of the wrong type counts as absent, as Gemini CLI's checks (`=== false`,
/// `typeof ... === 'string'`) read it; `hookSpecificOutput` that is not an object is
/// kept as written and ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HookOutput {
    /// `false` stops the agent loop.
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
    #[serde(
        rename = "suppressOutput",
        default,
        deserialize_with = "loose",
        skip_serializing_if = "absent"
    )]
    pub(crate) suppress_output: Option<bool>,
    #[serde(
        rename = "systemMessage",
        default,
        deserialize_with = "loose",
        skip_serializing_if = "absent"
    )]
    pub(crate) system_message: Option<String>,
    /// `deny` or `block` block; `allow`, `approve` and `ask` do not.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) decision: Option<String>,
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) reason: Option<String>,
    #[serde(rename = "hookSpecificOutput", default, skip_serializing_if = "absent")]
    pub(crate) hook_specific_output: Option<Shaped<HookSpecificOutput>>,
}

/// `hookSpecificOutput` of Gemini CLI's hook output: the fields of every event in one
/// struct, each under the name Gemini CLI gives it (some `camelCase`, some `snake_case`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HookSpecificOutput {
    #[serde(
        rename = "hookEventName",
        default,
        deserialize_with = "loose",
        skip_serializing_if = "absent"
    )]
    pub(crate) hook_event_name: Option<String>,
    /// Text added for the agent (`BeforeAgent`, `AfterTool`, `SessionStart`).
    #[serde(
        rename = "additionalContext",
        default,
        deserialize_with = "loose",
        skip_serializing_if = "absent"
    )]
    pub(crate) additional_context: Option<String>,
    /// Arguments merged over the tool's (`BeforeTool`); used only when an object.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_input: Option<Value>,
    /// Text that replaces the tool's result (`AfterTool`).
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) tool_output: Option<String>,
    /// Fields merged over the model request (`BeforeModel`).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) llm_request: Option<Value>,
    /// A response used instead of calling the model (`BeforeModel`), or instead of the
    /// model's (`AfterModel`).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) llm_response: Option<Value>,
    /// The tools the model may call (`BeforeToolSelection`).
    #[serde(
        rename = "toolConfig",
        default,
        deserialize_with = "present",
        skip_serializing_if = "absent"
    )]
    pub(crate) tool_config: Option<Value>,
    /// Clears the conversation history (`AfterAgent`).
    #[serde(
        rename = "clearContext",
        default,
        deserialize_with = "loose",
        skip_serializing_if = "absent"
    )]
    pub(crate) clear_context: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::round_trip;

    #[test]
    fn hook_input_round_trips() {
        let text = r#"{"session_id":"s1","transcript_path":"/t.json","cwd":"/w","hook_event_name":"AfterTool","timestamp":"2026-01-01T00:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_response":{"llmContent":"ok"},"mcp_context":null,"prompt":"hi"}"#;
        let written = round_trip::<HookInput>(text);
        assert_eq!(written, text);
        insta::assert_snapshot!(written);
    }

    #[test]
    fn hook_output_round_trips() {
        let text = r#"{"continue":false,"stopReason":"halt","suppressOutput":true,"systemMessage":"hi","decision":"deny","reason":"no","hookSpecificOutput":{"hookEventName":"BeforeModel","additionalContext":"ctx","tool_input":{"command":"ls"},"tool_output":"out","llm_request":{"model":"m"},"llm_response":null,"toolConfig":{"mode":"NONE"},"clearContext":true},"unknown":1}"#;
        let written = round_trip::<HookOutput>(text);
        insta::assert_snapshot!(written);
    }

    #[test]
    fn ill_typed_fields_are_absent_and_a_non_object_specific_output_is_kept() {
        let output: HookOutput =
            serde_json::from_str(r#"{"decision":5,"continue":"no","hookSpecificOutput":["x"]}"#)
                .expect("reads");
        assert_eq!(output.decision, None);
        assert_eq!(output.proceed, None);
        assert_eq!(
            output.hook_specific_output,
            Some(Shaped::Other(serde_json::json!(["x"])))
        );
    }
}
