//! Bus subscriptions as hooks of the dispatcher's chain, so that a Rust plugin and a
//! shell hook on one event see one ordered chain (see `Registry::attach_bus`).

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use super::{Bus, FailureMode, HandlerError, HandlerFn, PLUGIN_ERROR, Sub, VetoReply, invoke};
use crate::errors::BusError;
use crate::event::EventName;
use crate::hook::{BoxFuture, Handler, Hook, HookSpec, Invocation, Level, Mode, Report, Source};
use crate::matcher::Matcher;
use crate::payload::Payload;
use crate::verdict::{Action, Failure, FailureKind, OnError, Reply, Verdict};

/// The dialect of the hooks that stand for bus subscriptions.
pub(crate) const DIALECT: crate::Dialect = crate::Dialect::Plugin;

impl Bus {
    /// The subscriptions to `event` as they are now, each as a hook, in the order the
    /// bus took them (the dispatcher orders by priority itself).
    pub(crate) fn hooks_for(&self, event: &EventName) -> Vec<Arc<Hook>> {
        let Ok(resolved) = self.resolve(event.as_str()) else {
            return Vec::new(); // a version the bus's catalog does not dispatch
        };
        let Some(chain) = self.inner.lock().get(&resolved).cloned() else {
            return Vec::new();
        };
        let mut subs = chain.to_vec();
        subs.sort_by_key(|sub| sub.id);
        subs.into_iter()
            .map(|sub| {
                Arc::new(Hook {
                    spec: spec(event, &sub),
                    handler: Arc::new(PluginHandler {
                        bus: self.clone(),
                        reporting: resolved.name != PLUGIN_ERROR,
                        sub,
                    }),
                })
            })
            .collect()
    }
}

fn spec(event: &EventName, sub: &Sub) -> HookSpec {
    let shape = match sub.handler {
        HandlerFn::Listener(_) => "listener",
        HandlerFn::Transform(_) => "transform",
        HandlerFn::Veto(_) => "veto",
    };
    HookSpec {
        name: sub.plugin_id.to_string(),
        events: vec![event.clone()],
        matcher: Matcher::Any,
        priority: sub.priority,
        mode: Mode::Sync,
        enabled: true,
        // `fail` stops the event as a fail-closed hook would; `skip` lets it go on.
        on_error: match sub.failure_mode {
            FailureMode::Skip => OnError::Allow,
            FailureMode::Fail => OnError::Deny,
        },
        // A plugin has no file: its source names the plugin instead.
        source: Source {
            path: PathBuf::from(format!("plugin:{}", sub.plugin_id)),
            dialect: DIALECT,
            level: Level::Global,
        },
        description: Some(format!("{shape} handler on {}", sub.label)),
        timeout: None,
        group: None,
        matcher_field: None,
        untrusted: None,
        shadow: false,
        side_effects: true,
    }
}

/// Runs one subscription's closure; its future is ready when returned.
struct PluginHandler {
    bus: Bus,
    sub: Sub,
    /// False for `plugin.error` itself: a failure there is never reported (recursion).
    reporting: bool,
}

impl fmt::Debug for PluginHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PluginHandler")
            .field("plugin_id", &self.sub.plugin_id)
            .field("event", &self.sub.label)
            .finish_non_exhaustive()
    }
}

impl Handler for PluginHandler {
    fn run(&self, invocation: Invocation) -> BoxFuture<Report> {
        let started = Instant::now();
        let reply = match invoke(|| answer(&self.sub.handler, &invocation.payload)) {
            Ok(verdict) => Reply::Verdict(verdict),
            Err(message) => Reply::Failure(self.failed(message)),
        };
        Box::pin(std::future::ready(Report::from_reply(
            reply,
            started.elapsed(),
        )))
    }
}

impl PluginHandler {
    /// A failure as the dispatcher records it. With `skip` the bus also emits
    /// `plugin.error`, as a bus call would.
    fn failed(&self, message: String) -> Failure {
        let error = BusError::HandlerFailed {
            plugin_id: self.sub.plugin_id.to_string(),
            event: self.sub.label.to_string(),
            message: message.clone(),
        };
        let message = match self.sub.failure_mode {
            FailureMode::Fail => error.to_string(),
            FailureMode::Skip => {
                if self.reporting {
                    self.bus.report(&self.sub, message);
                }
                format!("{error} (skipped)")
            }
        };
        Failure {
            kind: FailureKind::Plugin,
            message,
        }
    }
}

/// What a handler's answer means in the dispatcher's terms. A returned payload
/// replaces the payload whole, as it does on the bus.
fn answer(handler: &HandlerFn, payload: &Payload) -> Result<Verdict, HandlerError> {
    Ok(match handler {
        HandlerFn::Listener(f) => {
            f(payload)?;
            Verdict::allow()
        }
        HandlerFn::Transform(f) => f(payload)?.map_or_else(Verdict::allow, replace),
        HandlerFn::Veto(f) => match f(payload)? {
            VetoReply::Allow => Verdict::allow(),
            VetoReply::Replace(next) => replace(next),
            VetoReply::Deny { reason } => Verdict {
                reason,
                ..Verdict::with_action(Action::Deny)
            },
        },
    })
}

fn replace(payload: Payload) -> Verdict {
    Verdict {
        replace: Some(Box::new(payload)),
        ..Verdict::with_action(Action::Modify)
    }
}
