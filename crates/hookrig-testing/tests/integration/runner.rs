//! `hookrig test`'s runner: cases emitted in the sandbox, checked, reported.

use hookrig_test_support::TestEnv;
use hookrig_testing::{NewCase, RunOptions, Status, TestingError, pin};
use indoc::indoc;

use crate::support::{environment, run_all, timeless, vars, world, write_tests};

/// A project whose guard denies `rm` (saying so on stderr), and a hook that adds context.
fn guarded() -> TestEnv {
    let env = world();
    env.write_script(
        ".hookrig/no-rm.sh",
        indoc! {r#"
            input=$(cat)
            case "$input" in
              *'"rm '*) echo "refusing rm" >&2
                        printf '{"decision":"deny","reason":"rm is not allowed here"}' ;;
              *) printf '{"decision":"allow"}' ;;
            esac
        "#},
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "no-rm"
        events = ["tool.before"]
        matcher = "Bash"
        command = "./no-rm.sh"

        [[hooks]]
        name = "note"
        events = ["tool.before"]
        priority = 200
        exec = ["sh", "-c", "printf '{\"decision\":\"allow\",\"context\":\"checked\"}'"]
    "#});
    env
}

#[test]
fn passing_cases_pass_and_the_project_hooks_run_without_being_trusted() {
    let env = guarded();
    write_tests(
        &env,
        "guard.toml",
        indoc! {r#"
            [[case]]
            name = "denies rm"
            event = "PreToolUse"
            payload = { tool = { name = "Bash", input = { command = "rm -rf build" } } }
            [case.expect]
            decision = "deny"
            decided_by = "no-rm"
            reason_contains = "not allowed"
            reason_matches = "^rm"
            ran = ["no-rm"]
            skipped = ["note"]

            [[case]]
            name = "allows ls"
            event = "tool.before"
            payload = '{"tool": {"name": "Bash", "input": {"command": "ls"}}}'
            [case.expect]
            decision = "allow"
            context = ["checked"]
            ran = ["no-rm", "note"]
            payload_at = { "/tool/input/command" = "ls" }
            exit_code = 0
        "#},
    );
    let report = run_all(&env, &RunOptions::default());
    assert!(report.success(), "{}", report.text());
    assert_eq!(report.passed, 2);
    // Trusted for the run only: the user's trust store trusts nothing, before or after.
    let store: serde_json::Value = std::fs::read(env.state_home().join("hookrig/trust.json"))
        .map(|bytes| serde_json::from_slice(&bytes).expect("JSON"))
        .unwrap_or_default();
    assert_ne!(store["any_project"].as_bool(), Some(true), "{store}");
    assert!(
        store["hooks"]
            .as_object()
            .is_none_or(serde_json::Map::is_empty),
        "the trust store is untouched: {store}"
    );
    // Recorded in the sandbox's ledger, not the user's.
    assert!(
        !env.ledger_path().exists(),
        "the user's ledger is untouched"
    );
}

#[test]
fn a_failing_case_shows_each_expectation_as_a_diff_with_the_hooks_stderr() {
    let env = guarded();
    write_tests(
        &env,
        "guard.toml",
        indoc! {r#"
            [[case]]
            name = "allows rm"
            event = "PreToolUse"
            payload = { tool = { name = "Bash", input = { command = "rm -rf build" } } }
            [case.expect]
            decision = "allow"
            reason = "fine"
            payload_at = { "/tool/input/command" = "rm -rf dist" }
        "#},
    );
    let report = run_all(&env, &RunOptions::default());
    assert!(!report.success());
    assert_eq!(report.cases[0].status, Status::Fail);
    insta::assert_snapshot!(report.text());
    let report = timeless(report);
    insta::assert_json_snapshot!(report);
    insta::assert_snapshot!(hookrig_testing::junit(&report));
}

#[test]
fn a_host_dialect_case_checks_the_hosts_exact_answer() {
    let env = guarded();
    write_tests(
        &env,
        "claude.toml",
        indoc! {r#"
            [[case]]
            name = "claude sees a deny"
            event = "PreToolUse"
            dialect = "claude"
            payload = { hook_event_name = "PreToolUse", tool_name = "Bash", tool_input = { command = "rm x" } }
            [case.expect]
            decision = "deny"
            exit_code = 0
            stdout = { "/hookSpecificOutput/permissionDecision" = "deny" }
        "#},
    );
    let report = run_all(&env, &RunOptions::default());
    assert!(report.success(), "{}", report.text());
}

#[test]
fn a_filter_selects_cases_by_id_and_one_job_gives_the_same_report() {
    let env = guarded();
    let case = |name: &str| {
        format!(
            "[[case]]\nname = \"{name}\"\nevent = \"tool.before\"\n[case.expect]\ndecision = \"allow\"\n"
        )
    };
    write_tests(&env, "a.toml", &(case("one") + &case("two")));
    write_tests(&env, "b.toml", &case("one"));
    let filtered = run_all(
        &env,
        &RunOptions {
            filter: Some("a::".to_owned()),
            jobs: 0,
        },
    );
    let ids: Vec<&str> = filtered.cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["a::one", "a::two"]);
    let serial = run_all(
        &env,
        &RunOptions {
            filter: None,
            jobs: 1,
        },
    );
    let parallel = run_all(
        &env,
        &RunOptions {
            filter: None,
            jobs: 4,
        },
    );
    assert_eq!(timeless(serial), timeless(parallel));
}

#[test]
fn cases_that_cannot_run_are_errors_at_their_place() {
    let env = guarded();
    write_tests(
        &env,
        "broken.toml",
        indoc! {r#"
            [[case]]
            name = "no file"
            event = "tool.before"
            payload_file = "missing.json"

            [[case]]
            name = "bad dialect"
            event = "tool.before"
            dialect = "clod"

            [[case]]
            name = "bad regex"
            event = "tool.before"
            expect = { reason_matches = "(" , decison = "allow" }

            [[case]]
            name = "runs"
            event = "tool.before"
        "#},
    );
    write_tests(&env, "syntax.toml", "[[case]\n");
    let report = run_all(&env, &RunOptions::default());
    assert!(!report.success());
    assert_eq!(report.passed, 1, "the file's other cases still run");
    insta::assert_snapshot!(env.redact(&format!(
        "{}\n{}",
        report.invalid.join("\n"),
        report.warnings.join("\n")
    )));
}

#[test]
fn a_pinned_case_expects_todays_answer_and_passes() {
    let env = guarded();
    let new = |name: Option<&str>| NewCase {
        event: "PreToolUse".to_owned(),
        dialect: hookrig_core::Dialect::Native,
        payload: serde_json::json!({"tool": {"name": "Bash", "input": {"command": "rm -rf build"}}}),
        agent: None,
        name: name.map(str::to_owned),
        file: None,
    };
    let first = pin(&environment(&env), vars(&env), &new(None)).expect("pinned");
    assert_eq!(first.name, "PreToolUse-1");
    insta::assert_snapshot!(first.text);
    let second = pin(&environment(&env), vars(&env), &new(None)).expect("pinned");
    assert_eq!(second.name, "PreToolUse-2", "a free name is found");
    let taken = pin(&environment(&env), vars(&env), &new(Some("PreToolUse-1")));
    assert!(
        matches!(taken, Err(TestingError::CaseExists(..))),
        "{taken:?}"
    );
    let report = run_all(&env, &RunOptions::default());
    assert!(report.success(), "{}", report.text());
    assert_eq!(report.passed, 2);
}

#[test]
fn the_sandbox_records_each_case_in_a_ledger_it_deletes() {
    let env = guarded();
    write_tests(
        &env,
        "one.toml",
        "[[case]]\nevent = \"tool.before\"\npayload = { tool = { name = \"Bash\" } }\n",
    );
    let suite = hookrig_testing::discover(&environment(&env)).expect("listed");
    let sandbox = hookrig_testing::Sandbox::new(vars(&env)).expect("a sandbox");
    sandbox.emit(&suite.cases[0]).expect("the case runs");
    let ledger = sandbox.ledger();
    let store = hookrig_runtime::ledger::open_for_reading(&ledger).expect("a SQLite ledger");
    let runs = hookrig_runtime::ledger::recent(&store, 10, None, None, false).expect("readable");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].decided_by, None);
    drop(store);
    drop(sandbox);
    assert!(!ledger.exists(), "the ledger goes with the sandbox");
}

#[test]
fn a_run_without_cases_says_how_to_write_one() {
    let env = guarded();
    let report = run_all(&env, &RunOptions::default());
    assert!(report.success());
    insta::assert_snapshot!(report.text());
}
