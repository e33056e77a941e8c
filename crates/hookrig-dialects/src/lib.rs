//! The dialects hookrig speaks, one folder each: `native`, `claude`, `hygge`, `xcode`,
//! `hence` and `hermit`. A dialect owns everything that is its own: how its config files
//! become hook definitions, its wire types, how an event is presented to its hooks and
//! their replies read, its host mode (how a host of that dialect calls hookrig and reads
//! the answer) and its event names. This crate must not dispatch events, record runs or
//! parse command lines: the core dispatches, the runtime records, the binary owns argv.
//!
//! ```no_run
//! use hookrig_core::Dialect;
//! use hookrig_dialects::Host;
//!
//! let host = Host::of(Dialect::Claude).expect("Claude Code is a host");
//! let input = host.read(None, br#"{"hook_event_name": "PreToolUse"}"#)?;
//! println!("{}", input.event);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod claude;
mod errors;
mod hence;
mod host;
mod hygge;
mod native;
mod protocol;
mod xcode;

pub use claude::ClaudeProtocol;
pub use errors::HostError;
pub use hence::HenceProtocol;
pub use host::{HOSTS, Host, HostAnswer, HostInput};
pub use hygge::HyggeProtocol;
pub use native::NativeProtocol;
pub use protocol::hook_protocol;
pub use xcode::XcodeProtocol;
