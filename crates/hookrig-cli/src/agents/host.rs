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
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use hookrig_store::Store;
use serde::{Deserialize, Serialize};

use super::process::start_time;

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
    /// The ledger that holds the agent's row.
    pub(crate) ledger: PathBuf,
    /// The prompt to type into a pseudo-terminal, and the delay between keys.
    pub(crate) keystrokes: Option<Keystrokes>,
}

/// Keystroke injection.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Keystrokes {
    pub(crate) text: String,
    pub(crate) delay_ms: u64,
}

/// How the provider ended.
struct Exit {
    code: Option<i64>,
    signal: Option<i64>,
}

/// Runs the host; its exit code is 0 when the provider started (whatever it did then).
pub(crate) fn run(spec_json: &str) -> u8 {
    // A new session: no controlling terminal, so closing the terminal `spawn` ran in
    // does not hang the agent up, and the host is nobody's foreground job.
    let _ = nix::unistd::setsid();
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
            record(&spec.ledger, |ledger| {
                ledger
                    .agents()
                    .set_exit(&spec.cwd.to_string_lossy(), exit.code, exit.signal)
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

fn record(ledger: &Path, write: impl FnOnce(&mut Store) -> Result<(), hookrig_store::StoreError>) {
    match Store::open(ledger) {
        Ok(mut ledger) => {
            if let Err(err) = write(&mut ledger) {
                eprintln!("hookrig: warning: {err}");
            }
        }
        Err(err) => eprintln!("hookrig: warning: {err}"),
    }
}

fn started(spec: &Spec, pid: u32) {
    let pid = i64::from(pid);
    record(&spec.ledger, |ledger| {
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
            .map_err(|e| format!("cannot open the log: {e}"))
    };
    let mut child = Command::new(&spec.program)
        .args(&spec.args)
        .current_dir(&spec.cwd)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(clone()?)
        .stderr(clone()?)
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", spec.program.display()))?;
    started(spec, child.id());
    let status = child
        .wait()
        .map_err(|e| format!("cannot wait for the provider: {e}"))?;
    Ok(Exit {
        code: status.code().map(i64::from),
        signal: status.signal().map(i64::from),
    })
}

/// The provider on a pseudo-terminal (its own session, the terminal as its controlling
/// one), the prompt typed into it key by key, then Enter; everything it writes to the
/// terminal goes to the log.
fn run_in_pty(spec: &Spec, mut log: File, keys: &Keystrokes) -> Result<Exit, String> {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};

    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .map_err(|e| format!("cannot open a pseudo-terminal: {e}"))?;
    let mut command = CommandBuilder::new(&spec.program);
    command.args(&spec.args);
    command.cwd(&spec.cwd);
    for (key, value) in &spec.env {
        command.env(key, value);
    }
    let mut child = pair
        .slave
        .spawn_command(command)
        .map_err(|e| format!("cannot run {}: {e}", spec.program.display()))?;
    // The provider holds the slave now; ours would keep the terminal open after it
    // exits, and the reader below would never see the end.
    drop(pair.slave);
    let mut reader = pair
        .master
        .try_clone_reader()
        .map_err(|e| format!("cannot read the pseudo-terminal: {e}"))?;
    let mut writer = pair
        .master
        .take_writer()
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
    started(spec, child.process_id().unwrap_or(0));
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
        // Dropping portable-pty's writer types newline and Ctrl-D (end of input), which
        // would end the provider's session: keep it open until the host exits.
        std::mem::forget(writer);
    });
    let status = child
        .wait()
        .map_err(|e| format!("cannot wait for the provider: {e}"))?;
    // A grandchild may hold the terminal open; do not wait for it forever.
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    while !copier.is_finished() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(pair.master);
    Ok(Exit {
        code: status
            .signal()
            .is_none()
            .then(|| i64::from(status.exit_code())),
        signal: status.signal().map(signal_number),
    })
}

/// The number of a signal from the name `strsignal` gave it (portable-pty keeps only
/// the name); 0 for a name it does not know.
fn signal_number(name: &str) -> i64 {
    use nix::sys::signal::Signal;
    if let Some(n) = name.strip_prefix("Signal ").and_then(|n| n.parse().ok()) {
        return n;
    }
    let known = [
        ("Hangup", Signal::SIGHUP),
        ("Interrupt", Signal::SIGINT),
        ("Quit", Signal::SIGQUIT),
        ("Aborted", Signal::SIGABRT),
        ("Killed", Signal::SIGKILL),
        ("Segmentation fault", Signal::SIGSEGV),
        ("Broken pipe", Signal::SIGPIPE),
        ("Terminated", Signal::SIGTERM),
    ];
    known
        .iter()
        .find(|(n, _)| name.starts_with(n))
        .map_or(0, |(_, s)| i64::from(*s as i32))
}
