//! Dialect protocols: how an event is presented to a command hook and how its reply is
//! read. The core never sees these rules; each dialect is one module here.

use std::borrow::Cow;
use std::ffi::OsString;

use hookrig_config::{CommandDef as Command, ProtocolDef};
use hookrig_core::{Failure, FailureKind, Invocation, Reply};

use crate::command::Limits;
use crate::process::{EnvPolicy, ProcessOutput, Termination};
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

/// The shell line a `Shell` command runs, and the environment variables it reads: x-code
/// expands its variables here, since `${cwd}` is only known when the event happens.
pub(crate) fn command_line<'a>(
    protocol: &ProtocolDef,
    line: &'a str,
    invocation: &Invocation,
) -> (Cow<'a, str>, Vec<(String, String)>) {
    match protocol {
        ProtocolDef::Xcode(def) => {
            let (line, vars) = xcode::command_line(def, line, invocation);
            (Cow::Owned(line), vars)
        }
        _ => (Cow::Borrowed(line), Vec::new()),
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
    // A reply cut at the stdout cap is never read, whatever its start looks like: the
    // part cut off (a deny after megabytes of spaces) could change the decision, so it
    // is a failure that the hook's on_error (failure policy) decides.
    if output.stdout_truncated
        && matches!(output.termination, Termination::Exited(0))
        && reads_stdout(protocol)
    {
        return Reply::Failure(Failure {
            kind: FailureKind::Malformed,
            message: format!(
                "hook {hook}: reply is larger than the {} stdout cap",
                cap_text(limits.stdout_cap)
            ),
        });
    }
    match protocol {
        ProtocolDef::Native => native::reply(hook, limits, output),
        ProtocolDef::Hygge => hygge::reply(hook, limits, invocation, output),
        ProtocolDef::Xcode(def) => xcode::reply(def, hook, limits, invocation, output),
        ProtocolDef::Claude(def) => claude::reply(def, hook, limits, invocation, output),
        ProtocolDef::Hence(def) => hence::reply(def, hook, limits, invocation, output),
    }
}

/// Whether a successful hook's stdout is its reply: Hence hooks and x-code's
/// notification events print only for the log.
fn reads_stdout(protocol: &ProtocolDef) -> bool {
    match protocol {
        ProtocolDef::Native | ProtocolDef::Hygge | ProtocolDef::Claude(_) => true,
        ProtocolDef::Xcode(def) => xcode::reads_stdout(def),
        ProtocolDef::Hence(_) => false,
    }
}

/// A byte count as the cap is usually written: `1 MiB`, else `N bytes`.
fn cap_text(bytes: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::time::Duration;

    use hookrig_config::{ClaudeHook, XcodeHook};
    use hookrig_core::{EventContext, EventName, Payload};

    use super::*;

    // guards: a reply over the stdout cap that starts with whitespace was read as an
    // empty reply (allow), bypassing `on_error = "deny"`, in every dialect that reads
    // stdout (native, hygge, x-code, Claude Code); a truncated reply is a failure.
    #[test]
    fn a_truncated_reply_of_spaces_is_a_failure_in_every_dialect_that_reads_stdout() {
        let invocation = Invocation {
            context: Arc::new(EventContext {
                name: EventName::resolve("tool.before"),
                session_id: "s1".to_owned(),
                cwd: PathBuf::from("/work"),
            }),
            payload: Payload::from_map(serde_json::Map::new()),
        };
        let limits = Limits::default();
        let output = ProcessOutput {
            termination: Termination::Exited(0),
            stdout: vec![b' '; limits.stdout_cap],
            stderr: Vec::new(),
            stdout_truncated: true,
            stderr_truncated: false,
            leaked: false,
            leftovers: crate::reaper::Leftovers::default(),
            duration: Duration::from_millis(3),
        };
        let xcode = ProtocolDef::Xcode(XcodeHook {
            plugin_id: "p@local".to_owned(),
            event: "PreToolUse".to_owned(),
            plugin_dir: PathBuf::from("/p"),
            data_dir: PathBuf::from("/d"),
            home: PathBuf::from("/h"),
            invalid_matcher: None,
        });
        let claude = ProtocolDef::Claude(ClaudeHook {
            event: "PreToolUse".to_owned(),
            project_dir: Some(PathBuf::from("/project")),
            allowed_env_vars: Vec::new(),
            managed: false,
        });
        for protocol in [ProtocolDef::Native, ProtocolDef::Hygge, xcode, claude] {
            let reply = reply(&protocol, "big", &limits, &invocation, &output);
            let Reply::Failure(failure) = reply else {
                panic!("{protocol:?}: a truncated reply must be a failure, got {reply:?}");
            };
            assert_eq!(failure.kind, FailureKind::Malformed);
            assert_eq!(
                failure.message,
                "hook big: reply is larger than the 1 MiB stdout cap"
            );
        }
    }
}
