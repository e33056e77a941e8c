//! `hookrig serve`: runs hookrig-automation's [`Server`] for the scope's project, store
//! and socket until SIGINT, SIGTERM or SIGHUP, and prints what it reports on stderr.

use std::sync::Arc;

use hookrig_automation::{AutomationError, Server, ServerOptions};
use hookrig_runtime::{Scope, ingress};

use crate::errors::ExpectedError;
use crate::exit_codes;

pub(crate) fn run(scope: &Scope) -> Result<u8, ExpectedError> {
    let root = hookrig_config::find_project(&scope.env)
        .root
        .unwrap_or_else(|| scope.env.cwd.clone());
    let config = crate::commands::config::load(scope)?;
    let socket = ingress::socket_path_from_env().ok_or(ExpectedError::NoSocketPath)?;
    let options = ServerOptions {
        env: scope.env.clone(),
        root,
        config,
        store_path: scope.store.clone(),
        socket,
    };
    let server = Server::new(
        options,
        Arc::new(|notice| eprintln!("hookrig serve: {notice}")),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(AutomationError::AsyncRuntime)?;
    runtime.block_on(server.run())?;
    Ok(exit_codes::PROCEED)
}
