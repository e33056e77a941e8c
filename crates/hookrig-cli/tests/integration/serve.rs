//! `hookrig serve` as a real process: events from `hookrig emit`, file changes, periodic
//! ticks, `hookrig fire` through its socket, shutdown on SIGTERM, and `auto runs
//! --follow`. Every wait polls with a generous limit; nothing assumes speed.

use std::fs::File;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use hookrig_test_support::TestEnv;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

use crate::harness::{code, emit, hookrig, test_env, text};

/// How long any one thing may take before the test fails.
const LIMIT: Duration = Duration::from_mins(1);

/// Polls `check` until it answers, failing after [`LIMIT`].
pub(crate) fn wait_for<T>(what: &str, check: impl FnMut() -> Option<T>) -> T {
    hookrig_test_support::wait_until(what, LIMIT, check)
}

/// A running `hookrig serve`, stopped (SIGKILL) when dropped if the test did not stop it.
pub(crate) struct Serve {
    child: Child,
    log: PathBuf,
}

impl Serve {
    pub(crate) fn start(env: &TestEnv) -> Serve {
        Serve::start_with(env, env.command(["serve"]))
    }

    /// A serve node of the shared store at `url` (`HOOKRIG_STORE_URL`, as an operator
    /// starts one).
    pub(crate) fn node(env: &TestEnv, url: &str) -> Serve {
        let mut command = env.command(["serve"]);
        command.env("HOOKRIG_STORE_URL", url);
        Serve::start_with(env, command)
    }

    pub(crate) fn start_with(env: &TestEnv, mut command: Command) -> Serve {
        let log = env.root().join(format!("serve-{}.log", log_number(env)));
        let file = File::create(&log).expect("create the serve log");
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("start hookrig serve");
        let serve = Serve { child, log };
        wait_for("serve to be ready", || {
            serve
                .stderr()
                .contains("hookrig serve: ready")
                .then_some(())
        });
        serve
    }

    pub(crate) fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub(crate) fn pid(&self) -> Pid {
        Pid::from_raw(i32::try_from(self.child.id()).expect("pids fit"))
    }

    /// SIGTERM, then waits for the exit.
    pub(crate) fn stop(mut self) -> (ExitStatus, String) {
        kill(self.pid(), Signal::SIGTERM).expect("signal serve");
        let status = wait_for("serve to exit", || self.child.try_wait().expect("wait"));
        (status, self.stderr())
    }

    /// [`Serve::stop`], which must end in a clean exit; its stderr.
    pub(crate) fn stop_cleanly(self) -> String {
        let (status, stderr) = self.stop();
        assert!(status.success(), "{stderr}");
        stderr
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A fresh name for a log file of this environment.
fn log_number(env: &TestEnv) -> usize {
    std::fs::read_dir(env.root()).map_or(0, Iterator::count)
}

/// The runs in the store, oldest first.
fn runs(env: &TestEnv) -> Vec<Value> {
    let output = hookrig(env, &["auto", "runs", "--limit", "1000", "--json"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let mut runs: Vec<Value> = serde_json::from_slice::<Value>(&output.stdout)
        .expect("JSON runs")
        .as_array()
        .expect("an array")
        .clone();
    runs.reverse();
    runs
}

fn runs_of(env: &TestEnv, id: &str) -> Vec<Value> {
    runs(env)
        .into_iter()
        .filter(|r| r["automation_id"] == id)
        .collect()
}

/// Waits until `id` has a run whose status is not `running`, and returns the last.
fn finished_run(env: &TestEnv, id: &str) -> Value {
    wait_for(&format!("a finished run of {id}"), || {
        runs_of(env, id)
            .into_iter()
            .rev()
            .find(|r| r["status"] != "running")
    })
}

/// Replaces what changes from run to run.
fn redact(mut run: Value) -> Value {
    run["id"] = Value::from("[id]");
    for key in ["started_at", "completed_at"] {
        if !run[key].is_null() {
            run[key] = Value::from(format!("[{key}]"));
        }
    }
    run
}

/// Writes the global `config.toml`.
pub(crate) fn write_config_toml(env: &TestEnv, toml: &str) {
    let path = env.config_home().join("hookrig").join("config.toml");
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&path, toml).expect("write config.toml");
}

/// A CLI provider that records its arguments (NUL-separated) and answers.
fn fake_provider(env: &TestEnv, answer_after: &str) {
    let args = env.root().join("provider-args");
    env.write_bin(
        "fake-llm",
        &format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > '{}'\n{answer_after}\necho 'the answer'\n",
            args.display()
        ),
    );
    write_config_toml(
        env,
        &format!(
            r#"
[[providers]]
id = "fake"
name = "Fake"
cli = "{}"
auto_approve_flag = "--yes"
initial_prompt_flag = "-p"
default_args = ["--quiet"]

[automation]
tick = "1s"

[automation.llm]
provider = "fake"
"#,
            env.bin().join("fake-llm").display()
        ),
    );
}

fn provider_args(env: &TestEnv) -> Vec<String> {
    let bytes = std::fs::read(env.root().join("provider-args")).expect("the provider ran");
    text(&bytes)
        .split_terminator('\0')
        .map(str::to_owned)
        .collect()
}

const REVIEW: &str = r#"
name = "Review"
cooldown_seconds = 0
prompt_template = "Task {{event.task_id}} done: {{step_0}}"
context_steps = [{ type = "shell", command = "echo gathered" }]

[trigger]
type = "event"
event_type = "task.completed"
"#;

const OTHER_PROJECT: &str = r#"
name = "Elsewhere"
project_id = "other"
[trigger]
type = "event"
event_type = "task.completed"
skip_llm = true
"#;

#[test]
fn an_emitted_event_runs_the_project_automation_with_the_provider() {
    let env = test_env();
    fake_provider(&env, "");
    env.write_file(".hookrig/automations/review.toml", REVIEW);
    env.write_file(".hookrig/automations/elsewhere.toml", OTHER_PROJECT);
    let serve = Serve::start(&env);
    assert!(
        serve
            .stderr()
            .contains("hookrig serve: loaded `review` from "),
        "{}",
        serve.stderr()
    );

    // Project scoping: an event of project `other` runs only the automation of `other`;
    // both are examined for the same event, so `review`'s absence is decided.
    let out = emit(
        &env,
        &["task.completed"],
        r#"{"task_id":"t0","project_id":"other"}"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(finished_run(&env, "elsewhere")["status"], "completed");
    assert!(runs_of(&env, "review").is_empty(), "scoped out");

    // An alias of the event (Hence's) reaches the same trigger.
    let out = emit(
        &env,
        &["post-complete"],
        r#"{"task_id":"t1","project_id":"project"}"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let run = finished_run(&env, "review");
    assert_eq!(run["status"], "completed", "{run:#}");
    assert_eq!(run["llm_response"], "the answer");
    let prompt = run["prompt_sent"].as_str().expect("a prompt");
    assert!(prompt.starts_with("## Automation context\n\n- Automation: Review (review)\n"));
    assert!(
        prompt.ends_with("## Task\n\nTask t1 done: gathered\n"),
        "{prompt}"
    );
    // The provider got the prompt after its flag, with its other flags first.
    assert_eq!(
        provider_args(&env),
        ["--quiet", "--yes", "-p", prompt],
        "argv of the provider"
    );
    // The workspace line names the temporary project, and the token estimate counts it.
    let mut shown = redact(run.clone());
    shown["prompt_sent"] = Value::from(env.redact(prompt));
    shown["tokens_used"] = Value::from("[tokens]");
    insta::assert_json_snapshot!("serve_completed_run", shown);

    let stderr = serve.stop_cleanly();
    assert!(
        stderr.contains("hookrig serve: run of `review` started (event:task.completed)\n")
            && stderr.contains("hookrig serve: run of `review` completed\n"),
        "{stderr}"
    );
    assert!(!env.serve_socket().exists(), "the socket is removed");
}

// guards: automations written for the orchestrator read hookrig's own task events
// (`{{event.task_id}}`), and the plan's project id lets its project's automations run
#[test]
fn a_task_completed_by_hookrig_renders_the_hook_engines_fields() {
    let env = test_env();
    fake_provider(&env, "");
    env.write_file(".hookrig/automations/review.toml", REVIEW);
    env.write_file(".hookrig/automations/elsewhere.toml", OTHER_PROJECT);
    env.write_file(
        "plan.spl",
        "(given task-api)\n(meta task-api (title \"Login endpoint\"))\n(given ready-api)\n(given task-docs)\n",
    );
    let serve = Serve::start(&env);
    let out = hookrig(
        &env,
        &[
            "task", "complete", "api", "-f", "plan.spl", "--agent", "coder",
        ],
    );
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let run = finished_run(&env, "review");
    assert_eq!(run["status"], "completed", "{run:#}");
    let prompt = run["prompt_sent"].as_str().expect("a prompt");
    assert!(
        prompt.ends_with("## Task\n\nTask api done: gathered\n"),
        "{prompt}"
    );
    let mut event = run["event_data"].clone();
    event["plan"] = Value::from(env.redact(event["plan"].as_str().expect("plan")));
    insta::assert_json_snapshot!("task_completed_event_data", event);
    // The other project's automation is scoped out of this project's event.
    assert!(runs_of(&env, "elsewhere").is_empty());
    serve.stop_cleanly();
}

const ON_POST_TOOL_USE: &str = r#"
name = "After tools"
cooldown_seconds = 0
[trigger]
type = "event"
event_type = "PostToolUse"
skip_llm = true
"#;

const ON_UNDECLARED_VERSION: &str = r#"
name = "Never"
[trigger]
type = "event"
event_type = "tool.after@v2"
skip_llm = true
"#;

// guards: an automation declared with `event_type = "PostToolUse"` must fire when
// `tool.after` is emitted (the trigger used to be compared as written and never fired)
#[test]
fn an_aliased_event_type_fires_on_the_canonical_event() {
    let env = test_env();
    env.write_file(".hookrig/automations/after.toml", ON_POST_TOOL_USE);
    env.write_file(".hookrig/automations/never.toml", ON_UNDECLARED_VERSION);
    let serve = Serve::start(&env);
    let stderr = serve.stderr();
    assert!(
        stderr.contains("hookrig serve: loaded `after-tools` from "),
        "{stderr}"
    );
    // A version the catalog does not declare is refused where it is written.
    assert!(
        stderr.contains("never.toml:5:14: tool.after has no version v2 (dispatched versions: v1)"),
        "{stderr}"
    );

    let out = emit(&env, &["tool.after"], r#"{"tool_name":"Bash"}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let run = finished_run(&env, "after-tools");
    assert_eq!(run["status"], "completed", "{run:#}");
    assert_eq!(run["trigger_reason"], "event:tool.after");

    // guards: an emit the engine of this serve answers reaches its automations too
    let mut through = env.command(["emit", "PostToolUse"]);
    through.env("HOOKRIG_ENGINE", "on");
    let through = hookrig_test_support::run_with_input(through, br#"{"tool_name":"Bash"}"#, LIMIT);
    assert_eq!(code(&through), 0, "{}", text(&through.stderr));
    wait_for("a second run of after-tools", || {
        (runs_of(&env, "after-tools")
            .iter()
            .filter(|r| r["status"] != "running")
            .count()
            >= 2)
            .then_some(())
    });

    // Listings show the event the trigger fires on.
    let list = text(&hookrig(&env, &["auto", "list"]).stdout);
    assert!(list.contains("event:tool.after"), "{list}");

    serve.stop_cleanly();
}

const SKIPPING: &str = r#"
name = "Skipping"
prompt_template = "never sent"
context_steps = [{ type = "shell", command = "true", skip_llm_if_exit_zero = true }]

[trigger]
type = "event"
event_type = "never.happens"
"#;

#[test]
fn fire_goes_through_serve_and_a_skip_flag_skips_with_its_reason() {
    let env = test_env();
    fake_provider(&env, "");
    env.write_file(".hookrig/automations/skipping.toml", SKIPPING);
    let serve = Serve::start(&env);

    let output = hookrig(&env, &["fire", "skipping", "--json"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let record: Value = serde_json::from_slice(&output.stdout).expect("a run record");
    assert_eq!(record["status"], "skipped");
    assert_eq!(
        record["skipped_reason"],
        "step_0: exit code 0 (skip_llm_if_exit_zero)"
    );
    // serve ran it: its stderr says so, and the record's fields are in the usual order.
    wait_for("serve's line about the run", || {
        serve
            .stderr()
            .contains("run of `skipping` skipped: step_0: exit code 0 (skip_llm_if_exit_zero)")
            .then_some(())
    });
    let keys: Vec<&String> = record.as_object().expect("object").keys().collect();
    assert_eq!(keys.first().map(|k| k.as_str()), Some("id"));

    let output = hookrig(&env, &["fire", "skipping"]);
    assert_eq!(code(&output), 0);
    assert!(
        text(&output.stdout).ends_with(
            " of skipping: skipped (manual)\nskipped: step_0: exit code 0 (skip_llm_if_exit_zero)\n"
        ),
        "{}",
        text(&output.stdout)
    );

    let output = hookrig(&env, &["fire", "nope"]);
    assert_eq!(code(&output), 1);
    assert_eq!(
        text(&output.stderr),
        "hookrig: error: Hook 'nope' not found\n"
    );

    // A second serve is refused, and the first is unharmed.
    let second = env.run(["serve"], b"");
    assert_eq!(code(&second), 1);
    assert_eq!(
        text(&second.stderr),
        format!(
            "hookrig: error: hookrig serve is already running (socket {})\n",
            env.serve_socket().display()
        )
    );
    assert_eq!(
        code(&hookrig(&env, &["fire", "skipping"])),
        0,
        "the first still answers"
    );
    let (status, _) = serve.stop();
    assert!(status.success());
}

// guards: a serve that listens but does not answer is an error of `fire`, never a reason
// to run the automation beside it
#[test]
fn fire_beside_a_serve_that_does_not_answer_is_an_error_and_runs_nothing() {
    let env = test_env();
    env.write_file(".hookrig/automations/skipping.toml", SKIPPING);
    // A socket that listens (the kernel accepts the connection) and never reads: a
    // serve far too busy to answer.
    let socket = env.serve_socket();
    std::fs::create_dir_all(socket.parent().expect("a directory")).expect("mkdir");
    let _silent = std::os::unix::net::UnixListener::bind(&socket).expect("listen");

    let output = hookrig(&env, &["fire", "skipping"]);
    assert_eq!(code(&output), 1, "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        format!(
            "hookrig: error: no answer from {} within 10000 ms\n",
            socket.display()
        )
    );
    assert!(runs(&env).is_empty(), "nothing ran in fire's own process");
}

#[test]
fn untrusted_project_automations_are_reported_not_loaded() {
    let env = test_env();
    env.write_file(".hookrig/automations/skipping.toml", SKIPPING);
    let serve = Serve::start_with(&env, env.untrusted_command(["serve"]));
    let stderr = serve.stderr();
    assert!(
        stderr.contains("skipping.toml: it comes with the project and is not trusted yet; review it, then run `hookrig auto trust "),
        "{stderr}"
    );
    assert!(runs(&env).is_empty());
    // Untrusted like the serve: a command that trusted every project would switch the
    // trust store, and the serve would load the file on its next tick.
    let output = env
        .untrusted_command(["fire", "skipping"])
        .output()
        .expect("run hookrig fire");
    assert_eq!(
        text(&output.stderr),
        "hookrig: error: Hook 'skipping' not found\n"
    );
    drop(serve);
}

#[test]
fn hookrig_trust_also_trusts_the_projects_automation_files() {
    let env = test_env();
    env.write_file(".hookrig/automations/skipping.toml", SKIPPING);
    let mut trust = env.untrusted_command(["trust"]);
    let output = trust.output().expect("run hookrig trust");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("trusted automation skipping\n"),
        "{}",
        text(&output.stdout)
    );
    let serve = Serve::start_with(&env, env.untrusted_command(["serve"]));
    let output = hookrig(&env, &["fire", "skipping"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(
        !serve.stderr().contains("not trusted yet"),
        "{}",
        serve.stderr()
    );
    drop(serve);
}

#[test]
fn a_file_added_and_trusted_while_serve_runs_is_loaded_on_a_tick() {
    let env = test_env();
    write_config_toml(&env, "[automation]\ntick = \"1s\"\n");
    let serve = Serve::start_with(&env, env.untrusted_command(["serve"]));
    env.write_file(".hookrig/automations/skipping.toml", SKIPPING);
    wait_for("serve to report the new file as untrusted", || {
        serve.stderr().contains("not trusted yet").then_some(())
    });
    let output = env
        .untrusted_command(["trust"])
        .output()
        .expect("run hookrig trust");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    wait_for("serve to load the trusted file", || {
        serve.stderr().contains("loaded `skipping`").then_some(())
    });
    let output = hookrig(&env, &["fire", "skipping"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    drop(serve);
}

const ON_CONFIG_CHANGE: &str = r#"
name = "Config Watch"
cooldown_seconds = 0
context_steps = [{ type = "shell", command = "echo seen" }]

[trigger]
type = "event"
event_type = "file.changed"
skip_llm = true

[trigger.watch]
paths = ["config/app.toml"]
"#;

#[test]
fn writing_a_watched_file_runs_its_automation() {
    let env = test_env();
    write_config_toml(&env, "[automation]\ndebounce = \"0s\"\n");
    env.write_file("config/.keep", "");
    env.write_file(".hookrig/automations/watch.toml", ON_CONFIG_CHANGE);
    let serve = Serve::start(&env);
    wait_for("the watch to be set up", || {
        serve
            .stderr()
            .contains("watching 1 path(s) for 1 automation(s)")
            .then_some(())
    });

    env.write_file("config/app.toml", "port = 1\n");
    let run = finished_run(&env, "config-watch");
    assert_eq!(run["status"], "completed", "{run:#}");
    assert_eq!(run["trigger_reason"], "event:file.changed");
    let event = &run["event_data"];
    assert_eq!(event["relative_path"], "config/app.toml");
    assert_eq!(event["operation"], "created");
    assert_eq!(event["watch_id"], "config-watch");
    assert_eq!(event["project_id"], "project");
    assert_eq!(event["_event_type"], "file.changed");
    assert_eq!(run["context_results"][0]["stdout"], "seen\n");

    // Disabled from another process: the watch goes on the next tick.
    hookrig(&env, &["auto", "disable", "config-watch"]);
    wait_for("the watch to be dropped", || {
        serve
            .stderr()
            .contains("watching 0 path(s) for 0 automation(s)")
            .then_some(())
    });
    drop(serve);
}

const HOURLY: &str = r#"
name = "Hourly"
context_steps = [{ type = "shell", command = "true" }]
[trigger]
type = "periodic"
interval_seconds = 3600
skip_llm = true
"#;

const EVERY_SECOND: &str = r#"
name = "Every Second"
cooldown_seconds = 0
[trigger]
type = "periodic"
interval_seconds = 1
skip_llm = true
"#;

#[test]
fn a_periodic_automation_runs_at_start_and_not_again_even_after_a_restart() {
    let env = test_env();
    write_config_toml(&env, "[automation]\ntick = \"1s\"\n");
    env.write_file(".hookrig/automations/hourly.toml", HOURLY);
    env.write_file(".hookrig/automations/every.toml", EVERY_SECOND);

    let ticks_seen = |at_least: usize| {
        wait_for("more ticks", || {
            (runs_of(&env, "every-second").len() >= at_least).then_some(())
        });
    };
    let serve = Serve::start(&env);
    let first = finished_run(&env, "hourly");
    assert_eq!(first["trigger_reason"], "periodic");
    assert_eq!(
        first["event_data"].get("last_run_time"),
        None,
        "a first run"
    );
    assert!(first["event_data"]["current_time_epoch"].is_f64());
    // The one-second automation proves that ticks went by.
    ticks_seen(3);
    assert_eq!(runs_of(&env, "hourly").len(), 1);
    let (status, _) = serve.stop();
    assert!(status.success());

    let before = runs_of(&env, "every-second").len();
    let serve = Serve::start(&env);
    ticks_seen(before + 2);
    assert_eq!(
        runs_of(&env, "hourly").len(),
        1,
        "the restart kept the last run"
    );
    drop(serve);
}

#[test]
fn sigterm_interrupts_a_long_run_and_kills_its_provider() {
    signal_serve_during_a_long_run(Signal::SIGTERM, LongPart::Provider);
}

// guards: SIGHUP to serve while a run is in flight acted like SIGKILL: the run was left
// `running`, its provider or step orphaned and the socket left behind
#[test]
fn sighup_interrupts_a_long_run_and_kills_its_provider_or_step() {
    signal_serve_during_a_long_run(Signal::SIGHUP, LongPart::Provider);
    signal_serve_during_a_long_run(Signal::SIGHUP, LongPart::Step);
}

/// Which part of the run takes long.
#[derive(Debug, Clone, Copy)]
enum LongPart {
    Provider,
    /// A shell context step, before the provider.
    Step,
}

/// Sends `signal` to serve while the `long` part of an automation's run runs (a marked
/// `sleep 120`): serve exits 0, the run reads `interrupted` with a completion time, no
/// process of the run is left, and the socket is gone.
fn signal_serve_during_a_long_run(signal: Signal, long: LongPart) {
    let env = test_env();
    let sleep = format!("'{}' 120", env.marked_sleep().display());
    match long {
        LongPart::Provider => {
            fake_provider(&env, &sleep);
            env.write_file(".hookrig/automations/review.toml", REVIEW);
        }
        LongPart::Step => {
            fake_provider(&env, "");
            let step = format!("context_steps = [{{ type = \"shell\", command = \"{sleep}\" }}]");
            let review = REVIEW.replace(
                r#"context_steps = [{ type = "shell", command = "echo gathered" }]"#,
                &step,
            );
            assert_ne!(review, REVIEW);
            env.write_file(".hookrig/automations/review.toml", &review);
        }
    }
    let mut serve = Serve::start(&env);
    let out = emit(&env, &["task.completed"], r#"{"task_id":"t1"}"#);
    assert_eq!(out.code, 0);
    wait_for(
        &format!("the {long:?} to be sleeping ({})", serve.log.display()),
        || {
            hookrig_test_support::processes_with(&env.marked_sleep().display().to_string())
                .iter()
                .any(|(_, cmd)| cmd.contains("120"))
                .then_some(())
        },
    );
    let run = &runs_of(&env, "review")[0];
    assert_eq!(run["status"], "running", "{}", serve.stderr());

    kill(serve.pid(), signal).expect("signal serve");
    let status = wait_for("serve to exit", || serve.child.try_wait().expect("wait"));
    let stderr = serve.stderr();
    assert_eq!(status.code(), Some(0), "{signal} {long:?}: {stderr}");
    let run = &runs_of(&env, "review")[0];
    assert_eq!(run["status"], "interrupted", "{signal} {long:?}: {run:#}");
    assert!(!run["completed_at"].is_null(), "{signal} {long:?}: {run:#}");
    assert_eq!(
        env.leftovers(),
        Vec::<i32>::new(),
        "{signal} {long:?}: the run's processes are gone"
    );
    assert!(!env.serve_socket().exists(), "{signal} {long:?}: {stderr}");
}

#[test]
fn a_run_left_by_a_killed_serve_is_interrupted_by_the_next_serve_not_by_fire() {
    let env = test_env();
    fake_provider(&env, &format!("'{}' 120", env.marked_sleep().display()));
    env.write_file(".hookrig/automations/review.toml", REVIEW);
    env.write_file(".hookrig/automations/skipping.toml", SKIPPING);
    let serve = Serve::start(&env);
    let out = emit(&env, &["task.completed"], r#"{"task_id":"t1"}"#);
    assert_eq!(out.code, 0);
    wait_for("the run to be running", || {
        runs_of(&env, "review")
            .first()
            .filter(|r| r["status"] == "running")
            .map(|_| ())
    });
    // A crash: no chance to record anything.
    drop(serve);
    hookrig_test_support::kill_all_with(env.marker());
    assert_eq!(runs_of(&env, "review")[0]["status"], "running");

    // An in-process fire cannot tell a crash's leftover from another live run.
    let output = hookrig(&env, &["fire", "skipping"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(runs_of(&env, "review")[0]["status"], "running");

    // The next serve owns the automations: the leftover becomes interrupted.
    let serve = Serve::start(&env);
    let run = &runs_of(&env, "review")[0];
    assert_eq!(run["status"], "interrupted", "{run:#}");
    assert!(!run["completed_at"].is_null());
    assert!(
        serve
            .stderr()
            .contains("1 run(s) left running by an earlier process marked interrupted"),
        "{}",
        serve.stderr()
    );
}

// guards: SIGHUP stops serve cleanly, as SIGTERM does (by default it would kill serve
// like SIGKILL: runs left `running`, the socket left behind); and serve's start-up
// recovery leaves alone a run that a live `hookrig fire` is running in-process
#[test]
fn sighup_stops_serve_cleanly_and_a_live_fire_run_is_not_interrupted_by_the_next_serve() {
    let env = test_env();
    fake_provider(&env, &format!("'{}' 120", env.marked_sleep().display()));
    env.write_file(".hookrig/automations/review.toml", REVIEW);
    // Stores the project's automations, then hangs up.
    let mut serve = Serve::start(&env);
    kill(serve.pid(), Signal::SIGHUP).expect("signal serve");
    let status = wait_for("serve to exit", || serve.child.try_wait().expect("wait"));
    assert_eq!(status.code(), Some(0), "{}", serve.stderr());
    assert!(
        serve.stderr().contains("hookrig serve: stopped"),
        "{}",
        serve.stderr()
    );
    assert!(!env.serve_socket().exists(), "the socket was removed");
    drop(serve);

    // No serve: `fire` runs the automation in its own process.
    let mut fire = env
        .command(["fire", "review"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start hookrig fire");
    wait_for("the fired run to be running", || {
        runs_of(&env, "review")
            .first()
            .filter(|r| r["status"] == "running")
            .map(|_| ())
    });
    let serve = Serve::start(&env);
    let run = &runs_of(&env, "review")[0];
    assert_eq!(run["status"], "running", "{run:#}\n{}", serve.stderr());
    // A hang-up stops the in-process fire as SIGTERM does.
    let fire_pid = Pid::from_raw(i32::try_from(fire.id()).expect("pids fit"));
    kill(fire_pid, Signal::SIGHUP).expect("signal fire");
    let status = wait_for("fire to exit", || fire.try_wait().expect("wait"));
    assert_eq!(status.code(), Some(130));
    assert_eq!(runs_of(&env, "review")[0]["status"], "interrupted");
    drop(serve);
}

#[test]
fn runs_follow_shows_runs_as_they_happen() {
    let env = test_env();
    env.write_file(".hookrig/automations/skipping.toml", SKIPPING);
    let out_path = env.root().join("follow.out");
    let mut follow = env
        .command(["auto", "runs", "--follow"])
        .stdin(Stdio::null())
        .stdout(File::create(&out_path).expect("create"))
        .stderr(Stdio::null())
        .spawn()
        .expect("start follow");
    let serve = Serve::start(&env);
    assert_eq!(code(&hookrig(&env, &["fire", "skipping"])), 0);
    let line = wait_for("follow to print the run", || {
        std::fs::read_to_string(&out_path)
            .unwrap_or_default()
            .lines()
            .find(|l| l.contains("\tskipping\tskipped\tmanual\t"))
            .map(str::to_owned)
    });
    assert_eq!(line.split('\t').count(), 6, "{line}");
    assert!(
        line.ends_with("\tstep_0: exit code 0 (skip_llm_if_exit_zero)"),
        "the reason ends the line of a skipped run: {line}"
    );

    kill(
        Pid::from_raw(i32::try_from(follow.id()).expect("pid")),
        Signal::SIGINT,
    )
    .expect("signal follow");
    let status = wait_for("follow to exit", || follow.try_wait().expect("wait"));
    assert!(status.success());
    drop(serve);
}

/// A manual-only automation whose one step says which version of the file ran.
fn versioned(version: &str) -> String {
    format!(
        "name = \"Versioned\"\ncontext_steps = [{{ type = \"shell\", command = \"echo {version}\" }}]\n[trigger]\ntype = \"event\"\nevent_type = \"never.happens\"\nskip_llm = true\n"
    )
}

/// `hookrig fire versioned --json` (which must succeed): the step's stdout.
fn fired_version(env: &TestEnv) -> String {
    // Untrusted, like the serve of the tests that use it.
    let output = env
        .untrusted_command(["fire", "versioned", "--json"])
        .output()
        .expect("runs");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let record: Value = serde_json::from_slice(&output.stdout).expect("a run record");
    record["context_results"][0]["stdout"]
        .as_str()
        .expect("the step's stdout")
        .trim()
        .to_owned()
}

// guards: a trusted automation file edited while serve runs was reported "not loaded"
// while its old version kept running; the old version is stopped until the new one is
// trusted, and then the new one runs
#[test]
fn an_edited_automation_file_stops_the_old_version_until_the_new_one_is_trusted() {
    let env = test_env();
    write_config_toml(&env, "[automation]\ntick = \"1s\"\n");
    env.write_file(".hookrig/automations/versioned.toml", &versioned("v1"));
    let output = env
        .untrusted_command(["trust"])
        .output()
        .expect("run hookrig trust");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let serve = Serve::start_with(&env, env.untrusted_command(["serve"]));
    assert_eq!(fired_version(&env), "v1");

    env.write_file(".hookrig/automations/versioned.toml", &versioned("v2"));
    wait_for("serve to stop the old version", || {
        serve.stderr().contains("stopped `versioned`").then_some(())
    });
    let stderr = serve.stderr();
    let file = env.project().join(".hookrig/automations/versioned.toml");
    assert!(
        stderr.contains(&format!(
            "hookrig serve: not loaded: {}: it changed since it was trusted; review it, then run `hookrig auto trust ",
            file.display()
        )),
        "{stderr}"
    );
    // Untrusted like the serve: a command that trusted every project would trust v2.
    let output = env
        .untrusted_command(["fire", "versioned"])
        .output()
        .expect("runs");
    assert_eq!(code(&output), 1, "the old version must not run");
    assert!(
        text(&output.stderr).starts_with(&format!(
            "hookrig: error: Hook 'versioned' is held: {}: it changed since it was trusted; review it, then run `hookrig auto trust ",
            file.display()
        )),
        "{}",
        text(&output.stderr)
    );
    let listed = text(
        &env.untrusted_command(["auto", "list"])
            .output()
            .expect("runs")
            .stdout,
    );
    assert!(listed.starts_with("versioned\theld\t"), "{listed}");

    let output = env
        .untrusted_command(["auto", "trust"])
        .output()
        .expect("run hookrig auto trust");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    wait_for("serve to load the trusted new version", || {
        (serve.stderr().matches("loaded `versioned`").count() >= 2).then_some(())
    });
    assert_eq!(fired_version(&env), "v2", "the new version runs");
    drop(serve);
}

const GATED_EVENT: &str = r#"
name = "Gated Event"
cooldown_seconds = 0
context_steps = [{ type = "shell", command = "while [ ! -e release ]; do sleep 0.05; done", timeout = 120 }]
[trigger]
type = "event"
event_type = "task.completed"
skip_llm = true
"#;

// guards: events an automation wanted while a run of it was in flight were dropped
// without a trace; each is recorded with its reason (`auto runs`, `--debug`)
#[test]
fn an_event_not_run_because_a_run_is_in_flight_is_recorded() {
    let env = test_env();
    env.write_file(".hookrig/automations/gated.toml", GATED_EVENT);
    let mut command = env.command(["serve"]);
    command.arg("--debug");
    let serve = Serve::start_with(&env, command);
    let out = emit(&env, &["task.completed"], r#"{"task_id":"t1"}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let first = wait_for("the first run", || {
        runs_of(&env, "gated-event")
            .into_iter()
            .find(|r| r["status"] == "running")
    });
    let out = emit(&env, &["task.completed"], r#"{"task_id":"t2"}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let dropped = wait_for("the second event to be recorded", || {
        runs_of(&env, "gated-event")
            .into_iter()
            .find(|r| r["status"] == "skipped")
    });
    let reason = format!(
        "event not run: a run of it ({}) was in flight",
        first["id"].as_str().expect("an id")
    );
    assert_eq!(dropped["skipped_reason"], reason.as_str());
    assert_eq!(dropped["trigger_reason"], "event:task.completed");
    assert_eq!(dropped["event_data"]["task_id"], "t2");
    assert!(dropped["context_results"].is_null(), "nothing ran");
    let listed = text(&hookrig(&env, &["auto", "runs"]).stdout);
    assert!(
        listed.contains(&format!(
            "\tgated-event\tskipped\tevent:task.completed\t0 tokens\t{reason}\n"
        )),
        "{listed}"
    );
    wait_for("the debug line", || {
        serve
            .stderr()
            .contains(&format!(
                "event not run: a run of it ({}) was in flight",
                first["id"].as_str().unwrap_or_default()
            ))
            .then_some(())
    });
    env.write_file("release", "");
    wait_for("the first run to complete", || {
        runs_of(&env, "gated-event")
            .into_iter()
            .any(|r| r["id"] == first["id"] && r["status"] == "completed")
            .then_some(())
    });
    drop(serve);
}
