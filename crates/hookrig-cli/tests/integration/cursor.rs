//! The cursor dialect end to end: Cursor's `hooks.json` hooks run as Cursor runs them,
//! and `emit --dialect cursor` answers exactly what Cursor reads. The rules and their
//! sources are in docs/dialects/cursor.md.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use hookrig_test_support::{HANG_LIMIT, TestEnv, run_with_input};
use serde_json::{Value, json};

use crate::harness::{Emitted, emit, emit_untrusted, emitted, quoted, test_env};

fn write(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, serde_json::to_string_pretty(value).expect("json")).expect("write");
}

fn user_hooks(env: &TestEnv, hooks: &Value) {
    write(
        &env.home().join(".cursor/hooks.json"),
        &json!({"version": 1, "hooks": hooks}),
    );
}

fn project_hooks(env: &TestEnv, hooks: &Value) {
    write(
        &env.project().join(".cursor/hooks.json"),
        &json!({"version": 1, "hooks": hooks}),
    );
}

/// Where the enterprise file of a test lives (`HOOKRIG_CURSOR_ENTERPRISE_HOOKS`, which
/// `TestEnv` sets for every command).
fn enterprise_path(env: &TestEnv) -> PathBuf {
    env.cursor_enterprise_hooks_path()
}

/// `hookrig emit --dialect cursor` with `input` on stdin, the enterprise file moved into
/// the test's directory.
fn cursor(env: &TestEnv, input: &Value) -> Emitted {
    let command = env.command(["emit", "--dialect", "cursor"]);
    emitted(&run_with_input(
        command,
        input.to_string().as_bytes(),
        HANG_LIMIT,
    ))
}

/// What Cursor sends every hook, for `event` in the test's project, with `fields`.
fn input(env: &TestEnv, event: &str, fields: &Value) -> Value {
    let mut input = json!({
        "conversation_id": "c1",
        "generation_id": "g1",
        "model": "claude-sonnet-4",
        "hook_event_name": event,
        "cursor_version": "2.1.0",
        "workspace_roots": [env.project()],
        "user_email": "dev@example.com",
        "transcript_path": null
    });
    for (key, value) in fields.as_object().expect("an object") {
        input[key] = value.clone();
    }
    input
}

/// A user hook script that answers with `stdout`, `stderr` and exit code `code`.
fn replying(env: &TestEnv, name: &str, code: i32, stdout: &str, stderr: &str) -> String {
    let out = env.write_file(format!("replies/{name}.out"), stdout);
    let err = env.write_file(format!("replies/{name}.err"), stderr);
    let script = env.write_script(
        format!("bin/{name}.sh"),
        &format!(
            "cat > /dev/null\ncat {}\ncat {} >&2\nexit {code}\n",
            quoted(&out),
            quoted(&err)
        ),
    );
    quoted(&script)
}

/// One conformance case: Cursor's event and input fields, the hook entry's extra
/// options, the hook's reply, and the exact stdout Cursor must read.
struct Case {
    event: &'static str,
    fields: Value,
    options: Value,
    code: i32,
    stdout: &'static str,
    stderr: &'static str,
    answer: &'static str,
}

fn case(
    event: &'static str,
    fields: Value,
    reply: (i32, &'static str, &'static str),
    answer: &'static str,
) -> Case {
    Case {
        event,
        fields,
        options: json!({}),
        code: reply.0,
        stdout: reply.1,
        stderr: reply.2,
        answer,
    }
}

fn shell(command: &str) -> Value {
    json!({"command": command, "cwd": "/repo", "sandbox": false})
}

fn tool(name: &str, input: &Value) -> Value {
    json!({"tool_name": name, "tool_input": input, "tool_use_id": "t1", "cwd": "/repo"})
}

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "one table of every event and answer field"
)]
fn every_event_and_answer_field_reaches_cursor_exactly() {
    let with = |mut case: Case, options: Value| {
        case.options = options;
        case
    };
    let cases = [
        // Permission events: `permission`, the messages, exit 2, failures.
        case(
            "beforeShellExecution",
            shell("ls"),
            (0, r#"{"permission":"allow"}"#, ""),
            r#"{"permission":"allow"}"#,
        ),
        case(
            "beforeShellExecution",
            shell("rm -rf /"),
            (
                0,
                r#"{"permission":"deny","user_message":"not here","agent_message":"rm -rf is blocked"}"#,
                "",
            ),
            r#"{"permission":"deny","user_message":"rm -rf is blocked","agent_message":"rm -rf is blocked"}"#,
        ),
        case(
            "beforeShellExecution",
            shell("gh pr create"),
            (
                0,
                r#"{"permission":"ask","user_message":"gh needs a look"}"#,
                "",
            ),
            r#"{"permission":"ask","user_message":"gh needs a look","agent_message":"gh needs a look"}"#,
        ),
        case(
            "beforeShellExecution",
            shell("curl x"),
            (2, "", "no network\n"),
            r#"{"permission":"deny","user_message":"no network","agent_message":"no network"}"#,
        ),
        case(
            "beforeShellExecution",
            shell("ls"),
            (1, "", "crashed"),
            r#"{"permission":"allow"}"#,
        ),
        with(
            case(
                "beforeShellExecution",
                shell("ls"),
                (1, "", "crashed"),
                r#"{"permission":"deny","user_message":"hook cursor:user:beforeShellExecution:1 exited 1: crashed (the hook is failClosed)","agent_message":"hook cursor:user:beforeShellExecution:1 exited 1: crashed (the hook is failClosed)"}"#,
            ),
            json!({"failClosed": true}),
        ),
        case(
            "beforeShellExecution",
            shell("ls"),
            (0, "yes", ""),
            r#"{"permission":"deny","user_message":"hook cursor:user:beforeShellExecution:1: reply is not a JSON object, which blocks beforeShellExecution","agent_message":"hook cursor:user:beforeShellExecution:1: reply is not a JSON object, which blocks beforeShellExecution"}"#,
        ),
        with(
            case(
                "beforeShellExecution",
                shell("ls -la"),
                (2, "", "never"),
                r#"{"permission":"allow"}"#,
            ),
            json!({"matcher": "rm "}),
        ),
        case(
            "beforeMCPExecution",
            json!({"tool_name": "MCP:db.query", "tool_input": "{\"sql\":\"DROP TABLE t\"}", "url": "http://127.0.0.1:1"}),
            (0, r#"{"permission":"deny","agent_message":"no DROP"}"#, ""),
            r#"{"permission":"deny","user_message":"no DROP","agent_message":"no DROP"}"#,
        ),
        case(
            "beforeReadFile",
            json!({"file_path": "/repo/.env", "content": "KEY=1", "attachments": []}),
            (
                0,
                r#"{"permission":"deny","user_message":"secrets stay local"}"#,
                "",
            ),
            r#"{"permission":"deny","user_message":"secrets stay local","agent_message":"secrets stay local"}"#,
        ),
        case(
            "preToolUse",
            tool("Shell", &json!({"command": "npm install"})),
            (
                0,
                r#"{"permission":"allow","updated_input":{"command":"npm ci"}}"#,
                "",
            ),
            r#"{"permission":"allow","updated_input":{"command":"npm ci"}}"#,
        ),
        case(
            "preToolUse",
            tool("Write", &json!({"file_path": "/repo/.env"})),
            (0, r#"{"permission":"deny","user_message":"no .env"}"#, ""),
            r#"{"permission":"deny","user_message":"no .env","agent_message":"no .env"}"#,
        ),
        case(
            "subagentStart",
            json!({"subagent_type": "explore", "prompt": "look around"}),
            (0, r#"{"permission":"ask","agent_message":"why?"}"#, ""),
            r#"{"permission":"deny","user_message":"why? (subagentStart cannot ask; Cursor treats an ask as a deny)","agent_message":"why? (subagentStart cannot ask; Cursor treats an ask as a deny)"}"#,
        ),
        // beforeSubmitPrompt: `continue` and `user_message`.
        case(
            "beforeSubmitPrompt",
            json!({"prompt": "my key is sk-123", "attachments": []}),
            (
                0,
                r#"{"continue":false,"user_message":"the prompt holds a key"}"#,
                "",
            ),
            r#"{"continue":false,"user_message":"the prompt holds a key"}"#,
        ),
        case(
            "beforeSubmitPrompt",
            json!({"prompt": "hi"}),
            (0, r#"{"continue":true}"#, ""),
            r#"{"continue":true}"#,
        ),
        // stop and subagentStop: `followup_message`, bounded by `loop_limit`.
        case(
            "stop",
            json!({"status": "completed", "loop_count": 0}),
            (0, r#"{"followup_message":"the tests fail; fix them"}"#, ""),
            r#"{"followup_message":"the tests fail; fix them"}"#,
        ),
        with(
            case(
                "stop",
                json!({"status": "completed", "loop_count": 2}),
                (0, r#"{"followup_message":"again"}"#, ""),
                "{}",
            ),
            json!({"loop_limit": 2}),
        ),
        case(
            "subagentStop",
            json!({"subagent_type": "explore", "status": "completed", "loop_count": 0}),
            (0, r#"{"followup_message":"go deeper"}"#, ""),
            r#"{"followup_message":"go deeper"}"#,
        ),
        // Context and messages.
        case(
            "sessionStart",
            json!({"session_id": "c1", "is_background_agent": false, "composer_mode": "agent"}),
            (
                0,
                r#"{"additional_context":"branch main is protected"}"#,
                "",
            ),
            r#"{"additional_context":"branch main is protected"}"#,
        ),
        // `env` is answered to Cursor, which sets it for the session's later hooks.
        case(
            "sessionStart",
            json!({"session_id": "c1", "is_background_agent": false, "composer_mode": "agent"}),
            (
                0,
                r#"{"additional_context":"ctx","env":{"PROJECT_MODE":"strict"}}"#,
                "",
            ),
            r#"{"env":{"PROJECT_MODE":"strict"},"additional_context":"ctx"}"#,
        ),
        case(
            "postToolUse",
            json!({"tool_name": "MCP:db.query", "tool_input": {"sql": "select"}, "tool_use_id": "t1", "cwd": "/repo", "tool_output": "{\"rows\":1}", "duration": 5}),
            (
                0,
                r#"{"additional_context":"1 row","updated_mcp_tool_output":{"rows":"redacted"}}"#,
                "",
            ),
            r#"{"additional_context":"1 row","updated_mcp_tool_output":{"rows":"redacted"}}"#,
        ),
        case(
            "preCompact",
            json!({"trigger": "auto", "context_usage_percent": 85}),
            (0, r#"{"user_message":"compacting 30 messages"}"#, ""),
            r#"{"user_message":"compacting 30 messages"}"#,
        ),
        // Events whose answer Cursor does not read.
        case(
            "afterFileEdit",
            json!({"file_path": "/repo/a.ts", "edits": []}),
            (0, "formatted", ""),
            "{}",
        ),
        case(
            "afterShellExecution",
            json!({"command": "ls", "output": "a", "duration": 3}),
            (2, "", "x"),
            "{}",
        ),
        case(
            "afterMCPExecution",
            json!({"tool_name": "MCP:db", "tool_input": "{}", "result_json": "{}", "duration": 3}),
            (0, "", ""),
            "{}",
        ),
        case(
            "postToolUseFailure",
            json!({"tool_name": "Shell", "tool_input": {}, "tool_use_id": "t1", "cwd": "/repo", "error_message": "boom", "failure_type": "error"}),
            (0, "", ""),
            "{}",
        ),
        case(
            "afterAgentResponse",
            json!({"text": "done"}),
            (0, "", ""),
            "{}",
        ),
        case(
            "afterAgentThought",
            json!({"text": "hmm", "duration_ms": 5}),
            (0, "", ""),
            "{}",
        ),
        case(
            "sessionEnd",
            json!({"session_id": "c1", "reason": "completed", "duration_ms": 5}),
            (0, r#"{"permission":"deny"}"#, ""),
            "{}",
        ),
    ];
    for (index, case) in cases.into_iter().enumerate() {
        let env = test_env();
        let hook = replying(&env, "hook", case.code, case.stdout, case.stderr);
        let mut entry = json!({"command": hook});
        for (key, value) in case.options.as_object().expect("an object") {
            entry[key] = value.clone();
        }
        user_hooks(&env, &json!({case.event: [entry]}));
        let emitted = cursor(&env, &input(&env, case.event, &case.fields));
        assert_eq!(
            (emitted.code, emitted.stdout.trim_end()),
            (0, case.answer),
            "case {index} ({}), stderr: {}",
            case.event,
            emitted.stderr
        );
    }
}

#[test]
fn hooks_read_exactly_what_cursor_sent_from_the_directory_cursor_runs_them_in() {
    let env = test_env();
    let dump = "cat > \"$CURSOR_PROJECT_DIR/stdin.json\"\n\
                { pwd; printf '%s\\n' \"$CURSOR_PROJECT_DIR\" \"$CLAUDE_PROJECT_DIR\" \"$CURSOR_VERSION\" \"$CURSOR_USER_EMAIL\"; } > \"$CURSOR_PROJECT_DIR/env.txt\"\n\
                echo '{\"permission\":\"allow\"}'\n";
    env.write_script(".cursor/hooks/dump.sh", dump);
    project_hooks(
        &env,
        &json!({"beforeShellExecution": [{"command": ".cursor/hooks/dump.sh"}]}),
    );
    let sent = input(&env, "beforeShellExecution", &shell("ls"));
    let emitted = cursor(&env, &sent);
    assert_eq!(
        emitted.stdout, "{\"permission\":\"allow\"}\n",
        "{}",
        emitted.stderr
    );
    let received: Value =
        serde_json::from_str(&env.read_file("stdin.json").expect("the hook ran")).expect("json");
    assert_eq!(received, sent);
    assert_eq!(
        env.read_file("stdin.json").expect("the hook ran"),
        sent.to_string(),
        "the fields come in Cursor's order"
    );
    let project = env.project().display().to_string();
    assert_eq!(
        env.read_file("env.txt").expect("the hook ran"),
        format!("{project}\n{project}\n{project}\n2.1.0\ndev@example.com\n")
    );
}

#[test]
fn user_hooks_run_from_the_cursor_directory_and_enterprise_hooks_from_theirs() {
    let env = test_env();
    let log = env.project().join("ran.log");
    for dir in [
        env.home().join(".cursor"),
        enterprise_path(&env).parent().expect("dir").to_owned(),
    ] {
        hookrig_test_support::write_executable(
            &dir.join("hooks/log.sh"),
            &format!("cat > /dev/null\npwd >> {}\n", quoted(&log)),
        );
    }
    user_hooks(&env, &json!({"stop": [{"command": "./hooks/log.sh"}]}));
    write(
        &enterprise_path(&env),
        &json!({"version": 1, "hooks": {"stop": [{"command": "./hooks/log.sh"}]}}),
    );
    let emitted = cursor(
        &env,
        &input(
            &env,
            "stop",
            &json!({"status": "completed", "loop_count": 0}),
        ),
    );
    assert_eq!(emitted.stdout, "{}\n", "{}", emitted.stderr);
    let mut ran: Vec<String> = std::fs::read_to_string(&log)
        .expect("the hooks ran")
        .lines()
        .map(str::to_owned)
        .collect();
    ran.sort();
    let mut expected = vec![
        env.home().join(".cursor").display().to_string(),
        enterprise_path(&env)
            .parent()
            .expect("dir")
            .display()
            .to_string(),
    ];
    expected.sort();
    assert_eq!(ran, expected);
}

#[test]
fn a_project_hook_runs_only_once_trusted() {
    let env = test_env();
    let guard = env.write_script(".cursor/hooks/deny.sh", "cat > /dev/null\nexit 2\n");
    project_hooks(
        &env,
        &json!({"beforeShellExecution": [{"command": quoted(&guard)}]}),
    );
    let sent = input(&env, "beforeShellExecution", &shell("ls"));
    let untrusted = emit_untrusted(&env, &["--dialect", "cursor"], &sent.to_string());
    assert_eq!(untrusted.stdout, "{\"permission\":\"allow\"}\n");
    assert!(
        untrusted.stderr.contains("was not run") && untrusted.stderr.contains("hookrig trust"),
        "{}",
        untrusted.stderr
    );
    let trusted = emit(&env, &["--dialect", "cursor"], &sent.to_string());
    assert!(
        trusted.stdout.starts_with("{\"permission\":\"deny\""),
        "{}",
        trusted.stdout
    );
}

#[test]
fn a_broken_project_file_is_placed_and_leaves_the_users_guard_deciding() {
    let env = test_env();
    std::fs::create_dir_all(env.project().join(".cursor")).expect("mkdir");
    std::fs::write(
        env.project().join(".cursor/hooks.json"),
        "{\"version\": 1,\n \"hooks\": {\"stop\": [,]}}\n",
    )
    .expect("write");
    let deny = replying(
        &env,
        "deny",
        0,
        r#"{"permission":"deny","agent_message":"no"}"#,
        "",
    );
    user_hooks(&env, &json!({"beforeShellExecution": [{"command": deny}]}));
    let emitted = cursor(&env, &input(&env, "beforeShellExecution", &shell("ls")));
    assert_eq!(
        emitted.stdout,
        "{\"permission\":\"deny\",\"user_message\":\"no\",\"agent_message\":\"no\"}\n"
    );
    let place = format!(
        "{}:2:21: invalid Cursor hooks file",
        env.project().join(".cursor/hooks.json").display()
    );
    assert!(emitted.stderr.contains(&place), "{}", emitted.stderr);
}

#[test]
fn the_example_denies_rm_rf_and_adds_context() {
    let env = test_env();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/cursor/.cursor");
    let cursor_dir = env.project().join(".cursor");
    std::fs::create_dir_all(cursor_dir.join("hooks")).expect("mkdir");
    std::fs::copy(example.join("hooks.json"), cursor_dir.join("hooks.json")).expect("copy");
    for script in ["deny-rm-rf.sh", "context.sh"] {
        let to = cursor_dir.join("hooks").join(script);
        std::fs::copy(example.join("hooks").join(script), &to).expect("copy");
    }
    let denied = cursor(
        &env,
        &input(&env, "beforeShellExecution", &shell("rm -rf build")),
    );
    assert_eq!(
        denied.stdout,
        "{\"permission\":\"deny\",\"user_message\":\"rm -rf is not allowed here; delete the files one by one\",\"agent_message\":\"rm -rf is not allowed here; delete the files one by one\"}\n",
        "{}",
        denied.stderr
    );
    // guards: the dispatcher's remark that a notify event's hooks cannot change it is
    // not shown to Cursor's user, whose answer is exactly what the hooks decided
    assert_eq!(denied.stderr, "");
    let allowed = cursor(&env, &input(&env, "beforeShellExecution", &shell("ls -la")));
    assert_eq!(
        allowed.stdout, "{\"permission\":\"allow\"}\n",
        "{}",
        allowed.stderr
    );
    let context = cursor(
        &env,
        &input(
            &env,
            "sessionStart",
            &json!({"session_id": "c1", "is_background_agent": false}),
        ),
    );
    let answer: Value = serde_json::from_str(&context.stdout).expect("json");
    let text = answer["additional_context"].as_str().expect("context");
    assert!(text.starts_with("This session works in "), "{text}");
}

#[test]
fn answers_of_several_hooks_merge_as_cursor_merges_them() {
    let env = test_env();
    let ask = replying(
        &env,
        "ask",
        0,
        r#"{"permission":"ask","user_message":"sure?"}"#,
        "",
    );
    let deny_a = replying(
        &env,
        "deny-a",
        0,
        r#"{"permission":"deny","agent_message":"first"}"#,
        "",
    );
    let deny_b = replying(&env, "deny-b", 2, "", "second");
    let allow = replying(&env, "allow", 0, r#"{"permission":"allow"}"#, "");
    let event = |hooks: &[&String]| {
        let entries: Vec<Value> = hooks.iter().map(|h| json!({"command": h})).collect();
        user_hooks(&env, &json!({"beforeShellExecution": entries}));
        cursor(&env, &input(&env, "beforeShellExecution", &shell("ls"))).stdout
    };
    // A deny wins over an ask and an allow; every deny's reason is kept, one per line.
    assert_eq!(
        event(&[&allow, &ask, &deny_a, &deny_b]),
        "{\"permission\":\"deny\",\"user_message\":\"first\\nsecond\",\"agent_message\":\"first\\nsecond\"}\n"
    );
    // An ask wins over an allow.
    assert_eq!(
        event(&[&allow, &ask]),
        "{\"permission\":\"ask\",\"user_message\":\"sure?\",\"agent_message\":\"sure?\"}\n"
    );
    assert_eq!(event(&[&allow, &allow]), "{\"permission\":\"allow\"}\n");
}

// guards: a hook of another dialect (here a native hook's `stop`) that stops the agent
// reaches Cursor, which has no stop of its own, as its closest answer: a deny of a
// permission event, `continue: false` of a prompt, no follow-up of a `stop`; a warning
// on stderr says so on every event
#[test]
fn a_stop_of_any_hook_reaches_cursor_as_its_closest_answer() {
    let env = test_env();
    env.write_bin(
        "halt",
        r#"printf '%s' '{"stop":{"reason":"budget spent"}}'"#,
    );
    let events = [
        ("preToolUse", tool("Shell", &json!({"command": "ls"}))),
        ("beforeShellExecution", shell("ls")),
        (
            "beforeReadFile",
            json!({"file_path": "/repo/a", "content": ""}),
        ),
        (
            "beforeSubmitPrompt",
            json!({"prompt": "hi", "attachments": []}),
        ),
        ("stop", json!({"status": "completed", "loop_count": 0})),
        (
            "sessionStart",
            json!({"session_id": "c1", "is_background_agent": false}),
        ),
        ("postToolUse", tool("Shell", &json!({"command": "ls"}))),
        (
            "afterShellExecution",
            json!({"command": "ls", "output": "", "duration": 1}),
        ),
    ];
    let names: Vec<String> = events.iter().map(|(e, _)| format!("{e:?}")).collect();
    env.write_global_config(&format!(
        "[[hooks]]\nname = \"halt\"\nevents = [{}]\ncommand = \"halt\"\n",
        names.join(", ")
    ));
    let mut table = String::new();
    for (event, fields) in &events {
        let out = cursor(&env, &input(&env, event, fields));
        assert_eq!(out.code, 0, "{event}: {}", out.stderr);
        let _ = writeln!(
            table,
            "{event} => {}\n  stderr: {}",
            out.stdout.trim_end(),
            out.stderr.trim_end()
        );
    }
    insta::assert_snapshot!(table);
}

// guards: the `env` of Cursor's `sessionStart` hooks reaches Cursor in hookrig's answer
// (merged, a later hook's variable winning), with no warning that it was dropped; a
// native host, which has no `env`, is told that it only reaches later hooks through
// Cursor
#[test]
fn session_start_env_is_answered_to_cursor_and_a_warning_elsewhere() {
    let env = test_env();
    let first = replying(&env, "first", 0, r#"{"env":{"A":"1","B":"1"}}"#, "");
    let second = replying(&env, "second", 0, r#"{"env":{"B":"2"}}"#, "");
    write(
        &env.home().join(".cursor/hooks.json"),
        &json!({"version": 1, "hooks": {"sessionStart": [{"command": first}, {"command": second}]}}),
    );
    let fields = json!({"session_id": "c1", "is_background_agent": false});
    let out = cursor(&env, &input(&env, "sessionStart", &fields));
    assert_eq!(out.stdout.trim_end(), r#"{"env":{"A":"1","B":"2"}}"#);
    assert_eq!(out.stderr, "", "no warning when Cursor is the host");

    let native = emit(
        &env,
        &["sessionStart"],
        &input(&env, "sessionStart", &fields).to_string(),
    );
    assert!(
        native.has_warning("hook cursor:user:sessionStart:1: `env` reaches the session's later hooks only when Cursor is the host"),
        "{:#}",
        native.outcome
    );
}
