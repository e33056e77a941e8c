//! Cursor's dialect: its `hooks.json` files (enterprise, user and project), its hook input
//! and output, its events, and its host mode (`hookrig emit --dialect cursor`).

pub(crate) mod events;
mod host;
mod install;
mod loader;
mod protocol;
mod wire;

pub(crate) use host::HOST;
pub(crate) use install::{INSTALL, third_party_twice};
pub(crate) use loader::load;
#[cfg(test)]
pub(crate) use protocol::{CursorHook, CursorProtocol};
