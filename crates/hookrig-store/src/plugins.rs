//! The plugin package registry: which packages are registered, and for which agents
//! each one is enabled.
//!
//! It lives in the store's file (one file, one schema, one connection per emit) as the
//! tables `plugins` and `agent_plugins`, read and written through [`Plugins`]; on
//! PostgreSQL through `PgPlugins` (`pg/plugins.rs`), the same rules behind the same
//! interface, [`PluginStore`].
//!
//! Enablement rules:
//!
//! - a newly registered package is enabled for nobody;
//! - `*` ([`ALL_AGENTS`]) stands for every agent. Enabling or disabling for `*` removes
//!   every agent-specific row first, so that "all" means all: after
//!   `disable --all` no agent runs the package, after `enable --all` every agent does;
//! - an agent-specific row is an exception to `*` and wins over it: with `*` enabled and
//!   `A` disabled, every agent but `A` runs the package;
//! - an emit that names no agent runs the packages enabled for `*` only.

use rusqlite::{OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use crate::clock::now_ms;
use crate::errors::StoreError;
use crate::store::Store;

/// The agent name that stands for every agent.
pub const ALL_AGENTS: &str = "*";

/// A registered plugin package, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginRow {
    /// The id it was registered under (`hookrig plugins register ID`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// The package directory, absolute.
    pub path: String,
    /// The manifest's `version` at registration time.
    pub version: Option<String>,
    /// When it was registered, in milliseconds since the Unix epoch.
    pub registered_at_ms: i64,
}

/// One `agent_plugins` row: the package is enabled or disabled for `agent` (`*` = all).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentEnablement {
    /// The agent, or [`ALL_AGENTS`].
    pub agent: String,
    /// Enabled (true) or explicitly disabled (false).
    pub enabled: bool,
}

/// A registered package with its enablement rows, as `hookrig plugins list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginEntry {
    /// The package.
    #[serde(flatten)]
    pub plugin: PluginRow,
    /// Its enablement rows, `*` first, then by agent name.
    pub agents: Vec<AgentEnablement>,
}

/// The plugin package registry on either engine, with the enablement rules of the
/// module docs.
pub trait PluginStore {
    /// Registers `plugin`; its `registered_at_ms` is set to now when it is 0. An id that
    /// is already registered is [`StoreError::DuplicatePlugin`].
    fn register(&self, plugin: &PluginRow) -> Result<(), StoreError>;

    /// One registered package, or `None`.
    fn get(&self, id: &str) -> Result<Option<PluginRow>, StoreError>;

    /// Every registered package with its enablement rows, in registration order.
    fn list(&self) -> Result<Vec<PluginEntry>, StoreError>;

    /// Enables or disables the package `id` for `agent`, or for every agent when
    /// `agent` is [`ALL_AGENTS`] (which also drops the agent-specific rows). An unknown
    /// id is [`StoreError::UnknownPlugin`].
    fn set_enabled(&self, id: &str, agent: &str, enabled: bool) -> Result<(), StoreError>;

    /// Deletes the package `id` and its enablement rows. An unknown id is
    /// [`StoreError::UnknownPlugin`].
    fn delete(&self, id: &str) -> Result<(), StoreError>;

    /// The packages enabled for `agent`, in registration order; with `None`, the
    /// packages enabled for `*`.
    fn enabled_for(&self, agent: Option<&str>) -> Result<Vec<PluginRow>, StoreError>;
}

const SELECT_PLUGIN: &str = "
    SELECT id, name, description, path, version, registered_at FROM plugins";

// Registration order (rowid) rather than id order: it is the order in which the
// packages' decision hooks run, and OpenHermit breaks ties by registration order.
const ALL_PLUGINS: &str = "
    SELECT id, name, description, path, version, registered_at FROM plugins ORDER BY rowid";

// The agent's own row wins; without one, the `*` row decides; without either, disabled.
const ENABLED_FOR: &str = "
    SELECT p.id, p.name, p.description, p.path, p.version, p.registered_at
    FROM plugins p
    WHERE coalesce(
        (SELECT a.enabled FROM agent_plugins a WHERE a.plugin_id = p.id AND a.agent = ?1),
        (SELECT a.enabled FROM agent_plugins a WHERE a.plugin_id = p.id AND a.agent = '*'),
        0
    ) = 1
    ORDER BY p.rowid";

const AGENTS_OF: &str = "
    SELECT agent, enabled FROM agent_plugins
    WHERE plugin_id = ?1
    ORDER BY agent <> '*', agent";

/// The `plugins` and `agent_plugins` tables of a [`Store`].
#[derive(Debug, Clone, Copy)]
pub struct Plugins<'s> {
    store: &'s Store,
}

impl<'s> Plugins<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Registers `plugin`; its `registered_at_ms` is set to now when it is 0. An id that
    /// is already registered is [`StoreError::DuplicatePlugin`]: re-registering would
    /// silently replace a path the user may still rely on, so it takes a `delete` first.
    pub fn register(&self, plugin: &PluginRow) -> Result<(), StoreError> {
        let registered_at = if plugin.registered_at_ms == 0 {
            now_ms()
        } else {
            plugin.registered_at_ms
        };
        let result = self.store.conn().execute(
            "INSERT INTO plugins (id, name, description, path, version, registered_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                plugin.id,
                plugin.name,
                plugin.description,
                plugin.path,
                plugin.version,
                registered_at
            ],
        );
        match result {
            Ok(_) => Ok(()),
            Err(error) if crate::store::is_primary_key_violation(&error) => {
                Err(StoreError::DuplicatePlugin {
                    id: plugin.id.clone(),
                })
            }
            Err(source) => Err(self.store.fail("register a plugin")(source)),
        }
    }

    /// One registered package, or `None`.
    pub fn get(&self, id: &str) -> Result<Option<PluginRow>, StoreError> {
        self.store
            .conn()
            .query_row(
                &format!("{SELECT_PLUGIN} WHERE id = ?1"),
                [id],
                plugin_from_row,
            )
            .optional()
            .map_err(self.store.fail("read a plugin"))
    }

    /// Every registered package with its enablement rows, in registration order.
    pub fn list(&self) -> Result<Vec<PluginEntry>, StoreError> {
        let fail = self.store.fail("list plugins");
        let conn = self.store.conn();
        let rows = conn
            .prepare(ALL_PLUGINS)
            .and_then(|mut stmt| {
                stmt.query_map([], plugin_from_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(fail)?;
        let mut agents = conn.prepare(AGENTS_OF).map_err(fail)?;
        rows.into_iter()
            .map(|plugin| {
                let rows = agents
                    .query_map([&plugin.id], |row| {
                        Ok(AgentEnablement {
                            agent: row.get(0)?,
                            enabled: row.get(1)?,
                        })
                    })
                    .and_then(Iterator::collect)
                    .map_err(fail)?;
                Ok(PluginEntry {
                    plugin,
                    agents: rows,
                })
            })
            .collect()
    }

    /// Enables (`enabled = true`) or disables the package `id` for `agent`, or for every
    /// agent when `agent` is [`ALL_AGENTS`] (which also drops the agent-specific rows;
    /// see the module docs). An unknown id is [`StoreError::UnknownPlugin`].
    pub fn set_enabled(&self, id: &str, agent: &str, enabled: bool) -> Result<(), StoreError> {
        let fail = self.store.fail("change a plugin's enablement");
        let tx = self.store.conn().unchecked_transaction().map_err(fail)?;
        let known = tx
            .query_row("SELECT 1 FROM plugins WHERE id = ?1", [id], |_| Ok(()))
            .optional()
            .map_err(fail)?;
        if known.is_none() {
            return Err(StoreError::UnknownPlugin { id: id.to_owned() });
        }
        if agent == ALL_AGENTS {
            tx.execute("DELETE FROM agent_plugins WHERE plugin_id = ?1", [id])
                .map_err(fail)?;
        }
        tx.execute(
            "INSERT INTO agent_plugins (plugin_id, agent, enabled) VALUES (?1, ?2, ?3)
             ON CONFLICT (plugin_id, agent) DO UPDATE SET enabled = excluded.enabled",
            params![id, agent, enabled],
        )
        .map_err(fail)?;
        tx.commit().map_err(fail)
    }

    /// Deletes the package `id` and its enablement rows. An unknown id is
    /// [`StoreError::UnknownPlugin`].
    pub fn delete(&self, id: &str) -> Result<(), StoreError> {
        let deleted = self
            .store
            .conn()
            .execute("DELETE FROM plugins WHERE id = ?1", [id])
            .map_err(self.store.fail("delete a plugin"))?;
        if deleted == 0 {
            return Err(StoreError::UnknownPlugin { id: id.to_owned() });
        }
        Ok(())
    }

    /// The packages enabled for `agent`, in registration order: those whose row for
    /// `agent` says enabled, or that have no row for `agent` and are enabled for `*`.
    /// With `None` (no agent known), the packages enabled for `*`.
    pub fn enabled_for(&self, agent: Option<&str>) -> Result<Vec<PluginRow>, StoreError> {
        self.store
            .conn()
            .prepare_cached(ENABLED_FOR)
            .and_then(|mut stmt| {
                stmt.query_map([agent.unwrap_or(ALL_AGENTS)], plugin_from_row)?
                    .collect()
            })
            .map_err(self.store.fail("read the enabled plugins"))
    }
}

impl PluginStore for Plugins<'_> {
    fn register(&self, plugin: &PluginRow) -> Result<(), StoreError> {
        Plugins::register(self, plugin)
    }

    fn get(&self, id: &str) -> Result<Option<PluginRow>, StoreError> {
        Plugins::get(self, id)
    }

    fn list(&self) -> Result<Vec<PluginEntry>, StoreError> {
        Plugins::list(self)
    }

    fn set_enabled(&self, id: &str, agent: &str, enabled: bool) -> Result<(), StoreError> {
        Plugins::set_enabled(self, id, agent, enabled)
    }

    fn delete(&self, id: &str) -> Result<(), StoreError> {
        Plugins::delete(self, id)
    }

    fn enabled_for(&self, agent: Option<&str>) -> Result<Vec<PluginRow>, StoreError> {
        Plugins::enabled_for(self, agent)
    }
}

fn plugin_from_row(row: &Row<'_>) -> rusqlite::Result<PluginRow> {
    Ok(PluginRow {
        id: row.get(0)?,
        name: row.get(1)?,
        description: row.get(2)?,
        path: row.get(3)?,
        version: row.get(4)?,
        registered_at_ms: row.get(5)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_temp() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let ledger = Store::open(&dir.path().join("ledger.db")).expect("open");
        (dir, ledger)
    }

    fn row(id: &str) -> PluginRow {
        PluginRow {
            id: id.to_owned(),
            name: format!("{id} name"),
            description: String::new(),
            path: format!("/plugins/{id}"),
            version: None,
            registered_at_ms: 1,
        }
    }

    fn enabled(ledger: &Store, agent: Option<&str>) -> Vec<String> {
        ledger
            .plugins()
            .enabled_for(agent)
            .expect("query")
            .into_iter()
            .map(|p| p.id)
            .collect()
    }

    #[test]
    fn registered_plugin_is_enabled_for_nobody() {
        let (_dir, ledger) = open_temp();
        ledger.plugins().register(&row("a")).expect("register");
        assert!(enabled(&ledger, Some("coder")).is_empty());
        assert!(enabled(&ledger, None).is_empty());
    }

    #[test]
    fn zero_registered_at_means_now() {
        let (_dir, ledger) = open_temp();
        let mut plugin = row("a");
        plugin.registered_at_ms = 0;
        ledger.plugins().register(&plugin).expect("register");
        let stored = ledger
            .plugins()
            .get("a")
            .expect("read")
            .expect("registered");
        assert!(stored.registered_at_ms > 1_700_000_000_000, "{stored:?}");
    }

    #[test]
    fn agent_row_wins_over_the_wildcard() {
        let (_dir, ledger) = open_temp();
        ledger.plugins().register(&row("a")).expect("register");
        ledger
            .plugins()
            .set_enabled("a", "*", true)
            .expect("enable all");
        ledger
            .plugins()
            .set_enabled("a", "reviewer", false)
            .expect("disable one");
        assert_eq!(enabled(&ledger, Some("coder")), ["a"]);
        assert!(enabled(&ledger, Some("reviewer")).is_empty());
        assert_eq!(enabled(&ledger, None), ["a"]);
    }

    #[test]
    fn all_replaces_agent_exceptions() {
        let (_dir, ledger) = open_temp();
        ledger.plugins().register(&row("a")).expect("register");
        ledger
            .plugins()
            .set_enabled("a", "coder", true)
            .expect("enable");
        ledger
            .plugins()
            .set_enabled("a", "*", false)
            .expect("disable all");
        assert!(enabled(&ledger, Some("coder")).is_empty());
        let agents = &ledger.plugins().list().expect("list")[0].agents;
        assert_eq!(
            agents,
            &[AgentEnablement {
                agent: "*".to_owned(),
                enabled: false
            }]
        );
    }

    #[test]
    fn agent_named_like_a_like_pattern_is_literal() {
        let (_dir, ledger) = open_temp();
        ledger.plugins().register(&row("a")).expect("register");
        ledger
            .plugins()
            .set_enabled("a", "c%", true)
            .expect("enable");
        assert!(enabled(&ledger, Some("coder")).is_empty());
        assert_eq!(enabled(&ledger, Some("c%")), ["a"]);
    }

    #[test]
    fn enable_and_delete_of_unknown_ids_name_the_id() {
        let (_dir, ledger) = open_temp();
        let error = ledger
            .plugins()
            .set_enabled("nope", "*", true)
            .expect_err("unknown");
        assert!(matches!(&error, StoreError::UnknownPlugin { id } if id == "nope"));
        let error = ledger.plugins().delete("nope").expect_err("unknown");
        assert_eq!(error.to_string(), "no plugin `nope` is registered");
    }
}
