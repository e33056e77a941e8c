//! The automations a node of a shared store runs (docs/postgres.md, "The
//! automations"): the definitions of the database's `automations`, which the operator's
//! `hookrig auto ... --store` writes and every node reads, and beside them the node's
//! own store's (its trusted project files, what `hookrig auto add` without `--store`
//! stored) for the ids the database does not define.
//!
//! The database's rows are read again when its revision moved, which the engine checks
//! once per tick: one short query, and the whole table only after a change. So an
//! `auto disable` on any node stops every node from its next tick on, and events use
//! the definitions as the last tick read them.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hookrig_store::{AutomationRow, AutomationStore, PgStore, StoreError};

/// The shared definitions, as last read.
pub struct SharedDefinitions {
    store: Arc<PgStore>,
    read: Mutex<Read>,
}

/// What was read, and at which revision (`None` before the first read).
#[derive(Default)]
struct Read {
    revision: Option<i64>,
    rows: Vec<AutomationRow>,
}

impl SharedDefinitions {
    /// The definitions of `store`'s `automations`, read at the first
    /// [`SharedDefinitions::refresh`].
    pub fn new(store: Arc<PgStore>) -> SharedDefinitions {
        SharedDefinitions {
            store,
            read: Mutex::new(Read::default()),
        }
    }

    /// Reads the rows again if the table changed since they were read; returns whether
    /// it did. A failure keeps the rows read last: the database may be gone for a
    /// moment, and every start is refused meanwhile anyway (it is decided there).
    pub fn refresh(&self) -> Result<bool, StoreError> {
        let automations = self.store.automations();
        // The revision first: rows read after it are at least as new as it says.
        let revision = automations.revision()?;
        if self.read().revision == Some(revision) {
            return Ok(false);
        }
        let rows = automations.list(false)?;
        *self.read() = Read {
            revision: Some(revision),
            rows,
        };
        Ok(true)
    }

    /// The automations the engine may run: the shared ones enabled and not held, then
    /// those of `local` (the node's own runnable ones) whose id the database does not
    /// define. An id the database defines is its row's alone, in whatever state: an
    /// automation the operator disabled there must not run from a node's own copy.
    pub fn runnable(&self, local: Vec<AutomationRow>) -> Vec<AutomationRow> {
        let read = self.read();
        let shared: HashSet<&str> = read.rows.iter().map(|row| row.id.as_str()).collect();
        let mut rows: Vec<AutomationRow> = read
            .rows
            .iter()
            .filter(|row| row.enabled && row.held.is_none())
            .cloned()
            .collect();
        rows.extend(
            local
                .into_iter()
                .filter(|row| !shared.contains(row.id.as_str())),
        );
        rows
    }

    /// The automation `id` as the database defines it now (not as last read: a manual
    /// fire acts on what the operator just wrote), or `None`.
    pub fn get(&self, id: &str) -> Result<Option<AutomationRow>, StoreError> {
        self.store.automations().get(id)
    }

    fn read(&self) -> MutexGuard<'_, Read> {
        self.read.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
