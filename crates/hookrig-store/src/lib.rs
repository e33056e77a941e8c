//! The ledger of hookrig: a SQLite file recording every `hookrig emit` and
//! every hook considered for it, so that `hookrig runs` and `hookrig why
//! RUN_ID` can answer what ran, from which file, for how long, what it said,
//! and why it did or did not match.
//!
//! - [`Ledger`] is a connection to the file: [`Ledger::record_emit`] writes an
//!   emit with its hooks, [`Ledger::append_hook_runs`] adds the rows of
//!   asynchronous hooks that finish later, [`Ledger::recent_emits`] and
//!   [`Ledger::emit_detail`] read them back.
//! - [`EmitRecord`] and [`HookRun`] are what is written; [`EmitSummary`] and
//!   [`EmitDetail`] what is read. They are plain data with `String` fields so
//!   that this crate depends on no other hookrig crate, and they serialize
//!   with serde for `--json` output.
//! - [`default_ledger_path`] places the file under the XDG state directory.
//! - The same file holds the plugin package registry (`hookrig plugins`):
//!   [`Ledger::register_plugin`], [`Ledger::plugins`], [`Ledger::set_plugin_enabled`],
//!   [`Ledger::delete_plugin`] and [`Ledger::plugins_enabled_for`], with rows
//!   [`PluginRow`], [`PluginEntry`] and [`AgentEnablement`].
//! - The automation engine's context steps use it too: `create_task` inserts with
//!   [`Ledger::create_task`], `db_query` runs one of the [`named_queries`] with
//!   [`run_named_query`] on a read-only connection, and `memory_search` searches an
//!   FTS5 index of notes and `memory.upsert` events ([`Ledger::memory_index_notes`],
//!   [`Ledger::memory_upsert`], [`Ledger::memory_search`]).
//! - The automation engine's definitions and runs (`hookrig auto`, `hookrig serve`):
//!   [`Ledger::upsert_automation`], [`Ledger::automations`],
//!   [`Ledger::insert_automation_run`], [`Ledger::automation_runs`],
//!   [`Ledger::interrupt_running_runs`] and friends, with rows [`AutomationRow`] and
//!   [`AutomationRunRow`].
//!
//! Several processes can use one ledger at once: it runs in WAL mode, readers
//! never block, and writers wait for each other up to a busy timeout.
//!
//! ```no_run
//! use std::path::Path;
//!
//! use hookrig_store::{EmitFilter, EmitRecord, HookRun, Ledger, default_ledger_path};
//!
//! # fn main() -> Result<(), hookrig_store::StoreError> {
//! let mut ledger = Ledger::open(&default_ledger_path(Path::new("/home/me/.local/state")))?;
//! ledger.record_emit(&EmitRecord {
//!     run_id: "0196f1c2-7b7e-7cc1-9b1a-3f0c4f4a2b10".to_owned(),
//!     started_at_ms: 1_747_000_000_000,
//!     event: "PreToolUse".to_owned(),
//!     dialect: "claude".to_owned(),
//!     cwd: "/home/me/repo".to_owned(),
//!     session_id: "abc".to_owned(),
//!     agent: Some("claude-1".to_owned()),
//!     decision: "deny".to_owned(),
//!     reason: Some("rm -rf is not allowed".to_owned()),
//!     decided_by: Some("no-rm".to_owned()),
//!     duration_ms: 12.5,
//!     payload_in: r#"{"tool_name":"Bash"}"#.to_owned(),
//!     payload_out: r#"{"decision":"block"}"#.to_owned(),
//!     warnings: Vec::new(),
//!     hooks: vec![HookRun {
//!         name: "no-rm".to_owned(),
//!         source: "/home/me/repo/.hookrig.toml".to_owned(),
//!         dialect: "claude".to_owned(),
//!         matched: true,
//!         skip_reason: None,
//!         result: "deny".to_owned(),
//!         exit_code: Some(2),
//!         duration_ms: Some(11.0),
//!         reason: Some("rm -rf is not allowed".to_owned()),
//!         stderr: Some("rm -rf is not allowed\n".to_owned()),
//!         stdout: None,
//!         truncated: false,
//!         is_async: false,
//!     }],
//! })?;
//!
//! for run in ledger.recent_emits(&EmitFilter::default())? {
//!     println!("{} {} {} ({} hooks)", run.run_id, run.event, run.decision, run.hooks_run);
//! }
//! if let Some(detail) = ledger.emit_detail("0196f1c2")? {
//!     for hook in &detail.emit.hooks {
//!         println!("{} from {}: {}", hook.name, hook.source, hook.result);
//!     }
//! }
//! # Ok(())
//! # }
//! ```

mod agents;
mod automations;
mod clock;
mod errors;
mod ledger;
mod memory;
mod owner;
mod plugins;
mod queries;
mod record;
mod schema;
mod tasks;

pub use crate::agents::AgentRow;
pub use crate::automations::{AutomationLock, AutomationRow, AutomationRunRow};
pub use crate::clock::now_ms;
pub use crate::errors::StoreError;
pub use crate::ledger::{Ledger, default_ledger_path};
pub use crate::memory::{MemoryHit, NoteSection, split_markdown};
pub use crate::owner::{Owner, current_owner, owner_is_alive};
pub use crate::plugins::{ALL_AGENTS, AgentEnablement, PluginEntry, PluginRow};
pub use crate::queries::{named_queries, run_named_query};
pub use crate::record::{EmitDetail, EmitFilter, EmitRecord, EmitSummary, HookRun};
pub use crate::tasks::{NewTask, TaskRow};
