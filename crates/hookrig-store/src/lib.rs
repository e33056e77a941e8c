//! The store of hookrig, in two SQLite files. The ledger holds every `hookrig emit` and
//! every hook considered for it (so that `hookrig runs` and `hookrig why RUN_ID` can
//! answer what ran, from which file, for how long, what it said, and why it did or did
//! not match), and the plugin package registry an emit reads. Its work file beside it
//! ([`work_path`]) holds every other table hookrig keeps: the automations and their
//! runs, the tasks automations create, the memory index, and the agents `hookrig agent
//! spawn` started. This crate owns the files: their schemas and migrations, how they
//! are opened (WAL, busy timeout, foreign keys), and one typed row per table. It must
//! not decide what the rows mean: what an emit dispatches, when an automation runs,
//! how a note is split into sections or what a task is for belong to the crates that
//! write them. It reads no configuration and prints nothing.
//!
//! - [`Store`] is a connection to the files; [`Store::open`] creates and migrates
//!   them, and [`Store::open_ledger`] the ledger alone, for what an emit does (SQLite
//!   parses a file's whole schema on its first statement: the work tables are kept
//!   out of every emit's way).
//!   Each table is read and written through its handle: [`Store::emits`] ([`Emits`]),
//!   [`Store::plugins`] ([`Plugins`]), [`Store::automations`] ([`Automations`]),
//!   [`Store::automation_locks`] ([`AutomationLocks`]), [`Store::automation_runs`]
//!   ([`AutomationRuns`]), [`Store::tasks`] ([`Tasks`]), [`Store::memory`]
//!   ([`Memory`]), [`Store::agents`] ([`Agents`]) and [`Store::queries`] ([`Queries`],
//!   the named read-only queries of the `db_query` step).
//! - The rows are plain data that serialize with serde for `--json` output:
//!   [`EmitRecord`] and [`HookRun`] are what an emit writes, [`EmitSummary`] and
//!   [`EmitDetail`] what is read back, [`AutomationRun`] one run of an automation.
//!   [`Emits::apply`] writes several [`EmitWrite`]s in one transaction (the resident
//!   engine's ledger writer commits the records of concurrent emits that way).
//! - Columns that hold one of a fixed set of names are enums: [`EmitDecision`],
//!   [`RunStatus`], and hookrig-core's `HookResult` and `Dialect`. On disk they are the
//!   same lowercase names as ever; a name this build does not know (a newer hookrig
//!   wrote it) is [`StoreError::UnknownValue`], naming the column and the value.
//! - [`Ledger`] is the one interface of the ledger of emits, implemented by [`Store`]
//!   (through [`Emits`]) and by [`PgStore`], the PostgreSQL store several `hookrig serve`
//!   nodes share; [`LedgerAt`] names where a ledger is and opens it. [`RunStore`] is the
//!   same for what runs automations.
//! - [`default_ledger_path`] places the file under the XDG state directory.
//!
//! Several processes can use one store at once: it runs in WAL mode, readers
//! never block, and writers wait for each other up to a busy timeout.
//!
//! ```no_run
//! use std::path::Path;
//!
//! use hookrig_core::{Dialect, HookResult};
//! use hookrig_store::{EmitDecision, EmitFilter, EmitRecord, HookRun, Store, default_ledger_path};
//!
//! # fn main() -> Result<(), hookrig_store::StoreError> {
//! let store = Store::open(&default_ledger_path(Path::new("/home/me/.local/state")))?;
//! store.emits().record(&EmitRecord {
//!     run_id: "0196f1c2-7b7e-7cc1-9b1a-3f0c4f4a2b10".to_owned(),
//!     started_at_ms: 1_747_000_000_000,
//!     event: "PreToolUse".to_owned(),
//!     dialect: Dialect::Claude,
//!     cwd: "/home/me/repo".to_owned(),
//!     session_id: "abc".to_owned(),
//!     agent: Some("claude-1".to_owned()),
//!     decision: EmitDecision::Deny,
//!     reason: Some("rm -rf is not allowed".to_owned()),
//!     decided_by: Some("no-rm".to_owned()),
//!     duration_ms: 12.5,
//!     payload_in: r#"{"tool_name":"Bash"}"#.to_owned(),
//!     payload_out: r#"{"decision":"block"}"#.to_owned(),
//!     warnings: Vec::new(),
//!     hooks: vec![HookRun {
//!         name: "no-rm".to_owned(),
//!         source: "/home/me/repo/.hookrig.toml".to_owned(),
//!         dialect: Dialect::Claude,
//!         matched: true,
//!         skip_reason: None,
//!         result: HookResult::Deny,
//!         exit_code: Some(2),
//!         duration_ms: Some(11.0),
//!         reason: Some("rm -rf is not allowed".to_owned()),
//!         stderr: Some("rm -rf is not allowed\n".to_owned()),
//!         stdout: None,
//!         truncated: false,
//!         is_async: false,
//!         shadow: false,
//!     }],
//!     by_engine: false,
//! })?;
//!
//! for run in store.emits().recent(&EmitFilter::default())? {
//!     println!("{} {} {} ({} hooks)", run.run_id, run.event, run.decision, run.hooks_run);
//! }
//! if let Some(detail) = store.emits().detail("0196f1c2")? {
//!     for hook in &detail.emit.hooks {
//!         println!("{} from {}: {}", hook.name, hook.source, hook.result.as_str());
//!     }
//! }
//! # Ok(())
//! # }
//! ```

mod agents;
mod automation_locks;
mod automation_runs;
mod automations;
mod clock;
mod column;
mod emit_pages;
mod emits;
mod errors;
mod ledger;
mod memory;
mod migrate;
mod owner;
mod pg;
mod plugins;
mod queries;
mod run_store;
mod schema;
mod signed_automations;
mod signed_plugins;
mod signing;
mod status;
mod store;
mod tasks;

pub use crate::agents::{AgentRecords, AgentRow, AgentStore, Agents, AgentsAt};
pub use crate::automation_locks::{AutomationLock, AutomationLocks};
pub use crate::automation_runs::{AutomationRun, AutomationRuns, RunStatus};
pub use crate::automations::{AutomationRow, AutomationStore, Automations};
pub use crate::clock::{now_ms, utc_text};
pub use crate::emit_pages::{EmitCursor, EmitPage, EmitQuery, EmitRow, TaskEvent};
pub use crate::emits::{
    EmitDecision, EmitDetail, EmitFilter, EmitRecord, EmitSummary, EmitWrite, Emits, HookRun,
};
pub use crate::errors::StoreError;
pub use crate::ledger::{Ledger, LedgerAt, LedgerView, RecentEmits};
pub use crate::memory::{Memory, MemoryEntry, MemoryHit, MemoryIndex, Note, NoteSection};
pub use crate::migrate::{Migration, TableCopy, migrate};
pub use crate::owner::host_name;
pub use crate::pg::{
    CHANNEL, EventListener, Heard, Offered, PgAgents, PgAutomations, PgMemory, PgPlugins, PgStore,
    PgTasks, REGISTRY_CHANNEL, RegistryChanges, SharedEvent, SharedNote,
};
pub use crate::plugins::{
    ALL_AGENTS, AgentEnablement, PluginEntry, PluginRow, PluginStore, Plugins,
};
pub use crate::queries::Queries;
pub use crate::run_store::{Engine, Gate, NodeInfo, RunStore, Start};
pub use crate::signed_plugins::{LeftOut, Signed, SignedEnablement, SignedPlugin, Verified};
pub use crate::signing::{REGISTRY_KEY_FILE, RegistryKey};
pub use crate::status::{SchemaVersion, StoreStatus, TableRows, status};
pub use crate::store::{Store, default_ledger_path, work_path};
pub use crate::tasks::{NewTask, TaskRow, TaskStore, Tasks};
