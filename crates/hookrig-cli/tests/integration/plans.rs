//! `hookrig task ...` and `hookrig plan board|next` on real plan files: every
//! transition and refusal with its exit code, what is appended, concurrent writers,
//! lifecycle hooks, board formats and external formatters.

use std::process::{Output, Stdio};

use hookrig_test_support::{HANG_LIMIT, TestEnv, run_with_input};
use indoc::indoc;
use serde_json::Value;

use crate::harness::{code, hookrig, quoted, test_env, text};

/// Five tasks: design (ready), api after design (assigned to coder), ui after api,
/// docs (ready, assigned to writer and coder), legal (ready).
const PLAN: &str = indoc! {r#"
    ; the shop
    (meta plan (title "Shop") (status "active"))
    (given agent-coder-available)
    (given agent-writer-available)
    (given task-design)
    (meta task-design (description "Design the API") (acceptance "Reviewed"))
    (given task-api)
    (meta task-api (description "Build the API"))
    (given task-ui)
    (given task-docs)
    (given task-legal)
    (given assign-api-coder)
    (given (assign docs writer))
    (given (assign docs coder))
    (normally r-ready-design task-design ready-design)
    (normally r-ready-api (and task-api completed-design) ready-api)
    (normally r-ready-ui (and task-ui completed-api) ready-ui)
    (normally r-ready-docs task-docs ready-docs)
    (normally r-ready-legal task-legal ready-legal)
"#};

fn with_plan(plan: &str) -> TestEnv {
    let env = test_env();
    env.write_file("plan.spl", plan);
    env
}

/// `hookrig task ARGS... -f plan.spl --agent coder`.
fn task(env: &TestEnv, args: &[&str]) -> Output {
    let mut all = vec!["task"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-f", "plan.spl", "--agent", "coder"]);
    hookrig(env, &all)
}

/// Checks that the command succeeded; what it printed as JSON, or `Null` when it printed
/// text (no `--json`).
fn json_of(output: &Output) -> Value {
    assert_eq!(code(output), 0, "stderr: {}", text(&output.stderr));
    if !matches!(output.stdout.first(), Some(b'{' | b'[')) {
        return Value::Null;
    }
    serde_json::from_slice(&output.stdout).expect("--json prints JSON")
}

/// The task's state on the board.
fn state(env: &TestEnv, name: &str) -> String {
    let board = json_of(&hookrig(
        env,
        &["plan", "board", "-f", "plan.spl", "--json"],
    ));
    board["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no task {name}"))["state"]
        .as_str()
        .expect("state")
        .to_owned()
}

/// Timestamps and the test's directory replaced by placeholders.
fn redact(env: &TestEnv, text: &str) -> String {
    let mut out = text.replace(env.marker(), "[TMP]");
    for key in [":at \"", ":at \\\""] {
        let mut from = 0;
        while let Some(found) = out[from..].find(key) {
            let start = from + found + key.len();
            // RFC 3339 to the second: 2025-01-02T03:04:05Z is 20 characters.
            out.replace_range(start..start + 20, "[AT]");
            from = start;
        }
    }
    out
}

#[test]
fn claim_reports_json_and_appends_a_versioned_claim() {
    let env = with_plan(PLAN);
    let report = json_of(&task(&env, &["claim", "design", "--json"]));
    insta::assert_snapshot!(redact(
        &env,
        &serde_json::to_string_pretty(&report).expect("JSON")
    ));
    assert_eq!(state(&env, "design"), "in_progress");
    let file = env.read_file("plan.spl").expect("plan");
    assert!(file.starts_with(PLAN), "the old text stays byte for byte");
    assert_eq!(
        file[PLAN.len()..],
        *report["appended"].as_str().expect("appended")
    );
}

#[test]
fn claiming_a_claimed_task_is_a_noop() {
    let env = with_plan(PLAN);
    json_of(&task(&env, &["claim", "design"]));
    let before = env.read_file("plan.spl");
    let report = json_of(&task(&env, &["claim", "design", "--json"]));
    insta::assert_json_snapshot!(report);
    assert_eq!(env.read_file("plan.spl"), before, "nothing appended");
}

#[test]
fn claiming_a_task_another_agent_holds_is_refused() {
    // guards: `task claim` by a second agent exited 0 with `noop`, so two agents worked
    // on one task; the holder's own claim stays a no-op
    let env = with_plan(PLAN);
    json_of(&task(&env, &["claim", "design"]));
    let before = env.read_file("plan.spl");
    for extra in [&[][..], &["--force"]] {
        let mut args = vec![
            "task", "claim", "design", "-f", "plan.spl", "--agent", "writer",
        ];
        args.extend_from_slice(extra);
        let out = hookrig(&env, &args);
        assert_eq!(code(&out), 1, "{}", text(&out.stderr));
        assert_eq!(
            text(&out.stderr),
            "hookrig: error: cannot claim task 'design': agent 'coder' holds it (it is in progress); `hookrig task unclaim design` releases it\n"
        );
    }
    assert_eq!(env.read_file("plan.spl"), before, "nothing appended");
    let report = json_of(&task(&env, &["claim", "design", "--json"]));
    assert_eq!(report["noop"], true);
    // Released, another agent may claim it.
    json_of(&task(&env, &["unclaim", "design"]));
    let out = hookrig(
        &env,
        &[
            "task", "claim", "design", "-f", "plan.spl", "--agent", "writer",
        ],
    );
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
}

#[test]
fn every_transition_and_refusal() {
    let env = with_plan(PLAN);
    let ok = |args: &[&str], state_after: &str| {
        let mut all = args.to_vec();
        all.push("--json");
        let report = json_of(&task(&env, &all));
        assert_eq!(report["state_after"], state_after, "{args:?}: {report}");
        assert_eq!(report["noop"], false, "{args:?}");
    };
    let refused = |args: &[&str], expected: i32, message: &str| {
        let out = task(&env, args);
        assert_eq!(code(&out), expected, "{args:?}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains(message),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    };

    // A backlog task needs --force.
    refused(
        &["claim", "api"],
        1,
        "hookrig: error: cannot claim task 'api': it is not ready (state backlog) (use --force to claim it anyway)",
    );
    ok(&["claim", "api", "--force"], "in_progress");
    ok(&["unclaim", "api"], "backlog");
    ok(&["claim", "design"], "in_progress");
    ok(&["unclaim", "design"], "ready");
    ok(&["claim", "design"], "in_progress");
    ok(
        &["block", "design", "--reason", "waiting for review"],
        "blocked",
    );
    ok(&["unblock", "design"], "in_progress");
    ok(&["complete", "design"], "done");
    assert_eq!(state(&env, "api"), "ready", "its dependency is done");
    refused(
        &["unclaim", "design"],
        1,
        "cannot unclaim task 'design': it is done",
    );
    refused(
        &["block", "design"],
        1,
        "cannot block task 'design': it is done",
    );
    refused(
        &["claim", "design"],
        1,
        "cannot claim task 'design': it is done",
    );
    refused(
        &["complete", "nope"],
        8,
        "unknown task 'nope'; declared tasks: design, api, ui, docs, legal",
    );
    refused(&["claim", "task-nope"], 8, "declared tasks:");
    // The task- prefix is accepted.
    ok(&["claim", "task-legal"], "in_progress");
    // A manual block does not block dependents.
    ok(&["block", "api"], "blocked");
    assert_eq!(state(&env, "ui"), "backlog");
    // A failure does: ui becomes upstream-blocked.
    let report = json_of(&task(&env, &["assert", "(given failed-api)", "--json"]));
    assert_eq!(report["events"], serde_json::json!(["plan.asserted"]));
    let board = json_of(&hookrig(
        &env,
        &["plan", "board", "-f", "plan.spl", "--json"],
    ));
    let ui = &board["tasks"][2];
    assert_eq!(
        (ui["name"].as_str(), ui["block_type"].as_str()),
        (Some("ui"), Some("upstream_blocked"))
    );
    // Everything appended reads back: the whole history is one valid plan.
    insta::assert_snapshot!(redact(&env, &env.read_file("plan.spl").expect("plan")));
}

#[test]
fn noops_of_each_action_append_nothing() {
    let env = with_plan(PLAN);
    for args in [
        ["unclaim", "design"],
        ["unblock", "design"],
        ["complete", "design"],
    ] {
        if args[0] == "complete" {
            json_of(&task(&env, &args));
        }
        let before = env.read_file("plan.spl");
        let report = json_of(&task(&env, &[args[0], args[1], "--json"]));
        assert_eq!(report["noop"], true, "{args:?}");
        assert_eq!(report["appended"], Value::Null);
        assert_eq!(report["events"], serde_json::json!([]));
        assert_eq!(env.read_file("plan.spl"), before, "{args:?}");
    }
    json_of(&task(&env, &["block", "legal"]));
    assert_eq!(
        json_of(&task(&env, &["block", "legal", "--json"]))["noop"],
        true
    );
}

#[test]
fn plan_and_agent_come_from_flags_then_environment() {
    let env = with_plan(PLAN);
    env.write_file("other.spl", PLAN);
    let run = |args: &[&str], vars: &[(&str, &str)]| {
        let mut command = env.command(args);
        command.env_remove("HENCE_PLAN").env_remove("HENCE_AGENT");
        for (name, value) in vars {
            command.env(name, value);
        }
        run_with_input(command, b"", HANG_LIMIT)
    };
    let out = run(&["task", "claim", "design", "--agent", "a"], &[]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        text(&out.stderr),
        "hookrig: error: no plan file: give --plan FILE (or -f FILE), or set HOOKRIG_PLAN (or HENCE_PLAN)\n"
    );
    let out = run(&["task", "claim", "design", "-f", "plan.spl"], &[]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        text(&out.stderr),
        "hookrig: error: no agent: give --agent NAME, or set HOOKRIG_AGENT (or HENCE_AGENT)\n"
    );
    // HENCE_* alone works; HOOKRIG_* beats HENCE_*; the flags beat both.
    let out = run(
        &["task", "claim", "design", "--json"],
        &[("HENCE_PLAN", "plan.spl"), ("HENCE_AGENT", "hence")],
    );
    assert_eq!(json_of(&out)["agent"], "hence");
    let out = run(
        &["task", "claim", "docs", "--json"],
        &[
            ("HENCE_PLAN", "nowhere.spl"),
            ("HOOKRIG_PLAN", "plan.spl"),
            ("HENCE_AGENT", "hence"),
            ("HOOKRIG_AGENT", "rig"),
        ],
    );
    assert_eq!(json_of(&out)["agent"], "rig");
    let out = run(
        &[
            "task",
            "claim",
            "legal",
            "--plan",
            "other.spl",
            "--agent",
            "flag",
            "--json",
        ],
        &[("HOOKRIG_PLAN", "plan.spl"), ("HOOKRIG_AGENT", "rig")],
    );
    assert_eq!(json_of(&out)["agent"], "flag");
    assert!(
        env.read_file("other.spl")
            .expect("other")
            .contains("claim-v1-legal")
    );
    assert!(
        !env.read_file("plan.spl")
            .expect("plan")
            .contains("claim-v1-legal")
    );
}

#[test]
fn bad_plans_and_bad_spl_are_path_line_col_errors() {
    let env = with_plan("(given task-a)\n(given (oops\n");
    let out = task(&env, &["claim", "a"]);
    assert_eq!(code(&out), 1);
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("hookrig: error: plan.spl:2:8: "),
        "{stderr}"
    );

    let env = with_plan(PLAN);
    let before = env.read_file("plan.spl");
    let out = task(&env, &["assert", "(given x"]);
    assert_eq!(code(&out), 1);
    assert!(
        text(&out.stderr).starts_with("hookrig: error: <assert>:1:1: "),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(env.read_file("plan.spl"), before);

    let out = hookrig(
        &env,
        &["task", "claim", "a", "-f", "missing.spl", "--agent", "x"],
    );
    assert_eq!(code(&out), 1);
    assert!(
        text(&out.stderr).starts_with("hookrig: error: cannot open missing.spl: "),
        "{}",
        text(&out.stderr)
    );
    let out = hookrig(
        &env,
        &[
            "task", "claim", "design", "-f", "plan.spl", "--agent", "a b",
        ],
    );
    assert_eq!(code(&out), 1);
    assert!(text(&out.stderr).contains("invalid agent name 'a b'"));
}

#[test]
fn deeply_nested_plans_are_errors_not_crashes() {
    // guards: a plan nested 20,000 deep crashed plan board, plan validate and task claim
    // with a stack overflow (exit 134) instead of a path:line:col error
    let deep = format!(
        "(given task-a)\n(given {}x{})\n",
        "(not ".repeat(20_000),
        ")".repeat(20_000)
    );
    let env = with_plan(&deep);
    // `plan validate` reports it as a finding, `plan.spl:2:323: error[syntax]: ...`.
    let wanted = ["plan.spl:2:323: ", "lists nested more than 64 deep"];
    for args in [
        &["plan", "board", "plan.spl"][..],
        &["plan", "validate", "plan.spl"],
        &["task", "claim", "a", "-f", "plan.spl", "--agent", "coder"],
    ] {
        let out = hookrig(&env, args);
        assert_eq!(code(&out), 1, "{args:?}: {}", text(&out.stderr));
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(wanted.iter().all(|w| all.contains(w)), "{args:?}: {all}");
    }
    let env = with_plan(PLAN);
    let expression = format!("(given {}x{})", "(not ".repeat(20_000), ")".repeat(20_000));
    let out = task(&env, &["assert", &expression]);
    assert_eq!(code(&out), 1);
    assert!(
        text(&out.stderr).contains("<assert>:1:323: lists nested more than 64 deep"),
        "{}",
        text(&out.stderr)
    );
}

/// Starts `hookrig ARGS` without waiting.
fn spawn(env: &TestEnv, args: &[String]) -> std::process::Child {
    env.command(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hookrig")
}

#[test]
fn concurrent_writers_lose_no_update() {
    let env = with_plan(PLAN);
    let children: Vec<_> = (0..20)
        .map(|i| {
            let args: Vec<String> = [
                "task",
                "assert",
                &format!("(given fact-{i})"),
                "-f",
                "plan.spl",
                "--agent",
                &format!("agent{i}"),
                "--no-ledger",
            ]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
            spawn(&env, &args)
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    }
    let file = env.read_file("plan.spl").expect("plan");
    for i in 0..20 {
        assert_eq!(
            file.matches(&format!("(given fact-{i})")).count(),
            1,
            "fact-{i} once in:\n{file}"
        );
    }
    assert_eq!(file.matches("(claims agent:").count(), 20);
    // Still one valid plan.
    json_of(&hookrig(
        &env,
        &["plan", "board", "-f", "plan.spl", "--json"],
    ));

    // Three agents claim the same task at once: one claims it, the others are refused,
    // told who holds it.
    let children: Vec<_> = ["one", "two", "three"]
        .iter()
        .map(|agent| {
            let args: Vec<String> = [
                "task", "claim", "design", "-f", "plan.spl", "--agent", agent, "--json",
            ]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
            spawn(&env, &args)
        })
        .collect();
    let outputs: Vec<Output> = children
        .into_iter()
        .map(|child| child.wait_with_output().expect("wait"))
        .collect();
    let winners: Vec<&Output> = outputs.iter().filter(|o| code(o) == 0).collect();
    assert_eq!(winners.len(), 1, "{outputs:?}");
    assert_eq!(json_of(winners[0])["noop"], false);
    let holder = json_of(winners[0])["agent"]
        .as_str()
        .expect("agent")
        .to_owned();
    for out in outputs.iter().filter(|o| code(o) != 0) {
        assert_eq!(code(out), 1);
        assert!(
            text(&out.stderr).contains(&format!("agent '{holder}' holds it")),
            "{}",
            text(&out.stderr)
        );
    }
    let file = env.read_file("plan.spl").expect("plan");
    assert_eq!(file.matches("(given claim-v").count(), 1, "{file}");
}

/// A hook script that records its arguments, HENCE_* environment and cwd into `log`.
fn recorder(env: &TestEnv, log: &str) -> String {
    format!(
        indoc! {r#"
            {{
              echo "hook=$HENCE_HOOK event=$HENCE_EVENT"
              echo "args=$1|$2|$3"
              echo "plan=$HENCE_PLAN task=$HENCE_TASK agent=$HENCE_AGENT"
              echo "hookrig=$HOOKRIG_EVENT cwd=$(pwd)"
            }} >> {}
        "#},
        quoted(&env.project().join(log))
    )
}

#[test]
fn lifecycle_hooks_see_every_state_change() {
    let env = with_plan(PLAN);
    for hook in [
        "post-claim",
        "post-complete",
        "post-block",
        "post-unblock",
        "post-assert",
        "post-plan-complete",
    ] {
        env.write_script(
            format!(".hookrig/hooks/{hook}"),
            &recorder(&env, "hooks.log"),
        );
    }
    // A native hook on task.completed and task.blocked gets the payload on stdin.
    let log = quoted(&env.project().join("native.jsonl"));
    env.write_script(
        ".hookrig/native.sh",
        &format!("cat >> {log}; echo >> {log}\n"),
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "on-complete"
        events = ["task.completed", "task.blocked"]
        command = "./native.sh"
    "#});
    json_of(&task(&env, &["claim", "design"]));
    json_of(&task(&env, &["unclaim", "design"]));
    json_of(&task(&env, &["block", "design", "--reason", "no reviewer"]));
    json_of(&task(&env, &["unblock", "design"]));
    json_of(&task(&env, &["complete", "design"]));
    json_of(&task(&env, &["assert", "(given (assign ui coder))"]));
    for name in ["api", "ui", "docs"] {
        json_of(&task(&env, &["complete", name]));
    }
    let last = json_of(&task(&env, &["complete", "legal", "--json"]));
    assert_eq!(
        last["events"],
        serde_json::json!(["task.completed", "plan.completed"])
    );
    // A no-op runs no hook.
    json_of(&task(&env, &["complete", "legal"]));
    insta::assert_snapshot!(
        "hook_log",
        redact(&env, &env.read_file("hooks.log").expect("hooks ran"))
    );
    insta::assert_snapshot!(
        "native_stdin",
        redact(
            &env,
            &env.read_file("native.jsonl").expect("native hook ran")
        )
    );
    // Every event is in the ledger, like any emit.
    let runs = json_of(&hookrig(&env, &["runs", "--json", "--limit", "100"]));
    let mut events: Vec<&str> = runs
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| r["event"].as_str().expect("event"))
        .collect();
    events.reverse();
    insta::assert_debug_snapshot!("ledger_events", events);
    // guards: lifecycle emits record the acting agent, as `hookrig emit --agent` does
    assert!(
        runs.as_array()
            .expect("runs")
            .iter()
            .all(|r| r["agent"] == "coder"),
        "{runs}"
    );
    let coder = json_of(&hookrig(
        &env,
        &["runs", "--json", "--agent", "coder", "--limit", "100"],
    ));
    assert_eq!(
        coder.as_array().map(Vec::len),
        runs.as_array().map(Vec::len)
    );
}

#[test]
fn a_failing_hook_warns_and_rolls_nothing_back() {
    let env = with_plan(PLAN);
    env.write_script(".hence/hooks/post-complete", "exit 3\n");
    let out = task(&env, &["complete", "design", "--json"]);
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("hook 'post-complete' failed (exit 3)"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(json_of(&out)["state_after"], "done");
    assert_eq!(state(&env, "design"), "done");
}

#[test]
fn a_broken_config_does_not_undo_the_action() {
    let env = with_plan(PLAN);
    let path = env.write_project_config("[[hooks]\n");
    let out = task(&env, &["claim", "design"]);
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    // The broken file is skipped with an error; the event still reaches the others.
    assert!(
        text(&out.stderr).contains(&format!("hookrig: warning: {}:1:", path.display())),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(state(&env, "design"), "in_progress");
}

#[test]
fn untrusted_project_hooks_do_not_run() {
    let env = with_plan(PLAN);
    env.write_script(".hookrig/hooks/post-claim", &recorder(&env, "hooks.log"));
    let mut command = env.untrusted_command(["task", "claim", "design", "-f", "plan.spl"]);
    command.args(["--agent", "coder"]);
    let out = run_with_input(command, b"", HANG_LIMIT);
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    assert_eq!(env.read_file("hooks.log"), None);
}

/// A plan in every state for the board: design done, docs claimed by writer, legal
/// blocked with a reason, api ready, ui backlog.
fn board_env() -> TestEnv {
    let env = with_plan(PLAN);
    json_of(&task(&env, &["complete", "design"]));
    json_of(&hookrig(
        &env,
        &[
            "task", "claim", "docs", "-f", "plan.spl", "--agent", "writer",
        ],
    ));
    json_of(&task(
        &env,
        &["block", "legal", "--reason", "waiting for counsel"],
    ));
    env
}

fn board(env: &TestEnv, args: &[&str]) -> String {
    let mut all = vec!["plan", "board", "plan.spl"];
    all.extend_from_slice(args);
    let out = hookrig(env, &all);
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn board_in_every_built_in_format() {
    let env = board_env();
    insta::assert_snapshot!("board_kanban", board(&env, &[]));
    insta::assert_snapshot!("board_tree", board(&env, &["--format", "tree"]));
    insta::assert_snapshot!("board_dag", board(&env, &["--format", "dag"]));
    insta::assert_snapshot!("board_dot", board(&env, &["--format", "dag", "--dot"]));
    assert_eq!(
        board(&env, &["--dot"]),
        board(&env, &["--format", "dag", "--dot"])
    );
    let json = board(&env, &["--json"]);
    assert_eq!(json, board(&env, &["--format", "json"]));
    let json: Value = serde_json::from_str(&json).expect("JSON");
    insta::assert_json_snapshot!("board_json", json);
    let out = hookrig(
        &env,
        &["plan", "board", "plan.spl", "--format", "tree", "--dot"],
    );
    assert_eq!(code(&out), 1);
    assert!(text(&out.stderr).contains("--dot draws the dag format"));
}

#[test]
fn board_formatters_run_with_the_board_on_stdin() {
    let env = board_env();
    env.write_bin(
        "hookrig-board-count",
        "n=$(grep -o '\"name\"' | wc -l); echo \"$n names, agent $HOOKRIG_AGENT, plan $HENCE_PLAN\"\n",
    );
    let out = board(&env, &["--format", "count"]);
    assert_eq!(
        out.trim_start(),
        format!(
            "5 names, agent , plan {}\n",
            env.project().join("plan.spl").display()
        )
    );
    // hence-board-NAME is found too; hookrig-board-NAME wins over it.
    env.write_bin("hence-board-count", "echo hence\n");
    env.write_bin("hence-board-raw", "cat\n");
    assert_eq!(board(&env, &["--format", "count"]), out);
    let raw: Value = serde_json::from_str(&board(&env, &["--format", "raw"])).expect("JSON");
    assert_eq!(raw["plan"], "plan.spl");
    assert_eq!(raw["done"], serde_json::json!(["design"]));
    // Built-in formats always win.
    env.write_bin("hookrig-board-json", "echo shadow\n");
    assert!(board(&env, &["--format", "json"]).starts_with('{'));

    env.write_bin("hookrig-board-bad", "echo partial; echo oops >&2; exit 3\n");
    let out = hookrig(&env, &["plan", "board", "plan.spl", "--format", "bad"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        text(&out.stderr),
        "oops\nhookrig: error: formatter 'bad' failed (exit 3)\n"
    );
    assert!(out.stdout.is_empty());

    env.write_bin("hookrig-board-killed", "kill -9 $$\n");
    let out = hookrig(&env, &["plan", "board", "plan.spl", "--format", "killed"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        text(&out.stderr),
        "hookrig: error: formatter 'killed' failed (killed by signal 9)\n"
    );

    let out = hookrig(&env, &["plan", "board", "plan.spl", "--format", "nope"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        text(&out.stderr),
        "hookrig: error: unknown board format 'nope': built-in formats are kanban, tree, dag and json; formatters found: bad, count, json, killed, raw\n"
    );

    let path = env.write_bin("hookrig-board-noexec", "echo x\n");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .expect("chmod");
    let out = hookrig(&env, &["plan", "board", "plan.spl", "--format", "noexec"]);
    assert_eq!(code(&out), 1);
    assert!(
        text(&out.stderr).contains("formatter 'noexec' at ")
            && text(&out.stderr).contains("is not executable"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_formatter_that_never_exits_fails_after_its_timeout_and_leaves_nothing() {
    // guards: a board formatter that never exits hung `plan board`
    let env = board_env();
    let sleep = env.marked_sleep();
    let path = env.write_bin(
        "hookrig-board-stuck",
        &format!(
            "echo drawing >&2\n'{0}' 300 &\n'{0}' 301\n",
            sleep.display()
        ),
    );
    let out = hookrig(&env, &["plan", "board", "plan.spl", "--format", "stuck"]);
    assert_eq!(code(&out), 1);
    // Its stderr still reaches the user, then the error names it and the timeout.
    assert_eq!(
        text(&out.stderr),
        format!(
            "drawing\nhookrig: error: formatter 'stuck' ({}) did not finish within 30s and was stopped\n",
            path.display()
        )
    );
    assert!(out.stdout.is_empty());
    assert!(
        env.leftovers().is_empty(),
        "a process of the formatter is left"
    );
}

#[test]
fn formatters_in_plugin_path() {
    let env = board_env();
    let dir = env.root().join("plugins");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let script = dir.join("hookrig-board-extra");
    std::fs::write(&script, "#!/bin/sh\necho from plugin_path\n").expect("write");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    std::fs::create_dir_all(env.project().join(".hence")).expect("mkdir");
    env.write_file(
        ".hence/config.toml",
        &format!(
            "[settings]\nplugin_path = [{:?}]\n",
            dir.display().to_string()
        ),
    );
    assert_eq!(board(&env, &["--format", "extra"]), "from plugin_path\n");
}

#[test]
fn next_lists_ready_assignments_or_all_of_them() {
    let env = with_plan(PLAN);
    let next = |agent: &str| {
        let out = hookrig(&env, &["plan", "next", "-f", "plan.spl", "--agent", agent]);
        assert_eq!(code(&out), 0, "{}", text(&out.stderr));
        text(&out.stdout)
    };
    // coder: api (backlog) and docs (ready) → docs.
    assert_eq!(next("coder"), "ready for coder:\n  docs  ready\n");
    json_of(&task(&env, &["claim", "docs"]));
    // Nothing ready: every assignment.
    assert_eq!(
        next("coder"),
        "nothing assigned to coder is ready; all its assignments:\n  api   backlog      Build the API\n  docs  in_progress\n"
    );
    assert_eq!(next("nobody"), "no tasks are assigned to nobody\n");
    let json = json_of(&hookrig(
        &env,
        &[
            "plan", "next", "-f", "plan.spl", "--agent", "writer", "--json",
        ],
    ));
    insta::assert_json_snapshot!("next_json", json);
    let out = hookrig(&env, &["plan", "next", "-f", "plan.spl"]);
    assert_eq!(code(&out), 1);
    assert!(text(&out.stderr).contains("no agent: give --agent NAME"));
}

#[test]
fn formatters_of_enabled_plugin_packages() {
    let env = board_env();
    let dir = env.root().join("packages").join("boards");
    std::fs::create_dir_all(dir.join("fmt")).expect("mkdir");
    std::fs::write(
        dir.join("plugin.json"),
        r#"{"id": "boards", "name": "boards", "formatters": {"html": "fmt/html"}}"#,
    )
    .expect("write");
    let script = dir.join("fmt/html");
    std::fs::write(&script, "#!/bin/sh\necho \"<p>$HOOKRIG_AGENT</p>\"\n").expect("write");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let path = dir.to_str().expect("utf-8");
    let out = hookrig(&env, &["plugins", "register", "boards", "--path", path]);
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let out = hookrig(&env, &["plugins", "enable", "boards", "--agent", "coder"]);
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    // Not enabled for an agent that is not given: unknown.
    let out = hookrig(&env, &["plan", "board", "plan.spl", "--format", "html"]);
    assert_eq!(code(&out), 1);
    assert!(text(&out.stderr).contains("unknown board format 'html'"));
    // Enabled for coder (`hookrig --agent`, or $HOOKRIG_AGENT).
    let out = hookrig(
        &env,
        &[
            "--agent", "coder", "plan", "board", "plan.spl", "--format", "html",
        ],
    );
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "<p>coder</p>\n");
}

#[test]
fn top_level_plan_and_agent_options_apply_to_task_and_plan() {
    let env = with_plan(PLAN);
    let out = hookrig(
        &env,
        &[
            "--plan", "plan.spl", "--agent", "coder", "task", "claim", "design", "--json",
        ],
    );
    assert_eq!(json_of(&out)["agent"], "coder");
    // The subcommand's own option wins.
    let out = hookrig(
        &env,
        &[
            "--agent", "coder", "task", "claim", "legal", "-f", "plan.spl", "--agent", "writer",
            "--json",
        ],
    );
    assert_eq!(json_of(&out)["agent"], "writer");
    let out = hookrig(
        &env,
        &["--plan", "plan.spl", "--agent", "coder", "plan", "next"],
    );
    assert_eq!(text(&out.stdout), "ready for coder:\n  docs  ready\n");
}
