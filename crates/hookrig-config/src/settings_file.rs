//! `config.toml`: hookrig's (and Hence's) settings file, beside the hook files.
//!
//! Four files are read, global before project, and within a level Hence's alias before
//! hookrig's own name, so that hookrig's file wins where both set a value:
//! `$XDG_CONFIG_HOME/hence/config.toml`, `$XDG_CONFIG_HOME/hookrig/config.toml`, then
//! the nearest `.hence/config.toml` and `.hookrig/config.toml` walking up from the
//! working directory. Each file is parsed into a raw layer with positions, then merged
//! keeping the file every value came from.

use std::io::ErrorKind;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hookrig_core::Level;
use serde::{Deserialize, Serialize, Serializer};
use toml::Spanned;

use crate::automation_settings::{
    self, AutomationSettings, MemorySettings, NotifierConfig, RawAutomation, RawMemory, RawNotifier,
};
use crate::environment::{Environment, find_project};
use hookrig_core::{Diagnostic, Severity};

use crate::errors::ConfigError;
use crate::hook_point::HookPoint;
use crate::lowering::Lowering;
use crate::store_settings;

// Raw layer: exactly what one file says, with positions.

#[derive(Debug, Default, Deserialize)]
struct RawFile {
    settings: Option<RawSettings>,
    providers: Option<Vec<Spanned<RawProvider>>>,
    agents: Option<Vec<Spanned<RawAgent>>>,
    hooks: Option<RawHooks>,
    worktree: Option<RawWorktree>,
    automation: Option<RawAutomation>,
    notifiers: Option<Vec<Spanned<RawNotifier>>>,
    memory: Option<RawMemory>,
    store: Option<store_settings::RawStore>,
}

#[derive(Debug, Default, Deserialize)]
struct RawProvider {
    id: Option<Spanned<String>>,
    name: Option<Spanned<String>>,
    cli: Option<Spanned<String>>,
    version_args: Option<Vec<String>>,
    auto_approve_flag: Option<String>,
    initial_prompt_flag: Option<String>,
    use_keystroke_injection: Option<bool>,
    keystroke_delay_ms: Option<Spanned<i64>>,
    resume_flag: Option<String>,
    default_args: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
struct RawAgent {
    name: Option<Spanned<String>>,
    provider: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[expect(
    clippy::struct_field_names,
    reason = "the keys are Hence's hook point names"
)]
struct RawHooks {
    post_claim: Option<Spanned<HookSetting>>,
    post_complete: Option<Spanned<HookSetting>>,
    post_block: Option<Spanned<HookSetting>>,
    post_unblock: Option<Spanned<HookSetting>>,
    post_assert: Option<Spanned<HookSetting>>,
    post_plan_complete: Option<Spanned<HookSetting>>,
}

#[derive(Debug, Default, Deserialize)]
struct RawWorktree {
    provision: Option<RawProvision>,
}

#[derive(Debug, Default, Deserialize)]
struct RawProvision {
    files: Option<Vec<Spanned<RawProvisionFile>>>,
}

#[derive(Debug, Default, Deserialize)]
struct RawProvisionFile {
    from: Option<Spanned<String>>,
    to: Option<Spanned<String>>,
    mode: Option<Spanned<String>>,
}

/// A `[hooks]` entry: `true` runs the hook point's script under its default name,
/// `false` disables it, a string names the script to run instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookSetting {
    /// `true`: the script named after the hook point.
    Default,
    /// `false`: the hook point runs nothing.
    Disabled,
    /// `"notify.sh"`: this script instead.
    Script(String),
}

/// As config.toml writes it: `true`, `false` or the script's name.
impl Serialize for HookSetting {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            HookSetting::Default => serializer.serialize_bool(true),
            HookSetting::Disabled => serializer.serialize_bool(false),
            HookSetting::Script(name) => serializer.serialize_str(name),
        }
    }
}

impl<'de> Deserialize<'de> for HookSetting {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = HookSetting;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("true, false or a script name")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<HookSetting, E> {
                Ok(if v {
                    HookSetting::Default
                } else {
                    HookSetting::Disabled
                })
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<HookSetting, E> {
                if v.is_empty() {
                    return Err(E::custom("a hook script name must not be empty"));
                }
                // The name is looked up in every hooks directory; a path would name one
                // file for all of them, or leave the directory.
                if v.contains('/') || v == "." || v == ".." {
                    return Err(E::custom(format!(
                        "a hook script name is a file name in the hooks directory, without `/`, got `{v}`"
                    )));
                }
                Ok(HookSetting::Script(v.to_owned()))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// A custom agent provider (`[[providers]]`), with the defaults of docs/config-toml.md applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provider {
    /// Unique identifier, referenced by a task's `(provider "...")`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Executable name (searched in `PATH`) or path.
    pub cli: String,
    /// Arguments of the version check (empty: no check).
    pub version_args: Vec<String>,
    /// Flag for non-interactive / auto-approve mode.
    pub auto_approve_flag: Option<String>,
    /// Flag that passes the initial task prompt.
    pub initial_prompt_flag: Option<String>,
    /// Inject keystrokes into a PTY instead of passing flags (default false).
    pub use_keystroke_injection: bool,
    /// Delay between injected keystrokes, in milliseconds (default 100).
    pub keystroke_delay_ms: u64,
    /// Flag that resumes an interrupted session.
    pub resume_flag: Option<String>,
    /// Arguments always passed to the CLI.
    pub default_args: Vec<String>,
}

/// An `[[agents]]` entry: the provider an agent uses when its task names none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentConfig {
    /// The agent's name (`--agent`, `HOOKRIG_AGENT`).
    pub name: String,
    /// The id of its provider (configured or built in).
    pub provider: String,
}

/// How a provisioned file reaches an agent's worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProvisionMode {
    /// A symbolic link to the original (the default).
    Symlink,
    /// A copy (for secrets that should not be linked).
    Copy,
}

impl ProvisionMode {
    /// `symlink` or `copy`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProvisionMode::Symlink => "symlink",
            ProvisionMode::Copy => "copy",
        }
    }
}

/// One `[worktree.provision] files` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProvisionFile {
    /// The file, relative to the repository.
    pub from: String,
    /// Where it goes in the worktree (default: `from`).
    pub to: String,
    /// Symlink or copy.
    pub mode: ProvisionMode,
}

#[derive(Debug, Default, Deserialize)]
struct RawSettings {
    hook_timeout: Option<Spanned<i64>>,
    plugin_path: Option<Spanned<Vec<Spanned<String>>>>,
}

const KNOWN_KEYS: &[&str] = &[
    "settings",
    "hook_timeout",
    "plugin_path",
    "providers",
    "agents",
    "provider",
    "id",
    "name",
    "cli",
    "version_args",
    "auto_approve_flag",
    "initial_prompt_flag",
    "use_keystroke_injection",
    "keystroke_delay_ms",
    "resume_flag",
    "default_args",
    "hooks",
    "post_claim",
    "post_complete",
    "post_block",
    "post_unblock",
    "post_assert",
    "post_plan_complete",
    "worktree",
    "provision",
    "files",
    "from",
    "to",
    "mode",
];

/// A value and the file it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sourced<T> {
    /// The value, resolved.
    pub value: T,
    /// The file that set it.
    pub source: PathBuf,
    /// 1-based line of the value in that file.
    pub line: usize,
}

/// The merged `config.toml` of one working directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigToml {
    /// The files read, in merge order (later wins).
    pub files: Vec<PathBuf>,
    /// `[settings] hook_timeout`: how long a Hence lifecycle hook may run.
    pub hook_timeout: Option<Sourced<Duration>>,
    /// `[settings] plugin_path`: extra directories searched for external commands, as
    /// absolute paths. The value of the file merged last that sets it, as for every
    /// other setting.
    pub plugin_path: Option<Sourced<Vec<PathBuf>>>,
    /// `[[providers]]`, merged by `id`: a later file's provider replaces an earlier one
    /// with the same id in place; new ids are appended.
    pub providers: Vec<Sourced<Provider>>,
    /// `[[agents]]`, merged by `name` like providers by `id`.
    pub agents: Vec<Sourced<AgentConfig>>,
    /// `[hooks]`, by hook point, in [`HookPoint::ALL`] order.
    pub hooks: Vec<(HookPoint, Sourced<HookSetting>)>,
    /// `[worktree.provision] files`, merged by `to` like providers by `id`.
    pub provision: Vec<Sourced<ProvisionFile>>,
    /// `[automation]` and `[automation.llm]`, merged key by key.
    pub automation: AutomationSettings,
    /// `[[notifiers]]` of every file, in merge order; one with the kind and URL of an
    /// earlier one replaces it in place.
    pub notifiers: Vec<Sourced<NotifierConfig>>,
    /// `[memory]`, merged key by key (`[memory.embeddings]` as a whole).
    pub memory: MemorySettings,
    /// `[store] url`: the PostgreSQL database `hookrig serve` shares with the other nodes
    /// on it. Only the user's own files set it: a project file's is ignored with a
    /// warning.
    pub store_url: Option<Sourced<String>>,
    /// Project files not trusted as they are now, whose settings that name programs,
    /// URLs or places to send data were left out of the merge.
    pub untrusted: Vec<UntrustedConfig>,
}

/// A project `config.toml` that is not trusted as it is now (see [`load_config_toml`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UntrustedConfig {
    /// The file.
    pub path: PathBuf,
    /// Why: never trusted, or changed since.
    pub reason: &'static str,
    /// What it set and was ignored: `[[providers]]`, `plugin_path`, ...
    pub ignored: Vec<&'static str>,
}

impl ConfigToml {
    /// The `[hooks]` setting of `point`, if any file sets it.
    pub fn hook(&self, point: HookPoint) -> Option<&Sourced<HookSetting>> {
        self.hooks.iter().find(|(p, _)| *p == point).map(|(_, s)| s)
    }

    /// `hook_timeout`, or Hence's default of 30 s.
    pub fn hook_timeout(&self) -> Duration {
        self.hook_timeout
            .as_ref()
            .map_or(DEFAULT_HOOK_TIMEOUT, |t| t.value)
    }
}

/// Hence's default hook timeout.
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(30);

/// The `config.toml` files of `env`, in merge order, each with its level and the
/// directory its relative paths are resolved against: the directory that holds
/// `.hookrig/` or `.hence/` for a project file, the file's own directory for a global
/// one.
pub fn config_toml_paths(env: &Environment) -> Vec<(PathBuf, Level, PathBuf)> {
    let mut paths = Vec::new();
    for tool in ["hence", "hookrig"] {
        let dir = env.config_home.join(tool);
        paths.push((dir.join("config.toml"), Level::Global, dir));
    }
    let project = find_project(env);
    for tool in [".hence", ".hookrig"] {
        if let Some(path) = project.nearest_file(&format!("{tool}/config.toml")) {
            let base = path
                .parent()
                .and_then(Path::parent)
                .unwrap_or(Path::new("/"))
                .to_owned();
            paths.push((path, Level::Project, base));
        }
    }
    paths
}

/// Reads and merges every `config.toml` of `env`. Missing files are fine; warnings
/// (unknown keys) go to `warnings`; any error fails the whole load, listing every error.
///
/// A project file comes with the repository, so it is trusted like project hooks: by
/// the SHA-256 of the file, recorded by `hookrig trust`. While it is not trusted as it
/// is now (and `env.trust_all` is off), the settings that name programs, URLs or places
/// to send data (`[[providers]]`, `[[agents]]`, `plugin_path`, `[automation.llm]`,
/// `[[notifiers]]`, `[memory.embeddings]`, a `notes_dir` outside the project) are left
/// out, with one warning per file; the rest (timeouts, `[hooks]`, `[automation]`
/// numbers, `[worktree.provision]`) still applies.
pub fn load_config_toml(
    env: &Environment,
    warnings: &mut Vec<Diagnostic>,
) -> Result<ConfigToml, ConfigError> {
    let mut errors = Vec::new();
    let (_, merged) = load_layers(env, warnings, &mut errors);
    if errors.is_empty() {
        Ok(merged)
    } else {
        Err(ConfigError::Invalid {
            errors,
            other: Vec::new(),
        })
    }
}

/// What the hook loaders read of `config.toml`: the merge of the global files alone
/// (the settings of the user's own hooks), then of every file (the settings of the
/// project's hooks). A file that cannot be read or has an error is left out of both,
/// its errors in `warnings` with `Severity::Error`: a broken file must not keep the
/// other sources' hooks from running.
pub fn load_config_toml_by_level(
    env: &Environment,
    warnings: &mut Vec<Diagnostic>,
) -> (ConfigToml, ConfigToml) {
    let mut errors = Vec::new();
    let merged = load_layers(env, warnings, &mut errors);
    warnings.extend(errors);
    merged
}

/// Reads and merges every `config.toml` of `env`, leaving out the files with errors
/// (reported in `errors`); returns the merge of the global files and the merge of all.
fn load_layers(
    env: &Environment,
    warnings: &mut Vec<Diagnostic>,
    errors: &mut Vec<Diagnostic>,
) -> (ConfigToml, ConfigToml) {
    let mut merged = ConfigToml::default();
    let mut global = None;
    // Read once, and only when a project file sets something that needs trust.
    let mut store: Option<std::sync::Arc<crate::trust::TrustStore>> = None;
    for (path, level, base) in config_toml_paths(env) {
        if level == Level::Project && global.is_none() {
            global = Some(merged.clone());
        }
        let text = match crate::source::read_source_bytes(&path) {
            Ok(bytes) => match Diagnostic::utf8(&path, bytes, Severity::Error) {
                Ok(text) => text,
                Err(diagnostic) => {
                    errors.push(diagnostic);
                    continue;
                }
            },
            Err(err) if err.kind() == ErrorKind::NotFound => continue,
            Err(err) => {
                errors.push(Diagnostic::file(
                    &path,
                    Severity::Error,
                    format!("cannot read: {err}"),
                ));
                continue;
            }
        };
        merged.files.push(path.clone());
        match parse_layer(&path, &text, level, &base, &env.home, warnings) {
            Ok(mut layer) => {
                if level == Level::Project && !env.trust_all {
                    let ignored = layer.needing_trust();
                    if !ignored.is_empty() {
                        let store = store.get_or_insert_with(|| {
                            let (store, problem) =
                                crate::trust::load_or_warn(env, "project config.toml");
                            warnings.extend(problem);
                            store
                        });
                        let key = crate::trust::file_trust_key("config", &path);
                        if let Some(distrust) = store.check_file(&key, text.as_bytes()) {
                            let reason = match distrust {
                                crate::trust::Distrust::New => {
                                    "it comes with the project and is not trusted yet"
                                }
                                _ => "it changed since it was trusted",
                            };
                            layer.strip_needing_trust();
                            warnings.push(Diagnostic::file(
                                &path,
                                Severity::Warning,
                                format!(
                                    "{reason}; ignoring its {}; review it, then run hookrig trust",
                                    ignored.join(", ")
                                ),
                            ));
                            merged.untrusted.push(UntrustedConfig {
                                path: path.clone(),
                                ignored,
                                reason,
                            });
                        }
                    }
                }
                layer.merge_into(&mut merged);
            }
            Err(found) => errors.extend(found),
        }
    }
    let global = global.unwrap_or_else(|| merged.clone());
    (global, merged)
}

/// One file, lowered: every value resolved and tagged with its place.
#[derive(Debug, Default)]
struct Layer {
    hook_timeout: Option<Sourced<Duration>>,
    plugin_path: Option<Sourced<Vec<PathBuf>>>,
    providers: Vec<Sourced<Provider>>,
    agents: Vec<Sourced<AgentConfig>>,
    hooks: Vec<(HookPoint, Sourced<HookSetting>)>,
    provision: Vec<Sourced<ProvisionFile>>,
    automation: automation_settings::AutomationLayer,
    store_url: Option<Sourced<String>>,
}

impl Layer {
    /// The settings of this file that need trust (programs, URLs, places to send
    /// data), by the names the warning and `hookrig config show` print.
    fn needing_trust(&self) -> Vec<&'static str> {
        let mut found = Vec::new();
        if !self.providers.is_empty() {
            found.push("[[providers]]");
        }
        if !self.agents.is_empty() {
            found.push("[[agents]]");
        }
        if self.plugin_path.is_some() {
            found.push("plugin_path");
        }
        found.extend(self.automation.needing_trust());
        if self.provision.iter().any(|f| leaves_project(&f.value.from)) {
            found.push("[worktree.provision] files from outside the project");
        }
        found
    }

    /// Removes what [`Layer::needing_trust`] lists.
    fn strip_needing_trust(&mut self) {
        self.providers.clear();
        self.agents.clear();
        self.plugin_path = None;
        self.automation.strip_needing_trust();
        self.provision.retain(|f| !leaves_project(&f.value.from));
    }

    fn merge_into(self, merged: &mut ConfigToml) {
        self.automation.merge_into(
            &mut merged.automation,
            &mut merged.notifiers,
            &mut merged.memory,
        );
        if self.hook_timeout.is_some() {
            merged.hook_timeout = self.hook_timeout;
        }
        if self.plugin_path.is_some() {
            merged.plugin_path = self.plugin_path;
        }
        if self.store_url.is_some() {
            merged.store_url = self.store_url;
        }
        merge_by(&mut merged.providers, self.providers, |p| p.id.clone());
        merge_by(&mut merged.agents, self.agents, |a| a.name.clone());
        merge_by(&mut merged.provision, self.provision, |f| f.to.clone());
        for (point, setting) in self.hooks {
            match merged.hooks.iter_mut().find(|(p, _)| *p == point) {
                Some(slot) => slot.1 = setting,
                None => merged.hooks.push((point, setting)),
            }
        }
        merged
            .hooks
            .sort_by_key(|(p, _)| HookPoint::ALL.iter().position(|q| q == p));
    }
}

/// Whether a path a project file names, relative to the project, reaches outside it.
/// Provisioning a file of the repository (`.env`) into an agent's worktree keeps it
/// where it was; one named `/home/me/.ssh/id_rsa` or `../../.aws/credentials` would be
/// copied into a worktree the agent reads and may commit.
fn leaves_project(path: &str) -> bool {
    let path = Path::new(path);
    path.is_absolute()
        || path
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
}

/// Replaces the entry with the same key in place, or appends.
fn merge_by<T>(into: &mut Vec<Sourced<T>>, from: Vec<Sourced<T>>, key: impl Fn(&T) -> String) {
    for item in from {
        let k = key(&item.value);
        match into.iter_mut().find(|old| key(&old.value) == k) {
            Some(old) => *old = item,
            None => into.push(item),
        }
    }
}

/// Parses one `config.toml` of `level`; `base` resolves relative paths, `home` expands
/// `~/`.
fn parse_layer(
    path: &Path,
    text: &str,
    level: Level,
    base: &Path,
    home: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Layer, Vec<Diagnostic>> {
    let mut lower = Lowering::new(path, text, warnings);
    let known: Vec<&str> = KNOWN_KEYS
        .iter()
        .chain(automation_settings::KNOWN_KEYS)
        .chain(store_settings::KNOWN_KEYS)
        .copied()
        .collect();
    let raw: RawFile = lower
        .toml(&known)
        .map_err(|err| vec![lower.toml_error(&err, Severity::Error, "")])?;
    let mut layer = Layer::default();
    if let Some(settings) = raw.settings {
        if let Some(timeout) = settings.hook_timeout {
            match u64::try_from(*timeout.get_ref()) {
                Ok(seconds) if seconds > 0 => {
                    layer.hook_timeout =
                        Some(lower.sourced(Duration::from_secs(seconds), &timeout.span()));
                }
                _ => lower.error(
                    timeout.span(),
                    format!(
                        "`hook_timeout` must be a positive number of seconds, got {}",
                        timeout.get_ref()
                    ),
                ),
            }
        }
        if let Some(dirs) = settings.plugin_path {
            let span = dirs.span();
            let mut resolved = Vec::new();
            for dir in dirs.into_inner() {
                if dir.get_ref().is_empty() {
                    lower.error(dir.span(), "`plugin_path` entries must not be empty");
                    continue;
                }
                resolved.push(resolve_path(dir.get_ref(), base, home));
            }
            layer.plugin_path = Some(lower.sourced(resolved, &span));
        }
    }
    for raw in raw.providers.unwrap_or_default() {
        let span = raw.span();
        if let Some(provider) = provider(&mut lower, raw.into_inner(), &span) {
            if let Some(first) = layer.providers.iter().find(|p| p.value.id == provider.id) {
                let message = format!(
                    "duplicate provider id `{}` (first declared on line {}); ids must be unique in a file",
                    provider.id, first.line
                );
                lower.error(span, message);
                continue;
            }
            layer.providers.push(lower.sourced(provider, &span));
        }
    }
    for raw in raw.agents.unwrap_or_default() {
        agent(&mut lower, raw, &mut layer.agents);
    }
    if let Some(hooks) = raw.hooks {
        let points = [
            (HookPoint::PostClaim, hooks.post_claim),
            (HookPoint::PostComplete, hooks.post_complete),
            (HookPoint::PostBlock, hooks.post_block),
            (HookPoint::PostUnblock, hooks.post_unblock),
            (HookPoint::PostAssert, hooks.post_assert),
            (HookPoint::PostPlanComplete, hooks.post_plan_complete),
        ];
        for (point, setting) in points {
            if let Some(setting) = setting {
                let span = setting.span();
                layer
                    .hooks
                    .push((point, lower.sourced(setting.into_inner(), &span)));
            }
        }
    }
    let files = raw
        .worktree
        .and_then(|w| w.provision)
        .and_then(|p| p.files)
        .unwrap_or_default();
    for raw in files {
        let span = raw.span();
        if let Some(file) = provision_file(&mut lower, raw.into_inner(), &span) {
            layer.provision.push(lower.sourced(file, &span));
        }
    }
    layer.automation =
        automation_settings::lower(&mut lower, raw.automation, raw.notifiers, raw.memory, home);
    layer.store_url = store_settings::lower(&mut lower, raw.store, level);
    // Found section by section; `finish` puts them in file order.
    lower.finish().map(|()| layer)
}

/// `~/x` is under `home`; a relative path is under `base`.
fn resolve_path(text: &str, base: &Path, home: &Path) -> PathBuf {
    if text == "~" {
        home.to_owned()
    } else if let Some(rest) = text.strip_prefix("~/") {
        home.join(rest)
    } else {
        base.join(text)
    }
}

/// A required string field; an error at `span` (the entry) when it is missing.
pub(crate) fn required(
    lower: &mut Lowering<'_>,
    field: Option<Spanned<String>>,
    key: &str,
    what: &str,
    span: &Range<usize>,
) -> Option<String> {
    lower.required(
        field,
        span,
        || format!("{what}: `{key}` must not be empty"),
        || format!("{what}: missing required field `{key}`"),
    )
}

fn provider(lower: &mut Lowering<'_>, raw: RawProvider, span: &Range<usize>) -> Option<Provider> {
    let what = match &raw.id {
        Some(id) => format!("provider `{}`", id.get_ref()),
        None => "provider".to_owned(),
    };
    let id = required(lower, raw.id, "id", &what, span);
    let name = required(lower, raw.name, "name", &what, span);
    let cli = required(lower, raw.cli, "cli", &what, span);
    let keystroke_delay_ms = match raw.keystroke_delay_ms {
        None => Some(100),
        Some(ms) => {
            let value = u64::try_from(*ms.get_ref()).ok();
            if value.is_none() {
                lower.error(
                    ms.span(),
                    format!(
                        "{what}: `keystroke_delay_ms` must not be negative, got {}",
                        ms.get_ref()
                    ),
                );
            }
            value
        }
    };
    Some(Provider {
        id: id?,
        name: name?,
        cli: cli?,
        version_args: raw.version_args.unwrap_or_default(),
        auto_approve_flag: raw.auto_approve_flag,
        initial_prompt_flag: raw.initial_prompt_flag,
        use_keystroke_injection: raw.use_keystroke_injection.unwrap_or(false),
        keystroke_delay_ms: keystroke_delay_ms?,
        resume_flag: raw.resume_flag,
        default_args: raw.default_args.unwrap_or_default(),
    })
}

/// One `[[agents]]` entry, appended to `agents` unless invalid or a duplicate.
fn agent(lower: &mut Lowering<'_>, raw: Spanned<RawAgent>, agents: &mut Vec<Sourced<AgentConfig>>) {
    let span = raw.span();
    let raw = raw.into_inner();
    let what = match &raw.name {
        Some(name) => format!("agent `{}`", name.get_ref()),
        None => "agent".to_owned(),
    };
    let name = required(lower, raw.name, "name", &what, &span);
    let provider = required(lower, raw.provider, "provider", &what, &span);
    let (Some(name), Some(provider)) = (name, provider) else {
        return;
    };
    if let Some(first) = agents.iter().find(|a| a.value.name == name) {
        let message = format!(
            "duplicate agent `{name}` (first declared on line {}); names must be unique in a file",
            first.line
        );
        lower.error(span, message);
        return;
    }
    agents.push(lower.sourced(AgentConfig { name, provider }, &span));
}

fn provision_file(
    lower: &mut Lowering<'_>,
    raw: RawProvisionFile,
    span: &Range<usize>,
) -> Option<ProvisionFile> {
    let from = required(lower, raw.from, "from", "worktree provision file", span)?;
    let to = raw.to.map_or_else(|| from.clone(), Spanned::into_inner);
    let mode = lower.choice(
        raw.mode.as_ref(),
        ProvisionMode::Symlink,
        &[
            ("symlink", ProvisionMode::Symlink),
            ("copy", ProvisionMode::Copy),
        ],
        Severity::Error,
        |other, _| {
            format!(
                "worktree provision file `{from}`: unknown mode `{other}`; use \"symlink\" or \"copy\""
            )
        },
    )?;
    Some(ProvisionFile { from, to, mode })
}

#[cfg(test)]
mod tests {
    use indoc::indoc;

    use super::*;

    fn env(root: &Path) -> Environment {
        Environment {
            home: root.join("home"),
            config_home: root.join("home/.config"),
            state_home: root.join("home/.local/state"),
            data_home: root.join("home/.local/share"),
            xcode_home: root.join("home/.x-code"),
            cwd: root.join("project/sub"),
            // These tests are about merging; trust has its own test below.
            trust_all: true,
        }
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    fn world() -> (tempfile::TempDir, Environment) {
        let dir = tempfile::tempdir().expect("tempdir");
        let env = env(dir.path());
        std::fs::create_dir_all(dir.path().join("project/.git")).expect("mkdir");
        std::fs::create_dir_all(&env.cwd).expect("mkdir");
        (dir, env)
    }

    #[test]
    fn an_untrusted_project_file_loses_what_needs_trust_until_trusted_as_it_is() {
        let (dir, env) = world();
        let env = Environment {
            trust_all: false,
            ..env
        };
        let root = dir.path();
        let file = root.join("project/.hookrig/config.toml");
        let text = "[settings]\nhook_timeout = 3\n\n[[providers]]\nid = \"a\"\nname = \"A\"\ncli = \"a-local\"\n";
        write(&file, text);
        let mut warnings = Vec::new();
        let merged = load_config_toml(&env, &mut warnings).expect("loads");
        assert!(merged.providers.is_empty());
        assert_eq!(merged.hook_timeout(), Duration::from_secs(3));
        assert_eq!(merged.untrusted[0].ignored, ["[[providers]]"]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].to_string().starts_with(&format!(
            "{}: it comes with the project and is not trusted yet; ignoring its [[providers]]",
            file.display()
        )));

        let mut store = crate::TrustStore::default();
        assert!(store.trust_file("config", &file, text.as_bytes(), 1));
        store
            .save(&crate::trust_store_path(&env))
            .expect("save the store");
        let mut warnings = Vec::new();
        let merged = load_config_toml(&env, &mut warnings).expect("loads");
        assert_eq!(merged.providers[0].value.cli, "a-local");
        assert!(merged.untrusted.is_empty() && warnings.is_empty());

        write(&file, &format!("{text}# edited\n"));
        let merged = load_config_toml(&env, &mut warnings).expect("loads");
        assert!(merged.providers.is_empty());
        assert_eq!(
            merged.untrusted[0].reason,
            "it changed since it was trusted"
        );

        // A store that cannot be read trusts nothing, and says so.
        write(&crate::trust_store_path(&env), "{not json");
        let mut warnings = Vec::new();
        write(&file, text);
        let merged = load_config_toml(&env, &mut warnings).expect("loads");
        assert!(merged.providers.is_empty());
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0]
                .to_string()
                .contains("no project config.toml is trusted until the file is fixed or removed"),
            "{warnings:?}"
        );
    }

    #[test]
    fn plugin_path_resolves_against_its_level_and_the_local_file_wins() {
        let (dir, env) = world();
        let root = dir.path();
        write(
            &root.join("home/.config/hookrig/config.toml"),
            "[settings]\nplugin_path = [\"plugins\", \"~/bin\", \"/opt/x\"]\nhook_timeout = 10\n",
        );
        let mut warnings = Vec::new();
        let merged = load_config_toml(&env, &mut warnings).expect("loads");
        let plugin_path = merged.plugin_path.clone().expect("set");
        assert_eq!(
            plugin_path.value,
            [
                root.join("home/.config/hookrig/plugins"),
                root.join("home/bin"),
                PathBuf::from("/opt/x"),
            ]
        );
        assert_eq!(plugin_path.line, 2);
        assert_eq!(merged.hook_timeout(), Duration::from_secs(10));

        write(
            &root.join("project/.hence/config.toml"),
            "[settings]\nplugin_path = [\"tools\"]\n",
        );
        let merged = load_config_toml(&env, &mut warnings).expect("loads");
        let plugin_path = merged.plugin_path.clone().expect("set");
        assert_eq!(plugin_path.value, [root.join("project/tools")]);
        assert_eq!(plugin_path.source, root.join("project/.hence/config.toml"));
        // Not set locally: the global value stays.
        assert_eq!(merged.hook_timeout(), Duration::from_secs(10));
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn syntax_errors_have_a_position() {
        let (dir, env) = world();
        let path = dir.path().join("project/.hookrig/config.toml");
        write(
            &path,
            indoc! {"
            [settings]
            hook_timeout = = 3
        "},
        );
        let Err(ConfigError::Invalid { errors, .. }) = load_config_toml(&env, &mut Vec::new())
        else {
            panic!("a syntax error fails the load");
        };
        assert_eq!(errors.len(), 1);
        assert_eq!((errors[0].line, errors[0].col), (Some(2), Some(16)));
        assert_eq!(errors[0].path, path);
    }

    #[test]
    fn unknown_keys_warn_and_the_load_goes_on() {
        let (dir, env) = world();
        write(
            &dir.path().join("home/.config/hence/config.toml"),
            "[settings]\nplugin_pth = []\nhook_timeout = 5\n",
        );
        let mut warnings = Vec::new();
        let merged = load_config_toml(&env, &mut warnings).expect("loads");
        assert_eq!(merged.hook_timeout(), Duration::from_secs(5));
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].line, Some(2));
        assert_eq!(
            warnings[0].message,
            "unknown key `plugin_pth` is ignored; did you mean `plugin_path`?"
        );
    }

    // guards: a cloned repository pointing the user's store at its own database
    #[test]
    fn only_the_users_own_file_names_the_store_even_a_trusted_project_file_is_ignored() {
        let (dir, env) = world();
        let root = dir.path();
        let users = "postgres://hookrig@db.internal/hookrig";
        write(
            &root.join("home/.config/hookrig/config.toml"),
            &format!("[store]\nurl = \"{users}\"\n"),
        );
        let project = root.join("project/.hookrig/config.toml");
        write(
            &project,
            "[settings]\nhook_timeout = 4\n\n[store]\nurl = \"postgres://evil@attacker.example/loot\"\n",
        );
        // `world` trusts every project file: trust must not hand a project the store.
        let mut warnings = Vec::new();
        let merged = load_config_toml(&env, &mut warnings).expect("loads");
        let url = merged.store_url.clone().expect("the user's URL stays");
        assert_eq!(url.value, users);
        assert_eq!(url.source, root.join("home/.config/hookrig/config.toml"));
        // The rest of the project file still applies.
        assert_eq!(merged.hook_timeout(), Duration::from_secs(4));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!((&warnings[0].path, warnings[0].line), (&project, Some(5)));
        assert!(
            warnings[0]
                .message
                .starts_with("`[store] url` is ignored in a project's config.toml"),
            "{warnings:?}"
        );
    }

    #[test]
    fn a_store_url_that_is_not_postgres_is_an_error_at_its_place() {
        let (dir, env) = world();
        let path = dir.path().join("home/.config/hookrig/config.toml");
        write(&path, "[store]\nurl = \"sqlite:///tmp/x.db\"\n");
        let Err(ConfigError::Invalid { errors, .. }) = load_config_toml(&env, &mut Vec::new())
        else {
            panic!("a URL of another engine fails the load");
        };
        assert_eq!((errors[0].line, errors[0].col), (Some(2), Some(7)));
        assert!(
            errors[0]
                .message
                .starts_with("`[store] url` must be a PostgreSQL URL"),
            "{errors:?}"
        );
    }

    fn errors_of(text: &str) -> Vec<String> {
        let (dir, env) = world();
        let path = dir.path().join("project/.hookrig/config.toml");
        write(&path, text);
        match load_config_toml(&env, &mut Vec::new()) {
            Err(ConfigError::Invalid { errors, .. }) => errors
                .iter()
                .map(|d| {
                    d.to_string()
                        .replace(&*path.to_string_lossy(), "config.toml")
                })
                .collect(),
            other => panic!("expected errors, got {other:?}"),
        }
    }

    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "one world, every merged value checked"
    )]
    fn providers_merge_by_id_and_the_local_one_wins() {
        let (dir, env) = world();
        let root = dir.path();
        let global = root.join("home/.config/hookrig/config.toml");
        write(
            &global,
            indoc! {r#"
            [[providers]]
            id = "a"
            name = "A global"
            cli = "a-cli"
            version_args = ["--version"]

            [[providers]]
            id = "b"
            name = "B"
            cli = "/opt/b"
            auto_approve_flag = "-y"
            initial_prompt_flag = "-p"
            use_keystroke_injection = true
            keystroke_delay_ms = 50
            resume_flag = "--resume"
            default_args = ["--quiet", "--no-color"]

            [hooks]
            post_complete = true
            post_claim = "notify.sh"
        "#},
        );
        let local = root.join("project/.hence/config.toml");
        write(
            &local,
            indoc! {r#"
            [[providers]]
            id = "c"
            name = "C"
            cli = "c"

            [[providers]]
            id = "a"
            name = "A local"
            cli = "a-local"

            [hooks]
            post_complete = false

            [worktree.provision]
            files = [
              { from = ".env", to = ".env", mode = "copy" },
              { from = "config/shared.toml" },
            ]
        "#},
        );
        let merged = load_config_toml(&env, &mut Vec::new()).expect("loads");
        let ids: Vec<_> = merged
            .providers
            .iter()
            .map(|p| {
                (
                    p.value.id.as_str(),
                    p.value.name.as_str(),
                    p.source == local,
                )
            })
            .collect();
        assert_eq!(
            ids,
            [("a", "A local", true), ("b", "B", false), ("c", "C", true)]
        );
        // The local provider replaces the global one whole: nothing is inherited.
        assert!(merged.providers[0].value.version_args.is_empty());
        assert_eq!(
            merged.providers[1].value,
            Provider {
                id: "b".into(),
                name: "B".into(),
                cli: "/opt/b".into(),
                version_args: Vec::new(),
                auto_approve_flag: Some("-y".into()),
                initial_prompt_flag: Some("-p".into()),
                use_keystroke_injection: true,
                keystroke_delay_ms: 50,
                resume_flag: Some("--resume".into()),
                default_args: vec!["--quiet".into(), "--no-color".into()],
            }
        );
        assert_eq!(merged.providers[2].value.keystroke_delay_ms, 100);
        assert!(!merged.providers[2].value.use_keystroke_injection);
        assert_eq!(
            merged
                .hook(HookPoint::PostComplete)
                .map(|s| (&s.value, s.line)),
            Some((&HookSetting::Disabled, 12))
        );
        assert_eq!(
            merged.hook(HookPoint::PostClaim).map(|s| &s.value),
            Some(&HookSetting::Script("notify.sh".into()))
        );
        assert_eq!(
            merged.hooks[0].0,
            HookPoint::PostClaim,
            "in hook point order"
        );
        let files: Vec<_> = merged.provision.iter().map(|f| f.value.clone()).collect();
        assert_eq!(
            files,
            [
                ProvisionFile {
                    from: ".env".into(),
                    to: ".env".into(),
                    mode: ProvisionMode::Copy
                },
                ProvisionFile {
                    from: "config/shared.toml".into(),
                    to: "config/shared.toml".into(),
                    mode: ProvisionMode::Symlink
                },
            ]
        );
        assert_eq!(merged.files, [global, local]);
    }

    #[test]
    fn agents_merge_by_name_and_need_a_provider() {
        let (dir, env) = world();
        write(
            &dir.path().join("home/.config/hookrig/config.toml"),
            "[[agents]]\nname = \"coder\"\nprovider = \"claude\"\n\n[[agents]]\nname = \"qa\"\nprovider = \"aider\"\n",
        );
        let local = dir.path().join("project/.hookrig/config.toml");
        write(
            &local,
            "[[agents]]\nname = \"coder\"\nprovider = \"codex\"\n",
        );
        let merged = load_config_toml(&env, &mut Vec::new()).expect("loads");
        let agents: Vec<_> = merged
            .agents
            .iter()
            .map(|a| (a.value.name.as_str(), a.value.provider.as_str(), a.line))
            .collect();
        assert_eq!(agents, [("coder", "codex", 1), ("qa", "aider", 5)]);
        assert_eq!(merged.agents[0].source, local);
        assert_eq!(
            errors_of(
                "[[agents]]\nname = \"x\"\n\n[[agents]]\nname = \"y\"\nprovider = \"a\"\n\n[[agents]]\nname = \"y\"\nprovider = \"b\"\n"
            ),
            [
                "config.toml:1:1: agent `x`: missing required field `provider`",
                "config.toml:8:1: duplicate agent `y` (first declared on line 4); names must be unique in a file",
            ]
        );
    }

    #[test]
    fn hookrig_files_win_over_hence_files_of_the_same_level() {
        let (dir, env) = world();
        write(
            &dir.path().join("home/.config/hence/config.toml"),
            "[settings]\nhook_timeout = 7\n",
        );
        write(
            &dir.path().join("home/.config/hookrig/config.toml"),
            "[settings]\nhook_timeout = 9\n",
        );
        let merged = load_config_toml(&env, &mut Vec::new()).expect("loads");
        assert_eq!(merged.hook_timeout(), Duration::from_secs(9));
    }

    #[test]
    fn every_error_is_reported_with_its_place() {
        assert_eq!(
            errors_of(indoc! {r#"
                [[providers]]
                id = "x"

                [[providers]]
                name = "no id"
                cli = ""
                keystroke_delay_ms = -1

                [[providers]]
                id = "y"
                name = "Y"
                cli = "y"

                [[providers]]
                id = "y"
                name = "Y again"
                cli = "y"

                [settings]
                hook_timeout = 0

                [worktree.provision]
                files = [{ to = "a" }, { from = "b", mode = "hardlink" }]
            "#}),
            [
                "config.toml:1:1: provider `x`: missing required field `name`",
                "config.toml:1:1: provider `x`: missing required field `cli`",
                "config.toml:4:1: provider: missing required field `id`",
                "config.toml:6:7: provider: `cli` must not be empty",
                "config.toml:7:22: provider: `keystroke_delay_ms` must not be negative, got -1",
                "config.toml:14:1: duplicate provider id `y` (first declared on line 9); ids must be unique in a file",
                "config.toml:20:16: `hook_timeout` must be a positive number of seconds, got 0",
                "config.toml:23:10: worktree provision file: missing required field `from`",
                "config.toml:23:45: worktree provision file `b`: unknown mode `hardlink`; use \"symlink\" or \"copy\"",
            ]
        );
    }

    #[test]
    fn type_errors_are_reported_with_their_place() {
        assert_eq!(
            errors_of("[hooks]\npost_complete = 3\n"),
            ["config.toml:2:17: invalid type: integer `3`, expected true, false or a script name"]
        );
        assert_eq!(
            errors_of("[hooks]\npost_claim = \"../x.sh\"\n"),
            [
                "config.toml:2:14: a hook script name is a file name in the hooks directory, without `/`, got `../x.sh`"
            ]
        );
        assert_eq!(
            errors_of("[[providers]]\nid = \"a\"\nname = \"A\"\ncli = [\"x\"]\n"),
            ["config.toml:4:7: invalid type: sequence, expected a string"]
        );
        assert_eq!(
            errors_of("providers = 3\n"),
            ["config.toml:1:13: invalid type: integer `3`, expected a sequence"]
        );
    }
}
