//! `hookrig emit EVENT`: read the host's input, answer it through the runtime (the same
//! call a resident engine makes) and write the answer in the host's format.

use std::io::{IsTerminal, Read};

use hookrig_runtime::engine::{self, Route};
use hookrig_runtime::{CallSite, EmitCall, HostReply, Suppress};

use crate::cli::EmitArgs;
use crate::errors::ExpectedError;
use crate::scope::Top;
use crate::{exit_codes, logging, output};

pub(crate) fn run(top: &Top, args: &EmitArgs) -> Result<u8, ExpectedError> {
    let global = &top.global;
    // `emit --agent`, else `hookrig --agent`, else the environment, else the payload.
    let agent = args.agent.clone().filter(|a| !a.is_empty()).or_else(|| {
        top.agent
            .as_ref()
            .map(|agent| agent.to_string_lossy().into_owned())
    });
    let call = EmitCall {
        event: args.event.clone(),
        host: args.dialect.dialect(),
        cwd: args.cwd.clone(),
        session: args.session.clone(),
        agent,
        tool: args.tool.clone(),
        plugin_dirs: args.plugin_dir.clone(),
        suppress: Suppress {
            hooks: args.no_hooks,
            plugins: args.no_plugins,
            side_effects: false,
        },
        store: global.ledger.clone(),
        no_ledger: global.no_ledger,
        verbosity: logging::verbosity(),
    };
    let stdin = match read_stdin(args.max_payload) {
        Ok(stdin) => stdin,
        Err(err) => {
            let host = hookrig_runtime::host_mode(call.host);
            return write(&hookrig_runtime::failure(host, &output::chain(&err)));
        }
    };
    let start_engine = match engine::route(&call, &stdin) {
        Route::Engine(reply) => return write(&reply),
        Route::InProcess { start_engine } => start_engine,
    };
    // Answered here, the emit hands its async hooks to a keeper, this same binary, so
    // that it can exit once the host has its answer (docs/engine.md, "Async hooks").
    hookrig_exec::keeper::arm(std::path::PathBuf::from("/proc/self/exe"));
    let (reply, decided) =
        hookrig_runtime::answer(&call, &stdin, CallSite::Here, &mut |line| eprint!("{line}"));
    finish(&reply, decided, start_engine)
}

/// Writes the answer, then records the emit and waits for its async hooks.
fn finish(
    reply: &HostReply,
    decided: Option<hookrig_runtime::Decided>,
    start_engine: bool,
) -> Result<u8, ExpectedError> {
    let code = write(reply)?;
    if start_engine {
        engine::start_for_next_emits();
    }
    let Some(decided) = decided else {
        return Ok(code);
    };
    // The host reading the answer to end of file must not wait for the ledger or for
    // async hooks, which it does not wait for.
    output::release_stdout();
    let finished = decided.finish();
    for warning in &finished.late_warnings {
        eprintln!("hookrig: warning: {warning}");
    }
    Ok(finished.interrupted.map_or(code, exit_codes::stopped_by))
}

/// Writes `reply` for the host: stderr first, then stdout; returns its exit code.
fn write(reply: &HostReply) -> Result<u8, ExpectedError> {
    eprint!("{}", reply.stderr);
    output::print(&reply.stdout)?;
    Ok(reply.exit_code)
}

/// Everything on stdin, up to `limit` bytes (more is an error: it is read no further,
/// so that a huge payload costs neither the memory nor the time to parse it); nothing
/// when stdin is a terminal (no payload was piped in).
pub(crate) fn read_stdin(limit: u64) -> Result<Vec<u8>, ExpectedError> {
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
