//! x-code's dialect: plugin directories with `plugin.json`, plugin packages, its hook
//! payload and reply, and its host mode.

pub(crate) mod events;
mod host;
mod loader;
mod package;
mod protocol;
mod state;
mod webhook;
mod wire;

pub(crate) use host::HOST;
pub use loader::XcodeHook;
pub(crate) use loader::{JsonFile, load, read_json};
pub(crate) use package::push as push_package;
pub use package::{
    Package, PackageCheck, PackageFile, PackageRef, PackageWebhook, Registrable, check_package,
    registrable, valid_package_id,
};
pub use protocol::XcodeProtocol;
pub use webhook::{WEBHOOK_EVENTS, webhook_event_allowed};
