//! HTTP hooks: the event is sent in a POST request to a URL and the response body is read as the hook's
//! reply.
//!
//! The request body is what the hook's dialect would write to a command's stdin
//! (`Content-Type: application/json`). A 2xx response is read exactly like the stdout of
//! a command that exited 0. Anything else (a non-2xx status, a connection error, a
//! timeout) is a failure of the hook, turned into allow or deny by its failure policy, as
//! a command's unexpected exit is; for Claude Code hooks that is a non-blocking error.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use hookrig_config::ProtocolDef;
use hookrig_core::{
    BoxFuture, Failure, FailureKind, Handler, Invocation, Reply, Report, display_duration,
};

use crate::command::Limits;
use crate::process::{ProcessOutput, Termination};
use crate::protocol;

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
    limits: Limits,
    protocol: ProtocolDef,
    /// Built on first use: most emits never call most HTTP hooks, and a client with TLS
    /// set up is not free.
    client: OnceLock<Result<reqwest::Client, String>>,
}

impl HttpHandler {
    /// A handler for the hook `name` that POSTs to `url` with `headers`. `limits.timeout`
    /// covers the whole exchange; `limits.stdout_cap` caps the response body kept.
    pub fn new(
        name: impl Into<String>,
        url: impl Into<String>,
        headers: Vec<(String, String)>,
        limits: Limits,
        protocol: ProtocolDef,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                name: name.into(),
                url: url.into(),
                headers,
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
        let started = Instant::now();
        let exchange = match self.timed_exchange(&invocation).await {
            Ok(exchange) => exchange,
            Err(limit) => Exchange::Failed(
                FailureKind::Timeout,
                format!(
                    "hook {} timed out after {}",
                    self.name,
                    display_duration(limit)
                ),
            ),
        };
        let duration = started.elapsed();
        let failure =
            |kind, message| Report::from_reply(Reply::Failure(Failure { kind, message }), duration);
        let report = match exchange {
            Exchange::Failed(kind, message) => failure(kind, message),
            Exchange::Answered { status, body, .. } if !status.is_success() => {
                let mut report = failure(
                    FailureKind::Exit,
                    format!("hook {}: {} answered HTTP {status}", self.name, self.url),
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
                    duration,
                };
                let reply = protocol::reply(
                    &self.protocol,
                    &self.name,
                    &self.limits,
                    &invocation,
                    &output,
                );
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

    async fn exchange(&self, invocation: &Invocation) -> Exchange {
        let client = match self.client.get_or_init(build_client) {
            Ok(client) => client.clone(),
            Err(err) => {
                return Exchange::Failed(
                    FailureKind::Spawn,
                    format!("hook {}: cannot set up an HTTP client: {err}", self.name),
                );
            }
        };
        let mut request = client
            .post(&self.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(protocol::stdin(&self.protocol, &self.name, invocation));
        let allowed: &[String] = match &self.protocol {
            ProtocolDef::Claude(def) => &def.allowed_env_vars,
            _ => &[],
        };
        for (name, value) in &self.headers {
            let value = match &self.protocol {
                ProtocolDef::Claude(_) => interpolate(value, allowed),
                _ => value.clone(),
            };
            request = request.header(name, value);
        }
        let mut response = match request.send().await {
            Ok(response) => response,
            Err(err) => {
                return Exchange::Failed(
                    FailureKind::Spawn,
                    format!(
                        "hook {}: cannot reach {}: {}",
                        self.name,
                        self.url,
                        chain(&err)
                    ),
                );
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
                        format!(
                            "hook {}: reading the response of {} failed: {}",
                            self.name,
                            self.url,
                            chain(&err)
                        ),
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

/// An error with its causes, `a: b: c`, without repeats.
fn chain(err: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = vec![err.to_string()];
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ")
}

/// Claude Code's header interpolation: `$NAME` and `${NAME}` read the variable when the
/// hook lists it in `allowedEnvVars`, and are empty otherwise.
pub(crate) fn interpolate(value: &str, allowed: &[String]) -> String {
    let lookup = |name: &str| {
        if allowed.iter().any(|a| a == name) {
            std::env::var(name).unwrap_or_default()
        } else {
            String::new()
        }
    };
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        if let Some(braced) = after.strip_prefix('{')
            && let Some(end) = braced.find('}')
            && !braced[..end].is_empty()
            && braced[..end].chars().all(is_name)
        {
            out.push_str(&lookup(&braced[..end]));
            rest = &braced[end + 1..];
            continue;
        }
        let end = after.find(|c: char| !is_name(c)).unwrap_or(after.len());
        if end == 0 {
            out.push('$');
        } else {
            out.push_str(&lookup(&after[..end]));
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
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
    fn interpolation_reads_only_allowed_variables() {
        let path = std::env::var("PATH").unwrap_or_default();
        let allowed = vec!["PATH".to_owned()];
        assert_eq!(interpolate("a $PATH b", &allowed), format!("a {path} b"));
        assert_eq!(interpolate("x${PATH}y", &allowed), format!("x{path}y"));
        assert_eq!(interpolate("Bearer $HOME", &allowed), "Bearer ");
        assert_eq!(interpolate("cost $5 and $", &allowed), "cost  and $");
        assert_eq!(interpolate("${}", &allowed), "${}");
    }
}
