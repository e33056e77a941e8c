//! Async hooks of a one-shot `hookrig emit` (no resident engine): the emit hands them to
//! a detached keeper and exits once the host has its answer; the keeper runs each to its
//! own timeout and completes its ledger row (docs/engine.md, "Async hooks").

use std::io::Read as _;
use std::process::Stdio;
use std::sync::mpsc;

use hookrig_test_support::TestEnv;
use indoc::{formatdoc, indoc};
use serde_json::Value;

use crate::harness::{
    code, emit, emitted, ledger_rows, quoted, test_env, text, why_json, why_when_async_done,
};
use crate::serve::wait_for;

/// The one row of the hook `name` in a `why --json` answer.
fn row<'a>(why: &'a Value, name: &str) -> &'a Value {
    let rows = ledger_rows(why, name);
    assert_eq!(rows.len(), 1, "{why:#}");
    rows[0]
}

/// A native hook `name` on `message.after`, async, running `script` with `timeout`.
fn async_hook(env: &TestEnv, name: &str, script: &str, timeout: &str) {
    env.write_script(format!(".hookrig/{name}.sh"), script);
    env.write_project_config(&formatdoc! {r#"
        [[hooks]]
        name = "{name}"
        events = ["message.after"]
        command = "./{name}.sh"
        mode = "async"
        timeout = "{timeout}"
    "#});
}

// guards: async hooks killed about 2 s after a one-shot emit answered
#[test]
fn an_async_hook_runs_to_its_end_after_the_emit_exited() {
    let env = test_env();
    let marker = env.project().join("finished");
    async_hook(
        &env,
        "slow",
        &format!("sleep 4\necho done > {}\nexit 7\n", quoted(&marker)),
        "30s",
    );

    // `emit` runs with `HOOKRIG_ENGINE=off` (the test environment's), reads the emit's
    // stdout and stderr to their end and waits for it to exit.
    let out = emit(&env, &["message.after"], "{}");

    assert!(
        !marker.exists(),
        "the emit returned only once the 4 s hook had ended"
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("slow"), "dispatched");
    let why = why_when_async_done(&env, &out.run_id());
    assert!(marker.exists(), "the hook ran to its end: {why:#}");
    let slow = row(&why, "slow");
    assert_eq!(slow["result"], "error", "{slow}");
    assert_eq!(slow["exit_code"], 7, "{slow}");
    assert_eq!(slow["is_async"], true, "{slow}");
    assert_eq!(slow["reason"], "hook slow exited 7", "{slow}");
    assert!(env.leftovers().is_empty());
}

#[test]
fn an_async_hook_past_its_own_timeout_is_killed_with_its_whole_tree() {
    let env = test_env();
    let sleep = quoted(&env.marked_sleep());
    let started = env.project().join("started");
    async_hook(
        &env,
        "stuck",
        &format!(
            "{sleep} 60 &\nsh -c '{sleep} 60' &\ntouch {}\n{sleep} 60\n",
            quoted(&started)
        ),
        "1s",
    );

    let out = emit(&env, &["message.after"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    let why = why_when_async_done(&env, &out.run_id());
    assert!(started.exists(), "the hook started");
    let stuck = row(&why, "stuck");
    assert_eq!(stuck["result"], "timeout", "{stuck}");
    assert_eq!(stuck["exit_code"], Value::Null, "{stuck}");
    let left = env.leftovers();
    assert!(left.is_empty(), "the hook's children survived: {left:?}");
}

#[test]
fn the_host_reads_to_end_of_file_while_an_async_hook_still_runs() {
    let env = test_env();
    let sleep = quoted(&env.marked_sleep());
    let started = env.project().join("started");
    async_hook(
        &env,
        "long",
        &format!("touch {}\n{sleep} 60\n", quoted(&started)),
        "2m",
    );
    let mut command = env.command(["emit", "message.after"]);
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("start hookrig emit");
    let (mut stdout, mut stderr) = (
        child.stdout.take().expect("piped"),
        child.stderr.take().expect("piped"),
    );
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let _ = stdout.read_to_end(&mut out);
        let _ = stderr.read_to_end(&mut err);
        let _ = sender.send((out, err));
    });

    // Only a guard against a hang: end of file comes when the emit exits.
    let (out, err) = receiver
        .recv_timeout(hookrig_test_support::HANG_LIMIT)
        .expect("the host never saw the end of the emit's output");
    let status = child.wait().expect("the emit exits");

    assert!(status.success(), "{}", text(&err));
    let run_id = serde_json::from_slice::<Value>(&out).expect("the Outcome")["run_id"]
        .as_str()
        .expect("a run id")
        .to_owned();
    wait_for("the async hook to start", || started.exists().then_some(()));
    let running = why_json(&env, &run_id);
    let long = row(&running, "long");
    assert_eq!(long["result"], "dispatched", "{long}");
    assert!(
        !hookrig_test_support::processes_with(env.marker()).is_empty(),
        "the async hook still runs after the host read to end of file"
    );
}

#[test]
fn an_async_keeper_killed_takes_its_hooks_with_it_and_leaves_its_pid_in_the_rows() {
    let env = test_env();
    let sleep = quoted(&env.marked_sleep());
    async_hook(&env, "long", &format!("{sleep} 60 &\n{sleep} 60\n"), "2m");

    let out = emit(&env, &["message.after"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    let keeper: i32 = wait_for("the keeper to take the hook over", || {
        let why = why_json(&env, &out.run_id());
        let reason = row(&why, "long")["reason"].as_str()?.to_owned();
        reason
            .strip_prefix("running in the async keeper, pid ")
            .and_then(|pid| pid.parse().ok())
    });
    wait_for("the hook's processes", || {
        (hookrig_test_support::processes_with(env.marker()).len() >= 2).then_some(())
    });
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(keeper),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("the keeper runs");

    let left = env.leftovers();
    assert!(left.is_empty(), "the keeper's guardian left {left:?}");
    let why = why_json(&env, &out.run_id());
    let long = row(&why, "long");
    assert_eq!(long["result"], "dispatched", "{long}");
    assert_eq!(
        long["reason"],
        format!("running in the async keeper, pid {keeper}"),
        "{long}"
    );
}

#[test]
fn an_async_hooks_stdout_flood_is_capped_in_the_keeper() {
    let env = test_env();
    async_hook(
        &env,
        "flood",
        "head -c 3000000 /dev/zero | tr '\\0' 'a'\n",
        "30s",
    );

    let out = emit(&env, &["message.after"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    let why = why_when_async_done(&env, &out.run_id());
    let flood = row(&why, "flood");
    assert_eq!(flood["truncated"], true, "{flood}");
    assert_eq!(flood["result"], "error", "{flood}");
    assert_eq!(
        flood["reason"], "hook flood: reply is larger than the 1 MiB stdout cap",
        "{flood}"
    );
    assert_eq!(flood["stdout"].as_str().map(str::len), Some(4096));
}

#[test]
fn auto_mode_without_an_engine_hands_async_hooks_to_the_keeper() {
    let env = test_env();
    let marker = env.project().join("finished");
    async_hook(
        &env,
        "slow",
        &format!("sleep 4\necho done > {}\n", quoted(&marker)),
        "30s",
    );
    let mut command = env.command(["emit", "message.after"]);
    command
        .env("HOOKRIG_ENGINE", "auto")
        .env("HOOKRIG_ENGINE_IDLE", "1s");

    let output =
        hookrig_test_support::run_with_input(command, b"{}", hookrig_test_support::HANG_LIMIT);

    assert!(!marker.exists(), "the emit returned before the hook ended");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let out = emitted(&output);
    assert_eq!(out.result("slow"), "dispatched");
    let why = why_when_async_done(&env, &out.run_id());
    assert!(marker.exists(), "the hook ran to its end: {why:#}");
    assert_eq!(row(&why, "slow")["result"], "allow");
    // The engine auto started for the next emits goes away after its idle second.
    let stopped = env.run(["engine", "stop"], b"");
    assert!(matches!(code(&stopped), 0 | 3), "{}", text(&stopped.stderr));
}

#[test]
fn a_bash_async_claude_hook_goes_to_the_keeper_too() {
    let env = test_env();
    let marker = env.project().join("finished");
    let script = env.write_script(
        "bin/notify.sh",
        &format!(
            "cat > /dev/null\nsleep 3\necho done > {}\n",
            quoted(&marker)
        ),
    );
    env.write_file(
        ".claude/settings.json",
        &serde_json::json!({"hooks": {"Notification": [{"hooks": [
            {"type": "command", "command": quoted(&script), "async": true}]}]}})
        .to_string(),
    );
    let input = indoc! {r#"
        {"session_id": "s1", "hook_event_name": "Notification", "message": "hi",
         "notification_type": "idle_prompt", "transcript_path": "/dev/null", "cwd": "CWD"}
    "#}
    .replace("CWD", &env.project().display().to_string());
    let mut command = env.command(["emit", "--dialect", "claude"]);
    command.env("HOOKRIG_ENGINE", "off");

    let output = hookrig_test_support::run_with_input(
        command,
        input.as_bytes(),
        hookrig_test_support::HANG_LIMIT,
    );

    assert!(!marker.exists(), "the emit returned before the hook ended");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    wait_for("the Claude hook to run to its end", || {
        marker.exists().then_some(())
    });
}

#[test]
fn an_async_http_hook_goes_to_the_keeper_and_gets_its_slow_answer() {
    // An HTTP hook is one request with its timeout: the keeper makes it as an emit would,
    // and waits for an answer that comes after the 2 s an emit used to wait.
    let env = test_env();
    let stub = hookrig_test_support::HttpStub::replying(
        hookrig_test_support::Reply::new(200, "").after(std::time::Duration::from_secs(3)),
    );
    env.write_project_config(&formatdoc! {r#"
        [[hooks]]
        name = "audit"
        events = ["message.after"]
        url = "{url}/audit"
        mode = "async"
        timeout = "30s"
    "#, url = stub.url()});

    let out = emit(&env, &["message.after"], r#"{"message":"hi"}"#);

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("audit"), "dispatched");
    let why = why_when_async_done(&env, &out.run_id());
    let audit = row(&why, "audit");
    assert_eq!(audit["result"], "allow", "{audit}");
    let requests = stub.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].json()["message"], "hi");
}
