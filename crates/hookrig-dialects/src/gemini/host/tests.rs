//! The gemini host mode: Gemini CLI's input read into the canonical payload, and a
//! conformance table of combined decisions with the exact answer Gemini CLI reads.

use std::path::PathBuf;

use hookrig_core::{HookRecord, HookResult};
use serde_json::json;
use test_case::test_case;

use super::*;
use crate::errors::HostError;
use crate::host::HostInput;

/// The host's reading of its stdin, as `hookrig emit --dialect` does it.
fn read(event: Option<&str>, stdin: &[u8]) -> Result<HostInput, HostError> {
    HOST.read(event, stdin)
}

fn read_json(event: Option<&str>, input: &Value) -> (String, Value) {
    let read = read(event, input.to_string().as_bytes()).expect("valid input");
    (read.event, Value::Object(read.payload.into_map()))
}

#[test]
fn tool_input_is_read_into_the_canonical_payload() {
    let (event, payload) = read_json(
        None,
        &json!({"session_id": "s1", "transcript_path": "/t.json", "cwd": "/w",
                "hook_event_name": "AfterTool", "timestamp": "T",
                "tool_name": "run_shell_command", "tool_input": {"command": "ls"},
                "tool_response": {"llmContent": "a"}, "mcp_context": null}),
    );
    assert_eq!(event, "AfterTool");
    assert_eq!(
        payload,
        json!({"session": {"id": "s1", "cwd": "/w"},
               "tool": {"name": "run_shell_command", "input": {"command": "ls"}, "output": {"llmContent": "a"}},
               "transcript_path": "/t.json", "timestamp": "T", "mcp_context": null})
    );
    assert_eq!(crate::events::resolve(&event).as_str(), "tool.after");
}

#[test]
fn the_event_argument_wins_and_an_input_without_an_event_is_refused() {
    let (event, payload) = read_json(
        Some("BeforeAgent"),
        &json!({"hook_event_name": "AfterAgent", "prompt": "hi"}),
    );
    assert_eq!(
        (event.as_str(), payload),
        ("BeforeAgent", json!({"prompt": "hi"}))
    );
    assert!(matches!(
        read(None, br#"{"session_id": "s"}"#),
        Err(HostError::NoEvent)
    ));
    assert!(read(None, b"[1]").is_err());
}

fn record(name: &str, result: HookResult, reason: Option<&str>) -> HookRecord {
    HookRecord {
        name: name.to_owned(),
        source: PathBuf::from("/s"),
        dialect: Dialect::Native,
        result,
        skip: None,
        exit_code: Some(0),
        duration: None,
        reason: reason.map(str::to_owned),
        stdout: None,
        stderr: None,
        truncated: false,
        is_async: false,
        answer: None,
        shadow: false,
    }
}

/// A dispatch of `event` that came to `decision`, with one hook that answered `result`.
fn dispatched(
    event: &str,
    decision: Decision,
    result: HookResult,
    reason: Option<&str>,
    payload: Value,
    context: &[&str],
) -> Dispatched {
    let Value::Object(payload) = payload else {
        panic!("object")
    };
    Dispatched {
        event: crate::events::resolve(event),
        decision,
        reason: reason.map(str::to_owned),
        decided_by: (decision != Decision::Allow).then(|| "g".to_owned()),
        payload: Payload::from_map(payload),
        context: context.iter().map(|c| (*c).to_owned()).collect(),
        system_prompt_append: Vec::new(),
        records: vec![record("g", result, reason)],
        warnings: Vec::new(),
        stop: None,
    }
}

fn answer_of(dispatched: &Dispatched, warnings: &[String]) -> String {
    let outcome = Outcome::new(dispatched, warnings, "run");
    let answer = answer(&outcome, dispatched);
    assert_eq!(answer.exit_code, HostAnswer::PROCEED);
    assert_eq!(answer.stderr, None);
    answer.stdout
}

#[test_case("BeforeTool", Decision::Allow, HookResult::Allow, None, &[], "{}"; "before tool allow")]
#[test_case("BeforeTool", Decision::Deny, HookResult::Deny, Some("no rm -rf"), &[], r#"{"decision":"deny","reason":"no rm -rf"}"#; "before tool deny")]
#[test_case("BeforeTool", Decision::Ask, HookResult::Ask, Some("sure?"), &[], r#"{"decision":"deny","reason":"sure? (a hook asked for confirmation, which Gemini CLI cannot ask for)"}"#; "before tool ask")]
#[test_case("BeforeTool", Decision::Allow, HookResult::Modify, None, &[], r#"{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"rm -ri build/x"}}}"#; "before tool modify")]
#[test_case("BeforeTool", Decision::Allow, HookResult::Allow, None, &["c"], "{}"; "before tool takes no context")]
#[test_case("AfterTool", Decision::Allow, HookResult::Allow, None, &["ran", "tests"], r#"{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"ran\ntests"}}"#; "after tool context")]
#[test_case("AfterTool", Decision::Allow, HookResult::Modify, None, &[], r#"{"hookSpecificOutput":{"hookEventName":"AfterTool","tool_output":"[redacted]"}}"#; "after tool output")]
#[test_case("AfterTool", Decision::Deny, HookResult::Deny, Some("hidden"), &[], r#"{"decision":"deny","reason":"hidden"}"#; "after tool deny")]
#[test_case("BeforeAgent", Decision::Deny, HookResult::Deny, Some("secret"), &[], r#"{"decision":"deny","reason":"secret"}"#; "before agent deny")]
#[test_case("BeforeAgent", Decision::Allow, HookResult::Allow, None, &["branch main"], r#"{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"branch main"}}"#; "before agent context")]
#[test_case("AfterAgent", Decision::Allow, HookResult::Deny, Some("add tests"), &[], r#"{"decision":"deny","reason":"add tests"}"#; "after agent retry")]
#[test_case("AfterModel", Decision::Allow, HookResult::Deny, None, &[], r#"{"decision":"deny","reason":"denied by hook g"}"#; "after model deny")]
#[test_case("BeforeModel", Decision::Allow, HookResult::Modify, None, &[], r#"{"hookSpecificOutput":{"hookEventName":"BeforeModel","llm_request":{"model":"m2"},"llm_response":{"candidates":[]}}}"#; "before model modify")]
#[test_case("SessionStart", Decision::Allow, HookResult::Allow, None, &["memories"], r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"memories"}}"#; "session start context")]
#[test_case("SessionStart", Decision::Allow, HookResult::Deny, None, &[], "{}"; "session start cannot be blocked")]
#[test_case("PreCompress", Decision::Allow, HookResult::Allow, None, &["x"], "{}"; "pre compress takes no context")]
#[test_case("Notification", Decision::Allow, HookResult::Allow, None, &[], "{}"; "notification")]
#[test_case("BeforeToolSelection", Decision::Allow, HookResult::Allow, None, &[], "{}"; "tool selection")]
fn conformance(
    event: &str,
    decision: Decision,
    result: HookResult,
    reason: Option<&str>,
    context: &[&str],
    expected: &str,
) {
    let payload = json!({
        "tool": {"name": "run_shell_command", "input": {"command": "rm -ri build/x"}, "output": "[redacted]"},
        "llm_request": {"model": "m2"},
        "llm_response": {"candidates": []}
    });
    let dispatched = dispatched(event, decision, result, reason, payload, context);
    assert_eq!(answer_of(&dispatched, &[]), format!("{expected}\n"));
}

#[test]
fn warnings_are_the_system_message_without_the_notice_of_a_deny_that_was_answered() {
    let dispatched = dispatched(
        "AfterAgent",
        Decision::Allow,
        HookResult::Deny,
        Some("add tests"),
        json!({}),
        &[],
    );
    let warnings = vec![
        "hook g: `deny` ignored on notify event turn.complete: notify hooks cannot change the event"
            .to_owned(),
        "hook other exited 1: oops".to_owned(),
    ];
    assert_eq!(
        answer_of(&dispatched, &warnings),
        "{\"systemMessage\":\"hook other exited 1: oops\",\"decision\":\"deny\",\"reason\":\"add tests\"}\n"
    );
}

#[test]
fn hookrigs_own_failure_is_left_to_gemini_clis_reading_of_exit_1() {
    assert_eq!(HOST.failure("bad payload"), None);
}

/// Each hook's answer, as (result, reason), of one event that came to `decision`.
type Answers<'a> = &'a [(HookResult, Option<&'a str>)];

#[test_case("BeforeTool", Decision::Deny, &[(HookResult::Deny, Some("no rm")), (HookResult::Deny, Some("no sudo"))], r#"{"decision":"deny","reason":"no rm\nno sudo"}"#; "two denies join their reasons")]
#[test_case("BeforeTool", Decision::Deny, &[(HookResult::Allow, None), (HookResult::Deny, Some("no rm")), (HookResult::Deny, None)], r#"{"decision":"deny","reason":"no rm"}"#; "hooks without a reason add nothing")]
#[test_case("AfterTool", Decision::Deny, &[(HookResult::Deny, Some("a")), (HookResult::Deny, Some("b"))], r#"{"decision":"deny","reason":"a\nb"}"#; "after tool joins")]
#[test_case("BeforeAgent", Decision::Deny, &[(HookResult::Deny, Some("a")), (HookResult::Deny, Some("b"))], r#"{"decision":"deny","reason":"a\nb"}"#; "before agent joins")]
#[test_case("AfterAgent", Decision::Allow, &[(HookResult::Deny, Some("add tests")), (HookResult::Deny, Some("fix lint"))], r#"{"decision":"deny","reason":"add tests\nfix lint"}"#; "after agent joins")]
#[test_case("AfterModel", Decision::Allow, &[(HookResult::Deny, Some("a")), (HookResult::Deny, Some("b"))], r#"{"decision":"deny","reason":"a"}"#; "after model keeps one answer")]
#[test_case("BeforeTool", Decision::Ask, &[(HookResult::Ask, Some("sure?")), (HookResult::Deny, Some("x"))], r#"{"decision":"deny","reason":"sure? (a hook asked for confirmation, which Gemini CLI cannot ask for)"}"#; "an ask keeps its own reason")]
fn reasons_of_several_hooks(event: &str, decision: Decision, answers: Answers<'_>, expected: &str) {
    // guards: Gemini CLI's aggregator joins the reasons of every hook with a newline
    let first = answers
        .iter()
        .find(|(result, _)| matches!(result, HookResult::Deny | HookResult::Ask))
        .and_then(|(_, reason)| *reason);
    let mut dispatched = dispatched(event, decision, HookResult::Allow, first, json!({}), &[]);
    dispatched.records = answers
        .iter()
        .enumerate()
        .map(|(i, (result, reason))| record(&format!("g{i}"), *result, *reason))
        .collect();
    let answer = answer_of(&dispatched, &[]);
    let answer: Value = serde_json::from_str(&answer).expect("json");
    let expected: Value = serde_json::from_str(expected).expect("json");
    assert_eq!(answer.get("decision"), expected.get("decision"), "{answer}");
    assert_eq!(answer.get("reason"), expected.get("reason"), "{answer}");
}
