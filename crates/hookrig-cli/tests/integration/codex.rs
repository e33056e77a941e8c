//! The codex dialect end to end: Codex's hooks run by Codex's rules, and
//! `emit --dialect codex` answers Codex as its own hook runner would have. The rules and
//! their sources are in docs/dialects/codex.md.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Output;

use hookrig_test_support::{HANG_LIMIT, TestEnv, run_with_input};
use serde_json::{Value, json};

use crate::harness::{code, quoted, test_env, text};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// Codex's home of the test: `CODEX_HOME` points there, not at `~/.codex`.
fn codex_home(env: &TestEnv) -> PathBuf {
    env.root().join("codex-home")
}

/// `hookrig emit --dialect codex` with `input` on stdin, trusted or not.
fn emit_codex(env: &TestEnv, input: &str, trusted: bool) -> Output {
    emit_as(env, "codex", input, trusted)
}

/// `hookrig emit --dialect HOST` with Codex's `input` on stdin. Codex runs its plugins'
/// hooks itself beside hookrig's entry, so an emit answering Codex leaves them out; an
/// emit answering another host (Claude Code, whose input Codex's matches) runs them.
fn emit_as(env: &TestEnv, host: &str, input: &str, trusted: bool) -> Output {
    let args = ["emit", "--dialect", host];
    let mut command = if trusted {
        env.command(args)
    } else {
        env.untrusted_command(args)
    };
    command.env("CODEX_HOME", codex_home(env));
    run_with_input(command, input.as_bytes(), HANG_LIMIT)
}

/// The input Codex sends for `event`, with the project as `cwd`.
fn codex_input(env: &TestEnv, event: &str) -> Value {
    let cwd = env.project().to_string_lossy().into_owned();
    let common = json!({"session_id": "s1", "turn_id": "t1", "transcript_path": null,
                        "cwd": cwd, "hook_event_name": event, "model": "gpt-5"});
    let mut input = common.as_object().expect("object").clone();
    let own = match event {
        "PreToolUse" => json!({"permission_mode": "default", "tool_name": "Bash",
                               "tool_input": {"command": "ls"}, "tool_use_id": "call_1"}),
        "PermissionRequest" => json!({"permission_mode": "default", "tool_name": "Bash",
                                      "tool_input": {"command": "ls"}}),
        "PostToolUse" => json!({"permission_mode": "default", "tool_name": "Bash",
                                "tool_input": {"command": "ls"}, "tool_response": "a b",
                                "tool_use_id": "call_1"}),
        "PreCompact" | "PostCompact" => json!({"trigger": "auto"}),
        "SessionStart" => json!({"permission_mode": "default", "source": "startup"}),
        "UserPromptSubmit" => json!({"permission_mode": "default", "prompt": "hi"}),
        "SubagentStart" => json!({"permission_mode": "default", "agent_id": "a1",
                                  "agent_type": "worker"}),
        "SubagentStop" => json!({"permission_mode": "default", "stop_hook_active": false,
                                 "agent_id": "a1", "agent_type": "worker",
                                 "agent_transcript_path": null, "last_assistant_message": "done"}),
        "Stop" => json!({"permission_mode": "default", "stop_hook_active": false,
                         "last_assistant_message": "done"}),
        other => panic!("no input for {other}"),
    };
    if event == "SessionStart" {
        input.remove("turn_id");
    }
    input.extend(own.as_object().expect("object").clone());
    Value::Object(input)
}

/// `{"hooks": {event: [{"hooks": [{"type": "command", "command": line}]}]}}`.
fn hooks_json(event: &str, line: &str) -> String {
    json!({"hooks": {event: [{"hooks": [{"type": "command", "command": line}]}]}}).to_string()
}

/// A shell line that prints `stdout` and `stderr` and exits with `code`.
fn replying(code: i32, stdout: &str, stderr: &str) -> String {
    format!("printf '%s' '{stdout}'; printf '%s' '{stderr}' >&2; exit {code}")
}

/// One row of the conformance table: the event, the hook's reply, and what Codex gets.
struct Case {
    event: &'static str,
    code: i32,
    stdout: &'static str,
    stderr: &'static str,
}

const fn case(event: &'static str, code: i32, stdout: &'static str, stderr: &'static str) -> Case {
    Case {
        event,
        code,
        stdout,
        stderr,
    }
}

const CASES: &[Case] = &[
    case("PreToolUse", 0, "", ""),
    case("PreToolUse", 0, "debug noise", ""),
    case(
        "PreToolUse",
        0,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no ls"}}"#,
        "",
    ),
    case(
        "PreToolUse",
        0,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -la"}}}"#,
        "",
    ),
    case(
        "PreToolUse",
        0,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}"#,
        "",
    ),
    case(
        "PreToolUse",
        0,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":""}}"#,
        "",
    ),
    case("PreToolUse", 0, r#"{"continue":false}"#, ""),
    case(
        "PreToolUse",
        0,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"mind the tests"}}"#,
        "",
    ),
    case(
        "PreToolUse",
        0,
        r#"{"decision":"block","reason":"legacy"}"#,
        "",
    ),
    case(
        "PreToolUse",
        0,
        r#"{"systemMessage":"note","unknown":1}"#,
        "",
    ),
    case("PreToolUse", 2, "", "no rm"),
    case("PreToolUse", 2, "", ""),
    case("PreToolUse", 1, "", "oops"),
    case(
        "PermissionRequest",
        0,
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#,
        "",
    ),
    case(
        "PermissionRequest",
        0,
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not now"}}}"#,
        "",
    ),
    case(
        "PermissionRequest",
        0,
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[]}}}"#,
        "",
    ),
    case("PermissionRequest", 2, "", "denied by policy"),
    case(
        "PostToolUse",
        0,
        r#"{"decision":"block","reason":"looks wrong"}"#,
        "",
    ),
    case(
        "PostToolUse",
        0,
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ran ls"}}"#,
        "",
    ),
    case(
        "PostToolUse",
        0,
        r#"{"continue":false,"stopReason":"enough"}"#,
        "",
    ),
    case("PostToolUse", 2, "", "check the output"),
    case("UserPromptSubmit", 0, "today is monday", ""),
    case(
        "UserPromptSubmit",
        0,
        r#"{"decision":"block","reason":"secret"}"#,
        "",
    ),
    case(
        "UserPromptSubmit",
        0,
        r#"{"continue":false,"stopReason":"pause"}"#,
        "",
    ),
    case("UserPromptSubmit", 2, "", "blocked by policy"),
    case("SessionStart", 0, "hello from hook", ""),
    case(
        "SessionStart",
        0,
        r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}"#,
        "",
    ),
    case(
        "SessionStart",
        0,
        r#"{"continue":false,"stopReason":"no session"}"#,
        "",
    ),
    case("SessionStart", 2, "", "no"),
    case("SubagentStart", 0, "be brief", ""),
    case("SubagentStart", 0, r#"{"continue":false}"#, ""),
    case(
        "Stop",
        0,
        r#"{"decision":"block","reason":"run the tests"}"#,
        "",
    ),
    case("Stop", 0, r#"{"continue":false,"stopReason":"enough"}"#, ""),
    case("Stop", 0, "done", ""),
    case("Stop", 2, "", "keep going"),
    case(
        "SubagentStop",
        0,
        r#"{"decision":"block","reason":"more"}"#,
        "",
    ),
    case("PreCompact", 0, r#"{"continue":false}"#, ""),
    case("PreCompact", 2, "", "nope"),
    case(
        "PostCompact",
        0,
        r#"{"continue":false,"stopReason":"stop"}"#,
        "",
    ),
    case("PostCompact", 0, "", ""),
];

// The conformance table: for every event and answer field, Codex's input, one hook's
// reply (exit code, stdout, stderr), and the exact answer Codex receives from
// `hookrig emit --dialect codex` (stdout and exit code).
#[test]
fn every_event_and_answer_reaches_codex_as_codex_reads_it() {
    let env = test_env();
    let mut table = String::new();
    for case in CASES {
        write(
            &codex_home(&env).join("hooks.json"),
            &hooks_json(case.event, &replying(case.code, case.stdout, case.stderr)),
        );
        let input = codex_input(&env, case.event).to_string();
        let output = emit_codex(&env, &input, true);
        let _ = write!(
            table,
            "{} | exit {} | stdout {:?} | stderr {:?}\n  => exit {} {}",
            case.event,
            case.code,
            case.stdout,
            case.stderr,
            code(&output),
            text(&output.stdout),
        );
        assert!(
            text(&output.stderr).is_empty(),
            "{}: {}",
            case.event,
            text(&output.stderr)
        );
    }
    insta::assert_snapshot!(table);
}

#[test]
fn a_hook_sees_exactly_what_codex_sent_and_runs_in_a_login_shell() {
    let env = test_env();
    let dump = env.project().join("stdin.json");
    let shell = env.project().join("shell.txt");
    write(
        &codex_home(&env).join("config.toml"),
        &format!(
            "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"cat > {}; echo $0 > {}\"\n",
            quoted(&dump).replace('"', "\\\""),
            quoted(&shell).replace('"', "\\\""),
        ),
    );
    let input = codex_input(&env, "PreToolUse").to_string();
    let mut command = env.command(["emit", "--dialect", "codex"]);
    command
        .env("CODEX_HOME", codex_home(&env))
        .env("SHELL", "/bin/sh");
    let output = run_with_input(command, input.as_bytes(), HANG_LIMIT);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "{}\n");
    assert_eq!(std::fs::read_to_string(&dump).expect("dumped"), input);
    assert_eq!(
        std::fs::read_to_string(&shell).expect("dumped").trim(),
        "/bin/sh"
    );
}

#[test]
fn codex_home_is_where_the_user_hooks_are_read() {
    let env = test_env();
    // `~/.codex` is Codex's home only when `CODEX_HOME` is not set.
    write(
        &env.home().join(".codex/hooks.json"),
        &hooks_json("UserPromptSubmit", "echo from-home"),
    );
    write(
        &codex_home(&env).join("hooks.json"),
        &hooks_json("UserPromptSubmit", "echo from-codex-home"),
    );
    let input = codex_input(&env, "UserPromptSubmit").to_string();
    let output = emit_codex(&env, &input, true);
    assert_eq!(
        text(&output.stdout),
        "{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"from-codex-home\"}}\n"
    );
}

#[test]
fn project_hooks_run_only_once_trusted() {
    let env = test_env();
    write(
        &env.project().join(".codex/hooks.json"),
        &hooks_json("UserPromptSubmit", "echo from-project"),
    );
    let input = codex_input(&env, "UserPromptSubmit").to_string();
    let output = emit_codex(&env, &input, false);
    let answer: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(answer.get("hookSpecificOutput"), None, "{answer}");
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(message.contains("hookrig trust"), "{message}");

    let project = env.project().to_string_lossy().into_owned();
    let trusted = env.run_untrusted(["trust", project.as_str()], b"");
    assert_eq!(code(&trusted), 0, "{}", text(&trusted.stderr));
    let output = emit_codex(&env, &input, false);
    assert_eq!(
        text(&output.stdout),
        "{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"from-project\"}}\n"
    );
}

/// The example of this repository (`examples/codex`), copied into the project.
fn with_example(env: &TestEnv) {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/codex");
    for file in ["config.toml", "hooks/deny-rm-rf.sh", "hooks/context.sh"] {
        let from = example.join(".codex").join(file);
        let to = env.project().join(".codex").join(file);
        write(&to, &std::fs::read_to_string(&from).expect("example file"));
        let mode = std::fs::metadata(&from)
            .expect("example file")
            .permissions();
        std::fs::set_permissions(&to, mode).expect("chmod");
    }
}

fn example_payload(env: &TestEnv, name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/codex/payloads")
        .join(name);
    std::fs::read_to_string(path)
        .expect("example payload")
        .replace("CWD", &env.project().to_string_lossy())
}

#[test]
fn the_codex_example_denies_rm_rf_and_adds_context() {
    let env = test_env();
    with_example(&env);
    let answers: Vec<String> = ["rm-rf.json", "ls.json", "session-start.json", "prompt.json"]
        .iter()
        .map(|payload| {
            let output = emit_codex(&env, &example_payload(&env, payload), true);
            assert_eq!(code(&output), 0, "{}", text(&output.stderr));
            format!("{payload}: {}", text(&output.stdout))
        })
        .collect();
    insta::assert_snapshot!(answers.join(""));
}

/// Codex's events, each with the answer it reads.
const CODEX_EVENTS: &[&str] = &[
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "UserPromptSubmit",
    "SessionStart",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "PreCompact",
    "PostCompact",
];

// guards: a hook of another dialect (here a native hook's `stop`) that stops the agent
// reaches Codex as Codex's own stop (`continue: false` + `stopReason`) on every event
// that reads it, as a deny where Codex refuses `continue` (`PreToolUse`,
// `PermissionRequest`), and as a message where Codex ignores it (`SubagentStart`).
#[test]
fn a_stop_of_any_hook_reaches_codex_as_codex_reads_a_stop() {
    let env = test_env();
    env.write_bin(
        "halt",
        r#"printf '%s' '{"stop":{"reason":"budget spent"}}'"#,
    );
    let events: Vec<String> = CODEX_EVENTS.iter().map(|e| format!("{e:?}")).collect();
    env.write_global_config(&format!(
        "[[hooks]]\nname = \"halt\"\nevents = [{}]\ncommand = \"halt\"\n",
        events.join(", ")
    ));
    let mut table = String::new();
    for event in CODEX_EVENTS {
        let input = codex_input(&env, event).to_string();
        let output = emit_codex(&env, &input, true);
        let _ = writeln!(
            table,
            "{event} => exit {} {}",
            code(&output),
            text(&output.stdout).trim_end()
        );
        assert!(
            text(&output.stderr).is_empty(),
            "{event}: {}",
            text(&output.stderr)
        );
    }
    insta::assert_snapshot!(table);
}

// guards: the hooks of Codex's system layer (`/etc/codex`, here moved into the test's
// directory by `HOOKRIG_CODEX_SYSTEM_DIR`) run with the user's, as global hooks that
// need no trust (the emit is untrusted); both of its files load
#[test]
fn the_system_layer_runs_with_the_user_layer() {
    let env = test_env();
    let log = env.root().join("order.log");
    let line = |name: &str| format!("echo {name} >> {}", quoted(&log));
    write(
        &env.codex_system_dir().join("hooks.json"),
        &hooks_json("PreToolUse", &line("system-json")),
    );
    write(
        &env.codex_system_dir().join("config.toml"),
        &format!(
            "[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = {:?}\n",
            line("system-toml")
        ),
    );
    write(
        &codex_home(&env).join("hooks.json"),
        &hooks_json("PreToolUse", &line("user")),
    );
    let output = emit_codex(&env, &codex_input(&env, "PreToolUse").to_string(), false);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let ran = std::fs::read_to_string(&log).expect("the hooks ran");
    let mut ran: Vec<&str> = ran.lines().collect();
    // The hooks of one event start at once (Codex's parallel group): compare as a set,
    // and the names in the Outcome say which layer each came from.
    ran.sort_unstable();
    assert_eq!(ran, ["system-json", "system-toml", "user"]);
    let mut list = env.command(["list", "--event", "PreToolUse"]);
    list.env("CODEX_HOME", codex_home(&env));
    let list = run_with_input(list, b"", HANG_LIMIT);
    let list = text(&list.stdout);
    for name in [
        "codex:system:PreToolUse:1",
        "codex:system-toml:PreToolUse:1",
        "codex:user:PreToolUse:1",
    ] {
        assert!(list.contains(name), "{list}");
    }
}

/// The `PreToolUse` hooks that ran, as a sorted list of the names they echoed.
fn ran(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let mut ran: Vec<String> = text.lines().map(str::to_owned).collect();
    ran.sort_unstable();
    ran
}

#[test]
fn managed_hooks_of_requirements_toml_run_and_the_user_cannot_turn_them_off() {
    // guards: `[hooks]` of the administrator's requirements.toml are hooks (beside their
    // `managed_dir`, read without a warning); managed hooks, the system layer's among
    // them, ignore the user's `[hooks.state]`
    let env = test_env();
    let log = env.root().join("order.log");
    let line = |name: &str| format!("echo {name} >> {}", quoted(&log));
    let system = env.codex_system_dir();
    write(
        &system.join("requirements.toml"),
        &format!(
            "allowed_sandbox_modes = [\"read-only\"]\n\n[hooks]\nmanaged_dir = \"/opt/hooks\"\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = {:?}\n",
            line("managed")
        ),
    );
    write(
        &system.join("hooks.json"),
        &hooks_json("PreToolUse", &line("system")),
    );
    write(
        &codex_home(&env).join("hooks.json"),
        &hooks_json("PreToolUse", &line("user")),
    );
    write(
        &codex_home(&env).join("config.toml"),
        &format!(
            "[hooks.state.\"{}:pre_tool_use:0:0\"]\nenabled = false\n[hooks.state.\"{}:pre_tool_use:0:0\"]\nenabled = false\n",
            system.join("hooks.json").display(),
            system.join("requirements.toml").display(),
        ),
    );
    let output = emit_codex(&env, &codex_input(&env, "PreToolUse").to_string(), false);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(ran(&log), ["managed", "system", "user"]);

    let mut validate = env.command(["validate"]);
    validate.env("CODEX_HOME", codex_home(&env));
    let validate = run_with_input(validate, b"", HANG_LIMIT);
    let said = env.redact(&format!(
        "{}{}",
        text(&validate.stdout),
        text(&validate.stderr)
    ));
    assert!(!said.contains("managed_dir"), "{said}");
    let mut list = env.command(["list", "--event", "PreToolUse"]);
    list.env("CODEX_HOME", codex_home(&env));
    let list = text(&run_with_input(list, b"", HANG_LIMIT).stdout);
    assert!(list.contains("codex:managed:PreToolUse:1"), "{list}");
}

#[test]
fn allow_managed_hooks_only_leaves_the_users_and_the_projects_hooks_out() {
    let env = test_env();
    let log = env.root().join("order.log");
    let line = |name: &str| format!("echo {name} >> {}", quoted(&log));
    let system = env.codex_system_dir();
    let requirements = |only: bool| {
        format!(
            "allow_managed_hooks_only = {only}\n\n[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = {:?}\n",
            line("managed")
        )
    };
    write(
        &system.join("config.toml"),
        &format!(
            "[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = {:?}\n",
            line("system")
        ),
    );
    write(
        &codex_home(&env).join("hooks.json"),
        &hooks_json("PreToolUse", &line("user")),
    );
    write(
        &env.project().join(".codex/hooks.json"),
        &hooks_json("PreToolUse", &line("project")),
    );
    let input = codex_input(&env, "PreToolUse").to_string();

    write(&system.join("requirements.toml"), &requirements(true));
    let output = emit_codex(&env, &input, true);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(ran(&log), ["managed", "system"]);

    std::fs::remove_file(&log).expect("rm");
    write(&system.join("requirements.toml"), &requirements(false));
    let output = emit_codex(&env, &input, true);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(ran(&log), ["managed", "project", "system", "user"]);
}

/// Installs the plugin `NAME@market` in Codex's plugin cache of the test, at `version`,
/// with one `PreToolUse` hook running `line`.
fn install_plugin(env: &TestEnv, name: &str, version: &str, line: &str) -> PathBuf {
    let root = codex_home(env)
        .join("plugins/cache/market")
        .join(name)
        .join(version);
    write(
        &root.join(".codex-plugin/plugin.json"),
        &json!({"name": name}).to_string(),
    );
    write(
        &root.join("hooks/hooks.json"),
        &hooks_json("PreToolUse", line),
    );
    root
}

#[test]
fn an_enabled_plugins_hook_runs_with_its_variables_and_a_disabled_one_does_not() {
    // guards: Codex plugins' hooks load from the active version of the plugin cache,
    // with PLUGIN_ROOT, PLUGIN_DATA and their CLAUDE_ names in the environment and in
    // place of ${NAME} in the command; a plugin turned off in config.toml runs nothing
    let env = test_env();
    let log = env.root().join("plugin.log");
    let line = format!(
        "echo \"${{PLUGIN_ROOT}} $PLUGIN_DATA $CLAUDE_PLUGIN_ROOT $CLAUDE_PLUGIN_DATA $(pwd -P)\" >> {}",
        quoted(&log)
    );
    let old = install_plugin(&env, "guard", "1.0.0", "echo old >> /dev/null");
    let root = install_plugin(&env, "guard", "1.2.0", &line);
    install_plugin(
        &env,
        "other",
        "local",
        &format!("echo other >> {}", quoted(&log)),
    );
    write(
        &codex_home(&env).join("config.toml"),
        "[plugins.\"guard@market\"]\nenabled = true\n\n[plugins.\"other@market\"]\nenabled = false\n",
    );
    let input = codex_input(&env, "PreToolUse").to_string();
    let output = emit_as(&env, "claude", &input, false);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let data = codex_home(&env).join("plugins/data/guard-market");
    let ran = std::fs::read_to_string(&log).expect("the plugin's hook ran");
    let root = root.to_string_lossy();
    let data = data.to_string_lossy();
    let cwd = env.project().canonicalize().expect("the project");
    let cwd = cwd.to_string_lossy();
    assert_eq!(ran, format!("{root} {data} {root} {data} {cwd}\n"));
    assert_ne!(old, PathBuf::from(root.as_ref()));
    let outcome = text(&output.stdout);
    assert!(!outcome.contains("untrusted"), "{outcome}");
}

#[test]
fn a_plugin_only_a_project_enables_runs_nothing_before_trust() {
    // guards: a repository's .codex/config.toml can turn on a plugin of the user's
    // cache, but its hooks are project hooks: untrusted until `hookrig trust`
    let env = test_env();
    let log = env.root().join("plugin.log");
    install_plugin(
        &env,
        "guard",
        "local",
        &format!("echo ran >> {}", quoted(&log)),
    );
    write(
        &env.project().join(".codex/config.toml"),
        "[plugins.\"guard@market\"]\nenabled = true\n",
    );
    let input = codex_input(&env, "PreToolUse").to_string();
    let output = emit_as(&env, "claude", &input, false);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(!log.exists(), "an untrusted plugin hook ran");
    let message = text(&output.stdout);
    assert!(message.contains("hookrig trust"), "{message}");

    let project = env.project().to_string_lossy().into_owned();
    let mut trust = env.untrusted_command(["trust", project.as_str()]);
    trust.env("CODEX_HOME", codex_home(&env));
    let trusted = run_with_input(trust, b"", HANG_LIMIT);
    assert_eq!(code(&trusted), 0, "{}", text(&trusted.stderr));
    let output = emit_as(&env, "claude", &input, false);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(std::fs::read_to_string(&log).expect("ran"), "ran\n");
}

#[test]
fn a_plugin_hook_the_user_turned_off_in_codex_does_not_run() {
    // guards: [hooks.state] keys of plugin hooks are ID:RELATIVE_PATH:EVENT:GROUP:HANDLER
    let env = test_env();
    let log = env.root().join("plugin.log");
    install_plugin(
        &env,
        "guard",
        "local",
        &format!("echo ran >> {}", quoted(&log)),
    );
    let config = "[plugins.\"guard@market\"]\nenabled = true\n";
    write(&codex_home(&env).join("config.toml"), config);
    let input = codex_input(&env, "PreToolUse").to_string();
    let output = emit_as(&env, "claude", &input, false);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(std::fs::read_to_string(&log).expect("ran"), "ran\n");

    std::fs::remove_file(&log).expect("rm");
    write(
        &codex_home(&env).join("config.toml"),
        &format!(
            "{config}\n[hooks.state.\"guard@market:hooks/hooks.json:pre_tool_use:0:0\"]\nenabled = false\n"
        ),
    );
    let output = emit_as(&env, "claude", &input, false);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(!log.exists(), "a hook turned off in Codex ran");
}

#[test]
fn hooks_written_inline_in_a_plugins_manifest_run_and_a_broken_one_falls_back_to_the_default_file()
{
    // guards: the manifest's `hooks` may hold hooks objects; Codex reads them only when
    // each is a hooks file, else it reads hooks/hooks.json instead
    let env = test_env();
    let log = env.root().join("plugin.log");
    let root = install_plugin(
        &env,
        "guard",
        "local",
        &format!("echo default >> {}", quoted(&log)),
    );
    let inline = json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command",
        "command": format!("echo inline >> {}", quoted(&log))}]}]}});
    write(
        &root.join(".codex-plugin/plugin.json"),
        &json!({"name": "guard", "hooks": [inline]}).to_string(),
    );
    write(
        &codex_home(&env).join("config.toml"),
        "[plugins.\"guard@market\"]\nenabled = true\n",
    );
    let input = codex_input(&env, "PreToolUse").to_string();
    let output = emit_as(&env, "claude", &input, false);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(std::fs::read_to_string(&log).expect("ran"), "inline\n");

    std::fs::remove_file(&log).expect("rm");
    write(
        &root.join(".codex-plugin/plugin.json"),
        &json!({"name": "guard", "hooks": [inline, {"hooks": {}, "extra": 1}]}).to_string(),
    );
    let output = emit_as(&env, "claude", &input, false);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(std::fs::read_to_string(&log).expect("ran"), "default\n");
    let outcome = text(&output.stdout);
    assert!(outcome.contains("reads hooks/hooks.json"), "{outcome}");
}

// guards: a Codex plugin's hook run twice once hookrig is Codex's one hook (Codex runs its
// plugins' hooks itself, beside hookrig's entry)
#[test]
fn an_emit_answering_codex_leaves_codex_plugins_hooks_to_codex() {
    let env = test_env();
    let log = env.root().join("plugin.log");
    install_plugin(
        &env,
        "guard",
        "1.0.0",
        &format!("echo ran >> {}", quoted(&log)),
    );
    write(
        &codex_home(&env).join("config.toml"),
        "[plugins.\"guard@market\"]\nenabled = true\n",
    );
    let input = codex_input(&env, "PreToolUse").to_string();
    let output = emit_codex(&env, &input, false);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(
        !log.exists(),
        "hookrig ran the plugin's hook that Codex runs itself"
    );
    let output = emit_as(&env, "claude", &input, false);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(
        log.exists(),
        "another host's emit runs Codex's plugins' hooks"
    );
}

// guards: doctor calling a Codex plugin's hooks "run twice" once hookrig is installed,
// though an emit answering Codex leaves them to Codex
#[test]
fn doctor_does_not_count_codex_plugins_hooks_as_run_twice() {
    let env = test_env();
    let root = install_plugin(&env, "guard", "1.0.0", "true");
    write(
        &codex_home(&env).join("config.toml"),
        "[plugins.\"guard@market\"]\nenabled = true\n",
    );
    let run = |args: &[&str]| {
        let mut command = env.command(args);
        command.env("CODEX_HOME", codex_home(&env));
        let output = run_with_input(command, b"", HANG_LIMIT);
        assert_eq!(code(&output), 0, "{}", text(&output.stderr));
        text(&output.stdout)
    };
    run(&["install", "codex"]);
    let said = run(&["doctor"]);
    assert!(said.contains("installed"), "{said}");
    let plugin_file = root.join("hooks/hooks.json").display().to_string();
    assert!(!said.contains(&plugin_file), "{said}");
}
