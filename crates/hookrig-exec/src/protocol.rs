//! The protocol of a hook's dialect: how an event is presented to a command or HTTP hook
//! and how its reply is read. hookrig-exec runs processes and sends requests; each
//! dialect (in hookrig-dialects) implements [`Protocol`], so that nothing here knows one
//! dialect from another.

use std::borrow::Cow;
use std::ffi::OsString;
use std::fmt;

use hookrig_core::{EventContext, Failure, FailureKind, Invocation, Reply};

use crate::command::{CommandDef, Limits};
use crate::process::{EnvPolicy, ProcessOutput, Termination};

/// How one dialect presents an event to its hooks and reads their replies.
pub trait Protocol: fmt::Debug + Send + Sync {
    /// The bytes written to a command hook's stdin, and the body of the
    /// `POST` to an HTTP hook.
    fn stdin(&self, hook: &str, invocation: &Invocation) -> Vec<u8>;

    /// Arguments appended to the hook's command line (`$1 $2 ...` of a shell line).
    fn args(&self, _invocation: &Invocation) -> Vec<OsString> {
        Vec::new()
    }

    /// The shell line a `Shell` command runs, and the environment variables it reads:
    /// a dialect whose commands hold variables known only when the event happens
    /// expands them here.
    fn command_line<'a>(
        &self,
        line: &'a str,
        _invocation: &Invocation,
    ) -> (Cow<'a, str>, Vec<(String, String)>) {
        (Cow::Borrowed(line), Vec::new())
    }

    /// The shell a `Shell` command's line runs with (`SHELL -c LINE`): `/bin/sh` unless
    /// the dialect's host runs its hook lines with another shell.
    fn shell(&self) -> OsString {
        OsString::from(crate::child::SHELL)
    }

    /// Whether the hook runs for this invocation at all. A dialect whose hooks carry a
    /// condition on the event beyond the matcher (Claude Code's `if` rule on the tool
    /// input) says no when it does not hold: the hook is then answered as a plain allow
    /// without being started.
    fn runs_for(&self, _invocation: &Invocation) -> bool {
        true
    }

    /// Who and what the debug log lines of a run name: by default the hook and the
    /// canonical event.
    fn log_names<'a>(&'a self, hook: &'a str, event: &'a str) -> (&'a str, &'a str) {
        (hook, event)
    }

    /// The hook's environment, given the variables its definition sets.
    fn env(
        &self,
        hook: &str,
        invocation: &Invocation,
        configured: &[(String, String)],
    ) -> EnvPolicy;

    /// Anything that must exist before the hook starts. An error is the hook's failure
    /// to start.
    fn prepare(&self, _command: &CommandDef) -> Result<(), String> {
        Ok(())
    }

    /// Whether a hook that exited 0 answers on stdout; a dialect whose hooks print only
    /// for the log says no, so that a reply cut at the stdout cap is not a failure there.
    fn reads_stdout(&self) -> bool {
        true
    }

    /// What the process did, read as a reply. [`read_reply`] is what handlers call: it
    /// applies the rules every dialect shares first.
    fn reply(
        &self,
        hook: &str,
        limits: &Limits,
        invocation: &Invocation,
        output: &ProcessOutput,
    ) -> Reply;

    /// A 2xx HTTP response read as a reply, when the dialect's host reads an HTTP body
    /// by rules of its own (`output` holds the body as the stdout of a command that
    /// exited 0); `None`, the default, reads it exactly as that command's stdout.
    fn http_reply(
        &self,
        _hook: &str,
        _limits: &Limits,
        _invocation: &Invocation,
        _output: &ProcessOutput,
    ) -> Option<Reply> {
        None
    }

    /// An HTTP hook that got no answer (a connection error, a timeout) as a reply: by
    /// default the failure itself, which the hook's failure policy turns into allow or
    /// deny; a dialect whose host decides such a hook otherwise on some events says so
    /// here.
    fn http_failure(&self, _invocation: &Invocation, failure: Failure) -> Reply {
        Reply::Failure(failure)
    }

    /// The value sent for an HTTP hook's header as configured (a dialect may expand
    /// variables in it, read from the environment hooks of `context` start from).
    fn header_value(&self, value: &str, _context: &EventContext) -> String {
        value.to_owned()
    }
}

/// Reads what the process did as a reply, through `protocol`.
pub fn read_reply(
    protocol: &dyn Protocol,
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
        && protocol.reads_stdout()
    {
        return Reply::Failure(Failure {
            kind: FailureKind::Malformed,
            message: format!(
                "hook {hook}: reply is larger than the {} stdout cap",
                cap_text(limits.stdout_cap)
            ),
        });
    }
    protocol.reply(hook, limits, invocation, output)
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
