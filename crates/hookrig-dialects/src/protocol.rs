//! The protocol of each loaded hook: which dialect's [`Protocol`] presents its events
//! and reads its replies.

use std::sync::Arc;

use hookrig_config::ProtocolDef;
use hookrig_exec::Protocol;

use crate::claude::ClaudeProtocol;
use crate::hence::HenceProtocol;
use crate::hygge::HyggeProtocol;
use crate::native::NativeProtocol;
use crate::xcode::XcodeProtocol;

/// The protocol a hook declared with `def` runs under.
pub fn hook_protocol(def: &ProtocolDef) -> Arc<dyn Protocol> {
    match def {
        ProtocolDef::Native => Arc::new(NativeProtocol),
        ProtocolDef::Hygge => Arc::new(HyggeProtocol),
        ProtocolDef::Xcode(def) => Arc::new(XcodeProtocol(def.clone())),
        ProtocolDef::Claude(def) => Arc::new(ClaudeProtocol(def.clone())),
        ProtocolDef::Hence(def) => Arc::new(HenceProtocol(def.clone())),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::time::Duration;

    use hookrig_config::XcodeHook;
    use hookrig_core::{EventContext, EventName, FailureKind, Invocation, Payload, Reply};
    use hookrig_exec::{Leftovers, Limits, ProcessOutput, Termination, read_reply};

    use super::*;

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
        let xcode = ProtocolDef::Xcode(XcodeHook {
            plugin_id: "p@local".to_owned(),
            event: "PreToolUse".to_owned(),
            plugin_dir: PathBuf::from("/p"),
            data_dir: PathBuf::from("/d"),
            home: PathBuf::from("/h"),
            invalid_matcher: None,
        });
        for def in [ProtocolDef::Native, ProtocolDef::Hygge, xcode] {
            let protocol = hook_protocol(&def);
            let reply = read_reply(protocol.as_ref(), "big", &limits, &invocation, &output);
            let Reply::Failure(failure) = reply else {
                panic!("{def:?}: a truncated reply must be a failure, got {reply:?}");
            };
            assert_eq!(failure.kind, FailureKind::Malformed);
            assert_eq!(
                failure.message,
                "hook big: reply is larger than the 1 MiB stdout cap"
            );
        }
    }
}
