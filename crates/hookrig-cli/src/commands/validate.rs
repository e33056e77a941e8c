//! `hookrig validate`: check every config source.

use std::fmt::Write;

use hookrig_runtime::Scope;

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{count, print};

pub(crate) fn run(scope: &Scope, strict: bool) -> Result<u8, ExpectedError> {
    let validation = hookrig_runtime::validate(scope, &scope.load_options(&[])?)?;
    let mut text = String::new();
    for diagnostic in &validation.diagnostics {
        let _ = writeln!(text, "{}", diagnostic.render_with_severity());
    }
    let errors = count(validation.errors(), "error");
    let _ = writeln!(
        text,
        "{errors}, {}",
        count(validation.warnings(), "warning")
    );
    print(&text)?;
    Ok(if validation.passes(strict) {
        exit_codes::PROCEED
    } else {
        exit_codes::FAILURE
    })
}
