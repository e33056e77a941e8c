//! The engine's HTTP front: hosts that can call a URL instead of a command (Claude
//! Code's `http` hooks, say) emit with `POST /emit/EVENT?dialect=D` and the host's
//! input as the body, and get back what `hookrig emit --dialect D` would print, with no
//! process started at all.
//!
//! Every request needs `Authorization: Bearer TOKEN`, the token of [`token`] (a file
//! of mode 0600, created on first use): a request without it, or with another, is
//! answered 401 and recorded nowhere. A body larger than [`MAX_BODY`] is 413; a body
//! the dialect cannot read as an event is 400 with the reason. The answer is 200 with
//! the host's answer as the body and its exit code in `X-Hookrig-Exit` (0 proceed,
//! 2 denied). Hooks run with the engine's environment, in the directory the event
//! names (`session.cwd` or Claude Code's `cwd`), else the engine's.

use std::io::Write as _;
use std::net::SocketAddr;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path as UrlPath, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use hookrig_core::{Dialect, HostEnv};
use serde::Deserialize;

use crate::call::EmitCall;
use crate::emit::Suppress;
use crate::engine::Engine;

/// The largest body accepted: the default `--max-payload` of `hookrig emit`.
pub const MAX_BODY: usize = 16 * 1024 * 1024;

/// The header that carries the host's exit code.
pub const EXIT_HEADER: &str = "x-hookrig-exit";

/// An HTTP front to serve beside the socket: its bound listener and its token.
#[derive(Debug)]
pub struct HttpFront {
    /// Bound by the caller, so that a port in use is an error before anything starts.
    pub listener: std::net::TcpListener,
    /// The bearer token requests must carry.
    pub token: String,
}

impl HttpFront {
    /// Serves this front for `engine` in the background of the current runtime; it
    /// stops when the runtime does.
    pub fn spawn(&self, engine: Arc<Engine>) -> std::io::Result<()> {
        let listener = self.listener.try_clone()?;
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let token = self.token.clone();
        tokio::spawn(async move {
            if let Err(err) = serve(listener, engine, token).await {
                tracing::warn!("http: {err}");
            }
        });
        Ok(())
    }
}

/// What the HTTP front needs.
#[derive(Debug, Clone)]
struct Front {
    engine: Arc<Engine>,
    token: Arc<str>,
}

/// The query of `POST /emit/EVENT`.
#[derive(Debug, Deserialize)]
struct EmitQuery {
    /// The host's dialect (default native).
    dialect: Option<String>,
}

/// Serves the HTTP front on `listener` for `engine`, with `token`, until the task is
/// dropped.
pub async fn serve(
    listener: tokio::net::TcpListener,
    engine: Arc<Engine>,
    token: String,
) -> std::io::Result<()> {
    let front = Front {
        engine,
        token: token.into(),
    };
    let app = Router::new()
        .route("/emit/{event}", post(emit))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(front);
    axum::serve(listener, app).await
}

async fn emit(
    State(front): State<Front>,
    UrlPath(event): UrlPath<String>,
    Query(query): Query<EmitQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !authorized(&headers, &front.token) {
        return (StatusCode::UNAUTHORIZED, "a bearer token is needed\n").into_response();
    }
    let host = match query.dialect.as_deref().map(str::parse::<Dialect>) {
        None => Dialect::Native,
        Some(Ok(dialect)) if crate::call::speaks(dialect) => dialect,
        Some(_) => {
            return (
                StatusCode::BAD_REQUEST,
                "unknown dialect: use native, claude, hygge or xcode\n",
            )
                .into_response();
        }
    };
    let call = EmitCall {
        event: Some(event),
        host,
        cwd: None,
        session: None,
        agent: None,
        tool: None,
        plugin_dirs: Vec::new(),
        suppress: Suppress::default(),
        store: None,
        no_ledger: false,
        verbosity: crate::log::Verbosity::Quiet,
    };
    let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let env = HostEnv::new(std::env::vars_os());
    let Some(answer) = front.engine.answer(call, body.to_vec(), dir, env).await else {
        return (StatusCode::INTERNAL_SERVER_ERROR, "the engine failed\n").into_response();
    };
    if answer.exit_code == crate::call::FAILURE {
        return (StatusCode::BAD_REQUEST, answer.stderr).into_response();
    }
    let mut response = (StatusCode::OK, answer.stdout).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
        .headers_mut()
        .insert(EXIT_HEADER, HeaderValue::from(u16::from(answer.exit_code)));
    response
}

/// Whether `headers` carry `Authorization: Bearer TOKEN` with this token; compared in
/// time that does not depend on where they differ.
fn authorized(headers: &HeaderMap, token: &str) -> bool {
    let Some(given) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    given.len() == token.len()
        && given
            .bytes()
            .zip(token.bytes())
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0
}

/// The token of the HTTP front in `state_home`: read from `hookrig/http.token`, or
/// created there (mode 0600, 64 hex digits from two random UUIDs) when there is none.
pub fn token(state_home: &Path) -> std::io::Result<String> {
    let path = token_path(state_home);
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => {
            // Tightened if someone loosened it: the token is a password.
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
            return Ok(text.trim().to_owned());
        }
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(err),
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let token = format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)?;
    file.write_all(token.as_bytes())?;
    file.write_all(b"\n")?;
    Ok(token)
}

/// Where the token is kept.
pub fn token_path(state_home: &Path) -> PathBuf {
    state_home.join("hookrig").join("http.token")
}

/// Whether serving on `addr` reaches beyond this machine (the user then named it, and
/// is warned).
pub fn beyond_loopback(addr: &SocketAddr) -> bool {
    !addr.ip().is_loopback()
}
