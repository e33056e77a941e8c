//! Benchmark of the ledger writes of a burst of emits (divan): each emit is a `begin`
//! (its `running` row) and a `finish` (the row completed, with one hook row). `single`
//! writes each in a transaction of its own, as a one-shot `hookrig emit` does; `batched`
//! applies all of them in one transaction ([`hookrig_store::Emits::apply`]), as the
//! resident engine's ledger writer does with the records waiting.
//!
//! Run with `cargo bench -p hookrig-store --bench batch`; the time of one iteration is
//! that of a burst of `EMITS` emits.

use divan::{Bencher, black_box};
use hookrig_core::Dialect;
use hookrig_store::{EmitDecision, EmitRecord, EmitWrite, HookRun, Store};

fn main() {
    divan::main();
}

/// How many emits one burst holds: the writer's largest batch.
const EMITS: usize = 256;

fn emit(n: u64, decision: EmitDecision) -> EmitRecord {
    EmitRecord {
        cwd: "/home/me/repo".to_owned(),
        session_id: "s".to_owned(),
        decision,
        duration_ms: 1.0,
        payload_in: r#"{"tool":{"name":"bash","input":{"command":"ls"}}}"#.to_owned(),
        hooks: if decision == EmitDecision::Running {
            Vec::new()
        } else {
            vec![HookRun {
                duration_ms: Some(0.5),
                ..HookRun::allowing(
                    "guard",
                    "/home/me/.config/hookrig/hooks.toml",
                    Dialect::Native,
                )
            }]
        },
        by_engine: true,
        ..EmitRecord::running(
            format!("{n:016x}"),
            1_747_000_000_000,
            "tool.before",
            Dialect::Native,
        )
    }
}

/// Each write of the burst in a transaction of its own.
#[divan::bench(sample_count = 20, sample_size = 1)]
fn single(bencher: Bencher<'_, '_>) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = Store::open(&dir.path().join("ledger.db")).expect("open the store");
    let mut n: u64 = 0;
    bencher.bench_local(|| {
        for _ in 0..EMITS {
            n += 1;
            store
                .emits()
                .begin(&emit(n, EmitDecision::Running))
                .expect("begin");
            store
                .emits()
                .finish(black_box(&emit(n, EmitDecision::Allow)))
                .expect("finish");
        }
    });
}

/// The whole burst in one transaction.
#[divan::bench(sample_count = 20, sample_size = 1)]
fn batched(bencher: Bencher<'_, '_>) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = Store::open(&dir.path().join("ledger.db")).expect("open the store");
    let mut n: u64 = 0;
    bencher.bench_local(|| {
        let mut writes = Vec::with_capacity(2 * EMITS);
        for _ in 0..EMITS {
            n += 1;
            writes.push(EmitWrite::Begin(emit(n, EmitDecision::Running)));
            writes.push(EmitWrite::Finish(emit(n, EmitDecision::Allow)));
        }
        let results = store.emits().apply(black_box(&writes)).expect("commit");
        assert!(results.iter().all(Result::is_ok));
    });
}
