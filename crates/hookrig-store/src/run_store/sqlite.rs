//! [`RunStore`] on the SQLite store: the work file's `automation_runs`,
//! `automation_locks` (a lock with a lease: `node`, `expires_at`), `automation_periods`
//! and `nodes`. The gate's reads and writes run in one IMMEDIATE transaction, which
//! holds the file's write lock from its first statement, so every other process's start
//! waits for it.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};

use crate::automation_runs::{AutomationRun, RunStatus};
use crate::errors::StoreError;
use crate::owner::Owner;
use crate::run_store::{Engine, Gate, HeldLease, NodeInfo, RunStore, Start, refusal};
use crate::store::{Store, immediate};

impl RunStore for Store {
    fn engine(&self) -> Engine {
        Engine::Sqlite
    }

    fn start(&self, run: &AutomationRun, gate: &Gate<'_>) -> Result<Start, StoreError> {
        let fail = self.fail("start an automation run");
        let tx = immediate(self.conn()).map_err(fail)?;
        let event_run = match gate.event {
            Some(event) => event_taker(&tx, &run.automation_id, event).map_err(fail)?,
            None => None,
        };
        let held = held_lock(&tx, &run.automation_id, gate.now).map_err(fail)?;
        let period_run = match gate.period {
            Some(period) => tx
                .query_row(
                    "SELECT run_id FROM automation_periods WHERE automation_id = ?1 AND period = ?2",
                    params![run.automation_id, period],
                    |row| row.get(0),
                )
                .optional()
                .map_err(fail)?,
            None => None,
        };
        let last_start: Option<f64> = tx
            .query_row(
                "SELECT max(started_at) FROM automation_runs
                 WHERE automation_id = ?1 AND (status <> ?2 OR context_results IS NOT NULL)",
                params![run.automation_id, RunStatus::Skipped],
                |row| row.get(0),
            )
            .map_err(fail)?;
        let in_flight: i64 = tx
            .query_row(
                "SELECT count(*) FROM automation_locks
                 WHERE automation_id <> ?1 AND (expires_at IS NULL OR expires_at > ?2)",
                params![run.automation_id, gate.now],
                |row| row.get(0),
            )
            .map_err(fail)?;
        let in_flight = usize::try_from(in_flight).unwrap_or(usize::MAX);
        if let Some(refused) = refusal(
            gate,
            event_run,
            held.as_ref(),
            period_run,
            last_start,
            in_flight,
        ) {
            return Ok(refused);
        }
        if let Some(held) = held {
            // Its node stopped renewing the lease (or its process died): the run is over.
            tx.execute(
                "UPDATE automation_runs SET status = ?3, completed_at = ?2
                 WHERE id = ?1 AND status = ?4",
                params![
                    held.run_id,
                    gate.now,
                    RunStatus::Interrupted,
                    RunStatus::Running
                ],
            )
            .map_err(fail)?;
        }
        self.automation_runs().insert(run)?;
        let me = Owner::current();
        tx.execute(
            "INSERT INTO automation_locks
                 (automation_id, run_id, pid, proc_start, acquired_at, node, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (automation_id) DO UPDATE SET run_id = excluded.run_id,
                 pid = excluded.pid, proc_start = excluded.proc_start,
                 acquired_at = excluded.acquired_at, node = excluded.node,
                 expires_at = excluded.expires_at",
            params![
                run.automation_id,
                run.id,
                me.pid,
                me.proc_start,
                gate.now,
                gate.node,
                gate.now + gate.lease_seconds
            ],
        )
        .map_err(fail)?;
        if let Some(period) = gate.period {
            tx.execute(
                "INSERT INTO automation_periods (automation_id, period, run_id) VALUES (?1, ?2, ?3)",
                params![run.automation_id, period, run.id],
            )
            .map_err(fail)?;
        }
        if let Some(event) = gate.event {
            claim_event(&tx, run, event, gate.now).map_err(fail)?;
        }
        tx.commit().map_err(fail)?;
        Ok(Start::Started)
    }

    fn finish(&self, run: &AutomationRun) -> Result<(), StoreError> {
        let fail = self.fail("finish an automation run");
        let tx = immediate(self.conn()).map_err(fail)?;
        self.automation_runs().update(run)?;
        tx.execute("DELETE FROM automation_locks WHERE run_id = ?1", [&run.id])
            .map_err(fail)?;
        tx.commit().map_err(fail)
    }

    fn record(&self, run: &AutomationRun) -> Result<(), StoreError> {
        self.automation_runs().insert(run)
    }

    fn record_dropped(&self, run: &AutomationRun, event: &str) -> Result<bool, StoreError> {
        let fail = self.fail("record an event not run");
        let tx = immediate(self.conn()).map_err(fail)?;
        if !claim_event(&tx, run, event, run.started_at).map_err(fail)? {
            return Ok(false);
        }
        self.automation_runs().insert(run)?;
        tx.commit().map_err(fail)?;
        Ok(true)
    }

    fn forget_events(&self, before: f64) -> Result<usize, StoreError> {
        self.conn()
            .execute(
                "DELETE FROM automation_events WHERE claimed_at < ?1",
                [before],
            )
            .map_err(self.fail("forget old events"))
    }

    fn set_actions(&self, id: &str, actions: &serde_json::Value) -> Result<(), StoreError> {
        self.automation_runs().set_actions(id, actions)
    }

    fn interrupt(&self, ids: &[String], now: f64) -> Result<usize, StoreError> {
        let fail = self.fail("mark interrupted runs");
        let tx = immediate(self.conn()).map_err(fail)?;
        let marked = self.automation_runs().interrupt(ids, now)?;
        for id in ids {
            tx.execute("DELETE FROM automation_locks WHERE run_id = ?1", [id])
                .map_err(fail)?;
        }
        tx.commit().map_err(fail)?;
        Ok(marked)
    }

    fn run(&self, id: &str) -> Result<Option<AutomationRun>, StoreError> {
        self.automation_runs().get(id)
    }

    fn runs(
        &self,
        automation_id: Option<&str>,
        limit: usize,
    ) -> Result<Vec<AutomationRun>, StoreError> {
        self.automation_runs().list(automation_id, limit)
    }

    fn last_starts(&self) -> Result<HashMap<String, f64>, StoreError> {
        self.automation_runs().last_starts()
    }

    fn heartbeat(&self, node: &NodeInfo, lease_seconds: f64) -> Result<usize, StoreError> {
        let fail = self.fail("record a node's heartbeat");
        let tx = immediate(self.conn()).map_err(fail)?;
        tx.execute(
            "INSERT INTO nodes (id, host, pid, started_at, heartbeat_at) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
            params![node.id, node.host, node.pid, node.started_at, node.heartbeat_at],
        )
        .map_err(fail)?;
        let held = tx
            .execute(
                "UPDATE automation_locks SET expires_at = ?2 WHERE node = ?1",
                params![node.id, node.heartbeat_at + lease_seconds],
            )
            .map_err(fail)?;
        tx.commit().map_err(fail)?;
        Ok(held)
    }

    fn interrupt_expired(&self, now: f64) -> Result<Vec<String>, StoreError> {
        let fail = self.fail("mark the runs of expired leases interrupted");
        let tx = immediate(self.conn()).map_err(fail)?;
        let expired: Vec<String> = tx
            .prepare("SELECT run_id FROM automation_locks WHERE expires_at <= ?1 ORDER BY run_id")
            .and_then(|mut select| select.query_map([now], |row| row.get(0))?.collect())
            .map_err(fail)?;
        for run_id in &expired {
            tx.execute(
                "UPDATE automation_runs SET status = ?3, completed_at = ?2
                 WHERE id = ?1 AND status = ?4",
                params![run_id, now, RunStatus::Interrupted, RunStatus::Running],
            )
            .map_err(fail)?;
        }
        tx.execute("DELETE FROM automation_locks WHERE expires_at <= ?1", [now])
            .map_err(fail)?;
        tx.commit().map_err(fail)?;
        Ok(expired)
    }

    fn status(&self) -> Result<crate::StoreStatus, StoreError> {
        self.sqlite_status()
    }

    fn nodes(&self) -> Result<Vec<NodeInfo>, StoreError> {
        self.conn()
            .prepare(
                "SELECT id, host, pid, started_at, heartbeat_at FROM nodes
                 ORDER BY heartbeat_at DESC, id",
            )
            .and_then(|mut select| {
                select
                    .query_map([], |row| {
                        Ok(NodeInfo {
                            id: row.get(0)?,
                            host: row.get(1)?,
                            pid: row.get(2)?,
                            started_at: row.get(3)?,
                            heartbeat_at: row.get(4)?,
                        })
                    })?
                    .collect()
            })
            .map_err(self.fail("list the nodes"))
    }
}

/// The lock (with its lease) held on the automation `automation_id`, and whether it
/// still holds it at `now`.
fn held_lock(
    tx: &rusqlite::Transaction<'_>,
    automation_id: &str,
    now: f64,
) -> rusqlite::Result<Option<HeldLease>> {
    tx.query_row(
        "SELECT run_id, node, expires_at, pid, proc_start FROM automation_locks
         WHERE automation_id = ?1",
        [automation_id],
        |row| {
            let expires_at: Option<f64> = row.get(2)?;
            let owner = Owner {
                pid: row.get(3)?,
                proc_start: row.get(4)?,
            };
            Ok(HeldLease {
                run_id: row.get(0)?,
                node: row
                    .get::<_, Option<String>>(1)?
                    .unwrap_or_else(|| owner.to_text()),
                // A lock taken without a lease is held while its process lives.
                live: expires_at.map_or_else(|| owner.is_alive(), |at| at > now),
            })
        },
    )
    .optional()
}

/// The run that took the event `event` for the automation `automation_id`, if one did.
fn event_taker(
    tx: &rusqlite::Transaction<'_>,
    automation_id: &str,
    event: &str,
) -> rusqlite::Result<Option<String>> {
    tx.query_row(
        "SELECT run_id FROM automation_events WHERE automation_id = ?1 AND event_id = ?2",
        params![automation_id, event],
        |row| row.get(0),
    )
    .optional()
}

/// Records that `run` took the event `event` for its automation at `at`; `false` when
/// another run took it already.
fn claim_event(
    tx: &rusqlite::Transaction<'_>,
    run: &AutomationRun,
    event: &str,
    at: f64,
) -> rusqlite::Result<bool> {
    let claimed = tx.execute(
        "INSERT INTO automation_events (automation_id, event_id, run_id, claimed_at)
         VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
        params![run.automation_id, event, run.id, at],
    )?;
    Ok(claimed == 1)
}
