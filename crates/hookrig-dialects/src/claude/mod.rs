//! Claude Code's dialect: its settings files, its hook input and output, and its host
//! mode (the format Codex, Cursor and Gemini read as well).

mod host;
mod protocol;

pub(crate) use host::HOST;
pub use protocol::ClaudeProtocol;
