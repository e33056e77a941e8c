//! OpenHermit's dialect: its event names, the versioned names its plugins subscribe
//! with (`session.opened@v1`), and the shape of each event's handlers on the
//! in-process bus (listener, transform, veto), and its JavaScript plugins (`plugin`): a
//! registered directory with `manifest.json`, run by hookrig's plugin host under Node.js.

pub(crate) mod events;
pub(crate) mod plugin;

pub use plugin::PluginHost;
