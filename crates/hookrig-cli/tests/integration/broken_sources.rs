//! A broken or unreadable config source never keeps the other sources' hooks from
//! deciding, and an unreadable event is answered in the host's own form of an error,
//! never in a form the host would read as a decision.

use std::time::{Duration, Instant};

use hookrig_test_support::TestEnv;
use indoc::indoc;
use serde_json::{Value, json};

use crate::harness::{emit_untrusted, test_env};

/// The user's guard: denies `rm -rf`.
const USER_GUARD: &str = indoc! {r#"
    [[hooks]]
    name = "user-guard"
    events = ["tool.before"]
    command = '''grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }; exit 0'''
"#};

const RM_RF: &str = r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"cwd":"."}"#;

/// The broken files a repository may ship, each at its path in the project, with the
/// start of the error it must be reported with.
const BROKEN: &[(&str, &str, &str)] = &[
    (
        ".hookrig/hooks.toml",
        "[[hooks]]\nname = \"x\"\n",
        ".hookrig/hooks.toml:1:1: ",
    ),
    (".hence/config.toml", "x =\n", ".hence/config.toml:1:4: "),
    (
        ".hookrig/config.toml",
        "[settings]\nhook_timeout = 0\n",
        ".hookrig/config.toml:2:16: ",
    ),
    (
        ".claude/settings.json",
        "{\"hooks\": {\"PreToolUse\": [\n",
        ".claude/settings.json:2:1: ",
    ),
    (".hygge/hooks.toml", "[[hooks]\n", ".hygge/hooks.toml:1:"),
];

#[test]
fn a_broken_project_file_does_not_switch_off_the_users_guard() {
    // guards: a broken untrusted project file must not make the emit fail (which Claude
    // Code and x-code read as a non-blocking error) while the user's guard would deny
    for (rel, text, error) in BROKEN {
        let env = test_env();
        env.write_global_config(USER_GUARD);
        env.write_file(*rel, text);

        let out = emit_untrusted(&env, &["--dialect", "claude"], RM_RF);
        assert_eq!(out.code, 0, "{rel}: {}", out.stderr);
        assert_eq!(
            out.outcome["hookSpecificOutput"]["permissionDecision"], "deny",
            "{rel}: {}",
            out.stdout
        );
        let message = out.outcome["systemMessage"].as_str().unwrap_or_default();
        let expected = format!("{}/{error}", env.project().display());
        assert!(
            message.contains(&expected),
            "{rel}: the host's user is told ({expected}): {message}"
        );

        // hookrig's own host: the same decision, the error among the warnings.
        let out = emit_untrusted(&env, &["tool.before"], RM_RF);
        assert_eq!(out.code, 2, "{rel}: {}", out.stderr);
        assert_eq!(out.outcome["decided_by"], "user-guard");
        assert!(out.has_warning(&expected), "{rel}: {}", out.stdout);
    }
}

#[test]
fn a_broken_source_is_reported_on_stderr_to_hosts_without_a_channel() {
    // guards: x-code and hygge hosts, whose replies carry no message for the user, see
    // a skipped source on stderr
    let env = test_env();
    env.write_file(".hookrig/hooks.toml", "[[hooks]]\nname = \"x\"\n");
    let path = env.project().join(".hookrig/hooks.toml");
    for dialect in ["xcode", "hygge"] {
        let out = emit_untrusted(
            &env,
            &["--dialect", dialect, "tool.before"],
            r#"{"tool":{"name":"Bash"}}"#,
        );
        assert_eq!(out.code, 0, "{dialect}: {}", out.stderr);
        assert_eq!(out.outcome["decision"], "allow", "{dialect}");
        assert!(
            out.stderr
                .contains(&format!("hookrig: warning: {}:1:1: ", path.display())),
            "{dialect}: {}",
            out.stderr
        );
    }
}

#[test]
fn a_broken_project_file_does_not_switch_off_the_users_guard_for_xcode_and_hygge() {
    // guards: x-code and hygge hosts, like Claude Code, get the user's guard's deny in
    // their own reply (x-code: the deny in the JSON with exit 0; hygge: exit 2 with the
    // reason on stderr) while an untrusted project source is broken
    for (rel, text, error) in BROKEN {
        let env = test_env();
        env.write_global_config(USER_GUARD);
        env.write_file(*rel, text);
        let expected = format!("{}/{error}", env.project().display());

        let xcode = json!({
            "event": "PreToolUse",
            "session": {"cwd": env.project()},
            "tool": {"name": "bash", "args": {"command": "rm -rf /"}},
        });
        let out = emit_untrusted(&env, &["--dialect", "xcode"], &xcode.to_string());
        assert_eq!(
            out.code, 0,
            "{rel}: the deny travels in the JSON: {}",
            out.stderr
        );
        assert_eq!(
            out.outcome,
            json!({"decision": "deny", "reason": "no rm -rf"}),
            "{rel}"
        );
        assert!(
            out.stderr
                .contains(&format!("hookrig: warning: {expected}")),
            "{rel}: x-code logs the skipped source ({expected}): {}",
            out.stderr
        );

        let hygge = json!({
            "event": "pre_tool", "session_id": "s", "hook_name": "hookrig",
            "pwd": env.project(), "tool_name": "bash", "tool_input": {"command": "rm -rf /"},
        });
        let out = emit_untrusted(&env, &["--dialect", "hygge"], &hygge.to_string());
        assert_eq!(out.code, 2, "{rel}: {}", out.stderr);
        assert_eq!(
            out.outcome,
            json!({"decision": "deny", "reason": "no rm -rf"}),
            "{rel}"
        );
        // hygge reads stderr as the deny's reason: the skipped source is in the ledger.
        assert_eq!(out.stderr, "no rm -rf\n", "{rel}");
        let runs = env.run(["runs", "--json", "--limit", "1"], b"");
        let runs: Value = serde_json::from_slice(&runs.stdout).expect("runs --json");
        let why = crate::harness::why_json(&env, runs[0]["run_id"].as_str().expect("a run"));
        assert!(
            why["warnings"]
                .as_array()
                .expect("warnings")
                .iter()
                .any(|w| w.as_str().is_some_and(|w| w.starts_with(&expected))),
            "{rel}: {why:#}"
        );
    }
}

/// `hookrig emit ARGS` with `stdin`, as hookrig answers a host: code, stdout, stderr.
fn raw_emit(env: &TestEnv, args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let output = env.run(std::iter::once("emit").chain(args.iter().copied()), stdin);
    (
        crate::harness::code(&output),
        crate::harness::text(&output.stdout),
        crate::harness::text(&output.stderr),
    )
}

#[test]
fn an_unreadable_payload_is_an_error_in_each_hosts_own_form() {
    // guards: a bad payload must never be answered in a form the host reads as a
    // decision (hygge reads any non-zero exit as a deny)
    let env = test_env();
    env.write_global_config(USER_GUARD);
    for dialect in ["native", "claude", "xcode"] {
        let (code, stdout, stderr) = raw_emit(&env, &["--dialect", dialect, "x"], b"{not json");
        // Exit 1 with nothing on stdout: a failed hook to Claude Code and x-code (the
        // action goes on, the error is shown or logged), never exit 2 or a JSON answer.
        assert_eq!(code, 1, "{dialect}: {stderr}");
        assert_eq!(stdout, "", "{dialect}");
        assert!(
            stderr.starts_with("hookrig: error: stdin is not valid JSON"),
            "{dialect}: {stderr}"
        );
    }
    // hygge: exit 0 with a reply that is not a JSON object, which hygge logs as a
    // warning; not exit 1, which hygge would read as a deny.
    let (code, stdout, stderr) = raw_emit(&env, &["--dialect", "hygge"], b"[1]");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "hookrig: error: the payload must be a JSON object, got an array\n"
    );
    assert!(serde_json::from_str::<Value>(&stdout).is_err());
    assert_eq!(stderr, stdout);
}

#[test]
fn a_config_file_larger_than_the_limit_is_skipped_quickly() {
    // guards: a huge project Claude settings file costs neither minutes nor the user's
    // guard; it is skipped with an error naming the limit
    let env = test_env();
    env.write_global_config(USER_GUARD);
    let mut groups = Vec::new();
    for i in 0..70_000 {
        groups.push(json!({"matcher": format!("Tool{i}"), "hooks": [
            {"type": "command", "command": format!("echo {i}")}
        ]}));
    }
    let settings = json!({"hooks": {"PreToolUse": groups}}).to_string();
    assert!(settings.len() > 4 * 1024 * 1024, "{}", settings.len());
    let path = env.write_file(".claude/settings.json", &settings);

    let started = Instant::now();
    let out = emit_untrusted(&env, &["--dialect", "claude"], RM_RF);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(
        out.outcome["hookSpecificOutput"]["permissionDecision"], "deny",
        "{}",
        out.stdout
    );
    let message = out.outcome["systemMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!(
            "{}: cannot read: the file is larger than 4 MiB, the most a config file may hold",
            path.display()
        )),
        "{message}"
    );
}

#[test]
fn list_and_validate_name_a_config_file_larger_than_the_limit() {
    // guards: `list` skips a config file over the 4 MiB source cap with an error naming
    // the limit and still lists the other hooks; `validate` reports it and fails
    let env = test_env();
    env.write_global_config(USER_GUARD);
    let padding = " ".repeat(4 * 1024 * 1024);
    let native = env.write_project_config(&format!(
        "[[hooks]]\nname = \"over-the-limit\"\nevents = [\"tool.before\"]\ncommand = \"true\"\n#{padding}\n"
    ));
    let claude = env.write_file(
        ".claude/settings.json",
        &format!(
            "{{\"hooks\": {{\"PreToolUse\": [{{\"hooks\": [{{\"type\": \"command\", \"command\": \"true\"}}]}}]}}}}{padding}"
        ),
    );
    let limit = "cannot read: the file is larger than 4 MiB, the most a config file may hold";

    for args in [&["list"][..], &["list", "--json"][..]] {
        let started = Instant::now();
        let output = env.run_untrusted(args, b"");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{args:?} took {:?}",
            started.elapsed()
        );
        assert_eq!(crate::harness::code(&output), 0, "{args:?}");
        let stdout = crate::harness::text(&output.stdout);
        assert!(stdout.contains("user-guard"), "{args:?}: {stdout}");
        assert!(!stdout.contains("over-the-limit"), "{args:?}: {stdout}");
        assert!(!stdout.contains("claude:project"), "{args:?}: {stdout}");
        let stderr = crate::harness::text(&output.stderr);
        for path in [&native, &claude] {
            let error = format!("hookrig: error: {}: {limit}\n", path.display());
            assert!(stderr.contains(&error), "{args:?}: {error}\n{stderr}");
        }
    }

    let output = env.run_untrusted(["validate"], b"");
    assert_eq!(crate::harness::code(&output), 1);
    let stdout = crate::harness::text(&output.stdout);
    for path in [&native, &claude] {
        let error = format!("{}: error: {limit}\n", path.display());
        assert!(stdout.contains(&error), "{error}\n{stdout}");
    }
    assert!(stdout.ends_with("2 errors, 0 warnings\n"), "{stdout}");
}

#[test]
fn a_config_source_that_is_not_a_regular_file_is_skipped() {
    // guards: a repository's settings file that is a symlink to /dev/zero must not hang
    // or exhaust memory
    let env = test_env();
    env.write_global_config(USER_GUARD);
    std::fs::create_dir_all(env.project().join(".hookrig")).expect("mkdir");
    std::os::unix::fs::symlink("/dev/zero", env.project().join(".hookrig/hooks.toml"))
        .expect("symlink");
    let out = emit_untrusted(&env, &["tool.before"], RM_RF);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["decided_by"], "user-guard");
}

#[test]
fn many_claude_matcher_groups_load_in_linear_time() {
    // guards: loading Claude Code settings must not be quadratic in the number of
    // handlers (32,000 matcher groups cost seconds per emit)
    let env = test_env();
    env.write_global_config(USER_GUARD);
    let groups: Vec<Value> = (0..32_000)
        .map(|i| {
            json!({"matcher": format!("Tool{i}"), "hooks": [
                {"type": "command", "command": format!("echo {i}")}
            ]})
        })
        .collect();
    // Many events too: each event's key is looked up near its value only.
    let mut events = serde_json::Map::new();
    events.insert("PreToolUse".to_owned(), Value::Array(groups));
    for i in 0..5_000 {
        events.insert(format!("Custom{i}"), json!([]));
    }
    let settings = json!({"hooks": events}).to_string();
    assert!(settings.len() < 4 * 1024 * 1024, "{}", settings.len());
    env.write_file(".claude/settings.json", &settings);

    for args in [&["--dialect", "claude"][..], &["tool.before"][..]] {
        let started = Instant::now();
        let out = emit_untrusted(&env, args, RM_RF);
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "took {:?}",
            started.elapsed()
        );
        assert!(out.code == 0 || out.code == 2, "{}", out.stderr);
    }
    let started = Instant::now();
    let listed = env.run_untrusted(["list", "--json"], b"");
    assert_eq!(crate::harness::code(&listed), 0);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "list took {:?}",
        started.elapsed()
    );
}

#[test]
fn a_payload_over_the_limit_is_refused_with_a_clear_error() {
    // guards: a huge payload must not cost gigabytes of memory; the limit is 16 MiB by
    // default and can be raised
    let env = test_env();
    env.write_global_config(USER_GUARD);
    let mut payload = String::from(r#"{"tool":{"name":"Bash","input":{"command":""#);
    payload.push_str(&"x".repeat(17 * 1024 * 1024));
    payload.push_str(r#""}}}"#);

    let (code, stdout, stderr) = raw_emit(&env, &["tool.before"], payload.as_bytes());
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "hookrig: error: the payload is larger than 16777216 bytes (16 MiB); raise the limit with --max-payload or HOOKRIG_MAX_PAYLOAD\n"
    );
    // The limit can be lowered and raised, by flag or environment.
    let small = format!(
        r#"{{"tool":{{"name":"Bash","input":{{"x":"{}"}}}}}}"#,
        "x".repeat(4000)
    );
    let (code, _, stderr) = raw_emit(
        &env,
        &["tool.before", "--max-payload", "1KiB"],
        small.as_bytes(),
    );
    assert_eq!(code, 1);
    assert!(
        stderr.contains("larger than 1024 bytes (1 KiB)"),
        "{stderr}"
    );
    let (code, stdout, stderr) = raw_emit(
        &env,
        &["tool.before", "--max-payload", "5000"],
        small.as_bytes(),
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(r#""decision":"allow""#), "{stdout}");
    let mut command = env.command(["emit", "tool.before"]);
    command.env("HOOKRIG_MAX_PAYLOAD", "1KiB");
    let output = hookrig_test_support::run_with_input(
        command,
        small.as_bytes(),
        hookrig_test_support::HANG_LIMIT,
    );
    assert_eq!(crate::harness::code(&output), 1);

    // A bad limit is a usage error naming the flag.
    let (code, _, stderr) = raw_emit(&env, &["tool.before", "--max-payload", "lots"], b"{}");
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--max-payload"), "{stderr}");
}

#[test]
fn list_shows_the_other_hooks_and_names_the_skipped_file() {
    // guards: `list` of a project with a broken file lists what runs and says what was
    // skipped, instead of failing or looking complete
    let env = test_env();
    env.write_global_config(USER_GUARD);
    let path = env.write_project_config("[[hooks]]\nname = \"x\"\n");
    let output = env.run_untrusted(["list"], b"");
    assert_eq!(crate::harness::code(&output), 0);
    let stdout = crate::harness::text(&output.stdout);
    assert!(stdout.contains("user-guard"), "{stdout}");
    let stderr = crate::harness::text(&output.stderr);
    assert!(
        stderr.starts_with(&format!("hookrig: error: {}:1:1: ", path.display())),
        "{stderr}"
    );
}

#[test]
fn validate_places_many_missing_scripts_in_linear_time() {
    // guards: `validate` of a settings file with thousands of hooks naming missing
    // scripts must not read and count the file from its start for each of them
    let env = test_env();
    let groups: Vec<Value> = (0..20_000)
        .map(|i| {
            json!({"matcher": format!("Tool{i}"), "hooks": [
                {"type": "command", "command": format!("/nonexistent/run{i}.sh")}
            ]})
        })
        .collect();
    let path = env.write_file(
        ".claude/settings.json",
        &json!({"hooks": {"PreToolUse": groups}}).to_string(),
    );
    let started = Instant::now();
    let output = env.run_untrusted(["validate"], b"");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(crate::harness::code(&output), 1);
    let stdout = crate::harness::text(&output.stdout);
    assert!(
        stdout.ends_with("20000 errors, 0 warnings\n"),
        "{}",
        &stdout[stdout.len().saturating_sub(300)..]
    );
    // Every error is at its handler's `{`, on the file's one line.
    let first = stdout.lines().next().expect("a line");
    assert!(
        first.starts_with(&format!("{}:1:", path.display()))
            && first.contains("hook `claude:project:PreToolUse:"),
        "{first}"
    );
    // The second handler's `{`: the file is one line of ASCII, so its column is its
    // byte offset plus one.
    let text = std::fs::read_to_string(&path).expect("read");
    let script = text
        .find("/nonexistent/run1.sh")
        .expect("the second handler");
    let brace = text[..script].rfind('{').expect("its object");
    let expected = format!(
        "{}:1:{}: error: hook `claude:project:PreToolUse:2`: cannot run /nonexistent/run1.sh",
        path.display(),
        brace + 1
    );
    assert!(stdout.contains(&expected), "{expected}");
}
