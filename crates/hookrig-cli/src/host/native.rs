//! hookrig's own host format.

use hookrig_core::{Decision, Dispatched, Outcome, Payload};
use serde_json::Value;

use super::{HostAnswer, HostInput};
use crate::errors::ExpectedError;
use crate::exit_codes;

pub(super) fn read(event: Option<&str>, stdin: &[u8]) -> Result<HostInput, ExpectedError> {
    let event = event.ok_or(ExpectedError::NoEvent)?.to_owned();
    Ok(HostInput {
        event,
        payload: parse_object(stdin)?,
    })
}

/// Parses stdin as one JSON object; nothing at all is `{}`.
pub(crate) fn parse_object(stdin: &[u8]) -> Result<Payload, ExpectedError> {
    if stdin.trim_ascii().is_empty() {
        return Ok(Payload::new());
    }
    match serde_json::from_slice(stdin).map_err(ExpectedError::PayloadNotJson)? {
        Value::Object(map) => Ok(Payload::from_map(map)),
        Value::Array(_) => Err(ExpectedError::PayloadNotObject("an array")),
        Value::String(_) => Err(ExpectedError::PayloadNotObject("a string")),
        Value::Number(_) => Err(ExpectedError::PayloadNotObject("a number")),
        Value::Bool(_) => Err(ExpectedError::PayloadNotObject("a boolean")),
        Value::Null => Err(ExpectedError::PayloadNotObject("null")),
    }
}

pub(super) fn answer(outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer {
    let mut stdout = serde_json::to_string(outcome).expect("the Outcome always serializes");
    stdout.push('\n');
    HostAnswer {
        stdout,
        stderr: None,
        exit_code: match dispatched.decision {
            Decision::Deny => exit_codes::DENIED,
            Decision::Allow | Decision::Ask => exit_codes::PROCEED,
        },
    }
}
