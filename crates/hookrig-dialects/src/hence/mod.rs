//! Hence's dialect: lifecycle hook scripts (`.hence/hooks/<name>`, `config.toml`) that get
//! the event as positional arguments and `HENCE_*` variables.

pub(crate) mod events;
mod loader;
mod protocol;
mod wire;

pub use loader::HenceHook;
pub(crate) use loader::load;
pub use protocol::HenceProtocol;
