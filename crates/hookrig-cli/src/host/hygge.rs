//! The hygge host format.

use super::HostInput;
use crate::errors::ExpectedError;

pub(super) fn read(event: Option<&str>, stdin: &[u8]) -> Result<HostInput, ExpectedError> {
    let _ = (event, stdin);
    Err(ExpectedError::DialectNotSupported("hygge"))
}
