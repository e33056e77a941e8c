//! Dialect protocols: how an event is presented to a command hook and how its reply is
//! read. The core never sees these rules; each dialect is one module here.

use std::borrow::Cow;
use std::ffi::OsString;

use hookrig_config::{CommandDef as Command, ProtocolDef};
use hookrig_core::{Invocation, Reply};

use crate::command::Limits;
use crate::process::{EnvPolicy, ProcessOutput};
use crate::{claude, hence, hygge, native, xcode};

/// The bytes written to the hook's stdin.
pub(crate) fn stdin(protocol: &ProtocolDef, hook: &str, invocation: &Invocation) -> Vec<u8> {
    match protocol {
        ProtocolDef::Native => native::stdin(hook, invocation),
        ProtocolDef::Hygge => hygge::stdin(hook, invocation),
        ProtocolDef::Xcode(def) => xcode::stdin(def, hook, invocation),
        ProtocolDef::Claude(def) => claude::stdin(def, hook, invocation),
        ProtocolDef::Hence(def) => hence::stdin(def, hook, invocation),
    }
}

/// Arguments appended to the hook's command line (Hence passes the plan, task and agent
/// as `$1 $2 $3`).
pub(crate) fn extra_args(protocol: &ProtocolDef, invocation: &Invocation) -> Vec<OsString> {
    match protocol {
        ProtocolDef::Hence(def) => hence::args(def, invocation),
        _ => Vec::new(),
    }
}

/// The shell line a `Shell` command runs: x-code expands its variables here, since
/// `${cwd}` is only known when the event happens.
pub(crate) fn command_line<'a>(
    protocol: &ProtocolDef,
    line: &'a str,
    invocation: &Invocation,
) -> Cow<'a, str> {
    match protocol {
        ProtocolDef::Xcode(def) => Cow::Owned(xcode::command_line(def, line, invocation)),
        _ => Cow::Borrowed(line),
    }
}

/// Who and what the debug log lines of a run name: the hook and the canonical event, or
/// for x-code the plugin id and x-code's event name, as x-code's own log has them.
pub(crate) fn log_names<'a>(
    protocol: &'a ProtocolDef,
    hook: &'a str,
    event: &'a str,
) -> (&'a str, &'a str) {
    match protocol {
        ProtocolDef::Xcode(def) => (&def.plugin_id, &def.event),
        _ => (hook, event),
    }
}

/// The hook's environment.
pub(crate) fn env(
    protocol: &ProtocolDef,
    hook: &str,
    invocation: &Invocation,
    configured: &[(String, String)],
) -> EnvPolicy {
    let context = &invocation.context;
    match protocol {
        ProtocolDef::Native => native::env(hook, context, configured),
        ProtocolDef::Hygge => hygge::env(hook, invocation, configured),
        ProtocolDef::Xcode(def) => xcode::env(def, hook, invocation, configured),
        ProtocolDef::Claude(def) => claude::env(def, hook, invocation, configured),
        ProtocolDef::Hence(def) => hence::env(def, hook, invocation, configured),
    }
}

/// Anything that must exist before the hook starts (x-code creates `${pluginDataDir}` on
/// first use). An error is the hook's failure to start.
pub(crate) fn prepare(protocol: &ProtocolDef, command: &Command) -> Result<(), String> {
    match protocol {
        ProtocolDef::Xcode(def) => xcode::prepare(def, command),
        _ => Ok(()),
    }
}

/// Reads what the process did as a reply.
pub(crate) fn reply(
    protocol: &ProtocolDef,
    hook: &str,
    limits: &Limits,
    invocation: &Invocation,
    output: &ProcessOutput,
) -> Reply {
    match protocol {
        ProtocolDef::Native => native::reply(hook, limits, output),
        ProtocolDef::Hygge => hygge::reply(hook, limits, invocation, output),
        ProtocolDef::Xcode(def) => xcode::reply(def, hook, limits, invocation, output),
        ProtocolDef::Claude(def) => claude::reply(def, hook, limits, invocation, output),
        ProtocolDef::Hence(def) => hence::reply(def, hook, limits, invocation, output),
    }
}
