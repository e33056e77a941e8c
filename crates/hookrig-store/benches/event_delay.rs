//! Event delay across nodes: from the moment one node starts sending an event
//! ([`PgStore::publish`]) to the moment another node's [`EventListener`] hands it on, for
//! events small enough to travel in their notification and for events read from their
//! row (larger than a notification may be). The baseline, taken in the same run, is one
//! round trip of a one-row read on the same database ([`RunStore::run`]), so that the
//! figures compare across machines as ratios.
//!
//! Each event is sent once the one before it arrived, so the figure is the delay of an
//! event on a quiet store, not under a flood. Run with
//! `HOOKRIG_TEST_POSTGRES=postgresql://... cargo bench -p hookrig-store --bench
//! event_delay`; it makes and drops a database of its own there.

use std::sync::mpsc::channel;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hookrig_store::{EventListener, Heard, PgStore, RunStore, SharedEvent};
use hookrig_test_support::TestDatabase;
use serde_json::json;

/// Events sent of each size.
const EVENTS: usize = 500;

fn main() {
    let Some(db) = TestDatabase::create("bench_event_delay") else {
        return;
    };
    let sender = PgStore::open(db.url()).expect("open");
    let (heard_tx, heard) = channel();
    let _listener = EventListener::start(db.url(), "receiver", move |h| {
        if let Heard::Event(event) = h {
            return heard_tx.send((Instant::now(), event.id)).is_ok();
        }
        true
    })
    .expect("listen");

    let round_trips: Vec<Duration> = (0..EVENTS)
        .map(|_| {
            let started = Instant::now();
            sender.run("none").expect("read");
            started.elapsed()
        })
        .collect();
    let base = median(round_trips.clone());
    report("round trip (one-row read)", round_trips, base);

    for (label, size) in [
        ("event in its notification", 200),
        ("event read from its row", 20_000),
    ] {
        let payload = json!({"task_id": "t1", "text": "x".repeat(size)});
        let delays: Vec<Duration> = (0..EVENTS)
            .map(|n| {
                let event = SharedEvent {
                    id: format!("{size}-{n}"),
                    event_type: "task.completed".to_owned(),
                    payload: payload.clone(),
                    node: "sender".to_owned(),
                    sent_at: SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .expect("after 1970")
                        .as_secs_f64(),
                };
                let started = Instant::now();
                assert!(sender.publish(&event).expect("publish"));
                let (at, id) = heard
                    .recv_timeout(Duration::from_mins(1))
                    .expect("the event arrives");
                assert_eq!(id, event.id);
                at.duration_since(started)
            })
            .collect();
        report(label, delays, base);
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn report(label: &str, mut times: Vec<Duration>, base: Duration) {
    times.sort();
    let median = times[times.len() / 2];
    let p95 = times[times.len() * 95 / 100];
    println!(
        "{label:<28} median {:>7.3} ms ({:.2}x)  p95 {:>7.3} ms ({:.2}x)",
        median.as_secs_f64() * 1000.0,
        median.as_secs_f64() / base.as_secs_f64(),
        p95.as_secs_f64() * 1000.0,
        p95.as_secs_f64() / base.as_secs_f64(),
    );
}
