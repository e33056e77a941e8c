//! The protocol a loaded hook carries: its dialect's [`Protocol`] (how hookrig-exec
//! presents an event and reads the reply), plus what the rest of hookrig asks of a
//! dialect about a hook without knowing which dialect it is (its name, what its trust
//! hash covers, the variables of its command lines).
//!
//! A hook definition holds it as a trait object rather than an enum of dialects: a new
//! dialect is then a folder that implements this trait, with no match arm to add in the
//! loader, the trust hasher, `hookrig validate` or the handlers.

use std::any::Any;
use std::path::Path;

use hookrig_core::Dialect;
use hookrig_exec::Protocol;

/// What a dialect says about one of its hooks.
pub trait DialectProtocol: Protocol + Any {
    /// The dialect, as the Outcome and the ledger report it.
    fn dialect(&self) -> Dialect;

    /// The protocol's part of the hook's trust hash: everything of the protocol that
    /// decides what the hook does. Its text is kept exactly as it has been written since
    /// hooks were first trusted (`Native`, `Claude(ClaudeHook { .. })`), so that a
    /// trusted hook stays trusted.
    fn definition(&self) -> String;

    /// The variables a shell line of this hook sees that are known before it runs, as
    /// `(as written, value)`, for reading the line ahead of time (which script it runs,
    /// what trust hashes). `cwd` is the directory the hook is expected to run in, `None`
    /// when unknown. `None` when the dialect's loader already resolved the script its
    /// lines start with, so there is nothing more to read ahead.
    fn line_variables(&self, _cwd: Option<&Path>) -> Option<Vec<(&'static str, String)>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::time::Duration;

    use hookrig_core::{EventContext, EventName, FailureKind, Invocation, Payload, Reply};
    use hookrig_exec::{Leftovers, Limits, ProcessOutput, Termination, read_reply};

    use super::*;
    use crate::{
        ClaudeHook, ClaudeProtocol, GeminiHook, GeminiProtocol, HyggeProtocol, NativeProtocol,
        XcodeHook, XcodeProtocol,
    };

    // guards: a reply over the stdout cap that starts with whitespace was read as an
    // empty reply (allow), bypassing `on_error = "deny"`, in every dialect that reads
    // stdout; a truncated reply is a failure.
    #[test]
    fn a_truncated_reply_of_spaces_is_a_failure_in_every_dialect_that_reads_stdout() {
        let invocation = Invocation {
            context: Arc::new(EventContext {
                name: EventName::resolve("tool.before"),
                session_id: "s1".to_owned(),
                cwd: PathBuf::from("/work"),
                env: None,
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
            leftovers: Leftovers::default(),
            duration: Duration::from_millis(3),
        };
        let xcode = XcodeProtocol(XcodeHook {
            plugin_id: "p@local".to_owned(),
            event: "PreToolUse".to_owned(),
            plugin_dir: PathBuf::from("/p"),
            data_dir: PathBuf::from("/d"),
            home: PathBuf::from("/h"),
            invalid_matcher: None,
        });
        let claude = ClaudeProtocol(ClaudeHook {
            event: "PreToolUse".to_owned(),
            project_dir: Some(PathBuf::from("/project")),
            allowed_env_vars: Vec::new(),
            managed: false,
            condition: None,
            plugin: None,
        });
        let gemini = GeminiProtocol(GeminiHook {
            event: "BeforeTool".to_owned(),
            sequential: false,
        });
        let cursor = crate::cursor::CursorProtocol(crate::cursor::CursorHook {
            event: "preToolUse".to_owned(),
            dir: PathBuf::from("/project"),
            fail_closed: false,
            loop_limit: Some(5),
        });
        let protocols: [&dyn DialectProtocol; 6] = [
            &NativeProtocol,
            &HyggeProtocol,
            &xcode,
            &claude,
            &gemini,
            &cursor,
        ];
        for protocol in protocols {
            let reply = read_reply(protocol, "big", &limits, &invocation, &output);
            let Reply::Failure(failure) = reply else {
                panic!(
                    "{}: a truncated reply must be a failure, got {reply:?}",
                    protocol.dialect()
                );
            };
            assert_eq!(failure.kind, FailureKind::Malformed);
            assert_eq!(
                failure.message,
                "hook big: reply is larger than the 1 MiB stdout cap"
            );
        }
    }
}
