//! `hookrig emit EVENT`: read the host's input, emit the event through the runtime and
//! answer in the host's format.

use std::io::{IsTerminal, Read};

use hookrig_runtime::{Emit, EmitRequest, Suppress, event_dir, payload_agent};

use crate::cli::EmitArgs;
use crate::errors::ExpectedError;
use crate::scope::{Flags, Top};
use crate::{exit_codes, logging, output};

pub(crate) fn run(top: &Top, args: &EmitArgs) -> Result<u8, ExpectedError> {
    match run_event(top, args) {
        Err(err) if !matches!(err, ExpectedError::Stdout(_)) => {
            match args.dialect.failure(&output::chain(&err)) {
                Some(answer) => {
                    if let Some(text) = &answer.stderr {
                        eprint!("{text}");
                    }
                    output::print(&answer.stdout)?;
                    Ok(answer.exit_code)
                }
                None => Err(err),
            }
        }
        result => result,
    }
}

fn run_event(top: &Top, args: &EmitArgs) -> Result<u8, ExpectedError> {
    let input = args
        .dialect
        .read(args.event.as_deref(), &read_stdin(args.max_payload)?)?;
    let mut payload = input.payload;
    if let Some(tool) = &args.tool {
        payload.set_tool_name_if_missing(tool);
    }
    let cwd = event_dir(args.cwd.as_deref(), &payload)?;
    let scope = top.scope(
        Flags::default()
            .dir(Some(&cwd))
            .agent_named(args.agent.as_deref()),
    )?;
    let session_id = args
        .session
        .clone()
        .or_else(|| payload.session_id().map(str::to_owned))
        .unwrap_or_default();
    let agent = scope.agent.clone().or_else(|| payload_agent(&payload));
    let request = EmitRequest {
        name: hookrig_dialects::events::parse(&input.event)?,
        payload,
        session_id,
        host: args.dialect.dialect(),
        agent,
        plugin_dirs: args.plugin_dir.clone(),
        suppress: Suppress {
            hooks: args.no_hooks,
            plugins: args.no_plugins,
        },
        bus: None,
    };
    let prepared = Emit::prepare(&scope, request)?;
    if logging::enabled() {
        for warning in prepared.warnings() {
            eprintln!("hookrig: warning: {warning}");
        }
    }
    let decided = prepared.dispatch()?;
    let answer = args.dialect.answer(&decided.outcome(), &decided.dispatched);
    if let Some(text) = &answer.stderr {
        eprint!("{text}");
    }
    output::print(&answer.stdout)?;
    // The host reading the answer to end of file must not wait for the ledger or for
    // async hooks, which it does not wait for.
    output::release_stdout();
    let finished = decided.finish();
    for warning in &finished.late_warnings {
        eprintln!("hookrig: warning: {warning}");
    }
    Ok(finished
        .interrupted
        .map_or(answer.exit_code, exit_codes::stopped_by))
}

/// Everything on stdin, up to `limit` bytes (more is an error: it is read no further,
/// so that a huge payload costs neither the memory nor the time to parse it); nothing
/// when stdin is a terminal (no payload was piped in).
fn read_stdin(limit: u64) -> Result<Vec<u8>, ExpectedError> {
    let stdin = std::io::stdin().lock();
    let mut bytes = Vec::new();
    if !stdin.is_terminal() {
        stdin
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(ExpectedError::ReadStdin)?;
        if bytes.len() as u64 > limit {
            return Err(ExpectedError::PayloadTooLarge(limit));
        }
    }
    Ok(bytes)
}
