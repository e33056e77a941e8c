//! hookrig's own dialect: `hooks.toml`, the native hook protocol and the Outcome as the
//! host's answer.

mod host;
mod loader;
mod protocol;
mod schema;
mod wire;

pub(crate) use host::HOST;
pub(crate) use loader::load;
pub use loader::parse_native;
pub use protocol::NativeProtocol;
pub(crate) use protocol::{cut, exit_code};
pub use schema::native_schema;
