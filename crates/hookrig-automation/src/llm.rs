//! The LLM step of a run: the rendered prompt goes to a provider, its reply is the
//! run's response.
//!
//! A provider is named by `provider` in `[automation.llm]` of `config.toml`, or in an
//! automation's `llm_config` (which overrides `provider`, `model`, `base_url`,
//! `api_key_env` and `max_tokens` key by key, merged over the global chat provider):
//!
//! - the id of a CLI provider from `[[providers]]`: its `cli` runs with `default_args`,
//!   `auto_approve_flag`, and the prompt after `initial_prompt_flag` (on stdin when it
//!   has none); its stdout is the reply. It leads its own process group, killed on
//!   timeout or when the future is dropped;
//! - `openai`: any OpenAI-compatible `POST {base_url}/v1/chat/completions`;
//! - `anthropic`: `POST {base_url}/v1/messages`.
//!
//! Errors say what to do: which variable holds the missing key, which URL refused the
//! connection, what the server said with its HTTP status.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use hookrig_config::{ConfigToml, LlmSettings, Provider};
use hookrig_exec::process::SpawnError;
use hookrig_exec::{EnvPolicy, ProcessGroups, ProcessSpec, Termination, run_process};
use serde_json::{Value, json};
use thiserror::Error;

/// The built-in HTTP provider for OpenAI-compatible servers.
pub const OPENAI: &str = "openai";
/// The built-in HTTP provider for Anthropic's Messages API.
pub const ANTHROPIC: &str = "anthropic";
/// `openai`'s base URL when none is configured.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com";
/// `anthropic`'s base URL when none is configured.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// The `anthropic-version` header sent to Anthropic.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// How much of a CLI provider's stdout is kept as the reply, and how large an HTTP
/// provider's body may be.
const REPLY_CAP: usize = 4 * 1024 * 1024;
/// How much of a CLI provider's stderr is read; the error shows its end.
const STDERR_CAP: usize = 64 * 1024;
/// How many characters of stderr or of an error body an error message carries.
const ERROR_TEXT_CHARS: usize = 2000;
/// Time between SIGTERM and SIGKILL for a CLI provider that timed out.
const KILL_GRACE: Duration = Duration::from_secs(1);

/// The keys an automation's `llm_config` may set.
const LLM_CONFIG_KEYS: &[&str] = &["provider", "model", "base_url", "api_key_env", "max_tokens"];

/// Why an LLM call could not be made or did not answer.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LlmError {
    /// No provider in `[automation.llm]` nor in the automation's `llm_config`.
    #[error(
        "no LLM provider is configured: set `provider` in [automation.llm] of config.toml (\"openai\", \"anthropic\" or the id of a [[providers]] entry), or in the automation's llm_config"
    )]
    NoProvider,
    /// The automation's `llm_config` is not usable.
    #[error("invalid llm_config: {0}")]
    BadConfig(String),
    /// The provider is neither built in nor a `[[providers]]` id.
    #[error(
        "unknown LLM provider `{name}`: use \"openai\", \"anthropic\" or the id of a [[providers]] entry in config.toml{}",
        known_ids(known)
    )]
    UnknownProvider {
        /// The name asked for.
        name: String,
        /// The `[[providers]]` ids there are.
        known: Vec<String>,
    },
    /// An HTTP provider without a model.
    #[error(
        "provider `{provider}` needs a model: set `model` in [automation.llm] of config.toml or in the automation's llm_config"
    )]
    NoModel {
        /// `openai` or `anthropic`.
        provider: String,
    },
    /// The variable that should hold the API key is unset or empty.
    #[error(
        "provider `{provider}` needs an API key: set the environment variable {var} (or name another variable with `api_key_env` in [automation.llm])"
    )]
    MissingKey {
        /// `openai` or `anthropic`.
        provider: String,
        /// The variable read.
        var: String,
    },
    /// The server answered with a status that is not 2xx.
    #[error("provider `{provider}`: POST {url} returned HTTP {status}: {message}")]
    Status {
        /// `openai` or `anthropic`.
        provider: String,
        /// The endpoint.
        url: String,
        /// The status, with its reason phrase.
        status: String,
        /// The error message of the body, or the body.
        message: String,
    },
    /// The request could not be sent (nothing listens, DNS, TLS).
    #[error(
        "provider `{provider}`: cannot reach {url}: {cause}; is the server running and `base_url` right?"
    )]
    Connect {
        /// `openai` or `anthropic`.
        provider: String,
        /// The endpoint.
        url: String,
        /// What failed.
        cause: String,
    },
    /// The 2xx reply is not what the API returns.
    #[error("provider `{provider}`: unexpected reply from {url}: {problem}")]
    Reply {
        /// `openai` or `anthropic`.
        provider: String,
        /// The endpoint.
        url: String,
        /// What is missing or wrong.
        problem: String,
    },
    /// No answer within the timeout.
    #[error("provider `{provider}` did not answer within {}{}", seconds(*after), if *killed { "; its process group was killed" } else { "" })]
    Timeout {
        /// The provider.
        provider: String,
        /// The timeout.
        after: Duration,
        /// A CLI provider's group was killed.
        killed: bool,
    },
    /// A CLI provider could not be started.
    #[error(
        "provider `{provider}`: {message}; check `cli` in its [[providers]] entry of config.toml"
    )]
    Spawn {
        /// The provider id.
        provider: String,
        /// Why.
        message: String,
    },
    /// A CLI provider exited non-zero or was killed by a signal.
    #[error("provider `{provider}` {how}{}", if stderr.is_empty() { String::new() } else { format!(": {stderr}") })]
    Failed {
        /// The provider id.
        provider: String,
        /// `exited with code 3`, `was killed by signal 9`.
        how: String,
        /// The end of its stderr, trimmed.
        stderr: String,
    },
    /// hookrig is stopping and killed the provider.
    #[error("provider `{provider}` was interrupted: hookrig is stopping")]
    Interrupted {
        /// The provider id.
        provider: String,
    },
    /// The HTTP client could not be built.
    #[error("cannot set up an HTTP client: {0}")]
    Client(String),
    /// The model still asked for tools after the run's last tool round.
    #[error(
        "the model still asked for tools after {rounds} tool rounds (max_tool_rounds); the run was stopped"
    )]
    RoundLimit {
        /// The rounds answered.
        rounds: u32,
    },
    /// The next request would take the run past `max_tokens_per_run`.
    #[error(
        "the run would use an estimated {estimate} tokens with its next request, more than max_tokens_per_run ({max}); stopped after {rounds} tool rounds"
    )]
    TokenLimit {
        /// The estimate so far plus the next request's.
        estimate: u64,
        /// `max_tokens_per_run`.
        max: u64,
        /// The rounds answered.
        rounds: u32,
    },
}

fn known_ids(known: &[String]) -> String {
    if known.is_empty() {
        String::new()
    } else {
        format!(" (configured: {})", known.join(", "))
    }
}

fn seconds(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// The provider settings of one call: `[automation.llm]` with an automation's
/// `llm_config` merged over it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedLlm {
    /// `openai`, `anthropic`, or a `[[providers]]` id.
    pub provider: String,
    /// The model (HTTP providers need one).
    pub model: Option<String>,
    /// The server; `None` for the vendor's.
    pub base_url: Option<String>,
    /// The variable holding the key; `None` for the vendor's usual one.
    pub api_key_env: Option<String>,
    /// How long the call may take.
    pub timeout: Duration,
    /// The reply's token limit (sent to Anthropic).
    pub max_tokens: u32,
}

/// What the provider answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmReply {
    /// The reply text: a CLI provider's stdout, or the message content.
    pub text: String,
    /// The estimate `len(prompt)/4 + len(reply)/4` (characters): what the run
    /// records as `tokens_used` and `max_tokens_per_run` is checked against.
    pub tokens_estimate: u64,
    /// What an HTTP provider reported it used, when it did.
    pub tokens_reported: Option<u64>,
}

/// The token estimate: a quarter of the characters of the prompt plus a quarter
/// of those of the reply (each rounded down).
pub fn estimate_tokens(prompt: &str, response: &str) -> u64 {
    let quarter = |s: &str| u64::try_from(s.chars().count() / 4).unwrap_or(u64::MAX);
    quarter(prompt).saturating_add(quarter(response))
}

/// Merges an automation's `llm_config` (a JSON object or `null`) over the global
/// `[automation.llm]`: a key it sets wins, a key it leaves out falls back to the global
/// value. An empty string for `model`, `base_url` or `api_key_env` means "the
/// provider's default": `"base_url": ""` undoes a global `base_url`.
pub fn resolve(global: &LlmSettings, llm_config: Option<&Value>) -> Result<ResolvedLlm, LlmError> {
    let mut resolved = ResolvedLlm {
        provider: String::new(),
        model: global.model.as_ref().map(|v| v.value.clone()),
        base_url: global.base_url.as_ref().map(|v| v.value.clone()),
        api_key_env: global.api_key_env.as_ref().map(|v| v.value.clone()),
        timeout: global.timeout(),
        max_tokens: global.max_tokens(),
    };
    let mut provider = global.provider.as_ref().map(|v| v.value.clone());
    let overrides = match llm_config {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => Some(map),
        Some(other) => {
            return Err(LlmError::BadConfig(format!(
                "expected a JSON object, got {}",
                json_kind(other)
            )));
        }
    };
    for (key, value) in overrides.into_iter().flatten() {
        let text = || match value {
            Value::String(s) => Ok(s.trim().to_owned()),
            Value::Null => Ok(String::new()),
            other => Err(LlmError::BadConfig(format!(
                "`{key}` must be a string, got {}",
                json_kind(other)
            ))),
        };
        let optional = |s: String| (!s.is_empty()).then_some(s);
        match key.as_str() {
            "provider" => provider = optional(text()?),
            "model" => resolved.model = optional(text()?),
            "base_url" => {
                let url = optional(text()?);
                if let Some(url) = &url {
                    check_base_url(url).map_err(LlmError::BadConfig)?;
                }
                resolved.base_url = url;
            }
            "api_key_env" => resolved.api_key_env = optional(text()?),
            "max_tokens" => {
                resolved.max_tokens = value
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|n| *n > 0)
                    .ok_or_else(|| {
                        LlmError::BadConfig(format!(
                            "`max_tokens` must be a positive whole number, got {value}"
                        ))
                    })?;
            }
            other => {
                return Err(LlmError::BadConfig(format!(
                    "unknown key `{other}`; llm_config may set {}",
                    LLM_CONFIG_KEYS.join(", ")
                )));
            }
        }
    }
    resolved.provider = provider.ok_or(LlmError::NoProvider)?;
    Ok(resolved)
}

fn check_base_url(text: &str) -> Result<(), String> {
    let url = reqwest::Url::parse(text).map_err(|err| format!("`base_url` `{text}`: {err}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("`base_url` `{text}` is not an http or https URL"));
    }
    Ok(())
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Where API keys are read from.
#[derive(Debug, Clone)]
enum Keys {
    /// hookrig's environment.
    Process,
    /// A fixed set (an embedding program's, or a test's).
    Fixed(HashMap<String, String>),
}

/// The LLM providers of one `config.toml`, ready to answer prompts.
#[derive(Debug)]
pub struct Llm {
    global: LlmSettings,
    providers: Vec<Provider>,
    workdir: PathBuf,
    groups: ProcessGroups,
    keys: Keys,
    /// Built on first use: TLS set-up is not free and many configurations only use CLI
    /// providers.
    client: OnceLock<Result<reqwest::Client, String>>,
}

impl Llm {
    /// The providers of `config`; CLI providers run in `workdir` (the project root).
    pub fn new(config: &ConfigToml, workdir: impl Into<PathBuf>) -> Self {
        Self {
            global: config.automation.llm.clone(),
            providers: config.providers.iter().map(|p| p.value.clone()).collect(),
            workdir: workdir.into(),
            groups: ProcessGroups::new(),
            keys: Keys::Process,
            client: OnceLock::new(),
        }
    }

    /// Registers CLI providers' process groups in `groups`, so that
    /// [`ProcessGroups::kill_all`] at shutdown kills them too.
    #[must_use]
    pub fn with_process_groups(mut self, groups: ProcessGroups) -> Self {
        self.groups = groups;
        self
    }

    /// Reads API keys from `vars` instead of hookrig's environment.
    #[must_use]
    pub fn with_env(mut self, vars: impl IntoIterator<Item = (String, String)>) -> Self {
        self.keys = Keys::Fixed(vars.into_iter().collect());
        self
    }

    /// `[automation.llm]` as loaded.
    pub fn global(&self) -> &LlmSettings {
        &self.global
    }

    /// [`resolve`] against this config's `[automation.llm]`.
    pub fn resolve(&self, llm_config: Option<&Value>) -> Result<ResolvedLlm, LlmError> {
        resolve(&self.global, llm_config)
    }

    /// Sends `prompt` to the provider of `config` and returns its reply.
    ///
    /// Dropping the future cancels the call; a CLI provider's process group is killed.
    pub async fn complete(&self, prompt: &str, config: &ResolvedLlm) -> Result<LlmReply, LlmError> {
        let (text, tokens_reported) = match config.provider.as_str() {
            OPENAI => self.http(Api::OpenAi, prompt, config).await?,
            ANTHROPIC => self.http(Api::Anthropic, prompt, config).await?,
            id => match self.providers.iter().find(|p| p.id == id) {
                Some(provider) => (self.cli(provider, prompt, config).await?, None),
                None => {
                    return Err(LlmError::UnknownProvider {
                        name: id.to_owned(),
                        known: self.providers.iter().map(|p| p.id.clone()).collect(),
                    });
                }
            },
        };
        Ok(LlmReply {
            tokens_estimate: estimate_tokens(prompt, &text),
            text,
            tokens_reported,
        })
    }

    async fn cli(
        &self,
        provider: &Provider,
        prompt: &str,
        config: &ResolvedLlm,
    ) -> Result<String, LlmError> {
        let mut args: Vec<OsString> = provider.default_args.iter().map(OsString::from).collect();
        args.extend(provider.auto_approve_flag.iter().map(OsString::from));
        let stdin = match &provider.initial_prompt_flag {
            Some(flag) => {
                args.push(flag.into());
                args.push(prompt.into());
                Vec::new()
            }
            None => prompt.as_bytes().to_vec(),
        };
        let spec = ProcessSpec {
            program: provider.cli.clone().into(),
            args,
            cwd: self.workdir.clone(),
            env: EnvPolicy::Inherit { set: Vec::new() },
            stdin,
            timeout: Some(config.timeout),
            kill_grace: KILL_GRACE,
            stdout_cap: REPLY_CAP,
            stderr_cap: STDERR_CAP,
        };
        tracing::debug!(provider = %provider.id, cli = %provider.cli, "running CLI provider");
        let output = run_process(spec, &self.groups).await;
        let id = provider.id.clone();
        let stderr = || tail(&String::from_utf8_lossy(&output.stderr));
        match &output.termination {
            Termination::Exited(0) => {
                let text = String::from_utf8_lossy(&output.stdout);
                Ok(text.trim_end().to_owned())
            }
            Termination::Exited(code) => Err(LlmError::Failed {
                provider: id,
                how: format!("exited with code {code}"),
                stderr: stderr(),
            }),
            Termination::Signaled(signal) => Err(LlmError::Failed {
                provider: id,
                how: format!("was killed by signal {signal}"),
                stderr: stderr(),
            }),
            Termination::TimedOut { after, .. } => Err(LlmError::Timeout {
                provider: id,
                after: *after,
                killed: true,
            }),
            Termination::Interrupted => Err(LlmError::Interrupted { provider: id }),
            Termination::SpawnFailed(error) => Err(LlmError::Spawn {
                provider: id,
                message: spawn_message(error),
            }),
        }
    }

    fn key(&self, var: &str) -> Option<String> {
        let value = match &self.keys {
            Keys::Process => std::env::var(var).ok(),
            Keys::Fixed(vars) => vars.get(var).cloned(),
        };
        value.filter(|v| !v.trim().is_empty())
    }

    async fn http(
        &self,
        api: Api,
        prompt: &str,
        config: &ResolvedLlm,
    ) -> Result<(String, Option<u64>), LlmError> {
        let model = api.model(config)?;
        let body = match api {
            Api::OpenAi => openai_body(&model, prompt),
            Api::Anthropic => anthropic_body(&model, prompt, config.max_tokens),
        };
        let reply = self.exchange(api, config, &body).await?;
        api.read(&reply)
            .map_err(|problem| api.reply_error(config, &problem))
    }

    /// POSTs `body` to the endpoint of `api` and returns the 2xx reply's JSON.
    pub(crate) async fn exchange(
        &self,
        api: Api,
        config: &ResolvedLlm,
        body: &Value,
    ) -> Result<Value, LlmError> {
        let provider = api.name().to_owned();
        let var = config
            .api_key_env
            .clone()
            .unwrap_or_else(|| api.default_key_env().to_owned());
        let key = self.key(&var).ok_or_else(|| LlmError::MissingKey {
            provider: provider.clone(),
            var: var.clone(),
        })?;
        let base = config.base_url.as_deref().unwrap_or(api.default_base_url());
        let url = endpoint(base, api.path());
        let client = self
            .client
            .get_or_init(build_client)
            .clone()
            .map_err(LlmError::Client)?;
        let request = match api {
            Api::OpenAi => client.post(&url).bearer_auth(&key),
            Api::Anthropic => client
                .post(&url)
                .header("x-api-key", &key)
                .header("anthropic-version", ANTHROPIC_VERSION),
        }
        .body(body.to_string())
        .header(reqwest::header::CONTENT_TYPE, "application/json");
        let exchange = async {
            let response = request.send().await.map_err(|err| LlmError::Connect {
                provider: provider.clone(),
                url: url.clone(),
                cause: causes(&err),
            })?;
            let status = response.status();
            let mut response = response;
            let mut body = Vec::new();
            loop {
                let chunk = response.chunk().await.map_err(|err| LlmError::Reply {
                    provider: provider.clone(),
                    url: url.clone(),
                    problem: format!("reading the body failed: {}", causes(&err)),
                })?;
                let Some(chunk) = chunk else { break };
                if body.len() + chunk.len() > REPLY_CAP {
                    return Err(LlmError::Reply {
                        provider: provider.clone(),
                        url: url.clone(),
                        problem: format!("the body is larger than {} MiB", REPLY_CAP >> 20),
                    });
                }
                body.extend_from_slice(&chunk);
            }
            Ok::<_, LlmError>((status, body))
        };
        let (status, body) = tokio::time::timeout(config.timeout, exchange)
            .await
            .map_err(|_| LlmError::Timeout {
                provider: provider.clone(),
                after: config.timeout,
                killed: false,
            })??;
        let parsed: Option<Value> = serde_json::from_slice(&body).ok();
        if !status.is_success() {
            return Err(LlmError::Status {
                provider,
                url,
                status: status.to_string(),
                message: error_message(parsed.as_ref(), &body),
            });
        }
        parsed.ok_or_else(|| LlmError::Reply {
            provider,
            url,
            problem: "the body is not JSON".to_owned(),
        })
    }

    /// The HTTP API of `config`'s provider; `None` for a CLI provider.
    pub(crate) fn api(config: &ResolvedLlm) -> Option<Api> {
        match config.provider.as_str() {
            OPENAI => Some(Api::OpenAi),
            ANTHROPIC => Some(Api::Anthropic),
            _ => None,
        }
    }
}

/// The two HTTP APIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Api {
    /// `POST /v1/chat/completions`.
    OpenAi,
    /// `POST /v1/messages`.
    Anthropic,
}

impl Api {
    /// The model of `config`, which an HTTP provider needs.
    pub(crate) fn model(self, config: &ResolvedLlm) -> Result<String, LlmError> {
        config.model.clone().ok_or_else(|| LlmError::NoModel {
            provider: self.name().to_owned(),
        })
    }

    /// A [`LlmError::Reply`] from the endpoint of `config`.
    pub(crate) fn reply_error(self, config: &ResolvedLlm, problem: &str) -> LlmError {
        let base = config
            .base_url
            .as_deref()
            .unwrap_or(self.default_base_url());
        LlmError::Reply {
            provider: self.name().to_owned(),
            url: endpoint(base, self.path()),
            problem: problem.to_owned(),
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Api::OpenAi => OPENAI,
            Api::Anthropic => ANTHROPIC,
        }
    }

    fn default_base_url(self) -> &'static str {
        match self {
            Api::OpenAi => OPENAI_BASE_URL,
            Api::Anthropic => ANTHROPIC_BASE_URL,
        }
    }

    fn default_key_env(self) -> &'static str {
        match self {
            Api::OpenAi => "OPENAI_API_KEY",
            Api::Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    fn path(self) -> &'static str {
        match self {
            Api::OpenAi => "chat/completions",
            Api::Anthropic => "messages",
        }
    }

    /// The reply text and the tokens the server says it used.
    fn read(self, reply: &Value) -> Result<(String, Option<u64>), String> {
        match self {
            Api::OpenAi => {
                let text = reply
                    .pointer("/choices/0/message/content")
                    .and_then(Value::as_str)
                    .ok_or("no text at `choices[0].message.content`")?;
                let tokens = reply.pointer("/usage/total_tokens").and_then(Value::as_u64);
                Ok((text.to_owned(), tokens))
            }
            Api::Anthropic => {
                let blocks = reply
                    .get("content")
                    .and_then(Value::as_array)
                    .ok_or("no `content` list")?;
                let text: String = blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect();
                let usage = |k: &str| {
                    reply
                        .pointer(&format!("/usage/{k}"))
                        .and_then(Value::as_u64)
                };
                let tokens = match (usage("input_tokens"), usage("output_tokens")) {
                    (Some(i), Some(o)) => Some(i.saturating_add(o)),
                    _ => None,
                };
                Ok((text, tokens))
            }
        }
    }
}

fn openai_body(model: &str, prompt: &str) -> Value {
    json!({
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
    })
}

fn anthropic_body(model: &str, prompt: &str, max_tokens: u32) -> Value {
    json!({
        "model": model,
        "max_tokens": max_tokens,
        "messages": [{"role": "user", "content": prompt}],
    })
}

/// `{base}/v1/{path}`. A base that already ends in `/v1` (as OpenAI-compatible servers
/// often document theirs) does not get a second one.
fn endpoint(base: &str, path: &str) -> String {
    let base = base.trim_end_matches('/');
    let base = base.strip_suffix("/v1").unwrap_or(base);
    format!("{base}/v1/{path}")
}

fn build_client() -> Result<reqwest::Client, String> {
    // rustls with ring, as hookrig-exec's HTTP hooks: the default aws-lc-rs provider
    // does not build without cmake. A provider installed earlier is kept.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .build()
        .map_err(|err| causes(&err))
}

/// The error and its causes, `: `-joined. reqwest's own message repeats the URL, which
/// our messages name already, so the top level is left out when it has causes.
fn causes(err: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = Vec::new();
    let mut source = err.source();
    while let Some(cause) = source {
        parts.push(cause.to_string());
        source = cause.source();
    }
    if parts.is_empty() {
        err.to_string()
    } else {
        parts.dedup();
        parts.join(": ")
    }
}

/// The message of an error reply: `error.message` (`OpenAI` and Anthropic), a string
/// `error` or `message`, else the body itself, cut.
fn error_message(parsed: Option<&Value>, body: &[u8]) -> String {
    let from_json = parsed.and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("message"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let text = from_json.unwrap_or_else(|| String::from_utf8_lossy(body).trim().to_owned());
    if text.is_empty() {
        "(empty body)".to_owned()
    } else {
        head(&text)
    }
}

/// The first [`ERROR_TEXT_CHARS`] characters, `…` when cut.
fn head(text: &str) -> String {
    match text.char_indices().nth(ERROR_TEXT_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The last [`ERROR_TEXT_CHARS`] characters of trimmed stderr, `…` when cut: a CLI's
/// error is usually its last words.
fn tail(text: &str) -> String {
    let text = text.trim();
    let count = text.chars().count();
    if count <= ERROR_TEXT_CHARS {
        return text.to_owned();
    }
    let skip = count - ERROR_TEXT_CHARS;
    let at = text.char_indices().nth(skip).map_or(0, |(i, _)| i);
    format!("…{}", &text[at..])
}

fn spawn_message(error: &SpawnError) -> String {
    error.to_string()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use hookrig_config::Sourced;
    use test_case::test_case;

    use super::*;
    use hookrig_test_support::{HttpStub, Reply, Request};

    fn settings(
        provider: Option<&str>,
        model: Option<&str>,
        base_url: Option<&str>,
    ) -> LlmSettings {
        let sourced = |v: &str| Sourced {
            value: v.to_owned(),
            source: PathBuf::from("/cfg/config.toml"),
            line: 1,
        };
        LlmSettings {
            provider: provider.map(sourced),
            model: model.map(sourced),
            base_url: base_url.map(sourced),
            ..LlmSettings::default()
        }
    }

    fn llm_with(providers: Vec<Provider>, dir: &Path) -> Llm {
        let config = ConfigToml {
            providers: providers
                .into_iter()
                .map(|value| Sourced {
                    value,
                    source: PathBuf::from("/cfg/config.toml"),
                    line: 1,
                })
                .collect(),
            ..ConfigToml::default()
        };
        Llm::new(&config, dir).with_env([
            ("OPENAI_API_KEY".to_owned(), "sk-test-openai".to_owned()),
            ("ANTHROPIC_API_KEY".to_owned(), "sk-ant-test".to_owned()),
        ])
    }

    fn http_config(provider: &str, base_url: &str) -> ResolvedLlm {
        ResolvedLlm {
            provider: provider.to_owned(),
            model: Some("test-model".to_owned()),
            base_url: Some(base_url.to_owned()),
            api_key_env: None,
            timeout: Duration::from_secs(5),
            max_tokens: 1024,
        }
    }

    /// What a snapshot shows of a request: method, path, the headers that matter, body.
    fn shown(request: &Request) -> Value {
        let headers: serde_json::Map<String, Value> = [
            "authorization",
            "x-api-key",
            "anthropic-version",
            "content-type",
        ]
        .iter()
        .filter_map(|name| {
            request
                .header(name)
                .map(|v| ((*name).to_owned(), Value::from(v)))
        })
        .collect();
        json!({
            "method": request.method,
            "path": request.path,
            "headers": headers,
            "body": request.json(),
        })
    }

    #[test_case("", "", 0; "nothing")]
    #[test_case("abc", "", 0; "rounded down")]
    #[test_case("abcdefgh", "abcd", 3; "both halves")]
    #[test_case("ééééé", "🪝🪝🪝🪝", 2; "characters not bytes")]
    fn token_estimate_is_a_quarter_of_the_characters(prompt: &str, reply: &str, tokens: u64) {
        assert_eq!(estimate_tokens(prompt, reply), tokens);
    }

    #[test]
    fn llm_config_overrides_key_by_key_and_the_rest_falls_back() {
        let global = settings(
            Some("openai"),
            Some("gpt-4o-mini"),
            Some("http://local:8080"),
        );
        let resolved = resolve(&global, None).expect("resolves");
        assert_eq!(resolved.provider, "openai");
        assert_eq!(resolved.model.as_deref(), Some("gpt-4o-mini"));
        assert_eq!(resolved.timeout, Duration::from_mins(5));
        assert_eq!(resolved.max_tokens, 4096);

        let over = json!({"provider": "anthropic", "model": "claude-opus-4-6", "max_tokens": 100});
        let resolved = resolve(&global, Some(&over)).expect("resolves");
        assert_eq!(
            (
                resolved.provider.as_str(),
                resolved.model.as_deref(),
                resolved.base_url.as_deref(),
                resolved.max_tokens
            ),
            (
                "anthropic",
                Some("claude-opus-4-6"),
                Some("http://local:8080"),
                100
            )
        );
        // `"base_url": ""` means the provider's own default.
        let over = json!({"provider": "anthropic", "base_url": ""});
        let resolved = resolve(&global, Some(&over)).expect("resolves");
        assert_eq!(resolved.base_url, None);
        assert_eq!(
            resolve(&global, Some(&Value::Null))
                .expect("null is none")
                .provider,
            "openai"
        );
    }

    #[test]
    fn no_provider_anywhere_says_how_to_configure_one() {
        let err =
            resolve(&LlmSettings::default(), Some(&json!({"model": "m"}))).expect_err("fails");
        assert_eq!(
            err.to_string(),
            "no LLM provider is configured: set `provider` in [automation.llm] of config.toml (\"openai\", \"anthropic\" or the id of a [[providers]] entry), or in the automation's llm_config"
        );
    }

    #[test_case(&json!([1]), "invalid llm_config: expected a JSON object, got an array"; "not an object")]
    #[test_case(&json!({"model": 3}), "invalid llm_config: `model` must be a string, got a number"; "wrong type")]
    #[test_case(&json!({"modle": "x"}), "invalid llm_config: unknown key `modle`; llm_config may set provider, model, base_url, api_key_env, max_tokens"; "unknown key")]
    #[test_case(&json!({"base_url": "ftp://x"}), "invalid llm_config: `base_url` `ftp://x` is not an http or https URL"; "bad url")]
    #[test_case(&json!({"max_tokens": 0}), "invalid llm_config: `max_tokens` must be a positive whole number, got 0"; "zero tokens")]
    fn bad_llm_config_is_a_clear_error(config: &Value, message: &str) {
        let global = settings(Some("openai"), None, None);
        assert_eq!(
            resolve(&global, Some(config))
                .expect_err("fails")
                .to_string(),
            message
        );
    }

    #[test_case("http://h", "http://h/v1/chat/completions"; "bare")]
    #[test_case("http://h/", "http://h/v1/chat/completions"; "slash")]
    #[test_case("http://h/v1", "http://h/v1/chat/completions"; "with v1")]
    #[test_case("http://h/proxy/v1/", "http://h/proxy/v1/chat/completions"; "prefix and v1")]
    fn endpoints_get_one_v1(base: &str, url: &str) {
        assert_eq!(endpoint(base, "chat/completions"), url);
    }

    #[tokio::test]
    async fn openai_compatible_request_and_reply() {
        let stub = HttpStub::replying(Reply::json(
            200,
            r#"{"id":"c1","choices":[{"index":0,"message":{"role":"assistant","content":"All good."}}],"usage":{"total_tokens":42}}"#,
        ));
        let dir = tempfile::tempdir().expect("tempdir");
        let llm = llm_with(Vec::new(), dir.path());
        let reply = llm
            .complete(
                "Summarise: {\"x\": 1}\nline two",
                &http_config("openai", stub.url()),
            )
            .await
            .expect("answers");
        assert_eq!(reply.text, "All good.");
        assert_eq!(reply.tokens_reported, Some(42));
        assert_eq!(
            reply.tokens_estimate,
            estimate_tokens("Summarise: {\"x\": 1}\nline two", "All good.")
        );
        let requests = stub.requests();
        assert_eq!(requests.len(), 1);
        insta::assert_json_snapshot!(shown(&requests[0]));
    }

    #[tokio::test]
    async fn anthropic_request_and_reply() {
        let stub = HttpStub::replying(Reply::json(
            200,
            r#"{"id":"m1","type":"message","content":[{"type":"text","text":"Part one. "},{"type":"tool_use","id":"t"},{"type":"text","text":"Part two."}],"usage":{"input_tokens":10,"output_tokens":5}}"#,
        ));
        let dir = tempfile::tempdir().expect("tempdir");
        let llm = llm_with(Vec::new(), dir.path());
        let reply = llm
            .complete("Review the diff", &http_config("anthropic", stub.url()))
            .await
            .expect("answers");
        assert_eq!(reply.text, "Part one. Part two.");
        assert_eq!(reply.tokens_reported, Some(15));
        insta::assert_json_snapshot!(shown(&stub.requests()[0]));
    }

    #[tokio::test]
    async fn api_key_env_names_the_variable_read() {
        let stub = HttpStub::replying(Reply::json(
            200,
            r#"{"choices":[{"message":{"content":"ok"}}]}"#,
        ));
        let dir = tempfile::tempdir().expect("tempdir");
        let llm = llm_with(Vec::new(), dir.path())
            .with_env([("TEAM_KEY".to_owned(), "team-secret".to_owned())]);
        let mut config = http_config("openai", stub.url());
        config.api_key_env = Some("TEAM_KEY".to_owned());
        llm.complete("p", &config).await.expect("answers");
        assert_eq!(
            stub.requests()[0].header("authorization"),
            Some("Bearer team-secret")
        );
    }

    #[tokio::test]
    async fn a_missing_key_names_the_variable_and_sends_nothing() {
        let stub = HttpStub::replying(Reply::json(200, "{}"));
        let dir = tempfile::tempdir().expect("tempdir");
        let llm = llm_with(Vec::new(), dir.path()).with_env([("OTHER".to_owned(), "x".to_owned())]);
        let err = llm
            .complete("p", &http_config("anthropic", stub.url()))
            .await
            .expect_err("fails");
        assert_eq!(
            err.to_string(),
            "provider `anthropic` needs an API key: set the environment variable ANTHROPIC_API_KEY (or name another variable with `api_key_env` in [automation.llm])"
        );
        let err = llm
            .complete("p", &http_config("openai", stub.url()))
            .await
            .expect_err("fails");
        assert!(
            err.to_string()
                .contains("set the environment variable OPENAI_API_KEY"),
            "{err}"
        );
        assert!(stub.requests().is_empty());
    }

    #[tokio::test]
    async fn an_error_status_carries_the_servers_message() {
        let stub = HttpStub::replying(Reply::json(
            401,
            r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#,
        ));
        let dir = tempfile::tempdir().expect("tempdir");
        let llm = llm_with(Vec::new(), dir.path());
        let err = llm
            .complete("p", &http_config("openai", stub.url()))
            .await
            .expect_err("fails");
        assert_eq!(
            err.to_string(),
            format!(
                "provider `openai`: POST {}/v1/chat/completions returned HTTP 401 Unauthorized: Incorrect API key provided",
                stub.url()
            )
        );
        let stub = HttpStub::replying(Reply::json(529, "overloaded, try later"));
        let err = llm
            .complete("p", &http_config("anthropic", stub.url()))
            .await
            .expect_err("fails");
        assert_eq!(
            err.to_string(),
            format!(
                "provider `anthropic`: POST {}/v1/messages returned HTTP 529 <unknown status code>: overloaded, try later",
                stub.url()
            )
        );
    }

    #[tokio::test]
    async fn a_reply_without_content_is_an_error() {
        let stub = HttpStub::replying(Reply::json(200, r#"{"choices":[]}"#));
        let dir = tempfile::tempdir().expect("tempdir");
        let llm = llm_with(Vec::new(), dir.path());
        let err = llm
            .complete("p", &http_config("openai", stub.url()))
            .await
            .expect_err("fails");
        assert_eq!(
            err.to_string(),
            format!(
                "provider `openai`: unexpected reply from {}/v1/chat/completions: no text at `choices[0].message.content`",
                stub.url()
            )
        );
    }

    #[tokio::test]
    async fn an_oversized_reply_is_refused_not_buffered() {
        let huge = format!("{{\"x\": \"{}\"}}", "a".repeat(REPLY_CAP));
        let stub = HttpStub::replying(Reply::json(200, huge.as_str()));
        let dir = tempfile::tempdir().expect("tempdir");
        let llm = llm_with(Vec::new(), dir.path());
        let err = llm
            .complete("p", &http_config("openai", stub.url()))
            .await
            .expect_err("fails");
        assert!(
            err.to_string().ends_with(": the body is larger than 4 MiB"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn connection_refused_names_the_url() {
        let url = hookrig_test_support::refused_url();
        let dir = tempfile::tempdir().expect("tempdir");
        let llm = llm_with(Vec::new(), dir.path());
        let err = llm
            .complete("p", &http_config("openai", &url))
            .await
            .expect_err("fails");
        let text = err.to_string();
        assert!(
            text.starts_with(&format!(
                "provider `openai`: cannot reach {url}/v1/chat/completions: "
            )),
            "{text}"
        );
        assert!(text.contains("onnection refused"), "{text}");
        assert!(
            text.ends_with("is the server running and `base_url` right?"),
            "{text}"
        );
    }

    #[tokio::test]
    async fn a_slow_server_times_out() {
        let stub = HttpStub::replying(Reply::json(200, "{}").after(Duration::from_secs(5)));
        let dir = tempfile::tempdir().expect("tempdir");
        let llm = llm_with(Vec::new(), dir.path());
        let mut config = http_config("openai", stub.url());
        config.timeout = Duration::from_millis(200);
        let started = std::time::Instant::now();
        let err = llm.complete("p", &config).await.expect_err("fails");
        assert_eq!(
            err.to_string(),
            "provider `openai` did not answer within 200ms"
        );
        assert!(started.elapsed() < Duration::from_secs(3));
    }

    #[tokio::test]
    async fn http_providers_need_a_model() {
        let dir = tempfile::tempdir().expect("tempdir");
        let llm = llm_with(Vec::new(), dir.path());
        let mut config = http_config("openai", "http://127.0.0.1:9");
        config.model = None;
        assert_eq!(
            llm.complete("p", &config).await.expect_err("fails"),
            LlmError::NoModel {
                provider: "openai".into()
            }
        );
    }

    // CLI providers.

    fn script(dir: &Path, name: &str, body: &str) -> String {
        let path = dir.join(name);
        hookrig_test_support::write_executable(&path, body);
        path.to_string_lossy().into_owned()
    }

    fn provider(id: &str, cli: String) -> Provider {
        Provider {
            id: id.to_owned(),
            name: id.to_owned(),
            cli,
            version_args: Vec::new(),
            auto_approve_flag: None,
            initial_prompt_flag: None,
            use_keystroke_injection: false,
            keystroke_delay_ms: 100,
            resume_flag: None,
            default_args: Vec::new(),
        }
    }

    fn cli_config(id: &str, timeout: Duration) -> ResolvedLlm {
        ResolvedLlm {
            provider: id.to_owned(),
            model: None,
            base_url: None,
            api_key_env: None,
            timeout,
            max_tokens: 1,
        }
    }

    /// Records each argument on a line of `argv`, stdin in `stdin`, the cwd in `cwd`.
    const RECORDER: &str = "for a in \"$@\"; do printf '[%s]\\n' \"$a\"; done > argv\ncat > stdin\npwd > cwd\nprintf 'the reply\\n\\n'\n";

    #[tokio::test]
    async fn cli_provider_gets_the_prompt_after_its_flag() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut p = provider("fake", script(dir.path(), "fake-agent", RECORDER));
        p.default_args = vec!["--quiet".into(), "--no-color".into()];
        p.auto_approve_flag = Some("-y".into());
        p.initial_prompt_flag = Some("-p".into());
        let llm = llm_with(vec![p], dir.path());
        let prompt = "Fix it.\nLine \"two\" $HOME";
        let reply = llm
            .complete(prompt, &cli_config("fake", Duration::from_secs(10)))
            .await
            .expect("answers");
        assert_eq!(reply.text, "the reply");
        assert_eq!(reply.tokens_reported, None);
        let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).expect("recorded");
        assert_eq!(
            read("argv"),
            "[--quiet]\n[--no-color]\n[-y]\n[-p]\n[Fix it.\nLine \"two\" $HOME]\n"
        );
        assert_eq!(read("stdin"), "");
        assert_eq!(
            Path::new(read("cwd").trim())
                .canonicalize()
                .expect("exists"),
            dir.path().canonicalize().expect("exists")
        );
    }

    #[tokio::test]
    async fn cli_provider_without_a_flag_reads_the_prompt_on_stdin() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut p = provider("fake", script(dir.path(), "fake-agent", RECORDER));
        p.auto_approve_flag = Some("--yes".into());
        let llm = llm_with(vec![p], dir.path());
        llm.complete("the prompt\n", &cli_config("fake", Duration::from_secs(10)))
            .await
            .expect("answers");
        let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).expect("recorded");
        assert_eq!(read("argv"), "[--yes]\n");
        assert_eq!(read("stdin"), "the prompt\n");
    }

    #[tokio::test]
    async fn cli_provider_failing_carries_its_stderr() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = provider(
            "fake",
            script(
                dir.path(),
                "fake-agent",
                "echo partial\necho 'not logged in' >&2\nexit 3\n",
            ),
        );
        let llm = llm_with(vec![p], dir.path());
        let err = llm
            .complete("p", &cli_config("fake", Duration::from_secs(10)))
            .await
            .expect_err("fails");
        assert_eq!(
            err.to_string(),
            "provider `fake` exited with code 3: not logged in"
        );
    }

    #[tokio::test]
    async fn long_stderr_is_cut_to_its_end() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = provider(
            "fake",
            script(
                dir.path(),
                "fake-agent",
                "i=0; while [ $i -lt 500 ]; do echo \"line $i of the log\" >&2; i=$((i+1)); done\nexit 1\n",
            ),
        );
        let llm = llm_with(vec![p], dir.path());
        let LlmError::Failed { stderr, .. } = llm
            .complete("p", &cli_config("fake", Duration::from_secs(10)))
            .await
            .expect_err("fails")
        else {
            panic!("a failure");
        };
        assert_eq!(stderr.chars().count(), ERROR_TEXT_CHARS + 1);
        assert!(stderr.starts_with('…'));
        assert!(stderr.ends_with("line 499 of the log"), "{stderr}");
    }

    #[tokio::test]
    async fn unknown_and_missing_cli_providers_are_clear_errors() {
        let dir = tempfile::tempdir().expect("tempdir");
        let llm = llm_with(
            vec![provider("gone", "no-such-agent-cli-xyz".into())],
            dir.path(),
        );
        let err = llm
            .complete("p", &cli_config("nope", Duration::from_secs(1)))
            .await
            .expect_err("fails");
        assert_eq!(
            err.to_string(),
            "unknown LLM provider `nope`: use \"openai\", \"anthropic\" or the id of a [[providers]] entry in config.toml (configured: gone)"
        );
        let err = llm
            .complete("p", &cli_config("gone", Duration::from_secs(1)))
            .await
            .expect_err("fails");
        assert_eq!(
            err.to_string(),
            "provider `gone`: command 'no-such-agent-cli-xyz' not found in PATH; check `cli` in its [[providers]] entry of config.toml"
        );
    }

    async fn pids_of(dir: &Path) -> Vec<i32> {
        let path = dir.join("pids");
        for _ in 0..200 {
            if let Ok(text) = std::fs::read_to_string(&path)
                && text.lines().count() >= 2
            {
                return text
                    .lines()
                    .map(|l| l.trim().parse().expect("a pid"))
                    .collect();
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the provider did not start");
    }

    async fn all_gone(pids: &[i32]) -> bool {
        for _ in 0..300 {
            if pids.iter().all(|p| !hookrig_test_support::is_alive(*p)) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }

    /// Starts a child that ignores SIGTERM, records both pids, and waits forever.
    const HANG: &str = "sh -c 'trap \"\" TERM; sleep 60' &\necho $! > pids.tmp\necho $$ >> pids.tmp\nmv pids.tmp pids\nwait\n";

    #[tokio::test]
    async fn a_hanging_cli_provider_is_killed_with_its_children_on_timeout() {
        let dir = tempfile::tempdir().expect("tempdir");
        let llm = llm_with(
            vec![provider("hang", script(dir.path(), "hang", HANG))],
            dir.path(),
        );
        let started = std::time::Instant::now();
        let err = llm
            .complete("p", &cli_config("hang", Duration::from_millis(300)))
            .await
            .expect_err("fails");
        assert_eq!(
            err.to_string(),
            "provider `hang` did not answer within 300ms; its process group was killed"
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        let pids = pids_of(dir.path()).await;
        assert!(all_gone(&pids).await, "left running: {pids:?}");
    }

    #[tokio::test]
    async fn dropping_the_call_kills_the_cli_providers_group() {
        let dir = tempfile::tempdir().expect("tempdir");
        let llm = llm_with(
            vec![provider("hang", script(dir.path(), "hang", HANG))],
            dir.path(),
        );
        let config = cli_config("hang", Duration::from_mins(1));
        let call = llm.complete("p", &config);
        let waited = tokio::time::timeout(Duration::from_millis(500), call).await;
        assert!(waited.is_err(), "still running when dropped");
        let pids = pids_of(dir.path()).await;
        assert!(all_gone(&pids).await, "left running: {pids:?}");
    }
}
