//! hookrig's own host format.

use hookrig_core::{Decision, Dialect, Dispatched, Outcome};

use crate::errors::HostError;
use crate::host::{Host, HostAnswer, HostInput, no_failure_answer, parse_object};

/// hookrig's own host mode: a payload object in, an Outcome object out.
pub(crate) const HOST: Host = Host::new(Dialect::Native, read, answer, no_failure_answer, false);

fn read(event: Option<&str>, stdin: &[u8]) -> Result<HostInput, HostError> {
    let event = event.ok_or(HostError::NoEvent)?.to_owned();
    Ok(HostInput {
        event,
        payload: parse_object(stdin)?,
    })
}

fn answer(outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer {
    let mut stdout = serde_json::to_string(outcome).expect("the Outcome always serializes");
    stdout.push('\n');
    HostAnswer {
        stdout,
        stderr: None,
        // A stop is not a way to proceed: a host that reads only the exit code must not
        // go on with the event.
        exit_code: match dispatched.decision {
            _ if dispatched.stop.is_some() => HostAnswer::DENIED,
            Decision::Deny => HostAnswer::DENIED,
            Decision::Allow | Decision::Ask => HostAnswer::PROCEED,
        },
    }
}
