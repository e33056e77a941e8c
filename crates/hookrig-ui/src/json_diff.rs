//! The payload before and after the hooks, as a diff of their pretty-printed JSON: a
//! reader sees at once which field a hook changed.

use serde_json::Value;
use similar::{ChangeTag, TextDiff};

/// One line of the diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    /// `' '` kept, `'-'` only before, `'+'` only after.
    pub(crate) tag: char,
    pub(crate) text: String,
}

/// The lines of `before` and `after` (JSON texts; a text that is not JSON is compared
/// as it is), or `None` when the hooks changed nothing.
pub(crate) fn diff(before: &str, after: &str) -> Option<Vec<Line>> {
    let (before, after) = (pretty(before), pretty(after));
    if before == after || after.is_empty() {
        return None;
    }
    let lines = TextDiff::from_lines(&before, &after)
        .iter_all_changes()
        .map(|change| Line {
            tag: match change.tag() {
                ChangeTag::Equal => ' ',
                ChangeTag::Delete => '-',
                ChangeTag::Insert => '+',
            },
            text: change.value().trim_end_matches('\n').to_owned(),
        })
        .collect();
    Some(lines)
}

/// `text` pretty-printed with its keys sorted, so that the order a hook wrote them in
/// is not a change.
pub(crate) fn pretty(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => serde_json::to_string_pretty(&sorted(value)).unwrap_or_default(),
        Err(_) => text.to_owned(),
    }
}

fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_field_is_one_line_out_and_one_in() {
        let lines = diff(
            r#"{"tool":{"name":"write","input":{"path":"a"}}}"#,
            r#"{"tool":{"input":{"path":"b"},"name":"write"}}"#,
        )
        .expect("changed");
        let changed: Vec<String> = lines
            .iter()
            .filter(|line| line.tag != ' ')
            .map(|line| format!("{}{}", line.tag, line.text.trim()))
            .collect();
        assert_eq!(changed, ["-\"path\": \"a\"", "+\"path\": \"b\""]);
    }

    #[test]
    fn the_same_payload_in_another_key_order_is_no_change() {
        assert_eq!(diff(r#"{"a":1,"b":2}"#, r#"{"b":2,"a":1}"#), None);
        assert_eq!(diff(r#"{"a":1}"#, ""), None);
    }
}
