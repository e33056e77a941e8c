//! The plugin registry of a shared PostgreSQL store, under the operator-only signed
//! rule (docs/postgres.md, "Plugins"): the operator's commands write it, signing each
//! row with the key in their own configuration directory; a node runs a package of it
//! only when the rows verify with its copy of that key and its copy of the package has
//! the digest signed. A process that answers emits keeps what it read until the
//! registry changes ([`SharedRegistry::cached`], `crate::registry_cache`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use hookrig_core::Diagnostic;
use hookrig_dialects::PackageRef;
use hookrig_store::{
    ALL_AGENTS, AgentEnablement, PgStore, PluginEntry, PluginRow, PluginStore, RegistryKey,
    SignedPlugin, StoreError,
};

use crate::errors::RuntimeError;
use crate::packages::{Registration, checked_row};
use crate::registry_cache::RegistryCache;
use crate::scope::Scope;

/// The shared registry of the database a node or an operator's command was pointed at,
/// with where this user's registry key is.
#[derive(Debug, Clone)]
pub struct SharedRegistry {
    store: Arc<PgStore>,
    key: PathBuf,
    /// Whether the process keeps what it read between emits (`crate::registry_cache`);
    /// not for an operator's command, which reads it once.
    keep: bool,
}

/// The same database and key file.
impl PartialEq for SharedRegistry {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.store, &other.store) && self.key == other.key
    }
}

impl Eq for SharedRegistry {}

impl SharedRegistry {
    /// The registry in `store`, signed and verified with the key of the user whose
    /// configuration directory is `config_home` (`config_home/hookrig/registry.key`).
    /// Every question reads the database: for an operator's command, which asks once.
    pub fn new(store: Arc<PgStore>, config_home: &Path) -> SharedRegistry {
        SharedRegistry {
            store,
            key: RegistryKey::path(config_home),
            keep: false,
        }
    }

    /// [`SharedRegistry::new`] for a process that answers many emits (a serve node, an
    /// engine recording into the database): it keeps the rows it read, and which
    /// packages each agent may run, until the registry changes, and each copy's digest
    /// until its files change; one cache per database in the process, whichever store
    /// handle reaches it. The cache, and the connection it listens on, is made by the
    /// first read: a node without a key reads nothing, and keeps nothing.
    pub fn cached(store: Arc<PgStore>, config_home: &Path) -> SharedRegistry {
        SharedRegistry {
            keep: true,
            ..SharedRegistry::new(store, config_home)
        }
    }

    /// The key file.
    pub fn key_path(&self) -> &Path {
        &self.key
    }

    /// The packages a node runs for `agent` (for `*` only with `None`), and one line per
    /// row it left out. Nothing here stops an emit: no key, or a database that does
    /// not answer, is a line too, and no shared package runs.
    ///
    /// A node that holds no key runs none and does not ask the database: it is one
    /// that does not use the shared registry, and its emits should not pay a round trip
    /// or carry a warning each for it. Its log says so once.
    pub fn enabled(&self, agent: Option<&str>) -> (Vec<PackageRef>, Vec<String>) {
        static TOLD: AtomicBool = AtomicBool::new(false);
        if !self.key.exists() {
            if !TOLD.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    "no package of the shared plugin registry runs on this node: it holds no \
                     registry key at {} (copy the operator's; docs/postgres.md, \"Plugins\")",
                    self.key.display()
                );
            }
            return (Vec::new(), Vec::new());
        }
        match self.verified(agent) {
            Ok(verified) => (
                verified
                    .packages
                    .into_iter()
                    .map(|row| PackageRef {
                        id: row.id,
                        path: PathBuf::from(row.path),
                    })
                    .collect(),
                verified.skipped.into_iter().map(|left| left.why).collect(),
            ),
            Err(err) => (
                Vec::new(),
                vec![format!(
                    "the shared plugin registry was not read, no shared package runs: {}",
                    crate::ledger::chain(&err)
                )],
            ),
        }
    }

    /// The package `id` as this node runs it for `agent` (for `*` only with `None`):
    /// its rows verify and its copy here has the digest signed. Else an error that
    /// names the rows left out and why, says the package is not enabled for the agent,
    /// or that the registry has no such package; or why the registry cannot be read
    /// (no key here, the database).
    pub fn package(&self, id: &str, agent: Option<&str>) -> Result<PackageRef, RuntimeError> {
        let verified = self.verified(agent)?;
        if let Some(row) = verified.packages.into_iter().find(|row| row.id == id) {
            return Ok(PackageRef {
                id: row.id,
                path: PathBuf::from(row.path),
            });
        }
        let reasons: Vec<String> = verified
            .skipped
            .into_iter()
            .filter(|left| left.id == id)
            .map(|left| left.why)
            .collect();
        if !reasons.is_empty() {
            return Err(RuntimeError::SharedPluginNotRun {
                id: id.to_owned(),
                reasons,
            });
        }
        if self.store.plugins().get(id)?.is_none() {
            return Err(RuntimeError::UnknownPlugin(id.to_owned()));
        }
        let agent = agent.unwrap_or(ALL_AGENTS);
        Err(RuntimeError::PluginHost {
            id: id.to_owned(),
            message: format!(
                "it is not enabled for agent `{agent}` in the shared registry; `hookrig plugins \
                 enable {id} --store URL --agent {agent}` (or `--all`) enables it"
            ),
        })
    }

    /// Every package whose registry row verifies and whose copy here has the digest
    /// signed, with only its enablement rows that verify, as `hookrig plugins list
    /// --store` shows them; and one line per row left out.
    pub fn entries(&self) -> Result<(Vec<PluginEntry>, Vec<String>), StoreError> {
        let key = self.key()?;
        let mut skipped = Vec::new();
        let mut entries = Vec::new();
        for signed in self.store.plugins().signed()? {
            if let Some(why) = signed
                .unsigned(&key)
                .or_else(|| signed.changed(&mut digest_of))
            {
                skipped.push(why);
                continue;
            }
            let mut agents = Vec::new();
            for row in &signed.agents {
                if key.verifies_enablement(
                    &signed.plugin.id,
                    &row.agent,
                    row.enabled,
                    &row.signature,
                ) {
                    agents.push(AgentEnablement {
                        agent: row.agent.clone(),
                        enabled: row.enabled,
                    });
                } else {
                    skipped.push(format!(
                        "shared plugin `{}`: its enablement row for agent `{}` does not carry \
                         this node's registry key signature; the row is ignored",
                        signed.plugin.id, row.agent
                    ));
                }
            }
            entries.push(PluginEntry {
                plugin: signed.plugin,
                agents,
            });
        }
        Ok((entries, skipped))
    }

    /// Checks the package of `registration` and registers it, signed (the key is made
    /// by this first write when there is none); returns the row.
    pub fn register(
        &self,
        scope: &Scope,
        registration: Registration<'_>,
        warn: &mut dyn FnMut(&Diagnostic),
    ) -> Result<PluginRow, RuntimeError> {
        let key = RegistryKey::load_or_create(&self.key)?;
        let row = checked_row(scope, registration, warn)?;
        let digest =
            digest_of(Path::new(&row.path)).ok_or_else(|| RuntimeError::UnreadablePackage {
                path: PathBuf::from(&row.path),
            })?;
        let plugins = self.store.plugins();
        plugins
            .register_signed(&row, &digest, &key)
            .map_err(|err| match err {
                StoreError::DuplicatePlugin { id } => RuntimeError::DuplicatePlugin {
                    path: plugins
                        .get(&id)
                        .ok()
                        .flatten()
                        .map(|p| p.path)
                        .unwrap_or_default(),
                    id,
                },
                other => other.into(),
            })?;
        Ok(row)
    }

    /// Enables or disables the package `id` for `agent` (`*` for all), signed.
    pub fn set_enabled(&self, id: &str, agent: &str, enabled: bool) -> Result<(), StoreError> {
        let key = RegistryKey::load_or_create(&self.key)?;
        self.store
            .plugins()
            .set_enabled_signed(id, agent, enabled, &key)
    }

    /// Forgets the package `id` and its enablement rows.
    pub fn delete(&self, id: &str) -> Result<(), StoreError> {
        self.store.plugins().delete(id)
    }

    fn key(&self) -> Result<RegistryKey, StoreError> {
        RegistryKey::load(&self.key)?.ok_or_else(|| StoreError::RegistryKey {
            path: self.key.clone(),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "this node holds no registry key; copy the operator's (docs/postgres.md, \
                 \"Plugins\")",
            ),
        })
    }

    fn verified(&self, agent: Option<&str>) -> Result<hookrig_store::Verified, StoreError> {
        let key = self.key()?;
        if self.keep
            && let Some(cache) = RegistryCache::of(&self.store)
        {
            return cache.verified(&self.store, &key, agent);
        }
        let signed = self.store.plugins().signed()?;
        Ok(SignedPlugin::verified_for(
            &signed,
            &key,
            agent,
            &mut digest_of,
        ))
    }
}

fn digest_of(dir: &Path) -> Option<String> {
    hookrig_dialects::package_digest(dir)
}
