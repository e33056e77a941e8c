//! The claude protocol: how its hooks read an event and how their replies are read.

use hookrig_config::ClaudeHook;
use hookrig_core::{Failure, FailureKind, Invocation, Reply};

use crate::command::Limits;
use crate::process::{EnvPolicy, ProcessOutput};

pub(crate) fn stdin(def: &ClaudeHook, hook: &str, invocation: &Invocation) -> Vec<u8> {
    let _ = def;
    crate::native::stdin(hook, invocation)
}

pub(crate) fn env(
    def: &ClaudeHook,
    hook: &str,
    invocation: &Invocation,
    configured: &[(String, String)],
) -> EnvPolicy {
    let _ = def;
    crate::native::env(hook, &invocation.context, configured)
}

pub(crate) fn reply(
    def: &ClaudeHook,
    hook: &str,
    limits: &Limits,
    invocation: &Invocation,
    output: &ProcessOutput,
) -> Reply {
    let _ = def;
    let _ = (limits, invocation, output);
    Reply::Failure(Failure {
        kind: FailureKind::Spawn,
        message: format!("hook {hook}: the claude dialect is not implemented yet"),
    })
}
