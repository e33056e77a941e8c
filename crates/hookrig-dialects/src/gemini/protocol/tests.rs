//! Gemini CLI's hook protocol, rule by rule: the exact stdin, the environment, the
//! command line, and a conformance table of replies (exit code, stdout, stderr) with the
//! verdict each must be read as.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hookrig_core::{EventContext, Payload};
use hookrig_exec::{Leftovers, Termination};
use test_case::test_case;

use super::*;

fn def(event: &str, sequential: bool) -> GeminiHook {
    GeminiHook {
        event: event.to_owned(),
        sequential,
    }
}

fn out(code: i32, stdout: &str, stderr: &str) -> ProcessOutput {
    ProcessOutput {
        termination: Termination::Exited(code),
        stdout: stdout.as_bytes().to_vec(),
        stderr: stderr.as_bytes().to_vec(),
        stdout_truncated: false,
        stderr_truncated: false,
        leaked: false,
        leftovers: Leftovers::default(),
        duration: Duration::from_millis(1),
    }
}

fn invocation(event: &str, payload: Value) -> Invocation {
    let Value::Object(map) = payload else {
        panic!("object")
    };
    Invocation {
        context: Arc::new(EventContext {
            name: crate::events::resolve(event),
            session_id: "s1".into(),
            cwd: PathBuf::from("/w"),
            env: None,
        }),
        payload: Payload::from_map(map),
    }
}

/// The payload every conformance case starts from: a shell call with a prompt and a
/// model request, so that every event finds its fields.
fn payload() -> Value {
    json!({
        "tool": {"name": "run_shell_command", "input": {"command": "rm -rf /", "dir": "/w"}},
        "prompt": "fix it",
        "llm_request": {"model": "gemini-2.5-pro", "config": {"temperature": 0.7}}
    })
}

/// The verdict a reply is read as, written compactly: `action`, then `reason=`,
/// `context=`, `patch=`, `warnings=` and `stop=` when there are any; or `failure(kind): message`.
fn read(event: &str, sequential: bool, code: i32, stdout: &str, stderr: &str) -> String {
    let reply = reply(
        &def(event, sequential),
        "h",
        &Limits::default(),
        &invocation(event, payload()),
        &out(code, stdout, stderr),
    );
    match reply {
        Reply::Failure(f) => format!("failure({:?}): {}", f.kind, f.message),
        Reply::Verdict(v) => {
            let mut text = v.action.as_str().to_owned();
            if let Some(reason) = v.reason {
                let _ = write!(text, " reason={reason:?}");
            }
            if let Some(context) = v.context {
                let _ = write!(text, " context={context:?}");
            }
            if let Some(patch) = v.patch {
                let _ = write!(text, " patch={}", Value::Object(patch));
            }
            if !v.warnings.is_empty() {
                let _ = write!(text, " warnings={:?}", v.warnings);
            }
            if let Some(stop) = v.stop {
                let _ = write!(text, " stop={:?}", stop.reason);
            }
            text
        }
    }
}

// Exit codes.
#[test_case("BeforeTool", 0, "", "", "allow"; "exit 0 empty allows")]
#[test_case("BeforeTool", 0, "all good\n", "", r#"allow warnings=["hook h: all good"]"#; "exit 0 plain text is a message")]
#[test_case("BeforeTool", 2, "ignored", "no rm -rf\n", r#"deny reason="no rm -rf""#; "exit 2 blocks with stderr")]
#[test_case("BeforeTool", 2, "", "", "failure(Exit): hook h exited 2"; "exit 2 without stderr is a failure")]
#[test_case("BeforeTool", 1, r#"{"decision":"deny"}"#, "lint failed", "failure(Exit): hook h exited 1: lint failed"; "exit 1 is a warning and stdout is not read")]
#[test_case("BeforeTool", 3, "", "", "failure(Exit): hook h exited 3"; "other exits are warnings")]
#[test_case("SessionStart", 2, "", "stop", "failure(Exit): hook h exited 2: stop"; "exit 2 on an advisory event changes nothing")]
#[test_case("AfterTool", 2, "", "secret hidden", r#"deny reason="secret hidden""#; "exit 2 hides a tool result")]
#[test_case("BeforeAgent", 2, "", "off topic", r#"deny reason="off topic""#; "exit 2 blocks a turn")]
#[test_case("AfterAgent", 2, "", "add tests", r#"deny reason="add tests""#; "exit 2 asks for a retry")]
// JSON on exit 0.
#[test_case("BeforeTool", 0, r#"{"decision":"deny","reason":"no"}"#, "", r#"deny reason="no""#; "deny")]
#[test_case("BeforeTool", 0, r#"{"decision":"block"}"#, "", r#"deny reason="denied by hook h""#; "block is deny")]
#[test_case("BeforeTool", 0, r#"{"decision":"allow","reason":"fine"}"#, "", "allow"; "allow")]
#[test_case("BeforeTool", 0, r#"{"decision":"ask","reason":"sure?"}"#, "", "allow"; "ask does not block")]
#[test_case("BeforeTool", 0, r#"{"decision":"approve"}"#, "", "allow"; "approve does not block")]
#[test_case("BeforeTool", 0, r#"{"continue":false,"stopReason":"halt","decision":"allow"}"#, "", r#"allow stop=Some("halt")"#; "continue false stops")]
#[test_case("BeforeTool", 0, r#"{"continue":false,"reason":"r"}"#, "", r#"allow stop=Some("r")"#; "continue false takes reason")]
#[test_case("BeforeTool", 0, r#"{"continue":false}"#, "", "allow stop=None"; "continue false without a reason")]
#[test_case("AfterTool", 0, r#"{"continue":false,"stopReason":"enough"}"#, "", r#"allow stop=Some("enough")"#; "after tool continue false stops")]
#[test_case("BeforeAgent", 0, r#"{"continue":false,"reason":"saved"}"#, "", r#"allow stop=Some("saved")"#; "before agent continue false stops")]
#[test_case("BeforeModel", 0, r#"{"continue":false,"stopReason":"budget"}"#, "", r#"allow stop=Some("budget")"#; "before model continue false stops")]
#[test_case("AfterModel", 0, r#"{"continue":false,"stopReason":"pii"}"#, "", r#"allow stop=Some("pii")"#; "after model continue false stops")]
#[test_case("BeforeToolSelection", 0, r#"{"continue":false}"#, "", "allow"; "tool selection ignores continue")]
#[test_case("BeforeTool", 0, r#"{"continue":"no"}"#, "", "allow"; "continue of another type is absent")]
#[test_case("SessionStart", 0, r#"{"decision":"deny","continue":false}"#, "", "allow"; "advisory events ignore flow control")]
#[test_case("BeforeTool", 0, r#"{"systemMessage":"checked"}"#, "", r#"allow warnings=["hook h: checked"]"#; "system message")]
#[test_case("BeforeTool", 0, r#"{"systemMessage":"checked","suppressOutput":true}"#, "", "allow"; "suppressed system message")]
#[test_case("BeforeTool", 0, r#""{\"decision\":\"deny\",\"reason\":\"twice\"}""#, "", r#"deny reason="twice""#; "json written twice")]
#[test_case("BeforeTool", 0, r#""just a string""#, "", r#"allow warnings=["hook h: \"just a string\""]"#; "a json string that is no json is text")]
#[test_case("BeforeTool", 0, "null", "", "allow"; "null")]
#[test_case("BeforeTool", 0, "[1,2]", "", "allow"; "an array")]
#[test_case("BeforeTool", 0, r#"{"hookSpecificOutput":"x"}"#, "", "failure(Malformed): hook h: `hookSpecificOutput` must be an object"; "specific output not an object")]
// hookSpecificOutput per event.
#[test_case("BeforeTool", 0, r#"{"hookSpecificOutput":{"tool_input":{"command":"rm -ri build"}}}"#, "", r#"modify patch={"tool":{"input":{"command":"rm -ri build","dir":"/w"}}}"#; "tool input merges over the arguments")]
#[test_case("BeforeTool", 0, r#"{"hookSpecificOutput":{"tool_input":["x"]}}"#, "", "allow"; "tool input not an object")]
#[test_case("BeforeTool", 0, r#"{"decision":"deny","hookSpecificOutput":{"tool_input":{"command":"ls"}}}"#, "", r#"deny reason="denied by hook h""#; "deny wins over tool input")]
#[test_case("BeforeTool", 0, r#"{"hookSpecificOutput":{"additionalContext":"c"}}"#, "", "allow"; "before tool reads no context")]
#[test_case("AfterTool", 0, r#"{"hookSpecificOutput":{"additionalContext":"ran 3 tests"}}"#, "", r#"allow context="ran 3 tests""#; "after tool context")]
#[test_case("AfterTool", 0, r#"{"hookSpecificOutput":{"tool_output":"[redacted]"}}"#, "", r#"modify patch={"tool":{"output":"[redacted]"}}"#; "after tool output replaced")]
#[test_case("BeforeAgent", 0, r#"{"hookSpecificOutput":{"additionalContext":"branch main"}}"#, "", r#"allow context="branch main""#; "before agent context")]
#[test_case("BeforeAgent", 0, r#"{"decision":"deny","reason":"secret"}"#, "", r#"deny reason="secret""#; "before agent deny")]
#[test_case("AfterAgent", 0, r#"{"decision":"deny","reason":"add tests"}"#, "", r#"deny reason="add tests""#; "after agent retry")]
#[test_case("AfterAgent", 0, r#"{"continue":false,"decision":"deny","stopReason":"done"}"#, "", r#"allow stop=Some("done")"#; "after agent continue false is no retry")]
#[test_case("AfterAgent", 0, r#"{"hookSpecificOutput":{"clearContext":true}}"#, "", r#"allow warnings=["hook h: `clearContext` is not passed on to Gemini CLI by hookrig"]"#; "clear context")]
#[test_case("BeforeModel", 0, r#"{"hookSpecificOutput":{"llm_request":{"model":"gemini-2.5-flash"}}}"#, "", r#"modify patch={"llm_request":{"model":"gemini-2.5-flash"}}"#; "model request override")]
#[test_case("BeforeModel", 0, r#"{"hookSpecificOutput":{"llm_response":{"candidates":[]}}}"#, "", r#"modify patch={"llm_response":{"candidates":[]}}"#; "synthetic response")]
#[test_case("BeforeModel", 0, r#"{"decision":"deny","reason":"quota"}"#, "", r#"deny reason="quota""#; "before model deny")]
#[test_case("AfterModel", 0, r#"{"hookSpecificOutput":{"llm_response":{"candidates":[{"content":{"role":"model","parts":["x"]}}]}}}"#, "", r#"modify patch={"llm_response":{"candidates":[{"content":{"role":"model","parts":["x"]}}]}}"#; "after model response replaced")]
#[test_case("AfterModel", 0, r#"{"hookSpecificOutput":{"llm_response":{"candidates":[]}}}"#, "", "allow"; "after model response without parts")]
#[test_case("BeforeToolSelection", 0, r#"{"hookSpecificOutput":{"toolConfig":{"mode":"NONE"}}}"#, "", r#"modify patch={"tool_config":{"mode":"NONE"}}"#; "tool selection")]
#[test_case("SessionStart", 0, r#"{"hookSpecificOutput":{"additionalContext":"memories"}}"#, "", r#"allow context="memories""#; "session start context")]
#[test_case("PreCompress", 0, r#"{"systemMessage":"compressing"}"#, "", r#"allow warnings=["hook h: compressing"]"#; "pre compress message")]
#[test_case("Notification", 0, r#"{"decision":"deny"}"#, "", "allow"; "notification cannot block")]
fn conformance(event: &str, code: i32, stdout: &str, stderr: &str, expected: &str) {
    assert_eq!(read(event, false, code, stdout, stderr), expected);
}

#[test]
fn a_sequential_before_agent_hook_feeds_its_context_to_the_next_prompt() {
    let stdout = r#"{"hookSpecificOutput":{"additionalContext":"branch main"}}"#;
    assert_eq!(
        read("BeforeAgent", true, 0, stdout, ""),
        r#"modify context="branch main" patch={"prompt":"fix it\n\nbranch main"}"#
    );
}

#[test]
fn a_timeout_and_a_crash_are_failures() {
    let limits = Limits {
        timeout: Some(Duration::from_millis(500)),
        ..Limits::default()
    };
    let mut output = out(0, "", "");
    output.termination = Termination::TimedOut {
        after: Duration::from_millis(500),
        killed: false,
    };
    let timed_out = reply(
        &def("BeforeTool", false),
        "h",
        &limits,
        &invocation("BeforeTool", payload()),
        &output,
    );
    assert!(
        matches!(&timed_out, Reply::Failure(f) if f.kind == FailureKind::Timeout),
        "{timed_out:?}"
    );
    let mut output = out(0, "", "");
    output.termination = Termination::Signaled(9);
    let crashed = reply(
        &def("BeforeTool", false),
        "h",
        &limits,
        &invocation("BeforeTool", payload()),
        &output,
    );
    assert!(
        matches!(&crashed, Reply::Failure(f) if f.kind == FailureKind::Crash),
        "{crashed:?}"
    );
}

#[test]
fn exact_stdin() {
    let inv = invocation(
        "AfterTool",
        json!({"tool": {"name": "run_shell_command", "input": {"command": "ls"}, "output": {"llmContent": "a"}},
               "transcript_path": "/t.json", "mcp_context": {"server_name": "s"}, "extra": 1}),
    );
    let text = String::from_utf8(
        serde_json::to_vec(&input(
            &def("AfterTool", false),
            &inv,
            "2026-01-01T00:00:00.000Z",
        ))
        .expect("serializes"),
    )
    .expect("utf-8");
    assert_eq!(
        text,
        r#"{"session_id":"s1","transcript_path":"/t.json","cwd":"/w","hook_event_name":"AfterTool","timestamp":"2026-01-01T00:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_response":{"llmContent":"a"},"mcp_context":{"server_name":"s"},"extra":1}"#
    );
    // A lifecycle event has no tool fields; a host's own timestamp is kept.
    let inv = invocation(
        "SessionStart",
        json!({"source": "startup", "timestamp": "T"}),
    );
    assert_eq!(
        serde_json::to_value(input(&def("SessionStart", false), &inv, "now")).expect("json"),
        json!({"session_id": "s1", "transcript_path": "", "cwd": "/w",
               "hook_event_name": "SessionStart", "timestamp": "T", "source": "startup"})
    );
}

#[test]
fn environment_and_command_line() {
    let protocol = GeminiProtocol(def("BeforeTool", false));
    let inv = invocation("BeforeTool", payload());
    let EnvPolicy::Inherit { set } = protocol.env(
        "h",
        &inv,
        &[("GEMINI_PROJECT_DIR".to_owned(), "/mine".to_owned())],
    ) else {
        panic!("inherits")
    };
    assert_eq!(
        set,
        [
            ("GEMINI_PROJECT_DIR".to_owned(), "/w".to_owned()),
            ("GEMINI_SESSION_ID".to_owned(), "s1".to_owned()),
            ("CLAUDE_PROJECT_DIR".to_owned(), "/w".to_owned()),
            ("GEMINI_PROJECT_DIR".to_owned(), "/mine".to_owned()),
        ]
    );
    let (line, _) = protocol.command_line("$GEMINI_PROJECT_DIR/.gemini/guard.sh \"${X}\"", &inv);
    assert_eq!(line, r#"exec bash -c ''\''/w'\''/.gemini/guard.sh "${X}"'"#);
    assert_eq!(
        expand("$CLAUDE_PROJECT_DIR/a", "/it's here"),
        r"'/it'\''s here'/a"
    );
    assert_eq!(protocol.definition(), r#"Gemini { event: "BeforeTool" }"#);
}
