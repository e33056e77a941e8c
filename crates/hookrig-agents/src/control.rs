//! The agents a store records, and what `list`, `watch`, `stop` and `clean` do to them.
//!
//! `stop`, `watch` and `clean` find the agent of a task in the repository of the given
//! directory (from the main checkout or any of its worktrees); outside it, the only
//! agent with that task name.

use std::fmt::{self, Write as _};
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hookrig_exec::Stopped;
use hookrig_store::{AgentRecords, AgentRow, AgentsAt};
use serde::{Serialize, Serializer};

use crate::errors::AgentError;
use crate::process::{self, State};
use crate::worktree;

/// One recorded agent and whether it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentStatus {
    /// What the store recorded.
    pub row: AgentRow,
    /// Whether it runs now.
    pub state: State,
}

/// A row of `hookrig agent list --json`: what the store recorded and whether it runs.
impl Serialize for AgentStatus {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Row<'a> {
            host: &'a str,
            task: &'a str,
            agent: &'a str,
            provider: &'a str,
            plan: &'a str,
            worktree: &'a str,
            branch: &'a str,
            log: &'a str,
            pid: Option<i64>,
            state: String,
            running: bool,
            exit_code: Option<i64>,
            exit_signal: Option<i64>,
            started_at_ms: i64,
            ended_at_ms: Option<i64>,
            stopped_at_ms: Option<i64>,
        }
        let row = &self.row;
        Row {
            host: &row.host,
            task: &row.task,
            agent: &row.agent,
            provider: &row.provider,
            plan: &row.plan,
            worktree: &row.worktree,
            branch: &row.branch,
            log: &row.log,
            pid: row.pid,
            state: self.state.text(),
            running: self.state == State::Running,
            exit_code: row.exit_code,
            exit_signal: row.exit_signal,
            started_at_ms: row.started_at_ms,
            ended_at_ms: row.ended_at_ms,
            stopped_at_ms: row.stopped_at_ms,
        }
        .serialize(serializer)
    }
}

impl AgentStatus {
    /// `agents` as the table `hookrig agent list` prints: one line per agent under a
    /// header, the columns at fixed widths so that a line's fields stay aligned however
    /// long the worktree's path is. With `machines` (a shared store), each line starts
    /// with the agent's machine.
    pub fn table(agents: &[AgentStatus], machines: bool) -> String {
        let mut out = String::new();
        if machines {
            let _ = write!(out, "{:<16} ", "MACHINE");
        }
        let _ = writeln!(
            out,
            "{:<16} {:<12} {:<10} {:<8} {:<18} WORKTREE",
            "TASK", "AGENT", "PROVIDER", "PID", "STATE"
        );
        for AgentStatus { row, state } in agents {
            let pid = row.pid.map_or_else(|| "-".to_owned(), |p| p.to_string());
            if machines {
                let _ = write!(out, "{:<16} ", row.host);
            }
            let _ = writeln!(
                out,
                "{:<16} {:<12} {:<10} {:<8} {:<18} {}",
                row.task,
                row.agent,
                row.provider,
                pid,
                state.text(),
                row.worktree
            );
        }
        out
    }
}

/// Where the agents of the user whose config directory is `config_home` are recorded:
/// the PostgreSQL store the `[store] url` of their own `config.toml` names, shared by
/// every machine, else the SQLite store of the ledger at `store` (docs/postgres.md,
/// "Agents"). Every agent command and the host of each agent resolve it the same way,
/// from the user's own file: neither a project nor a variable names it.
pub fn agents_at(store: &Path, config_home: &Path) -> AgentsAt {
    match hookrig_config::user_store_url(config_home) {
        Some(url) => AgentsAt::Postgres(url),
        None => AgentsAt::Sqlite(store.to_owned()),
    }
}

/// Every agent recorded `at`, with its state: on a shared store, every machine's.
pub fn list(at: &AgentsAt) -> Result<Vec<AgentStatus>, AgentError> {
    Ok(at
        .open()?
        .agents()
        .list()?
        .into_iter()
        .map(|row| AgentStatus {
            state: process::state(&row),
            row,
        })
        .collect())
}

/// The agent of `task`: the one in the repository of `here` when there is one, else the
/// only one with that task name.
///
/// Only this machine's agents are found: what finds one acts on its process, worktree or
/// log, which are on its machine. The agent of `task` on another machine only is
/// [`AgentError::OtherMachine`].
fn find_agent(
    store: &AgentRecords,
    task: &str,
    here: Option<&Path>,
) -> Result<Option<AgentRow>, AgentError> {
    let task = task.strip_prefix("task-").unwrap_or(task);
    let this = hookrig_store::host_name();
    let (rows, elsewhere): (Vec<AgentRow>, Vec<AgentRow>) = store
        .agents()
        .list()?
        .into_iter()
        .filter(|r| r.task == task)
        .partition(|r| r.host == this);
    if rows.is_empty()
        && let Some(other) = elsewhere.into_iter().next()
    {
        return Err(AgentError::OtherMachine {
            task: task.to_owned(),
            host: other.host,
        });
    }
    let here = here
        .and_then(|here| worktree::repo_root(here).ok())
        .map(|p| main_repo(&p));
    if let Some(here) = &here
        && let Some(row) = rows.iter().find(|r| Path::new(&r.repo) == here)
    {
        return Ok(Some(row.clone()));
    }
    match rows.len() {
        0 => Ok(None),
        1 => Ok(rows.into_iter().next()),
        _ => Err(AgentError::Ambiguous {
            task: task.to_owned(),
            repos: rows.into_iter().map(|r| r.repo).collect(),
        }),
    }
}

/// Inside an agent's worktree, the repository is the one the worktree belongs to.
fn main_repo(top: &Path) -> PathBuf {
    worktree::git(
        top,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )
    .ok()
    .map(PathBuf::from)
    .and_then(|common| common.parent().map(Path::to_owned))
    .unwrap_or_else(|| top.to_owned())
}

/// What [`stop`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReport {
    /// Nothing of the agent was left running.
    NotRunning {
        /// The task.
        task: String,
        /// Its state.
        state: State,
    },
    /// Its process group was signalled.
    Signalled {
        /// The task.
        task: String,
        /// The process group id.
        pgid: i64,
        /// How it ended.
        how: Stopped,
    },
}

impl StopReport {
    /// The line `hookrig agent stop` prints, without its newline. `grace` is the one
    /// the stop was given: the report of a kill says how long SIGTERM was given to work.
    pub fn render_text(&self, grace: Duration) -> String {
        match self {
            StopReport::NotRunning { task, state } => {
                format!(
                    "the agent of task '{task}' is not running ({})",
                    state.text()
                )
            }
            StopReport::Signalled { task, pgid, how } => match how {
                Stopped::NotRunning => format!("the agent of task '{task}' had exited"),
                Stopped::Terminated => {
                    format!("stopped the agent of task '{task}' (process group {pgid}, SIGTERM)")
                }
                Stopped::Killed => format!(
                    "killed the agent of task '{task}' (process group {pgid}: SIGKILL after {}s)",
                    grace.as_secs()
                ),
            },
        }
    }
}

/// Ends the agent of `task` (found from `here`): SIGTERM to its process group, SIGKILL
/// after `grace`. A provider that exited may have left processes of its group behind:
/// they are the agent's too.
pub fn stop(
    at: &AgentsAt,
    task: &str,
    grace: Duration,
    here: Option<&Path>,
) -> Result<StopReport, AgentError> {
    let store = at.open()?;
    let row =
        find_agent(&store, task, here)?.ok_or_else(|| AgentError::NoSuchAgent(task.to_owned()))?;
    let state = process::state(&row);
    let Some(pid) = row
        .pid
        .filter(|pid| state == State::Running || process::leftovers(*pid))
    else {
        return Ok(StopReport::NotRunning {
            task: row.task,
            state,
        });
    };
    let how = process::stop(pid, grace).map_err(AgentError::Runtime)?;
    store.agents().set_stopped(&row.worktree)?;
    Ok(StopReport::Signalled {
        task: row.task,
        pgid: pid,
        how,
    })
}

/// What [`clean`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cleaned {
    /// The worktree removed.
    pub worktree: PathBuf,
    /// The task's branch.
    pub branch: String,
    /// `Ok` when the branch was deleted (it was merged), else why it was kept.
    pub branch_deleted: Result<(), String>,
    /// The log, when it was removed.
    pub log: Option<PathBuf>,
}

/// What `hookrig agent clean` prints: one line per thing removed or kept.
impl fmt::Display for Cleaned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "removed worktree {}", self.worktree.display())?;
        match &self.branch_deleted {
            Ok(()) => writeln!(f, "deleted branch {} (merged)", self.branch)?,
            Err(why) => writeln!(f, "kept branch {}: {why}", self.branch)?,
        }
        if let Some(log) = &self.log {
            writeln!(f, "removed log {}", log.display())?;
        }
        Ok(())
    }
}

/// Removes the worktree of `task` (found from `here`; refusing uncommitted changes
/// unless `force`, and refusing while the agent runs), deletes its branch when merged,
/// removes its log and forgets the agent. Warnings about config.toml go to `warn`.
pub fn clean(
    at: &AgentsAt,
    task: &str,
    force: bool,
    here: &Path,
    warn: &mut dyn FnMut(String),
) -> Result<Cleaned, AgentError> {
    let store = at.open()?;
    let row = find_agent(&store, task, Some(here))?;
    let task = task.strip_prefix("task-").unwrap_or(task);
    worktree::check_task_name(task)?;
    if let Some(row) = &row
        && process::state(row) == State::Running
    {
        return Err(AgentError::StillRunning {
            task: task.to_owned(),
            pid: row.pid.unwrap_or_default(),
        });
    }
    let repo = match &row {
        Some(row) => PathBuf::from(&row.repo),
        None => main_repo(&worktree::repo_root(here)?),
    };
    let config = crate::config::load(&repo, warn)?;
    let provisioned: Vec<String> = config
        .provision
        .iter()
        .map(|f| f.value.to.clone())
        .collect();
    let path = worktree::worktree_path(&repo, task);
    let removed = worktree::remove(&repo, task, &provisioned, force)?;
    let branch_deleted = removed.branch.map_err(|message| {
        if message.contains("not fully merged") {
            let current = worktree::git(&repo, &["symbolic-ref", "--short", "HEAD"])
                .unwrap_or_else(|_| "HEAD".to_owned());
            format!("not merged into {current}")
        } else {
            message
        }
    });
    let log = worktree::log_path(&repo, task);
    let log = std::fs::remove_file(&log).is_ok().then_some(log);
    store.agents().delete(&path.to_string_lossy())?;
    Ok(Cleaned {
        worktree: path,
        branch: worktree::branch(task),
        branch_deleted,
        log,
    })
}

/// Agents followed by `watch`: their logs from the beginning, until each has ended.
#[derive(Debug)]
pub struct Watch {
    store: AgentRecords,
    followed: Vec<Followed>,
}

/// One followed log.
#[derive(Debug)]
struct Followed {
    row: AgentRow,
    offset: u64,
    done: bool,
}

/// What one round of [`Watch::poll`] saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Watched {
    /// New output in the log of the agent of `task`.
    Output {
        /// The task.
        task: String,
        /// The new text.
        text: String,
    },
    /// The agent of `task` no longer runs.
    Ended {
        /// The task.
        task: String,
        /// How it ended.
        state: State,
    },
}

impl Watched {
    /// How `agent log --follow` shows it: the output as it came, each line after
    /// `[TASK] ` when `labelled` (several agents followed at once); an end as a line of
    /// its own.
    pub fn text(&self, labelled: bool) -> String {
        match self {
            Self::Output { task, text } if labelled => hookrig_core::text::labelled(task, text),
            Self::Output { text, .. } => text.clone(),
            Self::Ended { task, state } => {
                format!("hookrig: the agent of task '{task}' {}\n", state.text())
            }
        }
    }
}

impl Watch {
    /// How long to wait between two rounds of [`poll`](Self::poll).
    pub const INTERVAL: Duration = Duration::from_millis(100);

    /// The agent of `task` (found from `here`), or without one every running agent of
    /// the repository of `here`.
    pub fn new(at: &AgentsAt, task: Option<&str>, here: Option<&Path>) -> Result<Self, AgentError> {
        let store = at.open()?;
        #[expect(clippy::single_match_else, reason = "two ways to choose, side by side")]
        let rows = match task {
            Some(task) => vec![
                find_agent(&store, task, here)?
                    .ok_or_else(|| AgentError::NoSuchAgent(task.to_owned()))?,
            ],
            None => {
                let here = here
                    .and_then(|here| worktree::repo_root(here).ok())
                    .map(|p| main_repo(&p));
                store
                    .agents()
                    .list()?
                    .into_iter()
                    .filter(|r| here.as_deref().is_none_or(|h| Path::new(&r.repo) == h))
                    .filter(|r| matches!(process::state(r), State::Running | State::Starting))
                    .collect()
            }
        };
        let followed = rows
            .into_iter()
            .map(|row| Followed {
                row,
                offset: 0,
                done: false,
            })
            .collect();
        Ok(Self { store, followed })
    }

    /// How many agents are followed.
    pub fn len(&self) -> usize {
        self.followed.len()
    }

    /// Whether no agent is followed.
    pub fn is_empty(&self) -> bool {
        self.followed.is_empty()
    }

    /// Whether every followed agent has ended.
    pub fn finished(&self) -> bool {
        self.followed.iter().all(|f| f.done)
    }

    /// One round: the new output of every followed agent that has not ended, and the
    /// end of those that just did (after their last output).
    pub fn poll(&mut self) -> Result<Vec<Watched>, AgentError> {
        let mut seen = Vec::new();
        for f in self.followed.iter_mut().filter(|f| !f.done) {
            let fresh = self
                .store
                .agents()
                .get(&f.row.worktree)?
                .unwrap_or_else(|| f.row.clone());
            let state = process::state(&fresh);
            let finished = !matches!(state, State::Running | State::Starting);
            // Read after looking at the state, so that the last output is printed
            // before the exit is.
            let text = read_from(Path::new(&f.row.log), &mut f.offset);
            if !text.is_empty() {
                seen.push(Watched::Output {
                    task: f.row.task.clone(),
                    text,
                });
            }
            if finished {
                let state = settle(&self.store, &f.row.worktree, state);
                seen.push(Watched::Ended {
                    task: f.row.task.clone(),
                    state,
                });
                f.done = true;
            }
        }
        Ok(seen)
    }
}

/// A provider that just died may not have its exit recorded yet: the host records it
/// right after reaping. Wait a moment for it.
fn settle(store: &AgentRecords, worktree: &str, state: State) -> State {
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut state = state;
    while matches!(
        state,
        State::Exited {
            code: None,
            signal: None
        }
    ) && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(50));
        if let Ok(Some(row)) = store.agents().get(worktree) {
            state = process::state(&row);
        }
    }
    state
}

fn read_from(path: &Path, offset: &mut u64) -> String {
    let Ok(mut file) = std::fs::File::open(path) else {
        return String::new();
    };
    if file.seek(SeekFrom::Start(*offset)).is_err() {
        return String::new();
    }
    let mut bytes = Vec::new();
    if let Ok(n) = file.read_to_end(&mut bytes) {
        *offset += n as u64;
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn followed_output_is_labelled_by_task_line_by_line() {
        let output = Watched::Output {
            task: "api".to_owned(),
            text: "a\nb\npartial".to_owned(),
        };
        assert_eq!(output.text(true), "[api] a\n[api] b\n[api] partial");
        assert_eq!(output.text(false), "a\nb\npartial");
        let ended = Watched::Ended {
            task: "api".to_owned(),
            state: State::Exited {
                code: Some(0),
                signal: None,
            },
        };
        assert_eq!(
            ended.text(true),
            "hookrig: the agent of task 'api' exited (0)\n"
        );
    }

    fn status(task: &str, pid: Option<i64>, state: State) -> AgentStatus {
        AgentStatus {
            row: AgentRow {
                host: "here".to_owned(),
                worktree: format!("/repo/.hookrig/worktrees/{task}"),
                repo: "/repo".to_owned(),
                task: task.to_owned(),
                plan: "/repo/PLAN.spl".to_owned(),
                agent: "alice".to_owned(),
                provider: "claude".to_owned(),
                branch: format!("task/{task}"),
                log: format!("/repo/.hookrig/logs/{task}.log"),
                pid,
                proc_start: None,
                started_at_ms: 0,
                exit_code: None,
                exit_signal: None,
                ended_at_ms: None,
                stopped_at_ms: None,
            },
            state,
        }
    }

    #[test]
    fn the_agent_table_aligns_its_columns_and_dashes_a_missing_pid() {
        let agents = [
            status("api", Some(4242), State::Running),
            status(
                "docs",
                None,
                State::Exited {
                    code: Some(1),
                    signal: None,
                },
            ),
        ];
        assert_eq!(
            AgentStatus::table(&agents, false),
            "TASK             AGENT        PROVIDER   PID      STATE              WORKTREE\n\
             api              alice        claude     4242     running            /repo/.hookrig/worktrees/api\n\
             docs             alice        claude     -        exited (1)         /repo/.hookrig/worktrees/docs\n"
        );
        // On a shared store each line starts with the agent's machine.
        assert_eq!(
            AgentStatus::table(&agents[..1], true),
            "MACHINE          TASK             AGENT        PROVIDER   PID      STATE              WORKTREE\n\
             here             api              alice        claude     4242     running            /repo/.hookrig/worktrees/api\n"
        );
    }

    // guards: the shape of `hookrig agent list --json` rows, `host` included
    #[test]
    fn a_listed_agent_serializes_with_its_machine() {
        insta::assert_json_snapshot!(status("api", Some(4242), State::Running));
    }

    #[test]
    fn a_stop_report_says_what_ended_the_agent() {
        let grace = Duration::from_secs(5);
        let signalled = |how| StopReport::Signalled {
            task: "api".to_owned(),
            pgid: 42,
            how,
        };
        assert_eq!(
            signalled(Stopped::Terminated).render_text(grace),
            "stopped the agent of task 'api' (process group 42, SIGTERM)"
        );
        assert_eq!(
            signalled(Stopped::Killed).render_text(grace),
            "killed the agent of task 'api' (process group 42: SIGKILL after 5s)"
        );
        assert_eq!(
            signalled(Stopped::NotRunning).render_text(grace),
            "the agent of task 'api' had exited"
        );
        let exited = StopReport::NotRunning {
            task: "api".to_owned(),
            state: State::Exited {
                code: None,
                signal: Some(9),
            },
        };
        assert_eq!(
            exited.render_text(grace),
            "the agent of task 'api' is not running (killed (signal 9))"
        );
    }

    #[test]
    fn a_clean_report_lists_what_was_removed_and_why_a_branch_was_kept() {
        let cleaned = Cleaned {
            worktree: PathBuf::from("/repo/.hookrig/worktrees/api"),
            branch: "task/api".to_owned(),
            branch_deleted: Ok(()),
            log: Some(PathBuf::from("/repo/.hookrig/logs/api.log")),
        };
        assert_eq!(
            cleaned.to_string(),
            "removed worktree /repo/.hookrig/worktrees/api\n\
             deleted branch task/api (merged)\n\
             removed log /repo/.hookrig/logs/api.log\n"
        );
        let kept = Cleaned {
            branch_deleted: Err("not merged into main".to_owned()),
            log: None,
            ..cleaned
        };
        assert_eq!(
            kept.to_string(),
            "removed worktree /repo/.hookrig/worktrees/api\n\
             kept branch task/api: not merged into main\n"
        );
    }
}
