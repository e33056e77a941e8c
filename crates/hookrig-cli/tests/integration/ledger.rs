//! The ledger through the CLI: `runs`, `why`, `--no-ledger`, a ledger that cannot be
//! opened, and the debug log.

use hookrig_test_support::{HANG_LIMIT, run_with_input};
use indoc::indoc;
use serde_json::{Value, json};

use crate::harness::{code, emit, hookrig, test_env, text};

fn allow_hook(env: &hookrig_test_support::TestEnv) {
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "ok"
        events = ["tool.before", "session.start"]
        exec = ["true"]
    "#});
}

fn runs_json(env: &hookrig_test_support::TestEnv, args: &[&str]) -> Vec<Value> {
    let output = hookrig(env, &[&["runs", "--json"], args].concat());
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("runs --json prints a JSON array")
}

fn run_ids(runs: &[Value]) -> Vec<String> {
    runs.iter()
        .map(|run| run["run_id"].as_str().expect("a run id").to_owned())
        .collect()
}

#[test]
fn runs_lists_newest_first_with_limit_and_event_filter() {
    let env = test_env();
    allow_hook(&env);
    let first = emit(&env, &["tool.before"], "{}").run_id();
    let second = emit(&env, &["session.start"], "{}").run_id();
    let third = emit(&env, &["PreToolUse"], "{}").run_id();

    let all = runs_json(&env, &[]);
    assert_eq!(run_ids(&all), [third.as_str(), &second, &first]);
    assert_eq!(
        all[0]["event"], "tool.before",
        "aliases are stored canonical"
    );
    assert_eq!(all[0]["decision"], "allow");
    assert_eq!(all[0]["hooks_run"], 1);

    assert_eq!(
        run_ids(&runs_json(&env, &["--limit", "1"])),
        [third.as_str()]
    );
    assert_eq!(
        run_ids(&runs_json(&env, &["--event", "PreToolUse"])),
        [third.as_str(), &first],
        "the filter accepts an alias"
    );
    assert_eq!(
        run_ids(&runs_json(&env, &["--event", "pre_tool", "--limit", "1"])),
        [third.as_str()]
    );

    let table = hookrig(&env, &["runs"]);
    assert_eq!(code(&table), 0);
    let table = text(&table.stdout);
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("RUN "), "{table}");
    assert_eq!(lines.len(), 4, "{table}");
    assert!(lines[1].starts_with(&third), "{table}");
    assert!(lines[3].starts_with(&first), "{table}");
}

#[test]
fn why_accepts_a_prefix_of_the_run_id() {
    let env = test_env();
    env.write_script(".hookrig/guard.sh", "echo 'not today' >&2\nexit 2\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "guard"
        events = ["tool.before"]
        command = "./guard.sh"
    "#});
    let out = emit(&env, &["tool.before"], "{}");
    let run_id = out.run_id();

    let why = hookrig(&env, &["why", &run_id[..8]]);

    assert_eq!(code(&why), 0, "{}", text(&why.stderr));
    let why = text(&why.stdout);
    assert!(why.starts_with(&format!("run       {run_id}\n")), "{why}");
    assert!(why.contains("decision  deny by guard: not today"), "{why}");
    assert!(why.contains("  ran       deny, exit 2"), "{why}");
    assert!(why.contains("  stderr    not today"), "{why}");

    let unknown = hookrig(&env, &["why", "ffffffff"]);
    assert_eq!(code(&unknown), 1);
    assert!(text(&unknown.stderr).contains("no run `ffffffff` in the ledger"));
}

#[test]
fn no_ledger_creates_no_ledger_file() {
    let env = test_env();
    allow_hook(&env);

    let out = emit(&env, &["tool.before", "--no-ledger"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("ok"), "allow");
    assert!(!env.ledger_path().exists());
    // Nothing but the trust store the test harness writes (`hookrig trust
    // --any-project`): no ledger, work file, journal or log.
    let written: Vec<String> = std::fs::read_dir(env.state_home().join("hookrig"))
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| name != "trust.json")
                .collect()
        })
        .unwrap_or_default();
    assert!(written.is_empty(), "{written:?}");
    let runs = hookrig(&env, &["runs", "--no-ledger"]);
    assert_eq!(code(&runs), 1);
    assert!(text(&runs.stderr).contains("the ledger is disabled"));
}

#[test]
fn the_default_ledger_lives_under_xdg_state_home() {
    let env = test_env();
    allow_hook(&env);

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(env.ledger_path().is_file());
}

#[test]
fn hookrig_ledger_variable_moves_the_ledger() {
    let env = test_env();
    allow_hook(&env);
    let elsewhere = env.root().join("elsewhere.db");

    let mut command = env.command(["emit", "tool.before"]);
    command.env("HOOKRIG_LEDGER", &elsewhere);
    let output = run_with_input(command, b"{}", HANG_LIMIT);

    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(elsewhere.is_file());
    assert!(!env.ledger_path().exists());
    let runs = hookrig(
        &env,
        &[
            "runs",
            "--json",
            "--ledger",
            elsewhere.to_str().expect("UTF-8"),
        ],
    );
    let runs: Vec<Value> = serde_json::from_slice(&runs.stdout).expect("JSON");
    assert_eq!(runs.len(), 1);
}

// guards: `runs` counting an async hook twice (its "dispatched" row and its result row).
#[test]
fn runs_counts_an_async_hook_once() {
    let env = test_env();
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "observer"
        events = ["message.after"]
        exec = ["true"]
        mode = "async"
    "#});
    let out = emit(&env, &["message.after"], "{}");
    assert_eq!(out.result("observer"), "dispatched");
    crate::harness::why_when_async_done(&env, &out.run_id());

    let runs = runs_json(&env, &[]);

    assert_eq!(runs[0]["hooks_run"], 1, "one hook ran: {runs:#?}");
}

#[test]
fn a_ledger_that_cannot_be_opened_is_a_warning() {
    let env = test_env();
    allow_hook(&env);
    let file = env.write_file("plain-file", "not a directory");
    let under_a_file = file.join("ledger.db");

    for ledger in [under_a_file.to_str().expect("UTF-8"), "/proc/nope/x.db"] {
        let out = emit(&env, &["tool.before", "--ledger", ledger], "{}");

        assert_eq!(out.code, 0, "{ledger}: {}", out.stderr);
        assert_eq!(out.result("ok"), "allow");
        let warnings = out.warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with("ledger: "), "{warnings:?}");
        assert!(
            !out.stderr.contains("ledger"),
            "said once, in the Outcome: {}",
            out.stderr
        );
    }
}

fn deny_guard(env: &hookrig_test_support::TestEnv) {
    env.write_global_config(indoc! {r#"
        [[hooks]]
        name = "no-rm"
        events = ["tool.before"]
        command = "echo 'rm -rf is not allowed' >&2; exit 2"
    "#});
}

// guards: a corrupt or unreadable ledger never stops the user's guard from deciding; it
// is a warning in the Outcome (also the package registry, which lives in the same file)
#[test]
fn a_corrupt_or_unreadable_ledger_does_not_stop_the_guard() {
    let env = test_env();
    deny_guard(&env);
    let corrupt = env.write_file("corrupt.db", &"this is not a SQLite file\n".repeat(200));
    let directory = env.root().join("a-directory.db");
    std::fs::create_dir_all(&directory).expect("mkdir");
    for ledger in [&corrupt, &directory] {
        let ledger = ledger.to_str().expect("UTF-8");
        for dialect in ["native", "claude"] {
            let output = run_with_input(
                env.command([
                    "emit",
                    "tool.before",
                    "--ledger",
                    ledger,
                    "--dialect",
                    dialect,
                ]),
                br#"{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}"#,
                HANG_LIMIT,
            );
            if dialect == "native" {
                assert_eq!(code(&output), 2, "{ledger}: {}", text(&output.stderr));
                let outcome: Value = serde_json::from_slice(&output.stdout).expect("an Outcome");
                assert_eq!(outcome["decision"], "deny");
                let warnings = outcome["warnings"].as_array().expect("warnings");
                assert!(
                    warnings
                        .iter()
                        .any(|w| w.as_str().is_some_and(|w| w.starts_with("ledger: "))),
                    "{warnings:?}"
                );
            } else {
                // Claude Code reads a deny from its own JSON on stdout.
                let reply: Value = serde_json::from_slice(&output.stdout).expect("Claude JSON");
                assert_eq!(
                    reply["hookSpecificOutput"]["permissionDecision"], "deny",
                    "{reply}"
                );
            }
        }
    }
}

// guards: a corrupt or unreadable ledger never stops the user's guard from deciding for
// x-code and hygge hosts either: each gets the deny in its own reply
#[test]
fn a_corrupt_or_unreadable_ledger_does_not_stop_the_guard_for_xcode_and_hygge() {
    let env = test_env();
    deny_guard(&env);
    let corrupt = env.write_file("corrupt.db", &"this is not a SQLite file\n".repeat(200));
    let directory = env.root().join("a-directory.db");
    std::fs::create_dir_all(&directory).expect("mkdir");
    let reason = "rm -rf is not allowed";
    for ledger in [&corrupt, &directory] {
        let ledger = ledger.to_str().expect("UTF-8");
        let emit_as = |dialect: &str, payload: Value| {
            run_with_input(
                env.command(["emit", "--ledger", ledger, "--dialect", dialect]),
                payload.to_string().as_bytes(),
                HANG_LIMIT,
            )
        };

        // x-code: the deny travels in its JSON reply, with exit 0.
        let output = emit_as(
            "xcode",
            json!({"event": "PreToolUse", "session": {"cwd": env.project()},
                   "tool": {"name": "bash", "args": {"command": "rm -rf /"}}}),
        );
        assert_eq!(code(&output), 0, "{ledger}: {}", text(&output.stderr));
        let reply: Value = serde_json::from_slice(&output.stdout).expect("x-code's JSON");
        assert_eq!(
            reply,
            json!({"decision": "deny", "reason": reason}),
            "{ledger}"
        );

        // hygge: its Action and exit 2, the reason on stderr.
        let output = emit_as(
            "hygge",
            json!({"event": "pre_tool", "session_id": "s", "hook_name": "hookrig",
                   "pwd": env.project(), "tool_name": "bash",
                   "tool_input": {"command": "rm -rf /"}}),
        );
        assert_eq!(code(&output), 2, "{ledger}: {}", text(&output.stderr));
        let action: Value = serde_json::from_slice(&output.stdout).expect("hygge's Action");
        assert_eq!(
            action,
            json!({"decision": "deny", "reason": reason}),
            "{ledger}"
        );
        assert_eq!(text(&output.stderr), format!("{reason}\n"), "{ledger}");
    }
}

// guards: the answer never waits on the ledger: with another process holding its write
// lock, the Outcome comes at once (not after the 5 s busy timeout, with a "database is
// locked" warning), and the row is written once the lock is released
#[test]
fn a_ledger_held_by_another_writer_does_not_delay_the_answer() {
    use std::io::{BufRead as _, BufReader, Write as _};
    use std::process::Stdio;

    let env = test_env();
    allow_hook(&env);
    // Creates the ledger with its schema.
    let first = emit(&env, &["tool.before"], "{}");
    assert_eq!(first.code, 0, "{}", first.stderr);

    let holder = rusqlite::Connection::open(env.ledger_path()).expect("open the ledger");
    holder
        .execute_batch("BEGIN IMMEDIATE; DELETE FROM emits WHERE run_id = 'none';")
        .expect("take the write lock");
    let mut child = env
        .command(["emit", "tool.before"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hookrig");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"{}")
        .expect("write the payload");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("read the Outcome");
    // Still holding the lock: the answer did not wait for it.
    let outcome: Value = serde_json::from_str(&line).expect("an Outcome");
    assert_eq!(outcome["decision"], "allow");
    assert_eq!(outcome["warnings"], serde_json::json!([]), "{outcome}");
    holder.execute_batch("COMMIT;").expect("release the lock");
    let status = child.wait().expect("hookrig exits");
    assert_eq!(status.code(), Some(0));

    let run_id = outcome["run_id"].as_str().expect("a run id");
    let runs = runs_json(&env, &[]);
    let run = runs
        .iter()
        .find(|run| run["run_id"] == run_id)
        .expect("the emit was recorded once the lock was released");
    assert_eq!(run["decision"], "allow");
}

#[test]
fn debug_prints_one_line_per_hook_run() {
    let env = test_env();
    env.write_script(".hookrig/slow.sh", "sleep 5\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "quick"
        events = ["tool.before"]
        exec = ["true"]

        [[hooks]]
        name = "slow"
        events = ["tool.before"]
        command = "./slow.sh"
        timeout = "200ms"
    "#});

    let out = emit(&env, &["tool.before", "--debug"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("hooks.exec-ran quick tool.before: decision=allow ("),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("hooks.exec-timeout slow tool.before: hook slow timed out after 200ms"),
        "{}",
        out.stderr
    );

    // The same lines with HOOKRIG_LOG=debug instead of the flag.
    let mut command = env.command(["emit", "tool.before"]);
    command.env("HOOKRIG_LOG", "debug");
    let output = run_with_input(command, b"{}", HANG_LIMIT);
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("hooks.exec-ran quick tool.before: decision=allow"),
        "{stderr}"
    );
}

/// `hookrig emit tool.before` with `payload`, extra `args` and `HOOKRIG_AGENT` when
/// given; the run id.
fn emit_as(
    env: &hookrig_test_support::TestEnv,
    args: &[&str],
    hookrig_agent: Option<&str>,
    payload: &str,
) -> String {
    let mut command = env.command([&["emit", "tool.before"], args].concat());
    if let Some(agent) = hookrig_agent {
        command.env("HOOKRIG_AGENT", agent);
    }
    let output = run_with_input(command, payload.as_bytes(), HANG_LIMIT);
    let out = crate::harness::emitted(&output);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.run_id()
}

/// A `why --json` answer with what changes from run to run replaced.
fn redact_why(env: &hookrig_test_support::TestEnv, mut why: Value) -> Value {
    why["run_id"] = "[run_id]".into();
    why["started_at_ms"] = "[started_at_ms]".into();
    why["duration_ms"] = "[duration_ms]".into();
    let project = env.project().display().to_string();
    why["cwd"] = why["cwd"]
        .as_str()
        .expect("cwd")
        .replace(&project, "[project]")
        .into();
    for hook in why["hooks"].as_array_mut().expect("hooks") {
        hook["duration_ms"] = "[duration_ms]".into();
        hook["source"] = hook["source"]
            .as_str()
            .expect("source")
            .replace(&project, "[project]")
            .into();
    }
    why
}

#[test]
fn emits_record_their_agent_from_flag_environment_or_payload() {
    let env = test_env();
    allow_hook(&env);
    let by_flag = emit_as(&env, &["--agent", "claude-1"], None, "{}");
    let by_env = emit_as(&env, &[], Some("codex"), "{}");
    let by_payload = emit_as(&env, &[], None, r#"{"session": {"agent": "gemini"}}"#);
    let without = emit_as(&env, &[], None, "{}");
    // The flag (or HOOKRIG_AGENT, its default) wins over the payload, as it does for
    // choosing plugin packages; an empty HOOKRIG_AGENT names nobody.
    let flag_over_payload = emit_as(
        &env,
        &["--agent", "claude-1"],
        None,
        r#"{"session": {"agent": "gemini"}}"#,
    );
    let empty_env = emit_as(&env, &[], Some(""), "{}");

    let runs = runs_json(&env, &[]);
    let agents: Vec<(String, Value)> = runs
        .iter()
        .map(|run| {
            (
                run["run_id"].as_str().expect("id").to_owned(),
                run["agent"].clone(),
            )
        })
        .collect();
    assert_eq!(
        agents,
        [
            (empty_env.clone(), Value::Null),
            (flag_over_payload.clone(), "claude-1".into()),
            (without.clone(), Value::Null),
            (by_payload.clone(), "gemini".into()),
            (by_env.clone(), "codex".into()),
            (by_flag.clone(), "claude-1".into()),
        ]
    );

    assert_eq!(
        run_ids(&runs_json(&env, &["--agent", "claude-1"])),
        [flag_over_payload.as_str(), &by_flag]
    );
    assert_eq!(
        run_ids(&runs_json(&env, &["--agent", "codex"])),
        [by_env.as_str()]
    );
    assert_eq!(
        run_ids(&runs_json(
            &env,
            &["--agent", "gemini", "--event", "PreToolUse"]
        )),
        [by_payload.as_str()],
        "with the event filter too"
    );
    assert!(
        runs_json(&env, &["--agent", "claude"]).is_empty(),
        "exact names only"
    );
    let none = hookrig(&env, &["runs", "--agent", "nobody"]);
    assert_eq!(text(&none.stdout), "(no runs recorded)\n");

    // The table gains an AGENT column, `-` for emits without one.
    let table = text(&hookrig(&env, &["runs"]).stdout);
    let lines: Vec<&str> = table.lines().collect();
    assert!(
        lines[0].contains("  EVENT               AGENT     DECISION  HOOKS"),
        "{table}"
    );
    assert!(
        lines[2].contains("  tool.before         claude-1  allow         1"),
        "{table}"
    );
    assert!(
        lines[3].contains("  tool.before         -         allow         1"),
        "{table}"
    );
    // Without any agent in view, the table is the one it always was.
    let plain = text(&hookrig(&env, &["runs", "--limit", "1"]).stdout);
    assert!(
        plain.starts_with(&format!(
            "{:36}  {:20}  {:18}  {:8}  {:>5}  {:>9}  DECIDED BY\n",
            "RUN", "TIME (UTC)", "EVENT", "DECISION", "HOOKS", "MS"
        )),
        "{plain}"
    );

    let why = crate::harness::why_text(&env, &by_env);
    assert!(why.contains("\nagent     codex\n"), "{why}");
    let why = crate::harness::why_text(&env, &without);
    assert!(!why.contains("agent"), "{why}");
    assert!(crate::harness::why_json(&env, &without)["agent"].is_null());
    insta::assert_json_snapshot!(
        "why_json_with_agent",
        redact_why(&env, crate::harness::why_json(&env, &by_flag))
    );
}

// guards: a hook that stops the agent is recorded as such: the emit's decision is
// `stop`, with the stopping hook and its reason, and that hook's result is `stop`
#[test]
fn why_shows_a_stop_with_its_hook_and_reason() {
    let env = test_env();
    env.write_script(
        ".hookrig/halt.sh",
        r#"printf '%s' '{"stop":{"reason":"budget spent"}}'"#,
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "halt"
        events = ["tool.before"]
        command = "./halt.sh"

        [[hooks]]
        name = "later"
        events = ["tool.before"]
        command = "true"
    "#});
    let out = emit(&env, &["tool.before"], "{}");
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(
        out.outcome["stop"],
        json!({"reason": "budget spent", "by": "halt"})
    );
    assert_eq!(out.outcome["decision"], "allow");
    let run_id = out.run_id();

    let why = crate::harness::why_text(&env, &run_id);
    assert!(
        why.contains("decision  stop by halt: budget spent"),
        "{why}"
    );
    assert!(why.contains("  ran       stop, exit 0"), "{why}");
    assert!(why.contains("chain stopped by halt"), "{why}");
    let why = crate::harness::why_json(&env, &run_id);
    assert_eq!(why["decision"], "stop");
    assert_eq!(why["decided_by"], "halt");
    assert_eq!(why["reason"], "budget spent");
    assert_eq!(why["hooks"][0]["result"], "stop");
}
