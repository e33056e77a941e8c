//! hookrig's own dialect: `hooks.toml`, the native hook protocol and the Outcome as the
//! host's answer.

mod host;

pub(crate) use host::HOST;
