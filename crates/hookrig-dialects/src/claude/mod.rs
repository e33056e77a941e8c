//! Claude Code's dialect: its settings files, its hook input and output, and its host
//! mode (the format Codex, Cursor and Gemini read as well).

mod discovery;
pub(crate) mod events;
mod fields;
mod host;
mod install;
mod loader;
mod options;
mod plugins;
mod policy;
mod protocol;
mod rule;
mod session_end;
mod skills_dir;
mod wire;

pub(crate) use discovery::load;
pub(crate) use host::HOST;
pub(crate) use install::INSTALL;
pub(crate) use loader::State;
pub use loader::{
    ClaudeHook, ClaudePlugin, DEFAULT_MANAGED_SETTINGS, MANAGED_SETTINGS_ENV, claude_matcher,
    claude_settings_to_trust, managed_settings_path,
};
pub use protocol::ClaudeProtocol;
