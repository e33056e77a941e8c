//! The engine's gates and run lifecycle, against a real store, with canned step
//! results, a scripted LLM and a clock the tests move.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;

use super::*;
use crate::definition::parse_automation;

/// Canned step results for the engine's tests, standing in for `steps::run_steps` (being
/// written separately): each step answers its own `canned` object, or `{}`, plus
/// `_step_index`.
fn canned_step_results(steps: &[Value]) -> Vec<Value> {
    steps
        .iter()
        .enumerate()
        .map(|(index, step)| {
            let mut result = step.get("canned").cloned().unwrap_or_else(|| json!({}));
            result["_step_index"] = json!(index);
            result
        })
        .collect()
}

struct CannedSteps;

impl StepRunner for CannedSteps {
    fn run_steps<'a>(
        &'a self,
        automation: &'a Automation,
        _event: Option<&'a Value>,
    ) -> BoxFuture<'a, Vec<Value>> {
        Box::pin(async move { canned_step_results(&automation.context_steps) })
    }
}

#[derive(Clone, Copy)]
enum Reply {
    Answer,
    Fail,
    Hang,
    /// Calls `echo` twice, then `nope` (not a tool), then answers.
    UseTools,
    /// Calls `echo` once, then hangs.
    ToolThenHang,
}

/// One tool, `echo`, answering its arguments.
struct Echo;

impl crate::tools::Toolbox for Echo {
    fn specs(&self) -> Vec<crate::tools::ToolSpec> {
        vec![crate::tools::ToolSpec {
            name: "echo".into(),
            description: "echoes".into(),
            schema: json!({"type": "object"}),
        }]
    }

    fn call<'a>(
        &'a self,
        _: &'a str,
        arguments: &'a Value,
    ) -> BoxFuture<'a, Result<Value, String>> {
        Box::pin(async move { Ok(arguments.clone()) })
    }
}

struct ScriptedLlm {
    reply: Reply,
    prompts: Mutex<Vec<String>>,
}

impl LlmBackend for ScriptedLlm {
    fn complete<'a>(
        &'a self,
        _automation: &'a Automation,
        prompt: &'a str,
        actions: &'a ActionLog,
    ) -> BoxFuture<'a, Result<Answered, String>> {
        self.prompts
            .lock()
            .expect("not poisoned")
            .push(prompt.to_owned());
        let reply = self.reply;
        let answered = |text: &str| Answered {
            text: text.to_owned(),
            tokens: estimate_tokens(prompt, text),
        };
        Box::pin(async move {
            match reply {
                Reply::Answer => Ok(answered("all good")),
                Reply::Fail => Err("provider said no".to_owned()),
                Reply::Hang => std::future::pending().await,
                Reply::UseTools => {
                    for n in 1..=2 {
                        let _ = actions.call(&Echo, "echo", Ok(json!({"n": n}))).await;
                    }
                    let _ = actions.call(&Echo, "nope", Ok(json!({}))).await;
                    Ok(answered("used tools"))
                }
                Reply::ToolThenHang => {
                    let _ = actions.call(&Echo, "echo", Ok(json!({"n": 1}))).await;
                    std::future::pending().await
                }
            }
        })
    }
}

#[derive(Default)]
struct Phases(Mutex<Vec<String>>);

impl RunObserver for Phases {
    fn phase(&self, automation: &Automation, phase: RunPhase<'_>) {
        self.0
            .lock()
            .expect("not poisoned")
            .push(format!("{}: {phase:?}", automation.id));
    }
}

struct World {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
    time: Arc<Mutex<f64>>,
    llm: Arc<ScriptedLlm>,
    phases: Arc<Phases>,
    engine: Engine,
}

const START: f64 = 1_750_000_000.0;

impl World {
    fn new(reply: Reply, settings: EngineSettings) -> World {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("ledger.db");
        let time = Arc::new(Mutex::new(START));
        let llm = Arc::new(ScriptedLlm {
            reply,
            prompts: Mutex::new(Vec::new()),
        });
        let phases = Arc::new(Phases::default());
        let engine = build(&path, &time, &llm, &phases, settings);
        World {
            _dir: dir,
            path,
            time,
            llm,
            phases,
            engine,
        }
    }

    fn add(&self, toml: &str) {
        let automation = parse_automation(Path::new("/t/a.toml"), toml, "proj", START)
            .expect("valid automation");
        Store::open(&self.path)
            .expect("open")
            .automations()
            .upsert(&automation.to_row())
            .expect("store");
    }

    fn advance(&self, seconds: f64) {
        *self.time.lock().expect("not poisoned") += seconds;
    }

    fn now(&self) -> f64 {
        *self.time.lock().expect("not poisoned")
    }

    /// Waits until every run in flight has finished (they stay tracked until a tick).
    async fn settle(&self) {
        for _ in 0..500 {
            let done = self
                .engine
                .state()
                .running
                .values()
                .all(|f| f.handle.is_finished());
            if done {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("runs did not finish");
    }

    fn runs(&self, id: Option<&str>) -> Vec<AutomationRun> {
        Store::open(&self.path)
            .expect("open")
            .automation_runs()
            .list(id, 100)
            .expect("runs")
    }

    /// The automations that ran, one entry per run (events not run are left out).
    fn launched(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .runs(None)
            .into_iter()
            .filter(|r| !is_dropped(r))
            .map(|r| r.automation_id)
            .collect();
        ids.sort();
        ids
    }
}

/// A row recording an event that was not run.
fn is_dropped(run: &AutomationRun) -> bool {
    run.status == RunStatus::Skipped && run.context_results.is_none()
}

fn build(
    path: &Path,
    time: &Arc<Mutex<f64>>,
    llm: &Arc<ScriptedLlm>,
    phases: &Arc<Phases>,
    settings: EngineSettings,
) -> Engine {
    let clock_time = Arc::clone(time);
    let wiring = Wiring {
        steps: Arc::new(CannedSteps),
        llm: Arc::clone(llm) as Arc<dyn LlmBackend>,
        observer: Some(Arc::clone(phases) as Arc<dyn RunObserver>),
        clock: Arc::new(move || *clock_time.lock().expect("not poisoned")),
    };
    Engine::new(Store::open(path).expect("open"), wiring, settings).expect("engine")
}

use std::path::Path;

fn event_automation(id: &str, event: &str, extra: &str) -> String {
    format!(
        "id = \"{id}\"\nname = \"{id}\"\nprompt_template = \"event {{{{event.title}}}}\"\n{extra}\n[trigger]\ntype = \"event\"\nevent_type = \"{event}\"\n"
    )
}

fn periodic_automation(id: &str, interval: u64, cooldown: u64) -> String {
    format!(
        "id = \"{id}\"\nname = \"{id}\"\ncooldown_seconds = {cooldown}\nprompt_template = \"since {{{{event.last_run_time}}}}\"\n[trigger]\ntype = \"periodic\"\ninterval_seconds = {interval}\n"
    )
}

#[tokio::test]
async fn event_runs_the_matching_automation_with_the_payload() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(&event_automation("a", "task.completed", ""));
    world.add(&event_automation("b", "task.failed", ""));
    world.engine.on_event(
        "task.completed",
        json!({"task_id": "t1", "project_id": "proj", "title": "Ship it", "status": "done"}),
    );
    world.settle().await;
    let runs = world.runs(None);
    assert_eq!(runs.len(), 1, "only the automation for task.completed ran");
    let record = runs[0].clone();
    assert_eq!(record.trigger_reason, "event:task.completed");
    assert_eq!(record.status, RunStatus::Completed);
    assert_eq!(
        record.event_data,
        Some(
            json!({"task_id": "t1", "project_id": "proj", "title": "Ship it", "status": "done", "_event_type": "task.completed"})
        )
    );
    assert_eq!(record.llm_response.as_deref(), Some("all good"));
    insta::assert_snapshot!(record.prompt_sent.expect("a prompt"), @r"
    ## Automation context

    - Automation: a (a)
    - Project: proj
    - Trigger: event:task.completed

    ## Task

    event Ship it
    ");
    let prompt_len = world.llm.prompts.lock().expect("not poisoned")[0]
        .chars()
        .count();
    assert_eq!(
        record.tokens_used,
        i64::try_from(prompt_len / 4 + "all good".len() / 4).expect("small")
    );
    assert_eq!(
        *world.phases.0.lock().expect("not poisoned"),
        [
            "a: Started { trigger_reason: \"event:task.completed\" }",
            "a: Completed { response: Some(\"all good\") }"
        ]
    );
}

#[tokio::test]
async fn project_scoping_skips_events_of_other_projects() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(&event_automation(
        "a",
        "note.created",
        "cooldown_seconds = 0",
    ));
    world
        .engine
        .on_event("note.created", json!({"project_id": "other"}));
    world.settle().await;
    assert!(world.launched().is_empty(), "another project's event");
    world.engine.on_event("note.created", json!({"title": "x"}));
    world.settle().await;
    world.engine.tick().await;
    assert_eq!(world.launched(), ["a"], "an event without project_id");
    world
        .engine
        .on_event("note.created", json!({"project_id": "proj"}));
    world.settle().await;
    assert_eq!(world.launched(), ["a", "a"], "the automation's own project");
}

#[tokio::test]
async fn watch_project_overrides_the_scope() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(
        "id = \"w\"\nname = \"w\"\n[trigger]\ntype = \"event\"\nevent_type = \"file.changed\"\nwatch = { paths = [\"x\"], project_id = \"docs\" }\n",
    );
    world
        .engine
        .on_event("file.changed", json!({"project_id": "proj"}));
    world.settle().await;
    assert!(world.launched().is_empty());
    world
        .engine
        .on_event("file.changed", json!({"project_id": "docs"}));
    world.settle().await;
    assert_eq!(world.launched(), ["w"]);
}

#[tokio::test]
async fn a_watching_automation_takes_only_its_own_watch_events() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    for id in ["docs", "src"] {
        world.add(&format!(
            "id = \"{id}\"\nname = \"{id}\"\ncooldown_seconds = 0\n[trigger]\ntype = \"event\"\nevent_type = \"file.changed\"\nwatch = {{ paths = [\"{id}/\"] }}\n"
        ));
    }
    world.add(&event_automation(
        "any",
        "file.changed",
        "cooldown_seconds = 0",
    ));
    world.engine.on_event(
        "file.changed",
        json!({"watch_id": "src", "path": "/p/src/a.rs"}),
    );
    world.settle().await;
    let mut launched = world.launched();
    launched.sort();
    assert_eq!(launched, ["any", "src"], "docs watches another folder");
}

#[tokio::test]
async fn cooldown_holds_until_it_has_passed_exactly() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(&event_automation("a", "e", "cooldown_seconds = 100"));
    world.engine.on_event("e", json!({}));
    world.settle().await;
    world.engine.tick().await;
    world.advance(99.0);
    world.engine.on_event("e", json!({}));
    world.settle().await;
    assert_eq!(world.launched().len(), 1, "99 s < 100 s cooldown");
    world.advance(1.0);
    world.engine.on_event("e", json!({}));
    world.settle().await;
    assert_eq!(world.launched().len(), 2, "now - last >= cooldown");
}

#[tokio::test]
async fn in_flight_automations_are_not_launched_again() {
    let world = World::new(Reply::Hang, EngineSettings::default());
    world.add(&event_automation("a", "e", "cooldown_seconds = 0"));
    world.engine.on_event("e", json!({}));
    tokio::time::sleep(Duration::from_millis(20)).await;
    world.engine.on_event("e", json!({}));
    world.engine.tick().await;
    world.engine.on_event("e", json!({}));
    assert_eq!(world.launched(), ["a"]);
    let error = world.engine.fire("a").await.expect_err("in flight");
    assert_eq!(error.to_string(), "Hook 'a' is already running");
    world.engine.shutdown().await;
}

#[tokio::test]
async fn a_finished_run_does_not_block_the_next_fire() {
    // guards: `fire` refused as "already running" until the next tick after a run ended
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(&event_automation("a", "e", ""));
    let first = world.engine.fire("a").await.expect("fired");
    let second = world.engine.fire("a").await.expect("fired again at once");
    assert_ne!(first.id, second.id);
}

#[tokio::test]
async fn the_cap_stops_launching_for_the_cycle() {
    let settings = EngineSettings {
        max_concurrent: 2,
        ..EngineSettings::default()
    };
    let world = World::new(Reply::Hang, settings);
    for id in ["a", "b", "c"] {
        world.add(&event_automation(id, "e", ""));
    }
    world.engine.on_event("e", json!({}));
    assert_eq!(
        world.engine.in_flight(),
        ["a", "b"],
        "examined in order, c not"
    );
    world.engine.shutdown().await;
}

#[tokio::test]
async fn a_finished_run_counts_toward_the_cap_until_a_tick_cleans_it_up() {
    let settings = EngineSettings {
        max_concurrent: 1,
        ..EngineSettings::default()
    };
    let world = World::new(Reply::Answer, settings);
    world.add(&event_automation("a", "e", ""));
    world.add(&event_automation("b", "e", ""));
    world.engine.on_event("e", json!({}));
    world.settle().await;
    world.engine.on_event("e", json!({}));
    assert_eq!(
        world.launched(),
        ["a"],
        "a's finished run still holds the cap"
    );
    world.engine.tick().await;
    world.engine.on_event("e", json!({}));
    world.settle().await;
    assert_eq!(world.launched(), ["a", "b"]);
}

// guards: a trigger written with one spelling of an event fires on every other
// spelling of it (`event_type = "PostToolUse"` on an emitted `tool.after`)
#[tokio::test]
async fn every_spelling_of_an_event_fires_every_spelling_of_its_triggers() {
    let settings = EngineSettings {
        max_concurrent: 4,
        ..EngineSettings::default()
    };
    let world = World::new(Reply::Answer, settings);
    world.add(&event_automation(
        "claude",
        "PostToolUse",
        "cooldown_seconds = 0",
    ));
    world.add(&event_automation(
        "hygge",
        "post_tool",
        "cooldown_seconds = 0",
    ));
    world.add(&event_automation(
        "versioned",
        "tool.after@v1",
        "cooldown_seconds = 0",
    ));
    world.add(&event_automation(
        "other",
        "tool.before",
        "cooldown_seconds = 0",
    ));
    world.engine.on_event("tool.after", json!({}));
    world.settle().await;
    let mut launched = world.launched();
    launched.sort();
    assert_eq!(launched, ["claude", "hygge", "versioned"]);
    world.engine.on_event("PostToolUse@v1", json!({}));
    world.settle().await;
    let runs = world.runs(Some("claude"));
    assert_eq!(runs.len(), 2, "an aliased emit fires it too");
    let record = runs[0].clone();
    assert_eq!(record.trigger_reason, "event:tool.after");
    assert_eq!(
        record.event_data,
        Some(json!({"_event_type": "tool.after"})),
        "the payload names the event canonically"
    );
}

#[tokio::test]
async fn event_triggers_ignore_ticks_and_periodic_triggers_ignore_events() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(&event_automation("ev", "periodic", ""));
    world.add(&periodic_automation("per", 60, 0));
    world.engine.on_event("periodic", json!({}));
    world.settle().await;
    assert_eq!(
        world.launched(),
        ["ev"],
        "the periodic automation is not an event trigger"
    );
    world.engine.tick().await;
    world.settle().await;
    assert_eq!(
        world.launched(),
        ["ev", "per"],
        "the tick runs only the periodic one"
    );
}

#[tokio::test]
async fn periodic_first_run_then_timing_fields_after_the_interval() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(&periodic_automation("p", 600, 0));
    world.engine.tick().await;
    world.settle().await;
    let first = world.runs(Some("p"))[0].clone();
    assert_eq!(first.trigger_reason, "periodic");
    assert_eq!(
        first.event_data,
        Some(json!({"current_time": "2025-06-15T15:06:40Z", "current_time_epoch": START}))
    );
    insta::assert_snapshot!(first.prompt_sent.expect("prompt"), @r"
    ## Automation context

    - Automation: p (p)
    - Project: proj
    - Trigger: periodic
    - Current time: 2025-06-15T15:06:40Z

    ## Task

    since
    ");

    world.advance(599.0);
    world.engine.tick().await;
    world.settle().await;
    assert_eq!(world.runs(Some("p")).len(), 1, "599 s < interval 600 s");

    world.advance(1.0);
    world.engine.tick().await;
    world.settle().await;
    let second = world.runs(Some("p"))[0].clone();
    assert_eq!(
        second.event_data,
        Some(json!({
            "current_time": "2025-06-15T15:16:40Z", "current_time_epoch": START + 600.0,
            "last_run_time": "2025-06-15T15:06:40Z", "last_run_time_epoch": START,
            "seconds_since_last_run": 600.0
        }))
    );
    assert!(
        second
            .prompt_sent
            .expect("prompt")
            .contains("- Last run: 2025-06-15T15:06:40Z (600 seconds ago)\n\n## Task\n\nsince 2025-06-15T15:06:40Z")
    );
}

#[tokio::test]
async fn periodic_runs_wait_for_the_cooldown_too() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(&periodic_automation("p", 10, 100));
    world.engine.tick().await;
    world.settle().await;
    world.advance(50.0);
    world.engine.tick().await;
    world.settle().await;
    assert_eq!(
        world.runs(Some("p")).len(),
        1,
        "interval passed, cooldown not"
    );
    world.advance(50.0);
    world.engine.tick().await;
    world.settle().await;
    assert_eq!(world.runs(Some("p")).len(), 2);
}

#[tokio::test]
async fn cron_runs_when_an_occurrence_passed_since_the_last_tick() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    // START is 15:06:40; the next quarter hour is 15:15:00.
    world.add(
        "id = \"c\"\nname = \"c\"\ncooldown_seconds = 0\n[trigger]\ntype = \"cron\"\nexpression = \"*/15 * * * *\"\n",
    );
    world.advance(400.0); // 15:13:20
    world.engine.tick().await;
    world.settle().await;
    assert!(world.runs(Some("c")).is_empty(), "no occurrence yet");
    world.advance(100.0); // 15:15:00, the occurrence itself
    world.engine.tick().await;
    world.settle().await;
    assert_eq!(world.runs(Some("c")).len(), 1);
    assert_eq!(world.runs(Some("c"))[0].trigger_reason, "cron");
    world.advance(5.0);
    world.engine.tick().await;
    world.settle().await;
    assert_eq!(world.runs(Some("c")).len(), 1, "once per occurrence");
}

#[tokio::test]
async fn fire_bypasses_the_cooldown_and_sets_the_last_run() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(&periodic_automation("p", 60, 3600));
    world.engine.tick().await;
    world.settle().await;
    world.engine.tick().await;
    world.advance(10.0);
    let record = world.engine.fire("p").await.expect("fired");
    assert_eq!(record.trigger_reason, "manual");
    assert_eq!(record.status, RunStatus::Completed);
    assert_eq!(record.event_data, None);
    assert_eq!(world.engine.last_run("p"), Some(START + 10.0));
    assert_eq!(world.runs(Some("p")).len(), 2);
}

#[tokio::test]
async fn fire_of_an_unknown_automation_is_not_found() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    let error = world.engine.fire("nope").await.expect_err("unknown");
    assert_eq!(error.to_string(), "Hook 'nope' not found");
}

#[tokio::test]
async fn restart_keeps_the_last_run_time() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(&periodic_automation("p", 600, 0));
    world.engine.tick().await;
    world.settle().await;
    world.advance(300.0);
    let restarted = build(
        &world.path,
        &world.time,
        &world.llm,
        &world.phases,
        EngineSettings::default(),
    );
    assert_eq!(restarted.last_run("p"), Some(START));
    restarted.tick().await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        world.runs(Some("p")).len(),
        1,
        "the restart did not re-fire"
    );
}

#[tokio::test]
async fn shutdown_marks_runs_in_flight_interrupted() {
    let world = World::new(Reply::Hang, EngineSettings::default());
    world.add(&event_automation("a", "e", ""));
    world.engine.on_event("e", json!({}));
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(world.runs(None)[0].status, RunStatus::Running);
    world.engine.shutdown().await;
    let run = &world.runs(None)[0];
    assert_eq!(run.status, RunStatus::Interrupted);
    assert_eq!(run.completed_at, Some(world.now()));
    assert!(world.engine.in_flight().is_empty());
}

#[tokio::test]
async fn a_fire_cut_short_by_shutdown_says_so() {
    let world = World::new(Reply::Hang, EngineSettings::default());
    world.add(&event_automation("a", "e", ""));
    let engine = world.engine.clone();
    let fire = tokio::spawn(async move { engine.fire("a").await });
    tokio::time::sleep(Duration::from_millis(20)).await;
    world.engine.shutdown().await;
    let error = fire.await.expect("joined").expect_err("interrupted");
    assert!(
        error
            .to_string()
            .ends_with("was interrupted before it finished")
    );
}

#[tokio::test]
async fn a_new_engine_leaves_runs_of_other_processes_running() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(&event_automation("a", "e", ""));
    let store = Store::open(&world.path).expect("open");
    store
        .automation_runs()
        .insert(&AutomationRun {
            id: "crashed".to_owned(),
            automation_id: "a".to_owned(),
            project_id: "proj".to_owned(),
            trigger_reason: "manual".to_owned(),
            status: RunStatus::Running,
            event_data: None,
            context_results: None,
            prompt_sent: None,
            llm_response: None,
            actions_taken: None,
            skipped_reason: None,
            tokens_used: 0,
            started_at: START - 5.0,
            completed_at: None,
        })
        .expect("insert");
    let _restarted = build(
        &world.path,
        &world.time,
        &world.llm,
        &world.phases,
        EngineSettings::default(),
    );
    let run = store
        .automation_runs()
        .get("crashed")
        .expect("read")
        .expect("present");
    // Another `hookrig fire` may still be running it; `serve` alone recovers crashes.
    assert_eq!(run.status, RunStatus::Running);
    assert_eq!(run.completed_at, None);
}

#[tokio::test]
async fn a_matching_skip_flag_records_a_skipped_run_without_calling_the_llm() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(
        "id = \"s\"\nname = \"s\"\ncontext_steps = [{ type = \"shell\", command = \"true\", skip_llm_if_exit_zero = true, canned = { stdout = \"\", exit_code = 0 } }]\n[trigger]\ntype = \"periodic\"\n",
    );
    let record = world.engine.fire("s").await.expect("fired");
    assert_eq!(record.status, RunStatus::Skipped);
    assert_eq!(
        record.skipped_reason.as_deref(),
        Some("step_0: exit code 0 (skip_llm_if_exit_zero)")
    );
    assert_eq!(
        record.context_results,
        Some(json!([{"stdout": "", "exit_code": 0, "_step_index": 0}]))
    );
    assert_eq!(record.prompt_sent, None);
    assert!(record.completed_at.is_some());
    assert!(world.llm.prompts.lock().expect("not poisoned").is_empty());
}

#[tokio::test]
async fn skip_llm_completes_without_a_response() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(
        "id = \"s\"\nname = \"s\"\ncontext_steps = [{ type = \"shell\", canned = { stdout = \"x\" } }]\n[trigger]\ntype = \"periodic\"\nskip_llm = true\n",
    );
    let record = world.engine.fire("s").await.expect("fired");
    assert_eq!(record.status, RunStatus::Completed);
    assert_eq!(record.llm_response, None);
    assert_eq!(record.tokens_used, 0);
    assert_eq!(
        record.context_results,
        Some(json!([{"stdout": "x", "_step_index": 0}]))
    );
    assert!(world.llm.prompts.lock().expect("not poisoned").is_empty());
}

#[tokio::test]
async fn an_llm_error_fails_the_run_with_its_message() {
    let world = World::new(Reply::Fail, EngineSettings::default());
    world.add(&event_automation("a", "e", ""));
    let record = world.engine.fire("a").await.expect("fired");
    assert_eq!(record.status, RunStatus::Failed);
    assert_eq!(record.llm_response.as_deref(), Some("provider said no"));
    assert!(record.prompt_sent.is_some());
    assert_eq!(record.context_results, Some(json!([])));
    assert_eq!(
        world.phases.0.lock().expect("not poisoned")[1],
        "a: Failed { error: \"provider said no\" }"
    );
}

#[tokio::test]
async fn max_tokens_per_run_fails_before_the_llm_is_called() {
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(&event_automation("a", "e", "max_tokens_per_run = 10"));
    let record = world.engine.fire("a").await.expect("fired");
    assert_eq!(record.status, RunStatus::Failed);
    let estimate = estimate_tokens(record.prompt_sent.as_deref().expect("prompt kept"), "");
    assert_eq!(
        record.llm_response.expect("reason"),
        format!(
            "the prompt's estimated {estimate} tokens exceed max_tokens_per_run (10); the llm was not called"
        )
    );
    assert!(world.llm.prompts.lock().expect("not poisoned").is_empty());

    world.add(&event_automation("b", "e", "max_tokens_per_run = 1000"));
    let record = world.engine.fire("b").await.expect("fired");
    assert_eq!(record.status, RunStatus::Completed, "under the limit");
}

#[tokio::test]
async fn a_run_that_outlasts_run_timeout_fails_and_keeps_its_context() {
    let settings = EngineSettings {
        run_timeout: Duration::from_millis(100),
        ..EngineSettings::default()
    };
    let world = World::new(Reply::Hang, settings);
    world.add(
        "id = \"t\"\nname = \"t\"\ncontext_steps = [{ type = \"shell\", canned = { stdout = \"gathered\" } }]\n[trigger]\ntype = \"periodic\"\n",
    );
    let record = world.engine.fire("t").await.expect("fired");
    assert_eq!(record.status, RunStatus::Failed);
    assert_eq!(
        record.llm_response.as_deref(),
        Some("run timed out after 0.1s")
    );
    assert_eq!(
        record.context_results,
        Some(json!([{"stdout": "gathered", "_step_index": 0}]))
    );
}

#[test]
fn default_run_timeout_message_names_300s() {
    assert_eq!(
        format!(
            "run timed out after {}s",
            EngineSettings::default().run_timeout.as_secs_f64()
        ),
        "run timed out after 300s"
    );
}

#[test]
fn run_ids_are_12_characters() {
    let id = new_run_id();
    assert_eq!(id.len(), 12);
    assert_ne!(id, new_run_id());
}

#[tokio::test]
async fn a_crashing_step_runner_leaves_a_failed_run_after_the_tick() {
    struct Panics(AtomicUsize);
    impl StepRunner for Panics {
        fn run_steps<'a>(
            &'a self,
            _automation: &'a Automation,
            _event: Option<&'a Value>,
        ) -> BoxFuture<'a, Vec<Value>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Box::pin(async { panic!("step runner bug") })
        }
    }
    let world = World::new(Reply::Answer, EngineSettings::default());
    world.add(&event_automation("a", "e", ""));
    let time = Arc::clone(&world.time);
    let engine = Engine::new(
        Store::open(&world.path).expect("open"),
        Wiring {
            steps: Arc::new(Panics(AtomicUsize::new(0))),
            llm: Arc::clone(&world.llm) as Arc<dyn LlmBackend>,
            observer: None,
            clock: Arc::new(move || *time.lock().expect("not poisoned")),
        },
        EngineSettings::default(),
    )
    .expect("engine");
    engine.on_event("e", json!({}));
    tokio::time::sleep(Duration::from_millis(50)).await;
    engine.tick().await;
    let run = &world.runs(None)[0];
    assert_eq!(run.status, RunStatus::Failed);
    assert!(
        run.llm_response
            .as_deref()
            .is_some_and(|r| r.starts_with("the run crashed")),
        "{run:?}"
    );
}

// guards: `[automation] enabled = false` (the master switch) fires no trigger, while
// `fire` still runs an automation
#[tokio::test]
async fn the_master_switch_stops_every_trigger_but_not_fire() {
    let settings = EngineSettings {
        enabled: false,
        ..EngineSettings::default()
    };
    let world = World::new(Reply::Answer, settings);
    world.add(&event_automation("ev", "e", "cooldown_seconds = 0"));
    world.add(&periodic_automation("per", 60, 0));
    world.add(
        "id = \"cr\"\nname = \"cr\"\ncooldown_seconds = 0\n[trigger]\ntype = \"cron\"\nexpression = \"* * * * *\"\n",
    );
    world.engine.on_event("e", json!({}));
    world.engine.tick().await;
    world.advance(3600.0);
    world.engine.tick().await;
    world.settle().await;
    assert!(world.runs(None).is_empty(), "nothing ran, nothing recorded");
    let record = world.engine.fire("per").await.expect("fire still works");
    assert_eq!(record.status, RunStatus::Completed);
    assert_eq!(world.launched(), ["per"]);
}

// guards: an event an automation wanted but did not run (a run of it in flight, or the
// cap reached) is recorded with the reason instead of being dropped without a trace
#[tokio::test]
async fn events_not_run_are_recorded_with_the_reason() {
    let settings = EngineSettings {
        max_concurrent: 1,
        ..EngineSettings::default()
    };
    let world = World::new(Reply::Hang, settings);
    world.add(&event_automation("a", "e", "cooldown_seconds = 0"));
    world.add(&event_automation("b", "e", "cooldown_seconds = 0"));
    world.add(&event_automation("other", "not-e", "cooldown_seconds = 0"));
    world.engine.on_event("e", json!({"n": 1}));
    world.engine.on_event("e", json!({"n": 2}));
    let runs = world.runs(None);
    let dropped: Vec<(String, String, Value)> = runs
        .iter()
        .filter(|r| is_dropped(r))
        .map(|r| {
            (
                r.automation_id.clone(),
                r.skipped_reason.clone().expect("a reason"),
                r.event_data.clone().expect("the event"),
            )
        })
        .collect();
    let a_run = world.engine.state().running["a"].run_id.clone();
    let mut dropped = dropped;
    dropped.sort_by(|x, y| (x.2["n"].as_i64(), &x.0).cmp(&(y.2["n"].as_i64(), &y.0)));
    assert_eq!(
        dropped,
        [
            (
                "b".to_owned(),
                "event not run: max_concurrent (1) runs were in flight".to_owned(),
                json!({"n": 1, "_event_type": "e"})
            ),
            (
                "a".to_owned(),
                format!("event not run: a run of it ({a_run}) was in flight"),
                json!({"n": 2, "_event_type": "e"})
            ),
            (
                "b".to_owned(),
                "event not run: max_concurrent (1) runs were in flight".to_owned(),
                json!({"n": 2, "_event_type": "e"})
            ),
        ]
    );
    assert!(
        runs.iter().all(|r| r.automation_id != "other"),
        "an automation that does not want the event records nothing"
    );
    // Let a's run record its row before it is interrupted.
    tokio::time::sleep(Duration::from_millis(20)).await;
    world.engine.shutdown().await;
    // A restart does not take a dropped event for the last run.
    let last = Store::open(&world.path)
        .expect("open")
        .automation_runs()
        .last_starts()
        .expect("last");
    assert!(last.contains_key("a"));
    assert!(!last.contains_key("b"), "b never ran");
}

// guards: two engines on one ledger (a serve and a `hookrig fire`, or two `fire`s)
// never run one automation at once; the second is refused as already running
#[tokio::test]
async fn a_second_engine_on_the_ledger_cannot_run_what_the_first_runs() {
    let world = World::new(Reply::Hang, EngineSettings::default());
    world.add(&event_automation("a", "e", "cooldown_seconds = 0"));
    let other_llm = Arc::new(ScriptedLlm {
        reply: Reply::Answer,
        prompts: Mutex::new(Vec::new()),
    });
    let other = build(
        &world.path,
        &world.time,
        &other_llm,
        &Arc::new(Phases::default()),
        EngineSettings::default(),
    );
    let first = world.engine.clone();
    let hanging = tokio::spawn(async move { first.fire("a").await });
    while world.runs(Some("a")).is_empty() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let error = other.fire("a").await.expect_err("held by the first engine");
    assert_eq!(error.to_string(), "Hook 'a' is already running");
    other.on_event("e", json!({}));
    assert!(other.in_flight().is_empty(), "nor does an event start it");
    assert!(
        world.runs(Some("a")).iter().any(|r| r
            .skipped_reason
            .as_deref()
            .is_some_and(|why| why.contains("in flight in process"))),
        "the event not run is recorded"
    );
    // Once the first run has ended (interrupted here), the lock is free again.
    world.engine.shutdown().await;
    let _ = hanging.await;
    let record = other.fire("a").await.expect("free again");
    assert_eq!(record.status, RunStatus::Completed);
}

#[tokio::test]
async fn tool_calls_are_recorded_in_the_run_and_told_as_they_happen() {
    let world = World::new(Reply::UseTools, EngineSettings::default());
    world.add(&event_automation("a", "e", ""));
    let run = world.engine.fire("a").await.expect("fired");
    assert_eq!(run.status, RunStatus::Completed);
    let actions = run.actions_taken.clone().expect("recorded");
    let calls: Vec<(String, Value, Value)> = actions
        .as_array()
        .expect("a list")
        .iter()
        .map(|a| {
            (
                a["name"].as_str().expect("a name").to_owned(),
                a["result"].clone(),
                a["error"].clone(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("echo".to_owned(), json!({"n": 1}), Value::Null),
            ("echo".to_owned(), json!({"n": 2}), Value::Null),
            (
                "nope".to_owned(),
                Value::Null,
                json!("tool `nope` is not granted to this automation; it may call echo")
            ),
        ]
    );
    // The stored row says the same.
    let stored = world.runs(Some("a"))[0]
        .actions_taken
        .clone()
        .expect("stored");
    assert_eq!(stored.pointer("/2/error"), actions.pointer("/2/error"));
    assert_eq!(stored.as_array().map(Vec::len), Some(3));
    let phases = world.phases.0.lock().expect("not poisoned").clone();
    let tools: Vec<&String> = phases.iter().filter(|p| p.contains("Tools")).collect();
    assert_eq!(tools.len(), 3, "{phases:?}");
    assert!(
        tools[2].contains(r#"chain: ["echo", "echo", "nope"]"#),
        "{phases:?}"
    );
    assert!(
        phases.last().is_some_and(|p| p.contains("Completed")),
        "{phases:?}"
    );
}

#[tokio::test]
async fn a_run_that_times_out_in_its_tool_loop_keeps_its_tool_calls() {
    let settings = EngineSettings {
        run_timeout: Duration::from_millis(300),
        ..EngineSettings::default()
    };
    let world = World::new(Reply::ToolThenHang, settings);
    world.add(&event_automation("a", "e", ""));
    let run = world.engine.fire("a").await.expect("fired");
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(
        run.actions_taken
            .as_ref()
            .and_then(|a| a.pointer("/0/name")),
        Some(&json!("echo"))
    );
}
