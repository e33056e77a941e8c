//! `hookrig serve`: runs hookrig-automation's [`Server`] for the scope's project, store
//! and socket until SIGINT, SIGTERM or SIGHUP, and prints what it reports on stderr.

use std::sync::Arc;

use hookrig_automation::{Server, ServerOptions};
use hookrig_runtime::{Scope, ingress};

use crate::errors::ExpectedError;
use crate::exit_codes;

pub(crate) fn run(scope: &Scope) -> Result<u8, ExpectedError> {
    let config = crate::commands::config::load(scope)?;
    let socket = ingress::socket_path_from_env().ok_or(ExpectedError::NoSocketPath)?;
    let server = Server::new(
        ServerOptions::for_scope(scope, config, socket),
        Arc::new(|notice| eprintln!("hookrig serve: {notice}")),
    );
    server.run_blocking()?;
    Ok(exit_codes::PROCEED)
}
