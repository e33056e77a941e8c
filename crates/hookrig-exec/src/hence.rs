//! The hence protocol: how its hooks read an event and how their replies are read.

use hookrig_config::HenceHook;
use hookrig_core::{Failure, FailureKind, Invocation, Reply};

use crate::command::Limits;
use crate::process::{EnvPolicy, ProcessOutput};

pub(crate) fn stdin(def: &HenceHook, hook: &str, invocation: &Invocation) -> Vec<u8> {
    let _ = def;
    crate::native::stdin(hook, invocation)
}

pub(crate) fn args(def: &HenceHook, invocation: &Invocation) -> Vec<std::ffi::OsString> {
    let _ = (def, invocation);
    Vec::new()
}

pub(crate) fn env(
    def: &HenceHook,
    hook: &str,
    invocation: &Invocation,
    configured: &[(String, String)],
) -> EnvPolicy {
    let _ = def;
    crate::native::env(hook, &invocation.context, configured)
}

pub(crate) fn reply(
    def: &HenceHook,
    hook: &str,
    limits: &Limits,
    invocation: &Invocation,
    output: &ProcessOutput,
) -> Reply {
    let _ = def;
    let _ = (limits, invocation, output);
    Reply::Failure(Failure {
        kind: FailureKind::Spawn,
        message: format!("hook {hook}: the hence dialect is not implemented yet"),
    })
}
