//! `hookrig schema`: the JSON Schema of hooks.toml.

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::print;

pub(crate) fn run() -> Result<u8, ExpectedError> {
    let schema = hookrig_dialects::native_schema();
    let text = serde_json::to_string_pretty(&schema).expect("the schema serializes");
    print(&format!("{text}\n"))?;
    Ok(exit_codes::PROCEED)
}
