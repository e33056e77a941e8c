//! hygge's wire formats, each used in both directions.
//!
//! [`Input`] is what hygge writes on a hook's stdin: hookrig writes it for the hygge
//! hooks it runs, and reads it when hygge runs `hookrig emit --dialect hygge` as its
//! hook. [`Action`] is what a hook answers on stdout: hookrig reads it from the hygge
//! hooks it runs, and writes it as its answer to hygge. Fields are in the order of
//! hygge's Go structs, the order they are written in; Go's `omitempty` fields are left
//! out when empty.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire::{Shaped, absent, loose, present};

/// hygge's `Input`.
///
/// hookrig interprets `event` and `tool_result`; the other fields it carries between
/// hygge's names and the canonical payload as they are, so they are values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[expect(clippy::struct_field_names, reason = "hygge's wire names")]
pub(crate) struct Input {
    /// `pre_tool`, `post_tool`, `pre_message` or `post_message`; a value that is not a
    /// string names none.
    #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
    pub(crate) event: Option<String>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) session_id: Option<Value>,
    /// The hook the input was written for; not part of the event.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) hook_name: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) pwd: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_name: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) tool_input: Option<Value>,
    /// A `ToolResult` object; anything else is carried as the tool's output.
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) tool_result: Option<Shaped<ToolResult>>,
    /// The user's text before the turn, the assistant's after it.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) message: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) mode_name: Option<Value>,
    /// Fields hygge does not define, which a host may still send; hookrig never writes
    /// any.
    #[serde(flatten)]
    pub(crate) rest: Map<String, Value>,
}

/// hygge's `ToolResult`. hygge writes `content` as text and `is_error` as a boolean; an
/// [`Action`] must (checked by [`Action::check`]), while a host's `Input` is carried as
/// written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ToolResult {
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) content: Option<Value>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
    pub(crate) is_error: Option<Value>,
}

impl ToolResult {
    /// The text of `content`, empty when there is none.
    pub(crate) fn content_text(&self) -> String {
        match &self.content {
            Some(Value::String(text)) => text.clone(),
            _ => String::new(),
        }
    }

    /// `is_error`, false when there is none.
    pub(crate) fn is_error(&self) -> bool {
        self.is_error
            .as_ref()
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }
}

/// hygge's `Action`. Unknown fields are ignored, as Go's decoder does; a field of the
/// wrong type makes the whole Action invalid, as it does for Go.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Action {
    /// `allow`, `deny` or `modify`.
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) decision: Option<String>,
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) reason: Option<String>,
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) modified_tool_input: Option<Value>,
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) modified_message: Option<String>,
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) modified_tool_result: Option<ToolResult>,
    #[serde(default, skip_serializing_if = "absent")]
    pub(crate) system_prompt_append: Option<String>,
}

impl Action {
    /// Refuses a `modified_tool_result` that is not hygge's `ToolResult` (text
    /// `content`, boolean `is_error`), with the words Go's decoder would use.
    pub(crate) fn check(&self) -> Result<(), serde_json::Error> {
        if let Some(result) = &self.modified_tool_result {
            if let Some(content) = &result.content {
                String::deserialize(content)?;
            }
            if let Some(is_error) = &result.is_error {
                bool::deserialize(is_error)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::wire::round_trip;

    #[test]
    fn input_round_trips() {
        let text = r#"{"event":"post_tool","session_id":"s1","hook_name":"guard","pwd":"/w","tool_name":"bash","tool_input":{"cmd":"ls"},"tool_result":{"content":"ok","is_error":false},"message":"hi","mode_name":"plan"}"#;
        let written = round_trip::<Input>(text);
        assert_eq!(written, text);
        insta::assert_snapshot!(written);
    }

    #[test]
    fn action_round_trips() {
        let text = r#"{"decision":"modify","reason":"r","modified_tool_input":{"a":1},"modified_message":"m","modified_tool_result":{"content":"c","is_error":true},"system_prompt_append":"s","future":1}"#;
        let written = round_trip::<Action>(text);
        insta::assert_snapshot!(written);
    }

    #[test]
    fn an_action_with_a_tool_result_of_other_types_is_refused_like_go() {
        let action: Action =
            serde_json::from_value(json!({"modified_tool_result": {"content": 5}})).expect("reads");
        assert_eq!(
            action.check().map_err(|e| e.to_string()),
            Err("invalid type: integer `5`, expected a string".to_owned())
        );
    }
}
