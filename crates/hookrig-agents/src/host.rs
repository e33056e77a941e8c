//! The host: a small detached `hookrig agent __host SPEC` process that starts the
//! provider, feeds its pseudo-terminal when the prompt is typed, and waits for it.
//!
//! `spawn` must return while the provider runs on, yet someone has to hold the master
//! side of a pseudo-terminal (closing it hangs the provider up), copy its output to the
//! log, and reap the provider to learn its exit. `spawn` therefore re-executes hookrig
//! as this host, detached (a new session via `setsid`, stdin from `/dev/null`, stderr to
//! the log), and reads one line from it: the provider's pid, or why it did not start.
//! The host records the pid and, later, the exit in the ledger, then ends.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Duration;

use hookrig_exec::{Command, Detached, EnvPolicy, Exit, Grouping, Program, Stream, TerminalSize};
use hookrig_store::AgentRecords;
use serde::{Deserialize, Serialize};

use crate::process::start_time;

/// The size of the pseudo-terminal a provider that is typed to runs on.
const TERMINAL: TerminalSize = TerminalSize {
    rows: 40,
    cols: 120,
};

/// What the host starts, passed as JSON on its command line.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Spec {
    /// The provider's executable.
    pub(crate) program: PathBuf,
    /// Its arguments.
    pub(crate) args: Vec<String>,
    /// The worktree: its working directory, and the ledger row's key.
    pub(crate) cwd: PathBuf,
    /// Variables set on top of the inherited environment.
    pub(crate) env: Vec<(String, String)>,
    /// The log file (appended to).
    pub(crate) log: PathBuf,
    /// The ledger that holds the agent's row, unless the user's `config.toml` (in
    /// `config_home`) names a shared store: the host finds where the row is as `spawn`
    /// did ([`agents_at`](crate::agents_at)), so that no URL is on its command line.
    pub(crate) ledger: PathBuf,
    /// The user's config directory.
    #[serde(default)]
    pub(crate) config_home: PathBuf,
    /// The prompt to type into a pseudo-terminal, and the delay between keys.
    pub(crate) keystrokes: Option<Keystrokes>,
}

impl Spec {
    /// The provider as the one description of a child process.
    fn command(&self) -> Command {
        Command {
            program: Program::Exec {
                program: self.program.clone().into_os_string(),
                args: self.args.iter().map(Into::into).collect(),
            },
            cwd: self.cwd.clone(),
            env: EnvPolicy::Inherit {
                set: self.env.clone(),
            },
        }
    }
}

/// Keystroke injection.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Keystrokes {
    pub(crate) text: String,
    pub(crate) delay_ms: u64,
}

/// Runs the host, started by `spawn` in a session of its own with `spec_json` (see
/// [`spawn`](fn@crate::spawn)); its exit code is 0 when the provider started (whatever it
/// did then).
pub fn run_host(spec_json: &str) -> u8 {
    let spec: Spec = match serde_json::from_str(spec_json) {
        Ok(spec) => spec,
        Err(err) => {
            report(&format!("error invalid host spec: {err}"));
            return 1;
        }
    };
    let log = match OpenOptions::new().create(true).append(true).open(&spec.log) {
        Ok(log) => log,
        Err(err) => {
            report(&format!(
                "error cannot open the log {}: {err}",
                spec.log.display()
            ));
            return 1;
        }
    };
    let exit = match &spec.keystrokes {
        None => run_piped(&spec, &log),
        Some(keys) => run_in_pty(&spec, log, keys),
    };
    match exit {
        Ok(exit) => {
            record(&spec, |ledger| {
                ledger.agents().set_exit(
                    &spec.cwd.to_string_lossy(),
                    exit.code.map(i64::from),
                    exit.signal.map(i64::from),
                )
            });
            0
        }
        Err(message) => {
            report(&format!("error {message}"));
            1
        }
    }
}

/// Tells `spawn` (reading our stdout) one line, then lets go of the pipe.
fn report(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Closes stdout for good: `spawn` has read its line and may be gone, and nothing more
/// is written there.
fn close_stdout() {
    if let Ok(null) = File::open("/dev/null") {
        let _ = nix::unistd::dup2_stdout(null);
    }
}

fn record(spec: &Spec, write: impl FnOnce(&AgentRecords) -> Result<(), hookrig_store::StoreError>) {
    match crate::agents_at(&spec.ledger, &spec.config_home).open() {
        Ok(ledger) => {
            if let Err(err) = write(&ledger) {
                eprintln!("hookrig: warning: {err}");
            }
        }
        Err(err) => eprintln!("hookrig: warning: {err}"),
    }
}

fn started(spec: &Spec, pid: u32) {
    let pid = i64::from(pid);
    record(spec, |ledger| {
        ledger
            .agents()
            .set_pid(&spec.cwd.to_string_lossy(), pid, start_time(pid))
    });
    report(&format!("pid {pid}"));
    close_stdout();
}

/// Output to the log, stdin from `/dev/null`, in a process group of its own so that
/// `stop` reaches it and everything it starts.
fn run_piped(spec: &Spec, log: &File) -> Result<Exit, String> {
    let clone = || {
        log.try_clone()
            .map(Stream::File)
            .map_err(|e| format!("cannot open the log: {e}"))
    };
    let detached = Detached {
        stdout: clone()?,
        stderr: clone()?,
        grouping: Grouping::Group,
    };
    let mut child = spec
        .command()
        .spawn_detached(detached)
        .map_err(|e| e.to_string())?;
    started(spec, child.pid());
    child
        .wait()
        .map_err(|e| format!("cannot wait for the provider: {e}"))
}

/// The provider on a pseudo-terminal (its own session, the terminal as its controlling
/// one), the prompt typed into it key by key, then Enter; everything it writes to the
/// terminal goes to the log.
fn run_in_pty(spec: &Spec, mut log: File, keys: &Keystrokes) -> Result<Exit, String> {
    let mut child = spec
        .command()
        .spawn_in_pty(TERMINAL)
        .map_err(|e| e.to_string())?;
    let mut reader = child
        .reader()
        .map_err(|e| format!("cannot read the pseudo-terminal: {e}"))?;
    let mut writer = child
        .writer()
        .map_err(|e| format!("cannot write to the pseudo-terminal: {e}"))?;
    let copier = std::thread::spawn(move || {
        let mut buf = [0_u8; 8192];
        // EIO is how Linux says every slave is closed: the end of the output.
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || log.write_all(&buf[..n]).is_err() {
                break;
            }
        }
    });
    started(spec, child.pid().unwrap_or(0));
    let delay = Duration::from_millis(keys.delay_ms);
    let text = keys.text.clone();
    // Typed on its own thread so that a provider that never reads (its terminal
    // buffer full) cannot keep the host from reaping it.
    std::thread::spawn(move || {
        let mut utf8 = [0_u8; 4];
        for c in text.chars() {
            // A line break is typed as LF (Ctrl-J), which line editors take as a new
            // line within the input; Enter (CR) submits, once, at the end.
            let bytes = c.encode_utf8(&mut utf8).as_bytes();
            if writer.write_all(bytes).is_err() || writer.flush().is_err() {
                break;
            }
            std::thread::sleep(delay);
        }
        let _ = writer.write_all(b"\r");
        let _ = writer.flush();
    });
    let exit = child
        .wait()
        .map_err(|e| format!("cannot wait for the provider: {e}"))?;
    // A grandchild may hold the terminal open; do not wait for it forever.
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    while !copier.is_finished() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(child);
    Ok(exit)
}
