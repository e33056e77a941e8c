//! `hookrig store migrate`: the SQLite store's runs, periods, nodes, memory, tasks,
//! plugins and ledger copied into a fresh PostgreSQL database of the test cluster
//! (skipped where `HOOKRIG_TEST_POSTGRES` is unset), read back there through the same
//! interface.

// `Ledger` is called by its path: imported, its `finish` and `record` would be ambiguous
// with `RunStore`'s on a `Store`.
use hookrig_store::{
    EmitDecision, EmitFilter, Gate, MemoryIndex, NodeInfo, Note, NoteSection, PgStore, PluginStore,
    RunStatus, RunStore, Store, StoreError, TaskStore,
};
use hookrig_test_support::TestDatabase;

use crate::fixtures::{self, automation, bare_emit, full_emit, run};

/// A gate of node `node` at `now`, for `period`.
fn gate(node: &str, now: f64, period: Option<i64>) -> Gate<'_> {
    Gate {
        period,
        ..fixtures::gate(node, now)
    }
}

/// An entry `memory.upsert` stored and a note of two sections.
fn remember(source: &Store) {
    let memory = source.memory();
    memory
        .upsert("p", "ops", "Deploys", "never on a friday")
        .expect("upsert");
    let section = |heading: &str, content: &str| NoteSection {
        heading: heading.to_owned(),
        content: content.to_owned(),
    };
    memory
        .update_notes(
            "p",
            &[Note {
                source: "/n/a.md".to_owned(),
                mtime_ns: 7,
                sections: vec![
                    section("Deploys", "deploy with make deploy"),
                    section("Rollback", "roll back a deploy"),
                ],
            }],
            &[],
        )
        .expect("index");
}

/// Two plugin packages, registered in the order opposite to their ids', one enabled
/// for every agent but one.
fn register_plugins(source: &Store) {
    for id in ["zeta", "alpha"] {
        source
            .plugins()
            .register(&hookrig_store::PluginRow {
                id: id.to_owned(),
                name: id.to_owned(),
                description: String::new(),
                path: format!("/plugins/{id}"),
                version: None,
                registered_at_ms: 1,
            })
            .expect("register");
    }
    source
        .plugins()
        .set_enabled("alpha", "*", true)
        .expect("enable");
    source
        .plugins()
        .set_enabled("alpha", "reviewer", false)
        .expect("disable");
}

/// A task an automation created.
fn create_task(source: &Store) -> String {
    source
        .tasks()
        .create(&hookrig_store::NewTask {
            project_id: "p".to_owned(),
            title: "Fix it".to_owned(),
            description: "the build".to_owned(),
            parent_task_id: None,
            profile_id: None,
            preferred_workspace_id: None,
            branch_name: Some("fix/it".to_owned()),
            priority: 5,
            context_entries: serde_json::json!([{"type": "note", "content": "c"}]),
            created_by: Some("automation:a".to_owned()),
        })
        .expect("create")
}

/// The memory, the task and the plugins read back the same from `target` as from
/// `source`.
fn same_memory_tasks_and_plugins(source: &Store, target: &PgStore, task: &str) {
    let places = |hits: Vec<hookrig_store::MemoryHit>| -> Vec<(String, String)> {
        hits.into_iter().map(|h| (h.source, h.heading)).collect()
    };
    assert_eq!(
        places(MemoryIndex::search(&target.memory(), "p", "deploy", 10).expect("search")),
        places(source.memory().search("p", "deploy", 10).expect("search")),
        "the memory finds the same entries, in the same order here"
    );
    assert_eq!(
        MemoryIndex::indexed_notes(&target.memory(), "p").expect("notes"),
        source.memory().indexed_notes("p").expect("notes")
    );
    assert_eq!(
        TaskStore::get(&target.tasks(), task).expect("read"),
        source.tasks().get(task).expect("read")
    );
    assert_eq!(
        PluginStore::list(&target.plugins()).expect("list"),
        source.plugins().list().expect("list"),
        "the packages in their registration order, each with its agents"
    );
}

/// The ledger of `source`: an emit with its four hook rows, and one still running.
fn record_emits(source: &Store) {
    source.emits().record(&full_emit()).expect("record");
    let mut running = bare_emit("running-1", 20, "tool.before");
    running.decision = EmitDecision::Running;
    source.emits().begin(&running).expect("begin");
}

/// Asserts that `target` holds the emits of [`record_emits`] as `source` does.
fn same_emits(source: &Store, target: &PgStore) {
    for id in [full_emit().run_id.as_str(), "running-1"] {
        assert_eq!(
            hookrig_store::Ledger::detail(target, id).expect("why"),
            source.emits().detail(id).expect("why"),
            "every emit reads back the same, with its hook rows"
        );
    }
    assert_eq!(
        hookrig_store::Ledger::recent(target, &EmitFilter::default()).expect("runs"),
        source.emits().recent(&EmitFilter::default()).expect("runs"),
        "in the same order"
    );
    // The emit in flight names this machine's process there: it is judged here, and
    // this process still runs.
    assert_eq!(
        hookrig_store::Ledger::interrupt_abandoned(target).expect("interrupt"),
        0
    );
}

/// An agent `hookrig agent spawn` started on this machine, running.
fn spawned_agent() -> hookrig_store::AgentRow {
    hookrig_store::AgentRow {
        host: hookrig_store::host_name(),
        worktree: "/r/.hookrig/worktrees/api".to_owned(),
        repo: "/r".to_owned(),
        task: "api".to_owned(),
        plan: "/r/plan.spl".to_owned(),
        agent: "coder".to_owned(),
        provider: "claude".to_owned(),
        branch: "task/api".to_owned(),
        log: "/r/.hookrig/worktrees/api.log".to_owned(),
        pid: Some(4242),
        proc_start: Some(99),
        started_at_ms: 1_000,
        exit_code: None,
        exit_signal: None,
        ended_at_ms: None,
        stopped_at_ms: None,
    }
}

/// The operator's automations `a` and `b`, and `c` from a project's file.
fn store_automations(source: &Store) {
    for id in ["a", "b"] {
        source.automations().upsert(&automation(id)).expect("store");
    }
    // A project's file: each node loads it from its own checkout, under its own trust.
    let project = hookrig_store::AutomationRow {
        source: Some("/srv/repo/.hookrig/automations/c.toml".to_owned()),
        ..automation("c")
    };
    source.automations().upsert(&project).expect("store");
}

fn same_automations(source: &Store, target: &PgStore) {
    let operators: Vec<_> = source
        .automations()
        .list(false)
        .expect("list")
        .into_iter()
        .filter(|row| row.id != "c")
        .collect();
    assert_eq!(
        hookrig_store::AutomationStore::list(&target.automations(), false).expect("list"),
        operators,
        "the operator's automations read back the same, in the same order; not the project's"
    );
}

#[test]
fn a_sqlite_store_is_copied_counted_and_copied_again_without_doubles() {
    let Some(db) = TestDatabase::create("migrate_copies") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let ledger = dir.path().join("ledger.db");
    let source = Store::open(&ledger).expect("open");
    store_automations(&source);
    for (i, at) in [10.0, 12.0, 12.0].into_iter().enumerate() {
        let id = format!("r{i}");
        let automation = if i == 1 { "b" } else { "a" };
        let run = run(&id, automation, at);
        source
            .start(
                &run,
                &gate("n1", at, Some(i64::try_from(i).expect("small"))),
            )
            .expect("start");
        let mut done = run;
        done.status = RunStatus::Completed;
        done.completed_at = Some(at + 1.0);
        done.tokens_used = 5;
        source.finish(&done).expect("finish");
    }
    let node = NodeInfo {
        id: "n1".to_owned(),
        host: "h".to_owned(),
        pid: 3,
        started_at: 1.0,
        heartbeat_at: 13.0,
    };
    source.heartbeat(&node, 30.0).expect("beat");
    remember(&source);
    let task = create_task(&source);
    register_plugins(&source);
    record_emits(&source);
    let agent = spawned_agent();
    source.agents().record(&agent).expect("record an agent");

    let key = hookrig_store::RegistryKey::load_or_create(&dir.path().join("registry.key"))
        .expect("the operator's key");
    let migration = hookrig_store::migrate(&ledger, db.url(), Some(&key)).expect("migrate");
    let copied: Vec<_> = migration
        .tables
        .iter()
        .map(|t| (t.table, t.rows, t.copied, t.already_there))
        .collect();
    assert_eq!(
        copied,
        [
            ("automations", 2, 2, 0),
            ("automation_runs", 3, 3, 0),
            ("automation_periods", 3, 3, 0),
            ("nodes", 1, 1, 0),
            ("memory_notes", 1, 1, 0),
            ("memory", 3, 3, 0),
            ("tasks", 1, 1, 0),
            ("plugins", 2, 2, 0),
            ("agent_plugins", 2, 2, 0),
            ("emits", 2, 2, 0),
            ("hook_runs", 4, 4, 0),
            ("agents", 1, 1, 0),
        ]
    );
    let target = PgStore::open(db.url()).expect("open");
    assert_eq!(
        target.runs(None, 10).expect("runs"),
        source.runs(None, 10).expect("runs"),
        "every run reads back the same, in the same order"
    );
    assert_eq!(target.nodes().expect("nodes"), [node]);
    same_automations(&source, &target);
    for (row, signature) in target.automations().list_signed().expect("list") {
        assert!(
            key.verifies_automation(&row, &signature),
            "signed with the operator's key: {row:?}"
        );
    }
    same_memory_tasks_and_plugins(&source, &target, &task);
    same_emits(&source, &target);
    assert_eq!(
        hookrig_store::AgentStore::list(&target.agents()).expect("agents"),
        [agent],
        "the agent, as this machine's"
    );
    // A period copied is a period fired: no node fires it again.
    assert!(matches!(
        target.start(&run("again", "a", 20.0), &gate("n2", 20.0, Some(0))),
        Ok(hookrig_store::Start::PeriodFired { run_id }) if run_id == "r0"
    ));

    let again = hookrig_store::migrate(&ledger, db.url(), None).expect("migrate again");
    assert!(
        again
            .tables
            .iter()
            .all(|t| t.copied == 0 && t.already_there == u64::try_from(t.rows).expect("rows")),
        "{again:?}"
    );
    assert!(
        again
            .to_string()
            .contains("automation_runs     3     0       3")
    );
}

#[test]
fn a_store_with_runs_in_flight_is_not_migrated() {
    let Some(db) = TestDatabase::create("migrate_refuses_running") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let ledger = dir.path().join("ledger.db");
    let source = Store::open(&ledger).expect("open");
    source
        .automations()
        .upsert(&automation("a"))
        .expect("store");
    source
        .start(&run("r0", "a", 10.0), &gate("n1", 10.0, None))
        .expect("start");
    let err = hookrig_store::migrate(&ledger, db.url(), None).expect_err("refused");
    assert!(
        matches!(err, StoreError::RunsInFlight { running: 1, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("stop `hookrig serve`"), "{err}");
    let target = PgStore::open(db.url()).expect("open");
    assert!(target.runs(None, 10).expect("runs").is_empty());
}
