//! `hookrig plan validate`: built-in rules, external validators (every failure mode of
//! Hence's validators), `--strict`, `--json`, and the example in `examples/plan/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hookrig_test_support::TestEnv;
use indoc::indoc;
use serde_json::Value;

use crate::harness::{code, hookrig, test_env, text, tool_available};

/// A plan with no finding of any built-in rule.
const CLEAN: &str = indoc! {r#"
    (meta plan (title "Shop"))
    (given agent-coder-available)
    (given task-api)
    (meta task-api (description "Build the API") (acceptance "Tests pass"))
    (given task-ui)
    (meta task-ui (description "Build the UI") (acceptance "Tests pass"))
    (given (assign api coder))
    (normally r-ready-api task-api ready-api)
    (normally r-ready-ui (and task-ui completed-api) ready-ui)
"#};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn validate(env: &TestEnv, args: &[&str]) -> Run {
    let mut all = vec!["plan", "validate"];
    all.extend_from_slice(args);
    let output = hookrig(env, &all);
    let root = env.root().display().to_string();
    Run {
        code: code(&output),
        stdout: text(&output.stdout).replace(&root, "[ROOT]"),
        stderr: text(&output.stderr).replace(&root, "[ROOT]"),
    }
}

fn validate_json(env: &TestEnv, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let run = validate(env, &all);
    let json = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|err| panic!("not JSON ({err}): {}\n{}", run.stdout, run.stderr));
    (run.code, json)
}

/// A validator that prints `output` (a JSON text) and exits 0.
fn printing(output: &str) -> String {
    format!("#!/bin/sh\ncat <<'EOF'\n{output}\nEOF\n")
}

#[test]
fn a_clean_plan_passes_even_strict() {
    let env = test_env();
    env.write_file("plan.spl", CLEAN);
    let run = validate(&env, &["plan.spl", "--strict"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "plan.spl: 0 errors, 0 warnings (strict)\n");
}

#[test]
fn every_builtin_rule_with_its_place() {
    let env = test_env();
    env.write_global_config(""); // no providers configured
    env.write_file(
        "plan.spl",
        indoc! {r#"
            (given agent-coder-available)
            (given task-a)
            (meta task-a (description "A") (acceptance "x") (provider "internal-gpt"))
            (given task-b)
            (given task-c) (meta task-c (description "C") (acceptance "x"))
            (given (assign a tester))
            (normally r-ready-a (and task-a completed-b) ready-a)
            (normally r-ready-b (and task-b completed-a completed-zz) ready-b)
            (normally r-ready-a task-c ready-c)
        "#},
    );
    let run = validate(&env, &["--plan", "plan.spl"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn a_configured_provider_is_known() {
    let env = test_env();
    env.write_file(
        ".hookrig/config.toml",
        "[[providers]]\nid = \"internal-gpt\"\nname = \"Internal\"\ncli = \"llm\"\n",
    );
    env.write_file(
        "plan.spl",
        &CLEAN.replace(
            "(acceptance \"Tests pass\"))\n(given task-ui)",
            "(acceptance \"Tests pass\") (provider \"internal-gpt\"))\n(given task-ui)",
        ),
    );
    assert!(
        env.read_file("plan.spl")
            .is_some_and(|t| t.contains("internal-gpt"))
    );
    let run = validate(&env, &["plan.spl"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn a_syntax_error_is_a_diagnostic_with_its_place() {
    let env = test_env();
    env.write_file("plan.spl", "(given task-a)\n(given (task-b\n");
    let run = validate(&env, &["plan.spl"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stdout,
        "plan.spl:2:8: error[syntax]: unclosed '(': no matching ')' before the end of the file\nplan.spl: 1 error, 0 warnings\n"
    );
}

#[test]
fn the_plan_comes_from_the_environment_or_is_asked_for() {
    let env = test_env();
    env.write_file("plan.spl", CLEAN);
    let output = env
        .command(["plan", "validate"])
        .env("HENCE_PLAN", "plan.spl")
        .output()
        .expect("runs");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let output = env
        .command(["plan", "validate"])
        .env_remove("HENCE_PLAN")
        .output()
        .expect("runs");
    assert_eq!(code(&output), 1);
    assert!(
        text(&output.stderr).contains("no plan file: give --plan FILE"),
        "{}",
        text(&output.stderr)
    );
    let run = validate(&env, &["missing.spl"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("cannot read the plan missing.spl"),
        "{}",
        run.stderr
    );
}

// guards: the exact arguments and environment a validator receives
#[test]
fn a_validator_gets_the_plan_and_strictness() {
    let env = test_env();
    env.write_file("plans/plan.spl", CLEAN);
    env.write_script(
        ".hookrig/validators/seen",
        indoc! {r#"
            {
              echo "argc=$# \$1=$1"
              echo "HOOKRIG_PLAN=$HOOKRIG_PLAN"
              echo "HENCE_PLAN=$HENCE_PLAN"
              echo "HOOKRIG_STRICT=$HOOKRIG_STRICT"
              echo "HENCE_STRICT=$HENCE_STRICT"
              echo "cwd=$(pwd)"
            } >> "$HOOKRIG_PLAN.seen"
            echo '[]'
        "#},
    );
    assert_eq!(validate(&env, &["plans/plan.spl"]).code, 0);
    assert_eq!(validate(&env, &["plans/plan.spl", "--strict"]).code, 0);
    let seen = env
        .read_file("plans/plan.spl.seen")
        .expect("the validator ran");
    insta::assert_snapshot!(seen.replace(&env.root().display().to_string(), "[ROOT]"), @r"
    argc=1 $1=plans/plan.spl
    HOOKRIG_PLAN=[ROOT]/project/plans/plan.spl
    HENCE_PLAN=[ROOT]/project/plans/plan.spl
    HOOKRIG_STRICT=false
    HENCE_STRICT=false
    cwd=[ROOT]/project
    argc=1 $1=plans/plan.spl
    HOOKRIG_PLAN=[ROOT]/project/plans/plan.spl
    HENCE_PLAN=[ROOT]/project/plans/plan.spl
    HOOKRIG_STRICT=true
    HENCE_STRICT=true
    cwd=[ROOT]/project
    ");
}

#[test]
fn merged_diagnostics_local_first_then_global_then_packages() {
    let env = test_env();
    env.write_file(
        "plan.spl",
        &CLEAN.replace("(given (assign api coder))", "(given (assign api nobody))"),
    );
    env.write_script(
        ".hookrig/validators/b-local",
        &printing(r#"[{"level": "warning", "message": "task ui has no estimate", "line": 5, "rule": "require-estimate"}]"#),
    );
    env.write_script(
        ".hence/validators/a-hence-local",
        &printing(r#"[{"level": "error", "message": "no owner"}]"#),
    );
    write_executable(
        &env.config_home().join("hookrig/validators/global"),
        &printing(
            r#"[{"level": "warning", "message": "global says hi", "rule": null, "line": null}]"#,
        ),
    );
    write_executable(
        &env.config_home().join("hence/validators/hence-global"),
        &printing("[]"),
    );
    let package = env.root().join("pkg");
    std::fs::create_dir_all(package.join("validators")).expect("mkdir");
    std::fs::write(
        package.join("plugin.json"),
        r#"{"name": "team", "validators": {"team-rules": "validators/team"}}"#,
    )
    .expect("write manifest");
    write_executable(
        &package.join("validators/team"),
        &printing(r#"[{"level": "warning", "message": "from the package", "line": 1}]"#),
    );
    let output = hookrig(
        &env,
        &[
            "plugins",
            "register",
            "team",
            "--path",
            package.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let output = hookrig(&env, &["plugins", "enable", "team", "--all"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));

    let (exit, json) = validate_json(&env, &["plan.spl"]);
    assert_eq!(exit, 1);
    insta::assert_json_snapshot!(json);

    let run = validate(&env, &["plan.spl"]);
    insta::assert_snapshot!(run.stdout, @r"
    plan.spl:7:1: error[unknown-agent]: task api is assigned to agent nobody, which is not declared (declared: coder); add (given agent-nobody-available)
    [b-local] plan.spl:5: warning[require-estimate]: task ui has no estimate
    [a-hence-local] plan.spl: error: no owner
    [global] plan.spl: warning: global says hi
    [team-rules] plan.spl:1: warning: from the package
    plan.spl: 2 errors, 3 warnings
    ");
}

#[test]
fn strict_turns_validator_warnings_into_failure() {
    let env = test_env();
    env.write_file("plan.spl", CLEAN);
    env.write_script(
        ".hence/validators/estimate",
        &printing(r#"[{"level": "warning", "message": "no estimate"}]"#),
    );
    let run = validate(&env, &["plan.spl"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout
            .contains("[estimate] plan.spl: warning: no estimate"),
        "{}",
        run.stdout
    );
    let run = validate(&env, &["plan.spl", "--strict"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .ends_with("plan.spl: 0 errors, 1 warning (strict)\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn builtin_warnings_fail_only_strict() {
    let env = test_env();
    env.write_file("plan.spl", "(given task-a)\n");
    let run = validate(&env, &["plan.spl"]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        indoc! {r#"
            plan.spl:1:1: warning[missing-acceptance]: task a has no acceptance criterion; add (meta task-a (acceptance "..."))
            plan.spl:1:1: warning[missing-description]: task a has no description; add (meta task-a (description "..."))
            plan.spl: 0 errors, 2 warnings
        "#}
    );
    assert_eq!(validate(&env, &["plan.spl", "--strict"]).code, 1);
}

#[test]
fn every_validator_failure_mode_warns_and_skips() {
    let env = test_env();
    env.write_file("plan.spl", CLEAN);
    env.write_file(".hookrig/config.toml", "[settings]\nhook_timeout = 1\n");
    env.write_file(
        ".hookrig/validators/1-not-executable",
        "#!/bin/sh\necho '[]'\n",
    );
    env.write_script(
        ".hookrig/validators/2-invalid-json",
        "#!/bin/sh\necho 'all good!'\n",
    );
    env.write_script(
        ".hookrig/validators/3-wrong-shape",
        &printing(r#"[{"level": "info", "message": "m"}]"#),
    );
    let sleep = env.marked_sleep();
    env.write_script(
        ".hookrig/validators/4-timeout",
        &format!("#!/bin/sh\n{} 30\necho '[]'\n", sleep.display()),
    );
    env.write_script(
        ".hookrig/validators/5-fails-silently",
        "#!/bin/sh\nexit 3\n",
    );
    env.write_script(
        ".hookrig/validators/6-fails-with-output",
        "#!/bin/sh\necho '[{\"level\": \"error\", \"message\": \"bad plan\"}]'\nexit 1\n",
    );
    env.write_script(".hookrig/validators/7-silent-ok", "#!/bin/sh\nexit 0\n");
    env.write_script(
        ".hookrig/validators/8-works",
        &printing(r#"[{"level": "warning", "message": "still ran"}]"#),
    );
    env.write_file(".hookrig/validators/.hidden~", "editor backup\n");

    let started = Instant::now();
    let run = validate(&env, &["plan.spl"]);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the timeout must hold"
    );
    assert_eq!(run.code, 1, "6-fails-with-output reports an error");
    insta::assert_snapshot!(run.stderr, @r"
    hookrig: warning: validator '1-not-executable' is not executable, skipping
    hookrig: warning: validator '2-invalid-json' output invalid JSON, skipping
    hookrig: warning: validator '3-wrong-shape' output invalid JSON, skipping
    hookrig: warning: validator '4-timeout' timed out
    hookrig: warning: validator '5-fails-silently' failed
    ");
    insta::assert_snapshot!(run.stdout, @r"
    [6-fails-with-output] plan.spl: error: bad plan
    [8-works] plan.spl: warning: still ran
    plan.spl: 1 error, 1 warning
    ");
    assert_eq!(
        env.leftovers(),
        Vec::<i32>::new(),
        "the timed-out validator is killed"
    );
}

#[test]
fn a_failing_validators_stderr_is_shown() {
    // guards: a validator that failed said only `validator 'NAME' failed`; what it
    // wrote on stderr (why it failed) was shown nowhere
    let env = test_env();
    env.write_file("plan.spl", CLEAN);
    env.write_script(
        ".hookrig/validators/needs-jq",
        "#!/bin/sh\necho 'needs-jq: jq: command not found' >&2\necho 'install jq' >&2\nexit 127\n",
    );
    env.write_script(
        ".hookrig/validators/garbled",
        "#!/bin/sh\necho 'not json'\necho 'parser crashed' >&2\n",
    );
    let run = validate(&env, &["plan.spl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!(run.stderr, @r"
    hookrig: warning: validator 'garbled' output invalid JSON, skipping
      stderr: parser crashed
    hookrig: warning: validator 'needs-jq' failed
      stderr: needs-jq: jq: command not found
      stderr: install jq
    ");
    let (_, json) = validate_json(&env, &["plan.spl"]);
    assert_eq!(
        json["skipped"][1],
        "validator 'needs-jq' failed\n  stderr: needs-jq: jq: command not found\n  stderr: install jq"
    );
}

#[test]
fn a_skipped_validator_fails_strict() {
    let env = test_env();
    env.write_file("plan.spl", CLEAN);
    env.write_script(".hookrig/validators/broken", "#!/bin/sh\nexit 2\n");
    assert_eq!(validate(&env, &["plan.spl"]).code, 0);
    let (exit, json) = validate_json(&env, &["plan.spl", "--strict"]);
    assert_eq!(exit, 1);
    assert_eq!(
        json["skipped"],
        serde_json::json!(["validator 'broken' failed"])
    );
    assert_eq!(json["ok"], false);
}

fn write_executable(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, body).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

// ---------------------------------------------------------------------------------
// examples/plan
// ---------------------------------------------------------------------------------

fn example_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/plan")
}

/// Copies `examples/plan` (with its dot directories) into the test's project.
fn copy_example(env: &TestEnv) {
    let status = Command::new("cp")
        .arg("-R")
        .arg(format!("{}/.", example_dir().display()))
        .arg(env.project())
        .status()
        .expect("cp runs");
    assert!(status.success());
}

#[test]
fn the_example_plan_is_valid_and_its_validator_runs() {
    let env = test_env();
    copy_example(&env);
    let run = validate(&env, &["plan.spl", "--strict"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stdout, "plan.spl: 0 errors, 0 warnings (strict)\n");

    // Without an estimate, the example validator speaks up with the line of the task.
    let plan = env.read_file("plan.spl").expect("copied");
    env.write_file("plan.spl", &plan.replace(" (estimate 3)", ""));
    let run = validate(&env, &["plan.spl", "--strict"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stdout,
        "[require-estimate] plan.spl:11: warning[require-estimate]: task ui has no estimate\nplan.spl: 0 errors, 1 warning (strict)\n"
    );
}

// guards: the README's flow on the example, from the first claim to post-plan-complete
#[test]
fn the_example_plan_runs_from_first_claim_to_plan_complete() {
    let env = test_env();
    copy_example(&env);
    let task = |action: &str, task: &str, agent: &str| {
        let output = env
            .command(["task", action, task, "--plan", "plan.spl", "--agent", agent])
            .env_remove("HOOKRIG_COMPLETED_LOG")
            .output()
            .expect("hookrig task runs");
        assert_eq!(
            code(&output),
            0,
            "{action} {task}: {}",
            text(&output.stderr)
        );
    };
    for (name, agent) in [
        ("design", "coder"),
        ("api", "coder"),
        ("ui", "coder"),
        ("review", "reviewer"),
        ("release", "reviewer"),
    ] {
        task("claim", name, agent);
        task("complete", name, agent);
    }
    assert_eq!(
        env.read_file("completed.log").expect("the hooks wrote it"),
        "complete design completed by coder\n\
         complete api completed by coder\n\
         complete ui completed by coder\n\
         complete review completed by reviewer\n\
         complete release completed by reviewer\n\
         plan-complete plan.spl (last task release, by reviewer)\n"
    );
    let board = env
        .command(["plan", "board", "plan.spl", "--json"])
        .output()
        .expect("board");
    let board: serde_json::Value = serde_json::from_slice(&board.stdout).expect("JSON");
    assert_eq!(board["done"].as_array().map(Vec::len), Some(5), "{board:#}");
}

#[test]
fn the_example_formatter_renders_the_board() {
    use hookrig_plan::{board::Board, plan::Plan, spl};

    if !tool_available("jq") {
        return;
    }

    let path = example_dir().join("plan.spl");
    let source = std::fs::read_to_string(&path).expect("example plan");
    let statements = spl::parse(&path, &source).expect("valid SPL");
    let board = Board::new("plan.spl", &Plan::new(&statements));
    let json = serde_json::to_vec(&board).expect("serializable");

    let mut child = Command::new(example_dir().join("bin/hookrig-board-html"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the formatter starts (needs sh and jq)");
    std::io::Write::write_all(child.stdin.as_mut().expect("stdin"), &json).expect("write");
    drop(child.stdin.take());
    let output = child.wait_with_output().expect("finishes");
    assert!(output.status.success(), "{}", text(&output.stderr));
    insta::assert_snapshot!(text(&output.stdout));
}

#[test]
fn the_example_post_complete_hook_appends_a_line() {
    let env = test_env();
    copy_example(&env);
    let log = env.project().join("completed.log");
    for task in ["design", "api"] {
        let status = Command::new(env.project().join(".hookrig/hooks/post-complete"))
            .arg(env.project().join("plan.spl"))
            .arg(task)
            .arg("coder")
            .env("HENCE_EVENT", "complete")
            .env_remove("HOOKRIG_COMPLETED_LOG")
            .status()
            .expect("the hook runs");
        assert!(status.success());
    }
    assert_eq!(
        std::fs::read_to_string(log).expect("the hook wrote its log"),
        "complete design completed by coder\ncomplete api completed by coder\n"
    );
}
