//! The hygge dialect end to end: its hooks run unchanged, presented and read by its own rules.

use std::fmt::Write as _;
use std::path::PathBuf;

use hookrig_test_support::{HANG_LIMIT, TestEnv, run_with_input};
use indoc::{formatdoc, indoc};
use serde_json::{Value, json};

use crate::harness::{Emitted, code, emit, quoted, test_env, text};

/// Where each of hygge's four layers lives in a [`TestEnv`].
fn layer(env: &TestEnv, which: &str) -> PathBuf {
    match which {
        "agents-global" => env.home().join(".agents/hooks.toml"),
        "hygge-global" => env.config_home().join("hygge/hooks.toml"),
        "agents-project" => env.project().join(".agents/hooks.toml"),
        "hygge-project" => env.project().join(".hygge/hooks.toml"),
        other => panic!("no layer {other}"),
    }
}

fn write_layer(env: &TestEnv, which: &str, toml: &str) -> PathBuf {
    let path = layer(env, which);
    std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
    std::fs::write(&path, toml).expect("write the layer");
    path
}

/// `record ARG` appends ARG to `order.txt` in the project.
fn write_recorder(env: &TestEnv) {
    let order = quoted(&env.project().join("order.txt"));
    env.write_bin("record", &format!("printf '%s\\n' \"$1\" >> {order}\n"));
}

fn order(env: &TestEnv) -> Vec<String> {
    env.read_file("order.txt")
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn redact(env: &TestEnv, text: &str) -> String {
    crate::harness::redact_process_tag(&env.redact(text))
}

/// A project `.hygge/hooks.toml` with one hook running `script` (a body for
/// `.hygge/NAME.sh`) and `extra` toml lines.
fn one_hook(env: &TestEnv, name: &str, event: &str, script: &str, extra: &str) {
    env.write_script(format!(".hygge/{name}.sh"), script);
    write_layer(
        env,
        "hygge-project",
        &formatdoc! {r#"
            [hooks.{name}]
            events = ["{event}"]
            command = ".hygge/{name}.sh"
            {extra}
        "#},
    );
}

fn pre_tool(env: &TestEnv) -> Emitted {
    emit(
        env,
        &["pre_tool"],
        r#"{"tool": {"name": "bash", "input": {"cmd": "ls"}}}"#,
    )
}

#[test]
fn four_layers_in_order_and_same_names_all_run() {
    let env = test_env();
    write_recorder(&env);
    let hook = |name: &str, arg: &str| {
        format!(
            "[hooks.{name}]\nevents = [\"pre_tool\"]\ncommand = \"record\"\nargs = [\"{arg}\"]\n"
        )
    };
    write_layer(&env, "agents-global", &hook("same", "agents-global"));
    write_layer(&env, "hygge-global", &hook("same", "hygge-global"));
    write_layer(&env, "agents-project", &hook("same", "agents-project"));
    // File order, not name order.
    write_layer(
        &env,
        "hygge-project",
        &format!(
            "{}{}",
            hook("zz", "hygge-project-1"),
            hook("aa", "hygge-project-2")
        ),
    );
    // Above the repository root: the walk stops at the directory holding `.git`.
    let outside = env.root().join(".hygge/hooks.toml");
    std::fs::create_dir_all(outside.parent().expect("parent")).expect("mkdir");
    std::fs::write(&outside, hook("outside", "outside")).expect("write");
    let sub = env.project().join("src/deep");
    std::fs::create_dir_all(&sub).expect("mkdir");

    let out = emit(
        &env,
        &["pre_tool", "--cwd", sub.to_str().expect("utf-8")],
        "{}",
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        order(&env),
        [
            "agents-global",
            "hygge-global",
            "agents-project",
            "hygge-project-1",
            "hygge-project-2"
        ]
    );
    let sources: Vec<_> = out.outcome["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .map(|h| {
            format!(
                "{} {} {} {}",
                h["name"].as_str().expect("name"),
                h["dialect"].as_str().expect("dialect"),
                h["result"].as_str().expect("result"),
                redact(&env, h["source"].as_str().expect("source"))
            )
        })
        .collect();
    assert_eq!(
        sources,
        [
            "same hygge allow [TMP]/home/.agents/hooks.toml",
            "same hygge allow [TMP]/home/.config/hygge/hooks.toml",
            "same hygge allow [TMP]/project/.agents/hooks.toml",
            "zz hygge allow [TMP]/project/.hygge/hooks.toml",
            "aa hygge allow [TMP]/project/.hygge/hooks.toml",
        ]
    );
    assert!(out.warnings().is_empty(), "{:?}", out.warnings());
}

#[test]
fn xdg_config_home_moves_the_hygge_global_layer() {
    let env = test_env();
    write_recorder(&env);
    let elsewhere = env.root().join("xdg");
    let path = elsewhere.join("hygge/hooks.toml");
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(
        &path,
        "[hooks.x]\nevents = [\"pre_tool\"]\ncommand = \"record\"\nargs = [\"xdg\"]\n",
    )
    .expect("write");
    // The default place is not read when XDG_CONFIG_HOME points elsewhere.
    write_layer(
        &env,
        "hygge-global",
        "[hooks.y]\nevents = [\"pre_tool\"]\ncommand = \"record\"\nargs = [\"default\"]\n",
    );

    let output = run_with_input(
        {
            let mut command = env.command(["emit", "pre_tool"]);
            command.env("XDG_CONFIG_HOME", &elsewhere);
            command
        },
        b"{}",
        HANG_LIMIT,
    );

    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(order(&env), ["xdg"]);
}

#[test]
fn skipped_entries_and_unreadable_files_are_warnings_and_the_rest_runs() {
    let env = test_env();
    write_recorder(&env);
    write_layer(
        &env,
        "agents-project",
        "[hooks.broken]\nevents = [\"pre_tool\"\ncommand = \"record\"\n",
    );
    write_layer(
        &env,
        "hygge-project",
        indoc! {r#"
            [hooks.""]
            events = ["pre_tool"]
            command = "record"

            [hooks.nocmd]
            events = ["pre_tool"]

            [hooks.noevents]
            command = "record"

            [hooks.typo]
            events = ["pre_tol", "pre_tool"]
            command = "record"
            args = ["typo"]

            [hooks.canonical]
            events = ["tool.before"]
            command = "record"

            [hooks.asyncpre]
            events = ["pre_tool"]
            command = "record"
            mode = "async"

            [hooks.later]
            events = ["post_message"]
            command = "record"
            args = ["later"]

            [hooks.slow]
            events = ["pre_tool"]
            command = "record"
            args = ["slow"]
            timeout = "soon"
            colour = "blue"
        "#},
    );

    let out = pre_tool(&env);

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(order(&env), ["typo", "slow"]);
    let warnings: Vec<_> = out.warnings().iter().map(|w| redact(&env, w)).collect();
    insta::assert_debug_snapshot!(warnings);
}

#[test]
fn async_post_message_hook_runs() {
    let env = test_env();
    write_recorder(&env);
    write_layer(
        &env,
        "hygge-project",
        "[hooks.log]\nevents = [\"post_message\"]\ncommand = \"record\"\nargs = [\"logged\"]\nmode = \"async\"\n",
    );

    let out = emit(&env, &["post_message"], r#"{"message": "done"}"#);

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("log"), "dispatched");
    assert!(out.warnings().is_empty(), "{:?}", out.warnings());
    // The async keeper runs it once the emit has answered.
    crate::harness::why_when_async_done(&env, &out.run_id());
    assert_eq!(order(&env), ["logged"]);
}

#[test]
fn exact_stdin_of_each_event() {
    let env = test_env();
    env.write_script(".hygge/dump.sh", "cat > \"stdin-$1.json\"\n");
    let mut toml = String::new();
    for event in ["pre_tool", "post_tool", "pre_message", "post_message"] {
        let _ = write!(
            toml,
            "[hooks.dump-{event}]\nevents = [\"{event}\"]\ncommand = \".hygge/dump.sh\"\nargs = [\"{event}\"]\nmode = \"{}\"\n\n",
            if event == "post_message" {
                "async"
            } else {
                "sync"
            }
        );
    }
    write_layer(&env, "hygge-project", &toml);
    let tool_json = r#""tool": {"name": "edit", "input": {"path": "a.rs", "text": "é\n\"q\""}, "call_id": "c1"}"#;
    let payloads = [
        (
            "tool.before",
            format!(r#"{{{tool_json}, "session": {{"model": "m"}}, "extra": 1}}"#),
        ),
        (
            "tool.after",
            r#"{"tool": {"name": "edit", "input": {"path": "a.rs"}, "output": "written", "is_error": true, "call_id": "c1"}}"#.to_owned(),
        ),
        (
            "prompt.submit",
            r#"{"prompt": "fix it", "message": "not this", "mode_name": "plan"}"#.to_owned(),
        ),
        (
            "message.after",
            r#"{"message": "done.", "prompt": "not this"}"#.to_owned(),
        ),
    ];
    let mut seen = Vec::new();
    for ((event, payload), hygge) in
        payloads
            .iter()
            .zip(["pre_tool", "post_tool", "pre_message", "post_message"])
    {
        let out = emit(&env, &[event, "--session", "s-7"], payload);
        assert_eq!(out.code, 0, "{}", out.stderr);
        // post_message's hook is async: the keeper runs it once the emit has answered.
        crate::harness::why_when_async_done(&env, &out.run_id());
        let stdin = env
            .read_file(format!("stdin-{hygge}.json"))
            .unwrap_or_else(|| panic!("the {hygge} hook ran"));
        assert!(!stdin.ends_with('\n'), "no trailing newline: {stdin:?}");
        let reparsed: Value = serde_json::from_str(&stdin).expect("JSON");
        assert_eq!(
            serde_json::to_string(&reparsed).expect("serializes"),
            stdin,
            "compact JSON"
        );
        seen.push(redact(&env, &stdin));
    }
    insta::assert_snapshot!(seen.join("\n"));
}

#[test]
fn minimal_environment_and_the_hooks_env_wins() {
    let env = test_env();
    let dump = "env | grep -E '^(PATH|HOME|LANG|USER|TERM|LC_ALL|LC_CTYPE|LEVEL|SECRET_TOKEN|XDG_CONFIG_HOME|HOOKRIG_[A-Z_]*)=' | sort > env.txt\n";
    one_hook(
        &env,
        "envdump",
        "pre_tool",
        dump,
        "env = { LEVEL = \"high\", LANG = \"hook-lang\" }",
    );
    let mut command = env.command(["emit", "pre_tool"]);
    command
        .env("SECRET_TOKEN", "s3cret")
        .env("LANG", "C.UTF-8")
        .env("USER", "tester")
        .env("TERM", "dumb")
        .env("LC_ALL", "C")
        .env_remove("LC_CTYPE");

    let output = run_with_input(command, b"{}", HANG_LIMIT);

    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let path = env
        .command(["x"])
        .get_envs()
        .find(|(k, _)| *k == "PATH")
        .and_then(|(_, v)| v)
        .map(|v| v.to_string_lossy().into_owned())
        .expect("the test sets PATH");
    let dumped = env.read_file("env.txt").expect("the hook ran");
    let dumped = dumped.replace(&format!("PATH={path}\n"), "PATH=[the PATH hookrig got]\n");
    insta::assert_snapshot!(redact(&env, &dumped));
}

#[test]
fn timeout_denies_with_go_duration() {
    let env = test_env();
    let sleep = env.marked_sleep();
    one_hook(
        &env,
        "slow",
        "pre_tool",
        &format!("{} 5\n", quoted(&sleep)),
        "timeout = \"100ms\"",
    );

    let out = pre_tool(&env);

    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "deny");
    assert_eq!(out.outcome["decided_by"], "slow");
    assert_eq!(out.outcome["reason"], "hook slow timed out after 100ms");
    assert_eq!(out.result("slow"), "timeout");
    assert_eq!(out.warnings(), ["hook slow timed out after 100ms"]);
    assert!(env.leftovers().is_empty());
}

#[test]
fn zero_timeout_means_none_and_fractions_parse() {
    let env = test_env();
    let sleep = env.marked_sleep();
    env.write_script(".hygge/nap.sh", &format!("{} 0.3\n", quoted(&sleep)));
    write_layer(
        &env,
        "hygge-project",
        indoc! {r#"
            [hooks.forever]
            events = ["pre_tool"]
            command = ".hygge/nap.sh"
            timeout = "0s"

            [hooks.half]
            events = ["pre_tool"]
            command = ".hygge/nap.sh"
            timeout = "0.05s"
        "#},
    );

    let out = pre_tool(&env);

    assert_eq!(out.result("forever"), "allow");
    assert_eq!(out.result("half"), "timeout");
    assert_eq!(out.outcome["reason"], "hook half timed out after 50ms");
}

#[test]
fn non_zero_exit_denies_with_stderr_or_go_exit_status() {
    let env = test_env();
    env.write_script(
        ".hygge/loud.sh",
        "echo '  rm -rf is not allowed  ' >&2\nexit 1\n",
    );
    env.write_script(".hygge/quiet.sh", "exit 3\n");
    let long = "x".repeat(2000);
    env.write_script(".hygge/long.sh", &format!("echo {long} >&2\nexit 1\n"));
    let hooks = |names: &[&str]| {
        let n = names[0];
        format!("[hooks.{n}]\nevents = [\"pre_tool\"]\ncommand = \".hygge/{n}.sh\"\n")
    };

    write_layer(&env, "hygge-project", &hooks(&["loud"]));
    let out = pre_tool(&env);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["reason"], "rm -rf is not allowed");
    assert_eq!(out.result("loud"), "deny");
    assert_eq!(out.hook("loud")["exit_code"], 1);

    write_layer(&env, "hygge-project", &hooks(&["quiet"]));
    let out = pre_tool(&env);
    assert_eq!(
        out.outcome["reason"],
        "hook quiet exited with error: exit status 3"
    );

    write_layer(&env, "hygge-project", &hooks(&["long"]));
    let out = pre_tool(&env);
    assert_eq!(out.outcome["reason"], "x".repeat(1024));
}

#[test]
fn failure_to_start_denies_with_go_error() {
    let env = test_env();
    write_layer(
        &env,
        "hygge-project",
        indoc! {r#"
            [hooks.gone]
            events = ["pre_tool"]
            command = "no-such-program"

            [hooks.script]
            events = ["pre_tool"]
            command = "./missing.sh"
        "#},
    );

    let out = pre_tool(&env);

    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.result("gone"), "error");
    assert_eq!(
        out.outcome["reason"],
        "hook gone exited with error: exec: \"no-such-program\": executable file not found in $PATH"
    );

    write_layer(
        &env,
        "hygge-project",
        "[hooks.script]\nevents = [\"pre_tool\"]\ncommand = \"./missing.sh\"\n",
    );
    let out = pre_tool(&env);
    assert_eq!(
        out.outcome["reason"],
        format!(
            "hook script exited with error: fork/exec {}: no such file or directory",
            env.project().join("missing.sh").display()
        )
    );
}

#[test]
fn stdout_rules() {
    let env = test_env();
    let cases = [
        ("empty", "printf '\\n  \\n'\n", "allow", None, None),
        (
            "notjson",
            "echo 'ok then'\n",
            "allow",
            None,
            Some("hook notjson: stdout is not one JSON object; treated as allow"),
        ),
        (
            "twoobjects",
            "echo '{} {}'\n",
            "allow",
            None,
            Some("hook twoobjects: stdout is not one JSON object; treated as allow"),
        ),
        (
            "emptydecision",
            "echo '{\"decision\":\"\"}'\n",
            "allow",
            None,
            None,
        ),
        (
            "unknown",
            "echo '{\"decision\":\"maybe\"}'\n",
            "allow",
            None,
            Some("hook unknown: unknown decision `maybe` treated as allow"),
        ),
        (
            "denier",
            "echo '{\"decision\":\"deny\",\"reason\":\"not today\"}'\n",
            "deny",
            Some("not today"),
            None,
        ),
    ];
    for (name, script, decision, reason, warning) in cases {
        one_hook(&env, name, "pre_tool", script, "");
        let out = pre_tool(&env);
        assert_eq!(out.outcome["decision"], decision, "{name}: {}", out.stdout);
        assert_eq!(out.outcome["reason"].as_str(), reason, "{name}");
        let warnings = out.warnings();
        assert_eq!(
            warnings.iter().map(String::as_str).collect::<Vec<_>>(),
            warning.into_iter().collect::<Vec<_>>(),
            "{name}"
        );
    }
}

#[test]
fn modify_tool_input() {
    let env = test_env();
    one_hook(
        &env,
        "rewrite",
        "pre_tool",
        "echo '{\"decision\":\"modify\",\"modified_tool_input\":{\"cmd\":\"ls -la\"}}'\n",
        "",
    );

    let out = pre_tool(&env);

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("rewrite"), "modify");
    assert_eq!(
        out.outcome["payload"]["tool"],
        json!({"name": "bash", "input": {"cmd": "ls -la"}})
    );
}

#[test]
fn modify_message_and_system_prompt_append() {
    let env = test_env();
    env.write_script(
        ".hygge/pre.sh",
        "echo '{\"decision\":\"modify\",\"modified_message\":\"be kind\",\"system_prompt_append\":\"one turn\"}'\n",
    );
    env.write_script(
        ".hygge/ctx.sh",
        "echo '{\"system_prompt_append\":\"also this\"}'\n",
    );
    write_layer(
        &env,
        "hygge-project",
        indoc! {r#"
            [hooks.pre]
            events = ["pre_message"]
            command = ".hygge/pre.sh"

            [hooks.ctx]
            events = ["pre_message"]
            command = ".hygge/ctx.sh"
        "#},
    );

    let out = emit(&env, &["pre_message"], r#"{"prompt": "be rude"}"#);

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["payload"]["prompt"], "be kind");
    assert_eq!(
        out.outcome["system_prompt_append"],
        json!(["one turn", "also this"])
    );
}

#[test]
fn modify_post_message_text() {
    let env = test_env();
    one_hook(
        &env,
        "redact",
        "post_message",
        "echo '{\"decision\":\"modify\",\"modified_message\":\"[redacted]\"}'\n",
        "mode = \"async\"",
    );

    let out = emit(&env, &["post_message"], r#"{"message": "secret"}"#);

    // post_message is notify and async in hookrig as in hygge: the text is not changed
    // for the host, and the hook ran.
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["payload"]["message"], "secret");
    assert_eq!(out.result("redact"), "dispatched");
}

#[test]
fn modify_tool_result_replaces_the_whole_result() {
    let env = test_env();
    one_hook(
        &env,
        "scrub",
        "post_tool",
        "echo '{\"decision\":\"modify\",\"modified_tool_result\":{\"content\":\"scrubbed\"}}'\n",
        "",
    );

    let out = emit(
        &env,
        &["post_tool"],
        r#"{"tool": {"name": "bash", "input": {}, "output": "AKIA...", "is_error": true}}"#,
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.outcome["payload"]["tool"],
        json!({"name": "bash", "input": {}, "output": "scrubbed", "is_error": false})
    );
}

#[test]
fn post_tool_deny_and_failure_are_ignored_with_warnings() {
    let env = test_env();
    env.write_script(
        ".hygge/no.sh",
        "echo '{\"decision\":\"deny\",\"reason\":\"nope\"}'\n",
    );
    env.write_script(".hygge/fail.sh", "echo broken >&2\nexit 1\n");
    write_layer(
        &env,
        "hygge-project",
        indoc! {r#"
            [hooks.no]
            events = ["post_tool"]
            command = ".hygge/no.sh"

            [hooks.fail]
            events = ["post_tool"]
            command = ".hygge/fail.sh"
        "#},
    );

    let out = emit(&env, &["post_tool"], r#"{"tool": {"name": "bash"}}"#);

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow");
    assert_eq!(
        out.warnings(),
        [
            "hook no: deny on post_tool ignored (hygge post hooks cannot deny): nope",
            "hook fail: deny on post_tool ignored (hygge post hooks cannot deny): broken",
        ]
    );
}

#[test]
fn emit_dialect_hygge_reads_hygges_input() {
    let env = test_env();
    one_hook(&env, "dump", "pre_tool", "cat > stdin.json\n", "");
    let input = json!({
        "event": "pre_tool",
        "session_id": "s-9",
        "hook_name": "hookrig",
        "pwd": env.project(),
        "tool_name": "bash",
        "tool_input": {"cmd": "ls"},
    });

    let out = emit(&env, &["--dialect", "hygge"], &input.to_string());

    assert_eq!(out.code, 0, "{}", out.stderr);
    // hygge reads the answer as its Action; the Outcome is in the ledger.
    assert_eq!(out.outcome, json!({"decision": "allow"}));
    let stdin: Value =
        serde_json::from_str(&env.read_file("stdin.json").expect("the hook ran")).expect("JSON");
    assert_eq!(
        stdin,
        json!({"event": "pre_tool", "session_id": "s-9", "hook_name": "dump", "pwd": env.project(), "tool_name": "bash", "tool_input": {"cmd": "ls"}})
    );
}

#[test]
fn native_and_hygge_hooks_on_one_event() {
    let env = test_env();
    write_recorder(&env);
    write_layer(
        &env,
        "hygge-global",
        "[hooks.g]\nevents = [\"pre_tool\"]\ncommand = \"record\"\nargs = [\"hygge-global\"]\n",
    );
    write_layer(
        &env,
        "hygge-project",
        "[hooks.p]\nevents = [\"pre_tool\"]\ncommand = \"record\"\nargs = [\"hygge-project\"]\n",
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "n"
        events = ["tool.before"]
        exec = ["record", "native-project"]
    "#});

    let out = pre_tool(&env);

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        order(&env),
        ["hygge-global", "native-project", "hygge-project"]
    );
    assert_eq!(out.hook("n")["dialect"], "native");
    assert_eq!(out.hook("p")["dialect"], "hygge");
}

#[test]
fn emit_dialect_hygge_puts_a_deny_reason_on_stderr_for_hygge() {
    let env = test_env();
    one_hook(
        &env,
        "guard",
        "pre_tool",
        "echo '{\"decision\":\"deny\",\"reason\":\"no rm -rf\"}'\n",
        "",
    );

    let out = emit(
        &env,
        &["--dialect", "hygge"],
        &json!({"event": "pre_tool", "session_id": "s", "hook_name": "hookrig",
                "pwd": env.project(), "tool_name": "bash", "tool_input": {"cmd": "rm -rf /"}})
        .to_string(),
    );

    // hygge reads a non-zero exit as a deny with the reason on stderr.
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.stderr, "no rm -rf\n");
    assert_eq!(
        out.outcome,
        json!({"decision": "deny", "reason": "no rm -rf"})
    );
}

fn hygge_input(env: &TestEnv, event: &str, extra: &Value) -> String {
    let mut input = json!({"event": event, "session_id": "s", "hook_name": "hookrig",
                           "pwd": env.project()});
    input
        .as_object_mut()
        .expect("object")
        .extend(extra.as_object().expect("object").clone());
    input.to_string()
}

// guards: hookrig as hygge's one hook dropped every modification its hooks made, and
// its Outcome (`system_prompt_append` is a list there) was no Action for hygge
#[test]
fn emit_dialect_hygge_answers_modifications_as_hygges_action() {
    let env = test_env();
    one_hook(
        &env,
        "safer",
        "pre_tool",
        "echo '{\"decision\":\"modify\",\"modified_tool_input\":{\"cmd\":\"ls -l\"}}'\n",
        "",
    );
    let out = emit(
        &env,
        &["--dialect", "hygge"],
        &hygge_input(
            &env,
            "pre_tool",
            &json!({"tool_name": "bash", "tool_input": {"cmd": "ls"}}),
        ),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.outcome,
        json!({"decision": "modify", "modified_tool_input": {"cmd": "ls -l"}})
    );

    one_hook(
        &env,
        "redact",
        "post_tool",
        "echo '{\"decision\":\"modify\",\"modified_tool_result\":{\"content\":\"[redacted]\"}}'\n",
        "",
    );
    let out = emit(
        &env,
        &["--dialect", "hygge"],
        &hygge_input(
            &env,
            "post_tool",
            &json!({"tool_name": "bash", "tool_result": {"content": "secret", "is_error": false}}),
        ),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.outcome,
        json!({"decision": "modify", "modified_tool_result": {"content": "[redacted]", "is_error": false}})
    );
}

#[test]
fn emit_dialect_hygge_answers_the_message_and_system_prompt_text() {
    let env = test_env();
    env.write_script(
        ".hygge/polite.sh",
        "echo '{\"decision\":\"modify\",\"modified_message\":\"please ls\",\"system_prompt_append\":\"be brief\"}'\n",
    );
    env.write_script(
        ".hygge/dated.sh",
        "echo '{\"system_prompt_append\":\"today is Monday\"}'\n",
    );
    write_layer(
        &env,
        "hygge-project",
        indoc! {r#"
            [hooks.polite]
            events = ["pre_message"]
            command = ".hygge/polite.sh"

            [hooks.dated]
            events = ["pre_message"]
            command = ".hygge/dated.sh"
        "#},
    );
    let out = emit(
        &env,
        &["--dialect", "hygge"],
        &hygge_input(&env, "pre_message", &json!({"message": "ls"})),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.outcome,
        json!({"decision": "modify", "modified_message": "please ls",
               "system_prompt_append": "be brief\n\ntoday is Monday"})
    );
}

#[test]
fn emit_dialect_hygge_answers_an_ask_as_a_deny() {
    let env = test_env();
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "confirm"
        events = ["tool.before"]
        command = "echo '{\"decision\":\"ask\",\"reason\":\"really delete?\"}'"
    "#});
    let out = emit(
        &env,
        &["--dialect", "hygge"],
        &hygge_input(
            &env,
            "pre_tool",
            &json!({"tool_name": "bash", "tool_input": {"cmd": "rm x"}}),
        ),
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    let reason = "really delete? (a hook asked for confirmation, which hygge cannot ask for)";
    assert_eq!(out.outcome, json!({"decision": "deny", "reason": reason}));
    assert_eq!(out.stderr, format!("{reason}\n"));
}

// guards: hookrig made hygge's one hook calling itself without end, since hookrig reads
// hygge's files too
#[test]
fn the_hygge_entry_that_calls_hookrig_is_not_run_by_hookrig() {
    let env = test_env();
    let marker = env.project().join("called");
    env.write_bin("hookrig", &format!("touch {}\n", quoted(&marker)));
    let config = env.home().join(".config/hygge/hooks.toml");
    std::fs::create_dir_all(config.parent().expect("parent")).expect("mkdir");
    std::fs::write(
        &config,
        "[hooks.hookrig]\nevents = [\"pre_tool\"]\ncommand = \"hookrig\"\nargs = [\"emit\", \"--dialect\", \"hygge\"]\n",
    )
    .expect("write");
    let out = env.run(["emit", "tool.before", "--no-ledger"], b"{}");
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let outcome: Value = serde_json::from_slice(&out.stdout).expect("outcome");
    assert_eq!(outcome["hooks"], json!([]));
    assert!(!marker.exists(), "the entry calling hookrig was not run");
}

// guards: a host that sends the flat form (`tool_name` / `tool_input`) must not make a
// hygge guard fail open: the hook sees the tool it guards and its deny stands
#[test]
fn a_flat_form_payload_reaches_a_hygge_guard_as_its_tool() {
    let env = test_env();
    one_hook(
        &env,
        "no-rm",
        "pre_tool",
        indoc! {r#"
            input=$(cat)
            case "$input" in
              *'"tool_name":"bash"'*'rm -rf'*) echo '{"decision":"deny","reason":"no rm -rf"}' ;;
              *'"tool_name":""'*|*'"tool_name":null'*) exit 1 ;;
              *) echo '{"decision":"allow"}' ;;
            esac
        "#},
        "",
    );

    let out = emit(
        &env,
        &["tool.before"],
        r#"{"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}"#,
    );

    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["reason"], "no rm -rf");
    assert_eq!(
        out.outcome["payload"]["tool"],
        json!({"name": "bash", "input": {"command": "rm -rf /"}})
    );
}
