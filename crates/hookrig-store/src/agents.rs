//! Agents started by `hookrig agent spawn`: which provider runs which task in which
//! worktree, under which pid, and how it ended.
//!
//! One row per worktree, in the ledger's file (table `agents`). `spawn` writes the row
//! before the provider starts; the process that waits for the provider fills in the pid
//! and, later, the exit; `stop` records when it stopped the agent.
//!
//! [`AgentStore`] is the same on either engine. A worktree's path is unique on one
//! machine only, so the PostgreSQL store several machines share keys each row by the
//! machine too ([`AgentRow::host`]); the SQLite file is one machine's, and its rows read
//! as this machine's.

use rusqlite::{OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use crate::clock::now_ms;
use crate::errors::StoreError;
use crate::owner::host_name;
use crate::store::Store;

/// One agent, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentRow {
    /// The machine the agent runs on: its host name, as the shared store's rows name
    /// their processes' machine (`PID:START@HOST`). With the worktree, the row's key.
    /// The SQLite file is one machine's: its rows read as this machine's, whatever was
    /// written here.
    #[serde(default)]
    pub host: String,
    /// The worktree the agent runs in, absolute: the row's key on its machine.
    pub worktree: String,
    /// The repository root the worktree belongs to.
    pub repo: String,
    /// The task's name.
    pub task: String,
    /// The plan file, absolute.
    pub plan: String,
    /// The agent's name.
    pub agent: String,
    /// The provider's id.
    pub provider: String,
    /// The worktree's branch (`task/<task>`).
    pub branch: String,
    /// The log of the provider's output.
    pub log: String,
    /// The provider's pid, which is also its process group; `None` until it started.
    pub pid: Option<i64>,
    /// The kernel's start time of `pid` (clock ticks since boot), when known.
    pub proc_start: Option<i64>,
    /// When `spawn` started it, in milliseconds since the Unix epoch.
    pub started_at_ms: i64,
    /// Its exit code, once it exited normally.
    pub exit_code: Option<i64>,
    /// The signal that ended it, once a signal did.
    pub exit_signal: Option<i64>,
    /// When it ended, in milliseconds since the Unix epoch.
    pub ended_at_ms: Option<i64>,
    /// When `hookrig agent stop` stopped it.
    pub stopped_at_ms: Option<i64>,
}

const SELECT_AGENT: &str = "
    SELECT worktree, repo, task, plan, agent, provider, branch, log, pid, proc_start,
           started_at, exit_code, exit_signal, ended_at, stopped_at
    FROM agents";

/// The agents `hookrig agent spawn` started, on either engine. A worktree names this
/// machine's agent in it: what acts on an agent's process acts on this machine's only,
/// and another machine's agent is only listed.
pub trait AgentStore {
    /// Records a newly spawned agent, replacing any earlier row of its machine and
    /// worktree.
    fn record(&self, agent: &AgentRow) -> Result<(), StoreError>;

    /// Sets the pid (and its start time) of this machine's agent in `worktree`.
    fn set_pid(&self, worktree: &str, pid: i64, proc_start: Option<i64>) -> Result<(), StoreError>;

    /// Records how this machine's agent in `worktree` ended: an exit code or a signal.
    fn set_exit(
        &self,
        worktree: &str,
        exit_code: Option<i64>,
        exit_signal: Option<i64>,
    ) -> Result<(), StoreError>;

    /// Records that `hookrig agent stop` stopped this machine's agent in `worktree`.
    fn set_stopped(&self, worktree: &str) -> Result<(), StoreError>;

    /// Forgets this machine's agent in `worktree` (its worktree was removed).
    fn delete(&self, worktree: &str) -> Result<(), StoreError>;

    /// This machine's agent in `worktree`, if any.
    fn get(&self, worktree: &str) -> Result<Option<AgentRow>, StoreError>;

    /// Every agent of every machine, oldest first.
    fn list(&self) -> Result<Vec<AgentRow>, StoreError>;
}

impl AgentStore for Agents<'_> {
    fn record(&self, agent: &AgentRow) -> Result<(), StoreError> {
        Agents::record(self, agent)
    }

    fn set_pid(&self, worktree: &str, pid: i64, proc_start: Option<i64>) -> Result<(), StoreError> {
        Agents::set_pid(self, worktree, pid, proc_start)
    }

    fn set_exit(
        &self,
        worktree: &str,
        exit_code: Option<i64>,
        exit_signal: Option<i64>,
    ) -> Result<(), StoreError> {
        Agents::set_exit(self, worktree, exit_code, exit_signal)
    }

    fn set_stopped(&self, worktree: &str) -> Result<(), StoreError> {
        Agents::set_stopped(self, worktree)
    }

    fn delete(&self, worktree: &str) -> Result<(), StoreError> {
        Agents::delete(self, worktree)
    }

    fn get(&self, worktree: &str) -> Result<Option<AgentRow>, StoreError> {
        Agents::get(self, worktree)
    }

    fn list(&self) -> Result<Vec<AgentRow>, StoreError> {
        Agents::list(self)
    }
}

/// Where the agents are recorded: this machine's SQLite store, or the PostgreSQL store
/// several machines share.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AgentsAt {
    /// The SQLite store of the ledger at this path (the agents are in its work file).
    Sqlite(std::path::PathBuf),
    /// The URL of a PostgreSQL database.
    Postgres(String),
}

/// The store the agents were opened in ([`AgentsAt::open`]).
#[derive(Debug)]
pub enum AgentRecords {
    /// This machine's SQLite store.
    Sqlite(Store),
    /// The PostgreSQL store several machines share.
    Postgres(Box<crate::pg::PgStore>),
}

impl AgentsAt {
    /// Opens the store that records the agents (creating or migrating its schema).
    pub fn open(&self) -> Result<AgentRecords, StoreError> {
        Ok(match self {
            AgentsAt::Sqlite(path) => AgentRecords::Sqlite(Store::open(path)?),
            AgentsAt::Postgres(url) => {
                AgentRecords::Postgres(Box::new(crate::pg::PgStore::open(url)?))
            }
        })
    }

    /// Whether several machines share it: its rows may be other machines' agents.
    pub fn is_shared(&self) -> bool {
        matches!(self, AgentsAt::Postgres(_))
    }
}

impl AgentRecords {
    /// The agents, on the store's engine.
    pub fn agents(&self) -> Box<dyn AgentStore + '_> {
        match self {
            AgentRecords::Sqlite(store) => Box::new(store.agents()),
            AgentRecords::Postgres(store) => Box::new(store.agents()),
        }
    }
}

/// The `agents` table of a [`Store`].
#[derive(Debug, Clone, Copy)]
pub struct Agents<'s> {
    store: &'s Store,
}

impl<'s> Agents<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Records a newly spawned agent, replacing any earlier row of its worktree.
    pub fn record(&self, agent: &AgentRow) -> Result<(), StoreError> {
        self.store
            .conn()
            .execute(
                "INSERT OR REPLACE INTO agents (worktree, repo, task, plan, agent, provider,
                     branch, log, pid, proc_start, started_at, exit_code, exit_signal,
                     ended_at, stopped_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
                params![
                    agent.worktree,
                    agent.repo,
                    agent.task,
                    agent.plan,
                    agent.agent,
                    agent.provider,
                    agent.branch,
                    agent.log,
                    agent.pid,
                    agent.proc_start,
                    agent.started_at_ms,
                    agent.exit_code,
                    agent.exit_signal,
                    agent.ended_at_ms,
                    agent.stopped_at_ms
                ],
            )
            .map(drop)
            .map_err(self.store.fail("record an agent"))
    }

    /// Sets the pid (and its start time) of the agent in `worktree`.
    pub fn set_pid(
        &self,
        worktree: &str,
        pid: i64,
        proc_start: Option<i64>,
    ) -> Result<(), StoreError> {
        self.store
            .conn()
            .execute(
                "UPDATE agents SET pid = ?2, proc_start = ?3 WHERE worktree = ?1",
                params![worktree, pid, proc_start],
            )
            .map(drop)
            .map_err(self.store.fail("record an agent's pid"))
    }

    /// Records how the agent in `worktree` ended: an exit code or a signal.
    pub fn set_exit(
        &self,
        worktree: &str,
        exit_code: Option<i64>,
        exit_signal: Option<i64>,
    ) -> Result<(), StoreError> {
        self.store
            .conn()
            .execute(
                "UPDATE agents SET exit_code = ?2, exit_signal = ?3, ended_at = ?4
                 WHERE worktree = ?1",
                params![worktree, exit_code, exit_signal, now_ms()],
            )
            .map(drop)
            .map_err(self.store.fail("record an agent's exit"))
    }

    /// Records that `hookrig agent stop` stopped the agent in `worktree`.
    pub fn set_stopped(&self, worktree: &str) -> Result<(), StoreError> {
        self.store
            .conn()
            .execute(
                "UPDATE agents SET stopped_at = ?2 WHERE worktree = ?1",
                params![worktree, now_ms()],
            )
            .map(drop)
            .map_err(self.store.fail("record an agent's stop"))
    }

    /// Forgets the agent in `worktree` (its worktree was removed).
    pub fn delete(&self, worktree: &str) -> Result<(), StoreError> {
        self.store
            .conn()
            .execute("DELETE FROM agents WHERE worktree = ?1", [worktree])
            .map(drop)
            .map_err(self.store.fail("delete an agent"))
    }

    /// The agent in `worktree`, if any.
    pub fn get(&self, worktree: &str) -> Result<Option<AgentRow>, StoreError> {
        self.store
            .conn()
            .query_row(
                &format!("{SELECT_AGENT} WHERE worktree = ?1"),
                [worktree],
                agent_from_row,
            )
            .optional()
            .map_err(self.store.fail("read an agent"))
    }

    /// Every agent, oldest first.
    pub fn list(&self) -> Result<Vec<AgentRow>, StoreError> {
        let conn = self.store.conn();
        conn.prepare(&format!("{SELECT_AGENT} ORDER BY started_at, worktree"))
            .and_then(|mut stmt| stmt.query_map([], agent_from_row)?.collect())
            .map_err(self.store.fail("list agents"))
    }
}

fn agent_from_row(row: &Row<'_>) -> rusqlite::Result<AgentRow> {
    Ok(AgentRow {
        host: host_name(),
        worktree: row.get(0)?,
        repo: row.get(1)?,
        task: row.get(2)?,
        plan: row.get(3)?,
        agent: row.get(4)?,
        provider: row.get(5)?,
        branch: row.get(6)?,
        log: row.get(7)?,
        pid: row.get(8)?,
        proc_start: row.get(9)?,
        started_at_ms: row.get(10)?,
        exit_code: row.get(11)?,
        exit_signal: row.get(12)?,
        ended_at_ms: row.get(13)?,
        stopped_at_ms: row.get(14)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(worktree: &str) -> AgentRow {
        AgentRow {
            host: host_name(),
            worktree: worktree.to_owned(),
            repo: "/r".to_owned(),
            task: "api".to_owned(),
            plan: "/r/plan.spl".to_owned(),
            agent: "coder".to_owned(),
            provider: "claude".to_owned(),
            branch: "task/api".to_owned(),
            log: "/r/.hookrig/worktrees/api.log".to_owned(),
            pid: None,
            proc_start: None,
            started_at_ms: 1_000,
            exit_code: None,
            exit_signal: None,
            ended_at_ms: None,
            stopped_at_ms: None,
        }
    }

    #[test]
    fn an_agent_round_trips_through_its_life() {
        let dir = tempfile::tempdir().expect("temp dir");
        let ledger = Store::open(&dir.path().join("ledger.db")).expect("open");
        ledger.agents().record(&row("/r/w")).expect("record");
        ledger.agents().set_pid("/r/w", 42, Some(7)).expect("pid");
        ledger.agents().set_stopped("/r/w").expect("stop");
        ledger
            .agents()
            .set_exit("/r/w", None, Some(15))
            .expect("exit");
        let got = ledger.agents().get("/r/w").expect("read").expect("a row");
        assert_eq!((got.pid, got.proc_start), (Some(42), Some(7)));
        assert_eq!((got.exit_code, got.exit_signal), (None, Some(15)));
        assert!(got.ended_at_ms.is_some() && got.stopped_at_ms.is_some());

        // Spawning again in the same worktree replaces the row.
        ledger.agents().record(&row("/r/w")).expect("record again");
        assert_eq!(ledger.agents().list().expect("list"), [row("/r/w")]);
        ledger.agents().delete("/r/w").expect("delete");
        assert!(ledger.agents().get("/r/w").expect("read").is_none());
    }
}
