//! Dispatch semantics with real hooks: chains, denies, modifies, priorities, layers,
//! concurrency of notify hooks and async hooks.

use std::fmt::Write as _;

use indoc::indoc;
use serde_json::{Value, json};

use crate::harness::{emit, ledger_rows, test_env, why_text};

#[test]
fn deny_short_circuits_and_names_the_denier() {
    let env = test_env();
    env.write_script(".hookrig/first.sh", "touch ran-first\n");
    env.write_script(
        ".hookrig/denier.sh",
        "touch ran-denier\necho 'writes to .env are not allowed' >&2\nexit 2\n",
    );
    env.write_script(".hookrig/later.sh", "touch ran-later\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "first"
        events = ["tool.before"]
        command = "./first.sh"

        [[hooks]]
        name = "denier"
        events = ["tool.before"]
        command = "./denier.sh"

        [[hooks]]
        name = "later"
        events = ["tool.before"]
        command = "./later.sh"
    "#});

    let out = emit(&env, &["tool.before"], r#"{"tool":{"name":"write_file"}}"#);

    assert_eq!(out.code, 2, "a deny exits 2: {}", out.stderr);
    assert_eq!(out.outcome["decision"], "deny");
    assert_eq!(out.outcome["decided_by"], "denier");
    assert_eq!(out.outcome["reason"], "writes to .env are not allowed");
    assert!(env.read_file("ran-first").is_some());
    assert!(env.read_file("ran-denier").is_some());
    assert!(
        env.read_file("ran-later").is_none(),
        "the hook after the denier must not run"
    );
    assert_eq!(
        out.results(),
        [
            ("first".into(), "allow".into()),
            ("denier".into(), "deny".into()),
            ("later".into(), "skipped".into()),
        ]
    );
    let why = why_text(&env, &out.run_id());
    assert!(why.contains("chain stopped by denier"), "{why}");
}

#[test]
fn modifies_accumulate_in_order_and_patch_sections() {
    let env = test_env();
    // Hook one replaces the tool input; hook two sees that, and adds a field.
    env.write_script(
        ".hookrig/one.sh",
        indoc! {r#"
            cat > stdin-one.json
            echo '{"decision":"modify","payload":{"tool":{"input":{"cmd":"ls"}}}}'
        "#},
    );
    env.write_script(
        ".hookrig/two.sh",
        indoc! {r#"
            cat > stdin-two.json
            echo '{"decision":"modify","payload":{"tool":{"input":{"cmd":"ls -la"}},"note":"two was here"}}'
        "#},
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "one"
        events = ["tool.before"]
        command = "./one.sh"

        [[hooks]]
        name = "two"
        events = ["tool.before"]
        command = "./two.sh"
    "#});

    let out = emit(
        &env,
        &["tool.before"],
        r#"{"tool":{"name":"bash","input":{"cmd":"rm -rf /","cwd":"/"}},"extra":1}"#,
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    let first: Value =
        serde_json::from_str(&env.read_file("stdin-one.json").expect("hook one ran"))
            .expect("JSON");
    assert_eq!(
        first["tool"],
        json!({"name": "bash", "input": {"cmd": "rm -rf /", "cwd": "/"}})
    );
    let second: Value =
        serde_json::from_str(&env.read_file("stdin-two.json").expect("hook two ran"))
            .expect("JSON");
    // `{"tool":{"input":...}}` replaced tool.input whole (`cwd` is gone) and kept tool.name.
    assert_eq!(
        second["tool"],
        json!({"name": "bash", "input": {"cmd": "ls"}})
    );
    assert_eq!(second["extra"], 1, "fields the host sent are kept");
    assert_eq!(
        out.outcome["payload"],
        json!({"tool": {"name": "bash", "input": {"cmd": "ls -la"}}, "extra": 1, "note": "two was here"})
    );
    assert_eq!(
        out.results(),
        [
            ("one".into(), "modify".into()),
            ("two".into(), "modify".into())
        ]
    );
}

#[test]
fn hooks_run_by_priority_then_file_order() {
    let env = test_env();
    env.write_script(
        ".hookrig/append.sh",
        "echo \"$HOOKRIG_HOOK\" >> order.txt\n",
    );
    let mut config = String::new();
    for (name, priority) in [("a", None), ("b", Some(10)), ("c", None), ("d", Some(10))] {
        let _ = writeln!(
            config,
            "[[hooks]]\nname = \"{name}\"\nevents = [\"tool.before\"]\ncommand = \"./append.sh\""
        );
        if let Some(priority) = priority {
            let _ = writeln!(config, "priority = {priority}");
        }
        config.push('\n');
    }
    env.write_project_config(&config);

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(env.read_file("order.txt").as_deref(), Some("b\nd\na\nc\n"));
    let names: Vec<String> = out.results().into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        names,
        ["b", "d", "a", "c"],
        "the Outcome lists hooks in run order"
    );
}

#[test]
fn global_hooks_run_before_project_hooks() {
    let env = test_env();
    env.write_bin("append-name", "echo \"$HOOKRIG_HOOK\" >> order.txt\n");
    let global = env.write_global_config(indoc! {r#"
        [[hooks]]
        name = "global-hook"
        events = ["tool.before"]
        command = "append-name"
    "#});
    let project = env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "project-one"
        events = ["tool.before"]
        command = "append-name"

        [[hooks]]
        name = "project-two"
        events = ["tool.before"]
        command = "append-name"
    "#});

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        env.read_file("order.txt").as_deref(),
        Some("global-hook\nproject-one\nproject-two\n")
    );
    assert_eq!(
        out.hook("global-hook")["source"],
        global.to_str().expect("UTF-8")
    );
    assert_eq!(
        out.hook("project-one")["source"],
        project.to_str().expect("UTF-8")
    );
}

/// Reads a nanosecond timestamp a hook wrote.
fn stamp(env: &hookrig_test_support::TestEnv, file: &str) -> u128 {
    env.read_file(file)
        .unwrap_or_else(|| panic!("{file} was not written"))
        .trim()
        .parse()
        .unwrap_or_else(|err| panic!("{file} holds no timestamp: {err}"))
}

#[test]
fn notify_hooks_run_concurrently() {
    let env = test_env();
    env.write_script(
        ".hookrig/observe.sh",
        indoc! {r#"
            date +%s%N > "start-$HOOKRIG_HOOK"
            sleep 0.3
            date +%s%N > "end-$HOOKRIG_HOOK"
        "#},
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "a"
        events = ["session.start"]
        command = "./observe.sh"

        [[hooks]]
        name = "b"
        events = ["SessionStart"]
        command = "./observe.sh"
    "#});

    let out = emit(&env, &["session.start"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    let (start_a, end_a) = (stamp(&env, "start-a"), stamp(&env, "end-a"));
    let (start_b, end_b) = (stamp(&env, "start-b"), stamp(&env, "end-b"));
    // Run one after the other, the second would start after the first ended.
    assert!(
        start_a < end_b && start_b < end_a,
        "the hooks' intervals do not overlap: a {start_a}..{end_a}, b {start_b}..{end_b}"
    );
}

#[test]
fn async_hook_is_dispatched_runs_and_is_recorded() {
    let env = test_env();
    env.write_script(
        ".hookrig/observer.sh",
        indoc! {"
            sleep 0.2
            cat > observed.json
            echo 'observer says hi' >&2
        "},
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "observer"
        events = ["message.after"]
        command = "./observer.sh"
        mode = "async"
    "#});

    let out = emit(&env, &["message.after"], r#"{"message":"hello"}"#);

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("observer"), "dispatched");
    // The async keeper runs the hook once the emit has answered, and completes its row.
    let why = crate::harness::why_when_async_done(&env, &out.run_id());
    let observed: Value = serde_json::from_str(
        &env.read_file("observed.json")
            .expect("the async hook ran before its row was completed"),
    )
    .expect("JSON");
    assert_eq!(observed["message"], "hello");

    let rows = ledger_rows(&why, "observer");
    let finished = rows
        .iter()
        .find(|row| row["result"] != "dispatched")
        .unwrap_or_else(|| panic!("no appended row for the async run: {why:#}"));
    assert_eq!(finished["result"], "allow");
    assert_eq!(finished["is_async"], true);
    assert_eq!(finished["exit_code"], 0);
    assert_eq!(finished["stderr"], "observer says hi\n");
    let ms = finished["duration_ms"].as_f64().expect("a duration");
    assert!(ms >= 200.0, "the hook slept 0.2 s, recorded {ms} ms");
}

#[test]
fn async_hooks_past_the_cap_of_32_are_dropped_with_warnings() {
    let env = test_env();
    env.write_script(".hookrig/slow.sh", "touch \"ran-$HOOKRIG_HOOK\"\nsleep 1\n");
    let mut config = String::new();
    for index in 0..40 {
        let _ = write!(
            config,
            "[[hooks]]\nname = \"h{index:02}\"\nevents = [\"message.after\"]\ncommand = \"./slow.sh\"\nmode = \"async\"\n\n"
        );
    }
    env.write_project_config(&config);

    let out = emit(&env, &["message.after"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    let dispatched: Vec<String> = out
        .results()
        .into_iter()
        .filter(|(_, result)| result == "dispatched")
        .map(|(name, _)| name)
        .collect();
    let dropped: Vec<String> = out
        .results()
        .into_iter()
        .filter(|(_, result)| result == "skipped")
        .map(|(name, _)| name)
        .collect();
    assert_eq!(dispatched.len(), 32, "{:#}", out.outcome);
    assert_eq!(
        dropped,
        ["h32", "h33", "h34", "h35", "h36", "h37", "h38", "h39"]
    );
    let warnings: Vec<String> = out
        .warnings()
        .into_iter()
        .filter(|w| w.contains("dropped: too many async hooks in flight"))
        .collect();
    assert_eq!(warnings.len(), 8, "{warnings:?}");
    assert!(warnings[0].contains("h32"), "{warnings:?}");
    crate::harness::why_when_async_done(&env, &out.run_id());
    for index in 0..40 {
        let ran = env.read_file(format!("ran-h{index:02}")).is_some();
        assert_eq!(ran, index < 32, "hook h{index:02} ran: {ran}");
    }
    assert!(env.leftovers().is_empty(), "async hooks were left running");
}

#[test]
fn async_mode_on_a_decision_event_is_a_config_error() {
    let env = test_env();
    env.write_script(".hookrig/never.sh", "touch ran-never\n");
    let path = env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "never"
        events = ["tool.before"]
        command = "./never.sh"
        mode = "async"
    "#});

    let out = emit(&env, &["tool.before"], "{}");

    // The file is skipped, with the error among the Outcome's warnings.
    assert_eq!(out.code, 0, "{}", out.stderr);
    let expected = format!(
        "{}:5:8: hook `never`: mode = \"async\" is not allowed on decision event tool.before",
        path.display()
    );
    assert!(out.has_warning(&expected), "{}", out.stdout);
    assert!(env.read_file("ran-never").is_none());
}

#[test]
fn modify_from_an_async_hook_is_ignored() {
    let env = test_env();
    env.write_script(
        ".hookrig/rewriter.sh",
        "echo '{\"decision\":\"modify\",\"payload\":{\"message\":\"rewritten\"}}'\n",
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "rewriter"
        events = ["message.after"]
        command = "./rewriter.sh"
        mode = "async"
    "#});

    let out = emit(&env, &["message.after"], r#"{"message":"original"}"#);

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["payload"], json!({"message": "original"}));
    let why = crate::harness::why_when_async_done(&env, &out.run_id());
    let finished = ledger_rows(&why, "rewriter")
        .into_iter()
        .find(|row| row["result"] != "dispatched")
        .unwrap_or_else(|| panic!("no appended row for the async run: {why:#}"));
    assert_eq!(finished["result"], "modify");
    let reason = finished["reason"].as_str().expect("a reason");
    assert!(
        reason.contains("async hook rewriter: `modify` ignored"),
        "{reason}"
    );
    assert_eq!(why["payload_out"], r#"{"message":"original"}"#);
}

// guards: the ledger reason of a failed async hook repeating its failure message.
#[test]
fn async_failure_reason_is_recorded_once() {
    let env = test_env();
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "crashy"
        events = ["message.after"]
        exec = ["sh", "-c", "exit 3"]
        mode = "async"
    "#});

    let out = emit(&env, &["message.after"], "{}");

    let why = crate::harness::why_when_async_done(&env, &out.run_id());
    let finished = ledger_rows(&why, "crashy")
        .into_iter()
        .find(|row| row["result"] != "dispatched")
        .unwrap_or_else(|| panic!("no appended row for the async run: {why:#}"));
    assert_eq!(finished["reason"], "hook crashy exited 3");
}

// guards: `emit tool.before@v2` (a version nobody declared) must not become a custom
// notify event that skips the tool.before guard and exits 0
#[test]
fn an_undeclared_version_of_a_catalog_event_is_refused() {
    let env = test_env();
    env.write_script(".hookrig/guard.sh", "echo 'no writes today' >&2\nexit 2\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "guard"
        events = ["tool.before"]
        command = "./guard.sh"
    "#});

    let out = emit(
        &env,
        &["tool.before@v2"],
        r#"{"tool":{"name":"write_file"}}"#,
    );

    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        out.stderr
            .contains("tool.before has no version v2 (dispatched versions: v1)"),
        "{}",
        out.stderr
    );
    // The declared version and the plain name still reach the guard.
    for name in ["tool.before@v1", "PreToolUse@v1"] {
        let out = emit(&env, &[name], r#"{"tool":{"name":"write_file"}}"#);
        assert_eq!(out.code, 2, "{name}: {}", out.stderr);
        assert_eq!(out.outcome["decided_by"], "guard");
    }
}
