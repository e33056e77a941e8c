//! What a JavaScript plugin's `register(ctx)` subscribed and added, as its host
//! describes it (`--describe`), and the cache of those descriptions that lets a load
//! build the chain without starting Node.js.
//!
//! A plugin's subscriptions exist only once its code has run, while the chain is built
//! from the configuration. The host is therefore asked once per state of the plugin's
//! files, and the answer is kept under the state directory, named by the digest of
//! those files and of the host itself: a load that finds it builds one chain entry per
//! subscription at once; a load that does not (the files changed, or were never
//! described) describes the plugin first, when its code may run at all.

use std::path::{Path, PathBuf};

use hookrig_exec::{Capture, Command, Stderr, Termination};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::plugin::PluginHost;

/// How much of the host's stdout is read: a tool's result is fed to a person or a
/// model, and more than this is a runaway tool.
const STDOUT_CAP: usize = 4 * 1024 * 1024;
/// How much of its stderr is kept for the error it explains.
const STDERR_CAP: usize = 64 * 1024;

/// The host's answer to `--describe` (and to a worker's `{"describe": true}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Described {
    /// Whether the entry was imported and `register(ctx)` returned.
    pub loaded: bool,
    /// Its `ctx.bus.on` subscriptions, in the order they run within the plugin.
    #[serde(default)]
    pub subscriptions: Vec<Subscription>,
    /// Its `ctx.tools.add` tools, in the order they were added.
    #[serde(default)]
    pub tools: Vec<PluginTool>,
    /// Why it did not load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The stack of that failure, as Node.js printed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    /// Whether the host gave no answer within the manifest's `timeout` (hookrig's own
    /// note, never the host's): kept, so that a plugin that hangs at load does not
    /// cost every load its timeout on top of its worker's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
}

/// Why the plugin host gave no answer.
#[derive(Debug)]
struct NoAnswer {
    message: String,
    timed_out: bool,
}

impl From<String> for NoAnswer {
    fn from(message: String) -> Self {
        Self {
            message,
            timed_out: false,
        }
    }
}

/// One `ctx.bus.on` subscription.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Subscription {
    /// The versioned event, `tool.before@v1`.
    pub event: String,
    /// `listener`, `transform` or `veto`.
    pub shape: String,
    /// Its priority (lower runs first): the one it gave, else the plugin's.
    pub priority: serde_json::Number,
    /// Its place in registration order within the plugin: the handler id a chain entry
    /// names when it asks the host to run this handler alone.
    pub index: u32,
}

impl Subscription {
    /// Its priority as a chain entry's: the host accepts integers of `i32` only; a
    /// number outside them (a description hand-edited) is clamped.
    pub fn chain_priority(&self) -> i32 {
        let p = self
            .priority
            .as_f64()
            .unwrap_or_default()
            .round()
            .clamp(f64::from(i32::MIN), f64::from(i32::MAX));
        #[expect(
            clippy::cast_possible_truncation,
            reason = "rounded and clamped to the range of i32"
        )]
        let p = p as i32;
        p
    }
}

/// One tool a plugin added with `ctx.tools.add`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PluginTool {
    /// Its name, unique within the plugin.
    pub name: String,
    /// What it does, for a person or a model.
    #[serde(default)]
    pub description: String,
    /// The JSON schema of its arguments.
    pub schema: Value,
}

/// Runs the plugin host once with `mode` (`--describe`, `--call=TOOL`) in `cwd`, for
/// `agent`, with `stdin` on its stdin, to the manifest's timeout: its one JSON answer,
/// or what went wrong. On a thread of its own, so that it may be called from within an
/// async runtime (a resident engine's load) as well as from a plain thread.
pub fn run_host(
    host: &PluginHost,
    cwd: &Path,
    agent: Option<&str>,
    mode: &str,
    stdin: String,
) -> Result<Value, String> {
    answer(host, cwd, agent, mode, stdin).map_err(|no| no.message)
}

/// [`run_host`], telling a timeout from other failures.
fn answer(
    host: &PluginHost,
    cwd: &Path,
    agent: Option<&str>,
    mode: &str,
    stdin: String,
) -> Result<Value, NoAnswer> {
    let mut argv = host.argv.iter();
    let program = argv.next().cloned().unwrap_or_default();
    let mut command = Command::exec(
        program,
        argv.cloned().chain([mode.to_owned()]),
        cwd.to_owned(),
    );
    for (name, value) in &host.env {
        command = command.env(name.clone(), value.clone());
    }
    if let Some(agent) = agent {
        command = command.env("HOOKRIG_AGENT", agent.to_owned());
    }
    let capture = Capture {
        stdin: stdin.into_bytes(),
        stdout_cap: STDOUT_CAP,
        stderr: Stderr::Capture(STDERR_CAP),
        timeout: Some(host.timeout),
        kill_grace: std::time::Duration::from_secs(1),
    };
    let output = std::thread::scope(|s| {
        s.spawn(move || command.capture_blocking(capture))
            .join()
            .map_err(|_| "the thread running the plugin host failed".to_owned())
    })?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    match &output.termination {
        Termination::Exited(0) => {}
        Termination::TimedOut { .. } => {
            return Err(NoAnswer {
                message: format!(
                    "no answer within its timeout of {} (the manifest's `timeout`)",
                    hookrig_core::display_duration(host.timeout)
                ),
                timed_out: true,
            });
        }
        Termination::SpawnFailed(err) => {
            return Err(NoAnswer::from(format!(
                "cannot start `{}`: {err}; install Node.js (18 or newer) to run JavaScript plugins",
                host.argv.first().map_or("node", String::as_str)
            )));
        }
        other => {
            return Err(NoAnswer::from(format!(
                "the plugin host ended without an answer ({other:?}): {}",
                stderr.trim()
            )));
        }
    }
    let line = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(line.trim()).map_err(|err| {
        NoAnswer::from(format!(
            "the plugin host's answer is not JSON ({err}): {}",
            stderr.trim()
        ))
    })
}

/// Asks the host what the plugin registered, in `cwd` for no agent (a chain is built
/// for every agent alike), and keeps the answer (see [`remember`]). A host that gives
/// no answer within the timeout is a description that says so (`timed_out`).
pub fn describe(host: &PluginHost, cwd: &Path) -> Result<Described, String> {
    let described = match answer(host, cwd, None, "--describe", String::new()) {
        Ok(answer) => serde_json::from_value(answer)
            .map_err(|err| format!("a description that cannot be read: {err}"))?,
        Err(NoAnswer {
            message,
            timed_out: true,
        }) => Described {
            loaded: false,
            subscriptions: Vec::new(),
            tools: Vec::new(),
            error: Some(message),
            stack: None,
            timed_out: true,
        },
        Err(no) => return Err(no.message),
    };
    remember(host, &described);
    Ok(described)
}

/// Keeps `described` as the description of the plugin's files as they are now, when
/// the plugin loaded or timed out. Any other failure to load is not kept, so that the
/// next load tries again (its cause may lie outside the plugin's files: a TypeScript
/// loader not installed yet, a Node.js too old). A cache that cannot be written only
/// costs the next load a Node.js start.
pub fn remember(host: &PluginHost, described: &Described) {
    if !described.loaded && !described.timed_out {
        return;
    }
    let Some(dir) = host.cache.parent() else {
        return;
    };
    let Ok(text) = serde_json::to_vec(described) else {
        return;
    };
    // Written beside, then renamed: a load reading at the same time reads the whole
    // description or none.
    let partial = dir.join(format!(".partial-{}", std::process::id()));
    let _ = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&partial, text))
        .and_then(|()| std::fs::rename(&partial, &host.cache));
}

/// The cached description of the plugin's files as they are now, if any (noted for
/// the engine's config cache, so that a description written later reloads).
pub(crate) fn cached(host: &PluginHost) -> Option<Described> {
    hookrig_config::consulted::note(&host.cache);
    let bytes = std::fs::read(&host.cache).ok()?;
    serde_json::from_slice::<Described>(&bytes)
        .ok()
        .filter(|d| d.loaded || d.timed_out)
}

/// Where the description of the plugin `id` with files of `digest` is kept, under
/// `state_home`; `host` is the digest of the plugin host, since another host may
/// describe the same files otherwise.
pub(crate) fn cache_file(state_home: &Path, id: &str, digest: &str, host: &str) -> PathBuf {
    state_home
        .join("hookrig")
        .join("plugin-descriptions")
        .join(format!("{id}-{digest}-{host}.json"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use test_case::test_case;

    use super::*;

    #[test_case("10", 10; "an integer")]
    #[test_case("-3", -3; "a negative one")]
    #[test_case("1e12", i32::MAX; "a float beyond the range")]
    #[test_case("-4000000000", i32::MIN; "an integer beyond the range")]
    #[test_case("2.6", 3; "a fraction, rounded")]
    fn a_subscriptions_priority_becomes_a_chain_priority(priority: &str, expected: i32) {
        let priority: Value = serde_json::from_str(priority).expect("a number");
        let sub: Subscription = serde_json::from_value(json!({
            "event": "tool.before@v1", "shape": "veto", "priority": priority, "index": 0
        }))
        .expect("a subscription");
        assert_eq!(sub.chain_priority(), expected);
    }

    #[test]
    fn only_a_description_of_a_plugin_that_loaded_is_kept() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let host = PluginHost {
            argv: vec!["node".to_owned()],
            env: Vec::new(),
            timeout: std::time::Duration::from_secs(1),
            cache: cache_file(tmp.path(), "gate", "d1", "h1"),
            worker: None,
        };
        let failed = Described {
            loaded: false,
            subscriptions: Vec::new(),
            tools: Vec::new(),
            error: Some("boom".to_owned()),
            stack: None,
            timed_out: false,
        };
        remember(&host, &failed);
        assert_eq!(cached(&host), None);
        let loaded = Described {
            loaded: true,
            error: None,
            ..failed
        };
        remember(&host, &loaded);
        assert_eq!(cached(&host), Some(loaded));
    }
}
