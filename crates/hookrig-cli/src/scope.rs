//! The runtime's [`Scope`] from this command line: the global `--ledger` and
//! `--no-ledger`, and the command's own `--cwd`, `--agent` and `--plan`.

use std::path::{Path, PathBuf};

use hookrig_runtime::{RuntimeError, Scope, ScopeArgs};

use crate::cli::GlobalArgs;

/// The scope of a command run with these flags; what they leave out comes from the
/// environment.
pub(crate) fn resolve(
    global: &GlobalArgs,
    cwd: Option<&Path>,
    agent: Option<String>,
    plan: Option<PathBuf>,
) -> Result<Scope, RuntimeError> {
    Scope::resolve(ScopeArgs {
        cwd: cwd.map(Path::to_owned),
        agent,
        plan,
        store: global.ledger.clone(),
        no_ledger: global.no_ledger,
    })
}
