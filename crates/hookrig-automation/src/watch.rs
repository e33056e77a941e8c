//! File and folder watches: inotify (through the notify crate) turned into
//! `file.changed` and `folder.changed` events.
//!
//! hookrig is told of each change by the kernel rather than polling modification times,
//! and sends the payloads documented in docs/serve.md. What changed is decided by comparing what the
//! watcher knew of a path (modification time and size, cached per rule) with what is on
//! disk once the change has settled, so the operation reported is the net effect of a
//! burst of events:
//!
//! | events within one window | reported |
//! |---|---|
//! | created, then modified | `created` |
//! | created, then deleted | nothing |
//! | modified, then deleted | `deleted` |
//! | deleted, then created (an editor's save by rename) | `modified` |
//! | modified, modified, … | `modified` (once) |
//! | attributes only (`chmod`) | nothing; `touch` (new mtime) is `modified` |
//!
//! File watches (`WatchKind::File`) watch the parent directory of each file, so a file
//! created after the watch started is seen; they settle for
//! [`WatchOptions::file_debounce`] (50 ms by default) so that an editor's
//! create-write-close is one change. Folder watches accumulate changes for
//! [`WatchOptions::debounce`] (5 s by default, counted from the first change of a burst)
//! and then send one `folder.changed` per rule. Hidden entries (a name starting with `.`,
//! such as editors' `.swp` files, and anything under a hidden directory) are skipped by
//! folder watches, as hidden files are by listings; a file watch names its files
//! and sees them even when hidden.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, UNIX_EPOCH};

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{EventKind, RecursiveMode, Watcher as _};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// The event type of a watched file's change.
pub const FILE_CHANGED: &str = "file.changed";
/// The event type of a watched folder's changes.
pub const FOLDER_CHANGED: &str = "folder.changed";

/// What a rule watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchKind {
    /// Individual files (`file.changed`, one event per file).
    File,
    /// Directories (`folder.changed`, changes accumulated and deduplicated).
    Folder,
}

/// One watch: the `watch` block of an automation's trigger, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchRule {
    /// The automation's id; sent as the payload's `watch_id`.
    pub watch_id: String,
    /// Files or folders.
    pub kind: WatchKind,
    /// Absolute paths of the files or folders.
    pub paths: Vec<PathBuf>,
    /// What `relative_path` is relative to (the project root by default).
    pub base_dir: PathBuf,
    /// Sent as the payload's `project_id`.
    pub project_id: String,
    /// Folder watches: descend into subdirectories.
    pub recursive: bool,
    /// Folder watches: only files whose names end with one of these (`.md`; a missing
    /// leading dot is added). Empty: every file.
    pub extensions: Vec<String>,
}

/// Timing of the watcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchOptions {
    /// How long folder changes are accumulated, from the first change of a burst.
    /// Zero: sent as soon as the burst of kernel events has been read.
    pub debounce: Duration,
    /// How long a watched file's change settles before `file.changed` is sent.
    pub file_debounce: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        Self {
            debounce: Duration::from_secs(5),
            file_debounce: Duration::from_millis(50),
        }
    }
}

/// A watch that could not be set up, or the watcher itself.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The inotify instance could not be created.
    #[error("cannot start the file watcher")]
    Start(#[source] notify::Error),
    /// A directory could not be watched (missing, unreadable, or out of inotify
    /// watches: see `fs.inotify.max_user_watches`).
    #[error("cannot watch {}", path.display())]
    Watch {
        /// The directory.
        path: PathBuf,
        /// What notify said.
        #[source]
        source: notify::Error,
    },
    /// A rule with a relative path.
    #[error("watch {watch_id}: path {} is not absolute", path.display())]
    Relative {
        /// The rule's id.
        watch_id: String,
        /// The path.
        path: PathBuf,
    },
}

/// A change, as sent on the watcher's channel.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchEvent {
    /// `file.changed` or `folder.changed`.
    pub event_type: String,
    /// The payload (docs/serve.md).
    pub payload: Value,
    /// The change's id: the same on every node that watches the same files and sees the
    /// same change, so that a shared store starts one run for it (docs/postgres.md, "One
    /// change, one run").
    pub change_id: String,
}

/// Watches files and folders and sends their changes on a channel.
///
/// Must be created inside a tokio runtime: it spawns the task that turns kernel events
/// into payloads. Dropping it stops the task and removes every inotify watch.
pub struct Watcher {
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher")
            .field("watched", &lock(&self.state).watched)
            .finish_non_exhaustive()
    }
}

struct State {
    backend: notify::RecommendedWatcher,
    /// The directories inotify watches, and how.
    watched: BTreeMap<PathBuf, RecursiveMode>,
    rules: Vec<RuleState>,
    options: WatchOptions,
}

struct RuleState {
    rule: WatchRule,
    /// Normalized: each with its leading dot.
    extensions: Vec<String>,
    /// What the watcher last knew of each file the rule covers.
    known: HashMap<PathBuf, Stat>,
    /// Paths touched since the last send, and whether their content was written.
    pending: BTreeMap<PathBuf, bool>,
    /// When the first pending change arrived.
    since: Option<Instant>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Stat {
    mtime: f64,
    size: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operation {
    Created,
    Modified,
    Deleted,
}

impl Operation {
    fn as_str(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::Modified => "modified",
            Self::Deleted => "deleted",
        }
    }
}

impl Watcher {
    /// Starts an inotify instance with no watches; changes go to `sender`.
    pub fn new(
        sender: mpsc::Sender<WatchEvent>,
        options: WatchOptions,
    ) -> Result<Self, WatchError> {
        let (raw_tx, raw_rx) = mpsc::unbounded_channel();
        // The handler runs on notify's thread: an unbounded send never blocks it, so the
        // kernel queue is read as fast as it fills.
        let backend = notify::recommended_watcher(move |event| {
            let _ = raw_tx.send(event);
        })
        .map_err(WatchError::Start)?;
        let state = Arc::new(Mutex::new(State {
            backend,
            watched: BTreeMap::new(),
            rules: Vec::new(),
            options,
        }));
        let task = tokio::spawn(run(Arc::clone(&state), raw_rx, sender));
        Ok(Self { state, task })
    }

    /// Replaces the whole set of rules: directories no rule needs any more are unwatched,
    /// new ones watched. A rule equal to one already set keeps its pending changes.
    /// Returns the paths that could not be watched; the other rules work regardless.
    pub fn set_rules(&self, rules: Vec<WatchRule>) -> Vec<WatchError> {
        let mut errors = Vec::new();
        let mut state = lock(&self.state);
        let mut old: Vec<RuleState> = std::mem::take(&mut state.rules);
        for mut rule in rules {
            // `docs/` and `docs` are one folder; events name it without the slash.
            for path in &mut rule.paths {
                *path = path.components().collect();
            }
            if let Some(path) = rule.paths.iter().find(|p| !p.is_absolute()) {
                errors.push(WatchError::Relative {
                    watch_id: rule.watch_id.clone(),
                    path: path.clone(),
                });
                continue;
            }
            let kept = old
                .iter()
                .position(|r| r.rule == rule)
                .map(|i| old.swap_remove(i));
            state
                .rules
                .push(kept.unwrap_or_else(|| RuleState::new(rule)));
        }

        let wanted = wanted_dirs(&state.rules);
        let unwanted: Vec<PathBuf> = state
            .watched
            .iter()
            .filter(|(dir, mode)| wanted.get(*dir) != Some(*mode))
            .map(|(dir, _)| dir.clone())
            .collect();
        for dir in unwanted {
            state.watched.remove(&dir);
            // A directory that was deleted lost its watch with it; nothing to undo.
            let _ = state.backend.unwatch(&dir);
        }
        for (dir, mode) in wanted {
            if state.watched.contains_key(&dir) {
                continue;
            }
            match state.backend.watch(&dir, mode) {
                Ok(()) => {
                    state.watched.insert(dir, mode);
                }
                Err(source) => errors.push(WatchError::Watch { path: dir, source }),
            }
        }
        errors
    }

    /// The directories inotify currently watches (and whether recursively).
    pub fn watched_dirs(&self) -> Vec<(PathBuf, bool)> {
        lock(&self.state)
            .watched
            .iter()
            .map(|(dir, mode)| (dir.clone(), *mode == RecursiveMode::Recursive))
            .collect()
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        // The task holds the state, which holds the backend, which feeds the task: the
        // loop has to be broken here.
        self.task.abort();
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A panic while holding the lock leaves plain data behind: keep using it.
    state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The directories the rules need, each once; a directory under another watched
/// recursively is left to that watch.
fn wanted_dirs(rules: &[RuleState]) -> BTreeMap<PathBuf, RecursiveMode> {
    let mut wanted: BTreeMap<PathBuf, RecursiveMode> = BTreeMap::new();
    for state in rules {
        let rule = &state.rule;
        for path in &rule.paths {
            let (dir, mode) = match rule.kind {
                WatchKind::File => (
                    path.parent().unwrap_or(path).to_path_buf(),
                    RecursiveMode::NonRecursive,
                ),
                WatchKind::Folder if rule.recursive => (path.clone(), RecursiveMode::Recursive),
                WatchKind::Folder => (path.clone(), RecursiveMode::NonRecursive),
            };
            let entry = wanted.entry(dir).or_insert(mode);
            if mode == RecursiveMode::Recursive {
                *entry = mode;
            }
        }
    }
    let recursive: Vec<PathBuf> = wanted
        .iter()
        .filter(|(_, mode)| **mode == RecursiveMode::Recursive)
        .map(|(dir, _)| dir.clone())
        .collect();
    wanted.retain(|dir, _| !recursive.iter().any(|r| dir != r && dir.starts_with(r)));
    wanted
}

impl RuleState {
    fn new(rule: WatchRule) -> Self {
        let extensions = rule
            .extensions
            .iter()
            .map(|e| {
                if e.starts_with('.') {
                    e.clone()
                } else {
                    format!(".{e}")
                }
            })
            .collect();
        let mut state = Self {
            rule,
            extensions,
            known: HashMap::new(),
            pending: BTreeMap::new(),
            since: None,
        };
        // What is there now, so the first change reports a real `old_mtime` and a file
        // present from the start is `modified`, not `created`.
        for path in state.covered_files(&state.rule.paths.clone()) {
            if let Some(stat) = stat(&path) {
                state.known.insert(path, stat);
            }
        }
        state
    }

    fn window(&self, options: WatchOptions) -> Duration {
        match self.rule.kind {
            WatchKind::File => options.file_debounce,
            WatchKind::Folder => options.debounce,
        }
    }

    /// The watched folder `path` is in, when the rule covers it.
    fn folder_of(&self, path: &Path) -> Option<&Path> {
        self.rule.paths.iter().map(PathBuf::as_path).find(|folder| {
            path.strip_prefix(folder).is_ok_and(|rel| {
                let mut parts = rel.components();
                let first = parts.next();
                first.is_some()
                    && (self.rule.recursive || parts.next().is_none())
                    && !rel.components().any(|c| is_hidden(&c))
            })
        })
    }

    /// Whether an event on `path` concerns this rule.
    fn covers(&self, path: &Path) -> bool {
        match self.rule.kind {
            WatchKind::File => self.rule.paths.iter().any(|p| p == path),
            WatchKind::Folder => self.folder_of(path).is_some(),
        }
    }

    fn wants_file(&self, path: &Path) -> bool {
        match self.rule.kind {
            WatchKind::File => true,
            WatchKind::Folder => {
                self.extensions.is_empty()
                    || path.file_name().is_some_and(|name| {
                        let name = name.to_string_lossy();
                        self.extensions.iter().any(|e| name.ends_with(e.as_str()))
                    })
            }
        }
    }

    /// The files under `roots` the rule covers (for folders, by scanning them).
    fn covered_files(&self, roots: &[PathBuf]) -> Vec<PathBuf> {
        match self.rule.kind {
            WatchKind::File => roots.to_vec(),
            WatchKind::Folder => {
                let mut files = Vec::new();
                for root in roots {
                    scan(root, self.rule.recursive, &mut files);
                }
                files.retain(|f| self.wants_file(f));
                files
            }
        }
    }

    fn touch(&mut self, path: PathBuf, written: bool, now: Instant) {
        let entry = self.pending.entry(path).or_insert(false);
        *entry |= written;
        self.since.get_or_insert(now);
    }

    /// Every file the rule knows or can see: after an inotify queue overflow.
    fn touch_all(&mut self, now: Instant) {
        let mut paths: Vec<PathBuf> = self.known.keys().cloned().collect();
        paths.extend(self.covered_files(&self.rule.paths.clone()));
        for path in paths {
            self.touch(path, false, now);
        }
    }

    /// Turns the pending paths into changes: `(path, operation, old, new)`.
    fn settle(&mut self) -> Vec<(PathBuf, Operation, Option<Stat>, Option<Stat>)> {
        self.since = None;
        let pending = std::mem::take(&mut self.pending);
        let mut files: BTreeMap<PathBuf, bool> = BTreeMap::new();
        for (path, written) in pending {
            let is_dir = std::fs::metadata(&path).is_ok_and(|m| m.is_dir());
            if self.rule.kind == WatchKind::Folder && is_dir {
                // A directory created or moved in: its files may have arrived before
                // inotify watched it.
                if self.rule.recursive {
                    for file in self.covered_files(std::slice::from_ref(&path)) {
                        files.entry(file).or_insert(false);
                    }
                }
                continue;
            }
            // A directory deleted or moved out takes the files known under it along.
            let under: Vec<PathBuf> = self
                .known
                .keys()
                .filter(|k| *k != &path && k.starts_with(&path))
                .cloned()
                .collect();
            for file in under {
                files.entry(file).or_insert(false);
            }
            if !is_dir {
                *files.entry(path).or_insert(false) |= written;
            }
        }
        let mut changes = Vec::new();
        for (path, written) in files {
            if !self.wants_file(&path) {
                continue;
            }
            let old = self.known.get(&path).copied();
            let new = stat(&path);
            let operation = match (old, new) {
                (None, Some(_)) => Operation::Created,
                (Some(_), None) => Operation::Deleted,
                (Some(a), Some(b)) if a != b || written => Operation::Modified,
                _ => continue,
            };
            match new {
                Some(stat) => self.known.insert(path.clone(), stat),
                None => self.known.remove(&path),
            };
            changes.push((path, operation, old, new));
        }
        changes
    }

    fn payloads(&mut self) -> Vec<WatchEvent> {
        let changes = self.settle();
        let rule = &self.rule;
        match rule.kind {
            WatchKind::File => changes
                .into_iter()
                .map(|(path, operation, old, new)| {
                    let payload = json!({
                        "path": path.display().to_string(),
                        "relative_path": relative(&path, &rule.base_dir),
                        "project_id": rule.project_id,
                        "operation": operation.as_str(),
                        "old_mtime": old.map(|s| s.mtime),
                        "new_mtime": new.map(|s| s.mtime),
                        "size": new.map(|s| s.size),
                        "watch_id": rule.watch_id,
                    });
                    let mut id = ChangeId::new(FILE_CHANGED, rule);
                    id.file(&path, &rule.base_dir, operation, new.or(old));
                    WatchEvent {
                        event_type: FILE_CHANGED.to_owned(),
                        payload,
                        change_id: id.finish(),
                    }
                })
                .collect(),
            WatchKind::Folder if changes.is_empty() => Vec::new(),
            WatchKind::Folder => {
                let folders: BTreeSet<&Path> = changes
                    .iter()
                    .filter_map(|(path, ..)| self.folder_of(path))
                    .collect();
                let folder = common_ancestor(folders.into_iter())
                    .unwrap_or_else(|| self.rule.base_dir.clone());
                let list: Vec<Value> = changes
                    .iter()
                    .map(|(path, operation, ..)| {
                        json!({
                            "path": path.display().to_string(),
                            "relative_path": relative(path, &self.rule.base_dir),
                            "operation": operation.as_str(),
                        })
                    })
                    .collect();
                let payload = json!({
                    "path": folder.display().to_string(),
                    "project_id": self.rule.project_id,
                    "changes": list,
                    "count": changes.len(),
                    "watch_id": self.rule.watch_id,
                });
                let mut id = ChangeId::new(FOLDER_CHANGED, &self.rule);
                for (path, operation, old, new) in &changes {
                    id.file(path, &self.rule.base_dir, *operation, new.or(*old));
                }
                vec![WatchEvent {
                    event_type: FOLDER_CHANGED.to_owned(),
                    payload,
                    change_id: id.finish(),
                }]
            }
        }
    }
}

/// The largest file whose content goes into its change's id; a larger one is known by its
/// size and modification time alone, so that a change is not held up reading it.
const MAX_DIGESTED: u64 = 16 * 1024 * 1024;

/// Builds the id of a change from what every node watching the same files sees alike:
/// the automation, the project, and for each file its path under the rule's base
/// directory, the operation, and the file's state (size, modification time, and the
/// SHA-256 of its content up to [`MAX_DIGESTED`]; the last known state for a deleted
/// file). Not the absolute paths, which differ where the shared directory is mounted
/// elsewhere, nor the old state, which a node that started later knows differently.
struct ChangeId(Sha256);

impl ChangeId {
    fn new(event_type: &str, rule: &WatchRule) -> ChangeId {
        let mut hash = Sha256::new();
        for part in [event_type, &rule.watch_id, &rule.project_id] {
            hash.update(part.as_bytes());
            hash.update([0]);
        }
        ChangeId(hash)
    }

    fn file(&mut self, path: &Path, base: &Path, operation: Operation, state: Option<Stat>) {
        let hash = &mut self.0;
        hash.update(relative(path, base).as_bytes());
        hash.update([0]);
        hash.update(operation.as_str().as_bytes());
        if let Some(state) = state {
            hash.update(state.size.to_le_bytes());
            hash.update(state.mtime.to_bits().to_le_bytes());
        }
        if operation != Operation::Deleted
            && state.is_some_and(|s| s.size <= MAX_DIGESTED)
            && let Ok(bytes) = std::fs::read(path)
        {
            hash.update(Sha256::digest(&bytes));
        }
        hash.update([0]);
    }

    /// `change-` and the first 128 bits of the hash, in hex.
    fn finish(self) -> String {
        let digest = self.0.finalize();
        digest[..16]
            .iter()
            .fold(String::from("change-"), |mut id, byte| {
                let _ = write!(id, "{byte:02x}");
                id
            })
    }
}

fn is_hidden(component: &Component<'_>) -> bool {
    matches!(component, Component::Normal(name) if name.to_string_lossy().starts_with('.'))
}

/// The files in `dir` (and below, when `recursive`), hidden entries skipped. Symbolic
/// links to directories are not followed: they could loop.
fn scan(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => {
                if recursive {
                    scan(&path, true, out);
                }
            }
            Ok(_) => out.push(path),
            Err(_) => {}
        }
    }
}

/// A regular file's modification time (Unix seconds) and size; `None` when it is missing
/// or not a file.
fn stat(path: &Path) -> Option<Stat> {
    let meta = std::fs::metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0.0, |d| d.as_secs_f64());
    Some(Stat {
        mtime,
        size: meta.len(),
    })
}

fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn common_ancestor<'a>(mut paths: impl Iterator<Item = &'a Path>) -> Option<PathBuf> {
    let mut common = paths.next()?.to_path_buf();
    for path in paths {
        while !path.starts_with(&common) {
            if !common.pop() {
                return None;
            }
        }
    }
    Some(common)
}

/// Whether an event's kind can change what a file holds or whether it exists; opening or
/// reading cannot.
fn relevant(kind: EventKind) -> Option<bool> {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => Some(false),
        EventKind::Access(_) => None,
        EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Any) => Some(true),
        _ => Some(false),
    }
}

impl State {
    fn note(&mut self, event: notify::Result<notify::Event>, now: Instant) {
        let event = match event {
            Ok(event) => event,
            Err(err) => {
                tracing::warn!("file watcher: {err}");
                return;
            }
        };
        if event.need_rescan() {
            // The kernel queue overflowed: events were lost, compare everything.
            tracing::debug!("file watcher: event queue overflowed; rescanning");
            for rule in &mut self.rules {
                rule.touch_all(now);
            }
            return;
        }
        let Some(written) = relevant(event.kind) else {
            return;
        };
        for path in &event.paths {
            for rule in &mut self.rules {
                if rule.covers(path) {
                    rule.touch(path.clone(), written, now);
                }
            }
        }
    }

    fn next_deadline(&self) -> Option<Instant> {
        self.rules
            .iter()
            .filter_map(|r| r.since.map(|since| since + r.window(self.options)))
            .min()
    }

    fn due(&mut self, now: Instant) -> Vec<WatchEvent> {
        let options = self.options;
        self.rules
            .iter_mut()
            .filter(|r| {
                r.since
                    .is_some_and(|since| since + r.window(options) <= now)
            })
            .flat_map(RuleState::payloads)
            .collect()
    }
}

async fn run(
    state: Arc<Mutex<State>>,
    mut raw: mpsc::UnboundedReceiver<notify::Result<notify::Event>>,
    sender: mpsc::Sender<WatchEvent>,
) {
    loop {
        let deadline = lock(&state).next_deadline();
        let woke = match deadline {
            Some(deadline) => tokio::select! {
                event = raw.recv() => Wake::Event(event),
                () = tokio::time::sleep_until(deadline) => Wake::Deadline,
            },
            None => Wake::Event(raw.recv().await),
        };
        let ready = {
            let mut state = lock(&state);
            let now = Instant::now();
            match woke {
                Wake::Event(Some(event)) => {
                    state.note(event, now);
                    // The rest of the burst: everything already read from the kernel.
                    while let Ok(event) = raw.try_recv() {
                        state.note(event, now);
                    }
                }
                // The backend is gone: nothing more will arrive.
                Wake::Event(None) => return,
                Wake::Deadline => {}
            }
            state.due(Instant::now())
        };
        for event in ready {
            if sender.send(event).await.is_err() {
                return;
            }
        }
    }
}

enum Wake {
    Event(Option<notify::Result<notify::Event>>),
    Deadline,
}

#[cfg(test)]
mod tests {
    use std::fs;

    use tempfile::TempDir;
    use tokio::time::timeout;

    use super::*;

    const WAIT: Duration = Duration::from_secs(5);

    struct Fixture {
        _tmp: TempDir,
        root: PathBuf,
        watcher: Watcher,
        rx: mpsc::Receiver<WatchEvent>,
    }

    fn fixture(debounce_ms: u64) -> Fixture {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().canonicalize().expect("canonical");
        let (tx, rx) = mpsc::channel(64);
        let options = WatchOptions {
            debounce: Duration::from_millis(debounce_ms),
            ..WatchOptions::default()
        };
        let watcher = Watcher::new(tx, options).expect("watcher");
        Fixture {
            _tmp: tmp,
            root,
            watcher,
            rx,
        }
    }

    impl Fixture {
        fn rule(
            &self,
            kind: WatchKind,
            paths: &[&str],
            recursive: bool,
            ext: &[&str],
        ) -> WatchRule {
            WatchRule {
                watch_id: "docs-sync".to_owned(),
                kind,
                paths: paths.iter().map(|p| self.root.join(p)).collect(),
                base_dir: self.root.clone(),
                project_id: "proj".to_owned(),
                recursive,
                extensions: ext.iter().map(|e| (*e).to_owned()).collect(),
            }
        }

        fn set(&self, rules: Vec<WatchRule>) {
            let errors = self.watcher.set_rules(rules);
            assert!(errors.is_empty(), "{errors:?}");
        }

        fn write(&self, rel: &str, text: &str) {
            let path = self.root.join(rel);
            fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            fs::write(path, text).expect("write");
        }

        fn remove(&self, rel: &str) {
            fs::remove_file(self.root.join(rel)).expect("remove");
        }

        /// The next event's type and payload.
        async fn next(&mut self) -> (String, Value) {
            let event = self.next_event().await;
            (event.event_type, event.payload)
        }

        async fn next_event(&mut self) -> WatchEvent {
            timeout(WAIT, self.rx.recv())
                .await
                .expect("an event within 5 s")
                .expect("channel open")
        }

        async fn nothing_for(&mut self, ms: u64) {
            if let Ok(event) = timeout(Duration::from_millis(ms), self.rx.recv()).await {
                panic!("unexpected event: {event:?}");
            }
        }

        /// The payload with the temporary root replaced and modification times checked
        /// and replaced, for snapshots.
        fn redact(&self, mut payload: Value) -> Value {
            let root = self.root.display().to_string();
            redact_paths(&mut payload, &root);
            for key in ["old_mtime", "new_mtime"] {
                if let Some(v) = payload.get_mut(key)
                    && v.is_f64()
                {
                    assert!(v.as_f64().is_some_and(|t| t > 1.0e9), "{v}");
                    *v = json!("[mtime]");
                }
            }
            payload
        }
    }

    fn redact_paths(value: &mut Value, root: &str) {
        match value {
            Value::String(s) if s.starts_with(root) => *s = s.replacen(root, "[root]", 1),
            Value::Array(items) => items.iter_mut().for_each(|v| redact_paths(v, root)),
            Value::Object(map) => map.values_mut().for_each(|v| redact_paths(v, root)),
            _ => {}
        }
    }

    fn operations(payload: &Value) -> Vec<(String, String)> {
        payload["changes"]
            .as_array()
            .expect("changes")
            .iter()
            .map(|c| {
                (
                    c["relative_path"].as_str().expect("path").to_owned(),
                    c["operation"].as_str().expect("operation").to_owned(),
                )
            })
            .collect()
    }

    #[tokio::test]
    async fn file_created_modified_deleted() {
        let mut f = fixture(0);
        // A missing directory cannot be watched; setting the rules again retries it.
        let errors = f.watcher.set_rules(vec![f.rule(
            WatchKind::File,
            &["config/app.toml"],
            false,
            &[],
        )]);
        assert_eq!(errors.len(), 1);
        // The file does not exist yet: its directory is watched, so its creation is seen.
        fs::create_dir_all(f.root.join("config")).expect("mkdir");
        f.set(vec![f.rule(
            WatchKind::File,
            &["config/app.toml"],
            false,
            &[],
        )]);

        f.write("config/app.toml", "a = 1\n");
        let (kind, created) = f.next().await;
        assert_eq!(kind, "file.changed");
        insta::assert_json_snapshot!("file_created", f.redact(created.clone()));

        f.write("config/app.toml", "a = 1\nb = 2\n");
        let (_, modified) = f.next().await;
        // The old mtime is what the created event reported as new.
        assert_eq!(modified["old_mtime"], created["new_mtime"]);
        insta::assert_json_snapshot!("file_modified", f.redact(modified.clone()));

        f.remove("config/app.toml");
        let (_, deleted) = f.next().await;
        assert_eq!(deleted["old_mtime"], modified["new_mtime"]);
        insta::assert_json_snapshot!("file_deleted", f.redact(deleted));
        f.nothing_for(200).await;
    }

    // guards: two watchers of one directory (two nodes) give one change the same id, so
    // that a shared store starts one run for it; another change gets another id
    #[tokio::test]
    async fn one_change_has_one_id_whoever_watches_it() {
        let mut a = fixture(0);
        let (tx, rx) = mpsc::channel(64);
        let mut b = Fixture {
            _tmp: tempfile::tempdir().expect("tempdir"),
            root: a.root.clone(),
            watcher: Watcher::new(tx, WatchOptions::default()).expect("watcher"),
            rx,
        };
        a.write("app.toml", "x = 1\n");
        let rule = a.rule(WatchKind::File, &["app.toml"], false, &[]);
        a.set(vec![rule.clone()]);
        b.set(vec![rule]);
        // Renamed into place: one event of the kernel, which a busy machine cannot split
        // into two changes for one watcher only.
        let root = a.root.clone();
        let put = |text: &str| {
            let partial = root.join(".app.toml.partial");
            fs::write(&partial, text).expect("write");
            fs::rename(&partial, root.join("app.toml")).expect("rename");
        };
        put("x = 2\n");
        let (first_a, first_b) = (a.next_event().await, b.next_event().await);
        assert_eq!(first_a.change_id, first_b.change_id);
        assert!(
            first_a.change_id.starts_with("change-"),
            "{}",
            first_a.change_id
        );
        // Same size, new content: another change.
        put("x = 3\n");
        let (second_a, second_b) = (a.next_event().await, b.next_event().await);
        assert_eq!(second_a.change_id, second_b.change_id);
        assert_ne!(second_a.change_id, first_a.change_id);
    }

    #[tokio::test]
    async fn file_present_at_start_reports_its_real_old_mtime() {
        let mut f = fixture(0);
        f.write("notes.md", "one\n");
        let before = stat(&f.root.join("notes.md")).expect("stat").mtime;
        f.set(vec![f.rule(WatchKind::File, &["notes.md"], false, &[])]);
        // Another file in the same directory is not watched.
        f.write("other.md", "x");
        f.write("notes.md", "one\ntwo\n");
        let (_, payload) = f.next().await;
        assert_eq!(payload["operation"], "modified");
        assert_eq!(payload["old_mtime"], json!(before));
        assert_eq!(payload["size"], 8);
        assert_eq!(payload["relative_path"], "notes.md");
        f.nothing_for(200).await;
    }

    #[tokio::test]
    async fn folder_changes_with_extension_filter_and_hidden_files() {
        let mut f = fixture(300);
        f.write("docs/keep.md", "keep");
        f.write("docs/old.md", "old");
        f.write("docs/sub/deep.md", "deep");
        f.set(vec![f.rule(
            WatchKind::Folder,
            &["docs/"],
            false,
            &[".md", "rst"],
        )]);

        f.write("docs/new.md", "new");
        f.write("docs/guide.rst", "guide");
        f.write("docs/keep.md", "keep, changed");
        f.remove("docs/old.md");
        f.write("docs/image.png", "png"); // filtered by extension
        f.write("docs/.draft.md.swp", "swap"); // hidden
        f.write("docs/sub/deep.md", "deeper"); // not recursive
        f.write("docs/sub/new.md", "new"); // not recursive

        let (kind, payload) = f.next().await;
        assert_eq!(kind, "folder.changed");
        insta::assert_json_snapshot!("folder_changed", f.redact(payload));
        f.nothing_for(500).await;
    }

    #[tokio::test]
    async fn recursive_folder_sees_new_subdirectories() {
        let mut f = fixture(300);
        f.write("docs/a/one.md", "1");
        f.set(vec![f.rule(WatchKind::Folder, &["docs"], true, &[])]);

        f.write("docs/a/one.md", "1, changed");
        // A directory created with files in it at once: they land before inotify
        // watches the new directory, and are found by scanning it.
        f.write("docs/b/c/two.md", "2");
        f.write("docs/.git/HEAD", "hidden directory");
        let (_, payload) = f.next().await;
        assert_eq!(
            operations(&payload),
            [
                ("docs/a/one.md".to_owned(), "modified".to_owned()),
                ("docs/b/c/two.md".to_owned(), "created".to_owned()),
            ]
        );
        assert_eq!(payload["count"], 2);
        assert_eq!(
            payload["path"],
            json!(f.root.join("docs").display().to_string())
        );

        // And the new directory is watched from now on.
        f.write("docs/b/c/three.md", "3");
        let (_, payload) = f.next().await;
        assert_eq!(
            operations(&payload),
            [("docs/b/c/three.md".to_owned(), "created".to_owned())]
        );
    }

    #[tokio::test]
    async fn debounce_merges_a_burst_into_one_event() {
        let mut f = fixture(400);
        fs::create_dir_all(f.root.join("docs")).expect("mkdir");
        f.set(vec![f.rule(WatchKind::Folder, &["docs"], false, &[])]);
        for i in 0..20 {
            f.write(&format!("docs/f{i:02}.txt"), "x");
            f.write(&format!("docs/f{i:02}.txt"), "xy");
        }
        let (_, payload) = f.next().await;
        assert_eq!(payload["count"], 20);
        assert!(operations(&payload).iter().all(|(_, op)| op == "created"));
        f.nothing_for(700).await;
    }

    /// Each dedup rule, in a window of its own.
    #[tokio::test]
    async fn dedup_rules() {
        let mut f = fixture(400);
        f.write("d/modified-then-deleted.txt", "1");
        f.write("d/deleted-then-created.txt", "1");
        f.write("d/modified-twice.txt", "1");
        f.set(vec![f.rule(WatchKind::Folder, &["d"], false, &[])]);

        f.write("d/created-then-modified.txt", "1");
        f.write("d/created-then-modified.txt", "12");
        f.write("d/created-then-deleted.txt", "1");
        f.remove("d/created-then-deleted.txt");
        f.write("d/modified-then-deleted.txt", "12");
        f.remove("d/modified-then-deleted.txt");
        f.remove("d/deleted-then-created.txt");
        f.write("d/deleted-then-created.txt", "123");
        f.write("d/modified-twice.txt", "12");
        f.write("d/modified-twice.txt", "1");

        let (_, payload) = f.next().await;
        assert_eq!(
            operations(&payload),
            [
                (
                    "d/created-then-modified.txt".to_owned(),
                    "created".to_owned()
                ),
                (
                    "d/deleted-then-created.txt".to_owned(),
                    "modified".to_owned()
                ),
                (
                    "d/modified-then-deleted.txt".to_owned(),
                    "deleted".to_owned()
                ),
                ("d/modified-twice.txt".to_owned(), "modified".to_owned()),
            ]
        );
        f.nothing_for(600).await;
    }

    #[tokio::test]
    async fn changes_that_cancel_send_nothing() {
        let mut f = fixture(300);
        fs::create_dir_all(f.root.join("d")).expect("mkdir");
        f.set(vec![f.rule(WatchKind::Folder, &["d"], false, &[])]);
        f.write("d/tmp.txt", "1");
        f.remove("d/tmp.txt");
        f.nothing_for(800).await;
    }

    #[tokio::test]
    async fn set_rules_removes_watches() {
        let mut f = fixture(0);
        fs::create_dir_all(f.root.join("d")).expect("mkdir");
        let folder = f.rule(WatchKind::Folder, &["d"], true, &[]);
        let file = f.rule(WatchKind::File, &["d/x.txt"], false, &[]);
        f.set(vec![folder.clone(), file]);
        // The file's directory is under the recursive folder watch: one inotify watch.
        assert_eq!(f.watcher.watched_dirs(), [(f.root.join("d"), true)]);

        f.set(vec![folder]);
        f.write("d/x.txt", "1");
        let (kind, _) = f.next().await;
        assert_eq!(kind, "folder.changed", "only the folder rule is left");

        f.set(Vec::new());
        assert!(f.watcher.watched_dirs().is_empty());
        f.write("d/x.txt", "12");
        f.write("d/y.txt", "1");
        f.nothing_for(500).await;
    }

    #[tokio::test]
    async fn unwatchable_paths_are_reported() {
        let f = fixture(0);
        let mut missing = f.rule(WatchKind::Folder, &["nowhere"], false, &[]);
        let errors = f.watcher.set_rules(vec![missing.clone()]);
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0].to_string(),
            format!("cannot watch {}", f.root.join("nowhere").display())
        );
        missing.paths = vec![PathBuf::from("relative/dir")];
        let errors = f.watcher.set_rules(vec![missing]);
        assert_eq!(
            errors[0].to_string(),
            "watch docs-sync: path relative/dir is not absolute"
        );
        assert!(f.watcher.watched_dirs().is_empty());
    }

    #[test]
    fn wanted_dirs_folds_directories_under_recursive_watches() {
        let rule = |kind, paths: &[&str], recursive| {
            RuleState::new(WatchRule {
                watch_id: "w".to_owned(),
                kind,
                paths: paths.iter().map(PathBuf::from).collect(),
                base_dir: PathBuf::from("/nonexistent"),
                project_id: "p".to_owned(),
                recursive,
                extensions: Vec::new(),
            })
        };
        let wanted = wanted_dirs(&[
            rule(WatchKind::Folder, &["/nonexistent/a/b"], false),
            rule(WatchKind::Folder, &["/nonexistent/a"], true),
            rule(
                WatchKind::File,
                &["/nonexistent/c/f.txt", "/nonexistent/a/x"],
                false,
            ),
            rule(WatchKind::Folder, &["/nonexistent/c"], false),
        ]);
        assert_eq!(
            wanted.into_iter().collect::<Vec<_>>(),
            [
                (PathBuf::from("/nonexistent/a"), RecursiveMode::Recursive),
                (PathBuf::from("/nonexistent/c"), RecursiveMode::NonRecursive),
            ]
        );
    }
}
