//! hygge's dialect: its `hooks.toml` layers, its `Input` and `Action`, and its host mode.

mod host;
mod protocol;

pub(crate) use host::HOST;
pub use protocol::HyggeProtocol;
