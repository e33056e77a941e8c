//! `hookrig install|uninstall HOST`: making hookrig a host's one hook, and undoing it.
//!
//! For every event of the host, the host's settings file gets hookrig's one entry
//! (`hookrig emit --dialect HOST`); every other hook of those events moves into a
//! sidecar beside the file (`settings.hookrig.json`, `hooks.hookrig.json`), in the host's
//! own format, which hookrig's loader of that host reads at the same level and with the
//! same trust as the file itself. The host then runs only hookrig, and hookrig runs each
//! of the user's hooks once. Everything else in the file stays as it was, byte for byte;
//! the file is copied to `<file>.hookrig-backup` before its first change; a second
//! install with nothing new changes nothing. Uninstall takes hookrig's entries out and
//! puts the moved hooks back; `doctor` says where hookrig is installed and what it will
//! run. docs/install.md describes the behaviour.

mod config_toml;
mod doctor;
mod hooks_json;

use std::ffi::OsStr;
use std::fmt;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use hookrig_config::{Environment, TrustStore, find_project, load_or_warn, trust_store_path};
use hookrig_core::text::count;
use hookrig_core::{Dialect, Level};
use serde::Serialize;
use serde_json::Value;

use crate::{claude, codex, cursor, gemini};

use crate::definition::HookDef;
use crate::errors::InstallError;
use crate::loader::LoadOptions;
use crate::trust::HookTrust as _;
pub use doctor::{Doctor, HookCheck, HostCheck, InstallState, Installed, doctor};

/// Which of a host's settings files install edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InstallLevel {
    /// The user's file (`~/.claude/settings.json`, ...).
    User,
    /// The project's file (`<repository>/.claude/settings.json`, ...).
    Project,
}

impl InstallLevel {
    /// The level's name: `user` or `project`.
    pub fn as_str(self) -> &'static str {
        match self {
            InstallLevel::User => "user",
            InstallLevel::Project => "project",
        }
    }
}

/// What `hookrig install` is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallRequest {
    /// The host: `claude`, `codex`, `gemini` or `cursor`.
    pub host: Dialect,
    /// Which of its files.
    pub level: InstallLevel,
    /// The program the host runs, as a shell word: see [`hookrig_program`].
    pub program: String,
    /// `--http`: the resident engine's address (`127.0.0.1:7700`) that the host's HTTP
    /// hooks post to, instead of running a command (Claude Code only).
    pub http: Option<String>,
}

/// What hookrig's entry of an event is made of.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// The program, as a shell word.
    pub(crate) program: String,
    /// The engine's address, for HTTP entries.
    pub(crate) http: Option<String>,
}

/// How one host's JSON hooks file is shaped, and what hookrig writes into it.
#[derive(Debug)]
pub(crate) struct JsonHooks {
    /// Events hold matcher groups whose `hooks` hold the handlers (Claude Code, Codex,
    /// Gemini CLI); otherwise events hold the handlers themselves (Cursor).
    pub(crate) grouped: bool,
    /// The host strips `//` and `/* */` comments from the file (Gemini CLI).
    pub(crate) comments: bool,
    /// Keys of `hooks` that are settings, not events.
    pub(crate) setting_keys: &'static [&'static str],
    /// Every event of the host, from its events table.
    pub(crate) events: fn() -> Vec<&'static str>,
    /// Keys a new file starts with before `hooks` (Cursor's `version`).
    pub(crate) preamble: &'static [(&'static str, i64)],
    /// hookrig's handler for one event.
    pub(crate) entry: fn(&Entry, &str) -> Value,
    /// The host's timeout of a hook of an event that sets none, in the unit of its
    /// `timeout` field (seconds; milliseconds for Gemini CLI).
    pub(crate) default_timeout: fn(&str) -> f64,
    /// What hookrig's entry is given beyond its hooks' timeouts, in the same unit: its
    /// own start and answer, and the grace between stopping a hook and killing it.
    pub(crate) timeout_margin: f64,
    /// The host keeps whether a hook is turned off by the hook's place (Codex's
    /// `[hooks.state]`): install marks the hooks it moves with `"enabled": false` when
    /// the user turned them off, and uninstall takes the mark away again.
    pub(crate) carries_state: bool,
    /// Whether the file gets hookrig's entries or only loses its hooks.
    pub(crate) role: Role,
    /// Events whose hook changes what the host does when there is none (Claude Code's
    /// `WorktreeCreate`: a hook there replaces the host's own `git worktree`, and must
    /// print the path it made). hookrig's entry goes there only while there are hooks
    /// for it to run, so that installing changes nothing for a user who has none.
    pub(crate) only_with_hooks: &'static [&'static str],
}

/// What install does to a JSON hooks file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// It gets hookrig's entries, and its hooks move out.
    Entries,
    /// Its hooks only move out, because the host reads it beside the file that has
    /// hookrig's entries, and would run hookrig twice (Claude Code's
    /// `settings.local.json`).
    MovesOnly,
}

/// One file install edits, and its sidecar.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The host's file.
    pub(crate) path: PathBuf,
    /// Where its hooks move: `<stem>.hookrig.<ext>` beside it.
    pub(crate) sidecar: PathBuf,
    /// Its format.
    pub(crate) kind: Kind,
    /// The hooks file whose per-hook state this file keeps by place (Codex's
    /// `[hooks.state]` in the user's `config.toml`), when install writes hookrig's
    /// entries there.
    pub(crate) state_of: Option<StateOf>,
}

/// A hooks file whose hooks' state the host keeps in another file, keyed by the file
/// and the place of each hook (Codex's `[hooks.state."PATH:EVENT:GROUP:HANDLER"]`).
/// Install takes out of the state file the keys naming the places hookrig's entries
/// take over, so that the state of the hooks that were there does not apply to
/// hookrig, and keeps them in the state file's sidecar; uninstall gives them back.
#[derive(Debug, Clone)]
pub(crate) struct StateOf {
    /// The hooks file that gets hookrig's entries.
    pub(crate) entries: PathBuf,
    /// Its shape.
    pub(crate) hooks: &'static JsonHooks,
    /// The state key of the hook of `entries` at a place (event, group, handler);
    /// `None` for an event the host keys no state for.
    pub(crate) key: fn(&Path, &str, usize, usize) -> Option<String>,
    /// Whether a state key names a place of `entries`.
    pub(crate) names: fn(&Path, &str) -> bool,
}

impl StateOf {
    /// The keys install takes: those of the places hookrig's entries will hold (the
    /// first handler of every event's first group), except where hookrig's entry already
    /// is, since a key there is the host's state of hookrig's entry itself.
    fn to_take(&self, text: Option<&str>) -> Vec<String> {
        let ours = text
            .map(|t| hooks_json::hookrig_places(t, self.hooks))
            .unwrap_or_default();
        (self.hooks.events)()
            .into_iter()
            .filter(|event| {
                !ours
                    .iter()
                    .any(|(e, g, h)| e == event && *g == 0 && *h == 0)
            })
            .filter_map(|event| (self.key)(&self.entries, event, 0, 0))
            .collect()
    }

    /// The keys uninstall drops: those of the places hookrig's entries hold now, which
    /// the host wrote for hookrig's entries and which would otherwise apply to the hooks
    /// that come back there.
    fn to_drop(&self, text: Option<&str>) -> Vec<String> {
        text.map(|t| hooks_json::hookrig_places(t, self.hooks))
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(event, g, h)| (self.key)(&self.entries, &event, g, h))
            .collect()
    }
}

/// The format of a target.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    /// A JSON hooks file of this shape, which gets hookrig's entries.
    Json(&'static JsonHooks),
    /// Codex's `config.toml`, whose `[hooks]` arrays of these events move out (hookrig's
    /// entries go into the `hooks.json` beside it).
    Toml(fn() -> Vec<&'static str>),
}

impl Target {
    /// A JSON target for `path`, with its sidecar beside it.
    pub(crate) fn new(path: PathBuf, hooks: &'static JsonHooks) -> Self {
        Target {
            sidecar: sidecar_of(&path),
            path,
            kind: Kind::Json(hooks),
            state_of: None,
        }
    }

    /// A `config.toml` target for `path`, with its sidecar beside it.
    pub(crate) fn toml(path: PathBuf, events: fn() -> Vec<&'static str>) -> Self {
        Target {
            sidecar: sidecar_of(&path),
            path,
            kind: Kind::Toml(events),
            state_of: None,
        }
    }

    /// This target, keeping the state of `state_of`'s hooks.
    pub(crate) fn keeping_state_of(mut self, state_of: StateOf) -> Self {
        self.state_of = Some(state_of);
        self
    }

    /// Whether install edits only the state this file keeps (the user's `config.toml`
    /// at a project install): it is named in a report only when it changed.
    fn state_only(&self) -> bool {
        self.state_of.is_some() && matches!(self.kind, Kind::Toml(events) if events().is_empty())
    }

    /// The keys of the state file to take at install, `entries` being the text of the
    /// file that gets hookrig's entries.
    fn state_to_take(&self, entries: Option<&str>) -> Vec<String> {
        self.state_of
            .as_ref()
            .map(|s| s.to_take(entries))
            .unwrap_or_default()
    }

    /// Plans the install into this target.
    fn install(
        &self,
        text: Option<&str>,
        sidecar: Option<&str>,
        entry: &Entry,
        extra: &[(String, Value)],
        off: &TurnedOff,
        state: &[String],
    ) -> Result<hooks_json::Edited, InstallError> {
        match self.kind {
            Kind::Json(hooks) => hooks_json::install(
                &self.path,
                text,
                &self.sidecar,
                sidecar,
                hooks,
                &hooks_json::Writing {
                    entry: &|event| (hooks.entry)(entry, event),
                    extra,
                    off: &|event, g, h| off(&self.path, event, g, h),
                },
            ),
            Kind::Toml(events) => {
                let edited = config_toml::install(
                    &self.path,
                    text,
                    &self.sidecar,
                    sidecar,
                    &events(),
                    &|event, g, h| off(&self.path, event, g, h),
                    state,
                )?;
                Ok(hooks_json::Edited {
                    file: edited.file,
                    sidecar: edited.sidecar,
                    moved: edited.moved,
                })
            }
        }
    }

    /// Plans the uninstall from this target: the file's new text, how many handlers
    /// came back, and what stays in the sidecar (`None`: it is removed). `entries` is
    /// the text of the file with hookrig's entries, for the state this file keeps.
    fn uninstall(
        &self,
        text: Option<&str>,
        sidecar: Option<&str>,
        entries: Option<&str>,
    ) -> Result<(String, usize, Option<String>), InstallError> {
        match self.kind {
            Kind::Json(hooks) => {
                hooks_json::uninstall(&self.path, text, &self.sidecar, sidecar, hooks)
                    .map(|(file, moved)| (file, moved, None))
            }
            Kind::Toml(events) => {
                let names = |key: &str| {
                    self.state_of
                        .as_ref()
                        .is_some_and(|s| (s.names)(&s.entries, key))
                };
                let state = self.state_of.as_ref().map(|s| config_toml::GiveBack {
                    drop: s.to_drop(entries),
                    names: &names,
                });
                config_toml::uninstall(
                    &self.path,
                    text,
                    &self.sidecar,
                    sidecar,
                    &events(),
                    state.as_ref(),
                )
            }
        }
    }

    /// Whether two texts of this file mean the same.
    fn same_meaning(&self, a: &str, b: &str) -> bool {
        match self.kind {
            Kind::Json(hooks) => hooks_json::meaning(a, hooks) == hooks_json::meaning(b, hooks),
            Kind::Toml(_) => config_toml::meaning(a) == config_toml::meaning(b),
        }
    }
}

/// Whether the user turned off, in the host itself, the hook of a file at a place: the
/// file, the event, the 0-based indexes of its group and of the handler in it.
pub(crate) type TurnedOff = dyn Fn(&Path, &str, usize, usize) -> bool;

/// What install knows of one host.
#[derive(Debug)]
pub(crate) struct HostInstall {
    /// The host's dialect.
    pub(crate) dialect: Dialect,
    /// The host's name for people.
    pub(crate) title: &'static str,
    /// Its programs: the host is on the machine when one of them is on `PATH`.
    pub(crate) programs: &'static [&'static str],
    /// Its user configuration directory: the host is on the machine when it exists.
    pub(crate) config_dir: fn(&Environment) -> PathBuf,
    /// The files install edits at a level (the project's directory given).
    pub(crate) targets: fn(&Environment, InstallLevel, &Path) -> Vec<Target>,
    /// Whether its hooks can be HTTP hooks (`--http`).
    pub(crate) http: bool,
    /// Whether a loaded hook's file or a diagnostic's path belongs to this host.
    pub(crate) owns: fn(&Environment, &Path) -> bool,
    /// The hooks the user turned off in the host, by place (Codex's `[hooks.state]`).
    pub(crate) turned_off: fn(&Environment) -> Box<TurnedOff>,
}

/// For the hosts that keep no state of a hook by its place: none is turned off.
pub(crate) fn none_turned_off(_env: &Environment) -> Box<TurnedOff> {
    Box::new(|_, _, _, _| false)
}

/// The hosts install knows, in the order `doctor` shows them.
pub(crate) const HOSTS: &[&HostInstall] = &[
    &claude::INSTALL,
    &codex::INSTALL,
    &gemini::INSTALL,
    &cursor::INSTALL,
];

/// The hosts `hookrig install` accepts.
pub fn install_hosts() -> impl Iterator<Item = Dialect> {
    HOSTS.iter().map(|h| h.dialect)
}

/// What install knows of `host`.
pub(crate) fn host(host: Dialect) -> Result<&'static HostInstall, InstallError> {
    HOSTS
        .iter()
        .copied()
        .find(|h| h.dialect == host)
        .ok_or_else(|| InstallError::UnknownHost(host.as_str().to_owned()))
}

/// `<stem>.hookrig.<ext>` beside `path`.
pub(crate) fn sidecar_of(path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let name = match path.extension() {
        Some(ext) => format!("{stem}.hookrig.{}", ext.to_string_lossy()),
        None => format!("{stem}.hookrig"),
    };
    path.with_file_name(name)
}

/// `<file>.hookrig-backup`.
fn backup_of(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".hookrig-backup");
    path.with_file_name(name)
}

/// The program a host's entry runs: `hookrig` when the `hookrig` found on `path_var`
/// is `exe` (the running executable), so that the entry keeps working when hookrig is
/// upgraded in place; else `exe`'s absolute path as one shell word.
pub fn hookrig_program(exe: &Path, path_var: Option<&OsStr>) -> String {
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    let on_path = path_var
        .into_iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join("hookrig"))
        .find(|candidate| candidate.is_file());
    if let Some(found) = on_path
        && canonical(&found).is_some_and(|f| Some(f) == canonical(exe))
    {
        return "hookrig".to_owned();
    }
    shell_word(exe)
}

/// `path` as one shell word, quoted when a shell would split or expand it.
fn shell_word(path: &Path) -> String {
    let text = path.to_string_lossy();
    if !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@%".contains(&b))
    {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// What install or uninstall did to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileChange {
    /// The host's file.
    pub path: PathBuf,
    /// Its sidecar.
    pub sidecar: PathBuf,
    /// Whether anything was written (false: it already was as asked).
    pub changed: bool,
    /// The copy of the original made by this run, if one was.
    pub backup: Option<PathBuf>,
    /// How many of the user's handlers moved into the sidecar (install) or back
    /// (uninstall).
    pub moved: usize,
}

/// Whether the hooks moved into a project sidecar will run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum SidecarTrust {
    /// A user-level install: the user's own hooks need no trust.
    User,
    /// No hook moved into a project sidecar.
    NothingMoved,
    /// The project file was trusted as it was: its hooks, now in the sidecar, are
    /// recorded as trusted there too.
    Carried,
    /// The project file was not trusted: the sidecar's hooks run once `command` is run.
    Untrusted {
        /// The command that trusts them.
        command: String,
    },
}

/// What `hookrig install HOST` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstallReport {
    /// The host.
    pub host: Dialect,
    /// The level installed.
    pub level: InstallLevel,
    /// The program the entries run (or the engine's URL for HTTP entries).
    pub entry: String,
    /// Each file edited.
    pub files: Vec<FileChange>,
    /// Whether the moved hooks of a project run.
    pub trust: SidecarTrust,
}

/// What `hookrig uninstall HOST` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UninstallReport {
    /// The host.
    pub host: Dialect,
    /// The level uninstalled.
    pub level: InstallLevel,
    /// Each file edited.
    pub files: Vec<FileChange>,
}

impl FileChange {
    /// The file's line of a report; `moved` says where its hooks went (`moved to`,
    /// `put back from`).
    fn write_line(&self, f: &mut fmt::Formatter<'_>, moved: &str) -> fmt::Result {
        if !self.changed {
            return writeln!(f, "{}: unchanged", self.path.display());
        }
        write!(f, "{}: updated", self.path.display())?;
        if self.moved > 0 {
            write!(
                f,
                ", {} {moved} {}",
                count(self.moved, "hook"),
                file_name(&self.sidecar)
            )?;
        }
        if let Some(backup) = &self.backup {
            write!(f, "; the original is kept in {}", file_name(backup))?;
        }
        writeln!(f)
    }
}

/// A sidecar or backup by its file name: it sits beside the file the line names.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// What `hookrig install` prints: each file, what the host now runs, and what the
/// user must still do for the moved hooks or the engine to work.
impl fmt::Display for InstallReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for file in &self.files {
            file.write_line(f, "moved to")?;
        }
        writeln!(
            f,
            "{} runs `{}` on every event ({} level)",
            self.host,
            self.entry,
            self.level.as_str()
        )?;
        match &self.trust {
            SidecarTrust::User | SidecarTrust::NothingMoved => {}
            SidecarTrust::Carried => f.write_str(
                "the moved hooks were trusted as they were; they stay trusted in their new file\n",
            )?,
            SidecarTrust::Untrusted { command } => writeln!(
                f,
                "the moved hooks come with the project and are not trusted yet: review them, then run `{command}`"
            )?,
        }
        if self.entry.starts_with("http://") {
            f.write_str(
                "the engine must serve HTTP there (`hookrig serve --http ADDR`), and Claude Code must run with HOOKRIG_TOKEN set to its token (`hookrig serve --print-token`)\n",
            )?;
        }
        Ok(())
    }
}

/// What `hookrig uninstall` prints: each file, or that there was nothing to undo.
impl fmt::Display for UninstallReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for file in &self.files {
            file.write_line(f, "put back from")?;
        }
        if self.files.iter().all(|file| !file.changed) {
            writeln!(
                f,
                "hookrig is not installed in {} ({} level); nothing changed",
                self.host,
                self.level.as_str()
            )?;
        }
        Ok(())
    }
}

/// The directory whose files a project install edits: the repository root of the
/// working directory, else the working directory itself.
pub(crate) fn project_dir(env: &Environment) -> PathBuf {
    find_project(env).root.unwrap_or_else(|| env.cwd.clone())
}

/// One target of an install, its text now, and what it is to become.
type Plan<'t> = (&'t Target, Option<String>, hooks_json::Edited);

/// Reads and plans the install into every target before anything is written, so that a
/// file that is refused leaves every file of the host as it was: each target, its text
/// now, and what it is to become.
fn plan_install<'t>(
    env: &Environment,
    host: &HostInstall,
    targets: &'t [Target],
    entry: &Entry,
) -> Result<Vec<Plan<'t>>, InstallError> {
    // The hooks of Codex's `config.toml` (and of its sidecar) also run through the entry
    // in `hooks.json`: they count toward its timeout.
    let mut extra = Vec::new();
    for target in targets {
        if let Kind::Toml(events) = target.kind {
            for path in [&target.path, &target.sidecar] {
                if let Some(text) = read(path)? {
                    extra.extend(config_toml::handlers(&text, &events()));
                }
            }
        }
    }
    let off = (host.turned_off)(env);
    let mut plans = Vec::new();
    for target in targets {
        let text = read(&target.path)?;
        let sidecar = read(&target.sidecar)?;
        let state = match &target.state_of {
            Some(state_of) => target.state_to_take(read(&state_of.entries)?.as_deref()),
            None => Vec::new(),
        };
        let edited = target.install(
            text.as_deref(),
            sidecar.as_deref(),
            entry,
            &extra,
            &*off,
            &state,
        )?;
        plans.push((target, text, edited));
    }
    Ok(plans)
}

/// Makes hookrig the one hook of `request.host` at `request.level`.
pub fn install(env: &Environment, request: &InstallRequest) -> Result<InstallReport, InstallError> {
    let host = host(request.host)?;
    if request.http.is_some() && !host.http {
        return Err(InstallError::HttpNotSupported(host.title));
    }
    let entry = Entry {
        program: request.program.clone(),
        http: request.http.clone(),
    };
    let dir = project_dir(env);
    let targets = (host.targets)(env, request.level, &dir);
    let plans = plan_install(env, host, &targets, &entry)?;
    // A sidecar already there may have come with the repository rather than from an
    // earlier install: its hooks count too, or trusting the sidecar would trust hooks
    // the user never saw.
    let was_trusted = match request.level {
        InstallLevel::Project => targets
            .iter()
            .flat_map(|t| [&t.path, &t.sidecar])
            .map(|file| project_file_trusted(env, file))
            .all(|trusted| trusted != Some(false)),
        InstallLevel::User => true,
    };
    let mut files = Vec::new();
    let mut moved_total = 0;
    for (target, text, edited) in plans {
        // A file that does not exist and is to stay empty (a `config.toml` with nothing
        // to move) is not written.
        let file_changed = match &text {
            Some(text) => *text != edited.file,
            None => !edited.file.is_empty(),
        };
        let changed = file_changed || edited.sidecar.is_some();
        let mut backup = None;
        if changed {
            if let Some(original) = &text {
                let path = backup_of(&target.path);
                if !path.exists() {
                    write_atomic(&path, original)?;
                    backup = Some(path);
                }
            }
            // The sidecar first: should the second write fail, the moved hooks are in
            // both files (run twice) rather than in neither (lost).
            if let Some(sidecar) = &edited.sidecar {
                write_atomic(&target.sidecar, sidecar)?;
            }
            if file_changed {
                write_atomic(&target.path, &edited.file)?;
            }
        }
        moved_total += edited.moved;
        if !changed && target.state_only() {
            continue;
        }
        files.push(FileChange {
            path: target.path.clone(),
            sidecar: target.sidecar.clone(),
            changed,
            backup,
            moved: edited.moved,
        });
    }
    let trust = match request.level {
        InstallLevel::User => SidecarTrust::User,
        InstallLevel::Project if moved_total == 0 => SidecarTrust::NothingMoved,
        InstallLevel::Project if was_trusted => {
            let sidecars: Vec<&Path> = files.iter().map(|f| f.sidecar.as_path()).collect();
            trust_files(env, &sidecars)?;
            SidecarTrust::Carried
        }
        InstallLevel::Project => SidecarTrust::Untrusted {
            command: format!("hookrig trust {}", shell_word(&dir)),
        },
    };
    Ok(InstallReport {
        host: host.dialect,
        level: request.level,
        entry: match &request.http {
            Some(addr) => format!("http://{addr}/emit/EVENT?dialect={}", host.dialect.as_str()),
            None => format!(
                "{} emit --dialect {}",
                request.program,
                host.dialect.as_str()
            ),
        },
        files,
        trust,
    })
}

/// Takes hookrig out of `host` at `level`: its entries removed, the moved hooks put back
/// (after any the user added to the file since), the sidecar deleted. When the result
/// means what the backup holds, the backup's bytes are written back, so that a file
/// nobody changed since install is exactly the original, comments and all.
pub fn uninstall(
    env: &Environment,
    host: Dialect,
    level: InstallLevel,
) -> Result<UninstallReport, InstallError> {
    let host = self::host(host)?;
    let dir = project_dir(env);
    let targets = (host.targets)(env, level, &dir);
    let mut plans = Vec::new();
    for target in &targets {
        let text = read(&target.path)?;
        let sidecar = read(&target.sidecar)?;
        if text.is_none() && sidecar.is_none() {
            continue;
        }
        let entries = match &target.state_of {
            Some(state_of) => read(&state_of.entries)?,
            None => None,
        };
        let (mut file, moved, remaining) =
            target.uninstall(text.as_deref(), sidecar.as_deref(), entries.as_deref())?;
        let backup_path = backup_of(&target.path);
        let backup = read(&backup_path)?;
        let mut restored_backup = false;
        if let Some(backup) = &backup
            && target.same_meaning(backup, &file)
        {
            file.clone_from(backup);
            restored_backup = true;
        }
        plans.push((
            target,
            text,
            sidecar,
            file,
            moved,
            remaining,
            restored_backup,
        ));
    }
    let mut files = Vec::new();
    for (target, text, sidecar, file, moved, remaining, restored_backup) in plans {
        let file_changed = match &text {
            Some(text) => *text != file,
            None => !file.is_empty(),
        };
        let sidecar_changed = sidecar != remaining;
        let changed = file_changed || sidecar_changed;
        if file_changed {
            write_atomic(&target.path, &file)?;
        }
        // A sidecar that still keeps what install took for another level (the state of
        // another project's entries) stays, with that only.
        if sidecar_changed {
            match &remaining {
                Some(rest) => write_atomic(&target.sidecar, rest)?,
                None => remove(&target.sidecar)?,
            }
        }
        if restored_backup {
            // The file is the original again: the copy has nothing more to keep.
            remove(&backup_of(&target.path))?;
        }
        if !changed && target.state_only() {
            continue;
        }
        files.push(FileChange {
            path: target.path.clone(),
            sidecar: target.sidecar.clone(),
            changed,
            backup: None,
            moved,
        });
    }
    Ok(UninstallReport {
        host: host.dialect,
        level,
        files,
    })
}

/// A file's text; `None` when it does not exist.
fn read(path: &Path) -> Result<Option<String>, InstallError> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| InstallError::NotUtf8(path.to_owned())),
        Err(err) if err.kind() == ErrorKind::NotFound => Ok(None),
        Err(source) => Err(InstallError::Read {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Writes `text` to `path` through a temporary file in the same directory renamed over
/// it, so that a host reading the file meanwhile sees the old file or the new one, never
/// half of one. The directory is created when missing; an existing file's permissions
/// are kept.
fn write_atomic(path: &Path, text: &str) -> Result<(), InstallError> {
    let failed = |source| InstallError::Write {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    let temporary = path.with_file_name(name);
    std::fs::write(&temporary, text).map_err(failed)?;
    if let Ok(metadata) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(&temporary, metadata.permissions());
    }
    std::fs::rename(&temporary, path).map_err(|err| {
        let _ = std::fs::remove_file(&temporary);
        failed(err)
    })
}

/// Removes a file; one already gone is fine.
fn remove(path: &Path) -> Result<(), InstallError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == ErrorKind::NotFound => Ok(()),
        Err(source) => Err(InstallError::Write {
            path: path.to_owned(),
            source,
        }),
    }
}

/// The hooks loaded from `file` (trust not applied: every project hook as it is).
fn hooks_of(env: &Environment, file: &Path) -> Vec<HookDef> {
    let env = Environment {
        trust_all: true,
        ..env.clone()
    };
    crate::loader::load(&env, &LoadOptions::default())
        .map(|config| {
            config
                .hooks
                .into_iter()
                .filter(|h| h.spec.source.level == Level::Project && h.spec.source.path == file)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether every hook of the project file `file` is trusted as it is now; `None` when
/// it declares none.
fn project_file_trusted(env: &Environment, file: &Path) -> Option<bool> {
    let hooks = hooks_of(env, file);
    if hooks.is_empty() {
        return None;
    }
    let (store, _) = load_or_warn(env, "project hook");
    let project = find_project(env);
    Some(
        hooks
            .iter()
            .all(|h| store.check_recorded(h, &project).is_none()),
    )
}

/// Records the hooks of `files` as trusted as they are now.
fn trust_files(env: &Environment, files: &[&Path]) -> Result<(), InstallError> {
    let hooks: Vec<HookDef> = files.iter().flat_map(|f| hooks_of(env, f)).collect();
    if hooks.is_empty() {
        return Ok(());
    }
    let project = find_project(env);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    TrustStore::update(&trust_store_path(env), |store| {
        for hook in &hooks {
            store.trust(hook, &project, now);
        }
        Ok::<_, InstallError>(())
    })
}

#[cfg(test)]
mod tests;
