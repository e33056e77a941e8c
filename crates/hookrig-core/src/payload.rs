//! The canonical event payload: an open JSON object with a few known fields.

use serde_json::{Map, Value};

/// An event payload.
///
/// Known fields are `session` (`id`, `cwd`, `model`, `agent`), `tool` (`name`, `input`,
/// `output`, `is_error`, `call_id`), `prompt` and `message`; every other field a host
/// sends is kept untouched, in the order it was sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Payload(Map<String, Value>);

impl Payload {
    /// An empty payload.
    pub fn new() -> Self {
        Self::default()
    }

    /// Wraps a JSON object.
    pub fn from_map(map: Map<String, Value>) -> Self {
        Self(map)
    }

    /// The JSON object.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.0
    }

    /// The JSON object, mutably.
    pub fn as_map_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.0
    }

    /// Unwraps the JSON object.
    pub fn into_map(self) -> Map<String, Value> {
        self.0
    }

    /// The tool name matchers test: `tool.name`, or `tool_name` when a host sends the
    /// flat form.
    pub fn tool_name(&self) -> Option<&str> {
        self.0
            .get("tool")
            .and_then(|t| t.get("name"))
            .and_then(Value::as_str)
            .or_else(|| self.0.get("tool_name").and_then(Value::as_str))
    }

    /// Sets `tool.name` unless the payload already names a tool.
    pub fn set_tool_name_if_missing(&mut self, name: &str) {
        if self.tool_name().is_some() {
            return;
        }
        self.section_mut("tool")
            .insert("name".to_owned(), Value::String(name.to_owned()));
    }

    /// `session.id`, or a flat `session_id`.
    pub fn session_id(&self) -> Option<&str> {
        self.nested_str("session", "id")
            .or_else(|| self.0.get("session_id").and_then(Value::as_str))
    }

    /// `session.cwd`, or a flat `cwd`.
    pub fn session_cwd(&self) -> Option<&str> {
        self.nested_str("session", "cwd")
            .or_else(|| self.0.get("cwd").and_then(Value::as_str))
    }

    /// Fills in `session.id` and `session.cwd`, keeping the other session fields.
    pub fn fill_session(&mut self, id: &str, cwd: &str) {
        let session = self.section_mut("session");
        session.insert("id".to_owned(), Value::String(id.to_owned()));
        session.insert("cwd".to_owned(), Value::String(cwd.to_owned()));
    }

    /// Applies a hook's `modify` patch.
    ///
    /// The patch is merged over the payload at the top level, and one level down into
    /// objects: `{"tool": {"input": {...}}}` replaces `tool.input` whole and keeps
    /// `tool.name`. A plain top-level merge would drop `tool.name`, and a full recursive
    /// merge would make it impossible to remove a key from the tool input, so the
    /// sections are the unit of replacement.
    pub fn apply_patch(&mut self, patch: &Map<String, Value>) {
        for (key, value) in patch {
            match (self.0.get_mut(key), value) {
                (Some(Value::Object(section)), Value::Object(fields)) => {
                    for (field, field_value) in fields {
                        section.insert(field.clone(), field_value.clone());
                    }
                }
                _ => {
                    self.0.insert(key.clone(), value.clone());
                }
            }
        }
    }

    fn nested_str(&self, section: &str, field: &str) -> Option<&str> {
        self.0
            .get(section)
            .and_then(|s| s.get(field))
            .and_then(Value::as_str)
    }

    /// The object at `key`, created (or replacing a non-object) when needed.
    fn section_mut(&mut self, key: &str) -> &mut Map<String, Value> {
        let slot = self
            .0
            .entry(key.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        match slot {
            Value::Object(map) => map,
            _ => unreachable!("the slot was just made an object"),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn payload(value: Value) -> Payload {
        match value {
            Value::Object(map) => Payload::from_map(map),
            _ => panic!("test payloads are objects"),
        }
    }

    #[test]
    fn tool_name_nested_then_flat() {
        assert_eq!(
            payload(json!({"tool": {"name": "edit"}})).tool_name(),
            Some("edit")
        );
        assert_eq!(
            payload(json!({"tool_name": "bash"})).tool_name(),
            Some("bash")
        );
        assert_eq!(payload(json!({"tool": 3})).tool_name(), None);
    }

    #[test]
    fn patch_replaces_tool_input_and_keeps_name() {
        let mut p =
            payload(json!({"tool": {"name": "write", "input": {"path": "a", "mode": 1}}, "x": 1}));
        p.apply_patch(
            json!({"tool": {"input": {"path": "b"}}, "y": 2})
                .as_object()
                .expect("object"),
        );
        assert_eq!(
            Value::Object(p.into_map()),
            json!({"tool": {"name": "write", "input": {"path": "b"}}, "x": 1, "y": 2})
        );
    }

    #[test]
    fn patch_replaces_non_object_sections() {
        let mut p = payload(json!({"prompt": "hi"}));
        p.apply_patch(json!({"prompt": "bye"}).as_object().expect("object"));
        assert_eq!(p.as_map()["prompt"], json!("bye"));
    }

    #[test]
    fn fill_session_keeps_other_fields() {
        let mut p = payload(json!({"session": {"model": "m"}}));
        p.fill_session("s1", "/w");
        assert_eq!(
            p.as_map()["session"],
            json!({"model": "m", "id": "s1", "cwd": "/w"})
        );
    }

    #[test]
    fn set_tool_name_only_when_missing() {
        let mut p = payload(json!({}));
        p.set_tool_name_if_missing("bash");
        assert_eq!(p.tool_name(), Some("bash"));
        p.set_tool_name_if_missing("other");
        assert_eq!(p.tool_name(), Some("bash"));
    }
}
