//! [`RunStore`] on PostgreSQL: `automation_runs`, `automation_leases`,
//! `automation_periods` and `nodes` of the shared database.
//!
//! Every start takes one transaction-scoped advisory lock before it reads: the
//! concurrency cap is a count over every automation's leases, which no row lock can
//! guard (the row that would be locked is the one not yet inserted), and starts are
//! rare next to the runs they start, so serializing them costs nothing that matters. The
//! lock goes with the transaction: a node that dies mid-start holds nothing. Renewals,
//! ends and reads take no lock.

use std::collections::HashMap;
use std::path::PathBuf;

use postgres::Row;

use crate::automation_runs::{AutomationRun, RunStatus, json_value};
use crate::column::Named;
use crate::errors::StoreError;
use crate::owner::current_owner;
use crate::pg::PgStore;
use crate::run_store::{Engine, Gate, HeldLease, NodeInfo, RunStore, Start, refusal};

/// The key of the advisory lock every start takes ("hookrig" and 2).
const START_LOCK: i64 = 0x686f_6f6b_7269_6702;

const INSERT_RUN: &str = "
    INSERT INTO automation_runs (id, automation_id, project_id, trigger_reason, status,
        event_data, context_results, prompt_sent, llm_response, actions_taken, skipped_reason,
        tokens_used, started_at, completed_at, owner)";

const SELECT_RUN: &str = "
    SELECT id, automation_id, project_id, trigger_reason, status, event_data, context_results,
           prompt_sent, llm_response, actions_taken, skipped_reason, tokens_used, started_at,
           completed_at
    FROM automation_runs";

impl RunStore for PgStore {
    fn engine(&self) -> Engine {
        Engine::Postgres
    }

    fn start(&self, run: &AutomationRun, gate: &Gate<'_>) -> Result<Start, StoreError> {
        let owner = current_owner();
        let columns = Columns::of(run);
        self.client().with("start an automation run", |conn| {
            let mut tx = conn.transaction()?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&START_LOCK])?;
            let event_run = match gate.event {
                Some(event) => event_taker(&mut tx, &run.automation_id, event)?,
                None => None,
            };
            let held = tx
                .query_opt(
                    "SELECT run_id, node, expires_at FROM automation_leases WHERE automation_id = $1",
                    &[&run.automation_id],
                )?
                .map(|row| HeldLease {
                    run_id: row.get(0),
                    node: row.get(1),
                    live: row.get::<_, f64>(2) > gate.now,
                });
            let period_run = match gate.period {
                Some(period) => tx
                    .query_opt(
                        "SELECT run_id FROM automation_periods
                         WHERE automation_id = $1 AND period = $2",
                        &[&run.automation_id, &period],
                    )?
                    .map(|row| row.get(0)),
                None => None,
            };
            let last_start: Option<f64> = tx
                .query_one(
                    "SELECT max(started_at) FROM automation_runs
                     WHERE automation_id = $1 AND (status <> 'skipped' OR context_results IS NOT NULL)",
                    &[&run.automation_id],
                )?
                .get(0);
            let in_flight: i64 = tx
                .query_one(
                    "SELECT count(*) FROM automation_leases
                     WHERE automation_id <> $1 AND expires_at > $2",
                    &[&run.automation_id, &gate.now],
                )?
                .get(0);
            let in_flight = usize::try_from(in_flight).unwrap_or(usize::MAX);
            if let Some(refused) = refusal(
                gate,
                event_run,
                held.as_ref(),
                period_run,
                last_start,
                in_flight,
            ) {
                tx.rollback()?;
                return Ok(refused);
            }
            if let Some(held) = held {
                // Its node stopped renewing the lease: the run is over.
                tx.execute(
                    "UPDATE automation_runs SET status = 'interrupted', completed_at = $2
                     WHERE id = $1 AND status = 'running'",
                    &[&held.run_id, &gate.now],
                )?;
            }
            tx.execute(
                &format!("{INSERT_RUN} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"),
                &columns.params(run, &owner),
            )?;
            tx.execute(
                "INSERT INTO automation_leases (automation_id, run_id, node, acquired_at, expires_at)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (automation_id) DO UPDATE SET run_id = excluded.run_id,
                     node = excluded.node, acquired_at = excluded.acquired_at,
                     expires_at = excluded.expires_at",
                &[
                    &run.automation_id,
                    &run.id,
                    &gate.node,
                    &gate.now,
                    &(gate.now + gate.lease_seconds),
                ],
            )?;
            if let Some(period) = gate.period {
                tx.execute(
                    "INSERT INTO automation_periods (automation_id, period, run_id)
                     VALUES ($1, $2, $3)",
                    &[&run.automation_id, &period, &run.id],
                )?;
            }
            if let Some(event) = gate.event {
                claim_event(&mut tx, run, event, gate.now)?;
            }
            tx.commit()?;
            Ok(Start::Started)
        })
    }

    fn finish(&self, run: &AutomationRun) -> Result<(), StoreError> {
        let columns = Columns::of(run);
        let changed = self.client().with("finish an automation run", |conn| {
            let mut tx = conn.transaction()?;
            let changed = tx.execute(
                "UPDATE automation_runs SET automation_id = $2, project_id = $3,
                     trigger_reason = $4, status = $5, event_data = $6, context_results = $7,
                     prompt_sent = $8, llm_response = $9, actions_taken = $10,
                     skipped_reason = $11, tokens_used = $12, started_at = $13,
                     completed_at = $14
                 WHERE id = $1",
                &[
                    &run.id,
                    &run.automation_id,
                    &run.project_id,
                    &run.trigger_reason,
                    status_param(run.status),
                    &columns.event_data,
                    &columns.context_results,
                    &run.prompt_sent,
                    &run.llm_response,
                    &columns.actions_taken,
                    &run.skipped_reason,
                    &run.tokens_used,
                    &run.started_at,
                    &run.completed_at,
                ],
            )?;
            tx.execute(
                "DELETE FROM automation_leases WHERE run_id = $1",
                &[&run.id],
            )?;
            tx.commit()?;
            Ok(changed)
        })?;
        if changed == 0 {
            return Err(StoreError::UnknownRunId {
                run_id: run.id.clone(),
            });
        }
        Ok(())
    }

    fn record(&self, run: &AutomationRun) -> Result<(), StoreError> {
        let owner = current_owner();
        let columns = Columns::of(run);
        self.client().with("record an automation run", |conn| {
            conn.execute(
                &format!("{INSERT_RUN} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"),
                &columns.params(run, &owner),
            )
        })?;
        Ok(())
    }

    fn record_dropped(&self, run: &AutomationRun, event: &str) -> Result<bool, StoreError> {
        let owner = current_owner();
        let columns = Columns::of(run);
        self.client().with("record an event not run", |conn| {
            let mut tx = conn.transaction()?;
            // The lock of starts: a start reads the claims under it, so a claim written
            // here is either seen by a start or made after it (and then refused).
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&START_LOCK])?;
            if !claim_event(&mut tx, run, event, run.started_at)? {
                tx.rollback()?;
                return Ok(false);
            }
            tx.execute(
                &format!("{INSERT_RUN} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"),
                &columns.params(run, &owner),
            )?;
            tx.commit()?;
            Ok(true)
        })
    }

    fn forget_events(&self, before: f64) -> Result<usize, StoreError> {
        let forgotten = self.client().with("forget old events", |conn| {
            let mut tx = conn.transaction()?;
            let forgotten = tx.execute(
                "DELETE FROM automation_events WHERE claimed_at < $1",
                &[&before],
            )?;
            tx.execute("DELETE FROM events WHERE sent_at < $1", &[&before])?;
            tx.commit()?;
            Ok(forgotten)
        })?;
        Ok(usize::try_from(forgotten).unwrap_or(usize::MAX))
    }

    fn set_actions(&self, id: &str, actions: &serde_json::Value) -> Result<(), StoreError> {
        let actions = actions.to_string();
        let changed = self
            .client()
            .with("record the tool calls of an automation run", |conn| {
                conn.execute(
                    "UPDATE automation_runs SET actions_taken = $2 WHERE id = $1",
                    &[&id, &actions],
                )
            })?;
        if changed == 0 {
            return Err(StoreError::UnknownRunId {
                run_id: id.to_owned(),
            });
        }
        Ok(())
    }

    fn interrupt(&self, ids: &[String], now: f64) -> Result<usize, StoreError> {
        let marked = self.client().with("mark interrupted runs", |conn| {
            let mut tx = conn.transaction()?;
            let marked = tx.execute(
                "UPDATE automation_runs SET status = 'interrupted', completed_at = $2
                 WHERE id = ANY($1) AND status = 'running'",
                &[&ids, &now],
            )?;
            tx.execute(
                "DELETE FROM automation_leases WHERE run_id = ANY($1)",
                &[&ids],
            )?;
            tx.commit()?;
            Ok(marked)
        })?;
        Ok(usize::try_from(marked).unwrap_or(usize::MAX))
    }

    fn run(&self, id: &str) -> Result<Option<AutomationRun>, StoreError> {
        let row = self.client().with("read an automation run", |conn| {
            conn.query_opt(&format!("{SELECT_RUN} WHERE id = $1"), &[&id])
        })?;
        row.map(|row| self.run_from_row(&row)).transpose()
    }

    fn runs(
        &self,
        automation_id: Option<&str>,
        limit: usize,
    ) -> Result<Vec<AutomationRun>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.client().with("list automation runs", |conn| {
            conn.query(
                &format!(
                    "{SELECT_RUN} WHERE $1::text IS NULL OR automation_id = $1
                     ORDER BY started_at DESC, seq DESC LIMIT $2"
                ),
                &[&automation_id, &limit],
            )
        })?;
        rows.iter().map(|row| self.run_from_row(row)).collect()
    }

    fn last_starts(&self) -> Result<HashMap<String, f64>, StoreError> {
        let rows = self
            .client()
            .with("read the last automation runs", |conn| {
                conn.query(
                    // An event that was not run is no run (as on SQLite).
                    "SELECT automation_id, max(started_at) FROM automation_runs
                 WHERE status <> 'skipped' OR context_results IS NOT NULL
                 GROUP BY automation_id",
                    &[],
                )
            })?;
        Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
    }

    fn heartbeat(&self, node: &NodeInfo, lease_seconds: f64) -> Result<usize, StoreError> {
        let held = self.client().with("record a node's heartbeat", |conn| {
            let mut tx = conn.transaction()?;
            tx.execute(
                "INSERT INTO nodes (id, host, pid, started_at, heartbeat_at)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
                &[
                    &node.id,
                    &node.host,
                    &node.pid,
                    &node.started_at,
                    &node.heartbeat_at,
                ],
            )?;
            let held = tx.execute(
                "UPDATE automation_leases SET expires_at = $2 WHERE node = $1",
                &[&node.id, &(node.heartbeat_at + lease_seconds)],
            )?;
            tx.commit()?;
            Ok(held)
        })?;
        Ok(usize::try_from(held).unwrap_or(usize::MAX))
    }

    fn interrupt_expired(&self, now: f64) -> Result<Vec<String>, StoreError> {
        self.client()
            .with("mark the runs of expired leases interrupted", |conn| {
                let mut tx = conn.transaction()?;
                // Deleting returns the leases: two nodes sweeping at once each get
                // the ones they removed, so a run is marked once.
                let expired: Vec<String> = tx
                    .query(
                        "DELETE FROM automation_leases WHERE expires_at <= $1 RETURNING run_id",
                        &[&now],
                    )?
                    .iter()
                    .map(|row| row.get(0))
                    .collect();
                tx.execute(
                    "UPDATE automation_runs SET status = 'interrupted', completed_at = $2
                     WHERE id = ANY($1) AND status = 'running'",
                    &[&expired, &now],
                )?;
                tx.commit()?;
                Ok(expired)
            })
            .map(|mut expired| {
                expired.sort();
                expired
            })
    }

    fn status(&self) -> Result<crate::StoreStatus, StoreError> {
        self.postgres_status()
    }

    fn nodes(&self) -> Result<Vec<NodeInfo>, StoreError> {
        let rows = self.client().with("list the nodes", |conn| {
            conn.query(
                "SELECT id, host, pid, started_at, heartbeat_at FROM nodes
                 ORDER BY heartbeat_at DESC, id",
                &[],
            )
        })?;
        Ok(rows
            .iter()
            .map(|row| NodeInfo {
                id: row.get(0),
                host: row.get(1),
                pid: row.get(2),
                started_at: row.get(3),
                heartbeat_at: row.get(4),
            })
            .collect())
    }
}

impl PgStore {
    fn run_from_row(&self, row: &Row) -> Result<AutomationRun, StoreError> {
        let status: String = row.get(4);
        let status = RunStatus::from_name(&status).ok_or_else(|| StoreError::UnknownValue {
            path: PathBuf::from(self.database()),
            column: "automation_runs.status".to_owned(),
            kind: RunStatus::KIND,
            value: status.clone(),
        })?;
        Ok(AutomationRun {
            id: row.get(0),
            automation_id: row.get(1),
            project_id: row.get(2),
            trigger_reason: row.get(3),
            status,
            event_data: json_value(row.get(5)),
            context_results: json_value(row.get(6)),
            prompt_sent: row.get(7),
            llm_response: row.get(8),
            actions_taken: json_value(row.get(9)),
            skipped_reason: row.get(10),
            tokens_used: row.get(11),
            started_at: row.get(12),
            completed_at: row.get(13),
        })
    }
}

/// The run that took the event `event` for the automation `automation_id`, if one did.
fn event_taker(
    tx: &mut postgres::Transaction<'_>,
    automation_id: &str,
    event: &str,
) -> Result<Option<String>, postgres::Error> {
    Ok(tx
        .query_opt(
            "SELECT run_id FROM automation_events WHERE automation_id = $1 AND event_id = $2",
            &[&automation_id, &event],
        )?
        .map(|row| row.get(0)))
}

/// Records that `run` took the event `event` for its automation at `at`; `false` when
/// another run took it already.
fn claim_event(
    tx: &mut postgres::Transaction<'_>,
    run: &AutomationRun,
    event: &str,
    at: f64,
) -> Result<bool, postgres::Error> {
    let claimed = tx.execute(
        "INSERT INTO automation_events (automation_id, event_id, run_id, claimed_at)
         VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        &[&run.automation_id, &event, &run.id, &at],
    )?;
    Ok(claimed == 1)
}

/// The names of the statuses, where a query parameter can borrow them for as long as
/// it needs.
static STATUS_NAMES: [&str; 5] = [
    RunStatus::ALL[0].as_str(),
    RunStatus::ALL[1].as_str(),
    RunStatus::ALL[2].as_str(),
    RunStatus::ALL[3].as_str(),
    RunStatus::ALL[4].as_str(),
];

/// `status` as a query parameter (the `status` column is text).
fn status_param(status: RunStatus) -> &'static (dyn postgres::types::ToSql + Sync) {
    let index = RunStatus::ALL
        .iter()
        .position(|s| *s == status)
        .expect("RunStatus::ALL lists every status");
    &STATUS_NAMES[index]
}

/// The JSON columns of a run as the text they hold.
struct Columns {
    event_data: Option<String>,
    context_results: Option<String>,
    actions_taken: Option<String>,
}

impl Columns {
    /// The parameters of [`INSERT_RUN`], in its order.
    fn params<'a>(
        &'a self,
        run: &'a AutomationRun,
        owner: &'a String,
    ) -> [&'a (dyn postgres::types::ToSql + Sync); 15] {
        [
            &run.id,
            &run.automation_id,
            &run.project_id,
            &run.trigger_reason,
            status_param(run.status),
            &self.event_data,
            &self.context_results,
            &run.prompt_sent,
            &run.llm_response,
            &self.actions_taken,
            &run.skipped_reason,
            &run.tokens_used,
            &run.started_at,
            &run.completed_at,
            owner,
        ]
    }

    fn of(run: &AutomationRun) -> Columns {
        let text = |value: &Option<serde_json::Value>| value.as_ref().map(ToString::to_string);
        Columns {
            event_data: text(&run.event_data),
            context_results: text(&run.context_results),
            actions_taken: text(&run.actions_taken),
        }
    }
}
