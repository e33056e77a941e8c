//! Several engines ("nodes") on one PostgreSQL store, each with its own store of
//! definitions, ticked by the test on a clock it moves: a periodic automation fires
//! once per period in total, a manual fire is refused while another node runs the
//! automation, one event delivered to every node (any number of times) starts one run,
//! events that meet a run in flight elsewhere are recorded as not run, and the run of a node
//! that stopped (no more ticks, so no more heartbeats) is marked `interrupted` by the
//! others once its lease has expired. Skipped where `HOOKRIG_TEST_POSTGRES` is unset.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use hookrig_store::PgStore;
use hookrig_test_support::TestDatabase;
use serde_json::json;

use super::*;
use crate::definition::parse_automation;

const START: f64 = 1_750_000_000.0;
const LEASE: Duration = Duration::from_secs(5);

/// Steps that answer at once, or never while `hang` is set (a run in flight).
struct Steps {
    hang: Arc<AtomicBool>,
}

impl StepRunner for Steps {
    fn run_steps<'a>(
        &'a self,
        _automation: &'a Automation,
        _event: Option<&'a Value>,
    ) -> BoxFuture<'a, Vec<Value>> {
        let hang = self.hang.load(Ordering::SeqCst);
        Box::pin(async move {
            if hang {
                std::future::pending::<()>().await;
            }
            vec![json!({"_step_index": 0})]
        })
    }
}

struct Answer;

impl LlmBackend for Answer {
    fn complete<'a>(
        &'a self,
        _automation: &'a Automation,
        _prompt: &'a str,
        _actions: &'a ActionLog,
    ) -> BoxFuture<'a, Result<Answered, String>> {
        Box::pin(async {
            Ok(Answered {
                text: "ok".to_owned(),
                tokens: 1,
            })
        })
    }
}

struct Node {
    _dir: tempfile::TempDir,
    engine: Engine,
    hang: Arc<AtomicBool>,
}

fn node(name: &str, db: &TestDatabase, time: &Arc<Mutex<f64>>, automations: &[&str]) -> Node {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("ledger.db")).expect("open");
    for toml in automations {
        let automation = parse_automation(Path::new("/t/a.toml"), toml, "proj", START)
            .expect("valid automation");
        store
            .automations()
            .upsert(&automation.to_row())
            .expect("store");
    }
    let hang = Arc::new(AtomicBool::new(false));
    let clock_time = Arc::clone(time);
    let wiring = Wiring {
        steps: Arc::new(Steps {
            hang: Arc::clone(&hang),
        }),
        llm: Arc::new(Answer),
        observer: None,
        clock: Arc::new(move || *clock_time.lock().expect("not poisoned")),
    };
    let shared = SharedRuns {
        store: Arc::new(PgStore::open(db.url()).expect("open the shared store")),
        definitions: None,
        node: NodeInfo {
            id: name.to_owned(),
            host: "test".to_owned(),
            pid: 1,
            started_at: START,
            heartbeat_at: START,
        },
        lease: LEASE,
    };
    let engine = Engine::with_shared(store, Some(shared), wiring, EngineSettings::default())
        .expect("engine");
    Node {
        _dir: dir,
        engine,
        hang,
    }
}

/// Lets the runs spawned so far do what they can before the next step.
async fn settle() {
    for _ in 0..20 {
        tokio::task::yield_now().await;
    }
}

const PERIODIC: &str = "id = \"p\"\nname = \"p\"\ncooldown_seconds = 0\nprompt_template = \"go\"\n[trigger]\ntype = \"periodic\"\ninterval_seconds = 2\n";

// guards: several serve nodes on one database must fire a periodic automation once per
// period in total, and a dead node's run must not stay `running`
#[tokio::test]
async fn three_nodes_fire_each_period_once_and_take_over_a_dead_nodes_run() {
    let Some(db) = TestDatabase::create("three_nodes_periodic") else {
        return;
    };
    let time = Arc::new(Mutex::new(START));
    let nodes: Vec<Node> = ["n1", "n2", "n3"]
        .iter()
        .map(|name| node(name, &db, &time, &[PERIODIC]))
        .collect();
    let shared = PgStore::open(db.url()).expect("open");
    let mut dead: Option<(usize, String)> = None;
    // 60 s in half seconds; the nodes tick in turn, the first to tick in a period first.
    for step in 0..120_u32 {
        let now = START + f64::from(step) * 0.5;
        *time.lock().expect("not poisoned") = now;
        for (i, node) in nodes.iter().enumerate() {
            if dead.as_ref().is_some_and(|(d, _)| *d == i) {
                continue; // it was killed: no more ticks, no more heartbeats
            }
            // At 20 s the node whose turn comes first hangs its run, then dies.
            let dies = dead.is_none() && now >= START + 20.0;
            node.hang.store(dies, Ordering::SeqCst);
            node.engine.tick().await;
            settle().await;
            if dies && let Some(run) = node.engine.in_flight().first() {
                let run_id = node.engine.state().running[run].run_id.clone();
                dead = Some((i, run_id));
                // Another node may not fire it while it runs there.
                let other = &nodes[(i + 1) % nodes.len()];
                assert!(matches!(
                    other.engine.fire("p").await,
                    Err(FireError::AlreadyRunning(id)) if id == "p"
                ));
            }
        }
    }
    let (_, dead_run) = dead.unwrap_or_else(|| {
        panic!(
            "no node died mid-run: {:#?}",
            shared.runs(Some("p"), 1000).expect("runs")
        )
    });

    let runs = shared.runs(Some("p"), 1000).expect("runs");
    let periods: BTreeSet<i64> = runs.iter().map(|r| period_of(r.started_at, 2)).collect();
    assert_eq!(
        periods.len(),
        runs.len(),
        "no period fired twice: {runs:#?}"
    );
    // 60 s of a 2 s period: 30 periods. The dead node's run (fired for the period at
    // 20 s) holds the automation until its lease expires at 25 s, and an automation
    // never runs twice at once: the period at 22 s, which ends before the lease does,
    // is the one not fired; the one at 24 s fires once the lease is found expired.
    let first = period_of(START, 2);
    let expected: BTreeSet<i64> = (0..30)
        .map(|k| first + 2 * k)
        .filter(|period| *period != first + 22)
        .collect();
    assert_eq!(periods, expected, "one run per period");

    let hung = shared.run(&dead_run).expect("read").expect("recorded");
    assert_eq!(hung.status, RunStatus::Interrupted, "{hung:?}");
    let ended = hung.completed_at.expect("it ended");
    assert!(
        ended >= hung.started_at + LEASE.as_secs_f64(),
        "marked only once its lease expired: {hung:?}"
    );
    assert!(
        ended <= hung.started_at + LEASE.as_secs_f64() + 1.0,
        "marked by the next tick of another node after its lease expired: {hung:?}"
    );
    let others: Vec<_> = runs.iter().filter(|r| r.id != dead_run).collect();
    assert!(
        others.iter().all(|r| r.status == RunStatus::Completed),
        "{others:#?}"
    );
    let beats = shared.nodes().expect("nodes");
    assert_eq!(beats.len(), 3);
    assert!(
        beats[2].heartbeat_at < beats[0].heartbeat_at,
        "the dead node beats no more"
    );
}

// guards: events that meet a run of their automation in flight on another node are
// recorded as not run there, naming the node
#[tokio::test]
async fn events_meeting_a_run_in_flight_on_another_node_are_recorded_not_run() {
    let Some(db) = TestDatabase::create("event_every_node") else {
        return;
    };
    let event = "id = \"e\"\nname = \"e\"\nprompt_template = \"go\"\n[trigger]\ntype = \"event\"\nevent_type = \"task.completed\"\n";
    let time = Arc::new(Mutex::new(START));
    let nodes: Vec<Node> = ["n1", "n2", "n3"]
        .iter()
        .map(|name| node(name, &db, &time, &[event]))
        .collect();
    for node in &nodes {
        node.hang.store(true, Ordering::SeqCst);
        node.engine.on_event(
            "task.completed",
            json!({"task_id": "t1", "project_id": "proj"}),
        );
    }
    settle().await;
    let shared = PgStore::open(db.url()).expect("open");
    let runs = shared.runs(Some("e"), 10).expect("runs");
    let started: Vec<_> = runs
        .iter()
        .filter(|r| r.status == RunStatus::Running)
        .collect();
    assert_eq!(started.len(), 1, "{runs:#?}");
    let dropped: Vec<_> = runs
        .iter()
        .filter(|r| r.status == RunStatus::Skipped)
        .collect();
    assert_eq!(
        dropped.len(),
        2,
        "the other nodes say why they did not run it"
    );
    assert!(
        dropped.iter().all(|r| r
            .skipped_reason
            .as_deref()
            .is_some_and(|why| why.contains("in flight on node"))),
        "{dropped:#?}"
    );
}

// guards: one event (one id) delivered to every node, and again after its run ended,
// starts one run in total and is recorded as not run nowhere
#[tokio::test]
async fn an_event_delivered_to_every_node_starts_one_run() {
    let Some(db) = TestDatabase::create("one_event_every_node") else {
        return;
    };
    let event = "id = \"e\"\nname = \"e\"\ncooldown_seconds = 0\nprompt_template = \"go\"\n[trigger]\ntype = \"event\"\nevent_type = \"task.completed\"\n";
    let time = Arc::new(Mutex::new(START));
    let nodes: Vec<Node> = ["n1", "n2", "n3"]
        .iter()
        .map(|name| node(name, &db, &time, &[event]))
        .collect();
    let payload = json!({"task_id": "t1", "project_id": "proj"});
    for round in 0..2 {
        *time.lock().expect("not poisoned") = START + f64::from(round);
        for node in &nodes {
            node.engine
                .on_shared_event("event-1", "task.completed", payload.clone());
            settle().await;
        }
        for node in &nodes {
            node.engine.tick().await;
        }
    }
    let shared = PgStore::open(db.url()).expect("open");
    let runs = shared.runs(Some("e"), 10).expect("runs");
    assert_eq!(runs.len(), 1, "{runs:#?}");
    assert_eq!(runs[0].status, RunStatus::Completed, "{runs:#?}");
    assert_eq!(
        runs[0].event_data.as_ref().and_then(|e| e.get("_event_id")),
        Some(&json!("event-1"))
    );
}
