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
    EnvPolicy, Leftovers, ProcessGroups, ProcessOutput, ProcessSpec, Termination, run_process,
};

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
        hookrig_test_support::processes_with(&self.marker())
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
        hookrig_test_support::kill_all_with(&self.marker());
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

// guards: a background process of the hook's group that closed the pipes must not
// outlive the hook (it is not a leak of the output, but it is left behind)
#[tokio::test]
async fn a_background_process_that_closed_the_pipes_is_killed_but_not_a_leak() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    let script = format!("{sleep} 1000 < /dev/null > /dev/null 2>&1 & echo hello");
    let output = run(sandbox.spec(&script)).await;
    assert_eq!(output.termination, Termination::Exited(0));
    assert!(!output.leaked);
    assert_eq!(
        output.leftovers,
        Leftovers {
            killed: 1,
            alive: 0
        }
    );
    assert_eq!(text(&output.stdout), "hello\n");
    sandbox.assert_no_survivors().await;
}

// guards: a grandchild that left the group with setsid and holds the pipes neither hangs
// the run nor outlives the hook
#[tokio::test]
async fn a_grandchild_that_left_the_group_does_not_hang_the_run_and_is_killed() {
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
    assert_eq!(output.leftovers.alive, 0);
    sandbox.assert_no_survivors().await;
}

// guards: `setsid sleep 1000 &` with its output elsewhere escapes both the group and the
// leak timeout; it must still die with the hook, and be counted
#[tokio::test]
async fn a_setsid_grandchild_with_closed_pipes_is_killed_when_the_hook_exits() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    let script = format!("setsid {sleep} 1000 < /dev/null > /dev/null 2>&1 & exit 0");
    let output = run(sandbox.spec(&script)).await;
    assert_eq!(output.termination, Termination::Exited(0));
    assert!(!output.leaked);
    assert_eq!(
        output.leftovers,
        Leftovers {
            killed: 1,
            alive: 0
        }
    );
    assert_eq!(
        output.leftover_warning("hook h").as_deref(),
        Some("hook h left 1 background process running after it ended; they were killed")
    );
    sandbox.assert_no_survivors().await;
}

// guards: a double fork through setsid (the daemon idiom) leaves a process whose parent
// is gone and whose group and session are its own; it must still die with the hook
#[tokio::test]
async fn a_double_forked_setsid_daemon_is_killed_when_the_hook_exits() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    // The hook exits once the daemon runs: exiting before it has even started would
    // leave nothing to kill yet, which is not what this checks.
    let script = format!(
        "(setsid sh -c 'touch started; {sleep} 1000 & {sleep} 1000' < /dev/null > /dev/null 2>&1 &); \
         while [ ! -e started ]; do {sleep} 0.02; done; exit 0"
    );
    let output = run(sandbox.spec(&script)).await;
    assert_eq!(output.termination, Termination::Exited(0));
    assert_eq!(output.leftovers.alive, 0);
    // How many there were when the hook ended depends on how far the daemon got.
    assert!(output.leftovers.killed >= 1, "{:?}", output.leftovers);
    sandbox.assert_no_survivors().await;
}

// guards: an escaped process of a hook that still runs is not killed when another hook
// of the same hookrig process ends; it dies with its own hook
#[tokio::test]
async fn only_the_ending_hooks_escaped_processes_are_killed() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    let groups = ProcessGroups::new();
    let mut long = sandbox.spec(&format!(
        "setsid {sleep} 1000 < /dev/null > /dev/null 2>&1 & touch started; \
         while [ ! -e go ]; do {sleep} 0.02; done"
    ));
    long.timeout = Some(PROMPTLY);
    // The short hook ends only once its process has left the hook's group (setsid
    // done): a process still in the group when the hook exits dies with the group, and
    // is no escaped process.
    let short = sandbox.spec(&format!(
        "while [ ! -e started ]; do {sleep} 0.02; done; \
         setsid sh -c 'touch escaped; exec {sleep} 1001' < /dev/null > /dev/null 2>&1 & \
         while [ ! -e escaped ]; do {sleep} 0.02; done; exit 0"
    ));
    let dir = sandbox.path().to_owned();
    let (long_output, ()) = tokio::join!(run_process(long, &groups), async {
        let output = run_process(short, &groups).await;
        assert_eq!(output.leftovers.killed, 1, "the short hook's own sleep");
        let left: Vec<_> = sandbox
            .survivors()
            .into_iter()
            .map(|(_, cmd)| cmd)
            .collect();
        assert!(
            left.iter().any(|cmd| cmd.contains("sleep 1000")),
            "the running hook's process was killed: {left:?}"
        );
        assert!(
            !left.iter().any(|cmd| cmd.contains("sleep 1001")),
            "the ended hook's process survived: {left:?}"
        );
        fs::write(dir.join("go"), "").expect("write go");
    });
    assert_eq!(long_output.termination, Termination::Exited(0));
    assert_eq!(long_output.leftovers.killed, 1);
    sandbox.assert_no_survivors().await;
}

// guards: a member of the group that died of the SIGTERM after its parent is a zombie
// of hookrig (the subreaper), not a live process: no SIGKILL is claimed for it and the
// grace period is not waited out for it
#[tokio::test]
async fn an_orphan_that_dies_of_sigterm_is_not_reported_as_killed() {
    let sandbox = Sandbox::new();
    let sleep = sandbox.sleep();
    let mut spec = sandbox.spec(&format!(
        "({sleep} 300 < /dev/null > /dev/null 2>&1 &); {sleep} 300"
    ));
    spec.timeout = Some(Duration::from_millis(300));
    spec.kill_grace = Duration::from_secs(30);
    let start = Instant::now();
    let output = run(spec).await;
    assert_eq!(
        output.termination,
        Termination::TimedOut {
            after: Duration::from_millis(300),
            killed: false
        }
    );
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "the grace was waited out"
    );
    sandbox.assert_no_survivors().await;
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
    sandbox.assert_no_survivors().await;
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
    // HOME, USER and the like are set in any test process, and must not be passed. The
    // process tag tells which hook a process that escaped its group belongs to.
    assert_eq!(
        child.keys().collect::<Vec<_>>(),
        ["HOOKRIG_A", "HOOKRIG_B", "HOOKRIG_PROCESS_TAG", "PATH"]
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
    assert_eq!(
        env_of(&run(env_spec(&sandbox, empty)).await)
            .keys()
            .collect::<Vec<_>>(),
        ["HOOKRIG_PROCESS_TAG"]
    );
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
