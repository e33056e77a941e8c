//! `hookrig validate`: check every config source.

use std::fmt::Write;
use std::path::Path;

use hookrig_config::{CommandDef, ConfigError, Diagnostic, LoadOptions, PackageRef, Severity};

use crate::engine;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::print;

pub(crate) fn run(
    cwd: Option<&Path>,
    strict: bool,
    packages: Vec<PackageRef>,
) -> Result<u8, ExpectedError> {
    let env = hookrig_config::Environment::from_process(engine::working_dir(cwd)?)?;
    let options = LoadOptions {
        packages,
        ..LoadOptions::default()
    };
    let mut diagnostics = match hookrig_config::load(&env, &options) {
        Ok(config) => {
            let mut found = config.warnings;
            for def in &config.hooks {
                found.extend(script_problem(def));
            }
            found
        }
        Err(ConfigError::Invalid { mut errors, other }) => {
            errors.extend(other);
            errors
        }
        Err(err) => return Err(err.into()),
    };
    diagnostics.sort_by(|a, b| (&a.path, a.line, a.col).cmp(&(&b.path, b.line, b.col)));
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = diagnostics.len() - errors;
    let mut text = String::new();
    for diagnostic in &diagnostics {
        let _ = writeln!(text, "{}", diagnostic.render_with_severity());
    }
    let _ = writeln!(
        text,
        "{errors} error{}, {warnings} warning{}",
        plural(errors),
        plural(warnings)
    );
    print(&text)?;
    Ok(if errors > 0 || (strict && warnings > 0) {
        exit_codes::FAILURE
    } else {
        exit_codes::PROCEED
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A script a hook names that is missing or cannot be executed: the hook would fail
/// every time it runs.
fn script_problem(def: &hookrig_config::HookDef) -> Option<Diagnostic> {
    let script = match &def.command {
        CommandDef::Shell {
            script: Some(script),
            ..
        } => script.clone(),
        CommandDef::Exec { argv } if argv.first().is_some_and(|a| a.contains('/')) => {
            argv[0].clone().into()
        }
        _ => return None,
    };
    let problem = hookrig_exec::script_problem(&script)?;
    Some(Diagnostic::file(
        &def.spec.source.path,
        Severity::Error,
        format!("hook `{}`: {problem}", def.spec.name),
    ))
}
