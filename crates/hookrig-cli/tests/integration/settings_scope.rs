//! What a project's settings may change: its own hooks only. A repository's
//! `.hookrig/hooks.toml` `[settings]`, `.hence/config.toml` and Claude Code settings
//! never reach the user's own hooks, trusted or not.

use std::fs;
use std::os::unix::fs::PermissionsExt as _;

use hookrig_test_support::TestEnv;
use indoc::indoc;
use serde_json::Value;

use crate::harness::{code, emit, emit_untrusted, hookrig, test_env, text};

/// The user's guard: denies every tool call, after a moment.
const USER_GUARD: &str = indoc! {r#"
    [[hooks]]
    name = "user-guard"
    events = ["tool.before"]
    command = 'sleep 0.3; exit 2'
"#};

/// `list --json` of the hook `name`.
fn listed(env: &TestEnv, untrusted: bool, name: &str) -> Value {
    let output = if untrusted {
        env.run_untrusted(["list", "--json"], b"")
    } else {
        hookrig(env, &["list", "--json"])
    };
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let listed: Value = serde_json::from_slice(&output.stdout).expect("list --json is JSON");
    listed
        .as_array()
        .expect("a list")
        .iter()
        .find(|h| h["name"] == name)
        .unwrap_or_else(|| panic!("no hook {name} in {listed:#}"))
        .clone()
}

#[test]
fn a_project_settings_timeout_does_not_reach_the_users_hooks() {
    // guards: a project [settings] timeout must not reach the user's hooks
    for global_settings in ["", "[settings]\ntimeout = \"5s\"\n"] {
        let env = test_env();
        env.write_global_config(&format!("{global_settings}{USER_GUARD}"));
        env.write_project_config("[settings]\ntimeout = \"50ms\"\nkill_grace = \"0s\"\n");

        let out = emit_untrusted(&env, &["tool.before"], r#"{"tool":{"name":"bash"}}"#);
        assert_eq!(out.code, 2, "the user's guard decides: {}", out.stderr);
        assert_eq!(out.outcome["decided_by"], "user-guard");
        assert_eq!(out.result("user-guard"), "deny");
        // Trusted or not: a project's settings are its own hooks' settings.
        let out = emit(&env, &["tool.before"], r#"{"tool":{"name":"bash"}}"#);
        assert_eq!(out.code, 2, "{}", out.stderr);

        let expected = if global_settings.is_empty() {
            "30s"
        } else {
            "5s"
        };
        assert_eq!(listed(&env, true, "user-guard")["timeout"], expected);
    }
}

#[test]
fn a_project_settings_timeout_applies_to_the_projects_own_hooks() {
    // guards: a file's [settings] still set the default of its own hooks
    let env = test_env();
    env.write_global_config("[settings]\ntimeout = \"7s\"\n");
    env.write_project_config(indoc! {r#"
        [settings]
        timeout = "50ms"

        [[hooks]]
        name = "slow"
        events = ["tool.before"]
        command = "sleep 5"

        [[hooks]]
        name = "own"
        events = ["tool.before"]
        command = "true"
        timeout = "2s"
    "#});
    let out = emit(&env, &["tool.before"], r#"{"tool":{"name":"bash"}}"#);
    assert_eq!(out.result("slow"), "timeout", "{}", out.stdout);
    assert_eq!(listed(&env, false, "slow")["timeout"], "50ms");
    assert_eq!(listed(&env, false, "own")["timeout"], "2s");
}

/// A Hence hook script at `rel` under `dir` that appends `tag` to `log`.
fn hence_script(dir: &std::path::Path, rel: &str, log: &std::path::Path, tag: &str) {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    fs::write(
        &path,
        format!("#!/bin/sh\necho {tag} >> '{}'\n", log.display()),
    )
    .expect("write the script");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
}

const TASK: &str = r#"{"plan":"plan.spl","task":"auth","agent":"coder"}"#;

#[test]
fn a_project_config_toml_does_not_change_the_users_hence_hooks() {
    // guards: an untrusted .hence/config.toml must not disable, rename or time out the
    // user's global Hence hooks
    for project_config in [
        "[hooks]\npost_complete = false\n",
        "[hooks]\npost_complete = \"post-claim\"\n",
        "[settings]\nhook_timeout = 1\n",
    ] {
        let env = test_env();
        let log = env.project().join("ran");
        let hooks = env.config_home().join("hence/hooks");
        hence_script(&hooks, "post-complete", &log, "global-complete");
        hence_script(&hooks, "post-claim", &log, "global-claim");
        // A slow hook: one second of `hook_timeout` would kill it.
        fs::write(
            hooks.join("post-complete"),
            format!(
                "#!/bin/sh\nsleep 1.5\necho global-complete >> '{}'\n",
                log.display()
            ),
        )
        .expect("write");
        env.write_file(".hence/config.toml", project_config);

        let out = emit_untrusted(&env, &["task.completed"], TASK);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(
            env.read_file("ran").as_deref(),
            Some("global-complete\n"),
            "with {project_config:?}: {}",
            out.stdout
        );
        assert_eq!(out.result("post-complete"), "allow", "{}", out.stdout);
    }
}

#[test]
fn a_project_config_toml_still_sets_the_projects_own_hence_hooks() {
    // guards: a project's [hooks] still disable the project's own hook scripts
    let env = test_env();
    let log = env.project().join("ran");
    hence_script(&env.project(), ".hence/hooks/post-complete", &log, "local");
    hence_script(
        &env.config_home().join("hence/hooks"),
        "post-complete",
        &log,
        "global",
    );
    env.write_file(".hence/config.toml", "[hooks]\npost_complete = false\n");
    let out = emit(&env, &["task.completed"], TASK);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(env.read_file("ran").as_deref(), Some("global\n"));
}

/// Writes `value` as JSON at `path`.
fn write_json(path: &std::path::Path, value: &Value) {
    fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    fs::write(path, value.to_string()).expect("write");
}

#[test]
fn an_untrusted_claude_settings_file_cannot_disable_the_users_hooks() {
    // guards: an untrusted .claude/settings.json or settings.local.json with
    // disableAllHooks must not switch off the user's ~/.claude hooks
    for name in ["settings.json", "settings.local.json"] {
        let env = test_env();
        write_json(
            &env.home().join(".claude/settings.json"),
            &serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "echo 'no rm -rf' >&2; exit 2"}
            ]}]}}),
        );
        let project_file = env.project().join(".claude").join(name);
        write_json(&project_file, &serde_json::json!({"disableAllHooks": true}));
        let payload = r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}"#;

        let out = emit_untrusted(&env, &["--dialect", "claude"], payload);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let specific = &out.outcome["hookSpecificOutput"];
        assert_eq!(specific["permissionDecision"], "deny", "{}", out.stdout);
        let message = out.outcome["systemMessage"].as_str().unwrap_or_default();
        assert!(
            message.contains(&format!(
                "{}: `disableAllHooks` is ignored: the file comes with the project and is not trusted yet",
                project_file.display()
            )),
            "{message}"
        );

        // Once trusted, the file's setting counts, as in Claude Code.
        let trusted = env.run_untrusted(["trust"], b"");
        assert_eq!(code(&trusted), 0, "{}", text(&trusted.stderr));
        assert!(
            text(&trusted.stdout).contains(&format!(
                "trusted Claude Code settings {}",
                project_file.display()
            )),
            "{}",
            text(&trusted.stdout)
        );
        let out = emit_untrusted(&env, &["--dialect", "claude"], payload);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(out.outcome, serde_json::json!({}), "{}", out.stdout);

        // A change to the file takes the trust back.
        write_json(
            &project_file,
            &serde_json::json!({"disableAllHooks": true, "x": 1}),
        );
        let out = emit_untrusted(&env, &["--dialect", "claude"], payload);
        assert_eq!(
            out.outcome["hookSpecificOutput"]["permissionDecision"], "deny",
            "{}",
            out.stdout
        );
    }
}

#[test]
fn a_project_kill_grace_does_not_reach_the_users_hooks() {
    // guards: a project [settings] kill_grace = "0s" must not deny the user's hook its
    // SIGTERM (and the cleanup it does on it)
    let env = test_env();
    let cleaned = env.project().join("cleaned");
    env.write_global_config(&format!(
        indoc! {r#"
            [[hooks]]
            name = "user-hook"
            events = ["tool.before"]
            timeout = "300ms"
            command = '''trap 'touch "{}"; exit 0' TERM; while :; do sleep 0.05; done'''
        "#},
        cleaned.display()
    ));
    env.write_project_config("[settings]\nkill_grace = \"0s\"\n");

    let out = emit_untrusted(&env, &["tool.before"], r#"{"tool":{"name":"bash"}}"#);
    assert_eq!(out.result("user-hook"), "timeout", "{}", out.stdout);
    assert!(
        cleaned.exists(),
        "the user's hook got SIGTERM first, as its own settings say"
    );
    assert!(env.leftovers().is_empty(), "the hook is left running");
}
