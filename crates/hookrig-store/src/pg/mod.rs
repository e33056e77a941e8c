//! The store on PostgreSQL, for several `hookrig serve` nodes sharing one database
//! (docs/postgres.md): [`PgStore`], its connection (`client`), its schema (`schema`),
//! the automations' definitions (`automations`), the events it carries from node to node (`events`), the memory index (`memory`), the
//! tasks automations create (`tasks`), the plugin registry (`plugins`) and the agents of
//! every machine (`agents`). What it holds is reached
//! through the same interface as the SQLite store's ([`RunStore`](crate::RunStore)).

mod agents;
mod automations;
mod client;
mod events;
mod memory;
mod plugins;
mod registry_changes;
mod schema;
mod tasks;

pub use agents::PgAgents;
pub use automations::PgAutomations;
pub use events::{CHANNEL, EventListener, Heard, SharedEvent};
pub use memory::{Offered, PgMemory, SharedNote};
pub use plugins::PgPlugins;
pub use registry_changes::{REGISTRY_CHANNEL, RegistryChanges};
pub use tasks::PgTasks;

pub(crate) use client::{Client, redact};

use crate::errors::StoreError;

/// A store in a PostgreSQL database: opened with [`PgStore::open`], which migrates the
/// schema under an advisory lock. It can be shared between threads; calls are
/// serialized on its one connection.
#[derive(Debug)]
pub struct PgStore {
    client: Client,
}

impl PgStore {
    /// Connects to the database at `url` and brings its schema up to date. Nodes that
    /// open one database at once migrate it one after the other.
    pub fn open(url: &str) -> Result<PgStore, StoreError> {
        let client = Client::connect(url)?;
        schema::migrate(&client)?;
        Ok(PgStore { client })
    }

    /// The database, as its URL without the password.
    pub fn database(&self) -> &str {
        self.client.database()
    }

    /// The schema version of the database.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        schema::version(&self.client)
    }

    /// The schema version this build writes and reads.
    pub const SCHEMA_VERSION: i64 = schema::PG_VERSION;

    /// The connection, for the tables' code.
    pub(crate) fn client(&self) -> &Client {
        &self.client
    }
}
