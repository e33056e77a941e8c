//! Typed columns against files written by earlier versions, which stored the same
//! names as plain text: every name they wrote reads back, and a name nobody wrote is an
//! error naming the column and the value.

use hookrig_core::{Dialect, HookResult};
use hookrig_store::{EmitDecision, EmitFilter, RunStatus, Store, StoreError};

use crate::fixtures::TempStore;

/// Every decision, hook result, dialect and run status earlier versions wrote, as they
/// wrote them, and `stop` (a decision and a hook result this version adds, stored as the
/// same kind of plain name): rows inserted with plain SQL through a second connection.
fn write_old_rows(path: &std::path::Path) {
    let conn = rusqlite::Connection::open(path).expect("second connection");
    // The automation tables live in the ledger's work file.
    conn.execute(
        "ATTACH DATABASE ?1 AS work",
        [hookrig_store::work_path(path).to_string_lossy()],
    )
    .expect("the work file attaches");
    let decisions = [
        "allow",
        "deny",
        "ask",
        "stop",
        "error",
        "running",
        "interrupted",
    ];
    for (n, decision) in (0_i64..).zip(decisions) {
        conn.execute(
            "INSERT INTO emits (run_id, started_at_ms, event, dialect, cwd, session_id,
                 decision, duration_ms, payload_in, payload_out, warnings)
             VALUES (?1, ?2, 'tool.before', 'claude', '/w', 's', ?3, 1.0, '{}', '{}', '[]')",
            rusqlite::params![format!("old-{decision}"), n, decision],
        )
        .expect("an old emit");
    }
    let results = [
        "allow",
        "deny",
        "ask",
        "modify",
        "stop",
        "error",
        "timeout",
        "skipped",
        "untrusted",
        "dispatched",
    ];
    let dialects = ["native", "hygge", "xcode", "claude", "hence", "plugin"];
    for (seq, result) in (0_i64..).zip(results) {
        conn.execute(
            "INSERT INTO hook_runs (run_id, seq, name, source, dialect, matched, result,
                 truncated, is_async)
             VALUES ('old-allow', ?1, ?2, '/h', ?3, 1, ?4, 0, 0)",
            rusqlite::params![
                seq,
                format!("h{seq}"),
                dialects[usize::try_from(seq).expect("small") % dialects.len()],
                result
            ],
        )
        .expect("an old hook row");
    }
    conn.execute_batch(
        "INSERT INTO automations (id, project_id, name, enabled, trigger, context_steps,
             prompt_template, cooldown_seconds, created_at, updated_at)
         VALUES ('a', 'p', 'A', 1, '{\"type\":\"periodic\"}', '[]', '', 0, 1.0, 1.0);
         INSERT INTO automation_runs (id, automation_id, project_id, trigger_reason, status,
             started_at)
         VALUES ('r-running', 'a', 'p', 'manual', 'running', 1.0),
                ('r-completed', 'a', 'p', 'manual', 'completed', 2.0),
                ('r-skipped', 'a', 'p', 'manual', 'skipped', 3.0),
                ('r-failed', 'a', 'p', 'manual', 'failed', 4.0),
                ('r-interrupted', 'a', 'p', 'manual', 'interrupted', 5.0);",
    )
    .expect("old automation runs");
}

// guards: ledgers written before the columns were typed keep reading back
#[test]
fn every_name_earlier_versions_wrote_reads_back() {
    let t = TempStore::new();
    write_old_rows(&t.path());
    let store = Store::open(&t.path()).expect("reopen");

    let all = EmitFilter {
        limit: usize::MAX,
        ..EmitFilter::default()
    };
    let mut decisions: Vec<EmitDecision> = store
        .emits()
        .recent(&all)
        .expect("every old decision reads back")
        .into_iter()
        .map(|emit| emit.decision)
        .collect();
    decisions.reverse();
    assert_eq!(decisions, EmitDecision::ALL);

    let detail = store
        .emits()
        .detail("old-allow")
        .expect("every old hook result and dialect reads back")
        .expect("present");
    assert_eq!(detail.emit.dialect, Dialect::Claude);
    let results: Vec<HookResult> = detail.emit.hooks.iter().map(|h| h.result).collect();
    assert_eq!(results, HookResult::ALL);
    let dialects: Vec<Dialect> = detail.emit.hooks.iter().map(|h| h.dialect).collect();
    assert_eq!(
        dialects[..6],
        [
            Dialect::Native,
            Dialect::Hygge,
            Dialect::Xcode,
            Dialect::Claude,
            Dialect::Hence,
            Dialect::Plugin
        ]
    );

    let mut statuses: Vec<RunStatus> = store
        .automation_runs()
        .list(Some("a"), 10)
        .expect("every old status reads back")
        .into_iter()
        .map(|run| run.status)
        .collect();
    statuses.reverse();
    assert_eq!(statuses, RunStatus::ALL);
}

// guards: a ledger written by a newer hookrig, or edited by hand, is an error that says
// where, never a panic
#[test]
fn a_name_no_version_wrote_is_an_error_naming_the_column_and_the_value() {
    let t = TempStore::new();
    write_old_rows(&t.path());
    let conn = rusqlite::Connection::open(t.path()).expect("second connection");
    conn.execute_batch(
        "UPDATE emits SET decision = 'maybe' WHERE run_id = 'old-deny';
         UPDATE hook_runs SET result = 'exploded' WHERE seq = 3;
         UPDATE emits SET dialect = 'nonesuch' WHERE run_id = 'old-ask';",
    )
    .expect("rows no version wrote");

    let listed = t
        .store
        .emits()
        .recent(&EmitFilter::default())
        .expect_err("unknown decision");
    assert!(
        matches!(
            &listed,
            StoreError::UnknownValue { column, kind: "decision", value, .. }
                if column == "decision" && value == "maybe"
        ),
        "{listed:?}"
    );
    assert_eq!(
        listed.to_string(),
        format!(
            "the ledger {} holds an unknown decision `maybe` in column `decision`",
            t.path().display()
        )
    );
    let hooks = t
        .store
        .emits()
        .detail("old-allow")
        .expect_err("unknown hook result");
    assert!(
        matches!(
            &hooks,
            StoreError::UnknownValue { column, kind: "hook result", value, .. }
                if column == "result" && value == "exploded"
        ),
        "{hooks:?}"
    );
    let dialect = t
        .store
        .emits()
        .detail("old-ask")
        .expect_err("unknown dialect");
    assert!(
        matches!(
            &dialect,
            StoreError::UnknownValue { column, kind: "dialect", value, .. }
                if column == "dialect" && value == "nonesuch"
        ),
        "{dialect:?}"
    );
    // The rows that hold known names still read back.
    assert!(
        t.store
            .emits()
            .detail("old-error")
            .expect("known")
            .is_some()
    );
}
