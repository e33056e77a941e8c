//! Events across nodes: an event one `hookrig serve` node receives is sent to the
//! others through PostgreSQL's `LISTEN/NOTIFY` ([`PgStore::publish`], [`EventListener`]),
//! so that the event automations every node runs see it (docs/postgres.md, "Events
//! across nodes").
//!
//! Each event is a row of `events` and a notification on the channel [`CHANNEL`], sent
//! by one statement: the row commits and the notification goes out together. The
//! notification carries the event itself when it fits PostgreSQL's limit on a
//! notification's payload (8000 bytes), else only its id, and the listener reads the
//! row. A node whose listening connection dropped reads, once it is back, the rows sent
//! while it was away; the id an event carries on every node lets the store start one
//! run of each automation per event however many times it is delivered
//! ([`Gate::event`](crate::Gate::event)).

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use postgres::fallible_iterator::FallibleIterator;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::errors::StoreError;
use crate::pg::PgStore;
use crate::pg::client::{off_runtime, redact};

/// The channel events are sent on.
pub const CHANNEL: &str = "hookrig_events";

/// The longest notification that carries its event; PostgreSQL refuses a payload of
/// 8000 bytes or more.
const INLINE_LIMIT: usize = 7999;

/// How long the listener waits for a notification before it looks whether it should
/// stop.
const POLL: Duration = Duration::from_millis(200);

/// How long the listener waits between attempts to connect again.
const RETRY: Duration = Duration::from_secs(1);

/// How far before the moment its connection was last known alive a listener that
/// connected again reads the events it may have missed: room for the clocks of the
/// nodes (an event's `sent_at` is its sender's) to differ.
const CATCH_UP_MARGIN: f64 = 10.0;

/// How many event ids a listener remembers, so that an event read twice (a
/// notification and a catch-up) is delivered once.
const REMEMBERED: usize = 4096;

/// An event sent from one node to the others.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedEvent {
    /// Its id, the same on every node (what a run's gate claims).
    pub id: String,
    /// Its canonical name (`task.completed`).
    pub event_type: String,
    /// Its payload, a JSON object.
    pub payload: Value,
    /// The node that sent it.
    pub node: String,
    /// When it was sent, in Unix seconds of the sender's clock.
    pub sent_at: f64,
}

/// What a notification on [`CHANNEL`] carries: the whole event, or (when the event is
/// too large) its id and sender, with the rest in its row.
#[derive(Debug, Deserialize)]
struct Notified {
    id: String,
    node: String,
    event_type: Option<String>,
    payload: Option<Value>,
    sent_at: Option<f64>,
}

impl PgStore {
    /// Sends `event` to the other nodes: its row in `events` and its notification, in
    /// one statement. An event whose id was sent already (the same event delivered to
    /// several nodes) is not sent again: the answer is `false`.
    ///
    /// # Panics
    ///
    /// Never: an event is plain JSON, which always serializes.
    pub fn publish(&self, event: &SharedEvent) -> Result<bool, StoreError> {
        let whole = serde_json::to_string(event).expect("an event serializes");
        let notification = if whole.len() <= INLINE_LIMIT {
            whole
        } else {
            serde_json::json!({"id": event.id, "node": event.node}).to_string()
        };
        let payload = event.payload.to_string();
        self.client()
            .with("send an event to the other nodes", |conn| {
                let sent = conn.query(
                    "WITH sent AS (
                     INSERT INTO events (id, event_type, payload, node, sent_at)
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING RETURNING id
                 )
                 SELECT pg_notify($6, $7) FROM sent",
                    &[
                        &event.id,
                        &event.event_type,
                        &payload,
                        &event.node,
                        &event.sent_at,
                        &CHANNEL,
                        &notification,
                    ],
                )?;
                Ok(sent.len() == 1)
            })
    }
}

/// What an [`EventListener`] hears.
#[derive(Debug)]
#[non_exhaustive]
pub enum Heard {
    /// An event another node sent.
    Event(SharedEvent),
    /// The listening connection failed; the listener connects again, and then reads
    /// what it missed. Heard once per outage: the failed attempts to connect again are
    /// not reported.
    Lost(StoreError),
    /// The listener is connected again, and read this many events sent while it was
    /// not.
    Resumed {
        /// The events read from the table.
        caught_up: usize,
    },
    /// A notification that is not an event (another program used the channel), or an
    /// event whose row cannot be read; left out.
    Unreadable(String),
}

/// Listens on its own connection for the events the other nodes send, and hands each
/// to its callback, once, on a thread of its own. Dropping it stops it (within a fraction
/// of a second); so does a callback that answers `false`.
#[derive(Debug)]
pub struct EventListener {
    stop: Arc<AtomicBool>,
}

impl Drop for EventListener {
    fn drop(&mut self) {
        // Not joined: the callback may be blocked on a receiver that is going away too.
        self.stop.store(true, Ordering::SeqCst);
    }
}

impl EventListener {
    /// Connects to the database at `url`, listens, and hands what it hears to `heard`,
    /// leaving out the events the node `node` sent itself. Fails when the first
    /// connection fails; later failures are [`Heard::Lost`], and it connects again.
    pub fn start(
        url: &str,
        node: &str,
        heard: impl FnMut(Heard) -> bool + Send + 'static,
    ) -> Result<EventListener, StoreError> {
        let database = redact(url);
        let mut config: postgres::Config = url.parse().map_err(|source| StoreError::Postgres {
            database: database.clone(),
            action: "connect",
            source,
        })?;
        // Named, so that an operator can tell it in `pg_stat_activity`.
        config.application_name("hookrig events");
        let client = off_runtime(|| listening(&config)).map_err(|source| StoreError::Postgres {
            database: database.clone(),
            action: "listen for the other nodes' events",
            source,
        })?;
        let stop = Arc::new(AtomicBool::new(false));
        let listen = Listen {
            config,
            database,
            node: node.to_owned(),
            stop: Arc::clone(&stop),
            remembered: Remembered::default(),
        };
        std::thread::Builder::new()
            .name("hookrig-events".to_owned())
            .spawn(move || listen.run(client, heard))
            .map_err(StoreError::Thread)?;
        Ok(EventListener { stop })
    }
}

/// A connection that listens on [`CHANNEL`].
fn listening(config: &postgres::Config) -> Result<postgres::Client, postgres::Error> {
    let mut client = config.connect(postgres::NoTls)?;
    client.batch_execute(&format!("LISTEN {CHANNEL}"))?;
    Ok(client)
}

/// The listener's thread.
struct Listen {
    config: postgres::Config,
    database: String,
    node: String,
    stop: Arc<AtomicBool>,
    remembered: Remembered,
}

impl Listen {
    fn run(mut self, client: postgres::Client, mut heard: impl FnMut(Heard) -> bool) {
        let mut client = Some(client);
        // When the connection was last known to be listening: what was sent before
        // then was heard.
        let mut alive_at = now();
        // Whether the outage under way was reported.
        let mut reported = false;
        while !self.stop.load(Ordering::SeqCst) {
            let Some(conn) = client.as_mut() else {
                std::thread::sleep(RETRY);
                match listening(&self.config) {
                    Ok(mut conn) => {
                        let Some(caught_up) = self.catch_up(&mut conn, alive_at, &mut heard) else {
                            return;
                        };
                        if !heard(Heard::Resumed { caught_up }) {
                            return;
                        }
                        reported = false;
                        client = Some(conn);
                    }
                    Err(source) => {
                        if !std::mem::replace(&mut reported, true)
                            && !heard(Heard::Lost(self.failure("connect", source)))
                        {
                            return;
                        }
                    }
                }
                continue;
            };
            let polled_at = now();
            let next = conn.notifications().timeout_iter(POLL).next();
            let keep_going = match next {
                Ok(Some(notification)) => match self.read(conn, notification.payload()) {
                    Ok(Some(event)) => heard(Heard::Event(event)),
                    Ok(None) => true,
                    Err(why) => heard(Heard::Unreadable(why)),
                },
                // The connection ended: nothing more comes on it.
                Ok(None) if conn.is_closed() => {
                    client = None;
                    reported = true;
                    heard(Heard::Lost(StoreError::PostgresClosed {
                        database: self.database.clone(),
                    }))
                }
                Ok(None) => {
                    alive_at = polled_at;
                    true
                }
                Err(source) => {
                    client = None;
                    reported = true;
                    heard(Heard::Lost(self.failure("listen", source)))
                }
            };
            if !keep_going {
                return;
            }
        }
    }

    /// The event a notification names, `None` when it is this node's or one already
    /// delivered, or why it cannot be read.
    fn read(
        &mut self,
        conn: &mut postgres::Client,
        text: &str,
    ) -> Result<Option<SharedEvent>, String> {
        let notified: Notified = serde_json::from_str(text)
            .map_err(|err| format!("a notification on {CHANNEL} is not an event: {err}"))?;
        if notified.node == self.node || self.remembered.contains(&notified.id) {
            return Ok(None);
        }
        let event = match notified {
            Notified {
                id,
                node,
                event_type: Some(event_type),
                payload: Some(payload),
                sent_at: Some(sent_at),
            } => SharedEvent {
                id,
                event_type,
                payload,
                node,
                sent_at,
            },
            // Too large for the notification: its row has it.
            Notified { id, .. } => {
                let row = conn
                    .query_opt(
                        "SELECT id, event_type, payload, node, sent_at FROM events WHERE id = $1",
                        &[&id],
                    )
                    .map_err(|err| format!("cannot read the event {id}: {err}"))?
                    .ok_or_else(|| format!("the event {id} was forgotten before it was read"))?;
                event_of(&row)?
            }
        };
        self.remembered.insert(&event.id);
        Ok(Some(event))
    }

    /// Hands on the events other nodes sent since `since` (less the margin) that were
    /// not delivered yet; returns how many, or `None` when the callback asked to stop.
    fn catch_up(
        &mut self,
        conn: &mut postgres::Client,
        since: f64,
        heard: &mut impl FnMut(Heard) -> bool,
    ) -> Option<usize> {
        let rows = match conn.query(
            "SELECT id, event_type, payload, node, sent_at FROM events
             WHERE sent_at >= $1 AND node <> $2 ORDER BY seq",
            &[&(since - CATCH_UP_MARGIN), &self.node],
        ) {
            Ok(rows) => rows,
            Err(source) => {
                return heard(Heard::Lost(self.failure("read the events missed", source)))
                    .then_some(0);
            }
        };
        let mut caught_up = 0;
        for row in rows {
            let delivered = match event_of(&row) {
                Ok(event) if self.remembered.contains(&event.id) => true,
                Ok(event) => {
                    self.remembered.insert(&event.id);
                    caught_up += 1;
                    heard(Heard::Event(event))
                }
                Err(why) => heard(Heard::Unreadable(why)),
            };
            if !delivered {
                return None;
            }
        }
        Some(caught_up)
    }

    fn failure(&self, action: &'static str, source: postgres::Error) -> StoreError {
        StoreError::Postgres {
            database: self.database.clone(),
            action,
            source,
        }
    }
}

/// The event of a row of `events`.
fn event_of(row: &postgres::Row) -> Result<SharedEvent, String> {
    let id: String = row.get(0);
    let payload: String = row.get(2);
    let payload = serde_json::from_str(&payload)
        .map_err(|err| format!("the payload of the event {id} is not JSON: {err}"))?;
    Ok(SharedEvent {
        id,
        event_type: row.get(1),
        payload,
        node: row.get(3),
        sent_at: row.get(4),
    })
}

/// The ids of the last [`REMEMBERED`] events delivered.
#[derive(Default)]
struct Remembered {
    order: VecDeque<String>,
    ids: HashSet<String>,
}

impl Remembered {
    fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    fn insert(&mut self, id: &str) {
        if !self.ids.insert(id.to_owned()) {
            return;
        }
        self.order.push_back(id.to_owned());
        if self.order.len() > REMEMBERED
            && let Some(oldest) = self.order.pop_front()
        {
            self.ids.remove(&oldest);
        }
    }
}

/// Now, in Unix seconds.
fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_remembered_until_many_newer_ones_push_it_out() {
        let mut remembered = Remembered::default();
        remembered.insert("first");
        remembered.insert("first");
        for n in 0..REMEMBERED - 1 {
            remembered.insert(&n.to_string());
        }
        assert!(remembered.contains("first"));
        remembered.insert("one more");
        assert!(!remembered.contains("first"));
        assert_eq!(remembered.order.len(), REMEMBERED);
    }
}
