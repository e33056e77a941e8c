//! `hookrig runs` and `hookrig why`: reading the ledger, the shared PostgreSQL one when
//! the user's own `config.toml` names it (docs/postgres.md, "Reading the ledger").

use hookrig_runtime::Scope;
use hookrig_store::{LedgerView, Store};

use crate::cli::RunsArgs;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{json_or_text, print, print_json, warn};

/// The scope's ledger file, opened for reading (`test`, `plugins`); an error with
/// `--no-ledger`.
pub(crate) fn ledger(scope: &Scope) -> Result<Store, ExpectedError> {
    let path = scope.ledger().ok_or(ExpectedError::LedgerDisabled)?;
    Ok(hookrig_runtime::ledger::open_for_reading(path)?)
}

/// The ledger `runs` and `why` read: the PostgreSQL ledger the user's own
/// `[store] url` names, with this machine's file beside it, else the file alone; an
/// error with `--no-ledger`. Only the user's `config.toml` is read for it: a host's
/// hooks may run these commands, so neither a variable nor a project chooses the store.
pub(crate) fn view(scope: &Scope) -> Result<LedgerView, ExpectedError> {
    let path = scope.ledger().ok_or(ExpectedError::LedgerDisabled)?;
    let database = hookrig_runtime::ledger::user_database(&scope.env.config_home);
    hookrig_runtime::ledger::open_view(path, database.as_deref()).map_err(|err| {
        if database.is_some() {
            ExpectedError::SharedLedger {
                config: scope.env.config_home.join("hookrig").join("config.toml"),
                error: crate::output::chain(&err),
            }
        } else {
            err.into()
        }
    })
}

pub(crate) fn list(scope: &Scope, args: &RunsArgs) -> Result<u8, ExpectedError> {
    let (event, agent) = (args.event.as_deref(), args.agent.as_deref());
    let view = view(scope)?;
    let recent = hookrig_runtime::ledger::recent_in(&view, args.limit, event, agent, args.shadow)?;
    if args.json.json {
        print_json(&recent.emits)?;
        return Ok(exit_codes::PROCEED);
    }
    if recent.emits.is_empty() {
        print(if args.shadow {
            "(no run where a shadow hook disagreed)\n"
        } else {
            "(no runs recorded)\n"
        })?;
        return Ok(exit_codes::PROCEED);
    }
    print(&hookrig_runtime::ledger::runs_table(&recent.emits))?;
    if recent.local_only > 0 {
        let local = view
            .local()
            .map(hookrig_store::Ledger::location)
            .unwrap_or_default();
        warn(format_args!(
            "{} of these runs are only in this machine's ledger {local} (emits answered with no engine); `hookrig store migrate --to URL`, with the URL of your [store] url, copies them into the shared ledger {}",
            recent.local_only,
            view.main().location(),
        ));
    }
    Ok(exit_codes::PROCEED)
}

pub(crate) fn why(scope: &Scope, run_id: &str, json: bool) -> Result<u8, ExpectedError> {
    let view = view(scope)?;
    let run_id = run_id.trim().to_ascii_lowercase();
    let detail = view
        .detail(&run_id)?
        .ok_or_else(|| ExpectedError::UnknownRun(run_id.clone()))?;
    json_or_text(json, &detail.emit, hookrig_runtime::ledger::why_text)?;
    Ok(exit_codes::PROCEED)
}
