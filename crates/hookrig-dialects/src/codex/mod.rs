//! Codex CLI's dialect: its `hooks.json` files and `[hooks]` tables of `config.toml`
//! (in `$CODEX_HOME` and the project's `.codex/` folders), its hook input and its
//! strictly read output, and its host mode (`hookrig emit --dialect codex`).

pub(crate) mod events;
mod host;
mod install;
mod loader;
mod plugins;
mod protocol;
mod wire;

pub(crate) use host::HOST;
pub(crate) use install::INSTALL;
pub(crate) use loader::load;
pub use loader::{CODEX_HOME_ENV, CodexHook, codex_home, codex_matcher};
pub use protocol::CodexProtocol;
