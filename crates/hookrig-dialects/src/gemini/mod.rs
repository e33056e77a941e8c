//! Gemini CLI's dialect: the `hooks` of its `settings.json` files, its hook input and
//! output, and its host mode (`hookrig emit --dialect gemini`). docs/dialects/gemini.md
//! gives the source of each rule.

pub(crate) mod events;
mod extensions;
mod host;
mod install;
mod loader;
mod protocol;
mod wire;

pub(crate) use host::HOST;
pub(crate) use install::INSTALL;
pub use loader::{
    DEFAULT_SYSTEM_SETTINGS, GeminiHook, SYSTEM_SETTINGS_ENV,
    system_settings_path as gemini_system_settings_path,
};
pub(crate) use loader::{State, load};
pub use protocol::GeminiProtocol;
