//! Process supervision end to end: timeouts that kill whole groups, hooks that ignore
//! SIGTERM, runaway output, and hookrig itself being terminated.

use std::io::{Read as _, Write as _};
use std::process::Stdio;
use std::thread;
use std::time::{Duration, Instant};

use hookrig_test_support::{TestEnv, wait_for_file};
use indoc::{formatdoc, indoc};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

use crate::harness::{emit, ledger_rows, quoted, test_env, why_json};

#[test]
fn timeout_kills_the_hook_and_its_background_grandchild() {
    let env = test_env();
    let sleep = quoted(&env.marked_sleep());
    env.write_script(
        ".hookrig/slow.sh",
        &formatdoc! {"
            {sleep} 30 &
            touch started
            {sleep} 30
        "},
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "slow"
        events = ["tool.before"]
        command = "./slow.sh"
        timeout = "300ms"
    "#});

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "on_error defaults to allow: {}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow");
    assert_eq!(out.result("slow"), "timeout");
    assert!(
        out.warnings()
            .contains(&"hook slow timed out after 300ms".to_owned()),
        "{:?}",
        out.warnings()
    );
    assert!(env.read_file("started").is_some(), "the hook did start");
    let left = env.leftovers();
    assert!(left.is_empty(), "processes of the hook survived: {left:?}");
}

// guards: an emit where no hook runs starts no process at all (the guardian comes with
// a hook that outlives its grace), and one that runs a slow hook starts its guardian
// once and stops it
#[test]
fn the_guardian_starts_with_a_hook_that_outlives_its_grace_only() {
    let env = test_env();
    let sleep = quoted(&env.marked_sleep());
    env.write_project_config(&formatdoc! {r#"
        [[hooks]]
        name = "slow"
        events = ["tool.before"]
        command = "{sleep} 1; {sleep} 1"
    "#});
    let started = "started the guardian of hook processes";

    let none = emit(&env, &["--debug", "session.start"], "{}");
    assert_eq!(none.code, 0, "{}", none.stderr);
    assert!(!none.stderr.contains(started), "{}", none.stderr);

    let one = emit(&env, &["--debug", "tool.before"], "{}");
    assert_eq!(one.result("slow"), "allow", "{}", one.stderr);
    assert_eq!(one.stderr.matches(started).count(), 1, "{}", one.stderr);
    assert!(env.leftovers().is_empty());
}

// guards: the guardian's grace is each hook's own age, not the time since the first
// spawn: quick hooks in a row that outlast the grace together start no guardian
#[test]
fn quick_hooks_in_a_row_start_no_guardian() {
    let env = test_env();
    let sleep = quoted(&env.marked_sleep());
    let hooks: String = (1..=8)
        .map(|i| {
            formatdoc! {r#"
                [[hooks]]
                name = "quick-{i}"
                events = ["tool.before"]
                command = "{sleep} 0.005"

            "#}
        })
        .collect();
    env.write_project_config(&hooks);

    let out = emit(&env, &["--debug", "tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    let durations: Vec<f64> = (1..=8)
        .map(|i| {
            out.hook(&format!("quick-{i}"))["duration_ms"]
                .as_f64()
                .expect("a duration")
        })
        .collect();
    let grace_ms = hookrig_exec::guardian::GRACE.as_secs_f64() * 1000.0;
    assert!(
        durations.iter().sum::<f64>() > 2.0 * grace_ms,
        "the hooks together outlast the grace: {durations:?}"
    );
    // A hook that a loaded machine slowed past the grace rightly starts it.
    if durations.iter().all(|&ms| ms < grace_ms) {
        assert!(
            !out.stderr
                .contains("started the guardian of hook processes"),
            "no hook lived {grace_ms} ms ({durations:?}): {}",
            out.stderr
        );
    }
    assert!(env.leftovers().is_empty());
}

/// A config with one hook `stubborn` (`hook_line` says how it runs) whose script ignores
/// SIGTERM, a 300 ms timeout and a 300 ms kill grace.
fn stubborn_hook(env: &TestEnv, hook_line: &str) {
    let sleep = quoted(&env.marked_sleep());
    env.write_script(
        ".hookrig/stubborn.sh",
        &formatdoc! {"
            trap '' TERM
            {sleep} 30
        "},
    );
    env.write_project_config(&formatdoc! {r#"
        [settings]
        kill_grace = "300ms"

        [[hooks]]
        name = "stubborn"
        events = ["tool.before"]
        {hook_line}
        timeout = "300ms"
    "#});
}

#[test]
fn a_hook_that_ignores_sigterm_is_killed() {
    let env = test_env();
    stubborn_hook(&env, r#"command = "./stubborn.sh""#);

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("stubborn"), "timeout");
    assert!(out.has_warning("hook stubborn timed out after 300ms"));
    let left = env.leftovers();
    assert!(left.is_empty(), "processes of the hook survived: {left:?}");
}

#[test]
fn a_hook_that_ignores_sigterm_gets_sigkill_after_the_grace_period() {
    let env = test_env();
    // Exec form: the script itself is the hook's main process, so it is the one that
    // ignores SIGTERM and the grace period has to run out before SIGKILL ends it.
    stubborn_hook(&env, r#"exec = ["./stubborn.sh"]"#);

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("stubborn"), "timeout");
    assert!(out.has_warning("hook stubborn timed out after 300ms"));
    let ms = out.hook("stubborn")["duration_ms"]
        .as_f64()
        .expect("a duration");
    assert!(
        ms >= 550.0,
        "timeout + grace is 600 ms, the hook ran {ms} ms"
    );
    let left = env.leftovers();
    assert!(left.is_empty(), "processes of the hook survived: {left:?}");
}

// guards: the kill grace of shell-form hooks (`sh -c` forks the script, and dies of the
// SIGTERM before the script's own trap has run).
#[test]
fn a_shell_form_hook_gets_the_grace_period_to_clean_up() {
    let env = test_env();
    let sleep = quoted(&env.marked_sleep());
    env.write_script(
        ".hookrig/tidy.sh",
        &formatdoc! {"
            trap '{sleep} 0.3; touch cleaned-up; exit 0' TERM
            touch started
            {sleep} 30
        "},
    );
    env.write_project_config(indoc! {r#"
        [settings]
        kill_grace = "5s"

        [[hooks]]
        name = "tidy"
        events = ["tool.before"]
        command = "./tidy.sh"
        timeout = "300ms"
    "#});

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.result("tidy"), "timeout");
    assert!(env.read_file("started").is_some(), "the hook did start");
    assert!(
        env.read_file("cleaned-up").is_some(),
        "the hook's SIGTERM trap was cut short by SIGKILL well within the 5 s grace"
    );
    assert!(env.leftovers().is_empty());
}

#[test]
fn a_hook_printing_200_mb_is_capped_and_the_emit_still_answers() {
    let env = test_env();
    env.write_script(".hookrig/flood.sh", "head -c 200000000 /dev/zero\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "flood"
        events = ["tool.before"]
        command = "./flood.sh"
    "#});

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("flood"), "error");
    assert!(
        out.has_warning("hook flood: reply is larger than the 1 MiB stdout cap"),
        "{:?}",
        out.warnings()
    );
    assert!(out.stdout.len() < 64 * 1024, "the Outcome carries no flood");
    let why = why_json(&env, &out.run_id());
    let rows = ledger_rows(&why, "flood");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["truncated"], true);
    assert_eq!(rows[0]["exit_code"], 0);
}

// guards: a reply over the 1 MiB cap that starts with whitespace is a failure under
// on_error (here a deny), not an empty reply that allows
#[test]
fn a_reply_over_the_cap_that_starts_with_whitespace_goes_through_on_error() {
    let env = test_env();
    env.write_script(
        ".hookrig/spaces.sh",
        "head -c 2097152 /dev/zero | tr '\\0' ' '; echo '{\"decision\":\"deny\"}'\n",
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "spaces"
        events = ["tool.before"]
        command = "./spaces.sh"
        on_error = "deny"
    "#});

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 2, "{}", out.stdout);
    assert_eq!(out.outcome["decision"], "deny");
    assert_eq!(out.result("spaces"), "error");
    assert_eq!(
        out.outcome["reason"],
        "hook spaces: reply is larger than the 1 MiB stdout cap"
    );
}

// guards: a Claude Code hook (project or user settings) whose reply is over the 1 MiB cap
// and starts with whitespace, hiding a deny after it, is a failed hook, not an empty
// reply that allows
#[test]
fn a_claude_reply_over_the_cap_that_starts_with_whitespace_is_a_failure() {
    let env = test_env();
    let deny = serde_json::json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "hidden after the spaces",
    }});
    let body = format!("head -c 2097152 /dev/zero | tr '\\0' ' '; echo '{deny}'\n");
    env.write_script(".claude/spaces.sh", &body);
    let user_script = env.home().join(".claude/spaces.sh");
    hookrig_test_support::write_executable(&user_script, &body);
    let settings = |command: &str| {
        serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "", "hooks": [
            {"type": "command", "command": command}
        ]}]}})
        .to_string()
    };
    env.write_file(
        ".claude/settings.json",
        &settings("\"$CLAUDE_PROJECT_DIR\"/.claude/spaces.sh"),
    );
    let user = env.home().join(".claude/settings.json");
    std::fs::write(&user, settings(&quoted(&user_script))).expect("write the user settings");

    let out = emit(&env, &["tool.before"], r#"{"tool":{"name":"Bash"}}"#);

    for name in ["claude:user:PreToolUse:1", "claude:project:PreToolUse:1"] {
        assert_eq!(out.hook(name)["dialect"], "claude");
        assert_eq!(out.result(name), "error", "{name}: {:#}", out.outcome);
        assert!(
            out.has_warning(&format!(
                "hook {name}: reply is larger than the 1 MiB stdout cap"
            )),
            "{name}: {:?}",
            out.warnings()
        );
    }
    // A failed Claude Code hook does not block (its on_error is allow), and the deny
    // past the cap was never read.
    assert_eq!(out.outcome["decision"], "allow", "{:#}", out.outcome);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn a_background_grandchild_holding_the_output_open_is_killed() {
    let env = test_env();
    let sleep = quoted(&env.marked_sleep());
    env.write_script(
        ".hookrig/leaky.sh",
        &formatdoc! {"
            {sleep} 30 &
            echo '{{}}'
        "},
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "leaky"
        events = ["tool.before"]
        command = "./leaky.sh"
    "#});

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("leaky"), "allow");
    assert!(
        out.has_warning(
            "hook leaky left background processes holding its output open; they were killed"
        ),
        "{:?}",
        out.warnings()
    );
    let left = env.leftovers();
    assert!(left.is_empty(), "the grandchild survived: {left:?}");
}

// guards: grandchildren that leave the process group (setsid, a double fork through
// setsid) or stay in it without holding the output (no time limit) must not outlive the
// hook, and the Outcome says they were killed only when they are gone
#[test]
fn escaping_grandchildren_die_with_the_hook() {
    let env = test_env();
    let sleep = quoted(&env.marked_sleep());
    let hooks = [
        ("setsid", format!("setsid {sleep} 1000 & exit 0")),
        (
            "double-fork",
            format!("(setsid sh -c '{sleep} 1000 & exit 0' &); exit 0"),
        ),
        (
            "background",
            format!("{sleep} 1000 >/dev/null 2>&1 & exit 0"),
        ),
    ];
    let mut config = "[settings]\ntimeout = \"0s\"\n".to_owned();
    for (name, line) in &hooks {
        env.write_script(format!(".hookrig/{name}.sh"), &format!("{line}\n"));
        config.push_str(&formatdoc! {r#"
            [[hooks]]
            name = "{name}"
            events = ["tool.before"]
            command = "./{name}.sh"
        "#});
    }
    env.write_project_config(&config);

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    let left = env.leftovers();
    assert!(left.is_empty(), "grandchildren survived: {left:?}");
    for (name, _) in &hooks {
        assert_eq!(out.result(name), "allow");
        assert!(
            out.warnings()
                .iter()
                .any(|w| w.starts_with(&format!("hook {name} left"))
                    && w.ends_with("they were killed")),
            "{name}: {:?}",
            out.warnings()
        );
    }
}

/// Signals hookrig while its hook sleeps; checks the exit code, that hookrig still
/// answered, and that no process of the hook's group is left. Returns the test's world
/// and the Outcome hookrig answered.
fn signal_hookrig_while_a_hook_runs(signal: Signal, expected_code: i32) -> (TestEnv, Value) {
    let env = test_env();
    let sleep = quoted(&env.marked_sleep());
    env.write_script(
        ".hookrig/sleeper.sh",
        &formatdoc! {"
            {sleep} 30 &
            touch started
            {sleep} 30
        "},
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "sleeper"
        events = ["tool.before"]
        command = "./sleeper.sh"
    "#});

    let mut child = env
        .command(["emit", "tool.before"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hookrig");
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin.write_all(b"{}").expect("write the payload");
    drop(stdin);
    let started = env.project().join("started");
    if !wait_for_file(&started, Duration::from_secs(20)) {
        let _ = child.kill();
        panic!("the hook never started");
    }

    let pid = Pid::from_raw(i32::try_from(child.id()).expect("pids fit in i32"));
    kill(pid, signal).expect("signal hookrig");

    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for hookrig") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("hookrig did not exit after {signal}");
        }
        thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(expected_code), "{status:?}");
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_string(&mut stdout)
        .expect("read stdout");
    let outcome: Value = serde_json::from_str(&stdout).expect("hookrig still answers");
    assert_eq!(outcome["hooks"][0]["result"], "error");
    assert_eq!(
        outcome["warnings"][0],
        "hook sleeper was killed before it finished: hookrig was interrupted or stopped waiting for it"
    );
    let left = env.leftovers();
    assert!(left.is_empty(), "processes of the hook survived: {left:?}");
    (env, outcome)
}

#[test]
fn sigterm_to_hookrig_kills_running_hooks_and_exits_143() {
    signal_hookrig_while_a_hook_runs(Signal::SIGTERM, 143);
}

#[test]
fn sigint_to_hookrig_kills_running_hooks_and_exits_130() {
    signal_hookrig_while_a_hook_runs(Signal::SIGINT, 130);
}

// guards: SIGHUP (a closed terminal, a host hanging up) is handled like SIGTERM: the
// hooks are killed and the run is answered and recorded, instead of hookrig dying with
// its hooks left running
#[test]
fn sighup_to_hookrig_kills_running_hooks_and_exits_129() {
    signal_hookrig_while_a_hook_runs(Signal::SIGHUP, 129);
}

// guards: an emit hung up on (SIGHUP) while its hook runs still leaves its ledger row,
// completed with the hook it killed, instead of no row at all
#[test]
fn sighup_to_hookrig_records_the_emit_and_its_hook_in_the_ledger() {
    let (env, outcome) = signal_hookrig_while_a_hook_runs(Signal::SIGHUP, 129);
    let run_id = outcome["run_id"].as_str().expect("a run id");

    let output = env.run(["runs", "--json"], b"");
    assert_eq!(crate::harness::code(&output), 0);
    let runs: Value = serde_json::from_slice(&output.stdout).expect("runs --json");
    let run = runs
        .as_array()
        .expect("an array")
        .iter()
        .find(|run| run["run_id"] == run_id)
        .unwrap_or_else(|| panic!("no row for {run_id}: {runs:#}"));
    // Completed with what the host was told, not left `running`.
    assert_eq!(run["event"], "tool.before", "{run:#}");
    assert_eq!(run["decision"], outcome["decision"], "{run:#}");
    assert_eq!(run["hooks_run"], 1, "{run:#}");

    let why = why_json(&env, run_id);
    let rows = ledger_rows(&why, "sleeper");
    assert_eq!(rows.len(), 1, "{why:#}");
    assert_eq!(rows[0]["matched"], true, "{why:#}");
    assert_eq!(rows[0]["result"], "error", "{why:#}");
    assert_eq!(
        rows[0]["reason"],
        "hook sleeper was killed before it finished: hookrig was interrupted or stopped waiting for it",
        "{why:#}"
    );
}

// guards: a SIGKILLed emit (which cannot clean up) leaves a row that reads
// `interrupted`, and its hook does not outlive it (the guardian)
#[test]
fn sigkill_to_hookrig_leaves_an_interrupted_row_and_no_hook() {
    let env = test_env();
    let sleep = quoted(&env.marked_sleep());
    // The hook's own process gets the parent-death signal; what it started (here the
    // script `sh -c` forks, a background sleep and a setsid one) is killed by the
    // guardian.
    env.write_script(
        ".hookrig/sleeper.sh",
        &formatdoc! {"
            {sleep} 300 &
            setsid {sleep} 300 >/dev/null 2>&1 &
            touch started
            {sleep} 300
        "},
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "sleeper"
        events = ["tool.before"]
        command = "./sleeper.sh"
        timeout = "0s"
    "#});

    let mut child = env
        .command(["--debug", "emit", "tool.before"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hookrig");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(b"{}")
        .expect("write the payload");
    // A one-shot emit starts its guardian once a hook has outlived the guardian's
    // grace: hookrig is killed after that, as a host's timeout would.
    let stderr = child.stderr.take().expect("piped stderr");
    let (guardian, started_guardian) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stderr));
        if lines
            .by_ref()
            .map_while(Result::ok)
            .any(|line| line.contains("started the guardian of hook processes"))
        {
            let _ = guardian.send(());
        }
        // Read on, so that hookrig's debug lines never fill the pipe.
        lines.for_each(drop);
    });
    let started = env.project().join("started");
    if !wait_for_file(&started, Duration::from_secs(20)) {
        let _ = child.kill();
        panic!("the hook never started");
    }
    if started_guardian
        .recv_timeout(Duration::from_secs(20))
        .is_err()
    {
        let _ = child.kill();
        panic!("the guardian never started");
    }
    // And once its `running` row is written, which a one-shot emit does when its hooks
    // have run for a while (RUNNING_ROW_AFTER).
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let output = env.run(["runs", "--json"], b"");
        let runs: Value = serde_json::from_slice(&output.stdout).expect("runs --json");
        if runs[0]["decision"] == "running" {
            break;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the emit's running row was never written: {runs:#}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("SIGKILL hookrig");
    child.wait().expect("reap hookrig");

    let left = hookrig_test_support::no_leftover(env.marker(), Duration::from_secs(10));
    assert!(left.is_empty(), "the hook outlived hookrig: {left:?}");
    let output = env.run(["runs", "--json"], b"");
    let runs: Value = serde_json::from_slice(&output.stdout).expect("runs --json");
    assert_eq!(runs[0]["decision"], "interrupted", "{runs:#}");
}
