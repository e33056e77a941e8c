//! `run_process` against real `sh` scripts.
//!
//! Timeouts are short, but no test asserts a tight upper bound on elapsed time: the
//! machines that run these are shared and noisy. Behaviour is asserted by the outcome and
//! by which processes are left, found by a marker unique to each test in their command
//! line.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hookrig_exec::process::SpawnErrorKind;
use hookrig_exec::{
    EnvPolicy, ProcessGroups, ProcessOutput, ProcessSpec, Termination, run_process,
};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// Generous bound for "returned promptly" on a loaded two-core machine.
const PROMPTLY: Duration = Duration::from_secs(10);

/// A temporary directory whose path is unique to one test and serves as a marker: the
/// hooks of the test run `$dir/sleep` (a symlink to the real `sleep`) and scripts from it,
/// so every process they start carries the path in its command line.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("hookrig-exec-test-")
            .tempdir()
            .expect("create a temporary directory");
        let sleep = find_in_path("sleep");
        std::os::unix::fs::symlink(sleep, dir.path().join("sleep")).expect("symlink sleep");
        Self { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn marker(&self) -> String {
        self.path().to_str().expect("UTF-8 temp path").to_owned()
    }

    /// The marked `sleep`, quoted for `sh`.
    fn sleep(&self) -> String {
        format!("'{}/sleep'", self.marker())
    }

    /// `sh -c script` in the sandbox, with a safety timeout so that a broken runner fails
    /// the test instead of hanging it.
    fn spec(&self, script: &str) -> ProcessSpec {
        ProcessSpec {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            cwd: self.path().to_owned(),
            env: EnvPolicy::Inherit { set: vec![] },
            stdin: vec![],
            timeout: Some(Duration::from_mins(1)),
            kill_grace: Duration::from_millis(300),
            stdout_cap: 1 << 20,
            stderr_cap: 1 << 20,
        }
    }

    /// Live processes (not zombies) whose command line contains the marker.
    fn survivors(&self) -> Vec<(i32, String)> {
        let marker = self.marker();
        let mut found = Vec::new();
        let Ok(entries) = fs::read_dir("/proc") else {
            return found;
        };
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<i32>().ok())
            else {
                continue;
            };
            // A zombie has an empty command line; a process that exited meanwhile has none.
            let Ok(cmdline) = fs::read(entry.path().join("cmdline")) else {
                continue;
            };
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(&marker) {
                found.push((pid, cmdline));
            }
        }
        found
    }

    /// Waits until no marked process is alive. SIGKILL is delivered asynchronously, so a
    /// killed process may need a moment to disappear; one that is still there after
    /// [`PROMPTLY`] was not killed.
    async fn assert_no_survivors(&self) {
        let start = Instant::now();
        loop {
            let survivors = self.survivors();
            if survivors.is_empty() {
                return;
            }
            assert!(
                start.elapsed() < PROMPTLY,
                "processes of the hook survived: {survivors:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for Sandbox {
    /// A failing test must not leave its processes behind.
    fn drop(&mut self) {
        for (pid, _) in self.survivors() {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}

fn find_in_path(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").expect("PATH is set");
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| panic!("{name} not found in PATH"))
}

async fn run(spec: ProcessSpec) -> ProcessOutput {
    run_process(spec, &ProcessGroups::new()).await
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("UTF-8 output")
}

fn spawn_failure(output: &ProcessOutput) -> &hookrig_exec::process::SpawnError {
    match &output.termination {
        Termination::SpawnFailed(error) => error,
        other => panic!("expected a spawn failure, got {other:?}"),
    }
}

#[tokio::test]
async fn exit_codes_are_reported() {
    let sandbox = Sandbox::new();
    for code in [0, 1, 3, 255] {
        let output = run(sandbox.spec(&format!("exit {code}"))).await;
        assert_eq!(output.termination, Termination::Exited(code));
        assert!(!output.leaked);
    }
}

#[tokio::test]
async fn a_signal_we_did_not_send_is_reported() {
    let sandbox = Sandbox::new();
    let output = run(sandbox.spec("kill -KILL $$")).await;
    assert_eq!(output.termination, Termination::Signaled(9));
    let output = run(sandbox.spec("kill -TERM $$")).await;
    assert_eq!(output.termination, Termination::Signaled(15));
}

#[tokio::test]
async fn stdout_and_stderr_are_captured_separately() {
    let sandbox = Sandbox::new();
    let output = run(sandbox.spec("printf 'out\\n'; printf 'err\\n' >&2; exit 4")).await;
    assert_eq!(output.termination, Termination::Exited(4));
    assert_eq!(text(&output.stdout), "out\n");
    assert_eq!(text(&output.stderr), "err\n");
    assert!(!output.stdout_truncated && !output.stderr_truncated);
    assert!(!output.leaked);
    assert!(output.duration > Duration::ZERO);
}

#[tokio::test]
async fn stdin_arrives_exactly() {
    let sandbox = Sandbox::new();
    // Every byte value, and more than a pipe holds, so that writing must wait for reading.
    let input: Vec<u8> = (0..=255u8).cycle().take(300_000).collect();
    let mut spec = sandbox.spec("cat > stdin.bin");
    spec.stdin.clone_from(&input);
    let output = run(spec).await;
    assert_eq!(output.termination, Termination::Exited(0));
    let received = fs::read(sandbox.path().join("stdin.bin")).expect("read stdin.bin");
    assert!(received == input, "stdin differs: {} bytes", received.len());
}

#[tokio::test]
async fn stdin_the_hook_does_not_read_is_not_an_error() {
    let sandbox = Sandbox::new();
    for script in ["exit 0", "head -c 10 > /dev/null; exit 0"] {
        let mut spec = sandbox.spec(script);
        spec.stdin = vec![b'x'; 1 << 20];
        let output = run(spec).await;
        assert_eq!(output.termination, Termination::Exited(0), "{script}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_output_is_capped_and_drained() {
    let sandbox = Sandbox::new();
    let mut spec = sandbox.spec(
        "head -c 200000000 /dev/zero & head -c 200000000 /dev/zero >&2; wait; echo done > done",
    );
    spec.stdout_cap = 1000;
    spec.stderr_cap = 4096;
    let output = run(spec).await;
    // The safety timeout would have ended it as TimedOut had the hook blocked on a pipe.
    assert_eq!(output.termination, Termination::Exited(0));
    assert_eq!(output.stdout.len(), 1000);
    assert_eq!(output.stderr.len(), 4096);
    assert!(output.stdout.iter().chain(&output.stderr).all(|&b| b == 0));
    assert!(output.stdout_truncated && output.stderr_truncated);
    assert!(!output.leaked);
    assert!(
        sandbox.path().join("done").exists(),
        "the hook ran to its end"
    );
}

#[tokio::test]
async fn output_of_exactly_the_cap_is_not_truncated() {
    let sandbox = Sandbox::new();
    let mut spec = sandbox.spec("printf 12345; printf abc >&2");
    spec.stdout_cap = 5;
    spec.stderr_cap = 2;
    let output = run(spec).await;
    assert_eq!(text(&output.stdout), "12345");
    assert!(!output.stdout_truncated);
    assert_eq!(text(&output.stderr), "ab");
    assert!(output.stderr_truncated);
}

#[tokio::test]
async fn timeout_kills_the_group_with_its_background_grandchild() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    let mut spec = sandbox.spec(&format!("{sleep} 300 & {sleep} 300"));
    spec.timeout = Some(Duration::from_millis(300));
    spec.kill_grace = Duration::from_secs(5);
    let start = Instant::now();
    let output = run(spec).await;
    assert_eq!(
        output.termination,
        Termination::TimedOut {
            after: Duration::from_millis(300),
            killed: false
        }
    );
    assert!(start.elapsed() < PROMPTLY);
    sandbox.assert_no_survivors().await;
}

// guards: a grandchild that ignores SIGTERM outliving a main process that did not. Its
// output goes elsewhere, so that the leak timeout (which also kills the group) does not
// cover for a missing kill after the timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_kills_a_grandchild_that_ignores_sigterm() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    let mut spec = sandbox.spec(&format!(
        "(trap '' TERM; touch ready; exec {sleep} 300 < /dev/null > /dev/null 2>&1) & \
         while [ ! -e ready ]; do {sleep} 0.01; done; {sleep} 300"
    ));
    spec.timeout = Some(Duration::from_millis(500));
    spec.kill_grace = Duration::from_millis(300);
    let output = run(spec).await;
    assert!(
        sandbox.path().join("ready").exists(),
        "the grandchild started"
    );
    // The main process died of SIGTERM at once, but the grace period is for the whole
    // group: the grandchild that ignores SIGTERM needed SIGKILL when it ran out.
    assert!(
        matches!(
            output.termination,
            Termination::TimedOut { killed: true, .. }
        ),
        "{:?}",
        output.termination
    );
    sandbox.assert_no_survivors().await;
}

#[tokio::test]
async fn a_hook_that_ignores_sigterm_is_killed_after_the_grace_period() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    let mut spec = sandbox.spec(&format!("trap '' TERM; {sleep} 300 & {sleep} 300"));
    spec.timeout = Some(Duration::from_millis(300));
    spec.kill_grace = Duration::from_millis(300);
    let output = run(spec).await;
    assert_eq!(
        output.termination,
        Termination::TimedOut {
            after: Duration::from_millis(300),
            killed: true
        }
    );
    sandbox.assert_no_survivors().await;
}

// guards: a zero kill grace sends SIGKILL alone (automation steps rely on it), not a
// SIGTERM whose trap would start and be cut off. The hook traps TERM in a loop of
// builtins, which runs the trap within microseconds of the signal; with SIGKILL alone
// the trap never runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zero_kill_grace_sends_sigkill_alone() {
    let sandbox = Sandbox::new();
    let mut spec =
        sandbox.spec("trap 'echo term > got-term; exit 0' TERM; touch ready; while :; do :; done");
    spec.timeout = Some(Duration::from_millis(300));
    spec.kill_grace = Duration::ZERO;
    let output = run(spec).await;
    assert!(sandbox.path().join("ready").exists(), "the hook started");
    assert_eq!(
        output.termination,
        Termination::TimedOut {
            after: Duration::from_millis(300),
            killed: true
        }
    );
    assert!(
        !sandbox.path().join("got-term").exists(),
        "the hook was sent SIGTERM"
    );
    sandbox.assert_no_survivors().await;
}

#[tokio::test]
async fn a_zero_kill_grace_reports_a_kill_even_for_a_hook_that_would_die_of_sigterm() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    let mut spec = sandbox.spec(&format!("exec {sleep} 300"));
    spec.timeout = Some(Duration::from_millis(300));
    spec.kill_grace = Duration::ZERO;
    let output = run(spec).await;
    assert!(
        matches!(
            output.termination,
            Termination::TimedOut { killed: true, .. }
        ),
        "{:?}",
        output.termination
    );
    sandbox.assert_no_survivors().await;
}

#[tokio::test]
async fn a_grandchild_holding_the_pipes_is_killed_after_the_leak_timeout() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    let start = Instant::now();
    let output = run(sandbox.spec(&format!("echo hello; {sleep} 30 & exit 0"))).await;
    assert_eq!(output.termination, Termination::Exited(0));
    assert!(output.leaked);
    assert_eq!(
        text(&output.stdout),
        "hello\n",
        "output before the exit is kept"
    );
    assert!(start.elapsed() < PROMPTLY);
    sandbox.assert_no_survivors().await;
}

#[tokio::test]
async fn a_background_process_that_closed_the_pipes_is_not_a_leak() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    let script = format!("{sleep} 30 < /dev/null > /dev/null 2>&1 & echo hello");
    let output = run(sandbox.spec(&script)).await;
    assert_eq!(output.termination, Termination::Exited(0));
    assert!(!output.leaked);
    assert_eq!(text(&output.stdout), "hello\n");
    // The sandbox kills the detached sleep when dropped.
}

#[tokio::test]
async fn a_grandchild_that_left_the_group_does_not_hang_the_run() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    let start = Instant::now();
    let output = run(sandbox.spec(&format!("echo hello; setsid {sleep} 30 & exit 0"))).await;
    assert_eq!(output.termination, Termination::Exited(0));
    assert!(output.leaked);
    assert_eq!(
        text(&output.stdout),
        "hello\n",
        "reading stopped, output kept"
    );
    assert!(start.elapsed() < PROMPTLY);
    // It escaped the group, so it is still alive: the test exercised what it means to.
    assert!(
        !sandbox.survivors().is_empty(),
        "the setsid grandchild should still run"
    );
    // The sandbox kills it when dropped.
}

#[tokio::test]
async fn a_timed_out_hook_with_an_escaped_grandchild_returns() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    let mut spec = sandbox.spec(&format!("setsid {sleep} 30 & {sleep} 300"));
    spec.timeout = Some(Duration::from_millis(300));
    let start = Instant::now();
    let output = run(spec).await;
    assert!(
        matches!(output.termination, Termination::TimedOut { .. }),
        "{:?}",
        output.termination
    );
    assert!(output.leaked);
    assert!(start.elapsed() < PROMPTLY);
}

#[tokio::test]
async fn a_missing_program_is_a_spawn_failure() {
    let sandbox = Sandbox::new();
    let mut spec = sandbox.spec("");
    spec.program = "hookrig-surely-not-a-command".into();
    spec.args.clear();
    let output = run(spec.clone()).await;
    let error = spawn_failure(&output);
    assert_eq!(error.kind, SpawnErrorKind::NotFound);
    assert_eq!(
        error.to_string(),
        "command 'hookrig-surely-not-a-command' not found in PATH"
    );
    assert_eq!(output.duration, Duration::ZERO);

    spec.program = "/nonexistent-hookrig/hook".into();
    let output = run(spec).await;
    let error = spawn_failure(&output);
    assert_eq!(error.kind, SpawnErrorKind::NotFound);
    assert_eq!(
        error.to_string(),
        "cannot run /nonexistent-hookrig/hook: no such file or directory"
    );
}

#[tokio::test]
async fn a_non_executable_script_is_a_spawn_failure_with_a_hint() {
    let sandbox = Sandbox::new();
    let script = sandbox.path().join("hook.sh");
    fs::write(&script, "#!/bin/sh\nexit 0\n").expect("write the script");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o644)).expect("chmod 644");
    for program in [script.clone().into_os_string(), OsString::from("./hook.sh")] {
        let mut spec = sandbox.spec("");
        spec.program = program;
        spec.args.clear();
        let output = run(spec).await;
        let error = spawn_failure(&output);
        assert_eq!(error.kind, SpawnErrorKind::PermissionDenied);
        assert_eq!(error.program, script.as_os_str());
        let path = script.display();
        assert_eq!(
            error.to_string(),
            format!("cannot run {path}: permission denied (try `chmod +x {path}`)")
        );
    }
}

#[tokio::test]
async fn a_relative_program_runs_from_the_working_directory() {
    let sandbox = Sandbox::new();
    let script = sandbox.path().join("hook.sh");
    fs::write(&script, "#!/bin/sh\nprintf 'ran %s' \"$1\"\n").expect("write the script");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).expect("chmod 755");
    let mut spec = sandbox.spec("");
    spec.program = "./hook.sh".into();
    spec.args = vec!["here".into()];
    let output = run(spec).await;
    assert_eq!(output.termination, Termination::Exited(0));
    assert_eq!(text(&output.stdout), "ran here");
}

#[tokio::test]
async fn a_missing_working_directory_is_named_in_the_failure() {
    let sandbox = Sandbox::new();
    let mut spec = sandbox.spec("exit 0");
    spec.cwd = sandbox.path().join("gone");
    let output = run(spec).await;
    let error = spawn_failure(&output);
    assert_eq!(error.kind, SpawnErrorKind::Other);
    assert!(error.to_string().contains("working directory"), "{error}");
}

#[tokio::test]
async fn argv0_is_the_program_as_written() {
    let sandbox = Sandbox::new();
    let output = run(sandbox.spec("printf %s \"$0\"")).await;
    assert_eq!(text(&output.stdout), "sh");
}

fn env_of(output: &ProcessOutput) -> BTreeMap<String, String> {
    assert_eq!(output.termination, Termination::Exited(0));
    text(&output.stdout)
        .lines()
        .filter_map(|line| line.split_once('='))
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect()
}

fn env_spec(sandbox: &Sandbox, env: EnvPolicy) -> ProcessSpec {
    let mut spec = sandbox.spec("");
    // `env` itself rather than a shell, which would add variables of its own.
    spec.program = "env".into();
    spec.args.clear();
    spec.env = env;
    spec
}

#[tokio::test]
async fn env_only_passes_nothing_but_the_kept_and_set_variables() {
    let sandbox = Sandbox::new();
    let env = EnvPolicy::Only {
        keep: vec!["PATH".into(), "HOOKRIG_SURELY_UNSET".into()],
        set: vec![
            ("HOOKRIG_A".into(), "1".into()),
            ("HOOKRIG_B".into(), "b".into()),
            ("HOOKRIG_A".into(), "2".into()),
        ],
    };
    let child = env_of(&run(env_spec(&sandbox, env)).await);
    // HOME, USER and the like are set in any test process, and must not be passed.
    assert_eq!(
        child.keys().collect::<Vec<_>>(),
        ["HOOKRIG_A", "HOOKRIG_B", "PATH"]
    );
    assert_eq!(child["HOOKRIG_A"], "2", "a later setting wins");
    assert_eq!(
        Some(OsString::from(&child["PATH"])),
        std::env::var_os("PATH")
    );

    // Without a PATH of its own, the program is still found in hookrig's PATH.
    let empty = EnvPolicy::Only {
        keep: vec![],
        set: vec![],
    };
    assert!(env_of(&run(env_spec(&sandbox, empty)).await).is_empty());
}

#[tokio::test]
async fn env_inherit_passes_the_parent_environment_with_overrides() {
    let sandbox = Sandbox::new();
    let env = EnvPolicy::Inherit {
        set: vec![
            ("HOOKRIG_A".into(), "1".into()),
            ("HOME".into(), "/elsewhere".into()),
            ("HOOKRIG_A".into(), "2".into()),
        ],
    };
    let child = env_of(&run(env_spec(&sandbox, env)).await);
    assert_eq!(child["HOOKRIG_A"], "2");
    assert_eq!(child["HOME"], "/elsewhere");
    assert_eq!(
        Some(OsString::from(&child["PATH"])),
        std::env::var_os("PATH")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_all_interrupts_running_hooks_and_refuses_new_ones() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    let groups = ProcessGroups::new();
    let mut spec = sandbox.spec(&format!("{sleep} 300 & {sleep} 300"));
    spec.timeout = None;
    let running = tokio::spawn({
        let groups = groups.clone();
        async move { run_process(spec, &groups).await }
    });
    let start = Instant::now();
    while groups.is_empty() {
        assert!(start.elapsed() < PROMPTLY, "the hook never started");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(groups.len(), 1);

    groups.kill_all();
    let output = running.await.expect("the run does not panic");
    assert_eq!(output.termination, Termination::Interrupted);
    assert!(start.elapsed() < PROMPTLY);
    assert!(groups.is_empty(), "deregistered after the run");
    sandbox.assert_no_survivors().await;

    let output = run_process(sandbox.spec("touch started"), &groups).await;
    assert_eq!(output.termination, Termination::Interrupted);
    assert!(
        !sandbox.path().join("started").exists(),
        "nothing is spawned"
    );
}

#[tokio::test]
async fn dropping_the_run_kills_the_group() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    let groups = ProcessGroups::new();
    let mut spec = sandbox.spec(&format!("{sleep} 300 & {sleep} 300"));
    spec.timeout = None;
    let cancelled =
        tokio::time::timeout(Duration::from_millis(500), run_process(spec, &groups)).await;
    assert!(cancelled.is_err(), "the hook cannot finish by itself");
    assert!(groups.is_empty());
    sandbox.assert_no_survivors().await;
}
