//! Loaded config kept between emits by a resident engine.
//!
//! Reading and lowering every source is most of an emit's own cost once processes are
//! warm. A resident engine keeps each load it made, keyed by where and how it loaded
//! (the [`Environment`]: working directory, home and XDG directories, `trust_all`; and
//! the [`LoadOptions`]: plugin directories and packages), together with the identity of
//! every path the load consulted, the ones it found missing included
//! ([`hookrig_config::consulted`]). The next emit with the same key checks those
//! identities (one `stat` each) and reuses the load when none changed: an edited, new or
//! removed file is read again on the very next emit. Trust is not kept: it is checked on
//! every emit against the trust store and the scripts as they are then
//! ([`Sources::trusted`]).
//!
//! A one-shot `hookrig emit` loads once and exits: it keeps nothing, and pays for none
//! of this ([`keep_loads`] is only called by a resident engine).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use hookrig_config::Environment;
use hookrig_config::consulted::Kept;
use hookrig_dialects::{LoadOptions, LoadedConfig, Sources, read_sources};
use serde::{Deserialize, Serialize};

/// How many loads are kept: one per working directory and set of options an agent
/// emits from. The least recently used goes first.
const KEPT: usize = 32;

/// The cache of this process, once a resident engine asked for one.
static CACHE: OnceLock<ConfigCache> = OnceLock::new();

/// Makes this process keep its loads ([`load`] then uses the cache). Called by a
/// resident engine as it starts.
pub(crate) fn keep_loads() {
    let _ = CACHE.get_or_init(ConfigCache::default);
}

/// Loads the config for `env` with `options`: from the cache when this process keeps
/// its loads and nothing the kept load consulted changed, else from the files.
pub(crate) fn load(env: &Environment, options: &LoadOptions) -> LoadedConfig {
    match CACHE.get() {
        Some(cache) => cache.load(env, options),
        None => read_sources(env, options).into_trusted(env, options.trust_only_for.as_ref()),
    }
}

/// What the cache holds, for `hookrig engine status`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheStatus {
    /// Loads kept.
    pub configs: usize,
    /// Paths watched for changes over every kept load (files read, directories listed,
    /// paths found missing).
    pub sources: usize,
    /// Emits whose config came from the cache.
    pub hits: u64,
    /// Emits whose config was read from the files (first use, or something changed).
    pub loads: u64,
}

/// The status of this process's cache; all zero when it keeps no loads.
pub(crate) fn status() -> CacheStatus {
    CACHE.get().map(ConfigCache::status).unwrap_or_default()
}

/// Kept loads, keyed by where and how each was made.
#[derive(Debug)]
struct ConfigCache {
    kept: Kept<(Environment, LoadOptions), Arc<Sources>>,
    hits: AtomicU64,
    loads: AtomicU64,
}

impl Default for ConfigCache {
    fn default() -> Self {
        Self {
            kept: Kept::new(KEPT),
            hits: AtomicU64::new(0),
            loads: AtomicU64::new(0),
        }
    }
}

impl ConfigCache {
    fn load(&self, env: &Environment, options: &LoadOptions) -> LoadedConfig {
        let only_for = options.trust_only_for.as_ref();
        // The key leaves out what trust is checked for: that differs on every emit.
        let key = (
            env.clone(),
            LoadOptions {
                trust_only_for: None,
                ..options.clone()
            },
        );
        let (sources, hit) = self
            .kept
            .get_or_load(&key, || Arc::new(read_sources(env, &key.1)));
        let counter = if hit { &self.hits } else { &self.loads };
        counter.fetch_add(1, Ordering::Relaxed);
        sources.trusted(env, only_for)
    }

    fn status(&self) -> CacheStatus {
        let (configs, sources) = self.kept.sizes();
        CacheStatus {
            configs,
            sources,
            hits: self.hits.load(Ordering::Relaxed),
            loads: self.loads.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;
    use hookrig_config::consulted;

    /// A home with a global hooks.toml and a project with its own, both old enough to
    /// be kept.
    struct World {
        _dir: tempfile::TempDir,
        env: Environment,
        project: PathBuf,
    }

    fn hook(name: &str) -> String {
        format!("[[hooks]]\nname = \"{name}\"\nevents = [\"tool.before\"]\ncommand = \"true\"\n")
    }

    /// Waits until every file written so far is old enough for a load of it to be
    /// kept (see [`consulted::SETTLE`]).
    fn settle() {
        std::thread::sleep(consulted::SETTLE + Duration::from_millis(200));
    }

    fn world() -> World {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let home = root.join("home");
        let project = root.join("project");
        std::fs::create_dir_all(home.join(".config/hookrig")).expect("mkdir");
        std::fs::create_dir_all(project.join(".git")).expect("mkdir");
        let global = home.join(".config/hookrig/hooks.toml");
        std::fs::write(&global, hook("mine")).expect("write");
        let vars = |name: &str| match name {
            "HOME" => Some(home.clone().into_os_string()),
            _ => None,
        };
        let env = Environment {
            trust_all: true,
            ..Environment::from_vars(project.clone(), vars).expect("env")
        };
        World {
            _dir: dir,
            env,
            project,
        }
    }

    fn names(config: &LoadedConfig) -> Vec<String> {
        config.hooks.iter().map(|h| h.spec.name.clone()).collect()
    }

    #[test]
    fn an_unchanged_load_is_reused_and_a_new_project_file_is_seen() {
        // guards: the second emit reads nothing but identities; a file that was missing
        // and appears is read on the next emit, and so is a removal
        let w = world();
        let cache = ConfigCache::default();
        let options = LoadOptions::default();
        settle();
        assert_eq!(names(&cache.load(&w.env, &options)), ["mine"]);
        assert_eq!(names(&cache.load(&w.env, &options)), ["mine"]);
        let status = cache.status();
        assert_eq!((status.loads, status.hits, status.configs), (1, 1, 1));
        assert!(
            status.sources > 5,
            "missing candidates are watched too: {status:?}"
        );

        let file = w.project.join(".hookrig/hooks.toml");
        std::fs::create_dir_all(file.parent().expect("dir")).expect("mkdir");
        std::fs::write(&file, hook("theirs")).expect("write");
        assert_eq!(names(&cache.load(&w.env, &options)), ["mine", "theirs"]);
        assert_eq!(cache.status().loads, 2);

        std::fs::remove_file(&file).expect("rm");
        assert_eq!(names(&cache.load(&w.env, &options)), ["mine"]);
    }

    #[test]
    fn a_gemini_extension_installed_after_a_load_is_seen_by_the_next() {
        // guards: the Gemini CLI loader lists the extensions folder and tests its entries
        // through `consulted`, so a kept load is not used once an extension appears, and
        // one turned off for the directory is dropped by the next load
        let w = world();
        let extensions = w.env.home.join(".gemini/extensions");
        std::fs::create_dir_all(&extensions).expect("mkdir");
        settle();
        let cache = ConfigCache::default();
        let options = LoadOptions::default();
        assert_eq!(names(&cache.load(&w.env, &options)), ["mine"]);
        assert_eq!(names(&cache.load(&w.env, &options)), ["mine"]);
        assert_eq!(cache.status().hits, 1, "kept while nothing changed");

        let folder = extensions.join("guard");
        std::fs::create_dir_all(folder.join("hooks")).expect("mkdir");
        std::fs::write(
            folder.join("gemini-extension.json"),
            r#"{"name": "guard", "version": "1.0.0"}"#,
        )
        .expect("write");
        std::fs::write(
            folder.join("hooks/hooks.json"),
            r#"{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
        )
        .expect("write");
        let extension = "gemini:extension-guard:BeforeTool:1";
        assert_eq!(names(&cache.load(&w.env, &options)), ["mine", extension]);

        let off = format!(
            r#"{{"guard": {{"overrides": ["!{}/*"]}}}}"#,
            w.project.display()
        );
        std::fs::write(extensions.join("extension-enablement.json"), off).expect("write");
        assert_eq!(names(&cache.load(&w.env, &options)), ["mine"]);
    }

    #[test]
    fn a_codex_plugin_installed_after_a_load_is_seen_by_the_next() {
        // guards: the Codex loader lists a plugin's version folders and reads its files
        // through `consulted`, so a kept load is not used once an enabled plugin is
        // installed, and one turned off in config.toml is dropped by the next load
        let w = world();
        let codex = w.env.home.join(".codex");
        std::fs::create_dir_all(&codex).expect("mkdir");
        let config = codex.join("config.toml");
        std::fs::write(&config, "[plugins.\"guard@market\"]\nenabled = true\n").expect("write");
        settle();
        let cache = ConfigCache::default();
        let options = LoadOptions::default();
        assert_eq!(names(&cache.load(&w.env, &options)), ["mine"]);
        assert_eq!(names(&cache.load(&w.env, &options)), ["mine"]);
        assert_eq!(cache.status().hits, 1, "kept while nothing changed");

        let root = codex.join("plugins/cache/market/guard/local");
        std::fs::create_dir_all(root.join(".codex-plugin")).expect("mkdir");
        std::fs::create_dir_all(root.join("hooks")).expect("mkdir");
        std::fs::write(
            root.join(".codex-plugin/plugin.json"),
            r#"{"name": "guard"}"#,
        )
        .expect("write");
        std::fs::write(
            root.join("hooks/hooks.json"),
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
        )
        .expect("write");
        let plugin = "codex:plugin:guard@market:PreToolUse:1";
        assert_eq!(names(&cache.load(&w.env, &options)), ["mine", plugin]);

        std::fs::write(&config, "[plugins.\"guard@market\"]\nenabled = false\n").expect("write");
        assert_eq!(names(&cache.load(&w.env, &options)), ["mine"]);
    }

    #[test]
    fn a_load_of_files_just_written_is_read_again_next_time() {
        // guards: an edit within the timestamp granularity could keep a file's identity;
        // such a load is not kept, so a same-size rewrite right after is still seen
        let w = world();
        let cache = ConfigCache::default();
        let options = LoadOptions::default();
        let global = w.env.config_home.join("hookrig/hooks.toml");
        std::fs::write(&global, hook("aaaa")).expect("write");
        assert_eq!(names(&cache.load(&w.env, &options)), ["aaaa"]);
        assert_eq!(cache.status().configs, 0, "not kept");
        std::fs::write(&global, hook("bbbb")).expect("write");
        assert_eq!(names(&cache.load(&w.env, &options)), ["bbbb"]);
    }

    #[test]
    fn trust_is_checked_on_every_use() {
        // guards: a kept load never carries trust over: a project hook is refused until
        // the trust store trusts it, and again once its script changes
        let w = world();
        let env = Environment {
            trust_all: false,
            ..w.env.clone()
        };
        let file = w.project.join(".hookrig/hooks.toml");
        std::fs::create_dir_all(file.parent().expect("dir")).expect("mkdir");
        std::fs::write(&file, hook("theirs")).expect("write");
        settle();
        let cache = ConfigCache::default();
        let event = hookrig_dialects::events::parse("tool.before").expect("event");
        let options = LoadOptions {
            trust_only_for: Some((event, hookrig_core::Payload::new())),
            ..LoadOptions::default()
        };
        let untrusted = |config: &LoadedConfig| {
            config
                .hooks
                .iter()
                .find(|h| h.spec.name == "theirs")
                .expect("loaded")
                .spec
                .untrusted
                .is_some()
        };
        assert!(untrusted(&cache.load(&env, &options)));
        let scope = crate::Scope {
            env: env.clone(),
            agent: None,
            plan: None,
            store: env.state_home.join("ledger.db"),
            store_url: None,
            record: false,
            host_env: None,
            ledger_writers: None,
            shared_registry: None,
        };
        crate::trust::trust(&scope, &|_, _, _| Vec::new()).expect("trust");
        assert!(!untrusted(&cache.load(&env, &options)), "trusted now");
        assert_eq!(cache.status().hits, 1, "the load itself was kept");
    }
}
