//! `hookrig auto ...` and `hookrig fire` against the real store.

use hookrig_test_support::TestEnv;
use serde_json::Value;

use crate::harness::{code, hookrig, test_env, text};

const NIGHTLY: &str = r#"
name = "Nightly Review"
prompt_template = "review"
cooldown_seconds = 60
context_steps = [{ type = "shell", command = "true" }]

[trigger]
type = "periodic"
interval_seconds = 7200
"#;

const QUIET: &str = r#"{
  "id": "quiet",
  "project_id": "p1",
  "name": "Quiet",
  "trigger": {"type": "event", "event_type": "task.completed", "skip_llm": true}
}"#;

/// `hookrig ARGS`, which must succeed; its stdout.
fn ok(env: &TestEnv, args: &[&str]) -> String {
    let output = hookrig(env, args);
    assert_eq!(
        code(&output),
        0,
        "{args:?} failed: {}",
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// `hookrig ARGS`, which must fail with exit 1; its stderr.
fn fails(env: &TestEnv, args: &[&str]) -> String {
    let output = hookrig(env, args);
    assert_eq!(
        code(&output),
        1,
        "{args:?} did not fail: {}",
        text(&output.stdout)
    );
    text(&output.stderr)
}

fn json(env: &TestEnv, args: &[&str]) -> Value {
    serde_json::from_str(&ok(env, args)).expect("JSON output")
}

/// Replaces the fields that change from run to run.
fn redact(mut value: Value) -> Value {
    // A run's id is random; an automation's is what the file says.
    if value.get("automation_id").is_some() {
        value["id"] = Value::from("[id]");
    }
    for key in ["started_at", "completed_at", "created_at", "updated_at"] {
        if value.get(key).is_some_and(|v| !v.is_null()) {
            value[key] = Value::from(format!("[{key}]"));
        }
    }
    if value.get("source").is_some() {
        value["source"] = Value::from("[source]");
    }
    value
}

fn add(env: &TestEnv) {
    env.write_file("nightly.toml", NIGHTLY);
    env.write_file("quiet.json", QUIET);
    let project = env.project();
    assert_eq!(
        ok(
            env,
            &[
                "auto",
                "add",
                &project.join("nightly.toml").display().to_string()
            ]
        ),
        "nightly-review\n"
    );
    assert_eq!(
        ok(
            env,
            &[
                "auto",
                "add",
                &project.join("quiet.json").display().to_string()
            ]
        ),
        "quiet\n"
    );
}

#[test]
fn add_list_show_enable_disable_rm() {
    let env = test_env();
    add(&env);
    let list = ok(&env, &["auto", "list"]);
    let project = env
        .project()
        .file_name()
        .expect("a name")
        .to_string_lossy()
        .into_owned();
    assert_eq!(
        list,
        format!(
            "nightly-review\tenabled\t{project}\tperiodic:7200s\tNightly Review\nquiet\tenabled\tp1\tevent:task.completed\tQuiet\n"
        )
    );
    let listed = json(&env, &["auto", "list", "--json"]);
    assert_eq!(listed.as_array().expect("array").len(), 2);
    let shown = json(&env, &["auto", "show", "quiet", "--json"]);
    insta::assert_json_snapshot!("auto_show_quiet", redact(shown));
    let shown = ok(&env, &["auto", "show", "nightly-review"]);
    assert!(
        shown.contains("trigger: periodic:7200s\ncooldown: 60s\n"),
        "{shown}"
    );

    assert_eq!(
        ok(&env, &["auto", "disable", "quiet"]),
        "disabled automation `quiet`\n"
    );
    assert_eq!(
        json(&env, &["auto", "show", "quiet", "--json"])["enabled"],
        false
    );
    assert_eq!(
        ok(&env, &["auto", "enable", "quiet"]),
        "enabled automation `quiet`\n"
    );
    assert_eq!(
        json(&env, &["auto", "show", "quiet", "--json"])["enabled"],
        true
    );

    assert_eq!(
        ok(&env, &["auto", "rm", "quiet"]),
        "removed automation `quiet` and its runs\n"
    );
    assert_eq!(
        json(&env, &["auto", "list", "--json"])
            .as_array()
            .expect("array")
            .len(),
        1
    );
}

#[test]
fn adding_an_existing_id_updates_it_and_keeps_created_at() {
    let env = test_env();
    add(&env);
    let before = json(&env, &["auto", "show", "quiet", "--json"]);
    env.write_file("quiet.json", &QUIET.replace("\"Quiet\"", "\"Quieter\""));
    ok(&env, &["auto", "add", "quiet.json"]);
    let after = json(&env, &["auto", "show", "quiet", "--json"]);
    assert_eq!(after["name"], "Quieter");
    assert_eq!(after["created_at"], before["created_at"]);
    assert_eq!(
        json(&env, &["auto", "list", "--json"])
            .as_array()
            .expect("array")
            .len(),
        2
    );
}

#[test]
fn unknown_ids_fail_with_the_not_found_message() {
    let env = test_env();
    for args in [
        &["auto", "show", "nope"][..],
        &["auto", "enable", "nope"],
        &["auto", "disable", "nope"],
        &["auto", "rm", "nope"],
        &["auto", "runs", "nope"],
        &["fire", "nope"],
    ] {
        assert_eq!(
            fails(&env, args),
            "hookrig: error: Hook 'nope' not found\n",
            "{args:?}"
        );
    }
}

#[test]
fn a_bad_file_is_reported_with_its_position() {
    let env = test_env();
    env.write_file(
        "bad.toml",
        "name = \"x\"\nwhen = 1\n[trigger]\ntype = \"periodic\"\n",
    );
    let stderr = fails(&env, &["auto", "add", "bad.toml"]);
    assert!(
        stderr.starts_with(
            "hookrig: error: bad.toml:2:1: unknown field `when`, expected one of `id`"
        ),
        "{stderr}"
    );
    assert_eq!(
        json(&env, &["auto", "list", "--json"]),
        Value::Array(Vec::new())
    );
}

#[test]
fn fire_prints_the_run_record_and_runs_lists_it() {
    let env = test_env();
    add(&env);
    let record = json(&env, &["fire", "quiet", "--json"]);
    insta::assert_json_snapshot!("fire_quiet", redact(record.clone()));
    let text_output = ok(&env, &["fire", "quiet"]);
    assert!(
        text_output.starts_with("run ") && text_output.ends_with(" of quiet: completed (manual)\n"),
        "{text_output}"
    );

    let runs = json(&env, &["auto", "runs", "--json"]);
    let runs = runs.as_array().expect("array");
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1]["id"], record["id"], "newest first");
    assert_eq!(
        json(&env, &["auto", "runs", "quiet", "--limit", "1", "--json"])
            .as_array()
            .expect("array")
            .len(),
        1
    );
    assert_eq!(
        json(&env, &["auto", "runs", "nightly-review", "--json"]),
        Value::Array(Vec::new())
    );
    let listed = ok(&env, &["auto", "runs"]);
    assert_eq!(listed.lines().count(), 2);
    assert!(
        listed.contains("\tquiet\tcompleted\tmanual\t0 tokens"),
        "{listed}"
    );

    ok(&env, &["auto", "rm", "quiet"]);
    assert_eq!(
        json(&env, &["auto", "runs", "--json"]),
        Value::Array(Vec::new()),
        "rm removed the runs"
    );
}

#[test]
fn fire_of_a_run_that_fails_prints_the_record_and_exits_1() {
    let env = test_env();
    add(&env);
    let output = hookrig(&env, &["fire", "nightly-review", "--json"]);
    assert_eq!(code(&output), 1);
    let mut record: Value = serde_json::from_slice(&output.stdout).expect("JSON record");
    // The preamble names the workspace, the temporary project.
    let prompt = record["prompt_sent"].as_str().expect("a prompt");
    record["prompt_sent"] = Value::from(env.redact(prompt));
    insta::assert_json_snapshot!("fire_failed", redact(record));
}

#[test]
fn auto_trust_records_the_project_files() {
    let env = test_env();
    env.write_file(
        ".hookrig/automations/a.toml",
        "name = \"A\"\n[trigger]\ntype = \"periodic\"\n",
    );
    let output = env
        .untrusted_command(["auto", "trust"])
        .output()
        .expect("runs");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "trusted 1 automation(s): a\n");
    let store = std::fs::read_to_string(env.state_home().join("hookrig/trust.json"))
        .expect("the trust store was written");
    assert!(store.contains("#automation#a"), "{store}");
}

#[test]
fn a_bare_file_name_takes_the_project_of_the_current_directory() {
    // guards: `auto add review.toml` stored project `default` (the empty parent)
    let env = test_env();
    env.write_file("nightly.toml", NIGHTLY);
    assert_eq!(
        ok(&env, &["auto", "add", "nightly.toml"]),
        "nightly-review\n"
    );
    let shown = json(&env, &["auto", "show", "nightly-review", "--json"]);
    assert_eq!(shown["project_id"], "project");
    assert_eq!(
        shown["source"],
        env.project().join("nightly.toml").display().to_string(),
        "the source is recorded absolute"
    );
}

/// Waits for the gate file `release` in the project, then says so: a run that lasts
/// exactly as long as the test wants, with no timing assumed.
const GATED: &str = r#"
name = "Gated"
context_steps = [{ type = "shell", command = "while [ ! -e release ]; do sleep 0.05; done; echo released", timeout = 120 }]

[trigger]
type = "periodic"
skip_llm = true
"#;

// guards: two `hookrig fire` of one automation with no serve running both ran at once;
// the second must fail with "already running" (exit 1) while the first runs
#[test]
fn a_second_fire_while_the_first_runs_is_refused() {
    let env = test_env();
    env.write_file("gated.toml", GATED);
    ok(&env, &["auto", "add", "gated.toml"]);
    let first = env
        .command(["fire", "gated", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the first fire");
    let deadline = std::time::Instant::now() + std::time::Duration::from_mins(1);
    while json(&env, &["auto", "runs", "gated", "--json"])
        .as_array()
        .is_none_or(Vec::is_empty)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the first fire never started its run"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let stderr = fails(&env, &["fire", "gated"]);
    assert_eq!(stderr, "hookrig: error: Hook 'gated' is already running\n");

    env.write_file("release", "");
    let output = first.wait_with_output().expect("the first fire ends");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let record: Value = serde_json::from_slice(&output.stdout).expect("a run record");
    assert_eq!(record["status"], "completed");
    let runs = json(&env, &["auto", "runs", "gated", "--json"]);
    assert_eq!(
        runs.as_array().map(Vec::len),
        Some(1),
        "only one run: {runs:#}"
    );
    // The lock went with the run: the next fire runs.
    let record = json(&env, &["fire", "gated", "--json"]);
    assert_eq!(record["status"], "completed");
}

/// A manual-only project automation whose one step says which version of it ran.
fn versioned(version: &str) -> String {
    format!(
        "name = \"Versioned\"\ncontext_steps = [{{ type = \"shell\", command = \"echo {version}\" }}]\n[trigger]\ntype = \"event\"\nevent_type = \"never.happens\"\nskip_llm = true\n"
    )
}

/// `hookrig fire versioned --json` with trust checked and no serve running.
fn fire_untrusted(env: &TestEnv) -> std::process::Output {
    env.untrusted_command(["fire", "versioned", "--json"])
        .output()
        .expect("run hookrig fire")
}

// guards: with no serve running, `fire` ran the version of a project automation stored
// before its file was edited; it must refuse it until the file is trusted as it is now,
// then run the new version
#[test]
fn fire_without_serve_follows_the_project_file_and_its_trust() {
    let env = test_env();
    env.write_file(".hookrig/automations/versioned.toml", &versioned("v1"));
    let trust = |args: &[&str]| {
        let output = env.untrusted_command(args).output().expect("run hookrig");
        assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    };
    trust(&["trust"]);
    let stdout_of = |output: &std::process::Output| -> String {
        assert_eq!(code(output), 0, "{}", text(&output.stderr));
        let record: Value = serde_json::from_slice(&output.stdout).expect("a run record");
        record["context_results"][0]["stdout"]
            .as_str()
            .expect("the step's stdout")
            .trim()
            .to_owned()
    };
    assert_eq!(stdout_of(&fire_untrusted(&env)), "v1");

    env.write_file(".hookrig/automations/versioned.toml", &versioned("v2"));
    let output = fire_untrusted(&env);
    assert_eq!(code(&output), 1, "the old version must not run");
    let file = env.project().join(".hookrig/automations/versioned.toml");
    assert!(
        text(&output.stderr).starts_with(&format!(
            "hookrig: error: Hook 'versioned' is held: {}: it changed since it was trusted; review it, then run `hookrig auto trust ",
            file.display()
        )),
        "{}",
        text(&output.stderr)
    );
    trust(&["auto", "trust"]);
    assert_eq!(stdout_of(&fire_untrusted(&env)), "v2");
}

/// A stub that answers the n-th request with the n-th reply, and the last one after.
fn scripted(replies: Vec<Value>) -> hookrig_test_support::HttpStub {
    let next = std::sync::atomic::AtomicUsize::new(0);
    hookrig_test_support::HttpStub::start(move |_| {
        let n = next
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            .min(replies.len() - 1);
        hookrig_test_support::Reply::json(200, replies[n].to_string())
    })
}

fn tool_calls(calls: &[(&str, Value)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(n, (name, args))| {
            serde_json::json!({"id": format!("c{n}"), "type": "function",
                "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    serde_json::json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": calls}}]})
}

const TOOLED: &str = r#"
id = "tooled"
name = "Tooled"
prompt_template = "Look at the notes and file a task."
tools = ["create_task", "emit", "memory_upsert"]
max_tool_rounds = 3

[trigger]
type = "periodic"
interval_seconds = 7200
"#;

/// `config.toml` with the OpenAI-compatible `model` and a Discord webhook at `discord`.
fn write_llm_config(env: &TestEnv, model: &str, discord: &str) {
    let config = env.config_home().join("hookrig").join("config.toml");
    std::fs::create_dir_all(config.parent().expect("a parent")).expect("mkdir");
    std::fs::write(
        &config,
        format!(
            r#"
[automation.llm]
provider = "openai"
model = "test-model"
base_url = "{model}"
api_key_env = "TOOLED_TEST_KEY"

[[notifiers]]
kind = "discord"
url = "{discord}/api/webhooks/1/t"
"#
        ),
    )
    .expect("write config.toml");
}

/// The channel saw the start, the chain of calls (coalesced: never more messages than
/// calls), then the completion, in order.
fn assert_progress(posted: &[String], chain: &str) {
    assert!(
        posted
            .first()
            .is_some_and(|m| m.starts_with("🪝 Hook **Tooled** is running")),
        "{posted:?}"
    );
    assert!(
        posted
            .last()
            .is_some_and(|m| m.starts_with("🪝 Hook **Tooled** completed.")),
        "{posted:?}"
    );
    let tools = &posted[1..posted.len() - 1];
    assert!(!tools.is_empty() && tools.len() <= 5, "{posted:?}");
    assert!(
        tools
            .iter()
            .all(|m| m.starts_with("🪝 Hook **Tooled** 🔧 `read_file`")),
        "{posted:?}"
    );
    assert_eq!(tools.last().map(String::as_str), Some(chain));
}

#[test]
fn fire_runs_the_tool_loop_records_each_call_and_posts_its_progress() {
    let env = test_env();
    env.write_file("notes.txt", "flaky: test_login\n");
    let model = scripted(vec![
        tool_calls(&[
            ("read_file", serde_json::json!({"path": "notes.txt"})),
            ("shell", serde_json::json!({"program": "rm"})),
        ]),
        tool_calls(&[
            (
                "create_task",
                serde_json::json!({"title_template": "Fix test_login", "priority": 5}),
            ),
            (
                "emit",
                serde_json::json!({"event": "flaky.noted", "payload": {"test": "test_login"}}),
            ),
            (
                "memory_upsert",
                serde_json::json!({"heading": "flaky", "content": "test_login is flaky"}),
            ),
        ]),
        serde_json::json!({"choices": [{"message": {"role": "assistant", "content": "Filed a task for test_login."}}]}),
    ]);
    let discord =
        hookrig_test_support::HttpStub::replying(hookrig_test_support::Reply::json(204, ""));
    write_llm_config(&env, model.url(), discord.url());
    env.write_file("tooled.toml", TOOLED);
    let project = env.project();
    ok(
        &env,
        &[
            "auto",
            "add",
            &project.join("tooled.toml").to_string_lossy(),
        ],
    );
    let output = env
        .command(["fire", "tooled", "--json"])
        .env("TOOLED_TEST_KEY", "sk-test")
        .output()
        .expect("hookrig runs");
    assert_eq!(
        code(&output),
        0,
        "{}{}",
        text(&output.stderr),
        text(&output.stdout)
    );
    let run: Value = serde_json::from_slice(&output.stdout).expect("a run record");
    assert_eq!(run["status"], "completed");
    assert_eq!(run["llm_response"], "Filed a task for test_login.");
    let calls = run["actions_taken"]
        .as_array()
        .expect("tool calls recorded");
    let summary: Vec<(String, bool)> = calls
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap_or_default().to_owned(),
                c.get("error").is_some(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("read_file".to_owned(), false),
            ("shell".to_owned(), true),
            ("create_task".to_owned(), false),
            ("emit".to_owned(), false),
            ("memory_upsert".to_owned(), false),
        ]
    );
    // The emitted event went through hookrig: decided and recorded in the ledger.
    assert_eq!(calls[3]["result"]["decision"], "allow");
    assert_eq!(calls[3]["result"]["event"], "flaky.noted");
    let emit_run = calls[3]["result"]["run_id"].as_str().expect("a run id");
    let why = crate::harness::why_json(&env, emit_run);
    assert_eq!(why["event"], "flaky.noted", "{why}");
    assert_eq!(calls[4]["result"]["stored"], true);
    assert_eq!(calls[0]["result"]["content"], "flaky: test_login");
    assert_eq!(
        calls[1]["error"],
        "tool `shell` is not granted to this automation; it may call read_file, list_files, memory_search, create_task, memory_upsert, emit"
    );
    // The created task is in the store.
    let task_id = calls[2]["result"]["task_id"].as_str().expect("a task id");
    let store = hookrig_store::Store::open(&env.ledger_path()).expect("store");
    let task = store.tasks().get(task_id).expect("read").expect("created");
    assert_eq!((task.title.as_str(), task.priority), ("Fix test_login", 5));

    // `auto runs` counts them; the text of a run lists them.
    let runs = ok(&env, &["auto", "runs", "tooled"]);
    assert!(runs.contains("\t5 tool calls"), "{runs}");

    let posted: Vec<String> = discord
        .requests()
        .iter()
        .map(|r| r.json()["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_progress(
        &posted,
        "🪝 Hook **Tooled** 🔧 `read_file` → `shell` → `create_task` → `emit` → `memory_upsert`",
    );
}

// guards: a model that never stops asking for tools ends the run `failed`, its calls kept
#[test]
fn a_runaway_tool_loop_fails_the_run_at_max_tool_rounds() {
    let env = test_env();
    let model = scripted(vec![tool_calls(&[("list_files", serde_json::json!({}))])]);
    let discord =
        hookrig_test_support::HttpStub::replying(hookrig_test_support::Reply::json(204, ""));
    write_llm_config(&env, model.url(), discord.url());
    env.write_file("tooled.toml", TOOLED);
    let project = env.project();
    ok(
        &env,
        &[
            "auto",
            "add",
            &project.join("tooled.toml").to_string_lossy(),
        ],
    );
    let output = env
        .command(["fire", "tooled", "--json"])
        .env("TOOLED_TEST_KEY", "sk-test")
        .output()
        .expect("hookrig runs");
    assert_eq!(code(&output), 1, "{}", text(&output.stderr));
    let run: Value = serde_json::from_slice(&output.stdout).expect("a run record");
    assert_eq!(run["status"], "failed");
    assert_eq!(
        run["llm_response"],
        "the model still asked for tools after 3 tool rounds (max_tool_rounds); the run was stopped"
    );
    assert_eq!(run["actions_taken"].as_array().map(Vec::len), Some(3));
    assert_eq!(model.count(), 4);
}
