//! The claude dialect end to end: its hooks run unchanged, presented and read by its own
//! rules, and `emit --dialect claude` answers in Claude Code's output format.

use std::path::PathBuf;
use std::time::Duration;

use hookrig_test_support::{HttpStub, Reply, TestEnv, refused_url};
use serde_json::{Value, json};

use crate::harness::{Emitted, emit, quoted, test_env};

fn write(path: &PathBuf, value: &Value) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, serde_json::to_string_pretty(value).expect("json")).expect("write");
}

fn user_settings(env: &TestEnv, value: &Value) {
    write(&env.home().join(".claude/settings.json"), value);
}

fn project_settings(env: &TestEnv, value: &Value) {
    write(&env.project().join(".claude/settings.json"), value);
}

fn local_settings(env: &TestEnv, value: &Value) {
    write(&env.project().join(".claude/settings.local.json"), value);
}

fn managed_settings(env: &TestEnv, value: &Value) {
    write(&env.claude_managed_settings_path(), value);
}

fn command(line: &str) -> Value {
    json!({"type": "command", "command": line})
}

/// `{"hooks": {event: [{"matcher": m, "hooks": handlers}]}}`.
fn hooks(event: &str, matcher: &str, handlers: &[Value]) -> Value {
    json!({"hooks": {event: [{"matcher": matcher, "hooks": handlers}]}})
}

/// A script that appends its first argument to `ran.log` in the project.
fn logger(env: &TestEnv) -> String {
    let log = env.project().join("ran.log");
    let script = env.write_script("bin/log.sh", &format!("echo \"$1\" >> {}\n", quoted(&log)));
    quoted(&script)
}

fn ran(env: &TestEnv) -> Vec<String> {
    let mut lines: Vec<String> = env
        .read_file("ran.log")
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

fn redact(env: &TestEnv, text: &str) -> String {
    text.replace(env.root().to_str().expect("utf-8"), "[ROOT]")
}

const BASH: &str = r#"{"session":{"id":"s1"},"tool":{"name":"Bash","input":{"command":"ls"},"call_id":"toolu_1"}}"#;

#[test]
fn exact_stdin_and_project_dir_of_a_claude_hook() {
    let env = test_env();
    let dump = env.write_script(
        "bin/dump.sh",
        "cat > \"$CLAUDE_PROJECT_DIR/stdin-$1.json\"\nprintf '%s' \"$CLAUDE_PROJECT_DIR\" > \"$CLAUDE_PROJECT_DIR/dir.txt\"\n",
    );
    let dump = quoted(&dump);
    project_settings(
        &env,
        &json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [command(&format!("{dump} pre"))]}],
            "PostToolUse": [{"hooks": [command(&format!("{dump} post"))]}],
            "UserPromptSubmit": [{"hooks": [command(&format!("{dump} prompt"))]}]
        }}),
    );

    let out = emit(&env, &["tool.before"], BASH);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let post = r#"{"session":{"id":"s1"},"transcript_path":"/t.jsonl","permission_mode":"plan","tool":{"name":"Bash","input":{"command":"ls"},"call_id":"toolu_1","output":{"stdout":"a"}}}"#;
    assert_eq!(emit(&env, &["tool.after"], post).code, 0);
    let prompt = r#"{"session":{"id":"s1"},"prompt":"hello","source":"cli"}"#;
    assert_eq!(emit(&env, &["UserPromptSubmit"], prompt).code, 0);

    let stdin: Vec<String> = ["pre", "post", "prompt"]
        .iter()
        .map(|name| {
            env.read_file(format!("stdin-{name}.json"))
                .expect("the hook ran")
        })
        .collect();
    insta::assert_snapshot!(redact(&env, &stdin.join("\n")));
    assert_eq!(
        env.read_file("dir.txt").expect("written"),
        env.project().display().to_string()
    );
}

#[test]
fn every_layer_runs_and_identical_handlers_run_once() {
    let env = test_env();
    let log = logger(&env);
    user_settings(
        &env,
        &hooks(
            "PreToolUse",
            "*",
            &[
                command(&format!("{log} user")),
                command(&format!("{log} shared")),
            ],
        ),
    );
    project_settings(
        &env,
        &hooks(
            "PreToolUse",
            "*",
            &[
                command(&format!("{log} project")),
                command(&format!("{log} shared")),
            ],
        ),
    );
    local_settings(
        &env,
        &hooks("PreToolUse", "", &[command(&format!("{log} local"))]),
    );
    managed_settings(
        &env,
        &hooks("PreToolUse", "*", &[command(&format!("{log} managed"))]),
    );

    let out = emit(&env, &["PreToolUse"], BASH);

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(ran(&env), ["local", "managed", "project", "shared", "user"]);
    let names: Vec<String> = out.results().into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        names,
        [
            "claude:user:PreToolUse:1",
            "claude:user:PreToolUse:2",
            "claude:managed:PreToolUse:1",
            "claude:project:PreToolUse:1",
            "claude:local:PreToolUse:1",
        ]
    );
    assert_eq!(out.hook("claude:user:PreToolUse:1")["dialect"], "claude");

    // explain names the duplicate that was left out, and which hook runs in its place.
    let explained = env.run(["explain", "PreToolUse", "--tool", "Bash"], b"");
    let explained = String::from_utf8_lossy(&explained.stdout).into_owned();
    assert!(
        explained.contains("claude:project:PreToolUse:2 (claude, ")
            && explained.contains("does not run: shadowed duplicate of claude:user:PreToolUse:2"),
        "{explained}"
    );
}

#[test]
fn disable_all_hooks() {
    let env = test_env();
    let log = logger(&env);
    user_settings(
        &env,
        &hooks("PreToolUse", "*", &[command(&format!("{log} user"))]),
    );
    managed_settings(
        &env,
        &hooks("PreToolUse", "*", &[command(&format!("{log} managed"))]),
    );
    let mut project = hooks("PreToolUse", "*", &[command(&format!("{log} project"))]);
    project["disableAllHooks"] = json!(true);
    project_settings(&env, &project);

    // The project turns off user and project hooks; managed hooks stay.
    emit(&env, &["PreToolUse"], BASH);
    assert_eq!(ran(&env), ["managed"]);

    // The local file overrides the project's setting.
    std::fs::remove_file(env.project().join("ran.log")).expect("rm");
    local_settings(&env, &json!({"disableAllHooks": false}));
    emit(&env, &["PreToolUse"], BASH);
    assert_eq!(ran(&env), ["managed", "project", "user"]);

    // Managed settings turn off every Claude hook.
    std::fs::remove_file(env.project().join("ran.log")).expect("rm");
    let mut managed = hooks("PreToolUse", "*", &[command(&format!("{log} managed"))]);
    managed["disableAllHooks"] = json!(true);
    managed_settings(&env, &managed);
    let out = emit(&env, &["PreToolUse"], BASH);
    assert_eq!(ran(&env), Vec::<String>::new());
    assert_eq!(out.outcome["hooks"], json!([]));
}

#[test]
fn matcher_rules() {
    let env = test_env();
    let log = logger(&env);
    project_settings(
        &env,
        &json!({"hooks": {"PreToolUse": [
            {"matcher": "Edit|Write", "hooks": [command(&format!("{log} exact-list"))]},
            {"matcher": "Edit", "hooks": [command(&format!("{log} exact-edit"))]},
            {"matcher": "Multi.*", "hooks": [command(&format!("{log} regex"))]},
            {"matcher": "Edit$", "hooks": [command(&format!("{log} unanchored"))]},
            {"matcher": "*", "hooks": [command(&format!("{log} star"))]},
            {"hooks": [command(&format!("{log} missing"))]}
        ]}}),
    );

    let out = emit(&env, &["PreToolUse", "--tool", "MultiEdit"], "{}");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(ran(&env), ["missing", "regex", "star", "unanchored"]);

    std::fs::remove_file(env.project().join("ran.log")).expect("rm");
    emit(&env, &["PreToolUse", "--tool", "Edit"], "{}");
    assert_eq!(
        ran(&env),
        ["exact-edit", "exact-list", "missing", "star", "unanchored"]
    );
}

fn one(env: &TestEnv, event: &str, body: &str) {
    let script = env.write_script("bin/hook.sh", body);
    project_settings(env, &hooks(event, "", &[command(&quoted(&script))]));
}

#[test]
fn exit_codes() {
    let env = test_env();
    one(&env, "PreToolUse", "echo 'not json'\nexit 0\n");
    let out = emit(&env, &["PreToolUse"], BASH);
    assert_eq!(
        (out.code, out.outcome["decision"].as_str()),
        (0, Some("allow"))
    );

    one(
        &env,
        "PreToolUse",
        "echo ignored\necho 'rm is not allowed' >&2\nexit 2\n",
    );
    let out = emit(&env, &["PreToolUse"], BASH);
    assert_eq!(out.code, 2);
    assert_eq!(out.outcome["reason"], "rm is not allowed");
    assert_eq!(out.result("claude:project:PreToolUse:1"), "deny");

    one(&env, "PreToolUse", "echo 'lint failed' >&2\nexit 1\n");
    let out = emit(&env, &["PreToolUse"], BASH);
    assert_eq!(
        (out.code, out.outcome["decision"].as_str()),
        (0, Some("allow"))
    );
    assert_eq!(out.result("claude:project:PreToolUse:1"), "error");
    assert_eq!(
        out.warnings(),
        ["hook claude:project:PreToolUse:1 exited 1: lint failed"]
    );
}

#[test]
fn timeout_is_a_non_blocking_error() {
    let env = test_env();
    let script = env.write_script(
        "bin/slow.sh",
        &format!("{} 10\n", quoted(&env.marked_sleep())),
    );
    project_settings(
        &env,
        &hooks(
            "PreToolUse",
            "",
            &[json!({"type": "command", "command": quoted(&script), "timeout": 0.5})],
        ),
    );
    let out = emit(&env, &["PreToolUse"], BASH);
    assert_eq!(
        (out.code, out.outcome["decision"].as_str()),
        (0, Some("allow"))
    );
    assert_eq!(out.result("claude:project:PreToolUse:1"), "timeout");
    assert!(
        out.has_warning("timed out after 500ms"),
        "{:?}",
        out.warnings()
    );
    assert!(env.leftovers().is_empty());
}

/// Runs one hook printing `output` on `event` and returns the emit.
fn json_reply(env: &TestEnv, event: &str, output: &Value, payload: &str) -> Emitted {
    let file = env.write_file("reply.json", &output.to_string());
    one(env, event, &format!("cat {}\n", quoted(&file)));
    emit(env, &[event], payload)
}

#[test]
fn json_output_fields() {
    let env = test_env();

    let out = json_reply(
        &env,
        "PreToolUse",
        &json!({"continue": false, "stopReason": "build is broken", "systemMessage": "stopping"}),
        BASH,
    );
    // `continue: false` stops Claude Code itself; it is not a deny of the tool call
    // (the claude host answers it as such: claude_conformance.rs). The Outcome carries
    // it as a stop, and the native host exits 2: the event must not go on.
    assert_eq!(out.code, 2);
    assert_eq!(out.outcome["decision"], "allow");
    assert_eq!(
        out.outcome["stop"],
        json!({"reason": "build is broken", "by": "claude:project:PreToolUse:1"})
    );
    assert_eq!(out.result("claude:project:PreToolUse:1"), "stop");
    assert!(out.has_warning("hook claude:project:PreToolUse:1: stopping"));

    let out = json_reply(
        &env,
        "UserPromptSubmit",
        &json!({"decision": "block", "reason": "contains a secret", "suppressOutput": true}),
        r#"{"prompt":"my key is sk-1"}"#,
    );
    assert_eq!(out.code, 2);
    assert_eq!(out.outcome["reason"], "contains a secret");

    let out = json_reply(
        &env,
        "PreToolUse",
        &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm"}}),
        BASH,
    );
    assert_eq!(
        (out.code, out.outcome["reason"].as_str()),
        (2, Some("no rm"))
    );

    let out = json_reply(
        &env,
        "PreToolUse",
        &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "sure?"}}),
        BASH,
    );
    assert_eq!(out.code, 0);
    assert_eq!(out.outcome["decision"], "ask");
    assert_eq!(out.outcome["reason"], "sure?");

    let out = json_reply(
        &env,
        "PreToolUse",
        &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                 "updatedInput": {"command": "ls -la"}, "additionalContext": "listing"}}),
        BASH,
    );
    assert_eq!(out.code, 0);
    assert_eq!(out.outcome["decision"], "allow");
    assert_eq!(
        out.outcome["payload"]["tool"],
        json!({"name": "Bash", "input": {"command": "ls -la"}, "call_id": "toolu_1"})
    );
    assert_eq!(out.outcome["context"], json!(["listing"]));
    assert_eq!(out.result("claude:project:PreToolUse:1"), "modify");

    let out = json_reply(
        &env,
        "UserPromptSubmit",
        &json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "branch: main"}}),
        r#"{"prompt":"hi"}"#,
    );
    assert_eq!(out.outcome["context"], json!(["branch: main"]));

    let out = json_reply(
        &env,
        "PreToolUse",
        &json!({"hookSpecificOutput": {"hookEventName": "PostToolUse"}}),
        BASH,
    );
    assert_eq!(out.outcome["decision"], "allow");
    assert_eq!(out.result("claude:project:PreToolUse:1"), "error");

    // Plain text on UserPromptSubmit is context.
    one(&env, "UserPromptSubmit", "echo 'today is monday'\n");
    let out = emit(&env, &["UserPromptSubmit"], r#"{"prompt":"hi"}"#);
    assert_eq!(out.outcome["context"], json!(["today is monday"]));
}

#[test]
fn hooks_of_an_event_run_in_parallel_and_the_most_restrictive_wins() {
    let env = test_env();
    let sleep = quoted(&env.marked_sleep());
    let stamp = |name: &str, decision: &str| {
        let script = env.write_script(
            format!("bin/{name}.sh"),
            &format!(
                "date +%s%N > \"$CLAUDE_PROJECT_DIR/{name}.start\"\n{sleep} 0.3\ndate +%s%N > \"$CLAUDE_PROJECT_DIR/{name}.end\"\n{decision}\n"
            ),
        );
        command(&quoted(&script))
    };
    let allow = stamp("a", "exit 0");
    let ask = stamp(
        "b",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check"}}'"#,
    );
    let deny = stamp("c", "echo 'denied' >&2; exit 2");
    project_settings(
        &env,
        &hooks("PreToolUse", "*", &[allow.clone(), ask.clone(), deny]),
    );

    let out = emit(&env, &["PreToolUse"], BASH);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["decided_by"], "claude:project:PreToolUse:3");
    let time = |file: &str| -> u128 {
        env.read_file(file)
            .expect("stamp")
            .trim()
            .parse()
            .expect("nanoseconds")
    };
    for (x, y) in [("a", "b"), ("a", "c"), ("b", "c")] {
        assert!(
            time(&format!("{x}.start")) < time(&format!("{y}.end"))
                && time(&format!("{y}.start")) < time(&format!("{x}.end")),
            "{x} and {y} did not overlap"
        );
    }

    project_settings(&env, &hooks("PreToolUse", "*", &[allow, ask]));
    let out = emit(&env, &["PreToolUse"], BASH);
    assert_eq!(
        (out.code, out.outcome["decision"].as_str()),
        (0, Some("ask"))
    );
}

#[test]
fn a_malformed_settings_file_is_skipped_with_its_position() {
    let env = test_env();
    let log = logger(&env);
    user_settings(
        &env,
        &hooks("PreToolUse", "*", &[command(&format!("{log} user"))]),
    );
    env.write_file(
        ".claude/settings.json",
        "{\n  \"hooks\": {\n    \"PreToolUse\": [}\n}\n",
    );

    let out = emit(&env, &["PreToolUse"], BASH);

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(ran(&env), ["user"]);
    let path = env.project().join(".claude/settings.json");
    assert_eq!(
        out.warnings(),
        [format!(
            "{}:3:20: invalid Claude Code settings, file skipped: expected value",
            path.display()
        )]
    );
}

// HTTP hooks against a real server on 127.0.0.1.

#[test]
fn http_hooks() {
    let env = test_env();
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "blocked by policy"}});
    let stub = HttpStub::routes([
        ("/allow", Reply::new(200, "")),
        ("/deny", Reply::new(200, deny.to_string())),
        ("/broken", Reply::new(500, "oops")),
        ("/slow", Reply::new(200, "").after(Duration::from_secs(3))),
    ]);
    let base = stub.url();
    let http = |path: &str| {
        json!({"type": "http", "url": format!("{base}{path}"), "timeout": 1,
        "headers": {"Authorization": "Bearer $HOOKRIG_TEST_TOKEN", "X-Other": "[$HOME]"},
        "allowedEnvVars": ["HOOKRIG_TEST_TOKEN"]})
    };

    project_settings(&env, &hooks("PreToolUse", "*", &[http("/allow")]));
    let mut cmd = env.command(["emit", "PreToolUse"]);
    cmd.env("HOOKRIG_TEST_TOKEN", "t0k3n");
    let output = hookrig_test_support::run_with_input(cmd, BASH.as_bytes(), Duration::from_mins(1));
    let outcome: Value = serde_json::from_slice(&output.stdout).expect("outcome");
    assert_eq!(outcome["decision"], "allow");
    assert_eq!(outcome["hooks"][0]["result"], "allow");
    {
        let received = stub.requests();
        let (path, headers, body) = (&received[0].path, &received[0].headers, received[0].text());
        assert_eq!(path, "/allow");
        assert_eq!(headers["authorization"], "Bearer t0k3n");
        assert_eq!(headers["x-other"], "[]");
        assert_eq!(headers["content-type"], "application/json");
        insta::assert_snapshot!("http_body", redact(&env, body));
    }

    project_settings(&env, &hooks("PreToolUse", "*", &[http("/deny")]));
    let out = emit(&env, &["PreToolUse"], BASH);
    assert_eq!(
        (out.code, out.outcome["reason"].as_str()),
        (2, Some("blocked by policy"))
    );

    project_settings(&env, &hooks("PreToolUse", "*", &[http("/broken")]));
    let out = emit(&env, &["PreToolUse"], BASH);
    assert_eq!(
        (out.code, out.outcome["decision"].as_str()),
        (0, Some("allow"))
    );
    assert_eq!(out.result("claude:project:PreToolUse:1"), "error");
    assert_eq!(
        out.warnings(),
        [format!(
            "hook claude:project:PreToolUse:1: POST {base}/broken: HTTP 500"
        )]
    );

    project_settings(&env, &hooks("PreToolUse", "*", &[http("/slow")]));
    let out = emit(&env, &["PreToolUse"], BASH);
    assert_eq!(
        (out.code, out.outcome["decision"].as_str()),
        (0, Some("allow"))
    );
    assert_eq!(out.result("claude:project:PreToolUse:1"), "timeout");
    assert_eq!(
        out.warnings(),
        [format!(
            "hook claude:project:PreToolUse:1: POST {base}/slow: timed out after 1s"
        )]
    );

    // Nothing listens on the port of a closed listener: a connection error.
    let url = format!("{}/gone", refused_url());
    project_settings(
        &env,
        &hooks("PreToolUse", "*", &[json!({"type": "http", "url": url})]),
    );
    let out = emit(&env, &["PreToolUse"], BASH);
    assert_eq!(
        (out.code, out.outcome["decision"].as_str()),
        (0, Some("allow"))
    );
    assert_eq!(out.result("claude:project:PreToolUse:1"), "error");
    assert!(
        out.has_warning(&format!("POST {url}: cannot connect: ")),
        "{:?}",
        out.warnings()
    );
}

// `emit --dialect claude`: hookrig as Claude Code's one hook.

fn native_hook(env: &TestEnv, event: &str, reply: &Value) {
    let file = env.write_file("native-reply.json", &reply.to_string());
    let script = env.write_script(".hookrig/guard.sh", &format!("cat {}\n", quoted(&file)));
    env.write_project_config(&format!(
        "[[hooks]]\nname = \"guard\"\nevents = [\"{event}\"]\ncommand = {:?}\n",
        script.display().to_string()
    ));
}

const CLAUDE_PRE: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"toolu_1"}"#;

fn host(env: &TestEnv, input: &str) -> Emitted {
    let input = input.replace("CWD", &env.project().display().to_string());
    emit(env, &["--dialect", "claude"], &input)
}

#[test]
fn host_answers_in_claude_output_format() {
    let env = test_env();
    let mut answers = Vec::new();
    for (case, reply) in [
        ("allow", json!({"decision": "allow"})),
        ("deny", json!({"decision": "deny", "reason": "no rm -rf"})),
        ("ask", json!({"decision": "ask", "reason": "really?"})),
        (
            "modify",
            json!({"decision": "modify", "payload": {"tool": {"input": {"command": "rm -ri /tmp/x"}}}, "context": "rewrote rm"}),
        ),
    ] {
        native_hook(&env, "tool.before", &reply);
        let out = host(&env, CLAUDE_PRE);
        assert_eq!(out.code, 0, "{case}: {}", out.stderr);
        answers.push(format!("{case}: {}", out.stdout.trim_end()));
    }

    native_hook(
        &env,
        "prompt.submit",
        &json!({"decision": "deny", "reason": "contains a secret"}),
    );
    let out = host(
        &env,
        r#"{"session_id":"s1","cwd":"CWD","hook_event_name":"UserPromptSubmit","prompt":"key sk-1"}"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    answers.push(format!("block: {}", out.stdout.trim_end()));

    native_hook(&env, "prompt.submit", &json!({"context": "branch: main"}));
    let out = host(
        &env,
        r#"{"session_id":"s1","cwd":"CWD","hook_event_name":"UserPromptSubmit","prompt":"hi"}"#,
    );
    answers.push(format!("context: {}", out.stdout.trim_end()));

    insta::assert_snapshot!(answers.join("\n"));
}

#[test]
fn host_input_reaches_native_hooks_in_canonical_shape() {
    let env = test_env();
    let dump = env.project().join("payload.json");
    let script = env.write_script(".hookrig/dump.sh", &format!("cat > {}\n", quoted(&dump)));
    env.write_project_config(&format!(
        "[[hooks]]\nname = \"dump\"\nevents = [\"tool.before\"]\ncommand = {:?}\n",
        script.display().to_string()
    ));
    let out = host(&env, CLAUDE_PRE);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "{}\n"),
        "{}",
        out.stderr
    );
    let payload: Value =
        serde_json::from_str(&env.read_file("payload.json").expect("ran")).expect("json");
    assert_eq!(
        payload,
        json!({"event": "tool.before",
               "session": {"id": "s1", "cwd": env.project().display().to_string()},
               "tool": {"name": "Bash", "input": {"command": "rm -rf /"}, "call_id": "toolu_1"},
               "transcript_path": "/t.jsonl", "permission_mode": "default"})
    );
}

#[test]
fn host_round_trip_through_a_claude_hook() {
    // Claude Code calls hookrig; hookrig runs the project's Claude hooks with the input
    // they were written for.
    let env = test_env();
    let dump = env.project().join("claude-stdin.json");
    let script = env.write_script(
        "bin/guard.sh",
        &format!("cat > {}\necho 'no rm' >&2\nexit 2\n", quoted(&dump)),
    );
    project_settings(
        &env,
        &hooks("PreToolUse", "Bash", &[command(&quoted(&script))]),
    );
    let out = host(&env, CLAUDE_PRE);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        serde_json::from_str::<Value>(&out.stdout).expect("json"),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": "no rm"}})
    );
    let seen: Value =
        serde_json::from_str(&env.read_file("claude-stdin.json").expect("ran")).expect("json");
    let sent: Value =
        serde_json::from_str(&CLAUDE_PRE.replace("CWD", &env.project().display().to_string()))
            .expect("json");
    assert_eq!(seen, sent);
}

// guards: Claude Code's block on Stop ("keep working") lost because turn.complete is a
// notify event in hookrig
#[test]
fn host_blocks_stop_when_a_hook_denies_it() {
    let env = test_env();
    native_hook(
        &env,
        "turn.complete",
        &json!({"decision": "deny", "reason": "tests still fail"}),
    );
    let out = host(
        &env,
        r#"{"session_id":"s1","cwd":"CWD","hook_event_name":"Stop","stop_hook_active":false}"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let answer: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(answer["decision"], "block");
    assert_eq!(answer["reason"], "tests still fail");

    native_hook(&env, "turn.complete", &json!({"decision": "allow"}));
    let out = host(
        &env,
        r#"{"session_id":"s1","cwd":"CWD","hook_event_name":"Stop"}"#,
    );
    let answer: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(answer.get("decision"), None, "{answer}");
}

// guards: Claude Code's matchers on events without a tool (SessionStart's `source`,
// PreCompact's `trigger`) ignored, so the hook ran on every occurrence
#[test]
fn matchers_on_events_without_a_tool_test_their_field() {
    let env = test_env();
    let log = logger(&env);
    project_settings(
        &env,
        &json!({"hooks": {
            "SessionStart": [{"matcher": "resume|clear", "hooks": [command(&format!("{log} on-resume"))]}],
            "PreCompact": [{"matcher": "manual", "hooks": [command(&format!("{log} on-manual"))]}]
        }}),
    );
    let out = emit(&env, &["SessionStart"], r#"{"source":"startup"}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.warnings().is_empty(), "{:?}", out.warnings());
    assert!(ran(&env).is_empty());
    emit(&env, &["SessionStart"], r#"{"source":"resume"}"#);
    emit(&env, &["PreCompact"], r#"{"trigger":"auto"}"#);
    emit(&env, &["PreCompact"], r#"{"trigger":"manual"}"#);
    assert_eq!(ran(&env), ["on-manual", "on-resume"]);
}

// guards: a hook of another dialect (here a native hook's `stop`) that stops the agent
// reaches Claude Code as `continue: false` with its `stopReason`, on events Claude Code
// lets hooks block and on those it does not
#[test]
fn a_stop_of_any_hook_reaches_claude_as_continue_false() {
    let env = test_env();
    env.write_bin(
        "halt",
        r#"printf '%s' '{"stop":{"reason":"budget spent"}}'"#,
    );
    env.write_global_config(
        "[[hooks]]\nname = \"halt\"\nevents = [\"PreToolUse\", \"Stop\", \"SessionStart\"]\ncommand = \"halt\"\n",
    );
    for (event, payload) in [
        ("PreToolUse", BASH),
        (
            "Stop",
            r#"{"hook_event_name":"Stop","stop_hook_active":false}"#,
        ),
        (
            "SessionStart",
            r#"{"hook_event_name":"SessionStart","source":"startup"}"#,
        ),
    ] {
        let out = emit(&env, &[event, "--dialect", "claude"], payload);
        assert_eq!(out.code, 0, "{event}: {}", out.stderr);
        assert_eq!(
            out.stdout.trim_end(),
            r#"{"continue":false,"stopReason":"budget spent"}"#,
            "{event}"
        );
    }
}

// guards: a native hook's context on turn.complete turned into Claude Code's Stop
// feedback, which would keep Claude working
#[test]
fn a_native_hook_s_context_on_stop_does_not_keep_claude_working() {
    let env = test_env();
    native_hook(&env, "turn.complete", &json!({"context": "noted"}));
    let out = host(
        &env,
        r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"Stop","stop_hook_active":false}"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.outcome["hookSpecificOutput"].is_null(),
        "{}",
        out.outcome
    );
}
