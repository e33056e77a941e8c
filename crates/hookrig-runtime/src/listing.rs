//! The configured hooks, for `hookrig list` and `hookrig show`.

use std::fmt::Write as _;

use hookrig_core::{Diagnostic, EventName, Level, OnError, Severity, display_duration};
use hookrig_dialects::{HookDef, LoadOptions};
use hookrig_exec::CommandDef;
use serde::Serialize;

use crate::errors::RuntimeError;
use crate::registry;
use crate::scope::Scope;

/// Hooks found, and the sources (or entries) that were skipped for an error: the rest
/// loaded, and without saying so a listing would look complete.
#[derive(Debug)]
pub struct Listing {
    /// The hooks, sorted by name; hooks that share a name keep load order.
    pub hooks: Vec<HookDef>,
    /// Errors of sources or entries left out.
    pub skipped: Vec<Diagnostic>,
    /// With [`Select::Name`] and no hook of that name: the closest configured name.
    pub closest: Option<String>,
}

/// Whether a hook may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Trust {
    /// The user's own: always trusted.
    User,
    /// From the project, approved by `hookrig trust`.
    Trusted,
    /// From the project, not approved (or changed since).
    Untrusted,
}

impl Trust {
    /// The trust of `def`.
    pub fn of(def: &HookDef) -> Trust {
        match (def.spec.source.level, &def.spec.untrusted) {
            (Level::Global, _) => Trust::User,
            (Level::Project, None) => Trust::Trusted,
            (Level::Project, Some(_)) => Trust::Untrusted,
        }
    }

    /// `user`, `trusted` or `untrusted`.
    pub fn as_str(self) -> &'static str {
        match self {
            Trust::User => "user",
            Trust::Trusted => "trusted",
            Trust::Untrusted => "untrusted",
        }
    }
}

/// One hook as a listing shows it (`hookrig list --json` serializes it): each field
/// as text, as the hook's file would say it.
#[derive(Debug, Serialize)]
pub struct ListedHook<'a> {
    /// The hook's name.
    pub name: &'a str,
    /// The file that declares it.
    pub source: String,
    /// The dialect of that file.
    pub dialect: &'static str,
    /// Global or project.
    pub level: Level,
    /// The events it listens to, canonical names.
    pub events: Vec<&'a str>,
    /// Its matcher's pattern; empty when it matches everything.
    pub matcher: String,
    /// `sync` or `async`.
    pub mode: &'static str,
    /// Its timeout (`30s`), when it has one.
    pub timeout: Option<String>,
    /// Its priority (lower runs first).
    pub priority: i32,
    /// Whether it is enabled.
    pub enabled: bool,
    /// `user`, `trusted` or `untrusted`.
    pub trust: &'static str,
    /// Why it is not trusted, when it is not.
    pub untrusted_because: Option<&'a str>,
    /// What it runs: the command line, the argv joined, or `POST URL`.
    pub command: String,
    /// Its description.
    pub description: Option<&'a str>,
    /// What a failure of the hook decides: `allow` or `deny`.
    #[serde(skip)]
    pub on_error: &'static str,
}

impl<'a> ListedHook<'a> {
    /// How `def` is listed.
    pub fn new(def: &'a HookDef) -> Self {
        let spec = &def.spec;
        ListedHook {
            name: &spec.name,
            source: spec.source.path.display().to_string(),
            dialect: def.dialect().as_str(),
            level: spec.source.level,
            events: spec.events.iter().map(EventName::as_str).collect(),
            matcher: spec.matcher.pattern(),
            mode: spec.mode.as_str(),
            timeout: spec.timeout.map(display_duration),
            priority: spec.priority,
            enabled: spec.enabled,
            trust: Trust::of(def).as_str(),
            untrusted_because: spec.untrusted.as_deref(),
            command: match &def.command {
                CommandDef::Shell { line, .. } => line.clone(),
                CommandDef::Exec { argv } => argv.join(" "),
                CommandDef::Http { url, .. } => format!("POST {url}"),
            },
            description: spec.description.as_deref(),
            on_error: match spec.on_error {
                OnError::Allow => "allow",
                OnError::Deny => "deny",
            },
        }
    }
}

impl Listing {
    /// `hookrig list`: a row per hook, or a line saying there is none.
    pub fn table(&self) -> String {
        if self.hooks.is_empty() {
            return "(no hooks configured)\n".to_owned();
        }
        let rows: Vec<[String; 8]> = self
            .hooks
            .iter()
            .map(|def| {
                let l = ListedHook::new(def);
                [
                    l.name.to_owned(),
                    l.source,
                    l.dialect.to_owned(),
                    l.events.join(","),
                    l.mode.to_owned(),
                    l.timeout.unwrap_or_else(|| "none".to_owned()),
                    l.trust.to_owned(),
                    l.description.unwrap_or("").to_owned(),
                ]
            })
            .collect();
        let header = [
            "NAME",
            "SOURCE",
            "DIALECT",
            "EVENTS",
            "MODE",
            "TIMEOUT",
            "TRUST",
            "DESCRIPTION",
        ];
        hookrig_core::text::table(&header, &rows)
    }

    /// `hookrig show`: every field of each hook, one `name: value` line each, the hooks
    /// a blank line apart.
    pub fn details(&self) -> String {
        let mut text = String::new();
        for (i, def) in self.hooks.iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            let l = ListedHook::new(def);
            let _ = writeln!(text, "name:        {}", l.name);
            // `path:line` of the declaration, so an editor can jump to it; the path alone
            // for hooks that are files themselves.
            let _ = match def.declared_line_col() {
                Some((line, _)) => writeln!(text, "source:      {}:{line}", l.source),
                None => writeln!(text, "source:      {}", l.source),
            };
            let _ = writeln!(text, "dialect:     {}", l.dialect);
            let _ = writeln!(text, "events:      {}", l.events.join(", "));
            if !l.matcher.is_empty() {
                let _ = writeln!(text, "matcher:     {}", l.matcher);
            }
            let _ = writeln!(text, "command:     {}", l.command);
            let _ = writeln!(text, "mode:        {}", l.mode);
            let timeout = l.timeout.as_deref().unwrap_or("none");
            let _ = writeln!(text, "timeout:     {timeout}");
            let _ = writeln!(text, "priority:    {}", l.priority);
            let _ = writeln!(text, "on_error:    {}", l.on_error);
            let _ = writeln!(text, "enabled:     {}", l.enabled);
            let _ = write!(text, "trust:       {}", l.trust);
            if let Some(why) = l.untrusted_because {
                let _ = write!(text, " ({why})");
            }
            let description = format!("description: {}", l.description.unwrap_or(""));
            let _ = writeln!(text, "\n{}", description.trim_end());
        }
        text
    }
}

/// Which hooks a listing holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Select<'a> {
    /// Every hook.
    All,
    /// The hooks listening to this event (any accepted spelling).
    Event(&'a str),
    /// The hooks with this name (several sources may declare one name; all run).
    Name(&'a str),
}

/// The configured hooks of the scope that `select` picks, sorted by name (hooks that
/// share a name keep load order).
pub fn list(
    scope: &Scope,
    select: Select<'_>,
    options: &LoadOptions,
) -> Result<Listing, RuntimeError> {
    let config = registry::load(scope, options)?;
    let (mut hooks, others): (Vec<HookDef>, Vec<HookDef>) = match select {
        Select::All => (config.hooks, Vec::new()),
        Select::Event(event) => {
            let event = hookrig_dialects::events::resolve(event);
            config
                .hooks
                .into_iter()
                .partition(|def| def.spec.listens_to(&event))
        }
        Select::Name(name) => config
            .hooks
            .into_iter()
            .partition(|def| def.spec.name == name),
    };
    hooks.sort_by(|a, b| a.spec.name.cmp(&b.spec.name));
    let closest = match select {
        Select::Name(name) if hooks.is_empty() => {
            let names = others.iter().map(|d| d.spec.name.as_str());
            hookrig_config::did_you_mean(name, names).map(str::to_owned)
        }
        _ => None,
    };
    Ok(Listing {
        hooks,
        skipped: errors(config.warnings),
        closest,
    })
}

fn errors(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diagnostics
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect()
}
