//! `hookrig test`: the examples' own tests, a failing run's exit code and JUnit file, and
//! cases pinned from stdin and from the ledger.

use indoc::indoc;
use serde_json::{Value, json};

use crate::harness::{code, copy_tree, emit, hookrig, test_env, text};

// guards: `hookrig test` on the repository's own examples, so that CI runs them.
#[test]
fn the_examples_pass_their_own_tests() {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    for example in [
        "claude-guard",
        "guard-env",
        "codex",
        "gemini",
        "cursor",
        "workers",
    ] {
        let env = test_env();
        copy_tree(&examples.join(example), &env.project());
        let output = hookrig(&env, &["test", "--json"]);
        let report: Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
        assert_eq!(code(&output), 0, "{example}: {report:#}");
        assert!(report["passed"].as_u64() > Some(0), "{example} has cases");
    }
}

fn guarded(env: &hookrig_test_support::TestEnv) {
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "no-rm"
        events = ["tool.before"]
        command = "grep -q '\"rm ' && { echo 'no rm' >&2; exit 2; } || exit 0"
    "#});
}

#[test]
fn a_failing_case_exits_1_and_is_in_the_junit_file() {
    let env = test_env();
    guarded(&env);
    env.write_file(
        ".hookrig/tests/guard.toml",
        indoc! {r#"
            [[case]]
            name = "allows rm"
            event = "tool.before"
            payload = { tool = { name = "Bash", input = { command = "rm -rf x" } } }
            expect = { decision = "allow" }

            [[case]]
            name = "allows ls"
            event = "tool.before"
            payload = { tool = { name = "Bash", input = { command = "ls" } } }
            expect = { decision = "allow" }
        "#},
    );
    let junit = env.root().join("junit.xml");
    let junit_arg = junit.to_str().expect("a UTF-8 path");
    let output = hookrig(&env, &["test", "--junit", junit_arg]);
    assert_eq!(code(&output), 1, "{}", text(&output.stdout));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("FAIL guard::allows rm"), "{stdout}");
    assert!(
        stdout.contains("    | no rm"),
        "the hook's stderr: {stdout}"
    );
    let xml = std::fs::read_to_string(&junit).expect("the JUnit file is written");
    assert!(xml.contains("failures=\"1\""), "{xml}");

    let filtered = hookrig(&env, &["test", "allows ls"]);
    assert_eq!(code(&filtered), 0, "{}", text(&filtered.stdout));
}

#[test]
fn new_pins_a_payload_from_stdin_and_from_run_pins_a_ledger_run() {
    let env = test_env();
    guarded(&env);
    let payload = r#"{"tool": {"name": "Bash", "input": {"command": "rm -rf x"}}}"#;
    let output = env.run(["test", "--new", "PreToolUse"], payload.as_bytes());
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("decision = \"deny\""));

    let run_id = emit(&env, &["tool.before"], r#"{"tool": {"name": "ls"}}"#).run_id();
    let output = hookrig(
        &env,
        &["test", "--from-run", &run_id, "--name", "from the ledger"],
    );
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));

    let unknown = hookrig(&env, &["test", "--from-run", "0000ffff"]);
    assert_eq!(code(&unknown), 1);
    assert!(
        text(&unknown.stderr).contains("hookrig runs"),
        "{}",
        text(&unknown.stderr)
    );

    let run = hookrig(&env, &["test", "--json"]);
    let report: Value = serde_json::from_slice(&run.stdout).expect("a JSON report");
    assert_eq!(code(&run), 0, "{report:#}");
    let ids: Vec<&str> = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|case| case["id"].as_str().expect("an id"))
        .collect();
    assert_eq!(ids, ["pinned::PreToolUse-1", "pinned::from the ledger"]);
}

#[test]
fn replay_says_which_recorded_decisions_todays_config_changes_and_by_which_hook() {
    let env = test_env();
    guarded(&env);
    let denied = emit(
        &env,
        &["tool.before"],
        r#"{"tool": {"name": "Bash", "input": {"command": "rm -rf x"}}}"#,
    )
    .run_id();
    emit(
        &env,
        &["tool.before"],
        r#"{"tool": {"name": "Bash", "input": {"command": "ls"}}}"#,
    );
    emit(&env, &["session.start"], "{}");
    // Today the guard lets everything through.
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "no-rm"
        events = ["tool.before"]
        exec = ["true"]
    "#});

    // Without --allow-side-effects a hook that did not declare `side_effects = false` is
    // not run, and the emit it decided then is not compared.
    let held = hookrig(&env, &["replay", "--json"]);
    assert_eq!(code(&held), 0, "{}", text(&held.stderr));
    let held: Value = serde_json::from_slice(&held.stdout).expect("JSON");
    assert_eq!(held["changed"], 0, "{held:#}");
    assert_eq!(held["not_replayed"], json!(["no-rm"]), "{held:#}");
    let uncompared = held["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .find(|run| run["run_id"] == denied.as_str())
        .expect("listed");
    assert!(
        uncompared["error"]
            .as_str()
            .is_some_and(|error| error.contains("decided by no-rm, which may have side effects")),
        "{held:#}"
    );

    let output = hookrig(&env, &["replay", "--allow-side-effects", "--json"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let replay: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(replay["replayed"], 3, "{replay:#}");
    assert_eq!(replay["changed"], 1, "{replay:#}");
    let changed: Vec<&Value> = replay["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .filter(|run| run["changed"] == true)
        .collect();
    assert_eq!(changed[0]["run_id"], denied.as_str());
    assert_eq!(changed[0]["recorded"]["decision"], "deny");
    assert_eq!(changed[0]["today"]["decision"], "allow");
    assert_eq!(changed[0]["changed_by"], "no-rm");

    let text_out = text(&hookrig(&env, &["replay", "--allow-side-effects"]).stdout);
    assert!(text_out.contains("deny -> allow  by no-rm"), "{text_out}");
    assert!(
        text_out.ends_with("3 emits replayed, 1 decision would change\n"),
        "{text_out}"
    );

    let by_event = hookrig(
        &env,
        &[
            "replay",
            "--allow-side-effects",
            "--json",
            "--event",
            "SessionStart",
        ],
    );
    let by_event: Value = serde_json::from_slice(&by_event.stdout).expect("JSON");
    assert_eq!(by_event["replayed"], 1, "{by_event:#}");
    let by_hook = hookrig(
        &env,
        &[
            "replay",
            "--allow-side-effects",
            "--json",
            "--hook",
            "other",
        ],
    );
    let by_hook: Value = serde_json::from_slice(&by_hook.stdout).expect("JSON");
    assert_eq!(by_hook["replayed"], 0, "{by_hook:#}");

    // The replays were recorded in their sandboxes, not in the user's ledger.
    let runs = hookrig(&env, &["runs", "--json"]);
    let runs: Value = serde_json::from_slice(&runs.stdout).expect("JSON");
    assert_eq!(runs.as_array().map(Vec::len), Some(3));
}

// guards: a replay that runs a hook which did not declare it has no side effects
#[test]
fn replay_runs_only_hooks_without_side_effects_unless_allowed() {
    let env = test_env();
    let config = |guard: &str| {
        format!(
            "[[hooks]]\nname = \"log\"\nevents = [\"tool.before\"]\ncommand = \"echo ran >> hook-log.txt\"\n\n\
             [[hooks]]\nname = \"guard\"\nevents = [\"tool.before\"]\nside_effects = false\ncommand = {guard:?}\n"
        )
    };
    env.write_project_config(&config("grep -q '\"rm ' && exit 2 || exit 0"));
    let denied = emit(
        &env,
        &["tool.before"],
        r#"{"tool": {"name": "Bash", "input": {"command": "rm -rf x"}}}"#,
    );
    assert_eq!(denied.code, 2, "{}", denied.stderr);
    let log = || {
        env.read_file("hook-log.txt")
            .expect("the log hook ran")
            .lines()
            .count()
    };
    assert_eq!(log(), 1);
    // Today the guard lets everything through.
    env.write_project_config(&config("exit 0"));

    let output = hookrig(&env, &["replay", "--json"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let replay: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(log(), 1, "the log hook was not run again: {replay:#}");
    assert_eq!(replay["changed"], 1, "{replay:#}");
    assert_eq!(replay["runs"][0]["changed_by"], "guard", "{replay:#}");
    assert_eq!(replay["runs"][0]["not_replayed"], json!(["log"]));
    assert_eq!(replay["not_replayed"], json!(["log"]));
    let text_out = text(&hookrig(&env, &["replay"]).stdout);
    assert!(
        text_out.ends_with(
            "1 emit replayed, 1 decision would change\n\
             not replayed, as they may have side effects (declare `side_effects = false`, or pass --allow-side-effects): log\n"
        ),
        "{text_out}"
    );
    assert_eq!(log(), 1);

    let all = hookrig(&env, &["replay", "--allow-side-effects", "--json"]);
    assert_eq!(code(&all), 0, "{}", text(&all.stderr));
    let all: Value = serde_json::from_slice(&all.stdout).expect("JSON");
    assert_eq!(log(), 2, "--allow-side-effects runs it: {all:#}");
    assert_eq!(all["not_replayed"], json!([]));
    assert_eq!(all["changed"], 1, "{all:#}");
}
