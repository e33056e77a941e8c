//! The ledger as a user reads it ([`LedgerView`]): one ledger, or the shared PostgreSQL
//! ledger with this machine's SQLite file beside it.
//!
//! With a shared store, the emits a resident engine answers are recorded in the database,
//! but an emit answered with no engine (`engine = "off"`, the first emit, which starts the
//! engine) is still recorded in this machine's file (docs/postgres.md, "The ledger"). A
//! user asking what ran expects one ledger, so the view reads both: the file's emits that
//! the database does not hold are listed among the database's, and a run id the database
//! does not know is looked up in the file.

use std::collections::HashSet;

use crate::emits::{EmitDetail, EmitFilter, EmitSummary};
use crate::errors::StoreError;
use crate::ledger::Ledger;

/// One ledger to read, or a shared one with this machine's file beside it.
pub struct LedgerView {
    /// The ledger emits are recorded in: the database when the store is shared, else the
    /// SQLite file.
    main: Box<dyn Ledger + Send>,
    /// With a shared `main`: this machine's SQLite file, when it exists.
    local: Option<Box<dyn Ledger + Send>>,
}

/// What [`LedgerView::recent`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct RecentEmits {
    /// The emits, newest first.
    pub emits: Vec<EmitSummary>,
    /// How many of `emits` are in this machine's file only (not in the shared ledger).
    pub local_only: usize,
}

impl std::fmt::Debug for LedgerView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LedgerView")
            .field("main", &self.main.location())
            .field("local", &self.local.as_ref().map(|local| local.location()))
            .finish()
    }
}

impl LedgerView {
    /// A view of `ledger` alone.
    pub fn single(ledger: Box<dyn Ledger + Send>) -> LedgerView {
        LedgerView {
            main: ledger,
            local: None,
        }
    }

    /// A view of the shared ledger `shared`, with this machine's file `local` beside it.
    pub fn shared(
        shared: Box<dyn Ledger + Send>,
        local: Option<Box<dyn Ledger + Send>>,
    ) -> LedgerView {
        LedgerView {
            main: shared,
            local,
        }
    }

    /// The ledger emits are recorded in.
    pub fn main(&self) -> &(dyn Ledger + Send) {
        self.main.as_ref()
    }

    /// This machine's file, when the view has one beside a shared ledger.
    pub fn local(&self) -> Option<&(dyn Ledger + Send)> {
        self.local.as_deref()
    }

    /// Marks `interrupted` the emits of this machine's processes that died while running
    /// ([`Ledger::interrupt_abandoned`]), in both ledgers.
    pub fn interrupt_abandoned(&self) -> Result<usize, StoreError> {
        let mut marked = self.main.interrupt_abandoned()?;
        if let Some(local) = &self.local {
            marked += local.interrupt_abandoned()?;
        }
        Ok(marked)
    }

    /// The newest emits that pass `filter`, from both ledgers: the file's emits that the
    /// shared ledger holds too (copied by `hookrig store migrate`) count once.
    pub fn recent(&self, filter: &EmitFilter) -> Result<RecentEmits, StoreError> {
        let mut emits = self.main.recent(filter)?;
        let Some(local) = &self.local else {
            return Ok(RecentEmits {
                emits,
                local_only: 0,
            });
        };
        let shared: HashSet<String> = emits.iter().map(|emit| emit.run_id.clone()).collect();
        // An emit of the file beyond the shared ledger's newest `limit` cannot be among
        // the view's newest `limit`: `limit` newer ones are in the shared ledger already.
        let only_here: Vec<EmitSummary> = local
            .recent(filter)?
            .into_iter()
            .filter(|emit| !shared.contains(&emit.run_id))
            .collect();
        let local_ids: HashSet<String> = only_here.iter().map(|e| e.run_id.clone()).collect();
        emits.extend(only_here);
        // Stable: emits of the same millisecond keep each ledger's own order.
        emits.sort_by_key(|emit| std::cmp::Reverse(emit.started_at_ms));
        emits.truncate(filter.limit);
        let local_only = emits
            .iter()
            .filter(|emit| local_ids.contains(&emit.run_id))
            .count();
        Ok(RecentEmits { emits, local_only })
    }

    /// The emit whose run id is or starts with `run_id`: from the shared ledger, else
    /// from this machine's file.
    pub fn detail(&self, run_id: &str) -> Result<Option<EmitDetail>, StoreError> {
        if let Some(detail) = self.main.detail(run_id)? {
            return Ok(Some(detail));
        }
        match &self.local {
            Some(local) => local.detail(run_id),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use hookrig_core::Dialect;

    use super::*;
    use crate::emits::{EmitDecision, EmitRecord};
    use crate::store::Store;

    fn emit(run_id: &str, started_at_ms: i64) -> EmitRecord {
        EmitRecord {
            run_id: run_id.to_owned(),
            started_at_ms,
            event: "tool.before".to_owned(),
            dialect: Dialect::Native,
            cwd: "/r".to_owned(),
            session_id: "s".to_owned(),
            agent: None,
            decision: EmitDecision::Allow,
            reason: None,
            decided_by: None,
            duration_ms: 1.0,
            payload_in: "{}".to_owned(),
            payload_out: "{}".to_owned(),
            warnings: Vec::new(),
            hooks: Vec::new(),
            by_engine: false,
        }
    }

    fn ids(recent: &RecentEmits) -> Vec<&str> {
        recent.emits.iter().map(|e| e.run_id.as_str()).collect()
    }

    // guards: the shared ledger and this machine's file read as one ledger: newest
    // first, an emit copied into both counted once, the limit kept, and `why` falling
    // back to the file
    #[test]
    fn both_ledgers_read_as_one_newest_first_each_emit_once() {
        let dir = tempfile::tempdir().expect("temp dir");
        let shared = Store::open_ledger(&dir.path().join("shared.db")).expect("open");
        let local = Store::open_ledger(&dir.path().join("local.db")).expect("open");
        for (id, at) in [("shared-1", 10), ("shared-2", 30), ("copied", 20)] {
            shared.emits().record(&emit(id, at)).expect("record");
        }
        for (id, at) in [("local-1", 25), ("copied", 20), ("local-old", 1)] {
            local.emits().record(&emit(id, at)).expect("record");
        }
        let view = LedgerView::shared(Box::new(shared), Some(Box::new(local)));
        let filter = |limit| EmitFilter {
            limit,
            ..EmitFilter::default()
        };
        let all = view.recent(&filter(10)).expect("recent");
        assert_eq!(
            ids(&all),
            ["shared-2", "local-1", "copied", "shared-1", "local-old"]
        );
        assert_eq!(all.local_only, 2);
        let two = view.recent(&filter(2)).expect("recent");
        assert_eq!(
            (ids(&two), two.local_only),
            (vec!["shared-2", "local-1"], 1)
        );
        let found = |id| view.detail(id).expect("why").map(|d| d.emit.run_id);
        assert_eq!(found("shared-1").as_deref(), Some("shared-1"));
        assert_eq!(found("local-1").as_deref(), Some("local-1"));
        assert_eq!(found("nope"), None);
    }
}
