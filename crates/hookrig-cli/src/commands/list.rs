//! `hookrig list` and `hookrig show`: the configured hooks.

use std::fmt::Write;

use hookrig_core::{EventName, Level, display_duration};
use hookrig_dialects::{HookDef, LoadOptions};
use hookrig_exec::CommandDef;
use hookrig_runtime::{Scope, Select, Trust};
use serde::Serialize;

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{print, print_json, report_errors};

/// One hook as `list --json` prints it.
#[derive(Debug, Serialize)]
struct Listed<'a> {
    name: &'a str,
    source: String,
    dialect: &'static str,
    level: Level,
    events: Vec<&'a str>,
    matcher: String,
    mode: &'static str,
    timeout: Option<String>,
    priority: i32,
    enabled: bool,
    trust: &'static str,
    untrusted_because: Option<&'a str>,
    command: String,
    description: Option<&'a str>,
}

impl<'a> Listed<'a> {
    fn new(def: &'a HookDef) -> Self {
        let spec = &def.spec;
        Listed {
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
            command: command_text(&def.command),
            description: spec.description.as_deref(),
        }
    }
}

fn command_text(command: &CommandDef) -> String {
    match command {
        CommandDef::Shell { line, .. } => line.clone(),
        CommandDef::Exec { argv } => argv.join(" "),
        CommandDef::Http { url, .. } => format!("POST {url}"),
    }
}

/// The load options of `list` and `show`: the plugin packages of the scope's agent.
fn options(scope: &Scope) -> Result<LoadOptions, ExpectedError> {
    Ok(LoadOptions {
        packages: scope.packages()?,
        ..LoadOptions::default()
    })
}

pub(crate) fn list(scope: &Scope, event: Option<&str>, json: bool) -> Result<u8, ExpectedError> {
    let select = event.map_or(Select::All, Select::Event);
    let listing = hookrig_runtime::list(scope, select, &options(scope)?)?;
    report_errors(&listing.skipped);
    let hooks: Vec<&HookDef> = listing.hooks.iter().collect();
    if json {
        let listed: Vec<Listed<'_>> = hooks.iter().map(|def| Listed::new(def)).collect();
        print_json(&listed)?;
        return Ok(exit_codes::PROCEED);
    }
    if hooks.is_empty() {
        print("(no hooks configured)\n")?;
        return Ok(exit_codes::PROCEED);
    }
    let rows: Vec<[String; 8]> = hooks
        .iter()
        .map(|def| {
            let l = Listed::new(def);
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
    print(&table(&header, &rows))?;
    Ok(exit_codes::PROCEED)
}

/// Left-aligned columns two spaces apart; the last column is not padded.
pub(crate) fn table<const N: usize>(header: &[&str; N], rows: &[[String; N]]) -> String {
    let mut widths = header.map(str::len);
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    let mut line = |cells: Vec<&str>| {
        let mut out = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == N {
                out.push_str(cell);
            } else {
                let _ = write!(out, "{cell:<width$}  ", width = widths[i]);
            }
        }
        text.push_str(out.trim_end());
        text.push('\n');
    };
    line(header.to_vec());
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
    text
}

pub(crate) fn show(scope: &Scope, name: &str) -> Result<u8, ExpectedError> {
    let listing = hookrig_runtime::list(scope, Select::Name(name), &options(scope)?)?;
    report_errors(&listing.skipped);
    if listing.hooks.is_empty() {
        return Err(ExpectedError::NoSuchHook {
            name: name.to_owned(),
            suggestion: listing.closest,
        });
    }
    let found: Vec<&HookDef> = listing.hooks.iter().collect();
    let mut text = String::new();
    for (i, def) in found.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        let l = Listed::new(def);
        let _ = writeln!(text, "name:        {}", l.name);
        // `path:line` of the declaration, so an editor can jump to it; the path alone
        // for hooks that are files themselves.
        match def.declared_line_col() {
            Some((line, _)) => {
                let _ = writeln!(text, "source:      {}:{line}", l.source);
            }
            None => {
                let _ = writeln!(text, "source:      {}", l.source);
            }
        }
        let _ = writeln!(text, "dialect:     {}", l.dialect);
        let _ = writeln!(text, "events:      {}", l.events.join(", "));
        if !l.matcher.is_empty() {
            let _ = writeln!(text, "matcher:     {}", l.matcher);
        }
        let _ = writeln!(text, "command:     {}", l.command);
        let _ = writeln!(text, "mode:        {}", l.mode);
        let _ = writeln!(
            text,
            "timeout:     {}",
            l.timeout.as_deref().unwrap_or("none")
        );
        let _ = writeln!(text, "priority:    {}", l.priority);
        let _ = writeln!(text, "on_error:    {}", on_error(def));
        let _ = writeln!(text, "enabled:     {}", l.enabled);
        let _ = write!(text, "trust:       {}", l.trust);
        if let Some(why) = l.untrusted_because {
            let _ = write!(text, " ({why})");
        }
        text.push('\n');
        let _ = writeln!(
            text,
            "{}",
            format!("description: {}", l.description.unwrap_or("")).trim_end()
        );
    }
    print(&text)?;
    Ok(exit_codes::PROCEED)
}

fn on_error(def: &HookDef) -> &'static str {
    match def.spec.on_error {
        hookrig_core::OnError::Allow => "allow",
        hookrig_core::OnError::Deny => "deny",
    }
}
