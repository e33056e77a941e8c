//! The core of hookrig: events, payloads, verdicts, matchers, the registry, the
//! dispatcher, the in-process event bus ([`Bus`]) and the Rust plugin API
//! ([`Plugin`]). It must not do I/O, start an async runtime or depend on another hookrig
//! crate: handlers that run processes or talk HTTP live in other crates and reach the
//! dispatcher through the [`Handler`] trait.
//! [`Registry::attach_bus`] makes a bus's subscriptions part of the dispatcher's
//! chain, so plugins and hooks on one event run in one order. Core knows no dialect:
//! its catalog ([`CATALOG`]) holds canonical names, and the dialects' names of events
//! come from above as an [`EventNames`] table (hookrig-dialects builds it).
//!
//! ```no_run
//! use std::sync::Arc;
//! use hookrig_core::{dispatch, Event, EventContext, EventName, Payload, Registry};
//! # struct Sink;
//! # impl hookrig_core::AsyncSink for Sink {
//! #     fn submit(&self, _: hookrig_core::BoxFuture<hookrig_core::AsyncCompletion>) -> bool { false }
//! # }
//! # async fn run() {
//! let registry = Registry::new(); // filled by hookrig-config
//! let event = Event {
//!     context: Arc::new(EventContext {
//!         name: EventName::resolve("tool.before"),
//!         session_id: "s1".into(),
//!         cwd: "/work".into(),
//!         env: None,
//!     }),
//!     payload: Payload::new(),
//! };
//! let dispatched = dispatch(&registry, event, &Sink).await;
//! println!("{}", dispatched.decision.as_str());
//! # }
//! ```

mod bus;
mod diagnostic;
mod dialect;
mod dispatcher;
mod duration;
mod errors;
mod event;
mod hook;
mod matcher;
mod outcome;
mod payload;
mod plugin;
mod record;
mod registry;
pub mod text;
mod verdict;

pub use bus::{
    Bus, BusHandler, FailureMode, HandlerError, SubscribeOptions, Subscription, VetoOutcome,
    VetoReply,
};
pub use diagnostic::{Diagnostic, LineIndex, Severity, error_chain, json_offset, line_col};
pub use dialect::Dialect;
pub use dispatcher::{
    AsyncCompletion, AsyncSink, Decision, Dispatched, Event, Planned, Stopped, dispatch, plan,
};
pub use duration::display_duration;
pub use errors::{
    BusError, MatcherError, NameConflict, PluginError, UnknownDialect, UnknownVersionError,
};
pub use event::{BusShape, CATALOG, CatalogEntry, EventKind, EventName, EventNames};
pub use hook::{
    BoxFuture, EventContext, FILE_NAME_OF, Handler, Hook, HookSpec, HostEnv, Invocation, Level,
    Mode, Report, Source,
};
pub use matcher::Matcher;
pub use outcome::{Outcome, OutcomeHook, OutcomeStop, duration_ms};
pub use payload::Payload;
pub use plugin::{
    BusEmitter, LogLevel, LogSink, Logger, MemoryView, Plugin, PluginBus, PluginContext,
    PluginHost, PluginTools, SessionView, Tool, Tools,
};
pub use record::{HookRecord, HookResult, SkipReason};
pub use registry::Registry;
pub use verdict::{Action, Failure, FailureKind, OnError, Reply, Stop, Verdict};
