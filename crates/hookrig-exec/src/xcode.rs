//! The xcode protocol: how its hooks read an event and how their replies are read.

use hookrig_config::XcodeHook;
use hookrig_core::{Failure, FailureKind, Invocation, Reply};

use crate::command::Limits;
use crate::process::{EnvPolicy, ProcessOutput};

pub(crate) fn stdin(def: &XcodeHook, hook: &str, invocation: &Invocation) -> Vec<u8> {
    let _ = def;
    crate::native::stdin(hook, invocation)
}

#[allow(clippy::unnecessary_wraps, reason = "filled in by the x-code dialect")]
pub(crate) fn prepare(def: &XcodeHook) -> Result<(), String> {
    let _ = def;
    Ok(())
}

pub(crate) fn env(
    def: &XcodeHook,
    hook: &str,
    invocation: &Invocation,
    configured: &[(String, String)],
) -> EnvPolicy {
    let _ = def;
    crate::native::env(hook, &invocation.context, configured)
}

pub(crate) fn reply(
    def: &XcodeHook,
    hook: &str,
    limits: &Limits,
    invocation: &Invocation,
    output: &ProcessOutput,
) -> Reply {
    let _ = def;
    let _ = (limits, invocation, output);
    Reply::Failure(Failure {
        kind: FailureKind::Spawn,
        message: format!("hook {hook}: the xcode dialect is not implemented yet"),
    })
}
