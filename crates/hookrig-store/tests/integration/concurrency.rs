//! Several ledger handles on one file, as when hooks emit in parallel.

use std::sync::Barrier;

use hookrig_store::{EmitFilter, Store};

use crate::fixtures::{bare_emit, hook};

const WRITERS: usize = 2;
const EMITS_PER_WRITER: usize = 150;

// guards: busy_timeout; without it one writer fails with SQLITE_BUSY
#[test]
fn two_handles_writing_from_two_threads_lose_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("ledger.db");
    // The shared emit both writers append to is recorded first; the writers
    // then open their own handles at the same moment, as two processes would.
    Store::open(&path)
        .expect("open")
        .emits()
        .record(&bare_emit("shared", 0, "PostToolUse"))
        .expect("record shared emit");

    let barrier = Barrier::new(WRITERS);
    std::thread::scope(|scope| {
        for writer in 0..WRITERS {
            let (path, barrier) = (&path, &barrier);
            scope.spawn(move || {
                barrier.wait();
                let ledger = Store::open(path).expect("open concurrently");
                for i in 0..EMITS_PER_WRITER {
                    let mut emit = bare_emit(
                        &format!("w{writer}-{i:03}"),
                        i64::try_from(i).expect("small"),
                        "Stop",
                    );
                    emit.hooks = vec![hook("a", true), hook("b", false)];
                    ledger
                        .emits()
                        .record(&emit)
                        .expect("record under contention");
                    ledger
                        .emits()
                        .append_hook_runs("shared", &[hook(&format!("w{writer}-{i:03}"), true)])
                        .expect("append under contention");
                }
            });
        }
    });

    let ledger = Store::open(&path).expect("reopen");
    let all = ledger
        .emits()
        .recent(&EmitFilter {
            limit: usize::MAX,
            event: Some("Stop".to_owned()),
            agent: None,
            shadow: false,
        })
        .expect("list");
    assert_eq!(all.len(), WRITERS * EMITS_PER_WRITER);
    assert!(all.iter().all(|summary| summary.hooks_run == 1));

    let shared = ledger
        .emits()
        .detail("shared")
        .expect("lookup")
        .expect("shared emit");
    assert_eq!(shared.emit.hooks.len(), WRITERS * EMITS_PER_WRITER);
    // Each writer's appends keep their own order within the interleaving.
    for writer in 0..WRITERS {
        let own: Vec<_> = shared
            .emit
            .hooks
            .iter()
            .filter(|h| h.name.starts_with(&format!("w{writer}-")))
            .map(|h| h.name.clone())
            .collect();
        let expected: Vec<_> = (0..EMITS_PER_WRITER)
            .map(|i| format!("w{writer}-{i:03}"))
            .collect();
        assert_eq!(own, expected);
    }
}

// guards: parallel hooks creating the same ledger at once; switching a new
// file to WAL fails with SQLITE_BUSY without calling the busy handler, and
// the schema migration must run once
#[test]
fn handles_opening_a_new_file_at_once_all_succeed() {
    // Several rounds because the race is lost only some of the time.
    for _ in 0..20 {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("new").join("ledger.db");
        let barrier = Barrier::new(4);
        std::thread::scope(|scope| {
            for writer in 0..4 {
                let (path, barrier) = (&path, &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    let ledger = Store::open(path).expect("open a new file concurrently");
                    ledger
                        .emits()
                        .record(&bare_emit(&format!("w{writer}"), 1, "Stop"))
                        .expect("record");
                });
            }
        });
        let ledger = Store::open(&path).expect("reopen");
        let all = ledger.emits().recent(&EmitFilter::default()).expect("list");
        assert_eq!(all.len(), 4);
    }
}
