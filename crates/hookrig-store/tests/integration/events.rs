//! Events across nodes on the real cluster: what one node sends (`PgStore::publish`)
//! reaches the other nodes' listeners (`EventListener`) once, a large event through
//! its row, and a listener whose connection was cut reads what it missed when it is
//! back. Skipped where `HOOKRIG_TEST_POSTGRES` is unset.

use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hookrig_store::{EventListener, Heard, PgStore, SharedEvent};
use hookrig_test_support::TestDatabase;
use serde_json::{Value, json};

/// How long a test waits for what it expects before it fails.
const LIMIT: Duration = Duration::from_mins(1);

fn event(id: &str, node: &str, payload: Value) -> SharedEvent {
    SharedEvent {
        id: id.to_owned(),
        event_type: "task.completed".to_owned(),
        payload,
        node: node.to_owned(),
        // The sender's clock: what a listener back from a cut reads from.
        sent_at: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("after 1970")
            .as_secs_f64(),
    }
}

/// A listener of node `node` and what it hears.
fn listen(db: &TestDatabase, node: &str) -> (EventListener, Receiver<Heard>) {
    let (sender, heard) = channel();
    let listener =
        EventListener::start(db.url(), node, move |h| sender.send(h).is_ok()).expect("listen");
    (listener, heard)
}

/// The next event heard, passing over the connection's news.
fn next_event(heard: &Receiver<Heard>) -> SharedEvent {
    loop {
        match heard
            .recv_timeout(LIMIT)
            .expect("an event within the limit")
        {
            Heard::Event(event) => return event,
            Heard::Unreadable(why) => panic!("unreadable: {why}"),
            _ => {}
        }
    }
}

/// Asserts that `heard` is `sent`. The send time is compared to the microsecond:
/// `serde_json` reads a float back within one unit in the last place, not always to the
/// bit, and a notification carries the event as JSON.
#[track_caller]
fn assert_same(heard: &SharedEvent, sent: &SharedEvent) {
    assert_eq!(
        (&heard.id, &heard.event_type, &heard.payload, &heard.node),
        (&sent.id, &sent.event_type, &sent.payload, &sent.node)
    );
    assert!(
        (heard.sent_at - sent.sent_at).abs() < 1e-6,
        "sent at {} heard as sent at {}",
        sent.sent_at,
        heard.sent_at
    );
}

// guards: an event reaches the other nodes once, its sender not at all, and one too
// large for a notification arrives whole
#[test]
fn an_event_sent_by_one_node_reaches_the_others_once() {
    let Some(db) = TestDatabase::create("events_reach") else {
        return;
    };
    let (_a_listens, a_heard) = listen(&db, "a");
    let (_b_listens, b_heard) = listen(&db, "b");
    let a = PgStore::open(db.url()).expect("open");
    let c = PgStore::open(db.url()).expect("open");

    let first = event("e1", "a", json!({"task_id": "t1"}));
    assert!(a.publish(&first).expect("publish"));
    // The same event, delivered to node c as well: not sent twice.
    assert!(
        !c.publish(&event("e1", "c", json!({"task_id": "t1"})))
            .expect("publish")
    );
    let large = event("e2", "c", json!({"text": "x".repeat(20_000)}));
    assert!(c.publish(&large).expect("publish"));

    assert_same(&next_event(&b_heard), &first);
    // Read from its row.
    assert_same(&next_event(&b_heard), &large);
    // Node a hears c's event, and (sent before it) not its own.
    assert_eq!(next_event(&a_heard).id, "e2");
}

// guards: a node whose listening connection was cut reads the events sent while it
// was away, once it is connected again
#[test]
fn a_listener_cut_off_reads_what_it_missed_when_back() {
    let Some(db) = TestDatabase::create("events_missed") else {
        return;
    };
    let (_listens, heard) = listen(&db, "b");
    let a = PgStore::open(db.url()).expect("open");
    // From the cluster's own database: no one may disallow connections to the one
    // they are connected to.
    let cluster = std::env::var(hookrig_test_support::POSTGRES_VAR).expect("set");
    let mut admin = postgres::Client::connect(&cluster, postgres::NoTls).expect("connect");
    // Nobody may connect, then the listener's connection is cut: it cannot be back
    // before the event is sent.
    admin
        .batch_execute(&format!(
            "ALTER DATABASE \"{}\" ALLOW_CONNECTIONS false",
            db.name()
        ))
        .expect("refuse connections");
    let cut: i64 = admin
        .query(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE datname = $1 AND application_name = 'hookrig events'",
            &[&db.name()],
        )
        .expect("cut the listener")[0]
        .get(0);
    assert_eq!(cut, 1);
    let missed = event("e1", "a", json!({"task_id": "t1"}));
    assert!(a.publish(&missed).expect("publish"));
    admin
        .batch_execute(&format!(
            "ALTER DATABASE \"{}\" ALLOW_CONNECTIONS true",
            db.name()
        ))
        .expect("allow connections");

    let mut lost = false;
    let resumed = loop {
        match heard.recv_timeout(LIMIT).expect("news within the limit") {
            Heard::Lost(_) => lost = true,
            Heard::Event(event) => {
                assert!(lost, "heard before the connection was lost: {event:?}");
                assert_same(&event, &missed);
            }
            Heard::Resumed { caught_up } => break caught_up,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(resumed, 1);

    // And it listens again.
    let after = event("e2", "a", json!({}));
    assert!(a.publish(&after).expect("publish"));
    assert_same(&next_event(&heard), &after);
}
