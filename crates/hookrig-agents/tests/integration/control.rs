//! `stop`, `list` and `watch` of agents recorded in a store, with real process groups
//! standing in for providers.

use std::path::{Path, PathBuf};
use std::time::Duration;

use hookrig_agents::{AgentError, State, StopReport, Stopped, Watch, Watched};
use hookrig_exec::{Command, Detached, EnvPolicy, Grouping, Program, Stream};
use hookrig_store::{AgentRow, AgentsAt, Store};

/// A temporary directory holding the store and the log; its path marks every process
/// the test starts.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("hookrig-agents-test-")
            .tempdir()
            .expect("tempdir");
        std::os::unix::fs::symlink("/bin/sleep", dir.path().join("sleep")).expect("symlink");
        Self { dir }
    }

    fn marker(&self) -> &str {
        self.dir.path().to_str().expect("UTF-8 temp path")
    }

    fn store(&self) -> PathBuf {
        self.dir.path().join("ledger.db")
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("api.log")
    }

    /// Records the agent of task `api` with `pid`, as `spawn` and its host would.
    fn record(&self, pid: Option<i64>, exit_code: Option<i64>) {
        let ledger = Store::open(&self.store()).expect("store");
        ledger
            .agents()
            .record(&AgentRow {
                host: hookrig_store::host_name(),
                worktree: "/repo/.hookrig/worktrees/api".to_owned(),
                repo: "/repo".to_owned(),
                task: "api".to_owned(),
                plan: "/repo/plan.spl".to_owned(),
                agent: "coder".to_owned(),
                provider: "fake".to_owned(),
                branch: "task/api".to_owned(),
                log: self.log().to_string_lossy().into_owned(),
                pid: None,
                proc_start: None,
                started_at_ms: hookrig_store::now_ms(),
                exit_code: None,
                exit_signal: None,
                ended_at_ms: None,
                stopped_at_ms: None,
            })
            .expect("recorded");
        if let Some(pid) = pid {
            ledger
                .agents()
                .set_pid("/repo/.hookrig/worktrees/api", pid, None)
                .expect("pid");
        }
        if exit_code.is_some() {
            ledger
                .agents()
                .set_exit("/repo/.hookrig/worktrees/api", exit_code, None)
                .expect("exit");
        }
    }

    /// A provider stand-in: a shell in a process group of its own with two marked
    /// sleeps, as a provider with a background child would be.
    fn start_group(&self, script: &str) -> hookrig_exec::DetachedChild {
        let sleep = format!("'{}/sleep'", self.marker());
        let child = Command {
            program: Program::Shell {
                line: script.replace("SLEEP", &sleep),
            },
            cwd: self.dir.path().to_owned(),
            env: EnvPolicy::Inherit { set: Vec::new() },
        }
        .spawn_detached(Detached {
            stdout: Stream::Null,
            stderr: Stream::Null,
            grouping: Grouping::Group,
        })
        .expect("started");
        for _ in 0..1000 {
            if hookrig_test_support::processes_with(self.marker()).len() >= 2 {
                return child;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the stand-in did not start");
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        hookrig_test_support::kill_all_with(self.marker());
    }
}

fn nowhere() -> Option<&'static Path> {
    None
}

#[test]
fn stop_ends_the_recorded_group_and_records_the_stop() {
    let fixture = Fixture::new();
    let mut child = fixture.start_group("SLEEP 300 & SLEEP 301 & wait");
    fixture.record(Some(i64::from(child.pid())), None);
    let listed = hookrig_agents::list(&AgentsAt::Sqlite(fixture.store())).expect("list");
    assert_eq!(listed[0].state, State::Running);

    let report = hookrig_agents::stop(
        &AgentsAt::Sqlite(fixture.store()),
        "task-api",
        Duration::from_secs(5),
        nowhere(),
    )
    .expect("stopped");
    assert_eq!(
        report,
        StopReport::Signalled {
            task: "api".to_owned(),
            pgid: i64::from(child.pid()),
            how: Stopped::Terminated,
        }
    );
    assert_eq!(child.wait().expect("reaped").signal, Some(15));
    let left = hookrig_test_support::no_leftover(fixture.marker(), Duration::from_secs(10));
    assert!(left.is_empty(), "{left:?}");
    let listed = hookrig_agents::list(&AgentsAt::Sqlite(fixture.store())).expect("list");
    assert!(listed[0].row.stopped_at_ms.is_some());
}

#[test]
fn stop_kills_a_group_that_ignores_sigterm() {
    let fixture = Fixture::new();
    let mut child = fixture.start_group("trap '' TERM\nSLEEP 300 &\nSLEEP 301");
    fixture.record(Some(i64::from(child.pid())), None);
    let report = hookrig_agents::stop(
        &AgentsAt::Sqlite(fixture.store()),
        "api",
        Duration::from_millis(300),
        nowhere(),
    )
    .expect("stopped");
    assert!(
        matches!(
            report,
            StopReport::Signalled {
                how: Stopped::Killed,
                ..
            }
        ),
        "{report:?}"
    );
    assert_eq!(child.wait().expect("reaped").signal, Some(9));
}

#[test]
fn an_agent_with_nothing_left_is_not_running_and_an_unknown_one_is_an_error() {
    let fixture = Fixture::new();
    fixture.record(None, Some(0));
    let report = hookrig_agents::stop(
        &AgentsAt::Sqlite(fixture.store()),
        "api",
        Duration::from_secs(1),
        nowhere(),
    )
    .expect("answered");
    assert_eq!(
        report,
        StopReport::NotRunning {
            task: "api".to_owned(),
            state: State::Exited {
                code: Some(0),
                signal: None
            },
        }
    );
    let error = hookrig_agents::stop(
        &AgentsAt::Sqlite(fixture.store()),
        "docs",
        Duration::from_secs(1),
        nowhere(),
    )
    .expect_err("no such agent");
    assert!(matches!(error, AgentError::NoSuchAgent(ref task) if task == "docs"));
}

#[test]
fn watch_prints_the_log_then_how_the_agent_ended() {
    let fixture = Fixture::new();
    std::fs::write(fixture.log(), "working on it\n").expect("log");
    fixture.record(None, Some(3));
    let mut watch =
        Watch::new(&AgentsAt::Sqlite(fixture.store()), Some("api"), nowhere()).expect("found");
    assert_eq!(watch.len(), 1);
    assert_eq!(
        watch.poll().expect("polled"),
        [
            Watched::Output {
                task: "api".to_owned(),
                text: "working on it\n".to_owned(),
            },
            Watched::Ended {
                task: "api".to_owned(),
                state: State::Exited {
                    code: Some(3),
                    signal: None
                },
            },
        ]
    );
    assert!(watch.finished());
}
