//! hygge's dialect: its `hooks.toml` layers, its `Input` and `Action`, and its host mode.

pub(crate) mod events;
mod host;
mod loader;
mod protocol;
mod wire;

pub(crate) use host::HOST;
pub(crate) use loader::load;
pub use loader::{format_go_duration, parse_go_duration, parse_hygge};
pub use protocol::HyggeProtocol;
