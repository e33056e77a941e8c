//! The conformance suite of the store interface: each test function below runs against
//! the SQLite store (a temp dir) and against the PostgreSQL store (a fresh database on
//! the cluster `HOOKRIG_TEST_POSTGRES` names; skipped with a message where it is unset,
//! failed under `HOOKRIG_TEST_REQUIRE_TOOLS`). The two engines must give the same
//! answers to the same calls.

use std::collections::{BTreeSet, HashMap};
use std::sync::Barrier;

use hookrig_core::HookResult;
use hookrig_store::{AgentEnablement, AgentRow, AgentStore, PluginRow, PluginStore};
use hookrig_store::{AutomationRow, AutomationStore};
use hookrig_store::{
    AutomationRun, EmitDecision, EmitFilter, EmitQuery, EmitRecord, EmitWrite, Engine, Gate,
    Ledger, MemoryIndex, NewTask, NodeInfo, Note, NoteSection, PgStore, RunStatus, RunStore, Start,
    Store, StoreError, TaskStore,
};
use hookrig_test_support::TestDatabase;

use crate::fixtures::{automation, bare_emit, full_emit, gate, hook, run};
use serde_json::json;
use tempfile::TempDir;

/// A store under test, and what keeps its file or database alive.
struct Subject {
    store: Box<dyn RunStore + Send>,
    /// A second connection, for the tables reached through their own handles.
    tables: Tables,
    place: Place,
}

enum Tables {
    Sqlite(Store),
    Postgres(Box<PgStore>),
}

enum Place {
    Sqlite(TempDir),
    Postgres(TestDatabase),
}

/// The automations the tests run. The SQLite work file's runs refer to their
/// automation, so they are stored there first; the PostgreSQL store's runs need none
/// (a node may run an automation that only its own store defines).
const AUTOMATIONS: [&str; 4] = ["a", "b", "c", "d"];

impl Subject {
    fn sqlite() -> Subject {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("ledger.db")).expect("open");
        for id in AUTOMATIONS {
            store
                .automations()
                .upsert(&automation(id))
                .expect("store an automation");
        }
        let tables = Tables::Sqlite(Store::open(&dir.path().join("ledger.db")).expect("open"));
        Subject {
            store: Box::new(store),
            tables,
            place: Place::Sqlite(dir),
        }
    }

    fn postgres(test: &str) -> Option<Subject> {
        let db = TestDatabase::create(test)?;
        let store = PgStore::open(db.url()).expect("open the PostgreSQL store");
        let tables = Tables::Postgres(Box::new(PgStore::open(db.url()).expect("open")));
        Some(Subject {
            store: Box::new(store),
            tables,
            place: Place::Postgres(db),
        })
    }

    /// The memory index.
    fn memory(&self) -> Box<dyn MemoryIndex + '_> {
        match &self.tables {
            Tables::Sqlite(store) => Box::new(store.memory()),
            Tables::Postgres(store) => Box::new(store.memory()),
        }
    }

    /// The tasks automations create.
    fn tasks(&self) -> Box<dyn TaskStore + '_> {
        match &self.tables {
            Tables::Sqlite(store) => Box::new(store.tasks()),
            Tables::Postgres(store) => Box::new(store.tasks()),
        }
    }

    /// The agents of every machine.
    fn agents(&self) -> Box<dyn AgentStore + '_> {
        match &self.tables {
            Tables::Sqlite(store) => Box::new(store.agents()),
            Tables::Postgres(store) => Box::new(store.agents()),
        }
    }

    /// The automations' definitions.
    fn automations(&self) -> Box<dyn AutomationStore + '_> {
        match &self.tables {
            Tables::Sqlite(store) => Box::new(store.automations()),
            Tables::Postgres(store) => Box::new(store.automations()),
        }
    }

    /// The plugin package registry.
    fn plugins(&self) -> Box<dyn PluginStore + '_> {
        match &self.tables {
            Tables::Sqlite(store) => Box::new(store.plugins()),
            Tables::Postgres(store) => Box::new(store.plugins()),
        }
    }

    /// Another connection to the same store, as another node has.
    fn another(&self) -> Box<dyn RunStore + Send> {
        match &self.place {
            Place::Sqlite(dir) => {
                Box::new(Store::open(&dir.path().join("ledger.db")).expect("open"))
            }
            Place::Postgres(db) => Box::new(PgStore::open(db.url()).expect("open")),
        }
    }

    /// The ledger of the same store, on a connection of its own.
    fn ledger(&self) -> Box<dyn Ledger + Send> {
        match &self.place {
            Place::Sqlite(dir) => {
                Box::new(Store::open(&dir.path().join("ledger.db")).expect("open"))
            }
            Place::Postgres(db) => Box::new(PgStore::open(db.url()).expect("open")),
        }
    }
}

/// Runs each test function against both engines.
macro_rules! conformance {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    super::$name(&super::Subject::sqlite());
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $name() {
                    if let Some(subject) = super::Subject::postgres(stringify!($name)) {
                        super::$name(&subject);
                    }
                }
            )*
        }
    };
}

conformance!(
    a_started_run_reads_back_and_holds_its_automation_until_it_ends,
    a_period_fires_once_whichever_node_asks,
    the_cooldown_counts_the_runs_of_every_node,
    the_cap_counts_the_runs_in_flight_on_every_node,
    an_expired_lease_interrupts_its_run_and_frees_the_automation,
    a_start_takes_over_an_expired_lease,
    runs_are_listed_newest_first_and_their_last_starts_read,
    the_end_of_an_unknown_run_is_an_error,
    nodes_are_listed_with_their_last_heartbeat,
    nodes_racing_for_one_period_start_one_run,
    dropped_events_tool_calls_and_shutdown_are_recorded,
    the_status_counts_the_rows_of_each_table_and_lists_the_nodes,
    an_event_starts_one_run_of_each_automation_whichever_node_asks,
    an_event_not_run_is_recorded_once_and_not_run_after,
    nodes_racing_for_one_event_start_one_run,
    forgotten_events_start_runs_again,
    memory_search_puts_the_clearly_better_entry_first_within_its_project,
    memory_search_finds_the_same_entries_on_the_same_data,
    memory_upserts_replace_their_place_and_get_reads_the_last_written,
    memory_notes_are_replaced_and_removed_whole_and_upserts_stay,
    a_created_task_reads_back_pending_with_its_fields,
    plugins_are_registered_once_listed_in_order_and_deleted_with_their_rows,
    plugins_are_enabled_by_agent_with_the_wildcard_as_the_default,
    an_emit_begun_then_finished_reads_back_whole_and_its_async_hooks_complete_it,
    why_finds_a_run_by_its_id_or_a_literal_prefix,
    runs_and_pages_filter_and_page_without_repeating_or_skipping,
    a_batch_applies_in_order_and_a_refused_write_leaves_the_others,
    the_live_view_and_a_plans_task_history_read_what_was_written,
    an_agent_round_trips_through_its_life_as_this_machines,
    automations_are_examined_in_the_order_first_stored_and_updated_in_place,
    disabled_and_held_automations_are_left_out_of_the_runnable_ones,
    an_automation_is_deleted_with_its_runs,
);

fn agent_row(worktree: &str, started_at_ms: i64) -> AgentRow {
    AgentRow {
        host: hookrig_store::host_name(),
        worktree: worktree.to_owned(),
        repo: "/r".to_owned(),
        task: "api".to_owned(),
        plan: "/r/plan.spl".to_owned(),
        agent: "coder".to_owned(),
        provider: "claude".to_owned(),
        branch: "task/api".to_owned(),
        log: "/r/.hookrig/worktrees/api.log".to_owned(),
        pid: None,
        proc_start: None,
        started_at_ms,
        exit_code: None,
        exit_signal: None,
        ended_at_ms: None,
        stopped_at_ms: None,
    }
}

fn an_agent_round_trips_through_its_life_as_this_machines(subject: &Subject) {
    let agents = subject.agents();
    agents.record(&agent_row("/r/w", 1_000)).expect("record");
    agents.record(&agent_row("/r/v", 500)).expect("record");
    agents.set_pid("/r/w", 42, Some(7)).expect("pid");
    agents.set_stopped("/r/w").expect("stop");
    agents.set_exit("/r/w", None, Some(15)).expect("exit");
    let got = agents.get("/r/w").expect("read").expect("a row");
    assert_eq!(got.host, hookrig_store::host_name(), "this machine's");
    assert_eq!((got.pid, got.proc_start), (Some(42), Some(7)));
    assert_eq!((got.exit_code, got.exit_signal), (None, Some(15)));
    assert!(got.ended_at_ms.is_some() && got.stopped_at_ms.is_some());
    assert_eq!(agents.get("/r/nope").expect("read"), None);

    // Spawning again in the same worktree replaces the row; the list is oldest first.
    agents
        .record(&agent_row("/r/w", 1_000))
        .expect("record again");
    assert_eq!(
        agents.list().expect("list"),
        [agent_row("/r/v", 500), agent_row("/r/w", 1_000)]
    );
    agents.delete("/r/w").expect("delete");
    assert_eq!(agents.get("/r/w").expect("read"), None);
    assert_eq!(agents.list().expect("list").len(), 1);
}

// guards: a worktree's path is unique on one machine only: two machines' agents in the
// same path are two rows, and what names a worktree acts on this machine's
#[test]
fn agents_of_two_machines_in_one_worktree_path_are_two_rows() {
    let Some(db) = TestDatabase::create("agents_two_machines") else {
        return;
    };
    let store = PgStore::open(db.url()).expect("open");
    let agents = store.agents();
    let other = AgentRow {
        host: "another-machine".to_owned(),
        pid: Some(4242),
        ..agent_row("/r/w", 900)
    };
    agents.record(&other).expect("record");
    agents.record(&agent_row("/r/w", 1_000)).expect("record");
    assert_eq!(
        agents.list().expect("list"),
        [other.clone(), agent_row("/r/w", 1_000)]
    );
    assert_eq!(
        agents.get("/r/w").expect("read"),
        Some(agent_row("/r/w", 1_000))
    );
    agents.set_pid("/r/w", 7, None).expect("pid");
    agents.set_stopped("/r/w").expect("stop");
    agents.delete("/r/w").expect("delete");
    assert_eq!(
        agents.list().expect("list"),
        [other],
        "the other machine's is left"
    );
}

fn completed(mut run: AutomationRun, at: f64) -> AutomationRun {
    run.status = RunStatus::Completed;
    run.completed_at = Some(at);
    run.context_results = Some(json!([{"type": "shell", "result": {"stdout": "ok"}}]));
    run.llm_response = Some("done".to_owned());
    run.tokens_used = 12;
    run
}

fn a_started_run_reads_back_and_holds_its_automation_until_it_ends(subject: &Subject) {
    let store = &subject.store;
    let r1 = run("r1", "a", 10.0);
    assert_eq!(
        store.start(&r1, &gate("node-1", 10.0)).expect("start"),
        Start::Started
    );
    assert_eq!(store.run("r1").expect("read").as_ref(), Some(&r1));
    assert_eq!(store.run("nope").expect("read"), None);

    // Another node asks for the same automation while r1 runs.
    assert_eq!(
        store
            .start(&run("r2", "a", 11.0), &gate("node-2", 11.0))
            .expect("start"),
        Start::InFlight {
            run_id: "r1".to_owned(),
            node: "node-1".to_owned()
        }
    );
    assert_eq!(
        store.run("r2").expect("read"),
        None,
        "a refused run is not recorded"
    );

    let done = completed(r1, 12.0);
    store.finish(&done).expect("finish");
    assert_eq!(store.run("r1").expect("read").as_ref(), Some(&done));
    assert_eq!(
        store
            .start(&run("r2", "a", 13.0), &gate("node-2", 13.0))
            .expect("start"),
        Start::Started
    );
}

fn a_period_fires_once_whichever_node_asks(subject: &Subject) {
    let store = &subject.store;
    let period = |node, now, period| Gate {
        period: Some(period),
        ..gate(node, now)
    };
    let r1 = run("r1", "a", 100.0);
    assert_eq!(
        store
            .start(&r1, &period("node-1", 100.0, 100))
            .expect("start"),
        Start::Started
    );
    store.finish(&completed(r1, 100.5)).expect("finish");
    // The same period, asked for by a later node, after the run ended.
    assert_eq!(
        store
            .start(&run("r2", "a", 100.7), &period("node-2", 100.7, 100))
            .expect("start"),
        Start::PeriodFired {
            run_id: "r1".to_owned()
        }
    );
    // Periods are per automation.
    assert_eq!(
        store
            .start(&run("r3", "b", 100.8), &period("node-2", 100.8, 100))
            .expect("start"),
        Start::Started
    );
    assert_eq!(
        store
            .start(&run("r4", "a", 102.0), &period("node-2", 102.0, 102))
            .expect("start"),
        Start::Started
    );
}

fn the_cooldown_counts_the_runs_of_every_node(subject: &Subject) {
    let store = &subject.store;
    let cooled = |node, now| Gate {
        cooldown_seconds: 10.0,
        ..gate(node, now)
    };
    let r1 = run("r1", "a", 10.0);
    assert_eq!(
        store.start(&r1, &cooled("node-1", 10.0)).expect("start"),
        Start::Started
    );
    store.finish(&completed(r1, 11.0)).expect("finish");
    assert_eq!(
        store
            .start(&run("r2", "a", 15.0), &cooled("node-2", 15.0))
            .expect("start"),
        Start::Cooldown { last_start: 10.0 }
    );
    // A manual fire passes no cooldown.
    let r3 = run("r3", "a", 16.0);
    assert_eq!(
        store.start(&r3, &gate("node-2", 16.0)).expect("start"),
        Start::Started
    );
    store.finish(&completed(r3, 17.0)).expect("finish");
    assert_eq!(
        store
            .start(&run("r4", "a", 20.0), &cooled("node-1", 20.0))
            .expect("start"),
        Start::Cooldown { last_start: 16.0 }
    );
    assert_eq!(
        store
            .start(&run("r4", "a", 26.0), &cooled("node-1", 26.0))
            .expect("start"),
        Start::Started
    );
}

fn the_cap_counts_the_runs_in_flight_on_every_node(subject: &Subject) {
    let store = &subject.store;
    let capped = |node, now| Gate {
        max_concurrent: 2,
        ..gate(node, now)
    };
    let ra = run("ra", "a", 1.0);
    assert_eq!(
        store.start(&ra, &capped("node-1", 1.0)).expect("start"),
        Start::Started
    );
    assert_eq!(
        store
            .start(&run("rb", "b", 1.0), &capped("node-2", 1.0))
            .expect("start"),
        Start::Started
    );
    assert_eq!(
        store
            .start(&run("rc", "c", 2.0), &capped("node-3", 2.0))
            .expect("start"),
        Start::Capped { in_flight: 2 }
    );
    store.finish(&completed(ra, 3.0)).expect("finish");
    assert_eq!(
        store
            .start(&run("rc", "c", 4.0), &capped("node-3", 4.0))
            .expect("start"),
        Start::Started
    );
    // A lease that expired is no run in flight.
    assert_eq!(
        store
            .start(&run("rd", "d", 40.0), &capped("node-3", 40.0))
            .expect("start"),
        Start::Started
    );
}

fn an_expired_lease_interrupts_its_run_and_frees_the_automation(subject: &Subject) {
    let store = &subject.store;
    let short = |node, now| Gate {
        lease_seconds: 5.0,
        ..gate(node, now)
    };
    assert_eq!(
        store
            .start(&run("r1", "a", 0.0), &short("node-1", 0.0))
            .expect("start"),
        Start::Started
    );
    assert_eq!(
        store
            .start(&run("r2", "b", 0.0), &short("node-2", 0.0))
            .expect("start"),
        Start::Started
    );
    let node = |id: &str, at| NodeInfo {
        id: id.to_owned(),
        host: "h".to_owned(),
        pid: 1,
        started_at: 0.0,
        heartbeat_at: at,
    };
    // node-1 renews its lease; node-2 has died and does not.
    assert_eq!(
        store
            .heartbeat(&node("node-1", 4.0), 5.0)
            .expect("heartbeat"),
        1
    );
    assert_eq!(
        store.interrupt_expired(4.5).expect("sweep"),
        Vec::<String>::new()
    );
    assert_eq!(
        store.interrupt_expired(6.0).expect("sweep"),
        vec!["r2".to_owned()]
    );
    let r2 = store.run("r2").expect("read").expect("recorded");
    assert_eq!(
        (r2.status, r2.completed_at),
        (RunStatus::Interrupted, Some(6.0))
    );
    assert_eq!(
        store.run("r1").expect("read").expect("recorded").status,
        RunStatus::Running
    );
    // Swept once: a second sweep finds nothing.
    assert_eq!(
        store.interrupt_expired(7.0).expect("sweep"),
        Vec::<String>::new()
    );
    assert_eq!(
        store
            .start(&run("r3", "b", 7.0), &short("node-1", 7.0))
            .expect("start"),
        Start::Started
    );
    assert_eq!(
        store
            .start(&run("r4", "a", 8.0), &short("node-3", 8.0))
            .expect("start"),
        Start::InFlight {
            run_id: "r1".to_owned(),
            node: "node-1".to_owned()
        }
    );
}

fn a_start_takes_over_an_expired_lease(subject: &Subject) {
    let store = &subject.store;
    assert_eq!(
        store
            .start(&run("r1", "a", 0.0), &gate("node-1", 0.0))
            .expect("start"),
        Start::Started
    );
    // node-1 died; nobody swept; its lease ran out at 30.
    assert_eq!(
        store
            .start(&run("r2", "a", 31.0), &gate("node-2", 31.0))
            .expect("start"),
        Start::Started
    );
    let r1 = store.run("r1").expect("read").expect("recorded");
    assert_eq!(
        (r1.status, r1.completed_at),
        (RunStatus::Interrupted, Some(31.0))
    );
    assert_eq!(
        store
            .start(&run("r3", "a", 32.0), &gate("node-3", 32.0))
            .expect("start"),
        Start::InFlight {
            run_id: "r2".to_owned(),
            node: "node-2".to_owned()
        }
    );
}

fn runs_are_listed_newest_first_and_their_last_starts_read(subject: &Subject) {
    let store = &subject.store;
    for (id, automation_id, at) in [
        ("r1", "a", 1.0),
        ("r2", "b", 2.0),
        ("r3", "a", 3.0),
        ("r4", "a", 3.0),
    ] {
        let started = run(id, automation_id, at);
        assert_eq!(
            store.start(&started, &gate("node-1", at)).expect("start"),
            Start::Started
        );
        store.finish(&completed(started, at)).expect("finish");
    }
    let ids = |runs: Vec<AutomationRun>| runs.into_iter().map(|r| r.id).collect::<Vec<_>>();
    // Runs started in the same instant: the later recorded first.
    assert_eq!(
        ids(store.runs(None, 10).expect("list")),
        ["r4", "r3", "r2", "r1"]
    );
    assert_eq!(ids(store.runs(Some("a"), 2).expect("list")), ["r4", "r3"]);
    assert_eq!(
        ids(store.runs(Some("c"), 2).expect("list")),
        Vec::<String>::new()
    );
    let mut last: Vec<(String, f64)> = store.last_starts().expect("read").into_iter().collect();
    last.sort_by(|x, y| x.0.cmp(&y.0));
    assert_eq!(last, [("a".to_owned(), 3.0), ("b".to_owned(), 2.0)]);
}

fn the_end_of_an_unknown_run_is_an_error(subject: &Subject) {
    let err = subject
        .store
        .finish(&completed(run("ghost", "a", 1.0), 2.0))
        .expect_err("no such run");
    assert!(
        matches!(&err, StoreError::UnknownRunId { run_id } if run_id == "ghost"),
        "{err:?}"
    );
}

fn nodes_are_listed_with_their_last_heartbeat(subject: &Subject) {
    let store = &subject.store;
    let node = |id: &str, started_at, at| NodeInfo {
        id: id.to_owned(),
        host: format!("host-{id}"),
        pid: 42,
        started_at,
        heartbeat_at: at,
    };
    assert_eq!(
        store.heartbeat(&node("n1", 1.0, 1.0), 10.0).expect("beat"),
        0
    );
    store.heartbeat(&node("n2", 2.0, 2.0), 10.0).expect("beat");
    store.heartbeat(&node("n1", 99.0, 5.0), 10.0).expect("beat");
    assert_eq!(
        store.nodes().expect("list"),
        [node("n1", 1.0, 5.0), node("n2", 2.0, 2.0)],
        "the start time stays the first one said"
    );
    assert!(matches!(store.engine(), Engine::Sqlite | Engine::Postgres));
}

// guards: several nodes asking for one period at the same instant must fire it once
fn nodes_racing_for_one_period_start_one_run(subject: &Subject) {
    const NODES: usize = 6;
    let stores: Vec<_> = (0..NODES).map(|_| subject.another()).collect();
    let barrier = Barrier::new(NODES);
    let starts: Vec<Start> = std::thread::scope(|scope| {
        let handles: Vec<_> = stores
            .into_iter()
            .enumerate()
            .map(|(i, store)| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let node = format!("node-{i}");
                    let gate = Gate {
                        period: Some(50),
                        max_concurrent: 2,
                        ..gate(&node, 50.0)
                    };
                    barrier.wait();
                    store
                        .start(&run(&format!("r{i}"), "a", 50.0), &gate)
                        .expect("start")
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("joined"))
            .collect()
    });
    let started = starts.iter().filter(|s| **s == Start::Started).count();
    assert_eq!(started, 1, "{starts:?}");
    assert_eq!(subject.store.runs(Some("a"), 10).expect("list").len(), 1);
}

fn dropped_events_tool_calls_and_shutdown_are_recorded(subject: &Subject) {
    let store = &subject.store;
    let mut dropped = run("d1", "a", 1.0);
    dropped.status = RunStatus::Skipped;
    dropped.skipped_reason = Some("event not run: a run of it was in flight".to_owned());
    dropped.completed_at = Some(1.0);
    store.record(&dropped).expect("record");
    assert_eq!(store.run("d1").expect("read").as_ref(), Some(&dropped));
    // An event that was not run is no run: it sets no last start.
    assert_eq!(store.last_starts().expect("read").get("a"), None);

    let r1 = run("r1", "a", 2.0);
    assert_eq!(
        store.start(&r1, &gate("node-1", 2.0)).expect("start"),
        Start::Started
    );
    let calls = json!([{"name": "echo", "arguments": {"x": 1}, "result": {"x": 1}}]);
    store.set_actions("r1", &calls).expect("set");
    assert_eq!(
        store.run("r1").expect("read").expect("there").actions_taken,
        Some(calls)
    );
    assert!(matches!(
        store.set_actions("ghost", &json!([])),
        Err(StoreError::UnknownRunId { .. })
    ));

    // Shutdown: the run is marked and its automation free at once.
    let ids = ["r1".to_owned(), "d1".to_owned()];
    assert_eq!(store.interrupt(&ids, 3.0).expect("interrupt"), 1);
    let r1 = store.run("r1").expect("read").expect("there");
    assert_eq!(
        (r1.status, r1.completed_at),
        (RunStatus::Interrupted, Some(3.0))
    );
    assert_eq!(
        store.run("d1").expect("read").expect("there").status,
        RunStatus::Skipped
    );
    assert_eq!(
        store
            .start(&run("r2", "a", 3.5), &gate("node-2", 3.5))
            .expect("start"),
        Start::Started
    );
}

fn the_status_counts_the_rows_of_each_table_and_lists_the_nodes(subject: &Subject) {
    let store = &subject.store;
    let periodic = Gate {
        period: Some(10),
        ..gate("n1", 10.0)
    };
    store
        .start(&run("r1", "a", 10.0), &periodic)
        .expect("start");
    store
        .finish(&completed(run("r1", "a", 10.0), 11.0))
        .expect("finish");
    store
        .start(&run("r2", "b", 12.0), &gate("n1", 12.0))
        .expect("start");
    let node = NodeInfo {
        id: "n1".to_owned(),
        host: "host-1".to_owned(),
        pid: 7,
        started_at: 1.0,
        heartbeat_at: 12.0,
    };
    store.heartbeat(&node, 30.0).expect("beat");

    let status = store.status().expect("status");
    assert_eq!(status.engine, store.engine());
    assert!(
        status
            .schema
            .iter()
            .all(|part| part.version == part.supported),
        "{:?}",
        status.schema
    );
    let rows = |table: &str| {
        status
            .tables
            .iter()
            .find(|t| t.table == table)
            .map(|t| t.rows)
    };
    assert_eq!(rows("automation_runs"), Some(2));
    assert_eq!(rows("automation_periods"), Some(1));
    assert_eq!(rows("nodes"), Some(1));
    assert_eq!(status.nodes, [node]);
    let text = status.to_string();
    assert!(
        text.contains("automation_runs     2\n"),
        "the rows of each table are shown: {text}"
    );
    assert!(text.contains("1970-01-01 00:00:12"), "{text}");
}

/// A gate of node `node` at `now` for the event `event`.
fn for_event<'a>(node: &'a str, now: f64, event: &'a str) -> Gate<'a> {
    Gate {
        event: Some(event),
        ..gate(node, now)
    }
}

fn an_event_starts_one_run_of_each_automation_whichever_node_asks(subject: &Subject) {
    let store = &subject.store;
    assert_eq!(
        store
            .start(&run("r1", "a", 1.0), &for_event("n1", 1.0, "e1"))
            .expect("start"),
        Start::Started
    );
    // Delivered to another node while the run is in flight: the same event, not one
    // to record as not run.
    assert_eq!(
        store
            .start(&run("r2", "a", 1.5), &for_event("n2", 1.5, "e1"))
            .expect("start"),
        Start::EventTaken {
            run_id: "r1".to_owned()
        }
    );
    store
        .finish(&completed(run("r1", "a", 1.0), 2.0))
        .expect("finish");
    // And after the run ended.
    assert_eq!(
        store
            .start(&run("r3", "a", 3.0), &for_event("n3", 3.0, "e1"))
            .expect("start"),
        Start::EventTaken {
            run_id: "r1".to_owned()
        }
    );
    // Another automation takes the same event; another event starts the automation.
    assert_eq!(
        store
            .start(&run("r4", "b", 3.0), &for_event("n2", 3.0, "e1"))
            .expect("start"),
        Start::Started
    );
    assert_eq!(
        store
            .start(&run("r5", "a", 4.0), &for_event("n2", 4.0, "e2"))
            .expect("start"),
        Start::Started
    );
    let ids: Vec<String> = store
        .runs(None, 10)
        .expect("list")
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(ids, ["r5", "r4", "r1"]);
}

fn an_event_not_run_is_recorded_once_and_not_run_after(subject: &Subject) {
    let store = &subject.store;
    let dropped = |id: &str, at: f64| {
        let mut row = run(id, "a", at);
        row.status = RunStatus::Skipped;
        row.skipped_reason = Some("event not run: 2 runs were in flight".to_owned());
        row.completed_at = Some(at);
        row
    };
    assert!(
        store
            .record_dropped(&dropped("d1", 1.0), "e1")
            .expect("record")
    );
    // The other nodes it reaches write nothing more.
    assert!(
        !store
            .record_dropped(&dropped("d2", 1.1), "e1")
            .expect("record")
    );
    assert_eq!(store.run("d2").expect("read"), None);
    assert_eq!(
        store
            .start(&run("r1", "a", 2.0), &for_event("n2", 2.0, "e1"))
            .expect("start"),
        Start::EventTaken {
            run_id: "d1".to_owned()
        }
    );
    // A node that ran the event first leaves nothing to record.
    assert_eq!(
        store
            .start(&run("r2", "a", 3.0), &for_event("n1", 3.0, "e2"))
            .expect("start"),
        Start::Started
    );
    assert!(
        !store
            .record_dropped(&dropped("d3", 3.1), "e2")
            .expect("record")
    );
    let statuses: Vec<(String, RunStatus)> = store
        .runs(Some("a"), 10)
        .expect("list")
        .into_iter()
        .map(|r| (r.id, r.status))
        .collect();
    assert_eq!(
        statuses,
        [
            ("r2".to_owned(), RunStatus::Running),
            ("d1".to_owned(), RunStatus::Skipped)
        ]
    );
}

fn nodes_racing_for_one_event_start_one_run(subject: &Subject) {
    const NODES: usize = 6;
    let stores: Vec<_> = (0..NODES).map(|_| subject.another()).collect();
    let barrier = Barrier::new(NODES);
    let answers: Vec<Start> = std::thread::scope(|scope| {
        let handles: Vec<_> = stores
            .into_iter()
            .enumerate()
            .map(|(n, store)| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let node = format!("node-{n}");
                    let run = run(&format!("r{n}"), "a", 5.0);
                    barrier.wait();
                    store
                        .start(&run, &for_event(&node, 5.0, "e1"))
                        .expect("start")
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a node's thread"))
            .collect()
    });
    let started = answers.iter().filter(|a| **a == Start::Started).count();
    assert_eq!(started, 1, "{answers:?}");
    // The others saw the event taken, or (the run in flight being the event's) the
    // automation held by it: never a second run.
    assert!(
        answers
            .iter()
            .all(|a| matches!(a, Start::Started | Start::EventTaken { .. })),
        "{answers:?}"
    );
    assert_eq!(subject.store.runs(Some("a"), 10).expect("list").len(), 1);
}

fn forgotten_events_start_runs_again(subject: &Subject) {
    let store = &subject.store;
    store
        .start(&run("r1", "a", 10.0), &for_event("n1", 10.0, "old"))
        .expect("start");
    store
        .finish(&completed(run("r1", "a", 10.0), 11.0))
        .expect("finish");
    store
        .start(&run("r2", "b", 20.0), &for_event("n1", 20.0, "new"))
        .expect("start");
    assert_eq!(store.forget_events(15.0).expect("forget"), 1);
    assert_eq!(
        store
            .start(&run("r3", "a", 21.0), &for_event("n2", 21.0, "old"))
            .expect("start"),
        Start::Started,
        "an event forgotten is a new event"
    );
    assert_eq!(
        store
            .start(&run("r4", "b", 21.0), &for_event("n2", 21.0, "new"))
            .expect("start"),
        Start::EventTaken {
            run_id: "r2".to_owned()
        }
    );
}

fn section(heading: &str, content: &str) -> NoteSection {
    NoteSection {
        heading: heading.to_owned(),
        content: content.to_owned(),
    }
}

fn note(source: &str, mtime_ns: i64, sections: &[(&str, &str)]) -> Note {
    Note {
        source: source.to_owned(),
        mtime_ns,
        sections: sections
            .iter()
            .map(|(heading, content)| section(heading, content))
            .collect(),
    }
}

fn memory_search_puts_the_clearly_better_entry_first_within_its_project(subject: &Subject) {
    let memory = subject.memory();
    memory
        .upsert("p", "a", "Deploy", "the deploy runs make deploy twice")
        .expect("upsert");
    memory
        .upsert(
            "p",
            "b",
            "Other",
            "unrelated text that mentions deploy once among many other words here",
        )
        .expect("upsert");
    memory
        .upsert("q", "c", "Deploy", "deploy deploy deploy")
        .expect("upsert");
    let hits = memory.search("p", "deploy", 10).expect("search");
    let sources: Vec<&str> = hits.iter().map(|h| h.source.as_str()).collect();
    assert_eq!(sources, ["a", "b"], "best first, other projects left out");
    assert!(hits[0].score > hits[1].score, "{hits:?}");
    assert_eq!(memory.search("p", "deploy", 1).expect("search").len(), 1);
    assert!(memory.search("p", "\"(", 5).expect("search").is_empty());

    // A word in the heading weighs more than in the text of an entry as long.
    memory
        .upsert("r", "text", "Notes", "rollback steps")
        .expect("upsert");
    memory
        .upsert("r", "heading", "Rollback", "notes steps")
        .expect("upsert");
    let hits = memory.search("r", "rollback", 10).expect("search");
    let sources: Vec<&str> = hits.iter().map(|h| h.source.as_str()).collect();
    assert_eq!(sources, ["heading", "text"]);
}

fn memory_search_finds_the_same_entries_on_the_same_data(subject: &Subject) {
    let memory = subject.memory();
    let entries = [
        ("ops", "Deploys", "Deploying on a Friday is not allowed."),
        (
            "ops",
            "Rollback",
            "Roll back with make rollback; the deploy is undone.",
        ),
        ("team", "", "The reviewer checks the database migrations."),
        (
            "team",
            "On call",
            "The on-call engineer answers pages within 5 minutes.",
        ),
        (
            "db",
            "Migrations",
            "Each migration runs once, under an advisory lock.",
        ),
        ("db", "Backups", "Backups are taken nightly at 02:00 UTC."),
    ];
    for (source, heading, content) in entries {
        memory
            .upsert("p", source, heading, content)
            .expect("upsert");
    }
    let found = |query: &str| -> BTreeSet<(String, String)> {
        memory
            .search("p", query, 50)
            .expect("search")
            .into_iter()
            .map(|hit| (hit.source, hit.heading))
            .collect()
    };
    let places = |list: &[(&str, &str)]| -> BTreeSet<(String, String)> {
        list.iter()
            .map(|(s, h)| ((*s).to_owned(), (*h).to_owned()))
            .collect()
    };
    // Every form of a word (the English stemmer), any word of the query.
    assert_eq!(
        found("deployed"),
        places(&[("ops", "Deploys"), ("ops", "Rollback")])
    );
    assert_eq!(
        found("migration backups"),
        places(&[("team", ""), ("db", "Migrations"), ("db", "Backups")])
    );
    // Words other full-text engines leave out as too common are searched.
    assert_eq!(
        found("not once"),
        places(&[("ops", "Deploys"), ("db", "Migrations")])
    );
    // Hyphenated words are found by their parts; digits are words.
    assert_eq!(found("call"), places(&[("team", "On call")]));
    assert_eq!(found("5"), places(&[("team", "On call")]));
    assert_eq!(found("Friday!"), places(&[("ops", "Deploys")]));
    assert!(found("kubernetes").is_empty());
}

fn memory_upserts_replace_their_place_and_get_reads_the_last_written(subject: &Subject) {
    let memory = subject.memory();
    memory.upsert("p", "s", "h", "old words").expect("upsert");
    memory.upsert("p", "s", "h", "new words").expect("upsert");
    let hits = memory.search("p", "words", 10).expect("search");
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].content, "new words");

    memory
        .upsert("p", "ops", "", "the ops notes")
        .expect("upsert");
    memory
        .upsert("q", "ops", "deploys", "any day")
        .expect("upsert");
    memory
        .update_notes("p", &[note("/n/a.md", 1, &[("Alpha", "zebra")])], &[])
        .expect("index");
    memory
        .upsert("p", "/n/a.md", "Alpha", "written after the note")
        .expect("upsert");
    let entry = |source: &str, heading: &str| {
        memory
            .get("p", source, heading)
            .expect("read")
            .map(|e| e.content)
    };
    assert_eq!(entry("s", "h").as_deref(), Some("new words"));
    assert_eq!(entry("ops", "").as_deref(), Some("the ops notes"));
    assert_eq!(
        entry("/n/a.md", "Alpha").as_deref(),
        Some("written after the note"),
        "the one written last"
    );
    assert_eq!(entry("s", "H"), None, "the heading is exact");
    assert_eq!(
        entry("ops", "deploys"),
        None,
        "another project's entry is its own"
    );
}

fn memory_notes_are_replaced_and_removed_whole_and_upserts_stay(subject: &Subject) {
    let memory = subject.memory();
    memory
        .update_notes(
            "p",
            &[
                note(
                    "/n/a.md",
                    1,
                    &[("Alpha", "zebra facts"), ("", "intro zebra")],
                ),
                note("/n/b.md", 2, &[("Beta", "more zebra")]),
            ],
            &[],
        )
        .expect("index");
    memory
        .update_notes("q", &[note("/n/a.md", 9, &[("Other", "zebra")])], &[])
        .expect("another project");
    assert_eq!(memory.search("p", "zebra", 10).expect("search").len(), 3);
    assert_eq!(
        memory.indexed_notes("p").expect("read"),
        HashMap::from([("/n/a.md".to_owned(), 1), ("/n/b.md".to_owned(), 2)])
    );

    memory
        .upsert("p", "/n/b.md", "Beta", "kept tiger")
        .expect("upsert");
    memory
        .update_notes(
            "p",
            &[note("/n/a.md", 3, &[("Alpha", "lion facts")])],
            &["/n/b.md".to_owned()],
        )
        .expect("reindex");
    assert!(memory.search("p", "zebra", 10).expect("search").is_empty());
    let lion = memory.search("p", "lion", 10).expect("search");
    assert_eq!((lion.len(), lion[0].heading.as_str()), (1, "Alpha"));
    assert_eq!(
        memory.search("p", "tiger", 10).expect("search").len(),
        1,
        "an upsert under a removed note's source stays"
    );
    assert_eq!(
        memory.indexed_notes("p").expect("read"),
        HashMap::from([("/n/a.md".to_owned(), 3)])
    );
    assert_eq!(memory.search("q", "zebra", 10).expect("search").len(), 1);
}

fn a_created_task_reads_back_pending_with_its_fields(subject: &Subject) {
    let tasks = subject.tasks();
    let task = NewTask {
        project_id: "p".to_owned(),
        title: "Fix it".to_owned(),
        description: "the build, with \"quotes\" and ünïcode".to_owned(),
        parent_task_id: Some("t0".to_owned()),
        profile_id: None,
        preferred_workspace_id: Some("w1".to_owned()),
        branch_name: Some("fix/it".to_owned()),
        priority: 5,
        context_entries: json!([{"type": "note", "label": "l", "content": "c", "zeta": 1, "alpha": 2}]),
        created_by: Some("automation:a".to_owned()),
    };
    let first = tasks.create(&task).expect("create");
    let second = tasks.create(&task).expect("create");
    assert_ne!(first, second, "each task gets its own id");
    assert!(first < second, "ids sort by creation time");
    let row = tasks.get(&first).expect("read").expect("there");
    assert_eq!(
        (row.id.as_str(), row.status.as_str(), row.result, row.error),
        (first.as_str(), "pending", None, None)
    );
    assert_eq!(
        (
            &row.project_id,
            &row.title,
            &row.description,
            &row.parent_task_id,
            &row.profile_id,
            &row.preferred_workspace_id,
            &row.branch_name,
            row.priority,
            &row.created_by,
        ),
        (
            &task.project_id,
            &task.title,
            &task.description,
            &task.parent_task_id,
            &task.profile_id,
            &task.preferred_workspace_id,
            &task.branch_name,
            task.priority,
            &task.created_by,
        )
    );
    assert_eq!(
        row.context_entries.to_string(),
        task.context_entries.to_string(),
        "the entries read back as written, keys in their order"
    );
    assert!(row.created_at > 0.0);
    assert!((row.created_at - row.updated_at).abs() < f64::EPSILON);
    assert_eq!(tasks.get("nope").expect("read"), None);
}

fn plugin(id: &str) -> PluginRow {
    PluginRow {
        id: id.to_owned(),
        name: format!("{id} name"),
        description: "what it does".to_owned(),
        path: format!("/plugins/{id}"),
        version: Some("1.2.0".to_owned()),
        registered_at_ms: 1,
    }
}

fn enabled(plugins: &dyn PluginStore, agent: Option<&str>) -> Vec<String> {
    plugins
        .enabled_for(agent)
        .expect("query")
        .into_iter()
        .map(|p| p.id)
        .collect()
}

fn plugins_are_registered_once_listed_in_order_and_deleted_with_their_rows(subject: &Subject) {
    let plugins = subject.plugins();
    // Registration order, not id order: the order their decision hooks run in.
    for id in ["zeta", "alpha", "mid"] {
        plugins.register(&plugin(id)).expect("register");
    }
    assert!(matches!(
        plugins.register(&plugin("alpha")),
        Err(StoreError::DuplicatePlugin { id }) if id == "alpha"
    ));
    let mut now = plugin("now");
    now.registered_at_ms = 0;
    plugins.register(&now).expect("register");
    let stored = plugins.get("now").expect("read").expect("registered");
    assert!(stored.registered_at_ms > 1_700_000_000_000, "{stored:?}");
    assert_eq!(plugins.get("alpha").expect("read"), Some(plugin("alpha")));
    assert_eq!(plugins.get("nope").expect("read"), None);

    plugins.set_enabled("mid", "coder", true).expect("enable");
    plugins.set_enabled("mid", "*", true).expect("enable");
    plugins
        .set_enabled("mid", "reviewer", false)
        .expect("disable");
    let listed: Vec<(String, Vec<AgentEnablement>)> = plugins
        .list()
        .expect("list")
        .into_iter()
        .map(|entry| (entry.plugin.id, entry.agents))
        .collect();
    let ids: Vec<&str> = listed.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["zeta", "alpha", "mid", "now"]);
    let agents: Vec<(&str, bool)> = listed[2]
        .1
        .iter()
        .map(|a| (a.agent.as_str(), a.enabled))
        .collect();
    assert_eq!(agents, [("*", true), ("reviewer", false)], "`*` first");

    plugins.delete("mid").expect("delete");
    assert_eq!(plugins.get("mid").expect("read"), None);
    plugins.register(&plugin("mid")).expect("registered anew");
    assert!(
        plugins.list().expect("list")[3].agents.is_empty(),
        "its enablement went with it"
    );
    assert!(matches!(
        plugins.delete("ghost"),
        Err(StoreError::UnknownPlugin { id }) if id == "ghost"
    ));
    assert!(matches!(
        plugins.set_enabled("ghost", "*", true),
        Err(StoreError::UnknownPlugin { id }) if id == "ghost"
    ));
}

fn plugins_are_enabled_by_agent_with_the_wildcard_as_the_default(subject: &Subject) {
    let plugins = subject.plugins();
    for id in ["a", "b", "c"] {
        plugins.register(&plugin(id)).expect("register");
    }
    // Enabled for nobody when registered.
    assert!(enabled(&*plugins, Some("coder")).is_empty());
    assert!(enabled(&*plugins, None).is_empty());

    // The agent's own row wins over `*`.
    plugins.set_enabled("a", "*", true).expect("enable all");
    plugins
        .set_enabled("a", "reviewer", false)
        .expect("disable one");
    plugins.set_enabled("b", "coder", true).expect("enable one");
    assert_eq!(enabled(&*plugins, Some("coder")), ["a", "b"]);
    assert!(enabled(&*plugins, Some("reviewer")).is_empty());
    assert_eq!(enabled(&*plugins, None), ["a"], "no agent: `*` alone");
    // An agent named like a pattern is a name.
    plugins.set_enabled("c", "co%", true).expect("enable");
    assert_eq!(enabled(&*plugins, Some("coder")), ["a", "b"]);
    assert_eq!(enabled(&*plugins, Some("co%")), ["a", "c"]);

    // `*` replaces the agents' exceptions.
    plugins.set_enabled("a", "*", false).expect("disable all");
    assert_eq!(enabled(&*plugins, Some("coder")), ["b"]);
    assert!(enabled(&*plugins, Some("reviewer")).is_empty());
    assert_eq!(
        plugins.list().expect("list")[0].agents,
        [AgentEnablement {
            agent: "*".to_owned(),
            enabled: false
        }]
    );
}

// --- The ledger of emits -------------------------------------------------------------

fn an_emit_begun_then_finished_reads_back_whole_and_its_async_hooks_complete_it(subject: &Subject) {
    let ledger = subject.ledger();
    let mut emit = full_emit();
    emit.hooks[3].result = HookResult::Dispatched;
    ledger.begin(&emit).expect("begin");
    let listed = ledger.recent(&EmitFilter::default()).expect("recent");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].decision, EmitDecision::Running);
    assert_eq!(listed[0].hooks_run, 0, "no hook rows before the end");
    // A live process's emit in progress is no abandoned one.
    assert_eq!(ledger.interrupt_abandoned().expect("interrupt"), 0);

    ledger.finish(&emit).expect("finish");
    let read = ledger
        .detail(&emit.run_id)
        .expect("why")
        .expect("found")
        .emit;
    assert_eq!(read, emit, "every field reads back as written");
    let summary = &ledger.recent(&EmitFilter::default()).expect("recent")[0];
    assert_eq!(
        (
            summary.decision,
            summary.hooks_run,
            summary.agent.as_deref()
        ),
        (EmitDecision::Deny, 3, Some("claude-1"))
    );

    // The async hook's result replaces its `dispatched` row; a hook with no such row
    // is appended after the others.
    let mut done = emit.hooks[3].clone();
    done.result = HookResult::Allow;
    done.stdout = Some("later\n".to_owned());
    let extra = hook("extra", true);
    ledger
        .complete_hook_runs(&emit.run_id, &[done.clone(), extra.clone()])
        .expect("complete");
    let hooks = ledger
        .detail(&emit.run_id)
        .expect("why")
        .expect("found")
        .emit
        .hooks;
    assert_eq!(hooks.len(), 5);
    assert_eq!(hooks[3], done);
    assert_eq!(hooks[4], extra);

    // A run id recorded twice keeps the first; an unknown one is said.
    let mut again = bare_emit(&emit.run_id, 1, "x");
    again.decision = EmitDecision::Allow;
    assert!(matches!(
        ledger.record(&again),
        Err(StoreError::DuplicateRunId { .. })
    ));
    assert!(matches!(
        ledger.complete_hook_runs("nobody", &[]),
        Err(StoreError::UnknownRunId { .. })
    ));
    assert!(matches!(
        ledger.append_hook_runs("nobody", &[]),
        Err(StoreError::UnknownRunId { .. })
    ));
    ledger
        .append_hook_runs(&emit.run_id, &[hook("appended", false)])
        .expect("append");
    let hooks = ledger.detail(&emit.run_id).expect("why").expect("found");
    assert_eq!(hooks.emit.hooks[5].name, "appended");

    // A hook that printed a NUL byte costs nothing else: PostgreSQL cannot hold NUL in
    // text, and keeps the excerpt with U+FFFD in its place.
    let mut nul = bare_emit("nul-1", 3, "tool.after");
    let mut printed = hook("nul", true);
    printed.stderr = Some("before\0after".to_owned());
    nul.hooks = vec![printed];
    ledger.record(&nul).expect("record");
    let stderr = ledger
        .detail("nul-1")
        .expect("why")
        .expect("found")
        .emit
        .hooks[0]
        .stderr
        .clone()
        .expect("kept");
    assert!(
        ["before\0after", "before\u{FFFD}after"].contains(&stderr.as_str()),
        "{stderr:?}"
    );

    // The end of an emit whose start was not recorded writes it whole.
    ledger
        .finish(&bare_emit("unbegun", 2, "tool.after"))
        .expect("finish");
    assert!(ledger.detail("unbegun").expect("why").is_some());

    // `hookrig store status` counts the ledger's rows too.
    let status = subject.store.status().expect("status");
    let rows = |table: &str| {
        status
            .tables
            .iter()
            .find(|t| t.table == table)
            .map(|t| t.rows)
    };
    assert_eq!((rows("emits"), rows("hook_runs")), (Some(3), Some(7)));
}

fn why_finds_a_run_by_its_id_or_a_literal_prefix(subject: &Subject) {
    let ledger = subject.ledger();
    for (n, id) in ["abcdef", "ab%_xyz", "abcd", "abcde", "r1", "ééééx", "ééééy"]
        .into_iter()
        .enumerate()
    {
        let at = i64::try_from(n).expect("small");
        ledger
            .record(&bare_emit(id, at, "tool.before"))
            .expect("record");
    }
    let found = |prefix: &str| {
        ledger
            .detail(prefix)
            .map(|found| found.map(|detail| detail.emit.run_id))
    };
    // An exact id wins over the longer ids it is a prefix of.
    assert_eq!(found("abcd").expect("exact").as_deref(), Some("abcd"));
    // Wildcards of LIKE and GLOB are plain characters; case counts.
    assert_eq!(found("ab%_").expect("prefix").as_deref(), Some("ab%_xyz"));
    for none in ["ABCD", "abc_", "ab*d", "abcdefg"] {
        assert_eq!(found(none).expect("lookup"), None, "{none}");
    }
    assert_eq!(found("ééééy").expect("prefix").as_deref(), Some("ééééy"));
    assert!(matches!(
        found("éééé"),
        Err(StoreError::AmbiguousRunId { count: 2, .. })
    ));
    assert!(matches!(
        found("abc"),
        Err(StoreError::RunIdTooShort { min: 4, .. })
    ));
    assert_eq!(
        found("r1").expect("a short whole id").as_deref(),
        Some("r1")
    );
}

/// A ledger of `count` emits one ms apart, the last two in the same ms: every third
/// denied, agents `a0`..`a3`, events and dialects alternating, hook `guard` in every emit
/// and `rare` in every tenth, and a shadow hook that disagrees in every fifth.
fn fill(ledger: &dyn Ledger, count: i64) {
    for n in 0..count {
        let mut emit = bare_emit(
            &format!("run-{n:04}"),
            n.min(count - 2),
            if n % 2 == 0 {
                "tool.before"
            } else {
                "tool.after"
            },
        );
        emit.dialect = if n % 2 == 0 {
            hookrig_core::Dialect::Claude
        } else {
            hookrig_core::Dialect::Native
        };
        emit.agent = Some(format!("a{}", n % 4));
        emit.decision = if n % 3 == 0 {
            EmitDecision::Deny
        } else {
            EmitDecision::Allow
        };
        emit.hooks.push(hook("guard", true));
        if n % 10 == 0 {
            emit.hooks.push(hook("rare", true));
        }
        if n % 5 == 0 {
            let mut shadow = hook("shadow", true);
            shadow.shadow = true;
            shadow.result = if emit.decision == EmitDecision::Deny {
                HookResult::Allow
            } else {
                HookResult::Deny
            };
            emit.hooks.push(shadow);
        }
        ledger.record(&emit).expect("record");
    }
}

fn runs_and_pages_filter_and_page_without_repeating_or_skipping(subject: &Subject) {
    let ledger = subject.ledger();
    fill(&*ledger, 40);
    let numbers = |ids: Vec<String>| -> Vec<i64> {
        ids.iter()
            .map(|id| id["run-".len()..].parse().expect("a number"))
            .collect()
    };
    let pages = |mut query: EmitQuery| {
        let mut seen = Vec::new();
        loop {
            let page = ledger.page(&query).expect("page");
            assert!(page.runs.len() <= query.limit);
            seen.extend(page.runs.into_iter().map(|run| run.run_id));
            match page.next {
                Some(next) => query.before = Some(next),
                None => return numbers(seen),
            }
        }
    };
    let check = |f: fn(&mut EmitQuery), keep: fn(i64) -> bool| {
        let mut query = EmitQuery {
            limit: 7,
            ..EmitQuery::default()
        };
        f(&mut query);
        let expected: Vec<i64> = (0..40).rev().filter(|n| keep(*n)).collect();
        assert_eq!(pages(query.clone()), expected, "{query:?}");
    };
    // Newest first; the last two share a millisecond and come in reverse order.
    check(|_| {}, |_| true);
    check(|q| q.event = Some("tool.after".to_owned()), |n| n % 2 == 1);
    check(|q| q.decision = Some(EmitDecision::Deny), |n| n % 3 == 0);
    check(|q| q.decision = Some(EmitDecision::Allow), |n| n % 3 != 0);
    check(|q| q.agent = Some("a2".to_owned()), |n| n % 4 == 2);
    check(|q| q.dialect = Some("claude".to_owned()), |n| n % 2 == 0);
    check(|q| q.hook = Some("rare".to_owned()), |n| n % 10 == 0);
    check(|q| q.hook = Some("guard".to_owned()), |_| true);
    check(|q| q.hook = Some("nobody".to_owned()), |_| false);
    check(|q| q.since_ms = Some(30), |n| n >= 30);
    check(|q| q.until_ms = Some(5), |n| n < 5);
    check(
        |q| {
            q.event = Some("tool.before".to_owned());
            q.agent = Some("a2".to_owned());
            q.decision = Some(EmitDecision::Deny);
        },
        |n| n % 12 == 6,
    );

    // `hookrig runs`: its filters, its limit, and the shadow hooks that disagreed.
    let recent = |filter: EmitFilter| -> Vec<i64> {
        numbers(
            ledger
                .recent(&filter)
                .expect("recent")
                .into_iter()
                .map(|s| s.run_id)
                .collect(),
        )
    };
    assert_eq!(
        recent(EmitFilter::default()),
        (20..40).rev().collect::<Vec<_>>()
    );
    let all = |f: fn(&mut EmitFilter)| {
        let mut filter = EmitFilter {
            limit: usize::MAX,
            ..EmitFilter::default()
        };
        f(&mut filter);
        filter
    };
    assert_eq!(
        recent(all(|f| {
            f.event = Some("tool.before".to_owned());
            f.agent = Some("a0".to_owned());
        })),
        (0..40).rev().filter(|n| n % 4 == 0).collect::<Vec<_>>()
    );
    assert_eq!(
        recent(all(|f| f.shadow = true)),
        (0..40).rev().filter(|n| n % 5 == 0).collect::<Vec<_>>()
    );
    let summaries = ledger.recent(&all(|f| f.shadow = true)).expect("recent");
    assert!(summaries.iter().all(|s| s.shadow_disagreed == ["shadow"]));
    assert!(
        ledger
            .recent(&EmitFilter {
                limit: 0,
                ..EmitFilter::default()
            })
            .expect("recent")
            .is_empty()
    );
}

fn a_batch_applies_in_order_and_a_refused_write_leaves_the_others(subject: &Subject) {
    let ledger = subject.ledger();
    ledger.record(&bare_emit("taken", 1, "e")).expect("record");
    let mut finished = bare_emit("begun", 2, "e");
    finished.decision = EmitDecision::Deny;
    let mut later = hook("later", true);
    later.is_async = true;
    later.result = HookResult::Dispatched;
    finished.hooks = vec![later.clone()];
    later.result = HookResult::Allow;
    let writes = [
        EmitWrite::Begin(bare_emit("begun", 2, "e")),
        EmitWrite::Record(bare_emit("taken", 3, "e")),
        EmitWrite::Finish(finished),
        EmitWrite::CompleteHookRuns {
            run_id: "begun".to_owned(),
            runs: vec![later.clone()],
        },
        EmitWrite::CompleteHookRuns {
            run_id: "nobody".to_owned(),
            runs: Vec::new(),
        },
        EmitWrite::Finish(bare_emit("unbegun", 4, "e")),
    ];
    let refs: Vec<&EmitWrite> = writes.iter().collect();
    let results = ledger.apply(&refs).expect("the batch commits");
    let failed: Vec<bool> = results.iter().map(Result::is_err).collect();
    assert_eq!(failed, [false, true, false, false, true, false]);
    assert!(matches!(results[1], Err(StoreError::DuplicateRunId { .. })));
    assert!(matches!(results[4], Err(StoreError::UnknownRunId { .. })));
    // Read on another connection: what the batch wrote is committed.
    let reader = subject.ledger();
    let begun = reader.detail("begun").expect("why").expect("there").emit;
    assert_eq!(begun.decision, EmitDecision::Deny);
    assert_eq!(begun.hooks, [later]);
    let taken = reader.detail("taken").expect("why").expect("kept").emit;
    assert_eq!(taken.started_at_ms, 1, "the first record is kept");
    assert!(reader.detail("unbegun").expect("why").is_some());
}

fn the_live_view_and_a_plans_task_history_read_what_was_written(subject: &Subject) {
    let ledger = subject.ledger();
    assert_eq!(ledger.last_row().expect("last row"), 0);
    let events = [
        (
            "task.claimed",
            r#"{"plan":"/p/plan.spl","task":"design"}"#,
            "coder",
        ),
        (
            "task.completed",
            r#"{"plan":"/p/plan.spl","task":"design"}"#,
            "coder",
        ),
        (
            "task.claimed",
            r#"{"plan":"/other.spl","task":"design"}"#,
            "x",
        ),
        (
            "tool.before",
            r#"{"plan":"/p/plan.spl","task":"design"}"#,
            "y",
        ),
        (
            "task.blocked",
            r#"{"plan":"/p/plan.spl","task":"api"}"#,
            "reviewer",
        ),
        ("task.claimed", "not json", "z"),
    ];
    for (n, (event, payload, agent)) in events.into_iter().enumerate() {
        let at = i64::try_from(n).expect("small");
        let mut emit: EmitRecord = bare_emit(&format!("run-{n}"), at, event);
        payload.clone_into(&mut emit.payload_in);
        emit.agent = Some(agent.to_owned());
        ledger.record(&emit).expect("record");
    }
    let said = |task: Option<&str>| -> Vec<String> {
        ledger
            .task_history("/p/plan.spl", task, 10)
            .expect("history")
            .into_iter()
            .map(|e| format!("{} {} {}", e.event, e.task, e.agent.unwrap_or_default()))
            .collect()
    };
    assert_eq!(
        said(None),
        [
            "task.blocked api reviewer",
            "task.completed design coder",
            "task.claimed design coder"
        ]
    );
    assert_eq!(
        said(Some("design")),
        ["task.completed design coder", "task.claimed design coder"]
    );

    // The live view: rows written after one it saw, oldest first, and those it asks for
    // again (an emit it saw `running`).
    let last = ledger.last_row().expect("last row");
    let all = ledger.since(0, &[], 100).expect("since");
    let rows: Vec<i64> = all.iter().map(|row| row.row).collect();
    assert_eq!(rows.len(), 6);
    assert!(rows.windows(2).all(|w| w[0] < w[1]), "{rows:?}");
    assert_eq!(rows[5], last);
    assert_eq!(all[0].summary.run_id, "run-0");
    let again = ledger.since(rows[3], &[rows[1]], 100).expect("since");
    let ids: Vec<&str> = again
        .iter()
        .map(|row| row.summary.run_id.as_str())
        .collect();
    assert_eq!(ids, ["run-1", "run-4", "run-5"]);
    assert!(ledger.since(last, &[], 100).expect("since").is_empty());
}

/// An automation as a file defines it, with every optional column set.
fn definition(id: &str, at: f64) -> AutomationRow {
    AutomationRow {
        id: id.to_owned(),
        project_id: "proj".to_owned(),
        name: format!("{id} name"),
        enabled: true,
        trigger: r#"{"type":"periodic","interval_seconds":60}"#.to_owned(),
        context_steps: r#"[{"type":"shell","command":"true"}]"#.to_owned(),
        prompt_template: "Review {{event.task_id}}".to_owned(),
        llm_config: Some(r#"{"provider":"openai"}"#.to_owned()),
        cooldown_seconds: 30,
        max_tokens_per_run: Some(4000),
        source: Some(format!("/srv/{id}.toml")),
        created_at: at,
        updated_at: at,
        held: None,
        tools: Some(r#"{"grants":["emit"]}"#.to_owned()),
    }
}

/// The ids of `rows`, in their order.
fn ids(rows: &[AutomationRow]) -> Vec<&str> {
    rows.iter().map(|row| row.id.as_str()).collect()
}

/// The automations the SQLite subject stores for its runs are left out of the answers.
fn ours(rows: Vec<AutomationRow>) -> Vec<AutomationRow> {
    rows.into_iter()
        .filter(|row| !AUTOMATIONS.contains(&row.id.as_str()))
        .collect()
}

fn automations_are_examined_in_the_order_first_stored_and_updated_in_place(subject: &Subject) {
    let automations = subject.automations();
    let zeta = definition("zeta", 1.0);
    assert_eq!(automations.upsert(&zeta).expect("store"), zeta);
    automations
        .upsert(&definition("alpha", 2.0))
        .expect("store");
    let mut bare = definition("bare", 3.0);
    (
        bare.llm_config,
        bare.max_tokens_per_run,
        bare.source,
        bare.tools,
    ) = (None, None, None, None);
    automations.upsert(&bare).expect("store");

    let renamed = AutomationRow {
        name: "renamed".to_owned(),
        enabled: false,
        ..definition("zeta", 9.0)
    };
    let stored = automations.upsert(&renamed).expect("update");
    assert_eq!(
        (stored.created_at, stored.updated_at),
        (1.0, 9.0),
        "an update keeps when it was first stored"
    );
    assert_eq!(
        automations.get("zeta").expect("read"),
        Some(AutomationRow {
            created_at: 1.0,
            ..renamed
        })
    );
    assert_eq!(automations.get("bare").expect("read"), Some(bare));
    assert_eq!(automations.get("nope").expect("read"), None);
    // Not the ids' order, nor the updates': the order they were first stored in, which
    // the engine examines them in (the cap stops it part-way).
    let listed = ours(automations.list(false).expect("list"));
    assert_eq!(ids(&listed), ["zeta", "alpha", "bare"]);
}

fn disabled_and_held_automations_are_left_out_of_the_runnable_ones(subject: &Subject) {
    let automations = subject.automations();
    for (id, at) in [("one", 1.0), ("two", 2.0), ("three", 3.0)] {
        automations.upsert(&definition(id, at)).expect("store");
    }
    automations.set_enabled("one", false, 5.0).expect("disable");
    let held = automations
        .hold("/srv/two.toml", "it changed since it was trusted", 6.0)
        .expect("hold");
    assert_eq!(held, ["two"]);
    assert_eq!(ids(&ours(automations.list(true).expect("list"))), ["three"]);
    let one = automations.get("one").expect("read").expect("stored");
    assert!(!one.enabled);
    assert!((one.updated_at - 5.0).abs() < f64::EPSILON, "{one:?}");
    let two = automations.get("two").expect("read").expect("stored");
    assert_eq!(two.held.as_deref(), Some("it changed since it was trusted"));
    assert!(two.enabled, "holding leaves the operator's flag alone");

    automations.set_enabled("one", true, 7.0).expect("enable");
    automations
        .upsert(&definition("two", 8.0))
        .expect("stored again");
    assert_eq!(
        ids(&ours(automations.list(true).expect("list"))),
        ["one", "two", "three"]
    );
    assert!(matches!(
        automations.set_enabled("ghost", true, 9.0),
        Err(StoreError::UnknownAutomation { id }) if id == "ghost"
    ));
    assert!(
        automations
            .hold("/srv/ghost.toml", "gone", 9.0)
            .expect("hold")
            .is_empty()
    );
}

fn an_automation_is_deleted_with_its_runs(subject: &Subject) {
    let automations = subject.automations();
    automations.upsert(&definition("a", 1.0)).expect("store");
    automations.upsert(&definition("b", 1.0)).expect("store");
    let periodic = Gate {
        period: Some(10),
        ..gate("n1", 10.0)
    };
    let store = &subject.store;
    store
        .start(&run("r1", "a", 10.0), &periodic)
        .expect("start");
    store
        .finish(&completed(run("r1", "a", 10.0), 11.0))
        .expect("finish");
    store
        .start(&run("r2", "b", 12.0), &gate("n1", 12.0))
        .expect("start");

    automations.delete("a").expect("delete");
    assert_eq!(automations.get("a").expect("read"), None);
    assert_eq!(
        store.run("r1").expect("read"),
        None,
        "its runs went with it"
    );
    assert!(store.runs(Some("a"), 10).expect("list").is_empty());
    assert!(store.run("r2").expect("read").is_some(), "another's stay");
    // Its periods went too: stored again, it fires the same period anew.
    automations
        .upsert(&definition("a", 20.0))
        .expect("store again");
    assert_eq!(
        store
            .start(&run("r3", "a", 20.0), &periodic)
            .expect("start"),
        Start::Started
    );
    assert!(matches!(
        automations.delete("ghost"),
        Err(StoreError::UnknownAutomation { id }) if id == "ghost"
    ));
}

// guards: a node reads the shared definitions again when they changed, and only then;
// the revision it checks on each tick must move with every kind of write
#[test]
fn the_shared_automations_revision_moves_with_every_write() {
    let Some(db) = TestDatabase::create("automations_revision") else {
        return;
    };
    let store = PgStore::open(db.url()).expect("open");
    let automations = store.automations();
    let mut seen = vec![automations.revision().expect("revision")];
    let mut moved = |what: &str| {
        let now = automations.revision().expect("revision");
        assert!(
            now > *seen.last().expect("one"),
            "{what} moves the revision"
        );
        seen.push(now);
    };
    automations.upsert(&definition("x", 1.0)).expect("store");
    moved("an insert");
    automations.upsert(&definition("x", 2.0)).expect("store");
    moved("an update");
    automations.set_enabled("x", false, 3.0).expect("disable");
    moved("disabling");
    automations
        .hold("/srv/x.toml", "changed", 4.0)
        .expect("hold");
    moved("holding");
    automations.delete("x").expect("delete");
    moved("a delete");
    db.forge_automation("by-hand", "{}", "[]");
    moved("a write by hand");
    let before = automations.revision().expect("revision");
    automations.list(false).expect("list");
    automations.get("by-hand").expect("read");
    assert_eq!(
        automations.revision().expect("revision"),
        before,
        "reads do not"
    );
}

// guards: a shared automation runs only when its row is the operator's: signed with the
// key when written, signed again when enabled or disabled with it, and not otherwise
#[test]
fn only_automation_rows_written_with_the_operators_key_verify() {
    let Some(db) = TestDatabase::create("automations_signed") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let key =
        hookrig_store::RegistryKey::load_or_create(&dir.path().join("registry.key")).expect("key");
    let store = PgStore::open(db.url()).expect("open");
    let verified = || -> Vec<(String, bool)> {
        store
            .automations()
            .list_signed()
            .expect("list")
            .into_iter()
            .map(|(row, signature)| {
                let verifies = key.verifies_automation(&row, &signature);
                (row.id, verifies)
            })
            .collect()
    };
    let signed = store.signed_automations(&key);
    signed.upsert(&definition("ops", 1.0)).expect("store");
    store
        .automations()
        .upsert(&definition("unsigned", 1.0))
        .expect("store");
    assert_eq!(
        verified(),
        [("ops".to_owned(), true), ("unsigned".to_owned(), false)]
    );
    signed.set_enabled("ops", false, 2.0).expect("disable");
    assert_eq!(verified()[0], ("ops".to_owned(), true), "signed again");
    // Enabled by whoever holds no key: the signature says disabled.
    store
        .automations()
        .set_enabled("ops", true, 3.0)
        .expect("enable");
    assert_eq!(verified()[0], ("ops".to_owned(), false));
    // The operator's enable does not sign what someone else changed: the row is written
    // again from its definition.
    assert!(matches!(
        signed.set_enabled("ops", true, 4.0),
        Err(StoreError::UnsignedAutomation { id, .. }) if id == "ops"
    ));
    signed
        .upsert(&definition("ops", 5.0))
        .expect("stored again");
    assert_eq!(verified()[0], ("ops".to_owned(), true));
    assert!(matches!(
        signed.set_enabled("ghost", true, 5.0),
        Err(StoreError::UnknownAutomation { id }) if id == "ghost"
    ));
}
