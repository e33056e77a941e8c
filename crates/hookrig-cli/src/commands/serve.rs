//! `hookrig serve`: runs hookrig-automation's [`Server`] for the scope's project, store
//! and socket until SIGINT, SIGTERM or SIGHUP, and prints what it reports on stderr.
//! It also answers emits (the resident engine), over its socket and, with `--http`,
//! over HTTP.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use clap::Args;
use hookrig_automation::{Server, ServerOptions};
use hookrig_runtime::http::{self, HttpFront};
use hookrig_runtime::{Scope, ingress};

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::print;

/// `hookrig serve`'s options.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Also answer emits over HTTP on this address (`POST /emit/EVENT?dialect=D` with
    /// `Authorization: Bearer TOKEN`; see --print-token). Off by default; an address
    /// beyond loopback is served with a warning.
    #[arg(long, value_name = "ADDR:PORT")]
    pub(crate) http: Option<SocketAddr>,
    /// Also serve the web dashboard on this address (`hookrig ui` opens it with the
    /// token). Port 0 picks a free port. An address beyond loopback is served with a
    /// warning.
    #[arg(long, value_name = "ADDR:PORT")]
    pub(crate) ui: Option<SocketAddr>,
    /// Print the token HTTP requests need (created on first use) and exit.
    #[arg(long)]
    pub(crate) print_token: bool,
    #[command(flatten)]
    pub(crate) store: crate::cli::StoreArg,
}

pub(crate) fn run(scope: &Scope, args: &ServeArgs) -> Result<u8, ExpectedError> {
    if args.print_token {
        let token = http::token(&scope.env.state_home).map_err(ExpectedError::Token)?;
        print(&format!("{token}\n"))?;
        return Ok(exit_codes::PROCEED);
    }
    let config = crate::commands::config::load(scope)?;
    let socket = ingress::socket_path_from_env().ok_or(ExpectedError::NoSocketPath)?;
    let mut options = ServerOptions::for_scope(scope, config, socket);
    options.http = http_front(args.http, &scope.env.state_home)?.map(Arc::new);
    if let Some(address) = args.ui {
        dashboard(scope, address, &options.socket)?;
    }
    let server = Server::new(
        options,
        Arc::new(|notice| eprintln!("hookrig serve: {notice}")),
    );
    server.run_blocking()?;
    Ok(exit_codes::PROCEED)
}

/// Serves the dashboard on `address` from a thread of its own, and records where it
/// listens for `hookrig ui`.
fn dashboard(scope: &Scope, address: SocketAddr, socket: &Path) -> Result<(), ExpectedError> {
    if http::beyond_loopback(&address) {
        eprintln!(
            "hookrig: warning: serving the dashboard on {address}, which other machines may reach; \
             every request still needs the token"
        );
    }
    let listener = std::net::TcpListener::bind(address)
        .map_err(|source| ExpectedError::HttpBind { address, source })?;
    let token = http::token(&scope.env.state_home).map_err(ExpectedError::Token)?;
    let dashboard = hookrig_ui::Dashboard::new(scope.clone(), token, Some(socket.to_owned()));
    let bound = hookrig_ui::spawn(listener, dashboard)
        .map_err(|err| ExpectedError::UiStart(err.to_string()))?;
    hookrig_ui::record_address(&scope.env.state_home, bound)
        .map_err(|err| ExpectedError::UiStart(err.to_string()))?;
    eprintln!("hookrig serve: dashboard on http://{bound}/ (`hookrig ui` opens it)");
    Ok(())
}

/// The HTTP front on `address`, bound now (a port in use is an error before anything
/// starts), with the token of `state_home`.
pub(crate) fn http_front(
    address: Option<SocketAddr>,
    state_home: &Path,
) -> Result<Option<HttpFront>, ExpectedError> {
    let Some(address) = address else {
        return Ok(None);
    };
    if http::beyond_loopback(&address) {
        eprintln!(
            "hookrig: warning: answering emits on {address}, which other machines may reach; \
             every request still needs the token"
        );
    }
    let listener = std::net::TcpListener::bind(address)
        .map_err(|source| ExpectedError::HttpBind { address, source })?;
    let token = http::token(state_home).map_err(ExpectedError::Token)?;
    Ok(Some(HttpFront { listener, token }))
}
