//! [`Ledger`] on the SQLite store: each method is its [`Emits`](crate::Emits) handle's.

use crate::emit_pages::{EmitPage, EmitQuery, EmitRow, TaskEvent};
use crate::emits::{EmitDetail, EmitFilter, EmitRecord, EmitSummary, EmitWrite, HookRun};
use crate::errors::StoreError;
use crate::ledger::Ledger;
use crate::run_store::Engine;
use crate::store::Store;

impl Ledger for Store {
    fn engine(&self) -> Engine {
        Engine::Sqlite
    }

    fn location(&self) -> String {
        self.path().display().to_string()
    }

    fn begin(&self, emit: &EmitRecord) -> Result<(), StoreError> {
        self.emits().begin(emit)
    }

    fn finish(&self, emit: &EmitRecord) -> Result<(), StoreError> {
        self.emits().finish(emit)
    }

    fn record(&self, emit: &EmitRecord) -> Result<(), StoreError> {
        self.emits().record(emit)
    }

    fn apply(&self, writes: &[&EmitWrite]) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        self.emits().apply(writes.iter().copied())
    }

    fn append_hook_runs(&self, run_id: &str, runs: &[HookRun]) -> Result<(), StoreError> {
        self.emits().append_hook_runs(run_id, runs)
    }

    fn complete_hook_runs(&self, run_id: &str, runs: &[HookRun]) -> Result<(), StoreError> {
        self.emits().complete_hook_runs(run_id, runs)
    }

    fn interrupt_abandoned(&self) -> Result<usize, StoreError> {
        self.emits().interrupt_abandoned()
    }

    fn recent(&self, filter: &EmitFilter) -> Result<Vec<EmitSummary>, StoreError> {
        self.emits().recent(filter)
    }

    fn detail(&self, run_id: &str) -> Result<Option<EmitDetail>, StoreError> {
        self.emits().detail(run_id)
    }

    fn page(&self, query: &EmitQuery) -> Result<EmitPage, StoreError> {
        self.emits().page(query)
    }

    fn since(&self, after: i64, rows: &[i64], limit: usize) -> Result<Vec<EmitRow>, StoreError> {
        self.emits().since(after, rows, limit)
    }

    fn task_history(
        &self,
        plan: &str,
        task: Option<&str>,
        limit: usize,
    ) -> Result<Vec<TaskEvent>, StoreError> {
        self.emits().task_history(plan, task, limit)
    }

    fn last_row(&self) -> Result<i64, StoreError> {
        self.emits().last_row()
    }
}
