//! One subscription of a JavaScript plugin as an entry of the chain: a hook of its own,
//! at the subscription's priority and on its one event, answered by the plugin's warm
//! worker, which runs that handler alone.
//!
//! The entries of one plugin share what belongs to the plugin: its workers (one process
//! per plugin and agent, whatever the number of its handlers, so that its handlers
//! share their state as they do in OpenHermit) and its trust (the user approves the
//! plugin's files, not the handlers its code happens to register). Both are keyed by
//! the plugin as one hook, `ID:plugin`, which each entry carries.

use hookrig_core::{Dialect, Invocation, Reply};
use hookrig_exec::process::{EnvPolicy, ProcessOutput};
use hookrig_exec::{Limits, Protocol};

use crate::definition::HookDef;
use crate::native::NativeProtocol;
use crate::protocol::DialectProtocol;

/// What makes a chain entry one subscription of a JavaScript plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginSubscription {
    /// The plugin as one hook, `ID:plugin`: the name its workers' pool and its trust
    /// are kept under.
    pub plugin: String,
    /// The handler's index in the plugin's registration order, which the worker's
    /// request names (`"subscription": N`).
    pub handler: u32,
    /// The trust document of the plugin as one hook ([`crate::definition_document`]).
    pub(crate) document: String,
}

/// The protocol of a subscription's entry: the native protocol the plugin host speaks,
/// carrying the subscription.
#[derive(Debug, Clone)]
pub(crate) struct SubscriptionProtocol(pub(crate) PluginSubscription);

impl Protocol for SubscriptionProtocol {
    fn stdin(&self, hook: &str, invocation: &Invocation) -> Vec<u8> {
        NativeProtocol.stdin(hook, invocation)
    }

    fn env(
        &self,
        hook: &str,
        invocation: &Invocation,
        configured: &[(String, String)],
    ) -> EnvPolicy {
        NativeProtocol.env(hook, invocation, configured)
    }

    fn reply(
        &self,
        hook: &str,
        limits: &Limits,
        invocation: &Invocation,
        output: &ProcessOutput,
    ) -> Reply {
        NativeProtocol.reply(hook, limits, invocation, output)
    }
}

impl DialectProtocol for SubscriptionProtocol {
    fn dialect(&self) -> Dialect {
        NativeProtocol.dialect()
    }

    fn definition(&self) -> String {
        NativeProtocol.definition()
    }
}

/// The plugin subscription `def` is an entry of, `None` for every other hook.
pub fn plugin_subscription(def: &HookDef) -> Option<&PluginSubscription> {
    def.protocol_as::<SubscriptionProtocol>().map(|p| &p.0)
}
