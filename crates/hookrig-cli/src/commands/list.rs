//! `hookrig list` and `hookrig show`: the configured hooks.

use hookrig_runtime::{ListedHook, Scope, Select};

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{print, print_json, report_errors};

pub(crate) fn list(scope: &Scope, event: Option<&str>, json: bool) -> Result<u8, ExpectedError> {
    let select = event.map_or(Select::All, Select::Event);
    let listing = hookrig_runtime::list(scope, select, &scope.load_options(&[])?)?;
    report_errors(&listing.skipped);
    if json {
        let hooks: Vec<ListedHook<'_>> = listing.hooks.iter().map(ListedHook::new).collect();
        print_json(&hooks)?;
    } else {
        print(&listing.table())?;
    }
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
    print(&listing.details())?;
    Ok(exit_codes::PROCEED)
}
