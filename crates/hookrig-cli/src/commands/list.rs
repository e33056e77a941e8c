//! `hookrig list` and `hookrig show`: the configured hooks.

use std::fmt::Write;

use hookrig_runtime::{ListedHook, Scope, Select};

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{print, print_json, report_errors, table};

pub(crate) fn list(scope: &Scope, event: Option<&str>, json: bool) -> Result<u8, ExpectedError> {
    let select = event.map_or(Select::All, Select::Event);
    let listing = hookrig_runtime::list(scope, select, &scope.load_options(&[])?)?;
    report_errors(&listing.skipped);
    let hooks: Vec<ListedHook<'_>> = listing.hooks.iter().map(ListedHook::new).collect();
    if json {
        print_json(&hooks)?;
        return Ok(exit_codes::PROCEED);
    }
    if hooks.is_empty() {
        print("(no hooks configured)\n")?;
        return Ok(exit_codes::PROCEED);
    }
    let rows: Vec<[String; 8]> = hooks
        .into_iter()
        .map(|l| {
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

pub(crate) fn show(scope: &Scope, name: &str) -> Result<u8, ExpectedError> {
    let listing = hookrig_runtime::list(scope, Select::Name(name), &scope.load_options(&[])?)?;
    report_errors(&listing.skipped);
    if listing.hooks.is_empty() {
        return Err(ExpectedError::NoSuchHook {
            name: name.to_owned(),
            suggestion: listing.closest,
        });
    }
    let mut text = String::new();
    for (i, def) in listing.hooks.iter().enumerate() {
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
    print(&text)?;
    Ok(exit_codes::PROCEED)
}
