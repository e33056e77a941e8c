//! The one store interface of what runs automations, on one node or several:
//! [`RunStore`], implemented by the SQLite [`Store`](crate::Store) and by
//! [`PgStore`](crate::PgStore). Whatever decides whether a run may start (an automation
//! already in flight, the concurrency cap, the cooldown, a period already fired) is
//! decided by the store in one transaction, [`RunStore::start`], so that several
//! `hookrig serve` nodes on one database fire each automation once: the nodes keep no
//! gate of their own that another node could not see.
//!
//! A run in flight holds a lease on its automation: a row naming the run, the node and
//! when the lease expires. Its node renews the leases it holds ([`RunStore::heartbeat`]);
//! a node that died stops renewing, and once its leases have expired any other node's
//! [`RunStore::interrupt_expired`] marks their runs `interrupted` and frees the
//! automations. A lease is a row rather than a lock held by a connection, because a run
//! outlives any one statement, and because another node must be able to see who holds
//! it, since when, and until when (`hookrig store status`).

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};

mod postgres;
mod sqlite;

use crate::automation_runs::AutomationRun;
use crate::errors::StoreError;

/// Which engine holds a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// The embedded default: SQLite files on this machine.
    Sqlite,
    /// A PostgreSQL database several nodes share.
    Postgres,
}

impl Engine {
    /// The engine's lowercase name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Engine::Sqlite => "sqlite",
            Engine::Postgres => "postgres",
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// What must hold for a run of one automation to start, checked by [`RunStore::start`]
/// against every node's runs at once.
#[derive(Debug, Clone, PartialEq)]
pub struct Gate<'a> {
    /// The node starting the run (its [`NodeInfo::id`]).
    pub node: &'a str,
    /// Seconds that must have passed since the automation's last run started; 0 lets a
    /// manual `fire` through.
    pub cooldown_seconds: f64,
    /// At most this many runs of any automation in flight at once, on every node
    /// together; 0 for no cap.
    pub max_concurrent: usize,
    /// The period a periodic or cron run fires for (the start of its interval, or the
    /// cron time, in Unix seconds): each period of an automation fires once in total.
    /// `None` for event and manual runs.
    pub period: Option<i64>,
    /// The event an event run is for (its id, the same on every node it reaches): each
    /// event starts at most one run of an automation in total, however many nodes it is
    /// delivered to. `None` for the other runs.
    pub event: Option<&'a str>,
    /// How long the lease of the run lasts unless its node renews it, in seconds.
    pub lease_seconds: f64,
    /// Now, in Unix seconds.
    pub now: f64,
}

/// What [`RunStore::start`] decided.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "start", rename_all = "snake_case")]
pub enum Start {
    /// The run was recorded `running` and holds the automation's lease.
    Started,
    /// The event was taken already: it started a run of the automation, or was recorded
    /// as not run by it (on this node or another).
    EventTaken {
        /// That run, or the record of the event not run.
        run_id: String,
    },
    /// A run of the automation is in flight (on this node or another).
    InFlight {
        /// That run.
        run_id: String,
        /// The node running it.
        node: String,
    },
    /// [`Gate::max_concurrent`] runs are in flight.
    Capped {
        /// How many.
        in_flight: usize,
    },
    /// The cooldown has not passed since the automation's last run.
    Cooldown {
        /// When that run started (Unix seconds).
        last_start: f64,
    },
    /// The period was fired already (by this node or another).
    PeriodFired {
        /// The run that fired it.
        run_id: String,
    },
}

/// A node that runs automations on the store, as it says of itself at start and on
/// every heartbeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeInfo {
    /// Unique among the nodes of the store: host, pid and start time.
    pub id: String,
    /// The machine's host name.
    pub host: String,
    /// The process.
    pub pid: i64,
    /// When it started (Unix seconds).
    pub started_at: f64,
    /// Its last heartbeat (Unix seconds).
    pub heartbeat_at: f64,
}

/// The store interface of what runs automations: the runs (`automation_runs`), the
/// leases of runs in flight, the periods fired and the nodes, on SQLite or PostgreSQL.
/// Both engines pass the same conformance suite
/// (`crates/hookrig-store/tests/integration/conformance.rs`).
pub trait RunStore {
    /// Which engine this is.
    fn engine(&self) -> Engine;

    /// Starts the run `run` (its `status` `running`) if `gate` lets it, in one
    /// transaction that no other node's start interleaves with: the automation has no
    /// run in flight, fewer than `max_concurrent` runs are, its last run started at
    /// least `cooldown_seconds` ago, and its `period` was not fired. A lease whose node
    /// stopped renewing it is no run in flight: its run is marked `interrupted` and the
    /// lease taken over.
    fn start(&self, run: &AutomationRun, gate: &Gate<'_>) -> Result<Start, StoreError>;

    /// Records the end of the run `run` (every field of it) and frees its automation's
    /// lease. An unknown id is [`StoreError::UnknownRunId`].
    fn finish(&self, run: &AutomationRun) -> Result<(), StoreError>;

    /// Records a run that passed no gate: an event that was not run (`skipped`, with
    /// no context results), written for `hookrig auto runs` to show.
    fn record(&self, run: &AutomationRun) -> Result<(), StoreError>;

    /// Records that the event `event` (its id) was not run by the automation of `run`
    /// (a `skipped` row, as [`RunStore::record`] writes), unless the event was taken
    /// already: then nothing is written and the answer is `false`. So an event
    /// delivered to every node is recorded as not run once, and a node it reaches after
    /// one that ran it writes nothing.
    fn record_dropped(&self, run: &AutomationRun, event: &str) -> Result<bool, StoreError>;

    /// Forgets which events were taken by which automations before `before` (Unix
    /// seconds), and on PostgreSQL the events sent before then; returns how many claims
    /// were forgotten. An event delivered again after that starts runs again.
    fn forget_events(&self, before: f64) -> Result<usize, StoreError>;

    /// Writes the tool calls of the run `id` so far (a JSON array), while it runs. An
    /// unknown id is [`StoreError::UnknownRunId`].
    fn set_actions(&self, id: &str, actions: &serde_json::Value) -> Result<(), StoreError>;

    /// Marks the runs `ids` that are still `running` `interrupted` (completed at `now`)
    /// and frees their leases; returns how many were marked. Shutdown calls it for the
    /// runs it cancelled.
    fn interrupt(&self, ids: &[String], now: f64) -> Result<usize, StoreError>;

    /// One run, or `None`.
    fn run(&self, id: &str) -> Result<Option<AutomationRun>, StoreError>;

    /// The newest `limit` runs, of one automation or of all, newest first.
    fn runs(
        &self,
        automation_id: Option<&str>,
        limit: usize,
    ) -> Result<Vec<AutomationRun>, StoreError>;

    /// The start time of each automation's newest run (a `skipped` event that was not
    /// run is no run).
    fn last_starts(&self) -> Result<HashMap<String, f64>, StoreError>;

    /// Says that the node `node` is alive at `node.heartbeat_at`, and extends every
    /// lease it holds to `lease_seconds` from then; returns how many leases it holds.
    fn heartbeat(&self, node: &NodeInfo, lease_seconds: f64) -> Result<usize, StoreError>;

    /// Marks the runs whose leases expired before `now` `interrupted` (completed at
    /// `now`) and frees their automations; returns their ids.
    fn interrupt_expired(&self, now: f64) -> Result<Vec<String>, StoreError>;

    /// The nodes that ever said they were alive, the last heard of first.
    fn nodes(&self) -> Result<Vec<NodeInfo>, StoreError>;

    /// What `hookrig store status` shows: the engine, the schema version, the rows of
    /// every table and the nodes.
    fn status(&self) -> Result<crate::StoreStatus, StoreError>;
}

/// A run's lease as a store holds it, for the engines' common reading of it.
#[derive(Debug, Clone)]
pub(crate) struct HeldLease {
    pub(crate) run_id: String,
    pub(crate) node: String,
    /// Whether it still holds the automation at the gate's `now`.
    pub(crate) live: bool,
}

/// What a gate decides from what the store holds, in the order both engines check it:
/// the event taken, a run in flight, the period fired, the cooldown, the cap. `None`:
/// the run may start. The event comes first, so that an event delivered again while
/// its run is in flight is known for the same event, not recorded as one not run.
pub(crate) fn refusal(
    gate: &Gate<'_>,
    event_run: Option<String>,
    held: Option<&HeldLease>,
    period_run: Option<String>,
    last_start: Option<f64>,
    in_flight: usize,
) -> Option<Start> {
    if let Some(run_id) = event_run {
        return Some(Start::EventTaken { run_id });
    }
    if let Some(held) = held.filter(|held| held.live) {
        return Some(Start::InFlight {
            run_id: held.run_id.clone(),
            node: held.node.clone(),
        });
    }
    if let Some(run_id) = period_run {
        return Some(Start::PeriodFired { run_id });
    }
    if let Some(last_start) = last_start.filter(|last| gate.now - last < gate.cooldown_seconds) {
        return Some(Start::Cooldown { last_start });
    }
    if gate.max_concurrent > 0 && in_flight >= gate.max_concurrent {
        return Some(Start::Capped { in_flight });
    }
    None
}
