//! hygge's dialect: its `hooks.toml` layers, its `Input` and `Action`, and its host mode.

mod host;

pub(crate) use host::HOST;
