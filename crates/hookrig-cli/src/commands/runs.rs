//! `hookrig runs` and `hookrig why`: reading the ledger.

use hookrig_runtime::Scope;
use hookrig_store::Store;

use crate::cli::RunsArgs;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{json_or_text, print, print_json};

/// The scope's ledger, opened for reading (`runs`, `why`, `plugins`); an error with
/// `--no-ledger`.
pub(crate) fn ledger(scope: &Scope) -> Result<Store, ExpectedError> {
    let path = scope.ledger().ok_or(ExpectedError::LedgerDisabled)?;
    Ok(hookrig_runtime::ledger::open_for_reading(path)?)
}

pub(crate) fn list(scope: &Scope, args: &RunsArgs) -> Result<u8, ExpectedError> {
    let (event, agent) = (args.event.as_deref(), args.agent.as_deref());
    let emits =
        hookrig_runtime::ledger::recent(&ledger(scope)?, args.limit, event, agent, args.shadow)?;
    if args.json.json {
        print_json(&emits)?;
        return Ok(exit_codes::PROCEED);
    }
    if emits.is_empty() {
        print(if args.shadow {
            "(no run where a shadow hook disagreed)\n"
        } else {
            "(no runs recorded)\n"
        })?;
        return Ok(exit_codes::PROCEED);
    }
    print(&hookrig_runtime::ledger::runs_table(&emits))?;
    Ok(exit_codes::PROCEED)
}

pub(crate) fn why(scope: &Scope, run_id: &str, json: bool) -> Result<u8, ExpectedError> {
    let ledger = ledger(scope)?;
    let run_id = run_id.trim().to_ascii_lowercase();
    let detail = ledger
        .emits()
        .detail(&run_id)?
        .ok_or_else(|| ExpectedError::UnknownRun(run_id.clone()))?;
    json_or_text(json, &detail.emit, hookrig_runtime::ledger::why_text)?;
    Ok(exit_codes::PROCEED)
}
