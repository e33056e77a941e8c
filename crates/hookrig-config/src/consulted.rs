//! The files and directories a load consulted, each with the identity it had then, so
//! that a resident engine can keep a loaded config until one of them changes.
//!
//! Loading notes every path it looks at through [`note`]: the files it reads, the
//! directories it lists, and the paths it looks for and finds missing (a file that
//! appears later must be seen as a change as much as one that is edited or removed).
//! Noting costs nothing outside [`record`], so one-shot loads pay for none of it.
//!
//! A file's identity is its device, inode, size, modification and change times. The
//! change time catches what the others miss (a `chmod +x` that makes a Hence hook
//! runnable, a rename over a file with the same size and time). A file edited twice
//! within the file system's timestamp granularity keeps its identity, so a load that
//! consulted a file changed in the last [`SETTLE`] is not kept at all ([`Consulted::settled`]):
//! the next load reads it again, until it has been left alone long enough to be
//! told apart from its next edit.

use std::cell::RefCell;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How old every consulted path's last change must be for a load to be kept: longer
/// than the coarsest timestamp granularity of the file systems configs live on (one or
/// two seconds on some; a few milliseconds on most).
pub const SETTLE: Duration = Duration::from_secs(2);

/// What a path was when a load consulted it; `None` in [`Consulted`] when it did not
/// exist (or could not be examined).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl Identity {
    /// The identity of `path` now, following symbolic links (a repointed link is a
    /// change: its target's inode differs); `None` when there is nothing there.
    pub fn of(path: &Path) -> Option<Identity> {
        Some(Identity::from_metadata(&std::fs::metadata(path).ok()?))
    }

    fn from_metadata(meta: &std::fs::Metadata) -> Identity {
        let ns = |secs: i64, nanos: i64| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// When it last changed: the later of its modification and change times.
    fn changed_ns(self) -> i128 {
        self.mtime_ns.max(self.ctime_ns)
    }
}

/// Every path one load consulted, in the order first consulted, with its identity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Consulted {
    paths: Vec<(PathBuf, Option<Identity>)>,
}

impl Consulted {
    /// The paths and their identities.
    pub fn paths(&self) -> impl Iterator<Item = (&Path, Option<Identity>)> {
        self.paths.iter().map(|(path, id)| (path.as_path(), *id))
    }

    /// How many paths were consulted.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// Whether every path is still what it was: same file, same size and times, or
    /// still missing.
    pub fn unchanged(&self) -> bool {
        self.paths
            .iter()
            .all(|(path, identity)| Identity::of(path) == *identity)
    }

    /// Whether `now`, every consulted path that exists last changed more than
    /// [`SETTLE`] ago, so that its next change will show in its identity.
    pub fn settled(&self, now: SystemTime) -> bool {
        let Ok(now) = now.duration_since(UNIX_EPOCH) else {
            return false;
        };
        let limit = i128::try_from(now.saturating_sub(SETTLE).as_nanos()).unwrap_or(i128::MAX);
        self.paths
            .iter()
            .filter_map(|(_, identity)| *identity)
            .all(|identity| identity.changed_ns() < limit)
    }

    /// `path` alone, as it is now.
    pub fn of(path: &Path) -> Consulted {
        let mut consulted = Consulted::default();
        consulted.add(path);
        consulted
    }

    fn add(&mut self, path: &Path) {
        if self.paths.iter().any(|(seen, _)| seen == path) {
            return;
        }
        // What the load sees, so that a noted path costs no second look.
        let identity = look(path).as_ref().map(Identity::from_metadata);
        self.paths.push((path.to_owned(), identity));
    }
}

thread_local! {
    /// The record of the load running on this thread, if one is recorded.
    static RECORDING: RefCell<Option<Consulted>> = const { RefCell::new(None) };
}

/// Notes that the load running on this thread consulted `path` (read it, listed it, or
/// looked for it). Call it before looking: a change between the note and the read then
/// shows as a changed identity at the next check, never as a missed one.
pub fn note(path: &Path) {
    RECORDING.with(|recording| {
        if let Some(consulted) = recording.borrow_mut().as_mut() {
            consulted.add(path);
        }
    });
}

/// Whether `path` is a file (following links), noted.
pub fn is_file(path: &Path) -> bool {
    note(path);
    look(path).is_some_and(|meta| meta.is_file())
}

/// Whether `path` is a directory (following links), noted.
pub fn is_dir(path: &Path) -> bool {
    note(path);
    looks_like_dir(path)
}

/// Whether anything is at `path`, noted.
pub fn exists(path: &Path) -> bool {
    note(path);
    look(path).is_some()
}

/// Whether `path` is a directory (following links), not noted: for the walks that
/// resolve paths rather than consult them.
pub(crate) fn looks_like_dir(path: &Path) -> bool {
    look(path).is_some_and(|meta| meta.is_dir())
}

/// A map keyed by a path's bytes. Every look of an emit goes through these maps, and
/// `Path`'s own hash walks the path's components: the bytes, hashed by foldhash, cost a
/// fraction of it (docs/PERFORMANCE.md). Two spellings of one path are two keys, which
/// costs at most a second look.
type ByPath<V> = std::collections::HashMap<OsString, V, foldhash::fast::FixedState>;

/// What one load found at the paths it looked at, while [`looking`].
#[derive(Default)]
struct Looks {
    /// Each path's metadata (links followed), or why it could not be examined.
    metadata: ByPath<Result<std::fs::Metadata, LookError>>,
    /// The paths found missing, the directories among them making what lies under them
    /// missing: a handful per load, so a list compared by bytes.
    missing: Vec<OsString>,
    /// The directories under which one path was found missing, not looked at yet.
    missed_once_in: Vec<OsString>,
    /// Each path's canonical form; `None` when it could not be resolved.
    real: ByPath<Option<PathBuf>>,
}

thread_local! {
    /// The looks of the load running on this thread, while [`looking`].
    static LOOKS: RefCell<Option<Looks>> = const { RefCell::new(None) };
}

/// Runs `load` examining each path once: the hosts' loaders ask about the same files
/// (Codex's `config.toml` by seven of them, the project's directories by every walk),
/// and each look is a system call. What `load` sees is the file system as it first
/// looked, which is what one load must see anyway to be consistent. Nested calls share
/// the outer looks.
///
/// Most hosts' directories are missing on a given machine (`~/.gemini`, a project's
/// `.cursor`), and some loaders look for several files in one: on the second path found
/// missing in a directory, the directory is looked at too, and a path under a directory
/// found missing is missing without a look of its own.
///
/// Only for loads that read: a caller that writes a file and then looks for it must do
/// so outside.
pub fn looking<R>(load: impl FnOnce() -> R) -> R {
    let outer = LOOKS.with(|looks| {
        let mut looks = looks.borrow_mut();
        let outer = looks.is_some();
        if !outer {
            *looks = Some(Looks::default());
        }
        outer
    });
    let result = load();
    if !outer {
        LOOKS.with(|looks| looks.borrow_mut().take());
    }
    result
}

/// The metadata of `path` (links followed), once per [`looking`] load.
fn look(path: &Path) -> Option<std::fs::Metadata> {
    looked_metadata(path).ok()
}

/// The metadata of `path` (links followed), not noted, once per [`looking`] load; an
/// error seen before comes back as the same system error.
pub(crate) fn looked_metadata(path: &Path) -> std::io::Result<std::fs::Metadata> {
    LOOKS.with(|looks| match looks.borrow_mut().as_mut() {
        None => std::fs::metadata(path),
        Some(looks) => looks.metadata_of(path).map_err(std::io::Error::from),
    })
}

/// Why a path could not be examined, kept to be told again: `std::io::Error` cannot be
/// cloned, its kind and system error number can.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LookError {
    kind: std::io::ErrorKind,
    os: Option<i32>,
}

impl LookError {
    const NOT_FOUND: LookError = LookError {
        kind: std::io::ErrorKind::NotFound,
        os: None,
    };

    fn is_not_found(self) -> bool {
        self.kind == std::io::ErrorKind::NotFound
    }
}

impl From<std::io::Error> for LookError {
    fn from(err: std::io::Error) -> LookError {
        LookError {
            kind: err.kind(),
            os: err.raw_os_error(),
        }
    }
}

impl From<LookError> for std::io::Error {
    fn from(err: LookError) -> std::io::Error {
        err.os
            .map_or_else(|| err.kind.into(), std::io::Error::from_raw_os_error)
    }
}

impl Looks {
    /// The metadata of `path`, looked at once; see [`looking`] for missing directories.
    fn metadata_of(&mut self, path: &Path) -> Result<std::fs::Metadata, LookError> {
        if let Some(seen) = self.metadata.get(path.as_os_str()) {
            return seen.clone();
        }
        if self.under_missing_dir(path) {
            return Err(LookError::NOT_FOUND);
        }
        let found = self.look(path);
        if found.as_ref().is_err_and(|err| err.is_not_found())
            && let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty())
            && !self.metadata.contains_key(dir.as_os_str())
        {
            // Most host directories are asked for one file (`~/.codex/config.toml`):
            // looking at the directory too would be a second look for nothing. It is
            // looked at on the second miss under it, which then spares the looks of
            // every later path there. Only NotFound says anything of what lies under a
            // directory (one that could not be examined for another reason may still
            // hold the files).
            let dir = dir.as_os_str();
            if let Some(at) = self.missed_once_in.iter().position(|seen| seen == dir) {
                self.missed_once_in.swap_remove(at);
                let _ = self.look(Path::new(dir));
            } else {
                self.missed_once_in.push(dir.to_owned());
            }
        }
        found
    }

    /// Looks at `path` and keeps what was found.
    fn look(&mut self, path: &Path) -> Result<std::fs::Metadata, LookError> {
        let found = std::fs::metadata(path).map_err(LookError::from);
        if found.as_ref().is_err_and(|err| err.is_not_found()) {
            self.missing.push(path.as_os_str().to_owned());
        }
        self.metadata
            .insert(path.as_os_str().to_owned(), found.clone());
        found
    }

    /// Whether a directory above `path` was found missing. By bytes: the kernel
    /// resolves a path component by component, so whatever follows a missing directory
    /// and a separator (`..` included) is missing too.
    fn under_missing_dir(&self, path: &Path) -> bool {
        let path = path.as_os_str().as_bytes();
        self.missing.iter().any(|dir| {
            let dir = dir.as_bytes();
            path.len() > dir.len()
                && path.starts_with(dir)
                && (path[dir.len()] == b'/' || dir.ends_with(b"/"))
        })
    }

    /// Whether `dir` is known missing, itself or a directory above it.
    fn known_missing(&self, dir: &Path) -> bool {
        self.missing
            .iter()
            .any(|missing| missing.as_os_str() == dir.as_os_str())
            || self.under_missing_dir(dir)
    }
}

/// `path.canonicalize()`, once per [`looking`] load (each resolution reads every
/// link on the way).
pub(crate) fn canonical(path: &Path) -> Option<PathBuf> {
    LOOKS.with(|looks| match looks.borrow_mut().as_mut() {
        None => path.canonicalize().ok(),
        Some(looks) => looks
            .real
            .entry(path.as_os_str().to_owned())
            .or_insert_with(|| path.canonicalize().ok())
            .clone(),
    })
}

/// The metadata of `path` (following links), noted; once per [`looking`] load.
pub fn metadata(path: &Path) -> std::io::Result<std::fs::Metadata> {
    note(path);
    looked_metadata(path)
}

/// The entries of the directory `path`, noted: an entry added, removed or renamed
/// changes the directory's own times.
pub fn read_dir(path: &Path) -> std::io::Result<std::fs::ReadDir> {
    note(path);
    let missing = LOOKS.with(|looks| {
        looks
            .borrow()
            .as_ref()
            .is_some_and(|looks| looks.known_missing(path))
    });
    if missing {
        return Err(std::io::ErrorKind::NotFound.into());
    }
    std::fs::read_dir(path)
}

/// Runs `load`, noting every path it consults. Loads recorded on one thread do not
/// nest: an inner record takes over the thread's notes until it returns, and the outer
/// one then goes on with what it had.
pub fn record<R>(load: impl FnOnce() -> R) -> (R, Consulted) {
    let outer = RECORDING.with(|recording| recording.replace(Some(Consulted::default())));
    let result = load();
    let consulted = RECORDING
        .with(|recording| recording.replace(outer))
        .unwrap_or_default();
    (result, consulted)
}

/// Values kept while the identities of the paths each consulted are unchanged: a
/// resident engine's loaded configs, the trust store read last, each user's engine
/// settings. At most `capacity` keys are kept; the least recently used goes first.
///
/// A value is loaded through [`record`], so that every path its load consults is noted,
/// and is kept only when that load is [`Consulted::settled`]; it is handed out again
/// while [`Consulted::unchanged`] holds, checked outside the lock.
#[derive(Debug)]
pub struct Kept<K, T> {
    entries: std::sync::Mutex<Vec<KeptEntry<K, T>>>,
    capacity: usize,
    /// Bumped on each use, to find the least recently used entry.
    clock: std::sync::atomic::AtomicU64,
}

/// One kept value.
#[derive(Debug)]
struct KeptEntry<K, T> {
    key: K,
    value: T,
    consulted: std::sync::Arc<Consulted>,
    used: u64,
}

impl<K: PartialEq + Clone, T: Clone> Kept<K, T> {
    /// Keeps nothing yet, and at most `capacity` values.
    pub const fn new(capacity: usize) -> Self {
        Self {
            entries: std::sync::Mutex::new(Vec::new()),
            capacity,
            clock: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The value kept for `key` if none of the paths its load consulted changed, else
    /// the value `load` gives (kept when settled, and whatever was kept for `key`
    /// forgotten otherwise); with whether it was the kept one. An `Err` of `load` is
    /// handed back and keeps nothing.
    pub fn get_or_try_load<E>(
        &self,
        key: &K,
        load: impl FnOnce() -> Result<T, E>,
    ) -> (Result<T, E>, bool) {
        if let Some((value, consulted)) = self.find(key)
            // A stat per path, outside the lock.
            && consulted.unchanged()
        {
            return (Ok(value), true);
        }
        let (loaded, consulted) = record(load);
        match &loaded {
            Ok(value) if consulted.settled(SystemTime::now()) => {
                self.keep(key.clone(), value.clone(), consulted);
            }
            _ => self.forget(key),
        }
        (loaded, false)
    }

    /// [`Kept::get_or_try_load`] for a load that cannot fail.
    pub fn get_or_load(&self, key: &K, load: impl FnOnce() -> T) -> (T, bool) {
        let (value, hit) = self.get_or_try_load(key, || Ok::<T, std::convert::Infallible>(load()));
        match value {
            Ok(value) => (value, hit),
            Err(never) => match never {},
        }
    }

    /// How many values are kept, and how many paths they consulted in all.
    pub fn sizes(&self) -> (usize, usize) {
        let entries = self.lock();
        let paths = entries.iter().map(|entry| entry.consulted.len()).sum();
        (entries.len(), paths)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<KeptEntry<K, T>>> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn tick(&self) -> u64 {
        self.clock
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    fn find(&self, key: &K) -> Option<(T, std::sync::Arc<Consulted>)> {
        let now = self.tick();
        let mut entries = self.lock();
        let entry = entries.iter_mut().find(|entry| entry.key == *key)?;
        entry.used = now;
        Some((entry.value.clone(), std::sync::Arc::clone(&entry.consulted)))
    }

    fn keep(&self, key: K, value: T, consulted: Consulted) {
        let now = self.tick();
        let mut entries = self.lock();
        entries.retain(|entry| entry.key != key);
        if entries.len() >= self.capacity
            && let Some(oldest) = entries
                .iter()
                .enumerate()
                .min_by_key(|(_, entry)| entry.used)
                .map(|(at, _)| at)
        {
            entries.swap_remove(oldest);
        }
        if self.capacity > 0 {
            entries.push(KeptEntry {
                key,
                value,
                consulted: std::sync::Arc::new(consulted),
                used: now,
            });
        }
    }

    fn forget(&self, key: &K) {
        self.lock().retain(|entry| entry.key != *key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // guards: one load examines each path once (Codex's config.toml was looked for
    // seven times per emit): within `looking`, a path answers as it first looked, and
    // the memo ends with the load.
    #[test]
    fn a_load_looks_at_each_path_once() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("config.toml");
        let real = dir.path().join("real");
        std::fs::create_dir(&real).expect("mkdir");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        looking(|| {
            assert!(!is_file(&file));
            write(&file, "x = 1\n");
            assert!(!is_file(&file), "a second look examined the path again");
            assert!(!exists(&file));
            assert_eq!(canonical(&link), real.canonicalize().ok());
            std::fs::remove_file(&link).expect("unlink");
            assert_eq!(canonical(&link), real.canonicalize().ok());
            // Nested loads share the outer looks.
            looking(|| assert!(!is_file(&file)));
            assert!(!is_file(&file), "the nested load ended the outer memo");
        });
        assert!(is_file(&file), "the memo outlived its load");
        assert_eq!(canonical(&link), None);
    }

    fn write(path: &Path, text: &str) {
        std::fs::write(path, text).expect("write");
    }

    // guards: a missing directory answers for what would be under it (the hosts'
    // directories, mostly missing, each asked about several files), and only a missing
    // one does.
    #[test]
    fn what_is_under_a_missing_directory_is_missing_without_a_look() {
        let dir = tempfile::tempdir().expect("temp dir");
        let host = dir.path().join(".host");
        let present = dir.path().join("present");
        std::fs::create_dir(&present).expect("mkdir");
        let solo = dir.path().join(".solo");
        looking(|| {
            // One miss in a directory does not look at the directory: a file made there
            // since is seen.
            assert!(!is_file(&solo.join("config.toml")));
            std::fs::create_dir(&solo).expect("mkdir");
            write(&solo.join("hooks.json"), "{}");
            assert!(is_file(&solo.join("hooks.json")));
            // The second does.
            assert!(!is_file(&host.join("settings.json")));
            assert!(!is_file(&host.join("settings.local.json")));
            // Created during the load: the load goes on seeing it missing, with what
            // would be under it.
            std::fs::create_dir(&host).expect("mkdir");
            write(&host.join("hooks.json"), "{}");
            assert!(!is_file(&host.join("hooks.json")));
            assert!(!exists(&host.join("deeper/still.json")));
            assert!(read_dir(&host).is_err());
            // A missing file in a directory that is there says nothing of its siblings.
            assert!(!is_file(&present.join("one.toml")));
            write(&present.join("two.toml"), "x = 1\n");
            assert!(is_file(&present.join("two.toml")));
        });
        // Outside a load, each look is the file system's.
        assert!(is_file(&host.join("hooks.json")));
        assert!(read_dir(&host).is_ok());
    }

    #[test]
    fn notes_count_only_while_recording() {
        // guards: a one-shot load pays for no identity, and a recorded one sees each
        // path once, in the order first consulted
        let dir = tempfile::tempdir().expect("tempdir");
        let a = dir.path().join("a");
        note(&a);
        let ((), consulted) = record(|| {
            note(&a);
            note(&dir.path().join("b"));
            note(&a);
        });
        let paths: Vec<_> = consulted.paths().map(|(p, _)| p.to_owned()).collect();
        assert_eq!(paths, [a.clone(), dir.path().join("b")]);
        let ((), empty) = record(|| ());
        assert!(empty.is_empty());
    }

    #[test]
    fn an_edit_a_new_file_and_a_removal_are_changes() {
        // guards: each way a source can change shows, including a file that was
        // missing when the load looked for it
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("hooks.toml");
        let missing = dir.path().join("settings.json");
        write(&file, "one");
        let ((), consulted) = record(|| {
            note(&file);
            note(&missing);
        });
        assert!(consulted.unchanged());

        write(&file, "two!");
        assert!(!consulted.unchanged(), "an edit that changes the size");

        let ((), consulted) = record(|| note(&missing));
        write(&missing, "{}");
        assert!(!consulted.unchanged(), "a file that appeared");

        let ((), consulted) = record(|| note(&missing));
        std::fs::remove_file(&missing).expect("rm");
        assert!(!consulted.unchanged(), "a file that went away");
    }

    #[test]
    fn a_same_size_rewrite_and_a_chmod_are_changes() {
        // guards: the change time catches what size and modification time can miss
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("post-claim");
        write(&file, "#!/bin/sh\n");
        let ((), consulted) = record(|| note(&file));
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        // Some file systems keep whole-second times: wait until the change time can
        // differ, rather than assert on timing.
        if consulted.unchanged() {
            std::thread::sleep(Duration::from_millis(1100));
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        }
        assert!(!consulted.unchanged(), "a chmod");

        let ((), consulted) = record(|| note(&file));
        let replacement = dir.path().join("new");
        write(&replacement, "#!/bin/bash\n");
        std::fs::rename(&replacement, &file).expect("rename");
        assert!(!consulted.unchanged(), "a file renamed over it");
    }

    #[test]
    fn a_load_of_files_changed_just_now_is_not_settled() {
        // guards: an edit within the file system's timestamp granularity of the load
        // could keep the file's identity, so such a load is not to be kept
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("hooks.toml");
        write(&file, "x");
        let ((), consulted) = record(|| note(&file));
        assert!(!consulted.settled(SystemTime::now()));
        assert!(consulted.settled(SystemTime::now() + SETTLE + Duration::from_secs(1)));
        let ((), missing_only) = record(|| note(&dir.path().join("none")));
        assert!(
            missing_only.settled(SystemTime::now()),
            "a missing path has no time"
        );
    }

    #[test]
    fn records_nest_without_losing_the_outer_notes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (inner, outer) = record(|| {
            note(&dir.path().join("outer-1"));
            let ((), inner) = record(|| note(&dir.path().join("inner")));
            note(&dir.path().join("outer-2"));
            inner
        });
        assert_eq!(inner.len(), 1);
        let names: Vec<_> = outer
            .paths()
            .map(|(p, _)| p.file_name().expect("name").to_owned())
            .collect();
        assert_eq!(names, ["outer-1", "outer-2"]);
    }

    #[test]
    fn kept_values_are_handed_out_until_a_consulted_path_changes() {
        // guards: the one cache behind the engine's configs, the trust store and the
        // user's engine settings keeps a value exactly while its files are unchanged
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("hooks.toml");
        let kept: Kept<u8, String> = Kept::new(1);
        let read = || {
            note(&file);
            std::fs::read_to_string(&file).unwrap_or_default()
        };
        // A missing file has no time to settle: its load is kept at once.
        assert_eq!(kept.get_or_load(&1, read), (String::new(), false));
        assert_eq!(kept.sizes(), (1, 1));
        assert_eq!(
            kept.get_or_load(&1, || unreachable!()),
            (String::new(), true)
        );
        write(&file, "one");
        // Written just now: read again, and not kept until it has settled.
        assert_eq!(kept.get_or_load(&1, read), ("one".to_owned(), false));
        assert_eq!(kept.sizes(), (0, 0));
        assert_eq!(kept.get_or_load(&1, read), ("one".to_owned(), false));
        let failed: (Result<String, ()>, bool) = kept.get_or_try_load(&2, || Err(()));
        assert_eq!(failed, (Err(()), false));
        assert_eq!(
            kept.sizes(),
            (0, 0),
            "a fresh write is not kept, an error never"
        );
    }
}
