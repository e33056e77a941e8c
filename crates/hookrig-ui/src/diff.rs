//! Diffs of texts as lines: the payload before and after the hooks, as a diff of their
//! pretty-printed JSON, so that a reader sees at once which field a hook changed; and a
//! hook's definition and script as trusted and as they are now, before trusting again.

use maud::{Markup, html};
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

/// One line of the diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    /// `' '` kept, `'-'` only before, `'+'` only after, `'@'` unchanged lines left out.
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
        .map(line)
        .collect();
    Some(lines)
}

/// The changed lines of `before` and `after` with three lines of context around each
/// change, as `diff -u` shows them: a long script with one changed line is a few lines.
pub(crate) fn unified(before: &str, after: &str) -> Vec<Line> {
    let diff = TextDiff::from_lines(before, after);
    let mut lines = Vec::new();
    for (i, group) in diff.grouped_ops(3).iter().enumerate() {
        let starts_at_top = group
            .first()
            .is_some_and(|op| op.old_range().start == 0 && op.new_range().start == 0);
        if i > 0 || !starts_at_top {
            lines.push(Line {
                tag: '@',
                text: "…".to_owned(),
            });
        }
        for op in group {
            lines.extend(diff.iter_changes(op).map(line));
        }
    }
    lines
}

fn line(change: similar::Change<&str>) -> Line {
    Line {
        tag: match change.tag() {
            ChangeTag::Equal => ' ',
            ChangeTag::Delete => '-',
            ChangeTag::Insert => '+',
        },
        text: change.value().trim_end_matches('\n').to_owned(),
    }
}

/// `lines` as the inside of a `pre.diff`: each line in a span classed by its tag.
pub(crate) fn markup(lines: &[Line]) -> Markup {
    html! {
        @for line in lines {
            span class=(match line.tag { '-' => "del", '+' => "ins", '@' => "gap", _ => "same" }) { (line.tag) " " (line.text) "\n" }
        }
    }
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
    fn a_unified_diff_keeps_three_lines_around_each_change() {
        let before = (1..=20).fold(String::new(), |text, n| text + &format!("line {n}\n"));
        let after = before.replace("line 10\n", "line ten\n");
        let tags: String = unified(&before, &after).iter().map(|l| l.tag).collect();
        assert_eq!(tags, "@   -+   ");
        let added = unified("", "a\nb\n");
        assert_eq!(added.iter().map(|l| l.tag).collect::<String>(), "++");
        assert!(unified("same\n", "same\n").is_empty());
    }

    #[test]
    fn the_same_payload_in_another_key_order_is_no_change() {
        assert_eq!(diff(r#"{"a":1,"b":2}"#, r#"{"b":2,"a":1}"#), None);
        assert_eq!(diff(r#"{"a":1}"#, ""), None);
    }
}
