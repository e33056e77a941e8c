//! Command hooks: what a hook runs ([`CommandDef`]), and a process per run, presented
//! and read by its dialect's protocol.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookrig_core::{
    BoxFuture, Failure, FailureKind, Handler, Invocation, Reply, Report, Verdict, display_duration,
};

use crate::groups::ProcessGroups;
use crate::process::{EnvPolicy, ProcessOutput, ProcessSpec, Termination, run_process};
use crate::protocol::{Protocol, read_reply};
use crate::script::executable_problem;

type Command = CommandDef;

/// What a command hook runs, resolved against the file that declared it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandDef {
    /// A shell line for `sh -c`.
    Shell {
        /// The line, with a leading relative script path made absolute.
        line: String,
        /// The script the line starts with, when it starts with a path.
        script: Option<PathBuf>,
    },
    /// A program and its arguments, no shell.
    Exec {
        /// `argv[0]` resolved when it is a relative path; bare names stay for `PATH`.
        argv: Vec<String>,
    },
    /// An HTTP endpoint that receives the event in a POST request.
    Http {
        /// The URL.
        url: String,
        /// Extra request headers, in file order.
        headers: Vec<(String, String)>,
        /// The environment variable holding the key that signs the body
        /// (`X-Hookrig-Signature`), read when the hook runs.
        secret_env: Option<String>,
    },
}

impl CommandDef {
    /// Whether this command runs `hookrig emit` (any path to a program named `hookrig`,
    /// quoted or not, after any `NAME=value` words), or posts to a resident engine's
    /// `/emit/EVENT?dialect=D` ingress. Such a hook is how a tool makes hookrig its one
    /// hook; hookrig reads that tool's config too, and running it from hookrig would call
    /// hookrig again without end, so the loader leaves these hooks out.
    pub fn calls_hookrig_emit(&self) -> bool {
        let is_hookrig_emit = |program: &str, next: Option<&str>| {
            Path::new(program.trim_matches(['"', '\'']))
                .file_name()
                .is_some_and(|name| name == "hookrig")
                && next == Some("emit")
        };
        match self {
            CommandDef::Shell { line, .. } => {
                // Every emit asks this of every hook loaded, and nearly no line names
                // hookrig: one without the name and without quotes or escapes (which
                // could join it from pieces) needs no splitting into words.
                if !line.contains("hookrig") && !line.contains(['\'', '"', '\\']) {
                    return false;
                }
                let words = leading_words(line);
                let mut words = words
                    .iter()
                    .skip_while(|w| w.contains('=') && !w.starts_with(['=', '/', '.']));
                let program = words.next().map_or("", String::as_str);
                is_hookrig_emit(program, words.next().map(String::as_str))
            }
            CommandDef::Exec { argv } => argv
                .first()
                .is_some_and(|program| is_hookrig_emit(program, argv.get(1).map(String::as_str))),
            CommandDef::Http { url, .. } => url.strip_prefix("http://").is_some_and(|rest| {
                let path = rest.find('/').map_or("", |i| &rest[i..]);
                path.starts_with("/emit/") && path.contains("dialect=")
            }),
        }
    }
}

/// The first eight words of a shell command line with their quotes taken off (`'a b'`
/// and `"a b"` are one word, a backslash escapes the next character): enough to see
/// which program a line runs, after any `NAME=value` words before it.
fn leading_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                word.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
                if words.len() >= 8 {
                    return words;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Limits that apply to every run of a command hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// `None` = no timeout.
    pub timeout: Option<Duration>,
    /// Between SIGTERM and SIGKILL.
    pub kill_grace: Duration,
    /// Bytes of stdout kept.
    pub stdout_cap: usize,
    /// Bytes of stderr kept.
    pub stderr_cap: usize,
}

impl Limits {
    /// The default timeout of a native hook.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
    /// The default grace period between SIGTERM and SIGKILL.
    pub const DEFAULT_KILL_GRACE: Duration = Duration::from_secs(5);
    /// 1 MiB of stdout: a verdict is small; more is a runaway hook.
    pub const STDOUT_CAP: usize = 1024 * 1024;
    /// 64 KiB of stderr: enough for a reason and a stack trace.
    pub const STDERR_CAP: usize = 64 * 1024;
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout: Some(Self::DEFAULT_TIMEOUT),
            kill_grace: Self::DEFAULT_KILL_GRACE,
            stdout_cap: Self::STDOUT_CAP,
            stderr_cap: Self::STDERR_CAP,
        }
    }
}

/// A hook that runs a process.
#[derive(Debug, Clone)]
pub struct CommandHandler {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    name: String,
    command: Command,
    env: Vec<(String, String)>,
    limits: Limits,
    protocol: Arc<dyn Protocol>,
    groups: ProcessGroups,
}

impl CommandHandler {
    /// A handler for the hook `name`. `groups` is shared by every handler of the process
    /// so that a signal to hookrig can kill every running hook.
    pub fn new(
        name: impl Into<String>,
        command: Command,
        env: Vec<(String, String)>,
        limits: Limits,
        protocol: Arc<dyn Protocol>,
        groups: ProcessGroups,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                name: name.into(),
                command,
                env,
                limits,
                protocol,
                groups,
            }),
        }
    }
}

impl Handler for CommandHandler {
    fn run(&self, invocation: Invocation) -> BoxFuture<Report> {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { inner.run(invocation).await })
    }
}

impl Inner {
    async fn run(&self, invocation: Invocation) -> Report {
        let event = invocation.context.name.clone();
        if !self.protocol.runs_for(&invocation) {
            return Report::from_reply(Reply::Verdict(Verdict::allow()), Duration::ZERO);
        }
        if let Some(problem) = self.cannot_start() {
            let message = format!("hook {}: {problem}", self.name);
            let (who, what) = self.protocol.log_names(&self.name, event.as_str());
            tracing::debug!("hooks.exec-error {who} {what}: {message}");
            return Report::from_reply(
                Reply::Failure(Failure {
                    kind: FailureKind::Spawn,
                    message,
                }),
                Duration::ZERO,
            );
        }
        let (program, args, line_env) = self.argv(&invocation);
        let mut env = self.protocol.env(&self.name, &invocation, &self.env);
        // Last, so that the values the line reads are the ones it was built for.
        let (EnvPolicy::Inherit { set } | EnvPolicy::Only { set, .. }) = &mut env;
        set.extend(line_env);
        if let Some(host) = &invocation.context.env {
            env = env.for_host(host);
        }
        let spec = ProcessSpec {
            program,
            args,
            cwd: invocation.context.cwd.clone(),
            env,
            stdin: self.protocol.stdin(&self.name, &invocation),
            timeout: self.limits.timeout,
            kill_grace: self.limits.kill_grace,
            stdout_cap: self.limits.stdout_cap,
            stderr_cap: self.limits.stderr_cap,
        };
        let output = run_process(spec, &self.groups).await;
        let reply = read_reply(
            self.protocol.as_ref(),
            &self.name,
            &self.limits,
            &invocation,
            &output,
        );
        let (who, what) = self.protocol.log_names(&self.name, event.as_str());
        log_run(who, what, &output, &reply);
        report(reply, &output)
    }

    /// Why the hook cannot be started, checked before spawning so the failure says which
    /// file and what to do.
    fn cannot_start(&self) -> Option<String> {
        if let Command::Shell {
            script: Some(script),
            ..
        } = &self.command
            && let Some(problem) = executable_problem(script)
        {
            return Some(problem);
        }
        if let Command::Http { url, .. } = &self.command {
            return Some(format!(
                "cannot call {url}: this command handler runs processes, not HTTP hooks"
            ));
        }
        self.protocol.prepare(&self.command).err()
    }

    /// The program, its arguments, and the environment variables a shell line reads.
    fn argv(&self, invocation: &Invocation) -> (OsString, Vec<OsString>, Vec<(String, String)>) {
        let extra = self.protocol.args(invocation);
        match &self.command {
            Command::Shell { line, .. } => {
                let (line, vars) = self.protocol.command_line(line, invocation);
                let mut args = vec![OsString::from("-c"), OsString::from(line.as_ref())];
                if !extra.is_empty() {
                    // `sh -c LINE NAME ARGS...`: the line sees ARGS as $1, $2, ...
                    args.push(OsString::from("sh"));
                    args.extend(extra);
                }
                (self.protocol.shell(), args, vars)
            }
            Command::Exec { argv } => {
                let mut argv = argv.iter().map(OsString::from);
                let program = argv.next().unwrap_or_default();
                (program, argv.chain(extra).collect(), Vec::new())
            }
            Command::Http { url, .. } => (OsString::from(url), extra, Vec::new()),
        }
    }
}

/// How much of a hook's output the ledger keeps.
const EXCERPT: usize = 4096;

fn report(reply: Reply, output: &ProcessOutput) -> Report {
    let exit_code = match output.termination {
        Termination::Exited(code) => Some(code),
        _ => None,
    };
    Report {
        reply,
        exit_code,
        duration: output.duration,
        stdout: excerpt(&output.stdout),
        stderr: excerpt(&output.stderr),
        truncated: output.stdout_truncated
            || output.stderr_truncated
            || output.stdout.len() > EXCERPT
            || output.stderr.len() > EXCERPT,
    }
}

fn excerpt(bytes: &[u8]) -> Option<String> {
    if bytes.is_empty() {
        return None;
    }
    let cut = &bytes[..bytes.len().min(EXCERPT)];
    Some(String::from_utf8_lossy(cut).into_owned())
}

/// One debug line per run, tagged so logs can be grepped the same way whatever the
/// dialect.
fn log_run(name: &str, event: &str, output: &ProcessOutput, reply: &Reply) {
    let ms = hookrig_core::duration_ms(output.duration);
    match (reply, &output.termination) {
        (Reply::Verdict(verdict), _) => tracing::debug!(
            "hooks.exec-ran {name} {event}: decision={} ({ms} ms)",
            verdict.action.as_str()
        ),
        (Reply::Failure(failure), Termination::TimedOut { after, .. }) => tracing::debug!(
            "hooks.exec-timeout {name} {event}: {} (after {})",
            failure.message,
            display_duration(*after)
        ),
        (Reply::Failure(failure), Termination::Exited(code)) if *code != 0 => tracing::debug!(
            "hooks.exec-nonzero {name} {event}: exit {code}: {} ({ms} ms)",
            failure.message
        ),
        (Reply::Failure(failure), _) => {
            tracing::debug!("hooks.exec-error {name} {event}: {}", failure.message);
        }
    }
    log_output(name, event, "stdout", &output.stdout);
    log_output(name, event, "stderr", &output.stderr);
}

/// How many lines of a hook's stdout or stderr `--debug` shows.
const DEBUG_LINES: usize = 20;

/// What the hook printed, one debug line per line of it (the first [`DEBUG_LINES`] of
/// the ledger's excerpt): a Hence hook's output has nowhere else to be seen live.
fn log_output(name: &str, event: &str, stream: &str, bytes: &[u8]) {
    if !tracing::enabled!(tracing::Level::DEBUG) {
        return;
    }
    let Some(text) = excerpt(bytes) else {
        return;
    };
    let lines: Vec<&str> = text.trim_end().lines().collect();
    for line in lines.iter().take(DEBUG_LINES) {
        tracing::debug!("hooks.exec-{stream} {name} {event}: {line}");
    }
    if lines.len() > DEBUG_LINES || bytes.len() > EXCERPT {
        tracing::debug!(
            "hooks.exec-{stream} {name} {event}: ... cut; `hookrig why RUN --json` shows the first {EXCERPT} bytes"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(line: &str) -> CommandDef {
        CommandDef::Shell {
            line: line.to_owned(),
            script: None,
        }
    }

    #[test]
    fn commands_that_call_hookrig_emit() {
        assert!(shell("hookrig emit --dialect claude").calls_hookrig_emit());
        assert!(shell("/usr/local/bin/hookrig emit").calls_hookrig_emit());
        assert!(
            shell("X_CODE_HOME=/nonexistent hookrig emit --dialect xcode || true")
                .calls_hookrig_emit()
        );
        assert!(
            CommandDef::Exec {
                argv: vec![
                    "hookrig".into(),
                    "emit".into(),
                    "--dialect".into(),
                    "hygge".into()
                ]
            }
            .calls_hookrig_emit()
        );
        // guards: `hookrig install` writes hookrig's path quoted when it holds a space
        assert!(shell("'/opt/my tools/hookrig' emit --dialect claude").calls_hookrig_emit());
        assert!(shell("\"/opt/my tools/hookrig\" emit").calls_hookrig_emit());
        assert!(
            CommandDef::Http {
                url: "http://127.0.0.1:7700/emit/Stop?dialect=claude".into(),
                headers: Vec::new(),
                secret_env: None,
            }
            .calls_hookrig_emit()
        );
        assert!(
            !CommandDef::Http {
                url: "http://127.0.0.1:7700/audit".into(),
                headers: Vec::new(),
                secret_env: None,
            }
            .calls_hookrig_emit()
        );
        // guards: the name joined from quoted or escaped pieces is still hookrig's
        assert!(shell("hook'rig' emit").calls_hookrig_emit());
        assert!(shell("hook\\rig emit").calls_hookrig_emit());
        assert!(!shell("true").calls_hookrig_emit());
        assert!(!shell("hookrig list").calls_hookrig_emit());
        assert!(!shell("./hookrig-guard.sh emit").calls_hookrig_emit());
        assert!(
            !CommandDef::Exec {
                argv: vec!["hookrig".into()]
            }
            .calls_hookrig_emit()
        );
    }
}
