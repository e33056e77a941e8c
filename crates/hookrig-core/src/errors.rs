//! Errors of hookrig-core.

use thiserror::Error;

use crate::event::BusShape;

/// A matcher pattern that is not a valid regex.
#[derive(Debug, Error)]
#[error("invalid matcher regex `{pattern}`")]
pub struct MatcherError {
    /// The pattern as written.
    pub pattern: String,
    /// The regex engine's explanation.
    #[source]
    pub source: Box<regex::Error>,
}

/// An event name with a version the catalog does not declare for that event
/// (`tool.before@v2`). It is not a custom event: the hooks of the event it names would
/// be skipped without a word.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{event} has no version {version} (dispatched versions: {dispatched})")]
pub struct UnknownVersionError {
    /// The event, as the catalog names it.
    pub event: String,
    /// The version asked for.
    pub version: String,
    /// The versions the catalog declares, comma-separated.
    pub dispatched: String,
}

/// An alias that cannot be added to an [`crate::EventNames`] table.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NameConflict {
    /// The event it was to name is not in the catalog.
    #[error("`{name}` cannot be a name of {event}: {event} is not in the catalog")]
    UnknownEvent {
        /// The alias.
        name: String,
        /// The event it was to name.
        event: String,
    },
    /// The name already names another event (as an alias or as its canonical name).
    #[error("`{name}` cannot be a name of {event}: it already names {other}")]
    Taken {
        /// The alias.
        name: String,
        /// The event it was to name.
        event: String,
        /// The event it names.
        other: String,
    },
}

/// A name that is no dialect's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown dialect `{0}`")]
pub struct UnknownDialect(pub String);

/// A misuse of the in-process bus, or a handler failure that aborts a call because its
/// subscription asked for `FailureMode::Fail`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BusError {
    /// `emit`, `transform` or `veto` called on an event of another shape.
    #[error("`{called}` called on {event}, a {shape} event (use `{}`)", .shape.method())]
    WrongShape {
        /// The event, as the catalog names it.
        event: String,
        /// The event's shape.
        shape: BusShape,
        /// The method that was called.
        called: &'static str,
    },
    /// A handler of one shape subscribed to an event of another.
    #[error("a {handler} handler cannot subscribe to {event}, a {shape} event")]
    HandlerShape {
        /// The event, as the catalog names it.
        event: String,
        /// The event's shape.
        shape: BusShape,
        /// The handler's shape.
        handler: BusShape,
    },
    /// A versioned name whose version the catalog does not dispatch.
    #[error("{event} has no version {version} (dispatched versions: {dispatched})")]
    UnknownVersion {
        /// The event, as the catalog names it.
        event: String,
        /// The version asked for.
        version: String,
        /// The versions the catalog declares, comma-separated.
        dispatched: String,
    },
    /// A handler whose subscription has failure mode `fail` returned an error or
    /// panicked.
    #[error("plugin `{plugin_id}` failed on {event}: {message}")]
    HandlerFailed {
        /// The plugin that subscribed the handler.
        plugin_id: String,
        /// The event the handler subscribed to, with its version.
        event: String,
        /// The handler's error, or `panicked: ...`.
        message: String,
    },
}

/// A plugin that could not be installed, or an in-process tool that failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PluginError {
    /// `register` returned an error or panicked; nothing it registered was kept.
    #[error("plugin `{plugin_id}` failed to register: {message}")]
    RegisterFailed {
        /// The plugin.
        plugin_id: String,
        /// Its error, or `panicked: ...`.
        message: String,
    },
    /// A plugin of this id is installed already.
    #[error("a plugin with id `{plugin_id}` is installed already")]
    AlreadyInstalled {
        /// The id.
        plugin_id: String,
    },
    /// A tool name that another tool has.
    #[error("tool `{tool}` exists already (added by plugin `{owner}`)")]
    ToolExists {
        /// The name.
        tool: String,
        /// The plugin that added the existing tool.
        owner: String,
    },
    /// A tool schema that is not a JSON object.
    #[error("the input schema of tool `{tool}` is not a JSON object")]
    ToolSchema {
        /// The tool.
        tool: String,
    },
    /// A tool's handler returned an error or panicked.
    #[error("tool `{tool}` of plugin `{plugin_id}` failed: {message}")]
    ToolFailed {
        /// The plugin that added the tool.
        plugin_id: String,
        /// The tool.
        tool: String,
        /// Its error, or `panicked: ...`.
        message: String,
    },
}
