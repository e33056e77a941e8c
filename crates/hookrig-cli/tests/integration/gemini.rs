//! The gemini dialect end to end: Gemini CLI's settings files load, their hooks run as
//! real processes with Gemini CLI's protocol, and `emit --dialect gemini` answers as
//! Gemini CLI reads a hook's answer. The conformance table gives, for each event and
//! answer field, Gemini CLI's input, a hook's reply (exit code, stdout, stderr) and the
//! exact answer Gemini CLI receives.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use hookrig_test_support::TestEnv;
use serde_json::{Value, json};

use crate::harness::{Emitted, emit, emit_untrusted, quoted, test_env};

fn write(path: &PathBuf, value: &Value) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, serde_json::to_string_pretty(value).expect("json")).expect("write");
}

fn project_settings(env: &TestEnv, value: &Value) {
    write(&env.project().join(".gemini/settings.json"), value);
}

fn user_settings(env: &TestEnv, value: &Value) {
    write(&env.home().join(".gemini/settings.json"), value);
}

fn system_settings(env: &TestEnv, value: &Value) {
    write(&env.root().join("etc/gemini-cli/settings.json"), value);
}

fn command(line: &str) -> Value {
    json!({"type": "command", "command": line})
}

/// Gemini CLI's input for `event` with `fields`, in the project.
fn input(env: &TestEnv, event: &str, fields: &Value) -> String {
    let mut input = json!({"session_id": "s1", "transcript_path": "",
        "cwd": env.project().display().to_string(), "hook_event_name": event,
        "timestamp": "2026-11-25T12:00:00.000Z"});
    if let (Value::Object(input), Value::Object(fields)) = (&mut input, fields) {
        input.extend(fields.clone());
    }
    input.to_string()
}

fn host(env: &TestEnv, event: &str, fields: &Value) -> Emitted {
    emit(env, &["--dialect", "gemini"], &input(env, event, fields))
}

/// A native `hookrig emit EVENT` of Gemini CLI's input: another host whose one hook is
/// hookrig. Gemini CLI runs its extensions' hooks itself beside hookrig's entry, so an
/// emit answering Gemini CLI leaves them out; this one runs them.
fn another_host(env: &TestEnv, event: &str, fields: &Value) -> Emitted {
    emit(env, &[event], &input(env, event, fields))
}

fn redact(env: &TestEnv, text: &str) -> String {
    text.replace(env.root().to_str().expect("utf-8"), "[ROOT]")
}

const SHELL_RM: &str =
    r#"{"tool_name": "run_shell_command", "tool_input": {"command": "rm -rf /", "dir": "."}}"#;

#[test]
fn exact_stdin_and_environment_of_a_gemini_hook() {
    let env = test_env();
    let dump = env.write_script(
        "bin/dump.sh",
        "cat > \"$GEMINI_PROJECT_DIR/stdin-$1.json\"\nprintf '%s|%s|%s' \"$GEMINI_PROJECT_DIR\" \"$GEMINI_SESSION_ID\" \"$CLAUDE_PROJECT_DIR\" > \"$GEMINI_PROJECT_DIR/env.txt\"\n",
    );
    let dump = quoted(&dump);
    project_settings(
        &env,
        &json!({"hooks": {
            "BeforeTool": [{"matcher": "run_shell", "hooks": [command(&format!("{dump} before"))]}],
            "AfterTool": [{"hooks": [command(&format!("{dump} after"))]}],
            "BeforeAgent": [{"hooks": [command(&format!("{dump} agent"))]}]
        }}),
    );
    let shell: Value = serde_json::from_str(SHELL_RM).expect("json");
    assert_eq!(host(&env, "BeforeTool", &shell).code, 0);
    let after = json!({"tool_name": "run_shell_command", "tool_input": {"command": "ls"},
        "tool_response": {"llmContent": "a", "returnDisplay": "a"}});
    assert_eq!(host(&env, "AfterTool", &after).code, 0);
    assert_eq!(
        host(&env, "BeforeAgent", &json!({"prompt": "hello"})).code,
        0
    );

    let stdin: Vec<String> = ["before", "after", "agent"]
        .iter()
        .map(|name| {
            env.read_file(format!("stdin-{name}.json"))
                .expect("the hook ran")
        })
        .collect();
    insta::assert_snapshot!(redact(&env, &stdin.join("\n")));
    let project = env.project().display().to_string();
    assert_eq!(
        env.read_file("env.txt").expect("written"),
        format!("{project}|s1|{project}")
    );
}

#[test]
fn every_layer_runs_and_identical_hooks_run_once() {
    let env = test_env();
    let log = env.project().join("ran.log");
    let logger = env.write_script("bin/log.sh", &format!("echo \"$1\" >> {}\n", quoted(&log)));
    let logger = quoted(&logger);
    let hook = |word: &str| command(&format!("{logger} {word}"));
    user_settings(
        &env,
        &json!({"hooks": {"BeforeTool": [{"hooks": [hook("user"), hook("same")]}]}}),
    );
    system_settings(
        &env,
        &json!({"hooks": {"BeforeTool": [{"hooks": [hook("system"), hook("same")]}]}}),
    );
    project_settings(
        &env,
        &json!({"hooks": {"BeforeTool": [{"hooks": [hook("project"), hook("same")]}]}}),
    );
    let out = host(
        &env,
        "BeforeTool",
        &serde_json::from_str(SHELL_RM).expect("json"),
    );
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "{}\n"),
        "{}",
        out.stderr
    );
    let mut ran: Vec<String> = env
        .read_file("ran.log")
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    ran.sort();
    assert_eq!(ran, ["project", "same", "system", "user"]);
}

/// One case of the conformance table: Gemini CLI's event and input fields, the hook's
/// exit code, stdout and stderr, and the exact answer Gemini CLI must receive.
struct Case {
    name: &'static str,
    event: &'static str,
    fields: &'static str,
    code: i32,
    stdout: &'static str,
    stderr: &'static str,
    answer: &'static str,
}

const fn case(
    name: &'static str,
    event: &'static str,
    fields: &'static str,
    (code, stdout, stderr): (i32, &'static str, &'static str),
    answer: &'static str,
) -> Case {
    Case {
        name,
        event,
        fields,
        code,
        stdout,
        stderr,
        answer,
    }
}

const PROMPT: &str = r#"{"prompt": "fix it"}"#;
const AFTER: &str = r#"{"tool_name": "run_shell_command", "tool_input": {"command": "cat .env"}, "tool_response": {"llmContent": "KEY=1"}}"#;
const MODEL: &str = r#"{"llm_request": {"model": "gemini-2.5-pro", "messages": [], "config": {"temperature": 0.7}}}"#;
const MODEL_AFTER: &str = r#"{"llm_request": {"model": "gemini-2.5-pro"}, "llm_response": {"candidates": [{"content": {"role": "model", "parts": ["hi"]}}]}}"#;

/// Every event and every answer field hookrig reads from a Gemini hook and writes to
/// Gemini CLI. The hook is named `h` in messages: `gemini:project:EVENT:1`.
const CASES: &[Case] = &[
    // BeforeTool: exit codes.
    case(
        "before tool, exit 0 silent",
        "BeforeTool",
        SHELL_RM,
        (0, "", ""),
        "{}",
    ),
    case(
        "before tool, exit 0 plain text",
        "BeforeTool",
        SHELL_RM,
        (0, "checked\n", ""),
        r#"{"systemMessage":"hook h: checked"}"#,
    ),
    case(
        "before tool, exit 2",
        "BeforeTool",
        SHELL_RM,
        (2, "ignored", "no rm -rf\n"),
        r#"{"decision":"deny","reason":"no rm -rf"}"#,
    ),
    case(
        "before tool, exit 2 without stderr",
        "BeforeTool",
        SHELL_RM,
        (2, "", ""),
        r#"{"systemMessage":"hook h exited 2"}"#,
    ),
    case(
        "before tool, exit 1",
        "BeforeTool",
        SHELL_RM,
        (1, r#"{"decision":"deny"}"#, "lint failed"),
        r#"{"systemMessage":"hook h exited 1: lint failed"}"#,
    ),
    // BeforeTool: JSON fields.
    case(
        "before tool, deny",
        "BeforeTool",
        SHELL_RM,
        (0, r#"{"decision":"deny","reason":"no"}"#, ""),
        r#"{"decision":"deny","reason":"no"}"#,
    ),
    case(
        "before tool, block",
        "BeforeTool",
        SHELL_RM,
        (0, r#"{"decision":"block","reason":"no"}"#, ""),
        r#"{"decision":"deny","reason":"no"}"#,
    ),
    case(
        "before tool, allow",
        "BeforeTool",
        SHELL_RM,
        (0, r#"{"decision":"allow"}"#, ""),
        "{}",
    ),
    case(
        "before tool, ask",
        "BeforeTool",
        SHELL_RM,
        (0, r#"{"decision":"ask","reason":"sure?"}"#, ""),
        "{}",
    ),
    case(
        "before tool, continue false",
        "BeforeTool",
        SHELL_RM,
        (0, r#"{"continue":false,"stopReason":"halt"}"#, ""),
        r#"{"continue":false,"stopReason":"halt"}"#,
    ),
    case(
        "before tool, continue false without a reason wins over a deny",
        "BeforeTool",
        SHELL_RM,
        (0, r#"{"continue":false,"decision":"deny"}"#, ""),
        r#"{"continue":false,"stopReason":"stopped by hook h"}"#,
    ),
    case(
        "before tool, system message",
        "BeforeTool",
        SHELL_RM,
        (0, r#"{"systemMessage":"scanned"}"#, ""),
        r#"{"systemMessage":"hook h: scanned"}"#,
    ),
    case(
        "before tool, suppressed output",
        "BeforeTool",
        SHELL_RM,
        (
            0,
            r#"{"systemMessage":"scanned","suppressOutput":true}"#,
            "",
        ),
        "{}",
    ),
    case(
        "before tool, tool input",
        "BeforeTool",
        SHELL_RM,
        (
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"rm -ri build/x"}}}"#,
            "",
        ),
        r#"{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"rm -ri build/x","dir":"."}}}"#,
    ),
    case(
        "before tool, json written twice",
        "BeforeTool",
        SHELL_RM,
        (0, r#""{\"decision\":\"deny\",\"reason\":\"twice\"}""#, ""),
        r#"{"decision":"deny","reason":"twice"}"#,
    ),
    case(
        "before tool, specific output not an object",
        "BeforeTool",
        SHELL_RM,
        (0, r#"{"hookSpecificOutput":"x"}"#, ""),
        r#"{"systemMessage":"hook h: `hookSpecificOutput` must be an object"}"#,
    ),
    // AfterTool.
    case(
        "after tool, continue false",
        "AfterTool",
        AFTER,
        (0, r#"{"continue":false,"stopReason":"enough"}"#, ""),
        r#"{"continue":false,"stopReason":"enough"}"#,
    ),
    case(
        "after tool, exit 2",
        "AfterTool",
        AFTER,
        (2, "", "[redacted]"),
        r#"{"decision":"deny","reason":"[redacted]"}"#,
    ),
    case(
        "after tool, deny",
        "AfterTool",
        AFTER,
        (0, r#"{"decision":"deny","reason":"secret hidden"}"#, ""),
        r#"{"decision":"deny","reason":"secret hidden"}"#,
    ),
    case(
        "after tool, context",
        "AfterTool",
        AFTER,
        (
            0,
            r#"{"hookSpecificOutput":{"additionalContext":"the file holds keys"}}"#,
            "",
        ),
        r#"{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"the file holds keys"}}"#,
    ),
    case(
        "after tool, tool output",
        "AfterTool",
        AFTER,
        (0, r#"{"hookSpecificOutput":{"tool_output":"KEY=***"}}"#, ""),
        r#"{"hookSpecificOutput":{"hookEventName":"AfterTool","tool_output":"KEY=***"}}"#,
    ),
    // BeforeAgent.
    case(
        "before agent, exit 2",
        "BeforeAgent",
        PROMPT,
        (2, "", "off topic"),
        r#"{"decision":"deny","reason":"off topic"}"#,
    ),
    case(
        "before agent, deny",
        "BeforeAgent",
        PROMPT,
        (0, r#"{"decision":"deny","reason":"secret in prompt"}"#, ""),
        r#"{"decision":"deny","reason":"secret in prompt"}"#,
    ),
    case(
        "before agent, context",
        "BeforeAgent",
        PROMPT,
        (
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"branch main"}}"#,
            "",
        ),
        r#"{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"branch main"}}"#,
    ),
    case(
        "before agent, continue false",
        "BeforeAgent",
        PROMPT,
        (0, r#"{"continue":false,"reason":"later"}"#, ""),
        r#"{"continue":false,"stopReason":"later"}"#,
    ),
    // AfterAgent.
    case(
        "after agent, deny retries",
        "AfterAgent",
        r#"{"prompt": "fix it", "prompt_response": "done", "stop_hook_active": false}"#,
        (0, r#"{"decision":"deny","reason":"run the tests"}"#, ""),
        r#"{"decision":"deny","reason":"run the tests"}"#,
    ),
    case(
        "after agent, exit 2 retries",
        "AfterAgent",
        r#"{"prompt": "fix it", "prompt_response": "done", "stop_hook_active": false}"#,
        (2, "", "add a test"),
        r#"{"decision":"deny","reason":"add a test"}"#,
    ),
    // guards: `continue: false` on AfterAgent (end the session) answered as a deny,
    // which Gemini CLI reads as "retry the turn": the opposite
    case(
        "after agent, continue false",
        "AfterAgent",
        r#"{"prompt": "p", "prompt_response": "r", "stop_hook_active": false}"#,
        (0, r#"{"continue":false,"stopReason":"all done"}"#, ""),
        r#"{"continue":false,"stopReason":"all done"}"#,
    ),
    case(
        "after agent, clear context",
        "AfterAgent",
        r#"{"prompt": "p", "prompt_response": "r", "stop_hook_active": false}"#,
        (0, r#"{"hookSpecificOutput":{"clearContext":true}}"#, ""),
        r#"{"systemMessage":"hook h: `clearContext` is not passed on to Gemini CLI by hookrig"}"#,
    ),
    // BeforeModel.
    case(
        "before model, request",
        "BeforeModel",
        MODEL,
        (
            0,
            r#"{"hookSpecificOutput":{"llm_request":{"model":"gemini-2.5-flash"}}}"#,
            "",
        ),
        r#"{"hookSpecificOutput":{"hookEventName":"BeforeModel","llm_request":{"model":"gemini-2.5-flash","messages":[],"config":{"temperature":0.7}}}}"#,
    ),
    case(
        "before model, synthetic response",
        "BeforeModel",
        MODEL,
        (
            0,
            r#"{"hookSpecificOutput":{"llm_response":{"candidates":[{"content":{"role":"model","parts":["cached"]}}]}}}"#,
            "",
        ),
        r#"{"hookSpecificOutput":{"hookEventName":"BeforeModel","llm_request":{"model":"gemini-2.5-pro","messages":[],"config":{"temperature":0.7}},"llm_response":{"candidates":[{"content":{"role":"model","parts":["cached"]}}]}}}"#,
    ),
    case(
        "before model, deny",
        "BeforeModel",
        MODEL,
        (0, r#"{"decision":"deny","reason":"quota"}"#, ""),
        r#"{"decision":"deny","reason":"quota"}"#,
    ),
    case(
        "before model, exit 2",
        "BeforeModel",
        MODEL,
        (2, "", "over budget"),
        r#"{"decision":"deny","reason":"over budget"}"#,
    ),
    case(
        "before model, continue false",
        "BeforeModel",
        MODEL,
        (0, r#"{"continue":false,"stopReason":"quota"}"#, ""),
        r#"{"continue":false,"stopReason":"quota"}"#,
    ),
    // AfterModel.
    case(
        "after model, continue false",
        "AfterModel",
        MODEL_AFTER,
        (0, r#"{"continue":false,"stopReason":"pii"}"#, ""),
        r#"{"continue":false,"stopReason":"pii"}"#,
    ),
    case(
        "after model, response replaced",
        "AfterModel",
        MODEL_AFTER,
        (
            0,
            r#"{"hookSpecificOutput":{"llm_response":{"candidates":[{"content":{"role":"model","parts":["[redacted]"]}}]}}}"#,
            "",
        ),
        r#"{"hookSpecificOutput":{"hookEventName":"AfterModel","llm_response":{"candidates":[{"content":{"role":"model","parts":["[redacted]"]}}]}}}"#,
    ),
    case(
        "after model, response without parts is not a replacement",
        "AfterModel",
        MODEL_AFTER,
        (
            0,
            r#"{"hookSpecificOutput":{"llm_response":{"candidates":[]}}}"#,
            "",
        ),
        "{}",
    ),
    case(
        "after model, deny",
        "AfterModel",
        MODEL_AFTER,
        (0, r#"{"decision":"deny","reason":"pii"}"#, ""),
        r#"{"decision":"deny","reason":"pii"}"#,
    ),
    // BeforeToolSelection, lifecycle events.
    case(
        "tool selection",
        "BeforeToolSelection",
        MODEL,
        (
            0,
            r#"{"hookSpecificOutput":{"toolConfig":{"mode":"NONE"}}}"#,
            "",
        ),
        r#"{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"NONE","allowedFunctionNames":[]}}}"#,
    ),
    case(
        "tool selection, allowed names",
        "BeforeToolSelection",
        MODEL,
        (
            0,
            r#"{"hookSpecificOutput":{"toolConfig":{"mode":"ANY","allowedFunctionNames":["read_file","glob"]}}}"#,
            "",
        ),
        r#"{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"ANY","allowedFunctionNames":["glob","read_file"]}}}"#,
    ),
    case(
        "session start, context",
        "SessionStart",
        r#"{"source": "startup"}"#,
        (
            0,
            r#"{"hookSpecificOutput":{"additionalContext":"5 memories"},"systemMessage":"loaded"}"#,
            "",
        ),
        r#"{"systemMessage":"hook h: loaded","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"5 memories"}}"#,
    ),
    case(
        "session start, cannot block",
        "SessionStart",
        r#"{"source": "startup"}"#,
        (0, r#"{"decision":"deny","continue":false}"#, ""),
        "{}",
    ),
    case(
        "session start, exit 2",
        "SessionStart",
        r#"{"source": "startup"}"#,
        (2, "", "no"),
        r#"{"systemMessage":"hook h exited 2: no"}"#,
    ),
    case(
        "session end",
        "SessionEnd",
        r#"{"reason": "exit"}"#,
        (0, r#"{"systemMessage":"bye"}"#, ""),
        r#"{"systemMessage":"hook h: bye"}"#,
    ),
    case(
        "pre compress",
        "PreCompress",
        r#"{"trigger": "auto"}"#,
        (0, r#"{"systemMessage":"compressing"}"#, ""),
        r#"{"systemMessage":"hook h: compressing"}"#,
    ),
    case(
        "notification",
        "Notification",
        r#"{"notification_type": "ToolPermission", "message": "m", "details": {}}"#,
        (0, r#"{"decision":"deny"}"#, ""),
        "{}",
    ),
];

#[test]
fn conformance() {
    let env = test_env();
    let mut failures = Vec::new();
    for case in CASES {
        let stdout = env.write_file("reply-stdout.txt", case.stdout);
        let stderr = env.write_file("reply-stderr.txt", case.stderr);
        let script = env.write_script(
            "bin/hook.sh",
            &format!(
                "cat > /dev/null\ncat {}\ncat {} >&2\nexit {}\n",
                quoted(&stdout),
                quoted(&stderr),
                case.code
            ),
        );
        project_settings(
            &env,
            &json!({"hooks": {case.event: [{"hooks": [command(&quoted(&script))]}]}}),
        );
        let fields: Value = serde_json::from_str(case.fields).expect("json");
        let out = host(&env, case.event, &fields);
        let hook = format!("gemini:project:{}:1", case.event);
        let answer = out.stdout.trim_end().replace(&hook, "h");
        if out.code != 0 || answer != case.answer {
            failures.push(format!(
                "{}: exit {}\n  got:      {answer}\n  expected: {}\n  stderr: {}",
                case.name, out.code, case.answer, out.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn sequential_hooks_see_what_the_hooks_before_them_answered() {
    let env = test_env();
    // Each hook appends its word to the command it is given, so the final command
    // shows the order the hooks ran in and what each saw. The line is bash (`[[ =~ ]]`,
    // `BASH_REMATCH`), as Gemini CLI runs hook commands with bash.
    // guards: a hook line written for bash run by /bin/sh, where `[[` does not exist
    let hook = |word: &str| {
        command(&format!(
            r#"input=$(cat); re='"command":"([^"]*)"'; [[ $input =~ $re ]]; printf '{{"hookSpecificOutput":{{"tool_input":{{"command":"%s %s"}}}}}}' "${{BASH_REMATCH[1]}}" {word}"#
        ))
    };
    project_settings(
        &env,
        &json!({"hooks": {"BeforeTool": [
            {"hooks": [hook("a"), hook("b")]},
            {"sequential": true, "hooks": [hook("c")]}
        ]}}),
    );
    let out = host(
        &env,
        "BeforeTool",
        &json!({"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            0,
            "{\"hookSpecificOutput\":{\"hookEventName\":\"BeforeTool\",\"tool_input\":{\"command\":\"ls a b c\"}}}\n"
        ),
        "{}",
        out.stderr
    );

    // Without `sequential`, the hooks of a file run at once and each sees the input as
    // Gemini CLI sent it; the last one's arguments are merged over it.
    project_settings(
        &env,
        &json!({"hooks": {"BeforeTool": [{"hooks": [hook("a"), hook("b")]}]}}),
    );
    let out = host(
        &env,
        "BeforeTool",
        &json!({"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(
        out.stdout,
        "{\"hookSpecificOutput\":{\"hookEventName\":\"BeforeTool\",\"tool_input\":{\"command\":\"ls b\"}}}\n"
    );
}

#[test]
fn matchers_and_timeouts_in_milliseconds() {
    let env = test_env();
    let slow = env.write_script(
        "bin/slow.sh",
        &format!("{} 10\n", quoted(&env.marked_sleep())),
    );
    let deny = env.write_script(
        "bin/deny.sh",
        "echo '{\"decision\":\"deny\",\"reason\":\"writes are reviewed\"}'\n",
    );
    project_settings(
        &env,
        &json!({"hooks": {
            "BeforeTool": [
                {"matcher": "write_.*|replace", "hooks": [command(&quoted(&deny))]},
                {"matcher": "run_shell_command", "hooks": [
                    {"type": "command", "command": quoted(&slow), "timeout": 300}
                ]}
            ],
            "SessionStart": [{"matcher": "resume", "hooks": [command(&quoted(&deny))]}]
        }}),
    );
    let write = json!({"tool_name": "write_file", "tool_input": {"file_path": "a"}});
    let out = host(&env, "BeforeTool", &write);
    assert_eq!(
        out.stdout,
        "{\"decision\":\"deny\",\"reason\":\"writes are reviewed\"}\n"
    );
    let out = host(
        &env,
        "BeforeTool",
        &serde_json::from_str(SHELL_RM).expect("json"),
    );
    assert_eq!(
        out.stdout,
        "{\"systemMessage\":\"hook gemini:project:BeforeTool:2 timed out after 300ms\"}\n"
    );
    assert!(env.leftovers().is_empty());
    let read = json!({"tool_name": "read_file", "tool_input": {"file_path": "a"}});
    assert_eq!(host(&env, "BeforeTool", &read).stdout, "{}\n");
    // A lifecycle matcher is the exact `source`.
    let native = emit(&env, &["SessionStart"], r#"{"source": "startup"}"#);
    assert_eq!(native.result("gemini:project:SessionStart:1"), "skipped");
}

#[test]
fn a_broken_settings_file_is_skipped_with_its_position_and_the_others_still_decide() {
    let env = test_env();
    std::fs::create_dir_all(env.project().join(".gemini")).expect("mkdir");
    std::fs::write(
        env.project().join(".gemini/settings.json"),
        "{\n  \"hooks\": {\n    \"BeforeTool\": [,]\n  }\n}\n",
    )
    .expect("write");
    let deny = env.write_script("bin/deny.sh", "echo 'from the user' >&2\nexit 2\n");
    user_settings(
        &env,
        &json!({"hooks": {"BeforeTool": [{"hooks": [command(&quoted(&deny))]}]}}),
    );
    let out = host(
        &env,
        "BeforeTool",
        &serde_json::from_str(SHELL_RM).expect("json"),
    );
    assert_eq!(
        redact(&env, out.stdout.trim_end()),
        r#"{"systemMessage":"[ROOT]/project/.gemini/settings.json:3:20: invalid Gemini CLI settings, file skipped: expected value","decision":"deny","reason":"from the user"}"#
    );
}

// examples/gemini: a guard that denies `rm -rf` and a context hook, as Gemini settings.

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn the_gemini_example_denies_rm_rf_and_adds_context() {
    let env = test_env();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/gemini");
    copy_dir(&example, &env.project());
    let payload = |name: &str| {
        std::fs::read_to_string(env.project().join("payloads").join(name))
            .expect("payload")
            .replace("CWD", &env.project().display().to_string())
    };
    let mut answers = Vec::new();
    for name in [
        "before-tool-rm-rf.json",
        "before-tool-ls.json",
        "before-agent.json",
    ] {
        let out = emit(&env, &["--dialect", "gemini"], &payload(name));
        assert_eq!(out.code, 0, "{name}: {}", out.stderr);
        answers.push(format!("{name}: {}", out.stdout.trim_end()));
    }
    insta::assert_snapshot!(answers.join("\n"));

    // Until `hookrig trust`, the example's hooks are reported and not run.
    let out = emit_untrusted(
        &env,
        &["--dialect", "gemini"],
        &payload("before-tool-rm-rf.json"),
    );
    let answer: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(answer.get("decision"), None, "{answer}");
    assert!(
        answer["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("gemini:project:BeforeTool:1 was not run")),
        "{answer}"
    );
    // `hookrig trust` records them with the scripts `$GEMINI_PROJECT_DIR` names; a
    // changed script asks again.
    let trusted = env.run_untrusted(["trust"], b"");
    assert!(trusted.status.success(), "{trusted:?}");
    let out = emit_untrusted(
        &env,
        &["--dialect", "gemini"],
        &payload("before-tool-rm-rf.json"),
    );
    assert_eq!(
        out.stdout,
        "{\"decision\":\"deny\",\"reason\":\"rm -rf is not allowed here; delete files one by one\"}\n"
    );
    let guard = env.project().join(".gemini/hooks/no-rm-rf.sh");
    let script = std::fs::read_to_string(&guard).expect("read");
    std::fs::write(&guard, format!("{script}\n# changed\n")).expect("write");
    let out = emit_untrusted(
        &env,
        &["--dialect", "gemini"],
        &payload("before-tool-rm-rf.json"),
    );
    let answer: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(answer.get("decision"), None, "{answer}");
}

// guards: a hook of another dialect (here a native hook's `stop`) that stops the agent
// reaches Gemini CLI as its own stop (`continue: false` + `stopReason`) on every event
// that reads flow control, and as a message on the advisory events
#[test]
fn a_stop_of_any_hook_reaches_gemini_as_continue_false() {
    let env = test_env();
    env.write_bin(
        "halt",
        r#"printf '%s' '{"stop":{"reason":"budget spent"}}'"#,
    );
    let events = [
        ("BeforeTool", SHELL_RM),
        ("AfterTool", AFTER),
        ("BeforeAgent", PROMPT),
        ("AfterAgent", r#"{"prompt": "p", "prompt_response": "r"}"#),
        ("BeforeModel", MODEL),
        ("AfterModel", MODEL_AFTER),
        ("SessionStart", r#"{"source": "startup"}"#),
        ("SessionEnd", r#"{"reason": "exit"}"#),
        ("PreCompress", r#"{"trigger": "auto"}"#),
        (
            "Notification",
            r#"{"notification_type": "ToolPermission", "message": "m"}"#,
        ),
    ];
    let names: Vec<String> = events.iter().map(|(e, _)| format!("{e:?}")).collect();
    env.write_global_config(&format!(
        "[[hooks]]\nname = \"halt\"\nevents = [{}]\ncommand = \"halt\"\n",
        names.join(", ")
    ));
    let mut table = String::new();
    for (event, fields) in events {
        let fields: Value = serde_json::from_str(fields).expect("json");
        let out = host(&env, event, &fields);
        assert_eq!(out.code, 0, "{event}: {}", out.stderr);
        let _ = writeln!(table, "{event} => {}", out.stdout.trim_end());
    }
    insta::assert_snapshot!(table);
}

// guards: the tool configurations of several `BeforeToolSelection` hooks reach Gemini
// CLI merged as its aggregator merges them (the union of the allowed tools; NONE wins,
// then ANY), the response of the last `AfterModel` hook that replaced it is the one
// answered, and a `BeforeModel` deny is answered although `model.before` is a transform
// event; for a native host nothing of it changes the event (a warning says so)
#[test]
fn model_and_tool_selection_answers_of_several_hooks_are_merged_as_gemini_merges_them() {
    let env = test_env();
    let reply = |name: &str, text: &str| {
        let file = env.write_file(format!("replies/{name}.json"), text);
        command(&format!("cat > /dev/null; cat {}", quoted(&file)))
    };
    user_settings(
        &env,
        &json!({"hooks": {
            "BeforeToolSelection": [{"hooks": [reply("sel-a", r#"{"hookSpecificOutput":{"toolConfig":{"mode":"AUTO","allowedFunctionNames":["read_file"]}}}"#)]}],
            "AfterModel": [{"hooks": [reply("resp-a", r#"{"hookSpecificOutput":{"llm_response":{"candidates":[{"content":{"role":"model","parts":["a"]}}]}}}"#)]}],
            "BeforeModel": [{"hooks": [reply("deny", r#"{"decision":"deny","reason":"quota"}"#)]}]
        }}),
    );
    project_settings(
        &env,
        &json!({"hooks": {
            "BeforeToolSelection": [{"hooks": [reply("sel-b", r#"{"hookSpecificOutput":{"toolConfig":{"mode":"ANY","allowedFunctionNames":["glob","read_file"]}}}"#)]}],
            "AfterModel": [{"hooks": [reply("resp-b", r#"{"hookSpecificOutput":{"llm_response":{"candidates":[{"content":{"role":"model","parts":["b"]}}]}}}"#)]}]
        }}),
    );
    let model: Value = serde_json::from_str(MODEL).expect("json");
    let after: Value = serde_json::from_str(MODEL_AFTER).expect("json");
    let out = host(&env, "BeforeToolSelection", &model);
    assert_eq!(
        out.stdout.trim_end(),
        r#"{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"ANY","allowedFunctionNames":["glob","read_file"]}}}"#
    );
    let out = host(&env, "AfterModel", &after);
    assert_eq!(
        out.stdout.trim_end(),
        r#"{"hookSpecificOutput":{"hookEventName":"AfterModel","llm_response":{"candidates":[{"content":{"role":"model","parts":["b"]}}]}}}"#
    );
    let out = host(&env, "BeforeModel", &model);
    assert_eq!(
        out.stdout.trim_end(),
        r#"{"decision":"deny","reason":"quota"}"#
    );

    // The native host: `model.before` stays a transform event for every dialect.
    let out = emit(&env, &["BeforeModel"], &input(&env, "BeforeModel", &model));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow");
    assert!(
        out.has_warning("hook gemini:user:BeforeModel:1: `deny` ignored on transform event model.before: transform hooks only rewrite the payload"),
        "{:#}",
        out.outcome
    );
}

// guards: the hooks of an installed Gemini CLI extension run, with `${extensionPath}`
// and `${/}` replaced by the extension's folder and `/`; an extension turned off for
// the workspace by `extension-enablement.json`, or without a manifest, is not read
#[test]
fn hooks_of_installed_extensions_run_unless_the_extension_is_off_here() {
    let env = test_env();
    let extensions = env.home().join(".gemini/extensions");
    let install = |dir: &str, name: &str, manifest: bool| {
        let folder = extensions.join(dir);
        if manifest {
            write(
                &folder.join("gemini-extension.json"),
                &json!({"name": name, "version": "1.0.0"}),
            );
        }
        hookrig_test_support::write_executable(
            &folder.join("hooks/guard.sh"),
            &format!("cat > /dev/null\necho 'blocked by {name}' >&2\nexit 2\n"),
        );
        write(
            &folder.join("hooks/hooks.json"),
            &json!({"hooks": {"BeforeTool": [{"hooks": [
                command("${extensionPath}${/}hooks${/}guard.sh")
            ]}]}}),
        );
    };
    install("guard", "guard", true);
    let fields: Value = serde_json::from_str(SHELL_RM).expect("json");
    let out = another_host(&env, "BeforeTool", &fields);
    assert_eq!(out.outcome["decision"], "deny", "{}", out.stderr);
    assert_eq!(out.outcome["reason"], "blocked by guard", "{}", out.stderr);
    // Answering Gemini CLI, which runs the extension's hook itself: left out.
    let out = host(&env, "BeforeTool", &fields);
    assert_eq!(out.stdout.trim_end(), "{}", "{}", out.stderr);

    // Turned off for this workspace (and its subdirectories).
    write(
        &extensions.join("extension-enablement.json"),
        &json!({"guard": {"overrides": [format!("!{}/*", env.project().display())]}}),
    );
    let out = another_host(&env, "BeforeTool", &fields);
    assert_eq!(out.outcome["decision"], "allow", "{}", out.stderr);

    // No manifest: Gemini CLI skips the folder.
    install("stray", "stray", false);
    let out = another_host(&env, "BeforeTool", &fields);
    assert_eq!(out.outcome["decision"], "allow", "{}", out.stderr);

    // The hook's name says which extension it comes from.
    std::fs::remove_file(extensions.join("extension-enablement.json")).expect("rm");
    let out = emit(&env, &["BeforeTool"], &input(&env, "BeforeTool", &fields));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(
        out.outcome["decided_by"],
        "gemini:extension-guard:BeforeTool:1"
    );
}

// guards: Gemini CLI's system defaults file (`system-defaults.json`, moved here by
// `GEMINI_CLI_SYSTEM_DEFAULTS_PATH`), the lowest of its settings layers, adds its hooks
// as every layer does; they are global hooks, named after their file
#[test]
fn the_system_defaults_file_adds_its_hooks() {
    let env = test_env();
    write(
        &env.root().join("etc/gemini-cli/system-defaults.json"),
        &json!({"hooks": {"BeforeTool": [{"hooks": [command("cat > /dev/null; echo 'not by default' >&2; exit 2")]}]}}),
    );
    let fields: Value = serde_json::from_str(SHELL_RM).expect("json");
    let out = emit_untrusted(&env, &["BeforeTool"], &input(&env, "BeforeTool", &fields));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(
        out.outcome["decided_by"],
        "gemini:system-defaults:BeforeTool:1"
    );
    assert_eq!(out.outcome["reason"], "not by default");
}

/// Installs the extension `name` in `~/.gemini/extensions/<name>/` with one `BeforeTool`
/// hook running `line`, the install record `metadata` (`type`, `source`) when given, and
/// `manifest` fields beyond `name` and `version`.
fn install_extension(
    env: &TestEnv,
    name: &str,
    line: &str,
    metadata: Option<(&str, &str)>,
    manifest: &Value,
) -> PathBuf {
    let folder = env.home().join(".gemini/extensions").join(name);
    let mut fields = json!({"name": name, "version": "1.0.0"});
    if let (Value::Object(fields), Value::Object(more)) = (&mut fields, manifest) {
        fields.extend(more.clone());
    }
    write(&folder.join("gemini-extension.json"), &fields);
    if let Some((kind, source)) = metadata {
        write(
            &folder.join(".gemini-extension-install.json"),
            &json!({"type": kind, "source": source}),
        );
    }
    write(
        &folder.join("hooks/hooks.json"),
        &json!({"hooks": {"BeforeTool": [{"hooks": [command(line)]}]}}),
    );
    folder
}

// guards: `admin.extensions.enabled`, `security.allowedExtensions` and
// `security.blockGitExtensions` of the user's and the system's settings decide which
// extensions load, as in Gemini CLI's extension manager; a project's file cannot
// turn the user's extensions off
#[test]
fn extensions_the_settings_do_not_allow_run_nothing() {
    let env = test_env();
    let log = env.root().join("ran.log");
    let line = |name: &str| format!("cat > /dev/null; echo {name} >> {}", quoted(&log));
    install_extension(
        &env,
        "remote",
        &line("remote"),
        Some(("git", "https://git.example.com/acme/remote")),
        &json!({}),
    );
    install_extension(
        &env,
        "local",
        &line("local"),
        Some(("local", "/src/local")),
        &json!({}),
    );
    let fields: Value = serde_json::from_str(SHELL_RM).expect("json");
    let ran = |env: &TestEnv| {
        let _ = std::fs::remove_file(&log);
        let out = another_host(env, "BeforeTool", &fields);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let mut ran: Vec<String> = text.lines().map(str::to_owned).collect();
        ran.sort_unstable();
        ran
    };
    assert_eq!(ran(&env), ["local", "remote"]);

    user_settings(&env, &json!({"security": {"blockGitExtensions": true}}));
    assert_eq!(ran(&env), ["local"]);

    user_settings(
        &env,
        &json!({"security": {"blockGitExtensions": true, "allowedExtensions": ["git\\.example\\.com/acme/"]}}),
    );
    assert_eq!(ran(&env), ["remote"]);

    user_settings(&env, &json!({}));
    system_settings(&env, &json!({"admin": {"extensions": {"enabled": false}}}));
    assert_eq!(ran(&env), Vec::<String>::new());

    std::fs::remove_file(env.root().join("etc/gemini-cli/settings.json")).expect("rm");
    project_settings(&env, &json!({"admin": {"extensions": {"enabled": false}}}));
    assert_eq!(ran(&env), ["local", "remote"]);
}

// guards: an extension's settings in its `.env` replace `${VAR}` in its hooks and reach
// their environment, over the hook's own `env`; `experimental.extensionConfig: false`
// turns that off
#[test]
fn an_extensions_settings_reach_its_hooks() {
    let env = test_env();
    let log = env.root().join("ran.log");
    let folder = install_extension(
        &env,
        "conf",
        &format!(
            "cat > /dev/null; echo \"${{API_URL}} $API_URL $OTHER\" >> {}",
            quoted(&log)
        ),
        None,
        &json!({"settings": [{"name": "API", "description": "the API", "envVar": "API_URL"}]}),
    );
    std::fs::write(
        folder.join(".env"),
        "API_URL=https://api.example\nOTHER=1\n",
    )
    .expect("write");
    let fields: Value = serde_json::from_str(SHELL_RM).expect("json");
    let out = another_host(&env, "BeforeTool", &fields);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // OTHER is replaced where written but, not being a declared setting, not exported.
    assert_eq!(
        std::fs::read_to_string(&log).expect("ran"),
        "https://api.example https://api.example \n"
    );

    std::fs::remove_file(&log).expect("rm");
    user_settings(&env, &json!({"experimental": {"extensionConfig": false}}));
    let out = another_host(&env, "BeforeTool", &fields);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&log).expect("ran"), "  \n");
}

// guards: hooks are compared after an extension's variables are replaced, as Gemini
// CLI replaces them when it loads the extension: two extensions with the same
// `${extensionPath}` command both run, and a user hook with the same command as an
// extension's after the replacement runs once
#[test]
fn identical_extension_hooks_are_compared_after_their_variables() {
    let env = test_env();
    let log = env.root().join("ran.log");
    for name in ["one", "two"] {
        let folder = env.home().join(".gemini/extensions").join(name);
        hookrig_test_support::write_executable(
            &folder.join("hooks/note.sh"),
            &format!("cat > /dev/null\necho {name} >> {}\n", quoted(&log)),
        );
        install_extension(
            &env,
            name,
            "${extensionPath}/hooks/note.sh",
            None,
            &json!({}),
        );
    }
    let one = env.home().join(".gemini/extensions/one/hooks/note.sh");
    user_settings(
        &env,
        &json!({"hooks": {"BeforeTool": [{"hooks": [command(&one.display().to_string())]}]}}),
    );
    let fields: Value = serde_json::from_str(SHELL_RM).expect("json");
    let out = another_host(&env, "BeforeTool", &fields);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = std::fs::read_to_string(&log).expect("ran");
    let mut ran: Vec<&str> = text.lines().collect();
    ran.sort_unstable();
    assert_eq!(ran, ["one", "two"]);
}
