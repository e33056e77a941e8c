//! The hygge protocol: how its hooks read an event and how their replies are read.

use hookrig_core::{Failure, FailureKind, Invocation, Reply};

use crate::command::Limits;
use crate::process::{EnvPolicy, ProcessOutput};

pub(crate) fn stdin(hook: &str, invocation: &Invocation) -> Vec<u8> {
    crate::native::stdin(hook, invocation)
}

pub(crate) fn env(
    hook: &str,
    invocation: &Invocation,
    configured: &[(String, String)],
) -> EnvPolicy {
    crate::native::env(hook, &invocation.context, configured)
}

pub(crate) fn reply(
    hook: &str,
    limits: &Limits,
    invocation: &Invocation,
    output: &ProcessOutput,
) -> Reply {
    let _ = (limits, invocation, output);
    Reply::Failure(Failure {
        kind: FailureKind::Spawn,
        message: format!("hook {hook}: the hygge dialect is not implemented yet"),
    })
}
