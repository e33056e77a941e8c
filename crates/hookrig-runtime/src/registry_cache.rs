//! What a node keeps of the shared plugin registry between the emits it answers
//! (docs/postgres.md, "Plugins"): the rows it read and, for each agent, which packages
//! the operator's signatures let it run; and the digest of each package's copy.
//!
//! The rows are kept until the registry changes: every write of it notifies the nodes
//! (a trigger of the database), which [`RegistryChanges`] counts, and what was read under
//! one count is used only while the count is the same. While the node is not listening
//! (its connection lost, not connected yet) nothing is kept, and each emit reads the
//! registry as before.
//!
//! A copy's digest is kept while none of the files and directories it read changed (a
//! `stat` of each at every emit, the config cache's rule: `hookrig_config::consulted`):
//! so a copy changed after the operator signed it is never run, however warm the
//! cache. A file watch would tell later, and not at all when its queue overflows.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use hookrig_config::consulted::Kept;
use hookrig_store::{
    ALL_AGENTS, PgStore, RegistryChanges, RegistryKey, Signed, SignedPlugin, StoreError, Verified,
};

/// How many copies' digests a node keeps.
const DIGESTS: usize = 256;

/// How many agents' lists a node keeps before it starts again: an agent is any name a
/// host gives.
const AGENTS: usize = 256;

/// `HOOKRIG_REGISTRY_CACHE=off` in the environment of a serve node (or engine) makes it
/// read the registry at every emit, as before there was a cache: to measure what the
/// cache saves, or to rule it out. Read once, from the process's own environment (the
/// operator's), never from a host's.
pub(crate) const CACHE_OFF: &str = "HOOKRIG_REGISTRY_CACHE";

/// The cache of one database's registry, shared by every emit of the process.
#[derive(Debug)]
pub(crate) struct RegistryCache {
    changes: RegistryChanges,
    kept: Mutex<KeptRows>,
    digests: Kept<PathBuf, Option<String>>,
}

/// What was read under one count of changes.
#[derive(Debug, Default)]
struct KeptRows {
    /// The count it was read under (0: nothing kept).
    count: u64,
    rows: Option<Arc<Vec<SignedPlugin>>>,
    /// The key the lists were verified with: a key copied anew verifies them again.
    key: Option<RegistryKey>,
    /// Per agent (`*` for none), what the signatures let the node run.
    agents: HashMap<String, Arc<Signed>>,
}

impl RegistryCache {
    /// The cache of `store`'s database, made (and its listener started) by the first
    /// call for it in this process. `None` when the listener cannot be started, or the
    /// operator turned the cache off for the process ([`CACHE_OFF`]): the registry is
    /// then read at each emit.
    pub(crate) fn of(store: &PgStore) -> Option<Arc<RegistryCache>> {
        static OFF: OnceLock<bool> = OnceLock::new();
        static CACHES: OnceLock<Mutex<HashMap<String, Arc<RegistryCache>>>> = OnceLock::new();
        if *OFF.get_or_init(|| std::env::var_os(CACHE_OFF).is_some_and(|v| v == "off")) {
            return None;
        }
        let mut caches = CACHES
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(cache) = caches.get(store.database()) {
            return Some(Arc::clone(cache));
        }
        let database = store.database().to_owned();
        let changes = RegistryChanges::start(
            store,
            move |err| {
                tracing::warn!(
                    "the shared plugin registry is read at every emit until this node hears \
                     its changes again: {}",
                    crate::ledger::chain(err)
                );
            },
            move || {
                tracing::info!("hearing the changes of the plugin registry of {database} again");
            },
        );
        let changes = match changes {
            Ok(changes) => changes,
            Err(err) => {
                tracing::warn!(
                    "the shared plugin registry is read at every emit: {}",
                    crate::ledger::chain(&err)
                );
                return None;
            }
        };
        let cache = Arc::new(RegistryCache {
            changes,
            kept: Mutex::default(),
            digests: Kept::new(DIGESTS),
        });
        caches.insert(store.database().to_owned(), Arc::clone(&cache));
        Some(cache)
    }

    /// [`SignedPlugin::verified_for`] of `store`'s registry, from what is kept where
    /// the registry did not change since.
    pub(crate) fn verified(
        &self,
        store: &PgStore,
        key: &RegistryKey,
        agent: Option<&str>,
    ) -> Result<Verified, StoreError> {
        let signed = self.signed(store, key, agent)?;
        Ok(signed.checked(&mut |path| self.digest(path)))
    }

    /// The digest of the copy at `path`, kept while nothing it read changed.
    pub(crate) fn digest(&self, path: &Path) -> Option<String> {
        self.digests
            .get_or_load(&path.to_owned(), || hookrig_dialects::package_digest(path))
            .0
    }

    fn signed(
        &self,
        store: &PgStore,
        key: &RegistryKey,
        agent: Option<&str>,
    ) -> Result<Arc<Signed>, StoreError> {
        let name = agent.unwrap_or(ALL_AGENTS);
        // Taken before reading: a change heard while reading makes the next emit read
        // again.
        let count = self.changes.count();
        let rows = match count {
            Some(count) => {
                let kept = self.lock();
                if kept.count == count {
                    if kept.key.as_ref() == Some(key)
                        && let Some(signed) = kept.agents.get(name)
                    {
                        return Ok(Arc::clone(signed));
                    }
                    kept.rows.clone()
                } else {
                    None
                }
            }
            None => None,
        };
        let rows = match rows {
            Some(rows) => rows,
            None => Arc::new(store.plugins().signed()?),
        };
        let signed = Arc::new(SignedPlugin::signed_for(&rows, key, agent));
        if let Some(count) = count {
            let mut kept = self.lock();
            if kept.count != count || kept.key.as_ref() != Some(key) {
                kept.agents.clear();
            }
            if kept.agents.len() >= AGENTS {
                kept.agents.clear();
            }
            kept.count = count;
            kept.rows = Some(rows);
            kept.key = Some(key.clone());
            kept.agents.insert(name.to_owned(), Arc::clone(&signed));
        }
        Ok(signed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, KeptRows> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use hookrig_store::PluginRow;
    use hookrig_test_support::TestDatabase;

    use super::*;

    // guards: a node reads the registry again only after a change is heard, and uses
    // what it read until then (a read of the tables would fail here)
    #[test]
    fn what_was_read_is_used_until_a_change_of_the_registry_is_heard() {
        let Some(db) = TestDatabase::create("registry_cache_kept") else {
            return;
        };
        let dir = tempfile::tempdir().expect("temp dir");
        let package = dir.path().join("gate");
        std::fs::create_dir(&package).expect("mkdir");
        std::fs::write(package.join("plugin.json"), r#"{"name": "gate"}"#).expect("write");
        let key = RegistryKey::load_or_create(&dir.path().join("registry.key")).expect("key");
        let store = PgStore::open(db.url()).expect("open");
        let row = PluginRow {
            id: "gate".to_owned(),
            name: "gate".to_owned(),
            description: String::new(),
            path: package.display().to_string(),
            version: None,
            registered_at_ms: 1,
        };
        let digest = hookrig_dialects::package_digest(&package).expect("a digest");
        store
            .plugins()
            .register_signed(&row, &digest, &key)
            .expect("register");
        store
            .plugins()
            .set_enabled_signed("gate", "*", true, &key)
            .expect("enable");
        let cache = RegistryCache::of(&store).expect("a cache");
        hookrig_test_support::wait_until("listening", std::time::Duration::from_mins(1), || {
            cache.changes.count()
        });
        let run = || {
            let verified = cache.verified(&store, &key, Some("coder"))?;
            Ok::<_, StoreError>(
                verified
                    .packages
                    .into_iter()
                    .map(|p| p.id)
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(run().expect("read"), ["gate"]);

        // The tables out of a query's reach: what was kept answers.
        let mut sql = db.connect();
        sql.batch_execute("ALTER TABLE agent_plugins RENAME TO away")
            .expect("rename");
        assert_eq!(run().expect("kept"), ["gate"]);
        sql.batch_execute("ALTER TABLE away RENAME TO agent_plugins")
            .expect("rename back");

        // A write is heard, and the next read sees it: the enablement row no longer
        // carries the operator's signature of what it says.
        sql.batch_execute("UPDATE agent_plugins SET enabled = NOT enabled")
            .expect("update");
        hookrig_test_support::wait_until(
            "the change to be read",
            std::time::Duration::from_mins(1),
            || run().expect("read").is_empty().then_some(()),
        );
    }
}
