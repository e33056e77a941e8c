//! `hookrig providers list`: the agent providers of `config.toml` and the built-in ones
//! they do not replace, whether each CLI can be found, and the first line of its version.

use std::fmt::Write as _;

use hookrig_agents::{Found, Origin, ProviderStatus, Version};
use hookrig_runtime::Scope;

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{json_or_text, warn};

pub(crate) fn list(scope: &Scope, json: bool) -> Result<u8, ExpectedError> {
    let rows = hookrig_agents::list_providers(scope.cwd(), &mut warn)?;
    json_or_text(json, &rows[..], text)?;
    // A missing CLI is part of the answer, as in `hookrig list`; it stops only the
    // command that would run the provider.
    Ok(exit_codes::PROCEED)
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
        let _ = match (&row.found, row.problem()) {
            (Found::At(path), _) => writeln!(out, "  cli: {} ({})", p.cli, path.display()),
            (_, problem) => writeln!(out, "  {}", problem.unwrap_or_default()),
        };
        let _ = match &row.version {
            Some(Version::Line(line)) => writeln!(out, "  version: {line}"),
            Some(Version::Failed(why)) => writeln!(out, "  version: unknown ({why})"),
            Some(Version::NotChecked) => writeln!(out, "  version: not checked (no version_args)"),
            None => Ok(()),
        };
    }
    out
}
