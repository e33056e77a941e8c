//! Whether a recorded agent still runs, and stopping its process group.
//!
//! An agent outlives the hookrig that spawned it, so every later command finds it by
//! what the store recorded: its pid, which is its process group id, and the start time
//! the kernel gave that pid. Stopping it goes through hookrig-exec's [`Job`], the one
//! SIGTERM → grace → SIGKILL path, re-created from the recorded group id.

use std::time::Duration;

use hookrig_exec::{Job, Stopped};
use hookrig_store::AgentRow;

/// The kernel's start time of `pid` in clock ticks since boot (field 22 of
/// `/proc/PID/stat`), or `None` where there is no `/proc` or no such process.
pub(crate) fn start_time(pid: i64) -> Option<i64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces and `)`: count
    // the fields after the last `)`, where field 3 starts.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// How long a recorded agent may go without a pid before it is taken for gone.
const STARTING_AT_MOST_MS: i64 = 30_000;

/// The agent's state as `list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Recorded, but its pid is not known yet.
    Starting,
    /// Its process is alive (and is the one that was started).
    Running,
    /// It was started on another machine (a shared store lists every machine's agents)
    /// and has not ended: its process cannot be looked up from here.
    Elsewhere,
    /// It ended: exit code or signal when the host recorded them.
    Exited {
        /// Its exit code.
        code: Option<i64>,
        /// The signal that ended it.
        signal: Option<i64>,
    },
}

impl State {
    /// How `list` and `watch` say it: `running`, `exited (0)`, `killed (signal 15)`...
    pub fn text(&self) -> String {
        match self {
            State::Starting => "starting".to_owned(),
            State::Running => "running".to_owned(),
            State::Elsewhere => "on its machine".to_owned(),
            State::Exited {
                code: Some(code), ..
            } => format!("exited ({code})"),
            State::Exited {
                signal: Some(signal),
                ..
            } => format!("killed (signal {signal})"),
            State::Exited { .. } => "exited".to_owned(),
        }
    }
}

/// Whether `row`'s agent runs. A recorded exit settles it. Otherwise the pid must be
/// alive (`kill(pid, 0)`) and, where `/proc` tells start times, have the start time
/// recorded at spawn: a pid the kernel gave to another process since is not the agent.
pub(crate) fn state(row: &AgentRow) -> State {
    if row.exit_code.is_some() || row.exit_signal.is_some() {
        return State::Exited {
            code: row.exit_code,
            signal: row.exit_signal,
        };
    }
    if row.host != hookrig_store::host_name() {
        return State::Elsewhere;
    }
    let Some(pid) = row.pid.filter(|pid| *pid > 0) else {
        // `spawn` waits 10 s for the pid and forgets the row when none comes; a row
        // still without one long after is a spawn that was itself killed meanwhile.
        // Calling it ended keeps `watch` from waiting for it forever.
        let age = hookrig_store::now_ms().saturating_sub(row.started_at_ms);
        return if age < STARTING_AT_MOST_MS {
            State::Starting
        } else {
            State::Exited {
                code: None,
                signal: None,
            }
        };
    };
    let alive = Job::from_pgid(pid).is_some_and(Job::leader_exists);
    let same = match (row.proc_start, start_time(pid)) {
        (Some(recorded), Some(now)) => recorded == now,
        // Without /proc (or without a recorded start), kill(pid, 0) is all there is.
        _ => true,
    };
    if alive && same && !is_zombie(pid) {
        State::Running
    } else {
        State::Exited {
            code: None,
            signal: None,
        }
    }
}

/// A zombie has exited: only its parent has not reaped it yet.
fn is_zombie(pid: i64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let rest = stat[stat.rfind(')')? + 1..].trim_start().to_owned();
            rest.chars().next()
        })
        == Some('Z')
}

/// Whether any process of the agent's group is left, its leader gone or not. The
/// kernel does not hand out a pid that is still some group's id, so a live group with
/// the recorded pid as its id is the agent's leftovers, never a stranger.
pub(crate) fn leftovers(leader: i64) -> bool {
    Job::from_pgid(leader).is_some_and(Job::is_alive)
}

/// SIGTERM to the agent's process group, then SIGKILL to what is left after `grace`.
pub(crate) fn stop(leader: i64, grace: Duration) -> Result<Stopped, std::io::Error> {
    match Job::from_pgid(leader) {
        Some(job) => job.stop_blocking(grace),
        None => Ok(Stopped::NotRunning),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(pid: Option<i64>, proc_start: Option<i64>) -> AgentRow {
        AgentRow {
            host: hookrig_store::host_name(),
            worktree: "/w".to_owned(),
            repo: "/r".to_owned(),
            task: "api".to_owned(),
            plan: "/r/plan.spl".to_owned(),
            agent: "coder".to_owned(),
            provider: "fake".to_owned(),
            branch: "task/api".to_owned(),
            log: "/r/api.log".to_owned(),
            pid,
            proc_start,
            started_at_ms: 0,
            exit_code: None,
            exit_signal: None,
            ended_at_ms: None,
            stopped_at_ms: None,
        }
    }

    // guards: a pid the kernel reused for another process is not taken for the agent
    #[test]
    fn a_live_pid_runs_only_with_the_recorded_start_time() {
        let me = i64::from(std::process::id());
        let started = start_time(me);
        assert_eq!(state(&row(Some(me), started)), State::Running);
        // The same pid on another machine is not this process: it is not looked up here.
        let mut elsewhere = row(Some(me), started);
        elsewhere.host = "another-machine".to_owned();
        assert_eq!(state(&elsewhere), State::Elsewhere);
        let other = started.map(|s| s + 1);
        assert_eq!(
            state(&row(Some(me), other)),
            State::Exited {
                code: None,
                signal: None
            }
        );
        // The rows' start is 1970: a row that never got its pid is gone by now.
        assert_eq!(state(&row(None, None)).text(), "exited");
        let mut fresh = row(None, None);
        fresh.started_at_ms = hookrig_store::now_ms();
        assert_eq!(state(&fresh), State::Starting);
        let mut ended = row(Some(me), started);
        ended.exit_code = Some(3);
        assert_eq!(state(&ended).text(), "exited (3)");
    }

    #[test]
    fn the_start_time_of_this_process_is_known_and_stable() {
        let me = i64::from(std::process::id());
        let first = start_time(me);
        assert!(first.is_some());
        assert_eq!(first, start_time(me));
        assert_eq!(start_time(i64::from(i32::MAX)), None);
    }
}
