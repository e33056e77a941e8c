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

    /// Moves the flat tool fields some hosts send (Claude Code's `tool_name`,
    /// `tool_input`, `tool_use_id`, `tool_response`) into the canonical `tool` section
    /// (`name`, `input`, `call_id`, `output`), so that every dialect's hooks see one
    /// shape. A hygge or x-code guard that finds no `tool` object cannot check the call
    /// it guards, and a guard that crashes lets the call through.
    ///
    /// A field the `tool` section already has wins, and the flat field is then left
    /// where it is (nothing the host sent is dropped). A `tool` that is not an object is
    /// left alone.
    pub fn normalize_flat_tool(&mut self) {
        const FLAT: [(&str, &str); 4] = [
            ("tool_name", "name"),
            ("tool_input", "input"),
            ("tool_use_id", "call_id"),
            ("tool_response", "output"),
        ];
        if !FLAT.iter().any(|(flat, _)| self.0.contains_key(*flat)) {
            return;
        }
        if self.0.get("tool").is_some_and(|tool| !tool.is_object()) {
            return;
        }
        for (flat, field) in FLAT {
            if self
                .0
                .get("tool")
                .and_then(|tool| tool.get(field))
                .is_some()
            {
                continue;
            }
            if let Some(value) = self.0.remove(flat) {
                self.section_mut("tool").insert(field.to_owned(), value);
            }
        }
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

    // guards: a host that sends the flat form (`tool_name` / `tool_input`) must give
    // every dialect's hooks the `tool` object they check
    #[test]
    fn flat_tool_fields_move_into_the_tool_section() {
        let mut p = payload(json!({
            "tool_name": "bash",
            "tool_input": {"command": "rm -rf /"},
            "tool_use_id": "t1",
            "session_id": "s1",
        }));
        p.normalize_flat_tool();
        assert_eq!(
            Value::Object(p.into_map()),
            json!({
                "session_id": "s1",
                "tool": {"name": "bash", "input": {"command": "rm -rf /"}, "call_id": "t1"},
            })
        );
    }

    #[test]
    fn nested_tool_fields_win_over_flat_ones() {
        let mut p = payload(json!({
            "tool": {"name": "edit"},
            "tool_name": "bash",
            "tool_input": {"path": "a"},
        }));
        p.normalize_flat_tool();
        assert_eq!(
            Value::Object(p.into_map()),
            json!({"tool": {"name": "edit", "input": {"path": "a"}}, "tool_name": "bash"})
        );
        let mut odd = payload(json!({"tool": "bash", "tool_name": "bash"}));
        odd.normalize_flat_tool();
        assert_eq!(
            Value::Object(odd.into_map()),
            json!({"tool": "bash", "tool_name": "bash"})
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
