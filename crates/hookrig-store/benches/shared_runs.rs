//! Run records per second through [`RunStore`]: each run is a `start` (the gate, the run
//! row, its lease) and a `finish` (the row completed, the lease freed), as `hookrig
//! serve` writes them. On the SQLite store of one node, on PostgreSQL from one node, and
//! on PostgreSQL from three nodes at once (one connection each, each its own
//! automations), so that the figures compare in one run on one machine.
//!
//! Run with `HOOKRIG_TEST_POSTGRES=postgresql://... cargo bench -p hookrig-store --bench
//! shared_runs`; it makes and drops a database of its own there. Without the variable
//! only the SQLite figure is printed.

use std::time::Instant;

use hookrig_store::{
    AutomationRow, AutomationRun, Gate, PgStore, RunStatus, RunStore, Start, Store,
};
use hookrig_test_support::TestDatabase;

/// Runs written by each node.
const RUNS: usize = 2000;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sqlite = Store::open(&dir.path().join("ledger.db")).expect("open");
    sqlite
        .automations()
        .upsert(&automation("a0"))
        .expect("store an automation");
    let base = per_second(RUNS, || write_runs(&sqlite, 0));
    println!("sqlite, one node:      {base:>8.0} runs/s (1.00)");
    let Some(db) = TestDatabase::create("bench_shared_runs") else {
        return;
    };
    let one = PgStore::open(db.url()).expect("open");
    let single = per_second(RUNS, || write_runs(&one, 1));
    println!(
        "postgres, one node:    {single:>8.0} runs/s ({:.2})",
        single / base
    );
    let stores: Vec<PgStore> = (0..3)
        .map(|_| PgStore::open(db.url()).expect("open"))
        .collect();
    let three = per_second(RUNS * 3, || {
        std::thread::scope(|scope| {
            for (node, store) in stores.iter().enumerate() {
                scope.spawn(move || write_runs(store, 10 + node));
            }
        });
    });
    println!(
        "postgres, three nodes: {three:>8.0} runs/s ({:.2})",
        three / base
    );
}

fn per_second(runs: usize, work: impl FnOnce()) -> f64 {
    let started = Instant::now();
    work();
    #[expect(clippy::cast_precision_loss, reason = "a few thousand runs")]
    let runs = runs as f64;
    runs / started.elapsed().as_secs_f64()
}

/// `RUNS` runs of the automation of `node`, one after the other.
fn write_runs(store: &dyn RunStore, node: usize) {
    // An automation of its own per node: the runs of two nodes never wait on each
    // other's lease or cooldown, only on the start lock.
    let automation = format!("a{node}");
    let node_name = format!("node-{node}");
    for n in 0..RUNS {
        #[expect(clippy::cast_precision_loss, reason = "a few thousand runs")]
        let now = 1_750_000_000.0 + n as f64;
        let mut run = AutomationRun {
            id: format!("{node}-{n}"),
            automation_id: automation.clone(),
            project_id: "p".to_owned(),
            trigger_reason: "periodic".to_owned(),
            status: RunStatus::Running,
            event_data: Some(serde_json::json!({"current_time_epoch": now})),
            context_results: None,
            prompt_sent: None,
            llm_response: None,
            actions_taken: None,
            skipped_reason: None,
            tokens_used: 0,
            started_at: now,
            completed_at: None,
        };
        let gate = Gate {
            node: &node_name,
            cooldown_seconds: 0.0,
            max_concurrent: 8,
            period: None,
            event: None,
            lease_seconds: 30.0,
            now,
        };
        assert_eq!(store.start(&run, &gate).expect("start"), Start::Started);
        run.status = RunStatus::Completed;
        run.completed_at = Some(now + 0.5);
        store.finish(&run).expect("finish");
    }
}

fn automation(id: &str) -> AutomationRow {
    AutomationRow {
        id: id.to_owned(),
        project_id: "p".to_owned(),
        name: id.to_owned(),
        enabled: true,
        trigger: r#"{"type":"periodic","interval_seconds":2}"#.to_owned(),
        context_steps: "[]".to_owned(),
        prompt_template: String::new(),
        llm_config: None,
        cooldown_seconds: 0,
        max_tokens_per_run: None,
        source: None,
        created_at: 0.0,
        updated_at: 0.0,
        held: None,
        tools: None,
    }
}
