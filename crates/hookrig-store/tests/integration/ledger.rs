//! Writing and reading emits.

use hookrig_core::{Dialect, HookResult};
use hookrig_store::{EmitFilter, StoreError};

use crate::fixtures::{TempStore, bare_emit, full_emit, hook};

fn run_ids(summaries: &[hookrig_store::EmitSummary]) -> Vec<&str> {
    summaries.iter().map(|s| s.run_id.as_str()).collect()
}

#[test]
fn emit_with_hooks_round_trips_every_field() {
    let t = TempStore::new();
    let emit = full_emit();
    t.store.emits().record(&emit).expect("record");

    let detail = t
        .store
        .emits()
        .detail(&emit.run_id)
        .expect("lookup")
        .expect("recorded emit is found");
    assert_eq!(detail.emit, emit);
}

#[test]
fn emit_without_optional_fields_round_trips() {
    let t = TempStore::new();
    let emit = bare_emit("bare-run", 5, "Stop");
    t.store.emits().record(&emit).expect("record");
    let detail = t
        .store
        .emits()
        .detail("bare-run")
        .expect("lookup")
        .expect("found");
    assert_eq!(detail.emit, emit);
}

#[test]
fn summary_counts_only_matched_hooks() {
    let t = TempStore::new();
    let emit = full_emit();
    t.store.emits().record(&emit).expect("record");
    let summaries = t
        .store
        .emits()
        .recent(&EmitFilter::default())
        .expect("list");
    let [summary] = summaries.as_slice() else {
        panic!("one emit expected, got {summaries:?}");
    };
    assert_eq!(summary.run_id, emit.run_id);
    assert_eq!(summary.started_at_ms, emit.started_at_ms);
    assert_eq!(summary.event, emit.event);
    assert_eq!(summary.decision, emit.decision);
    assert_eq!(summary.decided_by, emit.decided_by);
    assert_eq!(summary.reason, emit.reason);
    assert!((summary.duration_ms - emit.duration_ms).abs() < f64::EPSILON);
    assert_eq!(summary.cwd, emit.cwd);
    assert_eq!(summary.agent.as_deref(), Some("claude-1"));
    // full_emit has four hooks, one of which did not match.
    assert_eq!(summary.hooks_run, 3);
}

#[test]
fn recent_emits_are_newest_first_limited_and_filtered() {
    let t = TempStore::new();
    // Inserted out of time order, with a tie at 200 that insertion order breaks.
    for (id, at, event) in [
        ("run-b", 200, "PreToolUse"),
        ("run-a", 100, "PreToolUse"),
        ("run-d", 400, "Stop"),
        ("run-c", 200, "Stop"),
        ("run-e", 300, "PreToolUse"),
    ] {
        t.store
            .emits()
            .record(&bare_emit(id, at, event))
            .expect("record");
    }

    let all = t
        .store
        .emits()
        .recent(&EmitFilter::default())
        .expect("list");
    assert_eq!(run_ids(&all), ["run-d", "run-e", "run-c", "run-b", "run-a"]);

    let two = t
        .store
        .emits()
        .recent(&EmitFilter {
            limit: 2,
            event: None,
            agent: None,
            shadow: false,
        })
        .expect("list");
    assert_eq!(run_ids(&two), ["run-d", "run-e"]);

    let pre = t
        .store
        .emits()
        .recent(&EmitFilter {
            limit: 20,
            event: Some("PreToolUse".to_owned()),
            agent: None,
            shadow: false,
        })
        .expect("list");
    assert_eq!(run_ids(&pre), ["run-e", "run-b", "run-a"]);

    let pre_limited = t
        .store
        .emits()
        .recent(&EmitFilter {
            limit: 1,
            event: Some("PreToolUse".to_owned()),
            agent: None,
            shadow: false,
        })
        .expect("list");
    assert_eq!(run_ids(&pre_limited), ["run-e"]);

    // The filter is the exact canonical name, not a pattern or a case-folded match.
    for event in ["pretooluse", "Pre", "%"] {
        let none = t
            .store
            .emits()
            .recent(&EmitFilter {
                limit: 20,
                event: Some(event.to_owned()),
                agent: None,
                shadow: false,
            })
            .expect("list");
        assert!(none.is_empty(), "{event:?} matched {none:?}");
    }
}

#[test]
fn recent_emits_filter_by_agent_alone_and_with_the_event() {
    let t = TempStore::new();
    for (id, at, event, agent) in [
        ("run-a", 100, "PreToolUse", Some("claude-1")),
        ("run-b", 200, "Stop", Some("claude-1")),
        ("run-c", 300, "PreToolUse", Some("codex")),
        ("run-d", 400, "PreToolUse", None),
        ("run-e", 500, "PreToolUse", Some("claude-1")),
    ] {
        let mut emit = bare_emit(id, at, event);
        emit.agent = agent.map(str::to_owned);
        t.store.emits().record(&emit).expect("record");
    }
    let list = |event: Option<&str>, agent: Option<&str>, limit: usize| {
        t.store
            .emits()
            .recent(&EmitFilter {
                limit,
                event: event.map(str::to_owned),
                agent: agent.map(str::to_owned),
                shadow: false,
            })
            .expect("list")
    };
    let claude = list(None, Some("claude-1"), 20);
    assert_eq!(run_ids(&claude), ["run-e", "run-b", "run-a"]);
    assert!(
        claude
            .iter()
            .all(|s| s.agent.as_deref() == Some("claude-1"))
    );
    assert_eq!(run_ids(&list(None, Some("claude-1"), 1)), ["run-e"]);
    assert_eq!(
        run_ids(&list(Some("PreToolUse"), Some("claude-1"), 20)),
        ["run-e", "run-a"]
    );
    assert_eq!(
        run_ids(&list(Some("Stop"), Some("codex"), 20)),
        Vec::<&str>::new()
    );
    // Exact names: no prefix, no case folding, no wildcard.
    for agent in ["claude", "Claude-1", "%"] {
        assert!(list(None, Some(agent), 20).is_empty(), "{agent:?}");
    }
    // No agent filter lists emits with and without an agent.
    assert_eq!(list(None, None, 20).len(), 5);
    assert_eq!(list(None, None, 20)[1].agent, None);
}

#[test]
fn default_filter_returns_twenty() {
    let t = TempStore::new();
    for i in 0..25 {
        t.store
            .emits()
            .record(&bare_emit(&format!("run-{i:02}"), i, "Stop"))
            .expect("record");
    }
    let recent = t
        .store
        .emits()
        .recent(&EmitFilter::default())
        .expect("list");
    assert_eq!(recent.len(), 20);
    assert_eq!(recent[0].run_id, "run-24");
    assert_eq!(recent[19].run_id, "run-05");
}

#[test]
fn run_id_prefix_lookup() {
    let t = TempStore::new();
    for id in [
        "0196aaaa-0000-7000-8000-000000000001",
        "0196aaaa-0000-7000-8000-000000000002",
        "0196bbbb-0000-7000-8000-000000000003",
    ] {
        t.store
            .emits()
            .record(&bare_emit(id, 1, "Stop"))
            .expect("record");
    }

    // unique
    let found = t
        .store
        .emits()
        .detail("0196b")
        .expect("lookup")
        .expect("unique prefix finds its run");
    assert_eq!(found.emit.run_id, "0196bbbb-0000-7000-8000-000000000003");

    // ambiguous
    let error = t
        .store
        .emits()
        .detail("0196aaaa")
        .expect_err("two runs share it");
    assert!(
        matches!(&error, StoreError::AmbiguousRunId { prefix, count: 2 } if prefix == "0196aaaa"),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "run id prefix \"0196aaaa\" matches 2 runs, give more characters"
    );
    let error = t
        .store
        .emits()
        .detail("0196")
        .expect_err("three runs share it");
    assert!(matches!(error, StoreError::AmbiguousRunId { count: 3, .. }));

    // missing
    assert_eq!(t.store.emits().detail("0197").expect("lookup"), None);
    assert_eq!(
        t.store
            .emits()
            .detail("0196bbbb-0000-7000-8000-000000000003-and-more")
            .expect("lookup"),
        None
    );
}

#[test]
fn append_hook_runs_continues_seq_after_existing_rows() {
    let t = TempStore::new();
    let mut emit = bare_emit("run-1", 1, "PostToolUse");
    emit.hooks = vec![hook("sync-a", true), hook("skipped", false)];
    t.store.emits().record(&emit).expect("record");

    let mut late = hook("async-1", true);
    late.is_async = true;
    t.store
        .emits()
        .append_hook_runs("run-1", std::slice::from_ref(&late))
        .expect("append to a recorded emit");
    t.store
        .emits()
        .append_hook_runs("run-1", &[hook("async-2", true), hook("async-3", false)])
        .expect("append again");
    t.store
        .emits()
        .append_hook_runs("run-1", &[])
        .expect("empty append is fine");

    let detail = t
        .store
        .emits()
        .detail("run-1")
        .expect("lookup")
        .expect("found");
    let names: Vec<_> = detail.emit.hooks.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(
        names,
        ["sync-a", "skipped", "async-1", "async-2", "async-3"]
    );
    assert_eq!(detail.emit.hooks[2], late);

    // The seq column itself, not only the order: 0..5 without gaps.
    let conn = rusqlite::Connection::open(t.path()).expect("second connection");
    let seqs: Vec<i64> = conn
        .prepare("SELECT seq FROM hook_runs WHERE run_id = 'run-1' ORDER BY seq")
        .expect("query")
        .query_map([], |row| row.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("integers");
    assert_eq!(seqs, [0, 1, 2, 3, 4]);

    let summary = t
        .store
        .emits()
        .recent(&EmitFilter::default())
        .expect("list");
    assert_eq!(summary[0].hooks_run, 3, "appended matched hooks count too");
}

#[test]
fn append_to_emit_without_hooks_starts_at_seq_zero() {
    let t = TempStore::new();
    t.store
        .emits()
        .record(&bare_emit("run-1", 1, "Stop"))
        .expect("record");
    t.store
        .emits()
        .append_hook_runs("run-1", &[hook("late", true)])
        .expect("append");
    let detail = t
        .store
        .emits()
        .detail("run-1")
        .expect("lookup")
        .expect("found");
    assert_eq!(detail.emit.hooks, [hook("late", true)]);
}

#[test]
fn append_to_unknown_run_id_is_an_error_and_writes_nothing() {
    let t = TempStore::new();
    t.store
        .emits()
        .record(&bare_emit("run-1", 1, "Stop"))
        .expect("record");
    for runs in [vec![hook("late", true)], Vec::new()] {
        let error = t
            .store
            .emits()
            .append_hook_runs("run-404", &runs)
            .expect_err("unknown run");
        assert!(
            matches!(&error, StoreError::UnknownRunId { run_id } if run_id == "run-404"),
            "{error:?}"
        );
        assert_eq!(error.to_string(), "no run run-404 in the ledger");
    }
    // A prefix is not a run id here: appends need the exact id.
    assert!(matches!(
        t.store
            .emits()
            .append_hook_runs("run-", &[hook("late", true)]),
        Err(StoreError::UnknownRunId { .. })
    ));
    let conn = rusqlite::Connection::open(t.path()).expect("second connection");
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM hook_runs", [], |row| row.get(0))
        .expect("count");
    assert_eq!(rows, 0);
}

#[test]
fn many_hooks_in_one_emit_keep_their_order() {
    let t = TempStore::new();
    let mut emit = bare_emit("big", 1, "PreToolUse");
    emit.hooks = (0..250)
        .map(|i| hook(&format!("hook-{i:03}"), i % 3 != 0))
        .collect();
    t.store.emits().record(&emit).expect("record");
    let detail = t
        .store
        .emits()
        .detail("big")
        .expect("lookup")
        .expect("found");
    assert_eq!(detail.emit, emit);
    let summary = t
        .store
        .emits()
        .recent(&EmitFilter::default())
        .expect("list");
    assert_eq!(summary[0].hooks_run, 166);
}

#[test]
fn complete_hook_runs_fills_in_the_dispatched_row() {
    // guards: an async hook counted twice by `hookrig runs` (a dispatched row plus a result row)
    let t = TempStore::new();
    let mut emit = bare_emit("run-a", 1, "message.after");
    let mut dispatched = hook("bg", true);
    dispatched.result = HookResult::Dispatched;
    dispatched.is_async = true;
    emit.hooks = vec![hook("sync", true), dispatched.clone(), dispatched.clone()];
    t.store.emits().record(&emit).expect("record");

    let mut done = dispatched.clone();
    done.result = HookResult::Allow;
    done.exit_code = Some(0);
    let mut stray = hook("unknown-async", true);
    stray.result = HookResult::Error;
    t.store
        .emits()
        .complete_hook_runs("run-a", &[done.clone(), stray.clone()])
        .expect("complete");

    let hooks = t
        .store
        .emits()
        .detail("run-a")
        .expect("lookup")
        .expect("found")
        .emit
        .hooks;
    let results: Vec<_> = hooks
        .iter()
        .map(|h| (h.name.as_str(), h.result.as_str()))
        .collect();
    assert_eq!(
        results,
        [
            ("sync", "allow"),
            ("bg", "allow"),
            ("bg", "dispatched"),
            ("unknown-async", "error")
        ]
    );
    assert_eq!(hooks[1], done);
    let summary = &t
        .store
        .emits()
        .recent(&EmitFilter::default())
        .expect("list")[0];
    assert_eq!(summary.hooks_run, 4);

    let err = t
        .store
        .emits()
        .complete_hook_runs("nope", &[done])
        .expect_err("unknown run");
    assert!(matches!(err, StoreError::UnknownRunId { .. }), "{err}");
}

#[test]
fn complete_hook_runs_writes_every_field_to_its_own_column() {
    // guards: the shared field list of insert and complete numbered against the wrong
    // placeholders of the completing UPDATE
    let t = TempStore::new();
    let mut emit = bare_emit("run-f", 1, "message.after");
    let mut dispatched = hook("bg", false);
    dispatched.result = HookResult::Dispatched;
    emit.hooks = vec![dispatched.clone()];
    t.store.emits().record(&emit).expect("record");

    let mut done = dispatched;
    done.dialect = Dialect::Hygge;
    done.matched = true;
    done.skip_reason = Some("skip".to_owned());
    done.result = HookResult::Deny;
    done.exit_code = Some(2);
    done.duration_ms = Some(12.5);
    done.reason = Some("reason".to_owned());
    done.stderr = Some("err".to_owned());
    done.stdout = Some("out".to_owned());
    done.truncated = true;
    done.is_async = true;
    t.store
        .emits()
        .complete_hook_runs("run-f", std::slice::from_ref(&done))
        .expect("complete");
    let hooks = t
        .store
        .emits()
        .detail("run-f")
        .expect("lookup")
        .expect("found")
        .emit
        .hooks;
    assert_eq!(hooks, [done]);
}

#[test]
fn the_wal_is_kept_between_emits_and_folded_back_once_it_grows() {
    // guards: a checkpoint with fsyncs on every emit (each emit is the last connection to
    // close), and a WAL that grows without bound when checkpoints on close are off.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("ledger.db");
    let wal = dir.path().join("ledger.db-wal");
    let mut largest = 0;
    for i in 0..400 {
        let ledger = hookrig_store::Store::open(&path).expect("open");
        let mut emit = bare_emit(&format!("run-{i}"), i, "tool.before");
        emit.hooks = (0..20).map(|n| hook(&format!("h{n}"), true)).collect();
        ledger.emits().record(&emit).expect("record");
        drop(ledger);
        let size = std::fs::metadata(&wal).map_or(0, |m| m.len());
        assert!(
            i == 0 || size > 0 || largest > 0,
            "the WAL is kept after close"
        );
        largest = largest.max(size);
    }
    assert!(largest < 2 * 1024 * 1024, "the WAL grew to {largest} bytes");
    let ledger = hookrig_store::Store::open(&path).expect("open");
    let all = ledger
        .emits()
        .recent(&EmitFilter {
            limit: 1000,
            event: None,
            agent: None,
            shadow: false,
        })
        .expect("list");
    assert_eq!(all.len(), 400, "no record lost across checkpoints");
}
