//! x-code's dialect: plugin directories with `plugin.json`, plugin packages, its hook
//! payload and reply, and its host mode.

mod host;
mod protocol;

pub(crate) use host::HOST;
pub use protocol::XcodeProtocol;
