//! Benchmark of the dashboard's reads of a large ledger: `Emits::page` with each filter
//! on a ledger of 1,000,000 emits (two hook rows each), against `Emits::recent` (what
//! `hookrig runs` reads) measured in the same run; and `Emits::since`, the live view's
//! read, for batches of 500 new emits (2,000 emits/s read four times a second).
//! Targets: a page in at most 50 ms; the live read well under its 250 ms period.
//!
//! Run with `cargo bench -p hookrig-store --bench emit_pages` (`HOOKRIG_BENCH_EMITS`
//! sets the ledger's size). Building the ledger takes a minute or two and about 600 MB
//! of the temporary directory. Prints each case's median of 21 reads, in ms, and its
//! ratio to the baseline.

use std::time::Instant;

use hookrig_store::{EmitCursor, EmitDecision, EmitFilter, EmitQuery, Store};

const EVENTS: [&str; 6] = [
    "tool.before",
    "tool.after",
    "prompt.submit",
    "session.start",
    "turn.complete",
    "task.completed",
];
const DIALECTS: [&str; 4] = ["native", "claude", "hygge", "codex"];
/// Every thousandth emit is an error: a rare decision.
const ERROR_EVERY: u64 = 1_000;
/// `rare-hook` matched on every ten-thousandth emit.
const RARE_EVERY: u64 = 10_000;

fn main() {
    let count: u64 = std::env::var("HOOKRIG_BENCH_EMITS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("ledger.db");
    let started = Instant::now();
    drop(Store::open_ledger(&path).expect("create the ledger"));
    fill(&path, 0, count);
    println!(
        "ledger of {count} emits built in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let store = Store::open_ledger(&path).expect("open the ledger");
    let emits = store.emits();

    let base = median(|| {
        emits
            .recent(&EmitFilter {
                limit: 50,
                ..EmitFilter::default()
            })
            .expect("recent")
            .len()
    });
    println!("{:<44} {:>9} {:>7}", "case", "median ms", "ratio");
    println!(
        "{:<44} {base:>9.2} {:>7.2}",
        "baseline: `hookrig runs` (recent, 50)", 1.0
    );
    let middle = emits
        .page(&EmitQuery {
            limit: usize::try_from(count / 2).expect("fits"),
            ..EmitQuery::default()
        })
        .ok()
        .and_then(|page| page.next);
    let cases = cases(count, middle);
    for (name, query) in &cases {
        let ms = median(|| emits.page(query).expect("page").runs.len());
        println!("{name:<44} {ms:>9.2} {:>7.2}", ms / base);
    }

    live(&path, count, emits, base);
}

/// The median time of 21 calls of `read`, in ms.
fn median(mut read: impl FnMut() -> usize) -> f64 {
    read();
    let mut times: Vec<f64> = (0..21)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(read());
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Appends emits `from..from + count` (ten ms apart) with two hook rows each, in one
/// transaction, as the ledger's writers would have.
fn fill(path: &std::path::Path, from: u64, count: u64) {
    let mut conn = rusqlite::Connection::open(path).expect("open");
    let tx = conn.transaction().expect("a transaction");
    {
        let mut emit = tx
            .prepare(
                "INSERT INTO emits (run_id, started_at_ms, event, dialect, cwd, session_id,
                     decision, reason, decided_by, duration_ms, payload_in, payload_out, agent)
                 VALUES (?1, ?2, ?3, ?4, '/home/me/project', 's1', ?5, NULL, ?6, ?7, ?8, '', ?9)",
            )
            .expect("prepare");
        let mut hook = tx
            .prepare(
                "INSERT INTO hook_runs (run_id, seq, name, source, dialect, matched, result,
                     truncated, is_async, duration_ms)
                 VALUES (?1, ?2, ?3, '/home/me/project/.hookrig/hooks.toml', 'native', ?4, ?5, 0, 0, 3.5)",
            )
            .expect("prepare");
        for n in from..from + count {
            let i = usize::try_from(n).expect("fits");
            let run_id = format!("{n:016x}-bench");
            let decision = if n % ERROR_EVERY == 0 {
                "error"
            } else if n % 7 == 0 {
                "deny"
            } else {
                "allow"
            };
            let decided_by = (decision == "deny").then(|| format!("guard-{}", n % 10));
            #[expect(clippy::cast_precision_loss, reason = "small numbers")]
            let duration = (n % 50) as f64 + 0.5;
            emit.execute(rusqlite::params![
                run_id,
                i64::try_from(n).expect("fits") * 10,
                EVENTS[i % EVENTS.len()],
                DIALECTS[i % DIALECTS.len()],
                decision,
                decided_by,
                duration,
                r#"{"tool":{"name":"bash","input":{"command":"ls -la"}}}"#,
                format!("agent-{}", n % 20),
            ])
            .expect("insert an emit");
            let second = if n % RARE_EVERY == 0 {
                "rare-hook".to_owned()
            } else {
                format!("audit-{}", n % 5)
            };
            for (seq, name) in [(0, format!("guard-{}", n % 10)), (1, second)] {
                let result = if seq == 0 { decision } else { "allow" };
                let result = if result == "error" { "allow" } else { result };
                hook.execute(rusqlite::params![run_id, seq, name, 1, result])
                    .expect("insert a hook row");
            }
        }
    }
    tx.commit().expect("commit");
}

/// The filters measured; `middle` is the cursor half way down the ledger.
fn cases(count: u64, middle: Option<EmitCursor>) -> Vec<(&'static str, EmitQuery)> {
    let query = |f: fn(&mut EmitQuery)| {
        let mut query = EmitQuery {
            limit: 50,
            ..EmitQuery::default()
        };
        f(&mut query);
        query
    };
    let now = i64::try_from(count).expect("fits") * 10;
    vec![
        ("page, no filter", query(|_| {})),
        (
            "page, event",
            query(|q| q.event = Some("turn.complete".to_owned())),
        ),
        (
            "page, decision deny",
            query(|q| q.decision = Some(EmitDecision::Deny)),
        ),
        (
            "page, decision error (rare)",
            query(|q| q.decision = Some(EmitDecision::Error)),
        ),
        (
            "page, agent",
            query(|q| q.agent = Some("agent-7".to_owned())),
        ),
        (
            "page, dialect",
            query(|q| q.dialect = Some("hygge".to_owned())),
        ),
        (
            "page, hook (common)",
            query(|q| q.hook = Some("guard-3".to_owned())),
        ),
        (
            "page, hook (rare)",
            query(|q| q.hook = Some("rare-hook".to_owned())),
        ),
        (
            "page, event + decision + agent",
            query(|q| {
                q.event = Some("tool.before".to_owned());
                q.decision = Some(EmitDecision::Deny);
                q.agent = Some("agent-4".to_owned());
            }),
        ),
        (
            "page, event + agent matching nothing",
            query(|q| {
                q.event = Some("tool.before".to_owned());
                q.agent = Some("agent-3".to_owned());
            }),
        ),
        (
            "page, event + agent (one in 60)",
            query(|q| {
                q.event = Some("tool.before".to_owned());
                q.agent = Some("agent-4".to_owned());
            }),
        ),
        // agent-3's emits are all `codex` ones.
        (
            "page, agent + dialect matching nothing",
            query(|q| {
                q.agent = Some("agent-3".to_owned());
                q.dialect = Some("hygge".to_owned());
            }),
        ),
        // guard-3 matched in odd emits only, agent-4's are even.
        (
            "page, hook (common) + agent matching nothing",
            query(|q| {
                q.hook = Some("guard-3".to_owned());
                q.agent = Some("agent-4".to_owned());
            }),
        ),
        // `tool.before` comes in `native` and `hygge` emits only.
        (
            "page, event + dialect matching nothing",
            query(|q| {
                q.event = Some("tool.before".to_owned());
                q.dialect = Some("claude".to_owned());
            }),
        ),
        ("page, within the last hour", {
            let mut q = query(|_| {});
            q.since_ms = Some(now - 3_600_000);
            q
        }),
        ("page, half way down (cursor)", {
            let mut q = query(|_| {});
            q.before = middle.or(Some(EmitCursor {
                started_at_ms: now / 2,
                row: i64::MAX,
            }));
            q
        }),
    ]
}

/// The live view's read: 500 emits written, then read as one batch, 21 times.
fn live(path: &std::path::Path, count: u64, emits: hookrig_store::Emits<'_>, base: f64) {
    let mut written = count;
    let mut after = emits.last_row().expect("last row");
    let mut times = Vec::new();
    for _ in 0..21 {
        fill(path, written, 500);
        written += 500;
        let start = Instant::now();
        let read = emits.since(after, &[], 5_000).expect("since");
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(read.len(), 500);
        after = read.last().map_or(after, |row| row.row);
    }
    times.sort_by(f64::total_cmp);
    let ms = times[times.len() / 2];
    println!(
        "{:<44} {ms:>9.2} {:>7.2}   ({:.0} emits/s readable)",
        "live: one read of 500 new emits",
        ms / base,
        500.0 / (ms / 1000.0)
    );
}
