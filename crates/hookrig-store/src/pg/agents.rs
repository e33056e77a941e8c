//! [`AgentStore`] on PostgreSQL: `agents` of the shared database, one row per machine
//! and worktree, the columns of the SQLite file's with the machine's host name first.

use crate::agents::{AgentRow, AgentStore};
use crate::clock::now_ms;
use crate::errors::StoreError;
use crate::owner::host_name;
use crate::pg::PgStore;

const SELECT_AGENT: &str = "
    SELECT host, worktree, repo, task, plan, agent, provider, branch, log, pid, proc_start,
           started_at, exit_code, exit_signal, ended_at, stopped_at
    FROM agents";

/// The `agents` table of a [`PgStore`] ([`PgStore::agents`]). What names a worktree acts
/// on this machine's row of it.
#[derive(Debug, Clone)]
pub struct PgAgents<'s> {
    store: &'s PgStore,
    /// This machine, as its rows name it.
    host: String,
}

impl PgStore {
    /// The agents of every machine, in the database.
    pub fn agents(&self) -> PgAgents<'_> {
        PgAgents {
            store: self,
            host: host_name(),
        }
    }
}

impl PgAgents<'_> {
    /// Runs one statement on this machine's row of `worktree`, whose first parameters
    /// are the host and the worktree.
    fn update(
        &self,
        action: &'static str,
        sql: &str,
        worktree: &str,
        rest: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<(), StoreError> {
        let params: Vec<&(dyn postgres::types::ToSql + Sync)> = [
            &self.host as &(dyn postgres::types::ToSql + Sync),
            &worktree,
        ]
        .into_iter()
        .chain(rest.iter().copied())
        .collect();
        self.store
            .client()
            .with(action, |conn| conn.execute(sql, &params))
            .map(drop)
    }
}

impl AgentStore for PgAgents<'_> {
    fn record(&self, agent: &AgentRow) -> Result<(), StoreError> {
        self.store.client().with("record an agent", |conn| {
            conn.execute(
                "INSERT INTO agents (host, worktree, repo, task, plan, agent, provider,
                     branch, log, pid, proc_start, started_at, exit_code, exit_signal,
                     ended_at, stopped_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
                 ON CONFLICT (host, worktree) DO UPDATE SET
                     repo = EXCLUDED.repo, task = EXCLUDED.task, plan = EXCLUDED.plan,
                     agent = EXCLUDED.agent, provider = EXCLUDED.provider,
                     branch = EXCLUDED.branch, log = EXCLUDED.log, pid = EXCLUDED.pid,
                     proc_start = EXCLUDED.proc_start, started_at = EXCLUDED.started_at,
                     exit_code = EXCLUDED.exit_code, exit_signal = EXCLUDED.exit_signal,
                     ended_at = EXCLUDED.ended_at, stopped_at = EXCLUDED.stopped_at",
                &[
                    &agent.host,
                    &agent.worktree,
                    &agent.repo,
                    &agent.task,
                    &agent.plan,
                    &agent.agent,
                    &agent.provider,
                    &agent.branch,
                    &agent.log,
                    &agent.pid,
                    &agent.proc_start,
                    &agent.started_at_ms,
                    &agent.exit_code,
                    &agent.exit_signal,
                    &agent.ended_at_ms,
                    &agent.stopped_at_ms,
                ],
            )
        })?;
        Ok(())
    }

    fn set_pid(&self, worktree: &str, pid: i64, proc_start: Option<i64>) -> Result<(), StoreError> {
        self.update(
            "record an agent's pid",
            "UPDATE agents SET pid = $3, proc_start = $4 WHERE host = $1 AND worktree = $2",
            worktree,
            &[&pid, &proc_start],
        )
    }

    fn set_exit(
        &self,
        worktree: &str,
        exit_code: Option<i64>,
        exit_signal: Option<i64>,
    ) -> Result<(), StoreError> {
        self.update(
            "record an agent's exit",
            "UPDATE agents SET exit_code = $3, exit_signal = $4, ended_at = $5
             WHERE host = $1 AND worktree = $2",
            worktree,
            &[&exit_code, &exit_signal, &now_ms()],
        )
    }

    fn set_stopped(&self, worktree: &str) -> Result<(), StoreError> {
        self.update(
            "record an agent's stop",
            "UPDATE agents SET stopped_at = $3 WHERE host = $1 AND worktree = $2",
            worktree,
            &[&now_ms()],
        )
    }

    fn delete(&self, worktree: &str) -> Result<(), StoreError> {
        self.update(
            "delete an agent",
            "DELETE FROM agents WHERE host = $1 AND worktree = $2",
            worktree,
            &[],
        )
    }

    fn get(&self, worktree: &str) -> Result<Option<AgentRow>, StoreError> {
        let sql = format!("{SELECT_AGENT} WHERE host = $1 AND worktree = $2");
        let row = self.store.client().with("read an agent", |conn| {
            conn.query_opt(&sql, &[&self.host, &worktree])
        })?;
        Ok(row.as_ref().map(agent_from_row))
    }

    fn list(&self) -> Result<Vec<AgentRow>, StoreError> {
        let sql = format!("{SELECT_AGENT} ORDER BY started_at, host, worktree");
        let rows = self
            .store
            .client()
            .with("list agents", |conn| conn.query(&sql, &[]))?;
        Ok(rows.iter().map(agent_from_row).collect())
    }
}

fn agent_from_row(row: &postgres::Row) -> AgentRow {
    AgentRow {
        host: row.get(0),
        worktree: row.get(1),
        repo: row.get(2),
        task: row.get(3),
        plan: row.get(4),
        agent: row.get(5),
        provider: row.get(6),
        branch: row.get(7),
        log: row.get(8),
        pid: row.get(9),
        proc_start: row.get(10),
        started_at_ms: row.get(11),
        exit_code: row.get(12),
        exit_signal: row.get(13),
        ended_at_ms: row.get(14),
        stopped_at_ms: row.get(15),
    }
}
