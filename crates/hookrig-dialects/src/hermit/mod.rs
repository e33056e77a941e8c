//! OpenHermit's dialect: its event names, the versioned names its plugins subscribe
//! with (`session.opened@v1`), and the shape of each event's handlers on the
//! in-process bus (listener, transform, veto), and its JavaScript plugins (`plugin`): a
//! registered directory with `manifest.json`, run by hookrig's plugin host under Node.js,
//! each of its subscriptions an entry of the chain (`description`, `subscription`).

pub(crate) mod description;
pub(crate) mod events;
pub(crate) mod plugin;
pub(crate) mod subscription;

pub use description::{Described, PluginTool, Subscription, describe, remember, run_host};
pub use plugin::{PluginHost, PluginWorker, package_digest};
pub use subscription::{PluginSubscription, plugin_subscription};
