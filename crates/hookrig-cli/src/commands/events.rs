//! `hookrig events`: the event catalog.

use std::fmt::Write;

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{print, print_json};

pub(crate) fn run(json: bool) -> Result<u8, ExpectedError> {
    let catalog = hookrig_dialects::events::catalog();
    if json {
        print_json(&catalog)?;
        return Ok(exit_codes::PROCEED);
    }
    let width = catalog.iter().map(|e| e.name.len()).max().unwrap_or(4);
    let mut text = format!("{:width$}  {:9}  ALIASES\n", "NAME", "KIND");
    for entry in &catalog {
        let line = format!(
            "{:width$}  {:9}  {}",
            entry.name,
            entry.kind.as_str(),
            entry.aliases.join(", ")
        );
        let _ = writeln!(text, "{}", line.trim_end());
    }
    text.push_str("\nAny other name is a custom event of kind notify.\n");
    print(&text)?;
    Ok(exit_codes::PROCEED)
}
