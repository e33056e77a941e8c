//! hookrig's own dialect: `hooks.toml`, the native hook protocol and the Outcome as the
//! host's answer.

mod host;
mod protocol;

pub(crate) use host::HOST;
pub use protocol::NativeProtocol;
pub(crate) use protocol::{cut, exit_code};
