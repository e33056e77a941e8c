//! Running a command to completion with input, without ever hanging a test.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long [`run_with_input`] waits for a command before it kills it and fails the
/// test. Far longer than anything a test here should take, even on a loaded two-core
/// machine: it only turns a hang into a failure.
pub const HANG_LIMIT: Duration = Duration::from_mins(1);

/// Runs `command` with `stdin` written to its standard input (then closed), captures its
/// stdout and stderr, and returns when it has exited.
///
/// # Panics
///
/// When the command cannot be started, or when it is still running after `limit` (it is
/// killed first): a hang is a test failure, not a reason to wait forever.
pub fn run_with_input(mut command: Command, stdin: &[u8], limit: Duration) -> Output {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .unwrap_or_else(|err| panic!("cannot start {command:?}: {err}"));
    let input = child.stdin.take().map(|mut pipe| {
        let bytes = stdin.to_vec();
        // A command that exits without reading its input closes the pipe: not an error.
        thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        })
    });
    let stdout = read_all(child.stdout.take());
    let stderr = read_all(child.stderr.take());
    let status = wait_or_kill(&mut child, limit, &command);
    if let Some(input) = input {
        let _ = input.join();
    }
    Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

fn read_all<R: Read + Send + 'static>(pipe: Option<R>) -> JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

fn wait_or_kill(child: &mut Child, limit: Duration, command: &Command) -> std::process::ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status,
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{command:?} still ran after {limit:?}: killed it");
            }
            Err(err) => panic!("cannot wait for {command:?}: {err}"),
        }
    }
}

/// Polls `ready` until it answers.
///
/// # Panics
///
/// When it has not answered within `within`: the test fails, naming `what`.
pub fn wait_until<T>(what: &str, within: Duration, mut ready: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + within;
    loop {
        if let Some(found) = ready() {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what} ({within:?})"
        );
        thread::sleep(Duration::from_millis(20));
    }
}

/// Waits up to `within` for `path` to exist; returns whether it does.
pub fn wait_for_file(path: &Path, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while !path.exists() {
        if Instant::now() >= deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(10));
    }
    true
}
