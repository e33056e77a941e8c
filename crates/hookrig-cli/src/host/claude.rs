//! The claude host format.

use hookrig_core::{Dispatched, Outcome};

use super::{HostAnswer, HostInput};
use crate::errors::ExpectedError;

pub(super) fn read(event: Option<&str>, stdin: &[u8]) -> Result<HostInput, ExpectedError> {
    let _ = (event, stdin);
    Err(ExpectedError::DialectNotSupported("claude"))
}

pub(super) fn answer(outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer {
    super::native::answer(outcome, dispatched)
}
