//! Which process runs an automation now (`automation_locks`): every process that runs
//! automations on the store (`hookrig serve`, an in-process `hookrig fire`) takes the
//! lock of an automation before a run starts and releases it when the run ends, so one
//! automation never runs twice at once. A lock left by a process that died is taken
//! over (see `owner.rs`).

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::errors::StoreError;
use crate::owner::Owner;
use crate::store::{Store, immediate};

/// Who runs an automation now: the holder of its lock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AutomationLock {
    /// The automation.
    pub automation_id: String,
    /// The run in flight.
    pub run_id: String,
    /// The process running it.
    pub pid: i64,
    /// The kernel's start time of that pid, where known.
    pub proc_start: Option<i64>,
    /// When the lock was taken (Unix seconds).
    pub acquired_at: f64,
}

/// The `automation_locks` table of a [`Store`].
#[derive(Debug, Clone, Copy)]
pub struct AutomationLocks<'s> {
    store: &'s Store,
}

impl<'s> AutomationLocks<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Takes the lock of the automation `automation_id` for the run `run_id` of this
    /// process: `Ok(None)` when taken, `Ok(Some(holder))` when another run holds it (of
    /// a process that still runs; a lock left by a process that died is taken over).
    ///
    /// Every process that runs automations on this ledger (`hookrig serve`, an
    /// in-process `hookrig fire`) takes the lock before a run starts and releases it
    /// when the run ends, so one automation never runs twice at once.
    pub fn acquire(
        &self,
        automation_id: &str,
        run_id: &str,
        now: f64,
    ) -> Result<Option<AutomationLock>, StoreError> {
        let fail = self.store.fail("lock an automation");
        let me = Owner::current();
        // IMMEDIATE: the look and the write are one step for every other process.
        let tx = immediate(self.store.conn()).map_err(fail)?;
        let held = tx
            .query_row(
                "SELECT automation_id, run_id, pid, proc_start, acquired_at
                 FROM automation_locks WHERE automation_id = ?1",
                [automation_id],
                |row| {
                    Ok(AutomationLock {
                        automation_id: row.get(0)?,
                        run_id: row.get(1)?,
                        pid: row.get(2)?,
                        proc_start: row.get(3)?,
                        acquired_at: row.get(4)?,
                    })
                },
            )
            .optional()
            .map_err(fail)?;
        if let Some(held) = held {
            let owner = Owner {
                pid: held.pid,
                proc_start: held.proc_start,
            };
            if owner.is_alive() {
                return Ok(Some(held));
            }
        }
        tx.execute(
            "INSERT INTO automation_locks (automation_id, run_id, pid, proc_start, acquired_at)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (automation_id) DO UPDATE SET run_id = excluded.run_id,
                 pid = excluded.pid, proc_start = excluded.proc_start,
                 acquired_at = excluded.acquired_at",
            params![automation_id, run_id, me.pid, me.proc_start, now],
        )
        .map_err(fail)?;
        tx.commit().map_err(fail)?;
        Ok(None)
    }

    /// Releases the lock of `automation_id` if the run `run_id` holds it.
    pub fn release(&self, automation_id: &str, run_id: &str) -> Result<(), StoreError> {
        self.store
            .conn()
            .execute(
                "DELETE FROM automation_locks WHERE automation_id = ?1 AND run_id = ?2",
                [automation_id, run_id],
            )
            .map(drop)
            .map_err(self.store.fail("unlock an automation"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automations::tests::automation;

    fn open_temp() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("ledger.db")).expect("open");
        (dir, store)
    }

    // guards: two processes on one ledger must not run one automation at once, and a
    // lock left by a process that died must not block it forever
    #[test]
    fn the_lock_is_held_by_one_live_run_at_a_time() {
        let (_dir, ledger) = open_temp();
        ledger
            .automations()
            .upsert(&automation("a", 1.0))
            .expect("add");
        assert_eq!(
            ledger
                .automation_locks()
                .acquire("a", "r1", 1.0)
                .expect("lock"),
            None
        );
        let held = ledger
            .automation_locks()
            .acquire("a", "r2", 2.0)
            .expect("lock")
            .expect("held by r1");
        assert_eq!(held.run_id, "r1");
        assert_eq!(held.pid, i64::from(std::process::id()));
        // Releasing another run's lock does nothing.
        ledger
            .automation_locks()
            .release("a", "r2")
            .expect("unlock");
        assert!(
            ledger
                .automation_locks()
                .acquire("a", "r2", 2.0)
                .expect("lock")
                .is_some()
        );
        ledger
            .automation_locks()
            .release("a", "r1")
            .expect("unlock");
        assert_eq!(
            ledger
                .automation_locks()
                .acquire("a", "r2", 3.0)
                .expect("lock"),
            None
        );

        // A lock whose process has exited is taken over.
        let mut child = std::process::Command::new("true").spawn().expect("spawn");
        let dead = i64::from(child.id());
        child.wait().expect("reaped");
        ledger
            .conn()
            .execute(
                "UPDATE automation_locks SET pid = ?1, run_id = 'old' WHERE automation_id = 'a'",
                [dead],
            )
            .expect("forge a dead owner");
        assert_eq!(
            ledger
                .automation_locks()
                .acquire("a", "r3", 4.0)
                .expect("lock"),
            None
        );
        let again = ledger
            .automation_locks()
            .acquire("a", "r4", 5.0)
            .expect("lock");
        assert_eq!(again.map(|l| l.run_id).as_deref(), Some("r3"));
    }
}
