//! The spawn modes other than a hook's run: inherited stdio, detached children and the
//! [`Job`] that stops a recorded process group, captured children whose stderr is
//! hookrig's.

use std::path::Path;
use std::time::Duration;

use hookrig_exec::{
    Capture, Command, Detached, EnvPolicy, Exit, Grouping, Job, Program, SpawnErrorKind, Stderr,
    Stopped, Stream, Termination,
};

/// A directory unique to one test whose path marks every process the test starts.
struct Marked {
    dir: tempfile::TempDir,
}

impl Marked {
    fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("hookrig-exec-child-")
            .tempdir()
            .expect("tempdir");
        std::os::unix::fs::symlink("/bin/sleep", dir.path().join("sleep")).expect("symlink");
        Self { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn marker(&self) -> &str {
        self.path().to_str().expect("UTF-8 temp path")
    }

    fn sleep(&self) -> String {
        format!("'{}/sleep'", self.marker())
    }

    fn shell(&self, line: &str) -> Command {
        Command {
            program: Program::Shell {
                line: line.to_owned(),
            },
            cwd: self.path().to_owned(),
            env: EnvPolicy::Inherit { set: Vec::new() },
        }
    }

    fn started(&self, count: usize) {
        for _ in 0..1000 {
            if hookrig_test_support::processes_with(self.marker()).len() >= count {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the marked processes did not start");
    }

    fn leftovers(&self) -> Vec<i32> {
        hookrig_test_support::no_leftover(self.marker(), Duration::from_secs(10))
    }
}

impl Drop for Marked {
    fn drop(&mut self) {
        hookrig_test_support::kill_all_with(self.marker());
    }
}

fn detached_group() -> Detached {
    Detached {
        stdout: Stream::Null,
        stderr: Stream::Null,
        grouping: Grouping::Group,
    }
}

#[tokio::test]
async fn a_job_recreated_from_a_recorded_pgid_stops_the_whole_group() {
    // guards: `agent stop` signalled a recorded agent with its own code instead of the
    // group kill every other stop uses
    let marked = Marked::new();
    let sleep = marked.sleep();
    let mut child = marked
        .shell(&format!("{sleep} 300 & {sleep} 301 & wait"))
        .spawn_detached(detached_group())
        .expect("spawned");
    marked.started(2);
    let job = Job::from_pgid(i64::from(child.pid())).expect("a group id");
    assert!(job.is_alive() && job.leader_exists());
    assert_eq!(job.stop(Duration::from_secs(5)).await, Stopped::Terminated);
    assert_eq!(child.wait().expect("reaped").signal, Some(15));
    assert!(marked.leftovers().is_empty());
    assert_eq!(job.stop(Duration::from_secs(1)).await, Stopped::NotRunning);
}

#[tokio::test]
async fn a_group_that_ignores_sigterm_is_killed_after_the_grace() {
    let marked = Marked::new();
    let sleep = marked.sleep();
    let mut child = marked
        .shell(&format!("trap '' TERM\n{sleep} 300 &\n{sleep} 301"))
        .spawn_detached(detached_group())
        .expect("spawned");
    marked.started(2);
    let job = child.job().expect("a group id");
    assert_eq!(job.stop(Duration::from_millis(300)).await, Stopped::Killed);
    assert_eq!(child.wait().expect("reaped").signal, Some(9));
    assert!(marked.leftovers().is_empty());
}

#[test]
fn a_detached_child_writes_to_its_files_in_a_new_session() {
    let marked = Marked::new();
    let log = marked.path().join("log");
    let file = std::fs::File::create(&log).expect("create");
    let mut child = marked
        .shell("echo out; echo err >&2; [ \"$(ps -o sid= -p $$)\" -eq $$ ] && echo leader")
        .spawn_detached(Detached {
            stdout: Stream::File(file.try_clone().expect("clone")),
            stderr: Stream::File(file),
            grouping: Grouping::Session,
        })
        .expect("spawned");
    assert_eq!(
        child.wait().expect("waited"),
        Exit {
            code: Some(0),
            signal: None
        }
    );
    let text = std::fs::read_to_string(&log).expect("read");
    assert!(
        text.starts_with("out\n") && text.contains("err\n"),
        "{text}"
    );
}

#[test]
fn a_missing_program_is_a_spawn_error_in_every_mode() {
    let marked = Marked::new();
    let missing = || Command::exec("hookrig-no-such-program", ["x"], marked.path());
    let error = missing()
        .spawn_detached(detached_group())
        .expect_err("missing");
    assert_eq!(error.kind, SpawnErrorKind::NotFound);
    let error = missing().run_inherited().expect_err("missing");
    assert_eq!(
        error.to_string(),
        "command 'hookrig-no-such-program' not found in PATH"
    );
}

#[test]
fn an_inherited_child_hands_back_its_exit_code_or_signal() {
    let marked = Marked::new();
    assert_eq!(
        marked.shell("exit 3").run_inherited().expect("ran"),
        Exit {
            code: Some(3),
            signal: None
        }
    );
    assert_eq!(
        marked.shell("kill -9 $$").run_inherited().expect("ran"),
        Exit {
            code: None,
            signal: Some(9)
        }
    );
    let with_env = marked
        .shell("[ \"$ANSWER\" = 42 ]")
        .env("ANSWER", "42")
        .run_inherited()
        .expect("ran");
    assert_eq!(with_env.code, Some(0));
}

#[test]
fn a_captured_child_may_write_to_hookrigs_stderr() {
    let marked = Marked::new();
    let output = marked
        .shell("cat; echo to-the-user >&2")
        .capture_blocking(Capture {
            stdin: b"board".to_vec(),
            stdout_cap: 1024,
            stderr: Stderr::Inherit,
            timeout: Some(Duration::from_mins(1)),
            kill_grace: Duration::from_millis(100),
        });
    assert_eq!(output.termination, Termination::Exited(0));
    assert_eq!(output.stdout, b"board");
    assert!(output.stderr.is_empty());
}

#[test]
fn a_captured_child_past_its_timeout_is_stopped_with_what_it_started() {
    let marked = Marked::new();
    let sleep = marked.sleep();
    let output = marked
        .shell(&format!("{sleep} 300 &\n{sleep} 301"))
        .capture_blocking(Capture {
            stdin: Vec::new(),
            stdout_cap: 1024,
            stderr: Stderr::Inherit,
            timeout: Some(Duration::from_millis(300)),
            kill_grace: Duration::from_millis(100),
        });
    assert!(
        matches!(output.termination, Termination::TimedOut { .. }),
        "{:?}",
        output.termination
    );
    assert!(marked.leftovers().is_empty());
}
