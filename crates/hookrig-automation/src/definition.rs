//! Automations (called hooks in their files' vocabulary and in their messages). Their
//! definition, loaded from TOML or JSON files, and their form in the store; the field
//! names are those of docs/automations.md.
//!
//! Validation happens while deserializing (newtypes with `try_from`), so that every
//! error carries the position the TOML or JSON reader was at: `path:line:col: message`.

use std::path::{Path, PathBuf};

use hookrig_config::{Distrust, Environment, TrustStore, TrustedHook};

use hookrig_config::Lowering;
use hookrig_core::{Diagnostic, Severity};
use hookrig_store::{AutomationRow, Store, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::errors::AutomationError;
use crate::tools::{DEFAULT_MAX_TOOL_ROUNDS, ToolGrants};

/// The default `cooldown_seconds` and periodic `interval_seconds`: one hour.
pub const DEFAULT_SECONDS: u64 = 3600;

/// The event types whose triggers may carry a `watch` block.
pub const WATCH_EVENTS: [&str; 2] = ["file.changed", "folder.changed"];

/// One automation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Automation {
    /// Unique id; defaults to the name lowercased with spaces as `-`.
    pub id: String,
    /// The owning project.
    pub project_id: String,
    /// Human-readable label.
    pub name: String,
    /// Whether the engine considers it.
    pub enabled: bool,
    /// What starts it.
    pub trigger: Trigger,
    /// The context steps, as written (`steps` runs them).
    pub context_steps: Vec<Value>,
    /// The prompt template (`template::render`).
    pub prompt_template: String,
    /// Overrides of the global LLM settings, a JSON object.
    pub llm_config: Option<Value>,
    /// Minimum seconds between two runs.
    pub cooldown_seconds: u64,
    /// The largest estimated prompt token count a run may send.
    pub max_tokens_per_run: Option<u64>,
    /// When it was first stored (Unix seconds).
    pub created_at: f64,
    /// When it was last changed (Unix seconds).
    pub updated_at: f64,
    /// The file it was loaded from, when it came from one.
    pub source: Option<String>,
    /// Why the engine does not run it for now: its project file changed since it was
    /// trusted (or no longer parses), so this stored version is stopped until the file
    /// is trusted as it is now. `None` for an automation that may run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held: Option<String>,
    /// The tools its LLM may call beyond the read-only ones (`tools`, `shell_allow`,
    /// `max_tool_rounds`).
    #[serde(flatten)]
    pub tools: ToolGrants,
}

/// What starts an automation. Serialized as a JSON object with a `type` key.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "RawTrigger")]
pub enum Trigger {
    /// `type = "event"`: runs when an event of `event_type` is delivered.
    Event {
        /// The event type, e.g. `task.completed`: the catalog's canonical name for any
        /// accepted spelling (`PostToolUse` is read as `tool.after`), or a custom name
        /// as written.
        event_type: String,
        /// File or folder watch, for `file.changed` / `folder.changed`.
        watch: Option<Watch>,
        /// Run the context steps only.
        skip_llm: bool,
    },
    /// `type = "periodic"`: runs every `interval_seconds`.
    Periodic {
        /// Seconds between runs.
        interval_seconds: u64,
        /// Run the context steps only.
        skip_llm: bool,
    },
    /// `type = "cron"`: runs at the occurrences of a 5-field cron expression (UTC).
    Cron {
        /// The expression, as written.
        expression: String,
        /// Run the context steps only.
        skip_llm: bool,
    },
}

impl Trigger {
    /// The `type` key.
    pub fn kind(&self) -> &'static str {
        match self {
            Trigger::Event { .. } => "event",
            Trigger::Periodic { .. } => "periodic",
            Trigger::Cron { .. } => "cron",
        }
    }

    /// The trigger-level `skip_llm` flag.
    pub fn skip_llm(&self) -> bool {
        match self {
            Trigger::Event { skip_llm, .. }
            | Trigger::Periodic { skip_llm, .. }
            | Trigger::Cron { skip_llm, .. } => *skip_llm,
        }
    }

    /// A one-line summary for listings: `event:task.completed`, `periodic:3600s`,
    /// `cron:0 9 * * 1-5`.
    pub fn summary(&self) -> String {
        match self {
            Trigger::Event { event_type, .. } => format!("event:{event_type}"),
            Trigger::Periodic {
                interval_seconds, ..
            } => format!("periodic:{interval_seconds}s"),
            Trigger::Cron { expression, .. } => format!("cron:{expression}"),
        }
    }
}

impl Serialize for Trigger {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = Map::new();
        map.insert("type".to_owned(), Value::from(self.kind()));
        match self {
            Trigger::Event {
                event_type, watch, ..
            } => {
                map.insert("event_type".to_owned(), Value::from(event_type.as_str()));
                if let Some(watch) = watch {
                    map.insert(
                        "watch".to_owned(),
                        serde_json::to_value(watch).map_err(serde::ser::Error::custom)?,
                    );
                }
            }
            Trigger::Periodic {
                interval_seconds, ..
            } => {
                map.insert(
                    "interval_seconds".to_owned(),
                    Value::from(*interval_seconds),
                );
            }
            Trigger::Cron { expression, .. } => {
                map.insert("expression".to_owned(), Value::from(expression.as_str()));
            }
        }
        // Only when set: most triggers never mention it.
        if self.skip_llm() {
            map.insert("skip_llm".to_owned(), Value::Bool(true));
        }
        map.serialize(serializer)
    }
}

/// The watch block of a `file.changed` / `folder.changed` trigger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Watch {
    /// Files or directories to watch, relative to `base_dir` unless absolute.
    pub paths: Vec<String>,
    /// Overrides the automation's project for the watch and for project scoping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// Base directory for relative paths (default: the project workspace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_dir: Option<String>,
    /// Descend into subdirectories (folder watches only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recursive: bool,
    /// Only these extensions, e.g. `.md` (folder watches only); empty means all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
}

// Raw layer of a trigger: every key any trigger type has, unknown keys refused, lowered
// into `Trigger` by `TryFrom`, which refuses keys of another type and places its error
// at the trigger. A plain struct rather than an internally tagged enum: serde buffers
// the fields of a tagged enum, and the reader's positions are lost with them, so a
// wrongly typed value (`interval_seconds = "soon"`) could only be placed at the table.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTrigger {
    #[serde(rename = "type")]
    kind: TriggerKind,
    event_type: Option<EventType>,
    watch: Option<Watch>,
    interval_seconds: Option<u64>,
    expression: Option<String>,
    #[serde(default)]
    skip_llm: bool,
}

#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum TriggerKind {
    Event,
    Periodic,
    Cron,
}

impl TriggerKind {
    fn name(self) -> &'static str {
        match self {
            TriggerKind::Event => "event",
            TriggerKind::Periodic => "periodic",
            TriggerKind::Cron => "cron",
        }
    }

    /// The keys a trigger of this type may have, besides `type`.
    fn keys(self) -> &'static [&'static str] {
        match self {
            TriggerKind::Event => &["event_type", "watch", "skip_llm"],
            TriggerKind::Periodic => &["interval_seconds", "skip_llm"],
            TriggerKind::Cron => &["expression", "skip_llm"],
        }
    }
}

fn default_seconds() -> u64 {
    DEFAULT_SECONDS
}

fn yes() -> bool {
    true
}

impl TryFrom<RawTrigger> for Trigger {
    type Error = String;

    fn try_from(raw: RawTrigger) -> Result<Self, String> {
        let present = [
            ("event_type", raw.event_type.is_some()),
            ("watch", raw.watch.is_some()),
            ("interval_seconds", raw.interval_seconds.is_some()),
            ("expression", raw.expression.is_some()),
        ];
        if let Some((key, _)) = present
            .iter()
            .find(|(key, set)| *set && !raw.kind.keys().contains(key))
        {
            let expected = raw
                .kind
                .keys()
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(format!(
                "`{key}` is not a key of a {} trigger; its keys are {expected}",
                raw.kind.name()
            ));
        }
        match raw.kind {
            TriggerKind::Event => {
                let EventType(event_type) = raw
                    .event_type
                    .ok_or("an event trigger needs `event_type`, e.g. \"task.completed\"")?;
                if let Some(watch) = &raw.watch {
                    check_watch(&event_type, watch)?;
                }
                Ok(Trigger::Event {
                    event_type,
                    watch: raw.watch,
                    skip_llm: raw.skip_llm,
                })
            }
            TriggerKind::Periodic => {
                let interval_seconds = raw.interval_seconds.unwrap_or(DEFAULT_SECONDS);
                if interval_seconds == 0 {
                    return Err("`interval_seconds` must be at least 1".into());
                }
                Ok(Trigger::Periodic {
                    interval_seconds,
                    skip_llm: raw.skip_llm,
                })
            }
            TriggerKind::Cron => {
                let expression = raw
                    .expression
                    .ok_or("a cron trigger needs `expression`, e.g. \"*/5 * * * *\"")?;
                parse_cron(&expression)?;
                Ok(Trigger::Cron {
                    expression,
                    skip_llm: raw.skip_llm,
                })
            }
        }
    }
}

/// The `event_type` of a trigger, resolved against the event catalog while it is read
/// (so that an error is placed at the value): any accepted spelling of a catalog event
/// (`PostToolUse`, `post_tool`, `tool.after@v1`) becomes its canonical name, which is
/// what events are delivered under; any other name is a custom event, kept as written.
/// A version the catalog does not declare (`tool.after@v2`) is refused: such a trigger
/// would never fire.
#[derive(Deserialize)]
#[serde(try_from = "String")]
struct EventType(String);

impl TryFrom<String> for EventType {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        if text.trim().is_empty() {
            return Err("`event_type` must name an event, e.g. \"task.completed\"".into());
        }
        let name = hookrig_dialects::events::parse(&text)
            .map_err(|err| format!("{err}; `hookrig events` lists the catalog"))?;
        Ok(EventType(name.as_str().to_owned()))
    }
}

fn check_watch(event_type: &str, watch: &Watch) -> Result<(), String> {
    if !WATCH_EVENTS.contains(&event_type) {
        return Err(format!(
            "a `watch` block needs event_type \"file.changed\" or \"folder.changed\", not \"{event_type}\""
        ));
    }
    if watch.paths.is_empty() || watch.paths.iter().any(|p| p.trim().is_empty()) {
        return Err("`watch.paths` must list at least one file or directory, none empty".into());
    }
    if event_type == "file.changed" {
        if watch.recursive {
            return Err(
                "`watch.recursive` applies to folder watches only (event_type \"folder.changed\")"
                    .into(),
            );
        }
        if !watch.extensions.is_empty() {
            return Err(
                "`watch.extensions` applies to folder watches only (event_type \"folder.changed\")"
                    .into(),
            );
        }
    }
    Ok(())
}

/// Parses a 5-field cron expression (minute hour day-of-month month day-of-week).
pub fn parse_cron(expression: &str) -> Result<croner::Cron, String> {
    croner::parser::CronParser::builder()
        .seconds(croner::parser::Seconds::Disallowed)
        .build()
        .parse(expression)
        .map_err(|err| {
            let why = err.to_string();
            format!(
                "invalid cron expression \"{expression}\": {}; write 5 fields: minute hour day-of-month month day-of-week",
                why.trim_end_matches('.').to_lowercase()
            )
        })
}

// Raw layer of a file: the documented field names, unknown keys refused (serde names the key
// and lists the valid ones).

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAutomation {
    id: Option<Nonblank>,
    project_id: Option<Nonblank>,
    name: Nonblank,
    #[serde(default = "yes")]
    enabled: bool,
    trigger: Trigger,
    #[serde(default)]
    context_steps: Steps,
    #[serde(default)]
    prompt_template: String,
    llm_config: Option<LlmConfig>,
    #[serde(default = "default_seconds")]
    cooldown_seconds: u64,
    max_tokens_per_run: Option<u64>,
    created_at: Option<f64>,
    updated_at: Option<f64>,
    #[serde(default)]
    tools: Vec<ToolName>,
    #[serde(default)]
    shell_allow: Vec<Nonblank>,
    max_tool_rounds: Option<Positive>,
    plan: Option<Nonblank>,
}

/// A name of [`TOOL_NAMES`](crate::tools::TOOL_NAMES), or a plugin's tool (`plugin:ID/TOOL`).
#[derive(Deserialize)]
#[serde(try_from = "String")]
struct ToolName(String);

impl TryFrom<String> for ToolName {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        crate::tools::grants::check_tool(&name).map(|()| ToolName(name))
    }
}

/// A whole number from 1.
#[derive(Deserialize)]
#[serde(try_from = "u32")]
struct Positive(u32);

impl TryFrom<u32> for Positive {
    type Error = &'static str;

    fn try_from(n: u32) -> Result<Self, &'static str> {
        if n == 0 {
            Err("must be at least 1")
        } else {
            Ok(Positive(n))
        }
    }
}

#[derive(Deserialize)]
#[serde(try_from = "String")]
struct Nonblank(String);

impl TryFrom<String> for Nonblank {
    type Error = &'static str;

    fn try_from(text: String) -> Result<Self, &'static str> {
        if text.trim().is_empty() {
            Err("must not be empty")
        } else {
            Ok(Nonblank(text))
        }
    }
}

#[derive(Default, Deserialize)]
#[serde(try_from = "Vec<Value>")]
struct Steps(Vec<Value>);

impl TryFrom<Vec<Value>> for Steps {
    type Error = String;

    fn try_from(steps: Vec<Value>) -> Result<Self, String> {
        for (index, step) in steps.iter().enumerate() {
            if !step.get("type").is_some_and(Value::is_string) {
                return Err(format!(
                    "context step {index} needs a string `type` (shell, read_file, http, db_query, git_diff, run_tests, memory_search, create_task, list_files, file_diff)"
                ));
            }
        }
        Ok(Steps(steps))
    }
}

#[derive(Deserialize)]
#[serde(try_from = "Value")]
struct LlmConfig(Value);

impl TryFrom<Value> for LlmConfig {
    type Error = &'static str;

    fn try_from(value: Value) -> Result<Self, &'static str> {
        if value.is_object() {
            Ok(LlmConfig(value))
        } else {
            Err(
                "`llm_config` must be an object, e.g. {\"provider\": \"anthropic\", \"model\": \"...\"}",
            )
        }
    }
}

/// The id an automation named `name` gets when it gives none: lowercased, spaces as `-`.
pub fn default_id(name: &str) -> String {
    name.trim().to_lowercase().replace(' ', "-")
}

/// The project id of a file in `dir` that names none: the name of the repository root
/// above it (the nearest directory holding `.git`), else of `dir` itself
/// ([`hookrig_config::project_id`], the rule plan events follow too).
pub fn default_project_id(dir: &Path) -> String {
    hookrig_config::project_id(dir)
}

/// Parses one automation file: JSON when `path` ends in `.json`, TOML otherwise.
/// `project_id` fills in a missing `project_id`; `now` the missing timestamps.
pub fn parse_automation(
    path: &Path,
    text: &str,
    project_id: &str,
    now: f64,
) -> Result<Automation, Diagnostic> {
    let is_json = path.extension().is_some_and(|e| e == "json");
    // An automation file is taken whole or not at all, and its raw layer refuses unknown
    // keys itself (a misspelled trigger key must not be dropped with a warning): the
    // lowering toolkit only places the one error.
    let mut no_warnings = Vec::new();
    let mut lowering = Lowering::new(path, text, &mut no_warnings);
    let raw: RawAutomation = if is_json {
        lowering.json(text, "")?
    } else {
        toml::from_str(text).map_err(|err| lowering.toml_error(&err, Severity::Error, ""))?
    };
    let name = raw.name.0;
    let id = raw.id.map_or_else(|| default_id(&name), |id| id.0);
    let tools = ToolGrants {
        tools: raw.tools.into_iter().map(|t| t.0).collect(),
        shell_allow: raw.shell_allow.into_iter().map(|p| p.0).collect(),
        max_tool_rounds: raw.max_tool_rounds.map_or(DEFAULT_MAX_TOOL_ROUNDS, |n| n.0),
        plan: raw.plan.map(|p| p.0),
    };
    // Each field was checked where it stands; what is left is how they fit together.
    tools
        .check()
        .map_err(|message| Diagnostic::file(path, Severity::Error, message))?;
    Ok(Automation {
        id,
        project_id: raw
            .project_id
            .map_or_else(|| project_id.to_owned(), |p| p.0),
        name,
        enabled: raw.enabled,
        trigger: raw.trigger,
        context_steps: raw.context_steps.0,
        prompt_template: raw.prompt_template,
        llm_config: raw.llm_config.map(|c| c.0),
        cooldown_seconds: raw.cooldown_seconds,
        max_tokens_per_run: raw.max_tokens_per_run,
        created_at: raw.created_at.unwrap_or(now),
        updated_at: raw.updated_at.unwrap_or(now),
        source: Some(path.display().to_string()),
        held: None,
        tools,
    })
}

/// Reads and parses the automation file at `path`; a missing `project_id` is the
/// file's project ([`default_project_id`]).
pub fn load_automation(path: &Path, now: f64) -> Result<Automation, Diagnostic> {
    let text = std::fs::read_to_string(path).map_err(|err| {
        Diagnostic::file(
            path,
            Severity::Error,
            format!("cannot read the file: {err}"),
        )
    })?;
    // A bare file name has an empty parent: the current directory.
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    parse_automation(path, &text, &default_project_id(&dir), now)
}

/// The automations of a project's `.hookrig/automations/*.toml` files.
#[derive(Debug, Default)]
pub struct ProjectAutomations {
    /// Trusted and valid, ready to be stored and run.
    pub trusted: Vec<Automation>,
    /// Valid but not trusted as they are now: reported, never run.
    pub untrusted: Vec<(PathBuf, String)>,
    /// Files that could not be read or parsed.
    pub errors: Vec<Diagnostic>,
}

/// The directory of a project's automation files.
pub fn project_automations_dir(root: &Path) -> PathBuf {
    root.join(".hookrig").join("automations")
}

/// Loads `.hookrig/automations/*.toml` of the project at `root`, in file name order.
///
/// They come with the repository, so, like project hooks, each runs only once trusted
/// as it is now: the trust store (`hookrig-config`'s) holds a SHA-256 of the file under
/// the key [`automation_trust_key`]. With `env.trust_all`, all are trusted. A trust
/// store that cannot be read trusts nothing, with an error.
pub fn project_automations(env: &Environment, root: &Path, now: f64) -> ProjectAutomations {
    let mut found = ProjectAutomations::default();
    let dir = project_automations_dir(root);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return found;
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml") && p.is_file())
        .collect();
    files.sort();
    if files.is_empty() {
        return found;
    }
    let store = if env.trust_all {
        None
    } else {
        let path = hookrig_config::trust_store_path(env);
        match TrustStore::load(&path) {
            Ok(store) => Some(store),
            Err(err) => {
                found.errors.push(Diagnostic::file(
                    &path,
                    Severity::Error,
                    format!("{err}; no project automation is trusted until it is fixed"),
                ));
                Some(TrustStore::default())
            }
        }
    };
    let project_id = default_project_id(root);
    for file in files {
        let text = match std::fs::read_to_string(&file) {
            Ok(text) => text,
            Err(err) => {
                found.errors.push(Diagnostic::file(
                    &file,
                    Severity::Error,
                    format!("cannot read the file: {err}"),
                ));
                continue;
            }
        };
        let automation = match parse_automation(&file, &text, &project_id, now) {
            Ok(automation) => automation,
            Err(diagnostic) => {
                found.errors.push(diagnostic);
                continue;
            }
        };
        let distrust = store.as_ref().and_then(|store| {
            let key = automation_trust_key(&file, &automation.id);
            store
                .check_file(&key, text.as_bytes())
                .map(|distrust| match distrust {
                    Distrust::New => "it comes with the project and is not trusted yet",
                    _ => "it changed since it was trusted",
                })
        });
        match distrust {
            None => found.trusted.push(automation),
            Some(why) => found.untrusted.push((
                file,
                format!(
                    "{why}; review it, then run `hookrig auto trust {}`",
                    root.display()
                ),
            )),
        }
    }
    found
}

/// What [`sync_project_automations`] did, for the caller to report.
#[derive(Debug, Default)]
pub struct ProjectSync {
    /// Files that could not be read or parsed.
    pub errors: Vec<Diagnostic>,
    /// Files not trusted as they are now, and why (with what to run).
    pub untrusted: Vec<(PathBuf, String)>,
    /// Automations stored before from one of those files, now held: `(id, file)`.
    pub stopped: Vec<(String, PathBuf)>,
    /// Automations stored from trusted files: `(id, file)`.
    pub loaded: Vec<(String, String)>,
}

/// Brings the store up to date with the project's `.hookrig/automations/*.toml`
/// ([`project_automations`]): trusted automations are stored (one already stored keeps
/// its `enabled` flag, so `hookrig auto disable` outlives a reload), and what was
/// stored before from a file that is no longer trusted as it is (edited since it was
/// trusted) or no longer parses is held: not run, `fire` refused, until the file is
/// trusted as it is and stored again.
pub fn sync_project_automations(
    env: &Environment,
    root: &Path,
    store: &Store,
    now: f64,
) -> Result<ProjectSync, StoreError> {
    let found = project_automations(env, root, now);
    let mut sync = ProjectSync::default();
    let mut hold = |file: &Path, why: String| -> Result<(), StoreError> {
        for id in store
            .automations()
            .hold(&file.display().to_string(), &why, now)?
        {
            sync.stopped.push((id, file.to_owned()));
        }
        Ok(())
    };
    for diagnostic in &found.errors {
        hold(
            &diagnostic.path,
            format!(
                "{} no longer loads: {}",
                diagnostic.path.display(),
                diagnostic.message
            ),
        )?;
    }
    for (file, why) in &found.untrusted {
        hold(file, format!("{}: {why}", file.display()))?;
    }
    for mut automation in found.trusted {
        if let Some(stored) = store.automations().get(&automation.id)? {
            automation.enabled = stored.enabled;
        }
        store.automations().upsert(&automation.to_row())?;
        sync.loaded
            .push((automation.id, automation.source.unwrap_or_default()));
    }
    sync.errors = found.errors;
    sync.untrusted = found.untrusted;
    Ok(sync)
}

/// The trust store key of the automation `id` declared in `file`.
pub fn automation_trust_key(file: &Path, id: &str) -> String {
    format!("{}#automation#{id}", file.display())
}

/// Records the automation files of the project at `root` as trusted as they are now;
/// returns the ids trusted. Files that do not parse are left out.
pub fn trust_project_automations(store: &mut TrustStore, root: &Path, now_ms: i64) -> Vec<String> {
    let dir = project_automations_dir(root);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut trusted = Vec::new();
    let project_id = default_project_id(root);
    let mut files: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    files.sort();
    for file in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
    {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let Ok(automation) = parse_automation(file, &text, &project_id, 0.0) else {
            continue;
        };
        store.hooks.insert(
            automation_trust_key(file, &automation.id),
            TrustedHook {
                source: file.clone(),
                name: automation.id.clone(),
                dialect: "automation".to_owned(),
                definition: hookrig_config::content_hash(text.as_bytes()),
                script: None,
                trusted_at_ms: now_ms,
                stamps: Vec::new(),
            },
        );
        trusted.push(automation.id);
    }
    trusted
}

impl Automation {
    /// The store row.
    ///
    /// # Panics
    ///
    /// Never: triggers, steps and JSON values always serialize.
    pub fn to_row(&self) -> AutomationRow {
        AutomationRow {
            id: self.id.clone(),
            project_id: self.project_id.clone(),
            name: self.name.clone(),
            enabled: self.enabled,
            trigger: serde_json::to_string(&self.trigger).expect("a trigger serializes"),
            context_steps: Value::Array(self.context_steps.clone()).to_string(),
            prompt_template: self.prompt_template.clone(),
            llm_config: self.llm_config.as_ref().map(Value::to_string),
            cooldown_seconds: i64::try_from(self.cooldown_seconds).unwrap_or(i64::MAX),
            max_tokens_per_run: self
                .max_tokens_per_run
                .map(|m| i64::try_from(m).unwrap_or(i64::MAX)),
            source: self.source.clone(),
            created_at: self.created_at,
            updated_at: self.updated_at,
            held: self.held.clone(),
            tools: (!self.tools.is_default())
                .then(|| serde_json::to_string(&self.tools).expect("tool grants serialize")),
        }
    }

    /// Reads a store row back; a column that no longer parses (the file was edited by
    /// something else) is an error naming the automation and the column.
    pub fn from_row(row: AutomationRow) -> Result<Automation, AutomationError> {
        let corrupt = |column: &'static str| {
            let id = row.id.clone();
            move |source: serde_json::Error| AutomationError::CorruptRow {
                id,
                column,
                message: source.to_string(),
            }
        };
        let trigger: Trigger = serde_json::from_str(&row.trigger).map_err(corrupt("trigger"))?;
        let context_steps: Vec<Value> =
            serde_json::from_str(&row.context_steps).map_err(corrupt("context_steps"))?;
        let tools = row
            .tools
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(corrupt("tools"))?
            .unwrap_or_default();
        let llm_config = row
            .llm_config
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(corrupt("llm_config"))?;
        Ok(Automation {
            id: row.id,
            project_id: row.project_id,
            name: row.name,
            enabled: row.enabled,
            trigger,
            context_steps,
            prompt_template: row.prompt_template,
            llm_config,
            cooldown_seconds: u64::try_from(row.cooldown_seconds).unwrap_or(0),
            max_tokens_per_run: row.max_tokens_per_run.and_then(|m| u64::try_from(m).ok()),
            created_at: row.created_at,
            updated_at: row.updated_at,
            source: row.source,
            held: row.held,
            tools,
        })
    }

    /// The project that events must belong to: the watch block's `project_id` when it
    /// sets one, else the automation's.
    pub fn scope_project(&self) -> &str {
        match &self.trigger {
            Trigger::Event {
                watch:
                    Some(Watch {
                        project_id: Some(project),
                        ..
                    }),
                ..
            } => project,
            _ => &self.project_id,
        }
    }
}

#[cfg(test)]
mod tests {
    use indoc::indoc;
    use test_case::test_case;

    use super::*;

    fn toml(text: &str) -> Result<Automation, String> {
        parse_automation(Path::new("/p/a.toml"), text, "proj", 10.0).map_err(|d| d.to_string())
    }

    fn json(text: &str) -> Result<Automation, String> {
        parse_automation(Path::new("/p/a.json"), text, "proj", 10.0).map_err(|d| d.to_string())
    }

    #[test]
    fn toml_with_defaults() {
        let a = toml(indoc! {r#"
            name = "Nightly Review"
            prompt_template = "review {{step_0}}"
            [trigger]
            type = "periodic"
        "#})
        .expect("valid");
        assert_eq!(a.id, "nightly-review");
        assert_eq!(a.project_id, "proj");
        assert!(a.enabled);
        assert_eq!(a.cooldown_seconds, 3600);
        assert_eq!(
            a.trigger,
            Trigger::Periodic {
                interval_seconds: 3600,
                skip_llm: false
            }
        );
        assert_eq!(a.source.as_deref(), Some("/p/a.toml"));
        assert!(a.created_at > 9.0 && a.updated_at > 9.0);
    }

    // guards: an automation on `PostToolUse` must fire on `tool.after`: every accepted
    // spelling of a catalog event is read as its canonical name
    #[test_case("PostToolUse", "tool.after"; "claude code alias")]
    #[test_case("post_tool", "tool.after"; "hygge alias")]
    #[test_case("tool.after@v1", "tool.after"; "declared version")]
    #[test_case("PostToolUse@v1", "tool.after"; "alias with declared version")]
    #[test_case("post-complete", "task.completed"; "hence alias")]
    #[test_case("deploy.finished", "deploy.finished"; "custom event kept as written")]
    #[test_case("deploy.finished@v7", "deploy.finished@v7"; "custom event with a version kept")]
    fn event_types_are_read_as_canonical_names(written: &str, canonical: &str) {
        let a = toml(&format!(
            "name = \"a\"\n[trigger]\ntype = \"event\"\nevent_type = \"{written}\"\n"
        ))
        .expect("valid");
        assert_eq!(a.trigger.summary(), format!("event:{canonical}"));
        // What the store holds is canonical too, and reads back the same.
        let back = Automation::from_row(a.to_row()).expect("reads back");
        assert_eq!(back.trigger, a.trigger);
    }

    #[test]
    fn json_with_every_field_round_trips_through_the_store_row() {
        let a = json(indoc! {r#"
            {
              "id": "docs-watch",
              "project_id": "my-project",
              "name": "Docs watch",
              "enabled": false,
              "trigger": {"type": "event", "event_type": "folder.changed", "skip_llm": true,
                          "watch": {"paths": ["docs/"], "recursive": true, "extensions": [".md"]}},
              "context_steps": [{"type": "list_files", "path": "{{event.path}}"}],
              "prompt_template": "x",
              "llm_config": {"provider": "anthropic"},
              "cooldown_seconds": 60,
              "max_tokens_per_run": 1000
            }
        "#})
        .expect("valid");
        assert!(a.trigger.skip_llm());
        let back = Automation::from_row(a.to_row()).expect("round trip");
        assert_eq!(back, a);
        insta::assert_snapshot!(a.to_row().trigger, @r#"{"type":"event","event_type":"folder.changed","watch":{"paths":["docs/"],"recursive":true,"extensions":[".md"]},"skip_llm":true}"#);
    }

    #[test]
    fn cron_trigger_is_validated_with_five_fields() {
        let a = toml("name = \"c\"\n[trigger]\ntype = \"cron\"\nexpression = \"*/5 * * * *\"\n")
            .expect("valid");
        assert_eq!(a.trigger.summary(), "cron:*/5 * * * *");
    }

    #[test_case(
        "name = \"a\"\nbogus = 1\n[trigger]\ntype = \"periodic\"\n",
        "/p/a.toml:2:1: unknown field `bogus`, expected one of `id`, `project_id`, `name`, `enabled`, `trigger`, `context_steps`, `prompt_template`, `llm_config`, `cooldown_seconds`, `max_tokens_per_run`, `created_at`, `updated_at`, `tools`, `shell_allow`, `max_tool_rounds`, `plan`";
        "unknown top-level key names it and lists the valid ones"
    )]
    #[test_case(
        "name = \"a\"\n[trigger]\ntype = \"cron\"\nexpression = \"* * * * * *\"\n",
        "/p/a.toml:2:1: invalid cron expression \"* * * * * *\": invalid pattern: pattern must have 5 fields when seconds are disallowed; write 5 fields: minute hour day-of-month month day-of-week";
        "six-field cron"
    )]
    #[test_case(
        "name = \"a\"\n[trigger]\ntype = \"hourly\"\n",
        "/p/a.toml:3:8: unknown variant `hourly`, expected one of `event`, `periodic`, `cron`";
        "unknown trigger type"
    )]
    #[test_case(
        "name = \"a\"\n[trigger]\ntype = \"periodic\"\nevent_type = \"x\"\n",
        "/p/a.toml:2:1: `event_type` is not a key of a periodic trigger; its keys are `interval_seconds`, `skip_llm`";
        "key of another trigger type"
    )]
    #[test_case(
        "name = \"a\"\n[trigger]\ntype = \"periodic\"\ninterval_seconds = \"soon\"\n",
        "/p/a.toml:4:20: invalid type: string \"soon\", expected u64";
        "wrongly typed value is placed at the value"
    )]
    #[test_case(
        "name = \"a\"\n[trigger]\ntype = \"cron\"\n",
        "/p/a.toml:2:1: a cron trigger needs `expression`, e.g. \"*/5 * * * *\"";
        "cron without expression"
    )]
    #[test_case(
        "name = \"a\"\n[trigger]\ntype = \"event\"\n",
        "/p/a.toml:2:1: an event trigger needs `event_type`, e.g. \"task.completed\"";
        "event without event type"
    )]
    #[test_case(
        "name = \"a\"\n[trigger]\ntype = \"event\"\nevent_type = \"task.completed\"\nwatch = { paths = [\"x\"] }\n",
        "/p/a.toml:2:1: a `watch` block needs event_type \"file.changed\" or \"folder.changed\", not \"task.completed\"";
        "watch on a plain event"
    )]
    #[test_case(
        "name = \"a\"\n[trigger]\ntype = \"event\"\nevent_type = \"file.changed\"\nwatch = { paths = [\"x\"], recursive = true }\n",
        "/p/a.toml:2:1: `watch.recursive` applies to folder watches only (event_type \"folder.changed\")";
        "recursive file watch"
    )]
    // guards: a trigger on a version the catalog does not declare is refused at the
    // value, not stored as a custom event that never fires
    #[test_case(
        "name = \"a\"\n[trigger]\ntype = \"event\"\nevent_type = \"tool.after@v2\"\n",
        "/p/a.toml:4:14: tool.after has no version v2 (dispatched versions: v1); `hookrig events` lists the catalog";
        "undeclared event version"
    )]
    #[test_case(
        "name = \"a\"\n[trigger]\ntype = \"event\"\nevent_type = \"PostToolUse@v9\"\n",
        "/p/a.toml:4:14: tool.after has no version v9 (dispatched versions: v1); `hookrig events` lists the catalog";
        "undeclared version of an alias"
    )]
    #[test_case(
        "name = \"a\"\n[trigger]\ntype = \"event\"\nevent_type = \" \"\n",
        "/p/a.toml:4:14: `event_type` must name an event, e.g. \"task.completed\"";
        "blank event type"
    )]
    #[test_case(
        "name = \"  \"\n[trigger]\ntype = \"periodic\"\n",
        "/p/a.toml:1:8: must not be empty";
        "blank name"
    )]
    #[test_case(
        "name = \"a\"\n",
        "/p/a.toml:1:1: missing field `trigger`";
        "no trigger"
    )]
    #[test_case(
        "name = \"a\"\ncontext_steps = [{ command = \"ls\" }]\n[trigger]\ntype = \"periodic\"\n",
        "/p/a.toml:2:17: context step 0 needs a string `type` (shell, read_file, http, db_query, git_diff, run_tests, memory_search, create_task, list_files, file_diff)";
        "step without a type"
    )]
    #[test_case(
        "name = \"a\"\ncooldown_seconds = -1\n[trigger]\ntype = \"periodic\"\n",
        "/p/a.toml:2:20: invalid value: integer `-1`, expected u64";
        "negative cooldown"
    )]
    #[test_case(
        "name = \"a\"\ntools = [\"shell\", \"rm\"]\n[trigger]\ntype = \"periodic\"\n",
        "/p/a.toml:2:9: unknown tool `rm`; the tools are read_file, list_files, memory_search, plan_board, create_task, task_claim, task_complete, task_block, plan_assert, memory_upsert, http_get, emit, notify, shell, and a plugin's tool is `plugin:ID/TOOL`";
        "unknown tool"
    )]
    #[test_case(
        "name = \"a\"\nmax_tool_rounds = 0\n[trigger]\ntype = \"periodic\"\n",
        "/p/a.toml:2:19: must be at least 1";
        "no tool rounds"
    )]
    #[test_case(
        "name = \"a\"\ntools = [\"shell\"]\n[trigger]\ntype = \"periodic\"\n",
        "/p/a.toml: `tools` grants `shell` but `shell_allow` lists no program; list the programs it may run, e.g. shell_allow = [\"cargo\", \"git\"]";
        "shell without an allowlist"
    )]
    fn toml_errors_are_placed(text: &str, expected: &str) {
        assert_eq!(toml(text).expect_err("invalid"), expected);
    }

    #[test]
    fn tool_grants_round_trip_through_the_store_row() {
        let a = toml(
            "name = \"a\"\ntools = [\"shell\", \"create_task\"]\nshell_allow = [\"cargo\"]\nmax_tool_rounds = 4\n[trigger]\ntype = \"periodic\"\n",
        )
        .expect("valid");
        assert_eq!(
            a.tools.offered(),
            [
                "read_file",
                "list_files",
                "memory_search",
                "create_task",
                "shell"
            ]
        );
        assert_eq!(a.tools.max_tool_rounds, 4);
        let row = a.to_row();
        assert_eq!(
            row.tools.as_deref(),
            Some(
                r#"{"tools":["shell","create_task"],"shell_allow":["cargo"],"max_tool_rounds":4}"#
            )
        );
        assert_eq!(Automation::from_row(row).expect("reads back"), a);
        // The defaults are not stored.
        let plain = toml("name = \"b\"\n[trigger]\ntype = \"periodic\"\n").expect("valid");
        assert_eq!(plain.to_row().tools, None);
    }

    #[test_case(
        "{\"name\": \"a\",\n \"trigger\": {\"type\": \"periodic\"},\n \"extra\": 1}",
        "/p/a.json:3:8: unknown field `extra`, expected one of `id`, `project_id`, `name`, `enabled`, `trigger`, `context_steps`, `prompt_template`, `llm_config`, `cooldown_seconds`, `max_tokens_per_run`, `created_at`, `updated_at`, `tools`, `shell_allow`, `max_tool_rounds`, `plan`";
        "unknown key"
    )]
    #[test_case(
        "{\"name\": \"a\",\n \"trigger\": {\"type\": \"cron\", \"expression\": \"61 * * * *\"}}",
        "/p/a.json:2:57: invalid cron expression \"61 * * * *\": component error: number out of bounds; write 5 fields: minute hour day-of-month month day-of-week";
        "cron out of range"
    )]
    #[test_case(
        "{\"name\": \"a\", \"trigger\": {\"type\": \"periodic\"}, \"llm_config\": 3}",
        "/p/a.json:1:63: `llm_config` must be an object, e.g. {\"provider\": \"anthropic\", \"model\": \"...\"}";
        "llm config not an object"
    )]
    #[test_case(
        "{\"name\": \"a\",",
        "/p/a.json:1:13: EOF while parsing a value";
        "truncated"
    )]
    fn json_errors_are_placed(text: &str, expected: &str) {
        assert_eq!(json(text).expect_err("invalid"), expected);
    }

    #[test]
    fn default_project_id_is_the_repository_root_name() {
        let dir = tempfile::tempdir().expect("temp");
        let root = dir.path().join("myrepo");
        std::fs::create_dir_all(root.join(".git")).expect("git");
        std::fs::create_dir_all(root.join("sub/deeper")).expect("dirs");
        assert_eq!(default_project_id(&root.join("sub/deeper")), "myrepo");
        let loose = dir.path().join("loose");
        std::fs::create_dir_all(&loose).expect("dir");
        // Without a repository, the directory's own name (the temp dir has no .git above).
        assert_eq!(default_project_id(&loose), "loose");
    }

    fn environment(root: &Path, trust_all: bool) -> Environment {
        Environment {
            home: root.join("home"),
            config_home: root.join("home/.config"),
            state_home: root.join("home/.local/state"),
            data_home: root.join("home/.local/share"),
            xcode_home: root.join("home/.x-code"),
            cwd: root.join("repo"),
            trust_all,
        }
    }

    #[test]
    fn project_files_run_only_once_trusted_and_while_unchanged() {
        let dir = tempfile::tempdir().expect("temp");
        let root = dir.path().join("repo");
        let autos = project_automations_dir(&root);
        std::fs::create_dir_all(&autos).expect("dirs");
        std::fs::create_dir_all(root.join(".git")).expect("git");
        let file = autos.join("a.toml");
        std::fs::write(&file, "name = \"A\"\n[trigger]\ntype = \"periodic\"\n").expect("write");
        std::fs::write(autos.join("bad.toml"), "name = 1\n").expect("write");
        std::fs::write(autos.join("notes.md"), "ignored").expect("write");
        let env = environment(dir.path(), false);

        let found = project_automations(&env, &root, 1.0);
        assert!(found.trusted.is_empty());
        assert_eq!(found.untrusted.len(), 1);
        assert!(
            found.untrusted[0].1.contains("not trusted yet"),
            "{found:?}"
        );
        assert_eq!(found.errors.len(), 1);
        assert!(
            found.errors[0].to_string().contains("bad.toml:1:8"),
            "{found:?}"
        );

        let mut store = TrustStore::default();
        assert_eq!(trust_project_automations(&mut store, &root, 5), ["a"]);
        store
            .save(&hookrig_config::trust_store_path(&env))
            .expect("save");
        let found = project_automations(&env, &root, 1.0);
        assert_eq!(found.trusted.len(), 1);
        assert_eq!(found.trusted[0].project_id, "repo");

        std::fs::write(
            &file,
            "name = \"A\"\n[trigger]\ntype = \"periodic\"\ninterval_seconds = 1\n",
        )
        .expect("write");
        let found = project_automations(&env, &root, 1.0);
        assert!(found.trusted.is_empty());
        assert!(found.untrusted[0].1.contains("changed since"), "{found:?}");

        let found = project_automations(&environment(dir.path(), true), &root, 1.0);
        assert_eq!(found.trusted.len(), 1, "trust_all trusts everything");
    }
}
