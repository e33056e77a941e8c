//! The automations a node of a shared store runs (docs/postgres.md, "The
//! automations"): the definitions of the database's `automations`, which the operator's
//! `hookrig auto ... --store` writes and every node reads, and beside them the node's
//! own store's (its trusted project files, what `hookrig auto add` without `--store`
//! stored) for the ids the database does not define.
//!
//! A row runs only when it verifies with the operator's key (`registry.key`, the plugin
//! registry's): anyone who can write the database can write a row, and a row runs on
//! every node. A row that does not verify is held, with why, so that it runs nowhere,
//! a fire of it says why, and a node's own automation of that id does not run instead.
//!
//! The database's rows are read again when its revision moved, which the engine checks
//! once per tick: one short query, and the whole table only after a change. So an
//! `auto disable` on any node stops every node from its next tick on, and events use
//! the definitions as the last tick read them.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hookrig_store::{AutomationRow, PgStore, RegistryKey, StoreError};

/// The shared definitions, as last read.
pub struct SharedDefinitions {
    store: Arc<PgStore>,
    /// The operator's key, which the rows must verify with; `None`: this node has none,
    /// and runs no shared automation.
    key: Option<RegistryKey>,
    read: Mutex<Read>,
}

/// Says which revision was read and whether there is a key, not the rows.
impl std::fmt::Debug for SharedDefinitions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedDefinitions")
            .field("key", &self.key.is_some())
            .field("revision", &self.read().revision)
            .finish_non_exhaustive()
    }
}

/// What was read, and at which revision (`None` before the first read).
#[derive(Default)]
struct Read {
    revision: Option<i64>,
    rows: Vec<AutomationRow>,
}

impl SharedDefinitions {
    /// The definitions of `store`'s `automations` that verify with `key`, read at the
    /// first [`SharedDefinitions::refresh`].
    pub fn new(store: Arc<PgStore>, key: Option<RegistryKey>) -> SharedDefinitions {
        SharedDefinitions {
            store,
            key,
            read: Mutex::new(Read::default()),
        }
    }

    /// The database the definitions are read from.
    pub fn store(&self) -> &Arc<PgStore> {
        &self.store
    }

    /// Whether these are the definitions of `store` as `key` verifies them: a reader
    /// that keeps them between looks (the dashboard) makes new ones when the key changed.
    pub fn reads(&self, store: &Arc<PgStore>, key: Option<&RegistryKey>) -> bool {
        Arc::ptr_eq(&self.store, store) && self.key.as_ref() == key
    }

    /// Reads the rows again if the table changed since they were read. `None` when it
    /// had not; else why each row that does not verify is not run (empty when all do).
    /// A failure keeps the rows read last: the database may be gone for a moment, and
    /// every start is refused meanwhile anyway (it is decided there).
    pub fn refresh(&self) -> Result<Option<Vec<String>>, StoreError> {
        let automations = self.store.automations();
        // The revision first: rows read after it are at least as new as it says.
        let revision = automations.revision()?;
        if self.read().revision == Some(revision) {
            return Ok(None);
        }
        let mut refused = Vec::new();
        let rows = automations
            .list_signed()?
            .into_iter()
            .map(|(mut row, signature)| {
                if let Some(why) = self.refusal(&row, &signature) {
                    refused.push(format!(
                        "the shared automation `{}` is not run: {why}",
                        row.id
                    ));
                    row.held = Some(why);
                }
                row
            })
            .collect();
        *self.read() = Read {
            revision: Some(revision),
            rows,
        };
        Ok(Some(refused))
    }

    /// Why `row` must not run here, or `None` when it verifies.
    fn refusal(&self, row: &AutomationRow, signature: &str) -> Option<String> {
        let Some(key) = &self.key else {
            return Some(
                "this node has no operator key (registry.key) to verify the shared \
                 automations with; copy the operator's to this node (docs/postgres.md, \
                 \"The key\")"
                    .to_owned(),
            );
        };
        (!key.verifies_automation(row, signature)).then(|| {
            "its row in the shared store is not signed with this node's key (written by \
             hand, or with another key); the operator writes it again with `hookrig auto \
             add FILE --store URL`"
                .to_owned()
        })
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

    /// Every automation a node sees now: the database's (those whose row does not verify
    /// held with why), then those of `local` (the node's own store's) whose id the
    /// database does not define. What a serve's dashboard lists.
    pub fn with_local(&self, local: Vec<AutomationRow>) -> Result<Vec<AutomationRow>, StoreError> {
        let mut rows = self.all()?;
        let shared: HashSet<String> = rows.iter().map(|row| row.id.clone()).collect();
        rows.extend(local.into_iter().filter(|row| !shared.contains(&row.id)));
        Ok(rows)
    }

    /// Every automation the database defines now, those whose row does not verify held
    /// with why: what `hookrig auto list --store` shows.
    pub fn all(&self) -> Result<Vec<AutomationRow>, StoreError> {
        self.refresh()?;
        Ok(self.read().rows.clone())
    }

    /// The automation `id` as the database defines it now (not as last read: a manual
    /// fire acts on what the operator just wrote), held with why when its row does not
    /// verify; or `None`.
    pub fn get(&self, id: &str) -> Result<Option<AutomationRow>, StoreError> {
        self.refresh()?;
        Ok(self.read().rows.iter().find(|row| row.id == id).cloned())
    }

    fn read(&self) -> MutexGuard<'_, Read> {
        self.read.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
