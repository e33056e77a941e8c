//! `hookrig validate`: check every config source.

use std::fmt::Write;

use hookrig_dialects::LoadOptions;
use hookrig_runtime::Scope;

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::print;

pub(crate) fn run(scope: &Scope, strict: bool) -> Result<u8, ExpectedError> {
    let options = LoadOptions {
        packages: scope.packages()?,
        ..LoadOptions::default()
    };
    let validation = hookrig_runtime::validate(scope, &options)?;
    let (errors, warnings) = (validation.errors(), validation.warnings());
    let mut text = String::new();
    for diagnostic in &validation.diagnostics {
        let _ = writeln!(text, "{}", diagnostic.render_with_severity());
    }
    let _ = writeln!(
        text,
        "{errors} error{}, {warnings} warning{}",
        plural(errors),
        plural(warnings)
    );
    print(&text)?;
    Ok(if validation.passes(strict) {
        exit_codes::PROCEED
    } else {
        exit_codes::FAILURE
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
