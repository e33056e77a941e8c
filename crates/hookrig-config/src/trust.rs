//! Trust: project hooks come with a repository, so they run only once the user has
//! approved them, and again only while they stay as approved.
//!
//! For each project hook the store keeps a SHA-256 of its definition (dialect, name,
//! events, matcher, command, environment, mode, timeout, failure policy) and of the
//! files its command names (its script, wherever it lies, with the dialect's variables
//! expanded). A hook whose hashes are missing from the store or differ from it is
//! untrusted: it is listed and reported, never run. User-level and managed hooks are the user's own and always trusted.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::environment::{Environment, Project};
use hookrig_core::{Diagnostic, Severity};

use crate::consulted::Kept;
use crate::errors::TrustError;

/// The trust store file under the user's state directory.
pub fn trust_store_path(env: &Environment) -> PathBuf {
    env.state_home.join("hookrig").join("trust.json")
}

/// What the store remembers of one trusted hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustedHook {
    /// The file that declared the hook.
    pub source: PathBuf,
    /// The hook's name.
    pub name: String,
    /// Its dialect.
    pub dialect: String,
    /// SHA-256 of its definition.
    pub definition: String,
    /// The script it runs and its SHA-256, when the script lies inside the project.
    pub script: Option<(PathBuf, String)>,
    /// When it was trusted (unix milliseconds).
    pub trusted_at_ms: i64,
    /// The files outside the project that the script hash covers, as they were when
    /// hashed: a check takes the hash of a file that kept its stamp instead of reading
    /// it again (a hook run by `node` would otherwise hash the whole interpreter on
    /// every emit where the system's programs are not told apart by owner).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stamps: Vec<FileStamp>,
}

/// A file's hash with what identifies its content without reading it: device, inode,
/// size, and modification and change times. Any write changes the change time (which
/// no user can set back), a replacement changes the inode, so a file that keeps all of
/// them keeps its content. A file changed less than [`FileStamp::SETTLED`] before it
/// was read is not stamped: within the clock's coarse tick a later write could keep
/// every time as it was (git's "racily clean" files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    /// The file.
    pub path: PathBuf,
    /// Its SHA-256, as [`content_hash`] gives it.
    pub hash: String,
    /// Its device.
    pub dev: u64,
    /// Its inode.
    pub ino: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, in nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// Its change time (of content or metadata), in nanoseconds since the Unix epoch.
    pub ctime_ns: i64,
}

impl FileStamp {
    /// How long before its reading a file must have last changed to be stamped.
    pub const SETTLED: std::time::Duration = std::time::Duration::from_secs(2);

    /// The stamp of `path`, whose metadata `meta` was taken before its content was read
    /// and hashed into `hash` at `read_at`; `None` while the file is not settled.
    pub fn of(
        path: &Path,
        meta: &std::fs::Metadata,
        hash: String,
        read_at: std::time::SystemTime,
    ) -> Option<FileStamp> {
        use std::os::unix::fs::MetadataExt as _;
        let stamp = FileStamp {
            path: path.to_owned(),
            hash,
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: nanos(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: nanos(meta.ctime(), meta.ctime_nsec()),
        };
        let read_ns = read_at
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .and_then(|since| i64::try_from(since.as_nanos()).ok())?;
        let settled = i64::try_from(Self::SETTLED.as_nanos()).unwrap_or(i64::MAX);
        (stamp.ctime_ns.max(stamp.mtime_ns) <= read_ns.saturating_sub(settled)).then_some(stamp)
    }

    /// Whether the file whose metadata is `meta` is still the one stamped.
    pub fn matches(&self, meta: &std::fs::Metadata) -> bool {
        use std::os::unix::fs::MetadataExt as _;
        self.dev == meta.dev()
            && self.ino == meta.ino()
            && self.size == meta.size()
            && self.mtime_ns == nanos(meta.mtime(), meta.mtime_nsec())
            && self.ctime_ns == nanos(meta.ctime(), meta.ctime_nsec())
    }
}

/// Seconds and nanoseconds as one count of nanoseconds (good until 2262).
fn nanos(seconds: i64, nanoseconds: i64) -> i64 {
    seconds
        .saturating_mul(1_000_000_000)
        .saturating_add(nanoseconds)
}

/// The trust store: trusted project hooks by key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustStore {
    /// Format version, for future migrations.
    pub version: u32,
    /// Every project's hooks and files are trusted as they are, whatever they are
    /// (`hookrig trust --any-project`): for a container or CI machine whose every
    /// checkout is the thing being tested. Kept here, in the user's own state, because
    /// nothing a repository brings can write it before something of it has run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub any_project: bool,
    /// Trusted hooks by their key (`hookrig_dialects::hook_key` for a hook).
    pub hooks: BTreeMap<String, TrustedHook>,
}

/// Why a project hook is not trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distrust {
    /// It was never trusted.
    New,
    /// Its definition changed since it was trusted.
    DefinitionChanged,
    /// The script it runs changed since it was trusted.
    ScriptChanged,
}

impl TrustStore {
    /// Reads the store; a missing file is an empty store.
    pub fn load(path: &Path) -> Result<TrustStore, TrustError> {
        crate::consulted::note(path);
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|reason| TrustError::Corrupt {
                path: path.to_owned(),
                reason,
            }),
            Err(err) if err.kind() == ErrorKind::NotFound => Ok(TrustStore {
                version: 1,
                ..TrustStore::default()
            }),
            Err(source) => Err(TrustError::Read {
                path: path.to_owned(),
                source,
            }),
        }
    }

    /// Writes the store atomically (a temporary file renamed over the old one), so a
    /// crash or a concurrent `hookrig trust` never leaves half a file.
    ///
    /// # Panics
    ///
    /// Never: the store is plain data that always serializes.
    pub fn save(&self, path: &Path) -> Result<(), TrustError> {
        let write = |source| TrustError::Write {
            path: path.to_owned(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(write)?;
        }
        let text = serde_json::to_string_pretty(self).expect("the trust store serializes");
        let temporary = path.with_extension(format!("json.{}.tmp", std::process::id()));
        std::fs::write(&temporary, text).map_err(write)?;
        std::fs::rename(&temporary, path).map_err(write)
    }

    /// Reads the store, lets `change` modify it and writes it back, all under an
    /// exclusive lock on `<store>.lock`, so that concurrent `hookrig trust` commands
    /// (a trust and a revoke, or eight trusts at once) each see the others' changes and
    /// none is lost. The store itself is still replaced atomically, so readers, which
    /// take no lock, see either the old file or the new one.
    ///
    /// Nothing is written when `change` fails.
    pub fn update<T, E: From<TrustError>>(
        path: &Path,
        change: impl FnOnce(&mut TrustStore) -> Result<T, E>,
    ) -> Result<T, E> {
        let lock_path = path.with_extension("json.lock");
        let lock_error = |source| TrustError::Lock {
            path: lock_path.clone(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(lock_error)?;
        }
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(lock_error)?;
        // Blocks until every other holder is done; the lock goes with the file handle
        // (also when the process dies), so a crashed `hookrig trust` never leaves it held.
        lock.lock().map_err(lock_error)?;
        let mut store = TrustStore::load(path)?;
        let value = change(&mut store)?;
        store.save(path)?;
        drop(lock);
        Ok(value)
    }

    /// Forgets every hook declared in a file under `dir`; returns how many.
    pub fn revoke_under(&mut self, dir: &Path) -> usize {
        let before = self.hooks.len();
        self.hooks.retain(|_, hook| !hook.source.starts_with(dir));
        before - self.hooks.len()
    }
}

/// The store key of a project file trusted as a whole by its content (`kind` is
/// `config` or `validator`): unlike hooks, such a file has no name of its own.
pub fn file_trust_key(kind: &str, path: &Path) -> String {
    format!("{kind}#{}", path.display())
}

impl TrustStore {
    /// Whether the file under `key` is trusted with exactly `bytes`; `None` when it is.
    /// Every project is trusted when the machine-wide switch is on (`hookrig trust
    /// --any-project`).
    pub fn check_file(&self, key: &str, bytes: &[u8]) -> Option<Distrust> {
        if self.any_project {
            return None;
        }
        self.check_file_recorded(key, bytes)
    }

    /// Whether the store records the file under `key` as trusted with exactly `bytes`,
    /// whatever the machine-wide switch says.
    pub fn check_file_recorded(&self, key: &str, bytes: &[u8]) -> Option<Distrust> {
        match self.hooks.get(key) {
            None => Some(Distrust::New),
            Some(trusted) if trusted.definition != content_hash(bytes) => {
                Some(Distrust::DefinitionChanged)
            }
            Some(_) => None,
        }
    }

    /// Records the project file `path` (of `kind`, shown as its dialect by `hookrig trust
    /// --list`) as trusted with its content `bytes`; returns whether that changed the
    /// store (false when it was already trusted as it is).
    pub fn trust_file(&mut self, kind: &str, path: &Path, bytes: &[u8], now_ms: i64) -> bool {
        let key = file_trust_key(kind, path);
        let changed = self.check_file_recorded(&key, bytes).is_some();
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        self.hooks.insert(
            key,
            TrustedHook {
                source: path.to_owned(),
                name,
                dialect: kind.to_owned(),
                definition: content_hash(bytes),
                script: None,
                trusted_at_ms: now_ms,
                stamps: Vec::new(),
            },
        );
        changed
    }
}

/// The project's validators (`hookrig plan validate`), in run order: the nearest
/// `.hookrig/validators/` then `.hence/validators/` of `project`, each by file name;
/// names starting with `.` (editor and VCS files) are left out. They come with the
/// repository, so each runs only once trusted by its content.
pub fn project_validators(project: &Project) -> Vec<(String, PathBuf)> {
    let mut validators = Vec::new();
    for tool in [".hookrig", ".hence"] {
        let Some(dir) = project.nearest_dir(&format!("{tool}/validators")) else {
            continue;
        };
        let Ok(read) = std::fs::read_dir(&dir) else {
            // A missing directory means no custom validation there, not an error.
            continue;
        };
        let mut found: Vec<(String, PathBuf)> = read
            .filter_map(Result::ok)
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .filter(|e| e.path().is_file())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .collect();
        found.sort();
        validators.extend(found);
    }
    validators
}

/// Reads the trust store for a check, never failing: a store that cannot be read
/// trusts nothing, and the warning that says so is returned beside it.
///
/// The store read last is kept with its file's identity and handed out again while
/// the file stays as it was: a resident engine checks trust on every emit, and parsing
/// a store that has grown with every trusted project costs more than the rest of a
/// short emit. `hookrig trust` replaces the file (a new inode), and a store written in
/// the last two seconds is read again each time (see [`crate::consulted::SETTLE`]).
pub fn load_or_warn(env: &Environment, what: &str) -> (Arc<TrustStore>, Option<Diagnostic>) {
    static KEPT: Kept<PathBuf, Arc<TrustStore>> = Kept::new(1);
    let path = trust_store_path(env);
    // Noted for the load this check is part of, if it is recorded: the kept store's own
    // record below does not reach it.
    crate::consulted::note(&path);
    let (loaded, _) = KEPT.get_or_try_load(&path, || {
        crate::consulted::note(&path);
        TrustStore::load(&path).map(Arc::new)
    });
    match loaded {
        Ok(store) => (store, None),
        Err(err) => (
            Arc::new(TrustStore::default()),
            Some(Diagnostic::file(
                &path,
                Severity::Warning,
                format!(
                    "{}; no {what} is trusted until the file is fixed or removed",
                    crate::errors::without_path(&err)
                ),
            )),
        ),
    }
}

/// The project directory a project file belongs to: the nearest directory of the walk
/// that holds it.
pub fn project_dir(source: &Path, project: &Project) -> Option<PathBuf> {
    project
        .walk
        .iter()
        .find(|dir| source.starts_with(dir))
        .cloned()
}

/// The SHA-256 of `bytes` in lowercase hex: what the trust store keeps for a file or a
/// definition.
pub fn content_hash(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest {
        hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    hex
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn env(root: &Path) -> Environment {
        let vars = |name: &str| (name == "HOME").then(|| root.as_os_str().to_owned());
        Environment::from_vars(root.to_owned(), vars).expect("env")
    }

    #[test]
    fn any_project_trusts_every_file_and_leaves_the_records_alone() {
        // guards: the machine-wide switch trusts what no record covers, is read from a
        // store written before it existed as off, and is only written when on
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("trust.json");
        std::fs::write(&path, r#"{"version": 1, "hooks": {}}"#).expect("write");
        let mut store = TrustStore::load(&path).expect("load");
        assert!(!store.any_project);
        let key = file_trust_key("config", Path::new("/p/config.toml"));
        assert_eq!(store.check_file(&key, b"x"), Some(Distrust::New));
        store.any_project = true;
        assert_eq!(store.check_file(&key, b"x"), None);
        assert_eq!(store.check_file_recorded(&key, b"x"), Some(Distrust::New));
        assert!(
            store.trust_file("config", Path::new("/p/config.toml"), b"x", 1),
            "recording a file the switch covers still changes the store"
        );
        store.save(&path).expect("save");
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(text.contains(r#""any_project": true"#), "{text}");
        store.any_project = false;
        store.save(&path).expect("save");
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(!text.contains("any_project"), "{text}");
    }

    #[test]
    fn the_store_is_kept_while_unchanged_and_read_again_once_replaced() {
        // guards: a kept store never outlives a trust or a revoke: `hookrig trust`
        // replaces the file, and the next check reads the new one; a store written just
        // now is never kept (an edit in the same instant could keep its identity)
        let dir = tempfile::tempdir().expect("tempdir");
        let env = env(dir.path());
        let path = trust_store_path(&env);
        let bytes = b"[settings]\n";
        let key = file_trust_key("config", Path::new("/p/config.toml"));
        let trust = |trusted: bool| {
            let mut store = TrustStore::default();
            if trusted {
                store.trust_file("config", Path::new("/p/config.toml"), bytes, 1);
            }
            store.save(&path).expect("save");
        };
        let trusted_now = || {
            load_or_warn(&env, "test")
                .0
                .check_file(&key, bytes)
                .is_none()
        };

        trust(true);
        assert!(trusted_now(), "a store written just now is read");
        trust(false);
        assert!(!trusted_now(), "and read again at once");

        std::thread::sleep(crate::consulted::SETTLE + Duration::from_millis(200));
        let (first, _) = load_or_warn(&env, "test");
        let (second, _) = load_or_warn(&env, "test");
        assert!(Arc::ptr_eq(&first, &second), "a settled store is kept");
        trust(true);
        assert!(trusted_now(), "a replaced store is read again");
    }
}
