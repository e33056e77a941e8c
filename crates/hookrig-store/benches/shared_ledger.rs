//! Ledger records per second through [`Ledger`]: each record is an emit's start and its
//! end with one hook row, as an emit writes them. On the SQLite ledger of one node, and
//! on PostgreSQL from one node and from three nodes at once (one connection each):
//! written one at a time (each write its own statement, as a one-shot emit would), and
//! in batches of [`BATCH`] writes (as the engine's ledger writer sends them, one round
//! trip each). Then what a one-shot `hookrig emit` would pay to record into PostgreSQL:
//! a connection opened (and the schema checked) for every emit, against the SQLite
//! ledger opened for every emit. Every figure is taken in the same run, on one machine.
//!
//! Run with `HOOKRIG_TEST_POSTGRES=postgresql://... cargo bench -p hookrig-store --bench
//! shared_ledger`; it makes and drops a database of its own there. Without the variable
//! only the SQLite figures are printed.

use std::time::Instant;

use hookrig_core::Dialect;
use hookrig_store::{
    EmitDecision, EmitRecord, EmitWrite, HookRun, Ledger, LedgerAt, PgStore, Store,
};
use hookrig_test_support::TestDatabase;

/// Emits recorded by each node in each figure.
const EMITS: usize = 2000;

/// Writes per batch: an emit's start and end are two, so 32 emits.
const BATCH: usize = 64;

/// Emits opened and recorded one by one in the one-shot figures.
const ONE_SHOT: usize = 200;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("ledger.db");
    let sqlite = Store::open_ledger(&path).expect("open");
    let base = per_second(EMITS, || one_at_a_time(&sqlite, "s"));
    println!("sqlite, one node, one at a time:      {base:>8.0} emits/s (1.00)");
    let in_batches = per_second(EMITS, || batched(&sqlite, "sb"));
    println!(
        "sqlite, one node, batched:            {in_batches:>8.0} emits/s ({:.2})",
        in_batches / base
    );
    let sqlite_shot = per_second(ONE_SHOT, || one_shot(&LedgerAt::Sqlite(path.clone()), "so"));
    let Some(db) = TestDatabase::create("bench_shared_ledger") else {
        println!("sqlite, opened for each emit:         {sqlite_shot:>8.0} emits/s");
        return;
    };
    let one = PgStore::open(db.url()).expect("open");
    let figure = |label: &str, rate: f64| {
        println!("{label:<38}{rate:>8.0} emits/s ({:.2})", rate / base);
    };
    figure(
        "postgres, one node, one at a time:",
        per_second(EMITS, || one_at_a_time(&one, "p")),
    );
    figure(
        "postgres, one node, batched:",
        per_second(EMITS, || batched(&one, "pb")),
    );
    let stores: Vec<PgStore> = (0..3)
        .map(|_| PgStore::open(db.url()).expect("open"))
        .collect();
    let three = |write: fn(&dyn Ledger, &str), label: &str| {
        per_second(EMITS * 3, || {
            std::thread::scope(|scope| {
                for (node, store) in stores.iter().enumerate() {
                    scope.spawn(move || write(store, &format!("{label}{node}")));
                }
            });
        })
    };
    figure(
        "postgres, three nodes, one at a time:",
        three(one_at_a_time, "n"),
    );
    figure("postgres, three nodes, batched:", three(batched, "nb"));
    println!("sqlite, opened for each emit:         {sqlite_shot:>8.0} emits/s (1.00)");
    let pg_shot = per_second(ONE_SHOT, || {
        one_shot(&LedgerAt::Postgres(db.url().to_owned()), "po");
    });
    println!(
        "postgres, connected for each emit:    {pg_shot:>8.0} emits/s ({:.2})",
        pg_shot / sqlite_shot
    );
}

fn per_second(emits: usize, work: impl FnOnce()) -> f64 {
    let started = Instant::now();
    work();
    #[expect(clippy::cast_precision_loss, reason = "a few thousand emits")]
    let emits = emits as f64;
    emits / started.elapsed().as_secs_f64()
}

/// [`EMITS`] emits, each begun and finished in a statement of its own.
fn one_at_a_time(ledger: &dyn Ledger, prefix: &str) {
    for n in 0..EMITS {
        let (begun, finished) = emit(prefix, n);
        ledger.begin(&begun).expect("begin");
        ledger.finish(&finished).expect("finish");
    }
}

/// [`EMITS`] emits, their starts and ends sent [`BATCH`] writes at a time.
fn batched(ledger: &dyn Ledger, prefix: &str) {
    let writes: Vec<EmitWrite> = (0..EMITS)
        .flat_map(|n| {
            let (begun, finished) = emit(prefix, n);
            [EmitWrite::Begin(begun), EmitWrite::Finish(finished)]
        })
        .collect();
    for chunk in writes.chunks(BATCH) {
        let refs: Vec<&EmitWrite> = chunk.iter().collect();
        for result in ledger.apply(&refs).expect("a batch") {
            result.expect("each write");
        }
    }
}

/// [`ONE_SHOT`] emits, the ledger opened for each as a one-shot `hookrig emit` opens it.
fn one_shot(at: &LedgerAt, prefix: &str) {
    for n in 0..ONE_SHOT {
        let ledger = at.open().expect("open");
        let (begun, finished) = emit(prefix, n);
        ledger.begin(&begun).expect("begin");
        ledger.finish(&finished).expect("finish");
    }
}

/// The start and the end of emit `n`, with one hook that allowed.
fn emit(prefix: &str, n: usize) -> (EmitRecord, EmitRecord) {
    let begun = EmitRecord {
        cwd: "/home/me/repo".to_owned(),
        session_id: "session-1".to_owned(),
        agent: Some("claude-1".to_owned()),
        payload_in: r#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#.to_owned(),
        by_engine: true,
        ..EmitRecord::running(
            format!("{prefix}-{n:06}"),
            1_750_000_000_000 + i64::try_from(n).expect("small"),
            "tool.before",
            Dialect::Claude,
        )
    };
    let finished = EmitRecord {
        decision: EmitDecision::Allow,
        duration_ms: 4.5,
        payload_out: r#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#.to_owned(),
        hooks: vec![HookRun {
            duration_ms: Some(3.5),
            ..HookRun::allowing(
                "guard",
                "/home/me/repo/.hookrig/hooks.toml",
                Dialect::Native,
            )
        }],
        ..begun.clone()
    };
    (begun, finished)
}
