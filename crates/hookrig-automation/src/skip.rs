//! Short-circuit: after the context steps, the first step whose skip flag
//! matches its result stops the run before the prompt is rendered, and the
//! run is recorded as skipped with a reason naming the step and the flag.

use serde_json::Value;

/// Why the LLM call is skipped, or `None` when it is not.
///
/// Steps are checked in order; for each step the flags in this order
/// (`skip_llm_if_exit_zero`, `skip_llm_if_empty`, `skip_llm_if_status_ok`);
/// the first match wins. A flag counts only when it is JSON `true`.
pub fn skip_reason(steps: &[Value], results: &[Value]) -> Option<String> {
    steps
        .iter()
        .zip(results)
        .enumerate()
        .find_map(|(i, (step, result))| {
            let flag = |name: &str| step.get(name).and_then(Value::as_bool) == Some(true);
            if flag("skip_llm_if_exit_zero")
                && result.get("exit_code").and_then(Value::as_i64) == Some(0)
            {
                return Some(format!("step_{i}: exit code 0 (skip_llm_if_exit_zero)"));
            }
            if flag("skip_llm_if_empty") {
                let field =
                    |name: &str| result.get(name).and_then(Value::as_str).unwrap_or_default();
                if format!("{}{}", field("stdout"), field("content"))
                    .trim()
                    .is_empty()
                {
                    return Some(format!("step_{i}: output empty (skip_llm_if_empty)"));
                }
            }
            if flag("skip_llm_if_status_ok")
                && let Some(code) = result.get("status_code").and_then(Value::as_i64)
                && (200..300).contains(&code)
            {
                return Some(format!("step_{i}: HTTP {code} (skip_llm_if_status_ok)"));
            }
            None
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn exit_zero() {
        let steps = [json!({"type": "shell", "skip_llm_if_exit_zero": true})];
        let reason = skip_reason(&steps, &[json!({"exit_code": 0})]);
        assert_eq!(
            reason.as_deref(),
            Some("step_0: exit code 0 (skip_llm_if_exit_zero)")
        );
        assert_eq!(skip_reason(&steps, &[json!({"exit_code": 1})]), None);
        assert_eq!(skip_reason(&steps, &[json!({"exit_code": -1})]), None);
    }

    #[test]
    fn empty_looks_at_stdout_and_content() {
        let steps = [json!({"skip_llm_if_empty": true})];
        let reason = skip_reason(&steps, &[json!({"stdout": " \n", "content": "\t"})]);
        assert_eq!(
            reason.as_deref(),
            Some("step_0: output empty (skip_llm_if_empty)")
        );
        assert_eq!(
            skip_reason(&steps, &[json!({})]).as_deref(),
            reason.as_deref()
        );
        assert_eq!(
            skip_reason(&steps, &[json!({"stdout": "", "content": "x"})]),
            None
        );
        // `body` is not looked at: the output is `stdout` and `content`, so a result
        // with a body alone counts as empty.
        assert!(skip_reason(&steps, &[json!({"body": "text"})]).is_some());
    }

    #[test]
    fn status_ok_is_2xx() {
        let steps = [json!({"skip_llm_if_status_ok": true})];
        let reason = skip_reason(&steps, &[json!({"status_code": 204})]);
        assert_eq!(
            reason.as_deref(),
            Some("step_0: HTTP 204 (skip_llm_if_status_ok)")
        );
        for code in [0, 199, 300, 404, 500] {
            assert_eq!(
                skip_reason(&steps, &[json!({"status_code": code})]),
                None,
                "{code}"
            );
        }
    }

    #[test]
    fn first_step_that_matches_wins_and_names_its_index() {
        let steps = [
            json!({"skip_llm_if_exit_zero": true}),
            json!({"skip_llm_if_empty": true}),
            json!({"skip_llm_if_exit_zero": true}),
        ];
        let results = [
            json!({"exit_code": 2}),
            json!({"stdout": "x"}),
            json!({"exit_code": 0}),
        ];
        assert_eq!(
            skip_reason(&steps, &results).as_deref(),
            Some("step_2: exit code 0 (skip_llm_if_exit_zero)")
        );
    }

    #[test]
    fn flags_within_a_step_go_in_the_documented_order() {
        let steps = [
            json!({"skip_llm_if_status_ok": true, "skip_llm_if_empty": true, "skip_llm_if_exit_zero": true}),
        ];
        let result = json!({"exit_code": 0, "stdout": "", "status_code": 200});
        assert_eq!(
            skip_reason(&steps, &[result]).as_deref(),
            Some("step_0: exit code 0 (skip_llm_if_exit_zero)")
        );
    }

    #[test]
    fn flags_must_be_true() {
        let steps = [json!({"skip_llm_if_exit_zero": "yes", "skip_llm_if_empty": false})];
        assert_eq!(
            skip_reason(&steps, &[json!({"exit_code": 0, "stdout": ""})]),
            None
        );
    }

    #[test]
    fn no_flags_no_skip() {
        assert_eq!(
            skip_reason(&[json!({"type": "shell"})], &[json!({"exit_code": 0})]),
            None
        );
    }
}
