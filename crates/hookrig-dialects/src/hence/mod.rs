//! Hence's dialect: lifecycle hook scripts (`.hence/hooks/<name>`, `config.toml`) that get
//! the event as positional arguments and `HENCE_*` variables.

mod protocol;

pub use protocol::HenceProtocol;
