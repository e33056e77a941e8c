//! Prompt templates: `{{...}}` placeholders filled from the step results and
//! the event data, by these rules (also in docs/automations.md):
//!
//! | placeholder | resolves to |
//! |---|---|
//! | `{{step_N}}` | step N's primary output: the first non-empty string of `stdout`, `content`, `body`, `diff`; else the whole result as JSON; empty when there is no step N |
//! | `{{step_N.field}}` | that field of step N's result; empty when missing |
//! | `{{event}}` | the event data as JSON; empty when there is none |
//! | `{{event.field}}` | that field of the event data; empty when missing |
//!
//! Anything else stays verbatim, `{{ step_0 }}` with spaces included, so a
//! template written for another tool is not silently emptied. A string value
//! is inserted as it is; any other JSON value as compact JSON, which every tool reads
//! (not a language's own rendering such as `True`, `None` or `{'a': 1}`).

use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde_json::Value;

/// The fields `{{step_N}}` tries, in order.
const PRIMARY_FIELDS: [&str; 4] = ["stdout", "content", "body", "diff"];

/// Non-greedy and without `(?s)`: a placeholder never spans lines, and the first
/// `}}` ends it.
static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    #[expect(clippy::unwrap_used, reason = "a constant pattern")]
    Regex::new(r"\{\{(.+?)\}\}").unwrap()
});

/// Replaces every placeholder of `template`.
///
/// `event` is `None` when the run has no event data.
pub fn render(template: &str, step_results: &[Value], event: Option<&Value>) -> String {
    PLACEHOLDER
        .replace_all(template, |caps: &Captures<'_>| {
            resolve(&caps[1], step_results, event).unwrap_or_else(|| caps[0].to_owned())
        })
        .into_owned()
}

/// The text of one placeholder's inside (`step_0.stdout`), or `None` when it
/// is not a placeholder this engine knows (the caller keeps it verbatim).
pub fn resolve(key: &str, step_results: &[Value], event: Option<&Value>) -> Option<String> {
    if key == "event" {
        return Some(event.map(Value::to_string).unwrap_or_default());
    }
    if let Some(field) = key.strip_prefix("event.") {
        return Some(
            event
                .and_then(|e| e.get(field))
                .map(text)
                .unwrap_or_default(),
        );
    }
    let rest = key.strip_prefix("step_")?;
    let (index, field) = match rest.split_once('.') {
        Some((index, field)) => (index, Some(field)),
        None => (rest, None),
    };
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // An index too large for usize is as out of range as any other.
    let Some(result) = index
        .parse::<usize>()
        .ok()
        .and_then(|i| step_results.get(i))
    else {
        return Some(String::new());
    };
    Some(match field {
        Some(field) => result.get(field).map(text).unwrap_or_default(),
        None => primary_output(result),
    })
}

/// Step N's primary output, the `{{step_N}}` rule.
pub fn primary_output(result: &Value) -> String {
    PRIMARY_FIELDS
        .iter()
        .find_map(|field| {
            result
                .get(field)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        })
        .map_or_else(|| result.to_string(), str::to_owned)
}

/// A value as template text: strings bare, everything else as JSON.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use test_case::test_case;

    use super::*;

    fn results() -> Vec<Value> {
        vec![
            json!({"stdout": "out0", "stderr": "", "exit_code": 0, "_step_index": 0}),
            json!({"stdout": "", "content": "file text", "_step_index": 1}),
            json!({"rows": [], "count": 0, "_step_index": 2}),
            json!({"failures": ["a::b", "c::d"], "passed": false, "_step_index": 3}),
        ]
    }

    #[test_case("{{step_0}}", "out0" ; "stdout first")]
    #[test_case("{{step_1}}", "file text" ; "empty stdout falls through to content")]
    #[test_case("{{step_2}}", r#"{"rows":[],"count":0,"_step_index":2}"# ; "no primary field gives json")]
    #[test_case("{{step_9}}", "" ; "out of range is empty")]
    #[test_case("{{step_99999999999999999999999}}", "" ; "huge index is out of range")]
    #[test_case("{{step_0.exit_code}}", "0" ; "number field as text")]
    #[test_case("{{step_3.failures}}", r#"["a::b","c::d"]"# ; "list field as json")]
    #[test_case("{{step_3.passed}}", "false" ; "bool field as json")]
    #[test_case("{{step_0.missing}}", "" ; "missing field is empty")]
    #[test_case("{{step_9.stdout}}", "" ; "field of out of range step is empty")]
    #[test_case("{{event.task_id}}", "t-1" ; "event field")]
    #[test_case("{{event.n}}", "3" ; "event number field")]
    #[test_case("{{event.nope}}", "" ; "missing event field is empty")]
    #[test_case("{{event}}", r#"{"task_id":"t-1","n":3}"# ; "whole event as json")]
    #[test_case("{{ step_0 }}", "{{ step_0 }}" ; "spaces stay verbatim")]
    #[test_case("{{foo}}", "{{foo}}" ; "unknown stays verbatim")]
    #[test_case("{{step_}}", "{{step_}}" ; "step without index stays verbatim")]
    #[test_case("{{step_x}}", "{{step_x}}" ; "step with non-numeric index stays verbatim")]
    #[test_case("{{events}}", "{{events}}" ; "prefix of event is not event")]
    #[test_case("a {{step_0}} b {{event.task_id}} c", "a out0 b t-1 c" ; "several in one template")]
    #[test_case("{{step_0}}}}", "out0}}" ; "non greedy")]
    #[test_case("{{\nstep_0}}", "{{\nstep_0}}" ; "no placeholder across lines")]
    fn renders(template: &str, expected: &str) {
        let event = json!({"task_id": "t-1", "n": 3});
        assert_eq!(render(template, &results(), Some(&event)), expected);
    }

    #[test]
    fn event_without_data_is_empty() {
        assert_eq!(render("[{{event}}][{{event.x}}]", &[], None), "[][]");
    }

    #[test]
    fn replacement_text_is_not_rescanned() {
        let results = vec![json!({"stdout": "{{step_0}}"})];
        assert_eq!(render("{{step_0}}", &results, None), "{{step_0}}");
    }
}
