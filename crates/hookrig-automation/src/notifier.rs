//! How runs are announced: their messages (started, the tools called, completed,
//! skipped, failed, and what the `notify` tool says) go to the log always, and to each
//! Discord or Slack webhook of `[[notifiers]]` in `config.toml`.
//!
//! Tool calls are coalesced: the log gets one line per call, a webhook one message per
//! [`TOOL_WINDOW`] with the chain of calls so far, so that a model calling twenty tools
//! in a second posts once. The chain still waiting is posted before the run's next
//! message (completed, failed), so a channel never shows them out of order.
//!
//! Sending never blocks a run: each message is posted from a task of its own, once (no
//! retries, which could post the same message twice); a failed post is logged. Posts to
//! one webhook are chained, each task waiting for the one before, so that a channel
//! shows "is running" before "completed" even when the run took a millisecond.
//! [`Notifiers::drain`] waits a bounded time for the posts still under way at shutdown.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use hookrig_config::{ConfigToml, NotifierConfig, NotifierKind};
use serde_json::json;
use tokio::task::JoinHandle;

/// How many characters of a completed run's response the message carries.
pub const RESPONSE_SUMMARY_CHARS: usize = 4000;
/// Discord refuses a `content` longer than this many characters.
pub const DISCORD_CONTENT_CHARS: usize = 2000;
/// How long one post may take.
const POST_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a webhook's tool-call message waits for more calls to join its chain.
pub const TOOL_WINDOW: Duration = Duration::from_secs(2);

/// Where a run is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// The run started.
    Started {
        /// `periodic`, `event:<type>`, `manual`, ...
        trigger_reason: String,
    },
    /// The run completed; `response` is the LLM's reply (empty with `skip_llm`).
    Completed {
        /// The reply.
        response: String,
    },
    /// A skip condition matched.
    Skipped {
        /// The skip reason.
        reason: String,
    },
    /// The run failed.
    Failed {
        /// Why.
        error: String,
    },
    /// The model called tools: their names so far, in order.
    Tools {
        /// The chain of calls.
        chain: Vec<String>,
    },
    /// The model sent a message with the `notify` tool.
    Note {
        /// The message.
        message: String,
    },
}

impl Phase {
    /// `started`, `completed`, `skipped`, `failed`, `tools` or `note`: the names
    /// `events` filters on.
    pub fn name(&self) -> &'static str {
        match self {
            Phase::Started { .. } => "started",
            Phase::Completed { .. } => "completed",
            Phase::Skipped { .. } => "skipped",
            Phase::Failed { .. } => "failed",
            Phase::Tools { .. } => "tools",
            Phase::Note { .. } => "note",
        }
    }
}

/// The message for `phase` of the automation `name`; a completed run's
/// response follows on the next line, cut to [`RESPONSE_SUMMARY_CHARS`] characters.
pub fn message(name: &str, phase: &Phase) -> String {
    match phase {
        Phase::Started { trigger_reason } => {
            format!("🪝 Hook **{name}** is running (trigger: `{trigger_reason}`).")
        }
        Phase::Completed { response } => {
            let summary = cut(response.trim(), RESPONSE_SUMMARY_CHARS);
            if summary.is_empty() {
                format!("🪝 Hook **{name}** completed.")
            } else {
                format!("🪝 Hook **{name}** completed.\n{summary}")
            }
        }
        Phase::Skipped { reason } => format!("🪝 Hook **{name}** skipped: {reason}"),
        Phase::Failed { error } => format!("🪝 Hook **{name}** failed: {error}"),
        Phase::Tools { chain } => format!("🪝 Hook **{name}** 🔧 {}", tool_chain(chain)),
        Phase::Note { message } => format!("🪝 Hook **{name}**: {message}"),
    }
}

/// `` `tool1` → `tool2` ``.
pub fn tool_chain(chain: &[String]) -> String {
    chain
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(" → ")
}

/// At most `max` characters of `text`, the last of them `…` when it is cut.
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let keep = max.saturating_sub(1);
    let end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    format!("{}…", &text[..end])
}

/// The JSON body posted to a webhook of `kind`: Discord's `{"content": ...}` (cut to
/// Discord's 2000 characters: one message per phase, never split) or Slack's
/// `{"text": ...}`.
pub fn webhook_body(kind: NotifierKind, message: &str) -> serde_json::Value {
    match kind {
        NotifierKind::Discord => json!({"content": cut(message, DISCORD_CONTENT_CHARS)}),
        NotifierKind::Slack => json!({"text": message}),
    }
}

/// The notifiers of a configuration.
#[derive(Debug, Clone)]
pub struct Notifiers {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    targets: Vec<NotifierConfig>,
    client: Result<reqwest::Client, String>,
    /// The last post of each target (same index), which waits for the one before it.
    last: Mutex<Vec<Option<JoinHandle<()>>>>,
    /// Automation name → the tool-call message waiting for its window to end.
    pending: Mutex<HashMap<String, String>>,
    /// Automation name → the tools its run in flight called, which its completed
    /// message lists.
    chains: Mutex<HashMap<String, Vec<String>>>,
    /// See [`TOOL_WINDOW`].
    tool_window: Duration,
}

impl Notifiers {
    /// The `[[notifiers]]` of `config` (and the log).
    pub fn from_config(config: &ConfigToml) -> Self {
        Self::new(config.notifiers.iter().map(|n| n.value.clone()).collect())
    }

    /// These webhooks (and the log).
    pub fn new(targets: Vec<NotifierConfig>) -> Self {
        Self::coalescing(targets, TOOL_WINDOW)
    }

    /// These webhooks, tool calls coalesced over `tool_window` instead of
    /// [`TOOL_WINDOW`].
    pub fn coalescing(targets: Vec<NotifierConfig>, tool_window: Duration) -> Self {
        let client = if targets.is_empty() {
            Err("no webhooks".to_owned())
        } else {
            build_client()
        };
        if let Err(err) = &client
            && !targets.is_empty()
        {
            tracing::warn!("notifiers are off: cannot set up an HTTP client: {err}");
        }
        let last = Mutex::new(targets.iter().map(|_| None).collect());
        Self {
            inner: Arc::new(Inner {
                targets,
                client,
                last,
                pending: Mutex::new(HashMap::new()),
                chains: Mutex::new(HashMap::new()),
                tool_window,
            }),
        }
    }

    /// Logs `phase` of the automation `name` and posts it to every webhook whose
    /// `events` let it through. Returns at once: the posts run on the current tokio
    /// runtime (outside of one, only the log gets the message).
    #[expect(
        clippy::needless_pass_by_value,
        reason = "the agreed interface: the engine hands the phase over"
    )]
    pub fn send(&self, automation_name: &str, phase: Phase) {
        let mut text = message(automation_name, &phase);
        match &phase {
            Phase::Tools { chain } => {
                lock(&self.inner.chains).insert(automation_name.to_owned(), chain.clone());
            }
            Phase::Note { .. } => {}
            Phase::Started { .. } | Phase::Skipped { .. } | Phase::Failed { .. } => {
                lock(&self.inner.chains).remove(automation_name);
            }
            Phase::Completed { .. } => {
                // The tools called, on the line after "completed.", before the response.
                if let Some(chain) = lock(&self.inner.chains).remove(automation_name) {
                    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
                    let mut with_chain = format!("{first}\n🔧 {}", tool_chain(&chain));
                    if !rest.is_empty() {
                        with_chain = format!("{with_chain}\n{rest}");
                    }
                    text = with_chain;
                }
            }
        }
        if let Phase::Failed { .. } = &phase {
            tracing::warn!(automation = automation_name, phase = phase.name(), "{text}");
        } else {
            tracing::info!(automation = automation_name, phase = phase.name(), "{text}");
        }
        if let Phase::Tools { .. } = &phase {
            self.coalesce(automation_name, text);
            return;
        }
        // What the model was doing comes before what came of it.
        self.flush(automation_name);
        self.post(phase.name(), &text);
    }

    /// Sends `message` of the automation `name` (the `notify` tool).
    pub fn note(&self, automation_name: &str, message: &str) {
        self.send(
            automation_name,
            Phase::Note {
                message: message.to_owned(),
            },
        );
    }

    /// Keeps `text` as the tool-call message of `name`; the first of a window starts
    /// the timer that posts the latest one when the window ends.
    fn coalesce(&self, name: &str, text: String) {
        if self.inner.client.is_err() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let first = lock(&self.inner.pending)
            .insert(name.to_owned(), text)
            .is_none();
        if first {
            let this = self.clone();
            let name = name.to_owned();
            runtime.spawn(async move {
                tokio::time::sleep(this.inner.tool_window).await;
                this.flush(&name);
            });
        }
    }

    /// Posts the tool-call message of `name` still waiting, if any.
    fn flush(&self, name: &str) {
        let waiting = lock(&self.inner.pending).remove(name);
        if let Some(text) = waiting {
            self.post("tools", &text);
        }
    }

    /// Posts `text` to every webhook whose `events` let `event` through.
    fn post(&self, event: &str, text: &str) {
        let Ok(client) = &self.inner.client else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("notification not posted: no async runtime");
            return;
        };
        let mut last = self
            .inner
            .last
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for (target, slot) in self.inner.targets.iter().zip(last.iter_mut()) {
            if let Some(events) = &target.events
                && !events.iter().any(|e| e == event)
            {
                continue;
            }
            let body = webhook_body(target.kind, text).to_string();
            let request = client
                .post(&target.url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body);
            let kind = target.kind.as_str();
            let url = target.url.clone();
            let before = slot.take().filter(|task| !task.is_finished());
            *slot = Some(runtime.spawn(async move {
                if let Some(before) = before {
                    let _ = before.await;
                }
                match tokio::time::timeout(POST_TIMEOUT, request.send()).await {
                    Ok(Ok(response)) if response.status().is_success() => {}
                    Ok(Ok(response)) => {
                        let status = response.status();
                        let body = response.text().await.unwrap_or_default();
                        tracing::warn!(
                            "{kind} notifier: POST {url} returned HTTP {status}: {}",
                            cut(body.trim(), 500)
                        );
                    }
                    Ok(Err(err)) => {
                        tracing::warn!("{kind} notifier: POST {url} failed: {err}");
                    }
                    Err(_) => tracing::warn!(
                        "{kind} notifier: POST {url} got no answer within {}s",
                        POST_TIMEOUT.as_secs()
                    ),
                }
            }));
        }
    }

    /// Waits up to `within` for the posts under way; those still running then are
    /// abandoned (and logged).
    pub async fn drain(&self, within: Duration) {
        let waiting: Vec<String> = lock(&self.inner.pending).keys().cloned().collect();
        for name in waiting {
            self.flush(&name);
        }
        let tasks: Vec<_> = self
            .inner
            .last
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter_mut()
            .filter_map(Option::take)
            .collect();
        let deadline = tokio::time::Instant::now() + within;
        let mut abandoned = 0;
        // Each last post waits for the ones before it: awaiting it awaits them all.
        for mut task in tasks {
            if tokio::time::timeout_at(deadline, &mut task).await.is_err() {
                task.abort();
                abandoned += 1;
            }
        }
        if abandoned > 0 {
            tracing::warn!(
                "notifications to {abandoned} webhook(s) still being posted after {}ms were abandoned",
                within.as_millis()
            );
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn build_client() -> Result<reqwest::Client, String> {
    // rustls with ring, as for HTTP hooks: aws-lc-rs needs cmake to build.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        // A webhook that redirects is not followed: the message is posted once, where
        // the config says.
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|err| err.to_string())
}

#[cfg(test)]
mod tests {
    use test_case::test_case;

    use serde_json::Value;

    use super::*;
    use hookrig_test_support::{HttpStub, Reply, Request};

    fn target(kind: NotifierKind, url: &str, events: Option<&[&str]>) -> NotifierConfig {
        NotifierConfig {
            kind,
            url: url.to_owned(),
            events: events.map(|e| e.iter().map(|s| (*s).to_owned()).collect()),
        }
    }

    #[test_case(&Phase::Started { trigger_reason: "event:task.completed".into() }, "🪝 Hook **nightly** is running (trigger: `event:task.completed`)."; "started")]
    #[test_case(&Phase::Completed { response: String::new() }, "🪝 Hook **nightly** completed."; "completed without response")]
    #[test_case(&Phase::Completed { response: "  Two issues found.\n".into() }, "🪝 Hook **nightly** completed.\nTwo issues found."; "completed")]
    #[test_case(&Phase::Skipped { reason: "step_0: exit code 0 (skip_llm_if_exit_zero)".into() }, "🪝 Hook **nightly** skipped: step_0: exit code 0 (skip_llm_if_exit_zero)"; "skipped")]
    #[test_case(&Phase::Failed { error: "run timed out after 300s".into() }, "🪝 Hook **nightly** failed: run timed out after 300s"; "failed")]
    fn messages_are_the_documented_ones(phase: &Phase, text: &str) {
        assert_eq!(message("nightly", phase), text);
    }

    #[test]
    fn a_long_response_is_cut_at_4000_characters_on_a_char_boundary() {
        let response = "é".repeat(5000);
        let text = message("n", &Phase::Completed { response });
        let summary = text.split_once('\n').expect("two lines").1;
        assert_eq!(summary.chars().count(), RESPONSE_SUMMARY_CHARS);
        assert!(summary.ends_with("é…"));
        // Exactly at the limit: nothing is cut.
        let response = "x".repeat(RESPONSE_SUMMARY_CHARS);
        let text = message(
            "n",
            &Phase::Completed {
                response: response.clone(),
            },
        );
        assert!(text.ends_with(&response));
    }

    #[test]
    fn discord_content_is_cut_to_2000_characters() {
        let long = "🪝".repeat(3000);
        let body = webhook_body(NotifierKind::Discord, &long);
        let content = body["content"].as_str().expect("content");
        assert_eq!(content.chars().count(), DISCORD_CONTENT_CHARS);
        assert!(content.ends_with("🪝…"));
        let body = webhook_body(NotifierKind::Slack, &long);
        assert_eq!(
            body["text"].as_str(),
            Some(long.as_str()),
            "Slack takes 4000 and more"
        );
    }

    #[tokio::test]
    async fn each_phase_is_posted_once_to_each_webhook_with_its_body() {
        let discord = HttpStub::replying(Reply::json(204, ""));
        let slack = HttpStub::replying(Reply::json(200, "ok"));
        let notifiers = Notifiers::new(vec![
            target(
                NotifierKind::Discord,
                &format!("{}/api/webhooks/1/tok", discord.url()),
                None,
            ),
            target(
                NotifierKind::Slack,
                &format!("{}/services/T/B/X", slack.url()),
                None,
            ),
        ]);
        let phases = [
            Phase::Started {
                trigger_reason: "periodic".into(),
            },
            Phase::Completed {
                response: "Looks fine.".into(),
            },
            Phase::Skipped {
                reason: "step_1: output empty (skip_llm_if_empty)".into(),
            },
            Phase::Failed {
                error: "provider `openai` did not answer within 5s".into(),
            },
        ];
        for phase in phases {
            notifiers.send("docs check", phase);
        }
        notifiers.drain(Duration::from_secs(5)).await;
        let shown = |stub: &HttpStub| -> Vec<serde_json::Value> {
            stub.requests()
                .iter()
                .map(|r| {
                    json!({
                        "method": r.method,
                        "path": r.path,
                        "content-type": r.header("content-type"),
                        "body": r.json(),
                    })
                })
                .collect()
        };
        // In the order sent: posts to one webhook are chained.
        insta::assert_json_snapshot!("discord", shown(&discord));
        insta::assert_json_snapshot!("slack", shown(&slack));
    }

    #[tokio::test]
    async fn events_filter_which_phases_a_webhook_gets() {
        let stub = HttpStub::replying(Reply::json(200, ""));
        let notifiers = Notifiers::new(vec![target(
            NotifierKind::Slack,
            stub.url(),
            Some(&["failed"]),
        )]);
        notifiers.send(
            "a",
            Phase::Started {
                trigger_reason: "manual".into(),
            },
        );
        notifiers.send(
            "a",
            Phase::Failed {
                error: "boom".into(),
            },
        );
        notifiers.drain(Duration::from_secs(5)).await;
        let bodies: Vec<_> = stub.requests().iter().map(Request::json).collect();
        assert_eq!(bodies, [json!({"text": "🪝 Hook **a** failed: boom"})]);
    }

    #[tokio::test]
    async fn a_failing_webhook_is_not_retried() {
        let stub = HttpStub::replying(Reply::json(500, r#"{"message":"down"}"#));
        let notifiers = Notifiers::new(vec![target(NotifierKind::Discord, stub.url(), None)]);
        notifiers.send("a", Phase::Skipped { reason: "r".into() });
        notifiers.drain(Duration::from_secs(5)).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(stub.requests().len(), 1);
    }

    #[tokio::test]
    async fn send_does_not_wait_for_a_slow_webhook_and_drain_is_bounded() {
        let stub = HttpStub::replying(Reply::json(200, "").after(Duration::from_secs(30)));
        let notifiers = Notifiers::new(vec![target(NotifierKind::Slack, stub.url(), None)]);
        let started = std::time::Instant::now();
        notifiers.send(
            "a",
            Phase::Started {
                trigger_reason: "manual".into(),
            },
        );
        assert!(
            started.elapsed() < Duration::from_millis(500),
            "send blocked"
        );
        while stub.count() < 1 && started.elapsed() < Duration::from_secs(5) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        notifiers.drain(Duration::from_millis(200)).await;
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "drain not bounded"
        );
    }

    #[tokio::test]
    async fn tool_calls_are_coalesced_and_posted_before_the_end_of_the_run() {
        let stub = HttpStub::replying(Reply::json(204, ""));
        // A window longer than the test: the chain is posted only because the run ends.
        let notifiers = Notifiers::coalescing(
            vec![target(NotifierKind::Discord, stub.url(), None)],
            Duration::from_mins(10),
        );
        notifiers.send(
            "docs",
            Phase::Started {
                trigger_reason: "manual".into(),
            },
        );
        let mut chain = Vec::new();
        for tool in ["read_file", "list_files", "create_task"] {
            chain.push(tool.to_owned());
            notifiers.send(
                "docs",
                Phase::Tools {
                    chain: chain.clone(),
                },
            );
        }
        notifiers.send(
            "docs",
            Phase::Completed {
                response: "Filed a task.".into(),
            },
        );
        notifiers.drain(Duration::from_secs(5)).await;
        let contents: Vec<Value> = stub
            .requests()
            .iter()
            .map(|r| r.json()["content"].clone())
            .collect();
        assert_eq!(
            contents,
            [
                json!("🪝 Hook **docs** is running (trigger: `manual`)."),
                json!("🪝 Hook **docs** 🔧 `read_file` → `list_files` → `create_task`"),
                json!(
                    "🪝 Hook **docs** completed.\n🔧 `read_file` → `list_files` → `create_task`\nFiled a task."
                ),
            ]
        );
    }

    #[tokio::test]
    async fn a_window_that_ends_posts_the_chain_so_far() {
        let stub = HttpStub::replying(Reply::json(204, ""));
        let notifiers = Notifiers::coalescing(
            vec![target(NotifierKind::Slack, stub.url(), Some(&["tools"]))],
            Duration::from_millis(10),
        );
        notifiers.send(
            "a",
            Phase::Tools {
                chain: vec!["read_file".into()],
            },
        );
        // The timer runs on this runtime: wait without blocking it.
        for _ in 0..1000 {
            if stub.count() > 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(
            stub.requests()[0].json(),
            json!({"text": "🪝 Hook **a** 🔧 `read_file`"})
        );
        notifiers.drain(Duration::from_secs(5)).await;
        assert_eq!(stub.count(), 1, "posted once");
    }

    #[test]
    fn outside_a_runtime_only_the_log_gets_it() {
        let notifiers = Notifiers::new(vec![target(
            NotifierKind::Slack,
            "http://127.0.0.1:9",
            None,
        )]);
        notifiers.send(
            "a",
            Phase::Started {
                trigger_reason: "manual".into(),
            },
        );
    }
}
