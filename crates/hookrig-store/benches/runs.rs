//! Benchmark of recording automation runs in the embedded store (divan): each run is
//! one `automation_runs().insert` (status `running`) and one `automation_runs().update`
//! (status `completed`, with step results and a response), as the engine writes them.
//! Target: at least 5,000 runs per second.
//!
//! Run with `cargo bench -p hookrig-store --bench runs`; runs per second are
//! 1 / (the median time of one iteration).

use divan::{Bencher, black_box};
use hookrig_store::{AutomationRow, AutomationRun, RunStatus, Store};
use serde_json::json;

fn main() {
    divan::main();
}

fn automation() -> AutomationRow {
    AutomationRow {
        id: "bench".to_owned(),
        project_id: "p".to_owned(),
        name: "Bench".to_owned(),
        enabled: true,
        trigger: r#"{"type":"event","event_type":"task.completed"}"#.to_owned(),
        context_steps: "[]".to_owned(),
        prompt_template: "review {{step_0}}".to_owned(),
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

/// One run inserted as `running`, then completed.
#[divan::bench(sample_count = 200, sample_size = 20)]
fn insert_and_complete(bencher: Bencher<'_, '_>) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = Store::open(&dir.path().join("ledger.db")).expect("open the store");
    store
        .automations()
        .upsert(&automation())
        .expect("store the automation");
    let mut n: u64 = 0;
    bencher.bench_local(|| {
        n += 1;
        let mut run = AutomationRun {
            id: format!("{n:012x}"),
            automation_id: "bench".to_owned(),
            project_id: "p".to_owned(),
            trigger_reason: "event:task.completed".to_owned(),
            status: RunStatus::Running,
            event_data: Some(json!({"task_id": "t1", "_event_type": "task.completed"})),
            context_results: None,
            prompt_sent: None,
            llm_response: None,
            actions_taken: None,
            skipped_reason: None,
            tokens_used: 0,
            #[expect(clippy::cast_precision_loss, reason = "a counter as a timestamp")]
            started_at: n as f64,
            completed_at: None,
        };
        store.automation_runs().insert(&run).expect("insert");
        run.status = RunStatus::Completed;
        run.context_results =
            Some(json!([{"stdout": "ok\n", "stderr": "", "exit_code": 0, "_step_index": 0}]));
        run.prompt_sent = Some("review ok".to_owned());
        run.llm_response = Some("looks good".to_owned());
        run.tokens_used = 5;
        run.completed_at = Some(run.started_at + 1.0);
        store
            .automation_runs()
            .update(black_box(&run))
            .expect("update");
    });
}
