//! HTTP hooks and webhooks: the event is sent in a POST request to a URL and the
//! response body is read as the hook's reply.
//!
//! One handler for every dialect that has them (Claude Code's `type: "http"` hooks,
//! native `url` hooks): the dialect's protocol gives the body and the reply rules. The
//! request body is what the hook's dialect would write to a command's stdin
//! (`Content-Type: application/json`, `X-Hookrig-Event: <canonical event>`), signed with
//! `X-Hookrig-Signature: sha256=<hex HMAC-SHA256 of the body>` when the hook names a
//! secret variable. A 2xx response is read exactly like the stdout of a command that
//! exited 0. Anything else (a non-2xx status, a connection error, a timeout, an unset
//! secret variable) is a failure of the hook, turned into allow or deny by its failure
//! policy, as a command's unexpected exit is; for Claude Code hooks that is a
//! non-blocking error. Every failure message reads `hook NAME: POST URL: cause`.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use hookrig_core::{
    BoxFuture, Failure, FailureKind, Handler, Invocation, Reply, Report, Verdict, display_duration,
    error_chain as chain,
};
use sha2::Sha256;

use crate::command::Limits;
use crate::process::{ProcessOutput, Termination};
use crate::protocol::{Protocol, read_reply};

/// A hook that is an HTTP endpoint.
#[derive(Debug, Clone)]
pub struct HttpHandler {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    name: String,
    url: String,
    headers: Vec<(String, String)>,
    secret_env: Option<String>,
    limits: Limits,
    protocol: Arc<dyn Protocol>,
    /// Built on first use: most emits never call most HTTP hooks, and a client with TLS
    /// set up is not free.
    client: OnceLock<Result<reqwest::Client, String>>,
}

impl HttpHandler {
    /// A handler for the hook `name` that POSTs to `url` with `headers`, signing the
    /// body with the key in the variable `secret_env` when there is one. `limits.timeout`
    /// covers the whole exchange; `limits.stdout_cap` caps the response body kept.
    pub fn new(
        name: impl Into<String>,
        url: impl Into<String>,
        headers: Vec<(String, String)>,
        secret_env: Option<String>,
        limits: Limits,
        protocol: Arc<dyn Protocol>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                name: name.into(),
                url: url.into(),
                headers,
                secret_env,
                limits,
                protocol,
                client: OnceLock::new(),
            }),
        }
    }
}

impl Handler for HttpHandler {
    fn run(&self, invocation: Invocation) -> BoxFuture<Report> {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { inner.run(invocation).await })
    }
}

/// What came back from the endpoint.
enum Exchange {
    Answered {
        status: reqwest::StatusCode,
        body: Vec<u8>,
        truncated: bool,
    },
    Failed(FailureKind, String),
}

impl Inner {
    async fn run(&self, invocation: Invocation) -> Report {
        if !self.protocol.runs_for(&invocation) {
            return Report::from_reply(Reply::Verdict(Verdict::allow()), Duration::ZERO);
        }
        let started = Instant::now();
        let exchange = match self.timed_exchange(&invocation).await {
            Ok(exchange) => exchange,
            Err(limit) => Exchange::Failed(
                FailureKind::Timeout,
                self.message(&format!("timed out after {}", display_duration(limit))),
            ),
        };
        let duration = started.elapsed();
        let failure =
            |kind, message| Report::from_reply(Reply::Failure(Failure { kind, message }), duration);
        let report = match exchange {
            Exchange::Failed(kind, message) => Report::from_reply(
                self.protocol
                    .http_failure(&invocation, Failure { kind, message }),
                duration,
            ),
            Exchange::Answered { status, body, .. } if !status.is_success() => {
                let mut report = failure(
                    FailureKind::Exit,
                    self.message(&format!("HTTP {}", status.as_u16())),
                );
                report.stdout = excerpt(&body);
                report
            }
            Exchange::Answered {
                body, truncated, ..
            } => {
                // A 2xx body is what a command that exited 0 printed.
                let output = ProcessOutput {
                    termination: Termination::Exited(0),
                    stdout: body,
                    stderr: Vec::new(),
                    stdout_truncated: truncated,
                    stderr_truncated: false,
                    leaked: false,
                    leftovers: crate::Leftovers::default(),
                    duration,
                };
                let read = self
                    .protocol
                    .http_reply(&self.name, &self.limits, &invocation, &output)
                    .unwrap_or_else(|| {
                        read_reply(
                            self.protocol.as_ref(),
                            &self.name,
                            &self.limits,
                            &invocation,
                            &output,
                        )
                    });
                let reply = match read {
                    // The reply rules name the hook; a webhook's failure also names the URL.
                    Reply::Failure(Failure { kind, message }) => {
                        let prefix = format!("hook {}: ", self.name);
                        let message = match message.strip_prefix(&prefix) {
                            Some(cause) => self.message(cause),
                            None => message,
                        };
                        Reply::Failure(Failure { kind, message })
                    }
                    reply @ Reply::Verdict(_) => reply,
                };
                Report {
                    reply,
                    exit_code: None,
                    duration,
                    stdout: excerpt(&output.stdout),
                    stderr: None,
                    truncated,
                }
            }
        };
        tracing::debug!(
            "hooks.http {} {}: {:?}",
            self.name,
            invocation.context.name,
            report.reply
        );
        report
    }

    /// The exchange, or the timeout that cut it.
    async fn timed_exchange(&self, invocation: &Invocation) -> Result<Exchange, Duration> {
        match self.limits.timeout {
            Some(limit) => tokio::time::timeout(limit, self.exchange(invocation))
                .await
                .map_err(|_| limit),
            None => Ok(self.exchange(invocation).await),
        }
    }

    /// `hook NAME: POST URL: cause`.
    fn message(&self, cause: &str) -> String {
        format!("hook {}: POST {}: {cause}", self.name, self.url)
    }

    /// `X-Hookrig-Signature` of `body`, or the failure when the secret variable is unset
    /// (the request is then not sent: an unsigned request would look like a forgery to
    /// the receiver, or worse, be accepted by one that does not check).
    fn signature(&self, invocation: &Invocation, body: &[u8]) -> Result<Option<String>, String> {
        let Some(variable) = &self.secret_env else {
            return Ok(None);
        };
        let key = match invocation.context.var(variable) {
            Some(key) if !key.is_empty() => key.into_encoded_bytes(),
            Some(_) => {
                return Err(self.message(&format!(
                    "secret variable {variable} is empty; the request was not sent"
                )));
            }
            None => {
                return Err(self.message(&format!(
                    "secret variable {variable} is not set; the request was not sent"
                )));
            }
        };
        Ok(Some(format!("sha256={}", hmac_sha256_hex(&key, body))))
    }

    async fn exchange(&self, invocation: &Invocation) -> Exchange {
        let body = self.protocol.stdin(&self.name, invocation);
        let signature = match self.signature(invocation, &body) {
            Ok(signature) => signature,
            Err(message) => return Exchange::Failed(FailureKind::Spawn, message),
        };
        let client = match self.client.get_or_init(build_client) {
            Ok(client) => client.clone(),
            Err(err) => {
                return Exchange::Failed(
                    FailureKind::Spawn,
                    self.message(&format!("cannot set up an HTTP client: {err}")),
                );
            }
        };
        let mut request = client
            .post(&self.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("X-Hookrig-Event", invocation.context.name.as_str());
        if let Some(signature) = signature {
            request = request.header("X-Hookrig-Signature", signature);
        }
        request = request.body(body);
        for (name, value) in &self.headers {
            request = request.header(name, self.protocol.header_value(value, &invocation.context));
        }
        let mut response = match request.send().await {
            Ok(response) => response,
            Err(err) => {
                return Exchange::Failed(FailureKind::Spawn, self.message(&send_error(&err)));
            }
        };
        let status = response.status();
        let cap = self.limits.stdout_cap;
        let mut body = Vec::new();
        let mut truncated = false;
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    let room = cap.saturating_sub(body.len());
                    if chunk.len() > room {
                        body.extend_from_slice(&chunk[..room]);
                        truncated = true;
                        break;
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(err) => {
                    return Exchange::Failed(
                        FailureKind::Malformed,
                        self.message(&format!("reading the response failed: {}", causes(&err))),
                    );
                }
            }
        }
        Exchange::Answered {
            status,
            body,
            truncated,
        }
    }
}

fn build_client() -> Result<reqwest::Client, String> {
    // rustls with ring: the default aws-lc-rs provider does not build without cmake. A
    // provider installed earlier by the embedding program is kept.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        // A hook endpoint that redirects is answered as it answered: a 3xx is not 2xx.
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|err| chain(&err))
}

/// Lowercase hex of the HMAC-SHA256 of `body` under `key`.
fn hmac_sha256_hex(key: &[u8], body: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(body);
    let mut hex = String::with_capacity(64);
    for byte in mac.finalize().into_bytes() {
        hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    hex
}

/// Why a request could not be sent. reqwest's own message repeats the URL, which the
/// failure message names already; the causes under it say what happened.
fn send_error(err: &reqwest::Error) -> String {
    if err.is_connect() {
        // The innermost cause is the system's answer (`Connection refused (os error
        // 111)`); the layers above it only say that a connection was being made.
        let mut innermost: &dyn std::error::Error = err;
        while let Some(cause) = innermost.source() {
            innermost = cause;
        }
        return format!("cannot connect: {innermost}");
    }
    causes(err)
}

/// The causes of `err` when it has some, else `err` itself.
fn causes(err: &reqwest::Error) -> String {
    match std::error::Error::source(err) {
        Some(source) => chain(source),
        None => err.to_string(),
    }
}

/// How much of a response body the ledger keeps.
const EXCERPT: usize = 4096;

fn excerpt(bytes: &[u8]) -> Option<String> {
    if bytes.is_empty() {
        return None;
    }
    let cut = &bytes[..bytes.len().min(EXCERPT)];
    Some(String::from_utf8_lossy(cut).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231_test_case_2() {
        assert_eq!(
            hmac_sha256_hex(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
