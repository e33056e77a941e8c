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
