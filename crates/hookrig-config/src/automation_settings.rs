//! The automation engine's part of `config.toml`: `[automation]`, `[automation.llm]`,
//! `[[notifiers]]` and `[memory]` (with `[memory.embeddings]`).
//!
//! Raw types here are what one file says; [`lower`] checks them and tags each value with
//! the file and line it came from; [`AutomationLayer::merge_into`] merges a file over
//! the ones before it, key by key (notifiers are collected from every file).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::lowering::Lowering;
use crate::lowering::parse_duration;
use crate::settings_file::{Sourced, required};
use crate::webhook::{check_env_name, check_url};

// Raw layer.

#[derive(Debug, Default, Deserialize)]
pub(crate) struct RawAutomation {
    enabled: Option<Spanned<bool>>,
    max_concurrent: Option<Spanned<i64>>,
    run_timeout: Option<Spanned<DurationText>>,
    tick: Option<Spanned<DurationText>>,
    debounce: Option<Spanned<DurationText>>,
    file_watcher: Option<Spanned<bool>>,
    llm: Option<RawLlm>,
}

#[derive(Debug, Default, Deserialize)]
struct RawLlm {
    provider: Option<Spanned<String>>,
    model: Option<Spanned<String>>,
    base_url: Option<Spanned<String>>,
    api_key_env: Option<Spanned<String>>,
    timeout: Option<Spanned<DurationText>>,
    max_tokens: Option<Spanned<i64>>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct RawNotifier {
    kind: Option<Spanned<String>>,
    url: Option<Spanned<String>>,
    events: Option<Vec<Spanned<String>>>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct RawMemory {
    notes_dir: Option<Spanned<String>>,
    embeddings: Option<Spanned<RawEmbeddings>>,
}

#[derive(Debug, Default, Deserialize)]
struct RawEmbeddings {
    base_url: Option<Spanned<String>>,
    model: Option<Spanned<String>>,
    api_key_env: Option<Spanned<String>>,
}

/// A duration written as text (`"300s"`, `"5m"`) or as a number of seconds (`300`).
#[derive(Debug)]
enum DurationText {
    Text(String),
    Seconds(i64),
}

impl<'de> Deserialize<'de> for DurationText {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = DurationText;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a duration such as \"300s\" or \"5m\", or a number of seconds")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<DurationText, E> {
                Ok(DurationText::Seconds(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<DurationText, E> {
                Ok(DurationText::Text(v.to_owned()))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// The keys of these sections, for did-you-mean on unknown keys.
pub(crate) const KNOWN_KEYS: &[&str] = &[
    "automation",
    "enabled",
    "max_concurrent",
    "run_timeout",
    "tick",
    "debounce",
    "file_watcher",
    "llm",
    "provider",
    "model",
    "base_url",
    "api_key_env",
    "timeout",
    "max_tokens",
    "notifiers",
    "kind",
    "url",
    "events",
    "memory",
    "notes_dir",
    "embeddings",
];

// Resolved values.

/// Default of `[automation] max_concurrent`.
pub const DEFAULT_MAX_CONCURRENT: u32 = 2;
/// Default of `[automation] run_timeout`.
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_mins(5);
/// Default of `[automation] tick`.
pub const DEFAULT_TICK: Duration = Duration::from_secs(5);
/// Default of `[automation] debounce`.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_secs(5);
/// Default of `[automation.llm] timeout`: as long as a whole run may take.
pub const DEFAULT_LLM_TIMEOUT: Duration = DEFAULT_RUN_TIMEOUT;
/// Default of `[automation.llm] max_tokens` (sent to Anthropic, which requires it).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;
/// Default of `[memory] notes_dir`, relative to the project root.
pub const DEFAULT_NOTES_DIR: &str = "notes";

/// `[automation]`: the engine's settings. Every field is `None` when no file sets it;
/// the accessors give the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AutomationSettings {
    /// The master switch: when false no trigger fires (`hookrig fire` still runs an
    /// automation).
    pub enabled: Option<Sourced<bool>>,
    /// How many automations may run at once.
    pub max_concurrent: Option<Sourced<u32>>,
    /// How long one run may take, steps and LLM call together.
    pub run_timeout: Option<Sourced<Duration>>,
    /// How often periodic and cron triggers are checked.
    pub tick: Option<Sourced<Duration>>,
    /// How long folder changes are collected before one `folder.changed` is sent.
    pub debounce: Option<Sourced<Duration>>,
    /// Whether `file.changed` / `folder.changed` watches are set up.
    pub file_watcher: Option<Sourced<bool>>,
    /// `[automation.llm]`.
    pub llm: LlmSettings,
}

impl AutomationSettings {
    /// `enabled`, default true.
    pub fn enabled(&self) -> bool {
        self.enabled.as_ref().is_none_or(|v| v.value)
    }

    /// `max_concurrent`, default 2.
    pub fn max_concurrent(&self) -> u32 {
        self.max_concurrent
            .as_ref()
            .map_or(DEFAULT_MAX_CONCURRENT, |v| v.value)
    }

    /// `run_timeout`, default 300 s.
    pub fn run_timeout(&self) -> Duration {
        self.run_timeout
            .as_ref()
            .map_or(DEFAULT_RUN_TIMEOUT, |v| v.value)
    }

    /// `tick`, default 5 s.
    pub fn tick(&self) -> Duration {
        self.tick.as_ref().map_or(DEFAULT_TICK, |v| v.value)
    }

    /// `debounce`, default 5 s.
    pub fn debounce(&self) -> Duration {
        self.debounce.as_ref().map_or(DEFAULT_DEBOUNCE, |v| v.value)
    }

    /// `file_watcher`, default true.
    pub fn file_watcher(&self) -> bool {
        self.file_watcher.as_ref().is_none_or(|v| v.value)
    }
}

/// `[automation.llm]`: the provider automations use unless their `llm_config` says
/// otherwise.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LlmSettings {
    /// `openai`, `anthropic`, or the id of a `[[providers]]` CLI provider. No default.
    pub provider: Option<Sourced<String>>,
    /// The model name sent to an HTTP provider.
    pub model: Option<Sourced<String>>,
    /// The HTTP provider's base URL (default: the vendor's).
    pub base_url: Option<Sourced<String>>,
    /// The variable that holds the API key (default `OPENAI_API_KEY` /
    /// `ANTHROPIC_API_KEY`).
    pub api_key_env: Option<Sourced<String>>,
    /// How long one LLM call may take.
    pub timeout: Option<Sourced<Duration>>,
    /// The reply's token limit (Anthropic's required `max_tokens`).
    pub max_tokens: Option<Sourced<u32>>,
}

impl LlmSettings {
    /// `timeout`, default 300 s.
    pub fn timeout(&self) -> Duration {
        self.timeout
            .as_ref()
            .map_or(DEFAULT_LLM_TIMEOUT, |v| v.value)
    }

    /// `max_tokens`, default 4096.
    pub fn max_tokens(&self) -> u32 {
        self.max_tokens
            .as_ref()
            .map_or(DEFAULT_MAX_TOKENS, |v| v.value)
    }
}

/// Where a notifier posts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NotifierKind {
    /// A Discord webhook: `{"content": ...}`.
    Discord,
    /// A Slack incoming webhook: `{"text": ...}`.
    Slack,
}

impl NotifierKind {
    /// `discord` or `slack`.
    pub fn as_str(self) -> &'static str {
        match self {
            NotifierKind::Discord => "discord",
            NotifierKind::Slack => "slack",
        }
    }
}

/// The phases a notifier can be limited to with `events`.
pub const NOTIFIER_EVENTS: &[&str] =
    &["started", "completed", "skipped", "failed", "tools", "note"];

/// One `[[notifiers]]` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotifierConfig {
    /// Discord or Slack.
    pub kind: NotifierKind,
    /// The webhook URL.
    pub url: String,
    /// The phases sent (names from [`NOTIFIER_EVENTS`]); `None` sends every phase.
    pub events: Option<Vec<String>>,
}

/// `[memory]`: where the project's notes are and how to embed them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemorySettings {
    /// `notes_dir` as written, with `~/` expanded; a relative one is relative to the
    /// project root (see [`MemorySettings::notes_dir`]).
    pub notes_dir: Option<Sourced<PathBuf>>,
    /// `[memory.embeddings]`, replaced whole by a later file.
    pub embeddings: Option<Sourced<EmbeddingsConfig>>,
}

impl MemorySettings {
    /// The notes directory of the project at `project_root` (default `notes`).
    pub fn notes_dir(&self, project_root: &Path) -> PathBuf {
        match &self.notes_dir {
            Some(dir) => project_root.join(&dir.value),
            None => project_root.join(DEFAULT_NOTES_DIR),
        }
    }
}

/// `[memory.embeddings]`: an OpenAI-compatible `/v1/embeddings` endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EmbeddingsConfig {
    /// The server, without `/v1/embeddings`.
    pub base_url: String,
    /// The embedding model.
    pub model: String,
    /// The variable that holds the API key, if the server needs one.
    pub api_key_env: Option<String>,
}

/// One file's automation sections, lowered.
#[derive(Debug, Default)]
pub(crate) struct AutomationLayer {
    automation: AutomationSettings,
    notifiers: Vec<Sourced<NotifierConfig>>,
    memory: MemorySettings,
}

fn over<T>(into: &mut Option<T>, from: Option<T>) {
    if from.is_some() {
        *into = from;
    }
}

impl AutomationLayer {
    /// The settings that send prompts, keys, results or notes somewhere
    /// (`[automation.llm]`, `[[notifiers]]`, `[memory.embeddings]`, a `notes_dir`
    /// outside the project): what a project file that is not trusted may not set, by
    /// the names `hookrig config show` and the warning print.
    pub(crate) fn needing_trust(&self) -> Vec<&'static str> {
        let mut found = Vec::new();
        // The whole `[automation.llm]` table, not only `provider`/`base_url`/
        // `api_key_env`: a model name or token limit chosen by the repository is
        // meaningless without its provider, and one rule is easier to review.
        if self.automation.llm != LlmSettings::default() {
            found.push("[automation.llm]");
        }
        if !self.notifiers.is_empty() {
            found.push("[[notifiers]]");
        }
        if self.memory.embeddings.is_some() {
            found.push("[memory.embeddings]");
        }
        if self.notes_dir_leaves_project() {
            found.push("[memory] notes_dir outside the project");
        }
        found
    }

    /// Removes what [`AutomationLayer::needing_trust`] lists.
    pub(crate) fn strip_needing_trust(&mut self) {
        if self.notes_dir_leaves_project() {
            self.memory.notes_dir = None;
        }
        self.automation.llm = LlmSettings::default();
        self.notifiers.clear();
        self.memory.embeddings = None;
    }

    /// A relative notes directory stays in the repository (harmless); an absolute one,
    /// `~/...`, or one climbing out with `..` would let a repository have notes read and
    /// written anywhere the user can.
    fn notes_dir_leaves_project(&self) -> bool {
        self.memory.notes_dir.as_ref().is_some_and(|dir| {
            dir.value.is_absolute()
                || dir
                    .value
                    .components()
                    .any(|c| matches!(c, std::path::Component::ParentDir))
        })
    }

    pub(crate) fn merge_into(
        self,
        automation: &mut AutomationSettings,
        notifiers: &mut Vec<Sourced<NotifierConfig>>,
        memory: &mut MemorySettings,
    ) {
        let a = self.automation;
        over(&mut automation.enabled, a.enabled);
        over(&mut automation.max_concurrent, a.max_concurrent);
        over(&mut automation.run_timeout, a.run_timeout);
        over(&mut automation.tick, a.tick);
        over(&mut automation.debounce, a.debounce);
        over(&mut automation.file_watcher, a.file_watcher);
        let l = a.llm;
        over(&mut automation.llm.provider, l.provider);
        over(&mut automation.llm.model, l.model);
        over(&mut automation.llm.base_url, l.base_url);
        over(&mut automation.llm.api_key_env, l.api_key_env);
        over(&mut automation.llm.timeout, l.timeout);
        over(&mut automation.llm.max_tokens, l.max_tokens);
        // Notifiers have no id: every file's are kept, but the same kind and URL set at
        // two levels posts once, not twice.
        for notifier in self.notifiers {
            let same = |n: &Sourced<NotifierConfig>| {
                n.value.kind == notifier.value.kind && n.value.url == notifier.value.url
            };
            match notifiers.iter_mut().find(|n| same(n)) {
                Some(old) => *old = notifier,
                None => notifiers.push(notifier),
            }
        }
        over(&mut memory.notes_dir, self.memory.notes_dir);
        over(&mut memory.embeddings, self.memory.embeddings);
    }
}

/// Lowers one file's `[automation]`, `[[notifiers]]` and `[memory]`; errors go to
/// `lower`.
pub(crate) fn lower(
    lower: &mut Lowering<'_>,
    automation: Option<RawAutomation>,
    notifiers: Option<Vec<Spanned<RawNotifier>>>,
    memory: Option<RawMemory>,
    home: &Path,
) -> AutomationLayer {
    let mut layer = AutomationLayer::default();
    if let Some(raw) = automation {
        lower_automation(lower, raw, &mut layer.automation);
    }
    for raw in notifiers.unwrap_or_default() {
        let span = raw.span();
        if let Some(notifier) = lower_notifier(lower, raw.into_inner(), &span) {
            layer.notifiers.push(lower.sourced(notifier, &span));
        }
    }
    if let Some(raw) = memory {
        if let Some(dir) = raw.notes_dir {
            let text = dir.get_ref();
            if text.trim().is_empty() {
                lower.error(dir.span(), "`memory.notes_dir` must not be empty");
            } else {
                let path = if text == "~" {
                    home.to_owned()
                } else if let Some(rest) = text.strip_prefix("~/") {
                    home.join(rest)
                } else {
                    PathBuf::from(text)
                };
                layer.memory.notes_dir = Some(lower.sourced(path, &dir.span()));
            }
        }
        if let Some(raw) = raw.embeddings {
            let span = raw.span();
            if let Some(embeddings) = lower_embeddings(lower, raw.into_inner(), &span) {
                layer.memory.embeddings = Some(lower.sourced(embeddings, &span));
            }
        }
    }
    layer
}

fn duration(
    lower: &mut Lowering<'_>,
    raw: Option<Spanned<DurationText>>,
    key: &str,
    zero_ok: bool,
) -> Option<Sourced<Duration>> {
    let raw = raw?;
    let span = raw.span();
    let parsed = match raw.get_ref() {
        DurationText::Text(text) => parse_duration(text).map_err(|err| {
            format!("`{key}` must be a duration such as \"300s\" or \"5m\", got \"{text}\": {err}")
        }),
        DurationText::Seconds(n) => u64::try_from(*n)
            .map(Duration::from_secs)
            .map_err(|_| format!("`{key}` must not be negative, got {n}")),
    };
    match parsed {
        Ok(d) if d.is_zero() && !zero_ok => {
            lower.error(span, format!("`{key}` must be longer than zero"));
            None
        }
        Ok(d) => Some(lower.sourced(d, &span)),
        Err(message) => {
            lower.error(span, message);
            None
        }
    }
}

fn positive(
    lower: &mut Lowering<'_>,
    raw: Option<Spanned<i64>>,
    key: &str,
) -> Option<Sourced<u32>> {
    let raw = raw?;
    match u32::try_from(*raw.get_ref()) {
        Ok(n) if n > 0 => Some(lower.sourced(n, &raw.span())),
        _ => {
            lower.error(
                raw.span(),
                format!(
                    "`{key}` must be a positive whole number, got {}",
                    raw.get_ref()
                ),
            );
            None
        }
    }
}

/// A non-empty string, or an error naming `key`.
fn text(
    lower: &mut Lowering<'_>,
    raw: Option<Spanned<String>>,
    key: &str,
) -> Option<Sourced<String>> {
    let raw = raw?;
    if raw.get_ref().trim().is_empty() {
        lower.error(raw.span(), format!("`{key}` must not be empty"));
        return None;
    }
    let span = raw.span();
    Some(lower.sourced(raw.into_inner(), &span))
}

fn url(
    lower: &mut Lowering<'_>,
    raw: Option<Spanned<String>>,
    key: &str,
) -> Option<Sourced<String>> {
    let raw = raw?;
    if let Err(problem) = check_url(raw.get_ref()) {
        // check_url's hint names `url`; here the key is another.
        let short = key.rsplit('.').next().unwrap_or(key);
        let problem = problem.replace("write url =", &format!("write {short} ="));
        lower.error(raw.span(), format!("`{key}` is not a valid URL: {problem}"));
        return None;
    }
    let span = raw.span();
    Some(lower.sourced(raw.into_inner(), &span))
}

fn env_name(
    lower: &mut Lowering<'_>,
    raw: Option<Spanned<String>>,
    key: &str,
) -> Option<Sourced<String>> {
    let raw = raw?;
    if let Err(problem) = check_env_name(raw.get_ref()) {
        lower.error(raw.span(), format!("`{key}`: {problem}"));
        return None;
    }
    let span = raw.span();
    Some(lower.sourced(raw.into_inner(), &span))
}

fn lower_automation(lower: &mut Lowering<'_>, raw: RawAutomation, into: &mut AutomationSettings) {
    // Keys are named with their table: `timeout`, `model`, `base_url` and `api_key_env`
    // exist in more than one.
    into.enabled = raw.enabled.map(|v| {
        let span = v.span();
        lower.sourced(v.into_inner(), &span)
    });
    into.max_concurrent = positive(lower, raw.max_concurrent, "automation.max_concurrent");
    into.run_timeout = duration(lower, raw.run_timeout, "automation.run_timeout", false);
    into.tick = duration(lower, raw.tick, "automation.tick", false);
    // A debounce of zero sends each folder change as it is seen.
    into.debounce = duration(lower, raw.debounce, "automation.debounce", true);
    into.file_watcher = raw.file_watcher.map(|v| {
        let span = v.span();
        lower.sourced(v.into_inner(), &span)
    });
    if let Some(llm) = raw.llm {
        into.llm.provider = text(lower, llm.provider, "automation.llm.provider");
        into.llm.model = text(lower, llm.model, "automation.llm.model");
        into.llm.base_url = url(lower, llm.base_url, "automation.llm.base_url");
        into.llm.api_key_env = env_name(lower, llm.api_key_env, "automation.llm.api_key_env");
        into.llm.timeout = duration(lower, llm.timeout, "automation.llm.timeout", false);
        into.llm.max_tokens = positive(lower, llm.max_tokens, "automation.llm.max_tokens");
    }
}

fn lower_notifier(
    lower: &mut Lowering<'_>,
    raw: RawNotifier,
    span: &std::ops::Range<usize>,
) -> Option<NotifierConfig> {
    let kind = match raw.kind {
        None => {
            lower.error(span.clone(), "notifier: missing required field `kind`");
            None
        }
        Some(kind) => match kind.get_ref().as_str() {
            "discord" => Some(NotifierKind::Discord),
            "slack" => Some(NotifierKind::Slack),
            other => {
                let message =
                    format!("notifier: unknown kind `{other}`; use \"discord\" or \"slack\"");
                lower.error(kind.span(), message);
                None
            }
        },
    };
    let what = kind.map_or_else(
        || "notifier".to_owned(),
        |k| format!("{} notifier", k.as_str()),
    );
    let url = match raw.url {
        None => {
            lower.error(
                span.clone(),
                format!("{what}: missing required field `url`"),
            );
            None
        }
        Some(raw) => match check_url(raw.get_ref()) {
            Ok(()) => Some(raw.into_inner()),
            Err(problem) => {
                lower.error(
                    raw.span(),
                    format!("{what}: `url` is not a valid URL: {problem}"),
                );
                None
            }
        },
    };
    let mut events = None;
    if let Some(list) = raw.events {
        let mut names = Vec::new();
        for event in list {
            if NOTIFIER_EVENTS.contains(&event.get_ref().as_str()) {
                names.push(event.into_inner());
            } else {
                lower.error(
                    event.span(),
                    format!(
                        "{what}: unknown event `{}`; use {}",
                        event.get_ref(),
                        NOTIFIER_EVENTS
                            .iter()
                            .map(|e| format!("\"{e}\""))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
        }
        events = Some(names);
    }
    Some(NotifierConfig {
        kind: kind?,
        url: url?,
        events,
    })
}

fn lower_embeddings(
    lower: &mut Lowering<'_>,
    raw: RawEmbeddings,
    span: &std::ops::Range<usize>,
) -> Option<EmbeddingsConfig> {
    let what = "memory embeddings";
    let base_url = match raw.base_url {
        None => {
            lower.error(
                span.clone(),
                format!("{what}: missing required field `base_url`"),
            );
            None
        }
        some => url(lower, some, "memory.embeddings.base_url").map(|s| s.value),
    };
    let model = required(lower, raw.model, "model", what, span);
    let api_key_env = match raw.api_key_env {
        None => Some(None),
        some => env_name(lower, some, "memory.embeddings.api_key_env").map(|s| Some(s.value)),
    };
    Some(EmbeddingsConfig {
        base_url: base_url?,
        model: model?,
        api_key_env: api_key_env?,
    })
}

#[cfg(test)]
mod tests {
    use indoc::indoc;

    use super::*;
    use crate::environment::Environment;
    use crate::errors::ConfigError;
    use crate::settings_file::{ConfigToml, load_config_toml};

    struct World {
        dir: tempfile::TempDir,
        env: Environment,
    }

    impl World {
        fn new() -> Self {
            let dir = tempfile::tempdir().expect("tempdir");
            let root = dir.path();
            let env = Environment {
                home: root.join("home"),
                config_home: root.join("home/.config"),
                state_home: root.join("home/.local/state"),
                data_home: root.join("home/.local/share"),
                xcode_home: root.join("home/.x-code"),
                cwd: root.join("project/sub"),
                // These tests are about merging; trust is tested in settings_file.
                trust_all: true,
            };
            std::fs::create_dir_all(root.join("project/.git")).expect("mkdir");
            std::fs::create_dir_all(&env.cwd).expect("mkdir");
            Self { dir, env }
        }

        fn global(&self) -> PathBuf {
            self.dir.path().join("home/.config/hookrig/config.toml")
        }

        fn local(&self) -> PathBuf {
            self.dir.path().join("project/.hookrig/config.toml")
        }

        fn write(path: &Path, text: &str) {
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }

        fn load(&self) -> ConfigToml {
            load_config_toml(&self.env, &mut Vec::new()).expect("loads")
        }

        fn errors(&self) -> Vec<String> {
            match load_config_toml(&self.env, &mut Vec::new()) {
                Err(ConfigError::Invalid { errors, .. }) => errors
                    .iter()
                    .map(|d| {
                        d.to_string()
                            .replace(&*self.local().to_string_lossy(), "config.toml")
                    })
                    .collect(),
                other => panic!("expected errors, got {other:?}"),
            }
        }
    }

    #[test]
    fn nothing_set_gives_the_defaults() {
        let world = World::new();
        let config = world.load();
        let a = &config.automation;
        assert_eq!(a.max_concurrent(), 2);
        assert_eq!(a.run_timeout(), Duration::from_mins(5));
        assert_eq!(a.tick(), Duration::from_secs(5));
        assert_eq!(a.debounce(), Duration::from_secs(5));
        assert!(a.file_watcher());
        assert_eq!(a.llm.provider, None);
        assert_eq!(a.llm.timeout(), Duration::from_mins(5));
        assert_eq!(a.llm.max_tokens(), 4096);
        assert!(config.notifiers.is_empty());
        assert_eq!(
            config.memory.notes_dir(Path::new("/p")),
            PathBuf::from("/p/notes")
        );
        assert_eq!(config.memory.embeddings, None);
    }

    #[test]
    fn project_values_win_key_by_key_and_notifiers_add_up() {
        let world = World::new();
        World::write(
            &world.global(),
            indoc! {r#"
                [automation]
                max_concurrent = 4
                run_timeout = "10m"
                file_watcher = false

                [automation.llm]
                provider = "openai"
                model = "gpt-4o-mini"
                api_key_env = "MY_KEY"

                [[notifiers]]
                kind = "discord"
                url = "https://discord.com/api/webhooks/1/a"

                [[notifiers]]
                kind = "slack"
                url = "https://hooks.slack.com/services/T/B/X"
                events = ["failed"]

                [memory]
                notes_dir = "~/notes"

                [memory.embeddings]
                base_url = "http://127.0.0.1:11434"
                model = "nomic-embed-text"
            "#},
        );
        World::write(
            &world.local(),
            indoc! {r#"
                [automation]
                tick = 1
                debounce = "0s"

                [automation.llm]
                provider = "anthropic"
                model = "claude-sonnet-4-5"
                timeout = "30s"
                max_tokens = 1000

                [[notifiers]]
                kind = "slack"
                url = "https://hooks.slack.com/services/T/B/X"

                [memory]
                notes_dir = "docs/notes"
            "#},
        );
        let config = world.load();
        let a = &config.automation;
        assert_eq!(a.max_concurrent(), 4);
        assert_eq!(a.run_timeout(), Duration::from_mins(10));
        assert_eq!(a.tick(), Duration::from_secs(1));
        assert_eq!(a.debounce(), Duration::ZERO);
        assert!(!a.file_watcher());
        let provider = a.llm.provider.as_ref().expect("set");
        assert_eq!(
            (provider.value.as_str(), &provider.source, provider.line),
            ("anthropic", &world.local(), 6)
        );
        assert_eq!(
            a.llm.model.as_ref().map(|m| m.value.as_str()),
            Some("claude-sonnet-4-5")
        );
        // Not set in the project: the global value stays.
        let key = a.llm.api_key_env.as_ref().expect("set");
        assert_eq!(
            (key.value.as_str(), &key.source),
            ("MY_KEY", &world.global())
        );
        assert_eq!(a.llm.timeout(), Duration::from_secs(30));
        assert_eq!(a.llm.max_tokens(), 1000);
        // The same Slack URL at both levels is one notifier, the project's (no filter).
        let notifiers: Vec<_> = config
            .notifiers
            .iter()
            .map(|n| {
                (
                    n.value.kind,
                    n.value.events.clone(),
                    n.source == world.local(),
                )
            })
            .collect();
        assert_eq!(
            notifiers,
            [
                (NotifierKind::Discord, None, false),
                (NotifierKind::Slack, None, true),
            ]
        );
        assert_eq!(
            config.memory.notes_dir(Path::new("/p")),
            PathBuf::from("/p/docs/notes")
        );
        let embeddings = config.memory.embeddings.expect("set globally");
        assert_eq!(
            embeddings.value,
            EmbeddingsConfig {
                base_url: "http://127.0.0.1:11434".into(),
                model: "nomic-embed-text".into(),
                api_key_env: None,
            }
        );
        assert_eq!(embeddings.line, 23, "the line of its table header");
    }

    // guards: `[automation] enabled = false`, the automation master switch, is read
    // (not warned about as an unknown key and ignored), and a project file may set it
    #[test]
    fn the_master_switch_is_a_known_key_merged_like_the_others() {
        let world = World::new();
        assert!(world.load().automation.enabled(), "on by default");
        World::write(&world.global(), "[automation]\nenabled = true\n");
        World::write(&world.local(), "[automation]\nenabled = false\n");
        let mut warnings = Vec::new();
        let config = load_config_toml(&world.env, &mut warnings).expect("loads");
        assert!(warnings.is_empty(), "no unknown-key warning: {warnings:?}");
        assert!(!config.automation.enabled());
        let switch = config.automation.enabled.expect("set");
        assert_eq!((&switch.source, switch.line), (&world.local(), 2));
        World::write(&world.local(), "[automation]\nenabled = \"no\"\n");
        assert_eq!(
            world.errors(),
            ["config.toml:2:11: invalid type: string \"no\", expected a boolean"]
        );
    }

    #[test]
    fn home_relative_notes_dir_is_expanded() {
        let world = World::new();
        World::write(&world.global(), "[memory]\nnotes_dir = \"~/n\"\n");
        let config = world.load();
        assert_eq!(
            config.memory.notes_dir(Path::new("/p")),
            world.dir.path().join("home/n")
        );
    }

    #[test]
    fn every_error_is_reported_with_its_place() {
        let world = World::new();
        World::write(
            &world.local(),
            indoc! {r#"
                [automation]
                max_concurrent = 0
                run_timeout = "soon"
                tick = "0s"
                debounce = -1

                [automation.llm]
                provider = ""
                base_url = "ftp://x"
                api_key_env = "A=B"
                timeout = 0
                max_tokens = -5

                [[notifiers]]
                kind = "teams"
                url = "https://x"

                [[notifiers]]
                kind = "discord"

                [[notifiers]]
                kind = "slack"
                url = "not a url"
                events = ["started", "done"]

                [memory]
                notes_dir = ""

                [memory.embeddings]
                model = "m"
            "#},
        );
        insta::assert_snapshot!(world.errors().join("\n"));
    }

    #[test]
    fn type_errors_are_reported_with_their_place() {
        let world = World::new();
        World::write(&world.local(), "[automation]\nrun_timeout = true\n");
        assert_eq!(
            world.errors(),
            [
                "config.toml:2:15: invalid type: boolean `true`, expected a duration such as \"300s\" or \"5m\", or a number of seconds"
            ]
        );
        World::write(&world.local(), "[automation]\nfile_watcher = \"yes\"\n");
        assert_eq!(
            world.errors(),
            ["config.toml:2:16: invalid type: string \"yes\", expected a boolean"]
        );
    }

    #[test]
    fn unknown_keys_warn_with_a_suggestion() {
        let world = World::new();
        World::write(
            &world.local(),
            "[automation]\nmax_concurent = 3\n[automation.llm]\nmodle = \"x\"\n",
        );
        let mut warnings = Vec::new();
        let config = load_config_toml(&world.env, &mut warnings).expect("loads");
        assert_eq!(config.automation.max_concurrent(), 2);
        let mut messages: Vec<_> = warnings
            .iter()
            .map(|w| (w.line, w.message.as_str()))
            .collect();
        messages.sort_unstable();
        assert_eq!(
            messages,
            [
                (
                    Some(2),
                    "unknown key `max_concurent` is ignored; did you mean `max_concurrent`?"
                ),
                (
                    Some(4),
                    "unknown key `modle` is ignored; did you mean `model`?"
                ),
            ]
        );
    }
}
