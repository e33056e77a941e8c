//! Benchmark of the Live page's stream end to end: a writer records emits into the
//! ledger at a steady rate while a client reads the dashboard's server-sent events
//! (`GET /live/stream`) over a real loopback socket, and each run's lag is the time from
//! its `started_at_ms` to the moment the client read it. Reported: the median, p95 and
//! largest lag, and how many rows never reached the client (must be 0), at 20 emits/s
//! (the baseline, measured in the same run) and at 2,000 emits/s.
//!
//! The dashboard is the one `hookrig serve --ui` mounts (`hookrig_ui::spawn` on a
//! listener of its own), in this process; the writer is a connection of its own, as a
//! one-shot `hookrig emit` is, and the feed reads what it wrote from the file.
//!
//! Run with `cargo bench -p hookrig-ui --bench live_stream` (`HOOKRIG_BENCH_SECONDS`
//! sets how long the fast phase lasts, 15 by default).

use std::collections::HashSet;
use std::ffi::OsString;
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hookrig_runtime::{Scope, ScopeArgs};
use hookrig_ui::Dashboard;

const TOKEN: &str = "bench-token-0123456789";

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn main() {
    let seconds: u64 = std::env::var("HOOKRIG_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ledger = dir.path().join("ledger.db");
    drop(hookrig_store::Store::open_ledger(&ledger).expect("create the ledger"));
    let address = serve(dir.path(), &ledger);

    // The client: every run it reads, with when it read it.
    let (seen_tx, seen) = mpsc::channel::<(String, i64, i64)>();
    let client_address = address.clone();
    std::thread::spawn(move || read_stream(&client_address, &seen_tx));
    // The feed starts with the first subscriber and reads from the rows written after
    // its first read: give it that read before writing.
    std::thread::sleep(Duration::from_secs(1));

    println!(
        "{:<26} {:>8} {:>9} {:>9} {:>9} {:>8}",
        "phase", "emits", "median ms", "p95 ms", "max ms", "dropped"
    );
    let mut next = 0;
    let base = phase("baseline: 20 emits/s", &ledger, &seen, &mut next, 20, 5);
    let fast = phase("2,000 emits/s", &ledger, &seen, &mut next, 2_000, seconds);
    #[expect(clippy::cast_precision_loss, reason = "lags are small numbers")]
    let ratio = fast as f64 / base.max(1) as f64;
    println!("median lag at 2,000 emits/s / median lag at 20 emits/s: {ratio:.2}");
}

/// A dashboard over `ledger`, on a free loopback port; its address.
fn serve(dir: &Path, ledger: &Path) -> String {
    let home = dir.join("home");
    std::fs::create_dir_all(home.join(".config")).expect("a home");
    let var = |name: &str| -> Option<OsString> {
        match name {
            "HOME" => Some(home.clone().into()),
            "XDG_CONFIG_HOME" => Some(home.join(".config").into()),
            "XDG_STATE_HOME" => Some(home.join(".state").into()),
            _ => None,
        }
    };
    let scope = Scope::resolve_with(
        ScopeArgs {
            cwd: Some(dir.to_owned()),
            store: Some(ledger.to_owned()),
            ..ScopeArgs::default()
        },
        var,
    )
    .expect("a scope");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let dashboard = Dashboard::new(scope, TOKEN.to_owned(), None);
    hookrig_ui::spawn(listener, dashboard)
        .expect("served")
        .to_string()
}

/// Reads the Live stream and sends each run it carries (id, started, read at).
fn read_stream(address: &str, seen: &mpsc::Sender<(String, i64, i64)>) {
    let mut stream = TcpStream::connect(address).expect("connect");
    write!(
        stream,
        "GET /live/stream HTTP/1.1\r\nHost: {address}\r\nCookie: hookrig_ui={TOKEN}\r\nAccept: text/event-stream\r\n\r\n"
    )
    .expect("ask for the stream");
    let reader = BufReader::new(stream);
    // The body is chunked: data lines are whole lines inside it, which is all we read.
    for line in reader.lines() {
        let Ok(line) = line else { return };
        let Some(json) = line.strip_prefix("data: ") else {
            continue;
        };
        let at = now_ms();
        let Ok(runs) = serde_json::from_str::<Vec<serde_json::Value>>(json) else {
            continue;
        };
        for run in runs {
            let id = run["run_id"].as_str().unwrap_or_default().to_owned();
            let started = run["started_at_ms"].as_i64().unwrap_or_default();
            if seen.send((id, started, at)).is_err() {
                return;
            }
        }
    }
}

/// Writes `rate` emits a second for `seconds`, in a transaction every 10 ms, then waits
/// for the client to read them; prints the lags and returns the median, in ms.
fn phase(
    name: &str,
    ledger: &Path,
    seen: &mpsc::Receiver<(String, i64, i64)>,
    next: &mut u64,
    rate: u64,
    seconds: u64,
) -> i64 {
    let mut conn = rusqlite::Connection::open(ledger).expect("open the ledger");
    conn.busy_timeout(Duration::from_secs(5))
        .expect("busy timeout");
    let mut written: HashSet<String> = HashSet::new();
    let ticks = seconds * 100;
    let per_tick = rate / 100;
    let mut carry = 0;
    let start = Instant::now();
    for tick in 0..ticks {
        let mut count = per_tick;
        // Rates below 100/s: one emit on every (100 / rate)th tick.
        carry += rate % 100;
        if carry >= 100 {
            carry -= 100;
            count += 1;
        }
        let tx = conn.transaction().expect("a transaction");
        for _ in 0..count {
            let run_id = format!("{:016x}-live", *next);
            *next += 1;
            tx.execute(
                "INSERT INTO emits (run_id, started_at_ms, event, dialect, cwd, session_id,
                     decision, duration_ms, payload_in, payload_out, agent)
                 VALUES (?1, ?2, 'tool.before', 'native', '/home/me/project', 's1', 'allow',
                     1.5, '{}', '', 'bench')",
                rusqlite::params![run_id, now_ms()],
            )
            .expect("insert an emit");
            written.insert(run_id);
        }
        tx.commit().expect("commit");
        let due = start + Duration::from_millis((tick + 1) * 10);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    let mut lags = Vec::with_capacity(written.len());
    let deadline = Instant::now() + Duration::from_secs(10);
    while !written.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok((id, started, at)) = seen.recv_timeout(left) else {
            break;
        };
        if written.remove(&id) {
            lags.push(at - started);
        }
    }
    lags.sort_unstable();
    let at = |q: usize| lags.get((lags.len() * q / 100).min(lags.len().saturating_sub(1)));
    let median = at(50).copied().unwrap_or_default();
    println!(
        "{name:<26} {:>8} {median:>9} {:>9} {:>9} {:>8}",
        lags.len() + written.len(),
        at(95).copied().unwrap_or_default(),
        lags.last().copied().unwrap_or_default(),
        written.len()
    );
    median
}
