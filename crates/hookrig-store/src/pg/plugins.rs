//! [`PluginStore`] on PostgreSQL: `plugins` and `agent_plugins` of the shared database,
//! with the enablement rules of the SQLite registry (`crate::plugins`).

use postgres::Row;
use postgres::error::SqlState;

use crate::clock::now_ms;
use crate::errors::StoreError;
use crate::pg::PgStore;
use crate::plugins::{ALL_AGENTS, AgentEnablement, PluginEntry, PluginRow, PluginStore};
use crate::signed_plugins::{SignedEnablement, SignedPlugin};
use crate::signing::RegistryKey;

/// The plugin registry of a [`PgStore`] ([`PgStore::plugins`]).
#[derive(Debug, Clone, Copy)]
pub struct PgPlugins<'s> {
    store: &'s PgStore,
}

impl PgStore {
    /// The plugin package registry in the database.
    pub fn plugins(&self) -> PgPlugins<'_> {
        PgPlugins { store: self }
    }
}

const SELECT_PLUGIN: &str =
    "SELECT id, name, description, path, version, registered_at FROM plugins";

fn plugin_of(row: &Row) -> PluginRow {
    PluginRow {
        id: row.get(0),
        name: row.get(1),
        description: row.get(2),
        path: row.get(3),
        version: row.get(4),
        registered_at_ms: row.get(5),
    }
}

impl PgPlugins<'_> {
    /// Inserts `plugin` with its content `digest` and `signature` (empty when unsigned).
    fn insert(self, plugin: &PluginRow, digest: &str, signature: &str) -> Result<(), StoreError> {
        let registered_at = if plugin.registered_at_ms == 0 {
            now_ms()
        } else {
            plugin.registered_at_ms
        };
        // The duplicate is told from the other failures by its state: `Client::with`
        // turns every error into one that says what was being done.
        let inserted = self.store.client().with("register a plugin", |conn| {
            match conn.execute(
                "INSERT INTO plugins
                     (id, name, description, path, version, registered_at, digest, signature)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                &[
                    &plugin.id,
                    &plugin.name,
                    &plugin.description,
                    &plugin.path,
                    &plugin.version,
                    &registered_at,
                    &digest,
                    &signature,
                ],
            ) {
                Ok(_) => Ok(true),
                Err(err) if err.code() == Some(&SqlState::UNIQUE_VIOLATION) => Ok(false),
                Err(err) => Err(err),
            }
        })?;
        if !inserted {
            return Err(StoreError::DuplicatePlugin {
                id: plugin.id.clone(),
            });
        }
        Ok(())
    }

    /// Writes the enablement row with its `signature` (empty when unsigned).
    fn enable(
        self,
        id: &str,
        agent: &str,
        enabled: bool,
        signature: &str,
    ) -> Result<(), StoreError> {
        let known = self
            .store
            .client()
            .with("change a plugin's enablement", |conn| {
                let mut tx = conn.transaction()?;
                // Locked, so that a delete waits for the change rather than racing it.
                if tx
                    .query_opt("SELECT 1 FROM plugins WHERE id = $1 FOR UPDATE", &[&id])?
                    .is_none()
                {
                    return Ok(false);
                }
                if agent == ALL_AGENTS {
                    tx.execute("DELETE FROM agent_plugins WHERE plugin_id = $1", &[&id])?;
                }
                tx.execute(
                    "INSERT INTO agent_plugins (plugin_id, agent, enabled, signature)
                     VALUES ($1, $2, $3, $4)
                     ON CONFLICT (plugin_id, agent)
                     DO UPDATE SET enabled = excluded.enabled, signature = excluded.signature",
                    &[&id, &agent, &enabled, &signature],
                )?;
                tx.commit()?;
                Ok(true)
            })?;
        if !known {
            return Err(StoreError::UnknownPlugin { id: id.to_owned() });
        }
        Ok(())
    }

    /// Registers `plugin`, whose directory has the content `digest`, signed with the
    /// operator's `key` (docs/postgres.md, "Plugins").
    pub fn register_signed(
        &self,
        plugin: &PluginRow,
        digest: &str,
        key: &RegistryKey,
    ) -> Result<(), StoreError> {
        let signature = key.sign_plugin(&plugin.id, &plugin.path, digest);
        self.insert(plugin, digest, &signature)
    }

    /// [`PluginStore::set_enabled`], the row signed with the operator's `key`.
    pub fn set_enabled_signed(
        &self,
        id: &str,
        agent: &str,
        enabled: bool,
        key: &RegistryKey,
    ) -> Result<(), StoreError> {
        self.enable(id, agent, enabled, &key.sign_enablement(id, agent, enabled))
    }

    /// Every registered package with its digest, signature and enablement rows as
    /// stored, in registration order: what a node checks before it runs one
    /// ([`SignedPlugin::verified_for`]).
    pub fn signed(&self) -> Result<Vec<SignedPlugin>, StoreError> {
        let (plugins, agents) = self
            .store
            .client()
            .with("read the signed plugins", |conn| {
                let plugins = conn.query(
                    "SELECT id, name, description, path, version, registered_at, digest, signature
                 FROM plugins ORDER BY seq",
                    &[],
                )?;
                let agents = conn.query(
                    "SELECT plugin_id, agent, enabled, signature FROM agent_plugins
                 ORDER BY plugin_id, agent <> '*', agent",
                    &[],
                )?;
                Ok((plugins, agents))
            })?;
        Ok(plugins
            .iter()
            .map(|row| {
                let plugin = plugin_of(row);
                let agents = agents
                    .iter()
                    .filter(|a| a.get::<_, &str>(0) == plugin.id)
                    .map(|a| SignedEnablement {
                        agent: a.get(1),
                        enabled: a.get(2),
                        signature: a.get(3),
                    })
                    .collect();
                SignedPlugin {
                    plugin,
                    digest: row.get(6),
                    signature: row.get(7),
                    agents,
                }
            })
            .collect())
    }
}

impl PluginStore for PgPlugins<'_> {
    fn register(&self, plugin: &PluginRow) -> Result<(), StoreError> {
        self.insert(plugin, "", "")
    }

    fn get(&self, id: &str) -> Result<Option<PluginRow>, StoreError> {
        let row = self.store.client().with("read a plugin", |conn| {
            conn.query_opt(&format!("{SELECT_PLUGIN} WHERE id = $1"), &[&id])
        })?;
        Ok(row.as_ref().map(plugin_of))
    }

    fn list(&self) -> Result<Vec<PluginEntry>, StoreError> {
        // The signed rows with their signatures left out: one query, in one order.
        Ok(self
            .signed()?
            .into_iter()
            .map(|signed| PluginEntry {
                plugin: signed.plugin,
                agents: signed
                    .agents
                    .into_iter()
                    .map(|a| AgentEnablement {
                        agent: a.agent,
                        enabled: a.enabled,
                    })
                    .collect(),
            })
            .collect())
    }

    fn set_enabled(&self, id: &str, agent: &str, enabled: bool) -> Result<(), StoreError> {
        self.enable(id, agent, enabled, "")
    }

    fn delete(&self, id: &str) -> Result<(), StoreError> {
        let deleted = self.store.client().with("delete a plugin", |conn| {
            conn.execute("DELETE FROM plugins WHERE id = $1", &[&id])
        })?;
        if deleted == 0 {
            return Err(StoreError::UnknownPlugin { id: id.to_owned() });
        }
        Ok(())
    }

    fn enabled_for(&self, agent: Option<&str>) -> Result<Vec<PluginRow>, StoreError> {
        let agent = agent.unwrap_or(ALL_AGENTS);
        let rows = self
            .store
            .client()
            .with("read the enabled plugins", |conn| {
                // The agent's own row wins; without one, the `*` row decides; without
                // either, disabled.
                conn.query(
                    "SELECT p.id, p.name, p.description, p.path, p.version, p.registered_at
                     FROM plugins p
                     WHERE coalesce(
                         (SELECT a.enabled FROM agent_plugins a
                          WHERE a.plugin_id = p.id AND a.agent = $1),
                         (SELECT a.enabled FROM agent_plugins a
                          WHERE a.plugin_id = p.id AND a.agent = '*'),
                         false
                     )
                     ORDER BY p.seq",
                    &[&agent],
                )
            })?;
        Ok(rows.iter().map(plugin_of).collect())
    }
}
