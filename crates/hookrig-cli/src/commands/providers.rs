//! `hookrig providers list`: the agent providers of `config.toml` and the built-in ones
//! they do not replace, whether each CLI can be found, and the first line of its version.

use std::fmt::Write as _;

use hookrig_agents::{Found, Origin, ProviderStatus, Version};
use hookrig_config::Provider;
use hookrig_runtime::Scope;
use serde_json::{Value, json};

use crate::commands::config::provider_json;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{print, print_json};

pub(crate) fn list(scope: &Scope, json: bool) -> Result<u8, ExpectedError> {
    let rows = hookrig_agents::list_providers(scope.cwd(), &mut |warning| {
        eprintln!("hookrig: warning: {warning}");
    })?;
    if json {
        print_json(&rows.iter().map(row_json).collect::<Vec<Value>>())?;
    } else {
        print(&text(&rows))?;
    }
    // A missing CLI is part of the answer, as in `hookrig list`; it stops only the
    // command that would run the provider.
    Ok(exit_codes::PROCEED)
}

/// Hence's own wording, which it prints before exiting 1 when it needs the CLI.
fn not_found(provider: &Provider) -> String {
    format!(
        "provider '{}' CLI '{}' not found",
        provider.id, provider.cli
    )
}

fn text(rows: &[ProviderStatus]) -> String {
    let mut out = String::new();
    for row in rows {
        let p = &row.provider;
        let _ = match &row.origin {
            Origin::Config { source, line } => {
                writeln!(out, "{} ({})  # {}:{line}", p.id, p.name, source.display())
            }
            Origin::BuiltIn => writeln!(out, "{} ({})  # built-in", p.id, p.name),
        };
        match &row.found {
            Found::At(path) => {
                let _ = writeln!(out, "  cli: {} ({})", p.cli, path.display());
            }
            Found::NotExecutable(path) => {
                let _ = writeln!(
                    out,
                    "  {} ({} is not executable)",
                    not_found(p),
                    path.display()
                );
            }
            Found::Missing => {
                let _ = writeln!(out, "  {}", not_found(p));
            }
        }
        match &row.version {
            Some(Version::Line(line)) => {
                let _ = writeln!(out, "  version: {line}");
            }
            Some(Version::Failed(why)) => {
                let _ = writeln!(out, "  version: unknown ({why})");
            }
            Some(Version::NotChecked) => {
                out.push_str("  version: not checked (no version_args)\n");
            }
            None => {}
        }
    }
    out
}

fn row_json(row: &ProviderStatus) -> Value {
    let (path, found, problem) = match &row.found {
        Found::At(path) => (Some(path), true, None),
        Found::NotExecutable(path) => (
            Some(path),
            false,
            Some(format!(
                "{} ({} is not executable)",
                not_found(&row.provider),
                path.display()
            )),
        ),
        Found::Missing => (None, false, Some(not_found(&row.provider))),
    };
    let (source, line) = match &row.origin {
        Origin::Config { source, line } => (Some(source), Some(*line)),
        Origin::BuiltIn => (None, None),
    };
    let (version, version_error) = match &row.version {
        Some(Version::Line(line)) => (Some(line.as_str()), None),
        Some(Version::Failed(why)) => (None, Some(why.as_str())),
        Some(Version::NotChecked) | None => (None, None),
    };
    json!({
        "provider": provider_json(&row.provider),
        "source": source,
        "line": line,
        "built_in": row.origin == Origin::BuiltIn,
        "found": found,
        "path": path,
        "error": problem,
        "version": version,
        "version_error": version_error,
    })
}
