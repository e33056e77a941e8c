//! `hookrig plan board` (built-in formats and external board formatters) and
//! `hookrig plan next`.

use std::ffi::{OsStr, OsString};
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Subcommand};
use hookrig_config::Environment;
use hookrig_exec::{Capture, Command, Stderr, Termination};
use hookrig_plan::board::{Board, BoardTask};
use hookrig_plan::lifecycle;
use hookrig_plan::plan::TaskState;
use hookrig_plan::render;
use serde::Serialize;

use crate::cli::GlobalArgs;
use crate::commands::plan_file::{self, PlanError};
use crate::errors::ExpectedError;
use crate::{exit_codes, ledger, output};
use hookrig_exec::{Probe, probe};

/// `hookrig plan ...`.
#[derive(Debug, Args)]
pub(crate) struct PlanArgs {
    #[command(subcommand)]
    command: PlanCommand,
}

#[derive(Debug, Subcommand)]
enum PlanCommand {
    /// Show the plan's tasks by state (kanban, tree, dag, json, or an external formatter).
    Board(BoardArgs),
    /// List what an agent should take next: its assignments among ready tasks, or all
    /// its assignments when none is ready.
    Next(NextArgs),
    /// Check a plan: built-in rules, then every validator script; exit 1 on an error
    /// (and with --strict, on a warning).
    Validate(crate::cli::PlanValidateArgs),
}

#[derive(Debug, Args)]
struct BoardArgs {
    /// The plan file (as Hence writes it: `plan board plan.spl`); same as --plan.
    #[arg(value_name = "PLAN", conflicts_with = "plan")]
    file: Option<PathBuf>,
    /// The plan file (default `$HOOKRIG_PLAN`, else `$HENCE_PLAN`).
    #[arg(long, short = 'f', value_name = "FILE")]
    plan: Option<PathBuf>,
    /// kanban (default), tree, dag, json, or NAME to run the formatter
    /// `hookrig-board-NAME` (or `hence-board-NAME`) with the board JSON on stdin.
    #[arg(long, value_name = "FORMAT", conflicts_with = "json")]
    format: Option<String>,
    /// Same as --format json.
    #[arg(long)]
    json: bool,
    /// With the dag format: print Graphviz dot.
    #[arg(long)]
    dot: bool,
}

#[derive(Debug, Args)]
struct NextArgs {
    /// The plan file; same as --plan.
    #[arg(value_name = "PLAN", conflicts_with = "plan")]
    file: Option<PathBuf>,
    /// The plan file (default `$HOOKRIG_PLAN`, else `$HENCE_PLAN`).
    #[arg(long, short = 'f', value_name = "FILE")]
    plan: Option<PathBuf>,
    /// The agent (default `$HOOKRIG_AGENT`, else `$HENCE_AGENT`).
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// The prefixes of board formatter programs, hookrig's first.
const FORMATTER_PREFIXES: [&str; 2] = ["hookrig-board-", "hence-board-"];

/// The kanban width when stdout is not a terminal.
const DEFAULT_WIDTH: usize = 100;

/// How long a board formatter may run before it is stopped with its process group.
///
/// A formatter renders a board that is already computed, which takes well under a second
/// even for a plan of thousands of tasks; 30 s leaves room for one that starts a slow
/// interpreter or calls a renderer such as Graphviz on a loaded machine, and is still
/// short enough that a formatter waiting for input that never comes fails while the user
/// is looking at the prompt. docs/plans.md documents it.
const FORMATTER_TIMEOUT: Duration = Duration::from_secs(30);

/// Between SIGTERM and SIGKILL for a formatter that ran out of time.
const FORMATTER_GRACE: Duration = Duration::from_secs(1);

/// The most a formatter may print: far more than any board, small enough to hold.
const FORMATTER_OUTPUT_CAP: usize = 64 << 20;

/// Runs `hookrig plan ...`.
pub(crate) fn run(
    global: &GlobalArgs,
    args: &PlanArgs,
    top_agent: Option<&OsStr>,
    top_plan: Option<&Path>,
) -> Result<u8, ExpectedError> {
    match &args.command {
        PlanCommand::Board(board) => self::board(global, board, top_agent, top_plan),
        PlanCommand::Next(next) => self::next(next, top_agent, top_plan),
        PlanCommand::Validate(validate) => {
            super::plan_validate::command(global, validate, top_agent, top_plan)
        }
    }
}

fn board(
    global: &GlobalArgs,
    args: &BoardArgs,
    top_agent: Option<&OsStr>,
    top_plan: Option<&Path>,
) -> Result<u8, ExpectedError> {
    let format = if args.json {
        "json"
    } else {
        args.format
            .as_deref()
            .unwrap_or(if args.dot { "dag" } else { "kanban" })
    };
    if args.dot && format != "dag" {
        return Err(PlanError::DotWithoutDag.into());
    }
    let path = plan_file::plan_path(args.file.as_deref().or(args.plan.as_deref()), top_plan)?;
    let loaded = lifecycle::read(&path).map_err(PlanError::from)?;
    let shown = path.display().to_string();
    let plan = &loaded.plan;
    let text = match format {
        "kanban" => render::kanban(&shown, plan, terminal_width()),
        "tree" => render::tree(&shown, plan),
        "dag" if args.dot => render::dot(&shown, plan),
        "dag" => render::dag(&shown, plan),
        "json" => {
            let mut json = serde_json::to_string_pretty(&Board::new(&shown, plan))
                .expect("JSON always serializes");
            json.push('\n');
            json
        }
        name => {
            let board = serde_json::to_vec(&Board::new(&shown, plan)).expect("JSON serializes");
            let agent = plan_file::agent(None, top_agent).ok();
            let found = Formatters::find(global, agent.as_deref())?;
            let formatter = found.get(name)?;
            let absolute = hookrig_config::normal_path(&path);
            let run = FormatterRun {
                name,
                path: &formatter,
                cwd: std::env::current_dir().map_err(ExpectedError::Cwd)?,
                plan: &absolute,
                agent: agent.as_deref(),
                timeout: FORMATTER_TIMEOUT,
            };
            let stdout = run.output(board)?;
            // Written as is: a formatter may print bytes that are not UTF-8.
            let mut out = std::io::stdout().lock();
            return match out.write_all(&stdout).and_then(|()| out.flush()) {
                Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(ExpectedError::Stdout(err))
                }
                _ => Ok(exit_codes::PROCEED),
            };
        }
    };
    output::print(&text)?;
    Ok(exit_codes::PROCEED)
}

/// The terminal's width when stdout is one, else [`DEFAULT_WIDTH`].
fn terminal_width() -> usize {
    if std::io::stdout().is_terminal()
        && let Some((terminal_size::Width(width), _)) = terminal_size::terminal_size()
    {
        return usize::from(width);
    }
    DEFAULT_WIDTH
}

/// Every board formatter that can be found, by format name.
struct Formatters {
    /// `(name, file)`, in search order: `hookrig-board-NAME` in `PATH` then
    /// `plugin_path`, then `hence-board-NAME` in both, then the `formatters` of the
    /// plugin packages enabled for the agent.
    candidates: Vec<(String, PathBuf)>,
}

impl Formatters {
    fn find(global: &GlobalArgs, agent: Option<&str>) -> Result<Self, ExpectedError> {
        let mut dirs = crate::external::path_dirs();
        dirs.extend(crate::external::plugin_path_dirs()?);
        let env = Environment::from_process(std::env::current_dir().map_err(ExpectedError::Cwd)?)?;
        let mut candidates = Vec::new();
        for prefix in FORMATTER_PREFIXES {
            for dir in &dirs {
                let Ok(entries) = std::fs::read_dir(dir) else {
                    continue;
                };
                let mut names: Vec<(String, PathBuf)> = entries
                    .filter_map(Result::ok)
                    .filter_map(|entry| {
                        let file = entry.file_name();
                        let name = file.to_str()?.strip_prefix(prefix)?;
                        (!name.is_empty()).then(|| (name.to_owned(), entry.path()))
                    })
                    .collect();
                names.sort();
                candidates.extend(names);
            }
        }
        let (packages, _) = ledger::enabled_packages(global, agent)?;
        for package in &packages {
            let check = hookrig_dialects::check_package(&env, package);
            match check.package {
                Some(loaded) => candidates.extend(
                    loaded
                        .formatters
                        .into_iter()
                        .map(|file| (file.name, file.path)),
                ),
                None => eprintln!(
                    "hookrig: warning: plugin package {} is not loaded, its formatters are not available",
                    package.id
                ),
            }
        }
        Ok(Self { candidates })
    }

    /// The first executable formatter for `name`; as for external commands, one that
    /// cannot be run does not hide a later one that can, but is what the error names
    /// when none can.
    fn get(&self, name: &str) -> Result<PathBuf, PlanError> {
        let mut not_executable = None;
        for (candidate, path) in &self.candidates {
            if candidate != name {
                continue;
            }
            match probe(path) {
                Probe::Executable => return Ok(path.clone()),
                Probe::NotExecutable => {
                    not_executable.get_or_insert_with(|| path.clone());
                }
                Probe::Missing => {}
            }
        }
        if let Some(path) = not_executable {
            return Err(PlanError::FormatterNotExecutable {
                name: name.to_owned(),
                path,
            });
        }
        let mut found: Vec<String> = self
            .candidates
            .iter()
            .filter(|(_, path)| probe(path) == Probe::Executable)
            .map(|(name, _)| name.clone())
            .collect();
        found.sort();
        found.dedup();
        Err(PlanError::UnknownFormat {
            name: name.to_owned(),
            found,
        })
    }
}

/// One run of a board formatter.
struct FormatterRun<'a> {
    /// The format it was found for.
    name: &'a str,
    /// Its file.
    path: &'a Path,
    /// hookrig's working directory, which the formatter shares.
    cwd: PathBuf,
    /// The plan, absolute.
    plan: &'a Path,
    agent: Option<&'a str>,
    timeout: Duration,
}

impl FormatterRun<'_> {
    /// Runs the formatter with `board` on stdin and returns its stdout. Its stderr is
    /// hookrig's, so its own error messages reach the user. It runs in a process group
    /// of its own, stopped with everything it started when it runs out of time.
    fn output(&self, board: Vec<u8>) -> Result<Vec<u8>, PlanError> {
        let plan = self.plan.to_string_lossy();
        let mut command = Command::exec(self.path, Vec::<OsString>::new(), self.cwd.clone())
            .env("HOOKRIG_PLAN", plan.as_ref())
            .env("HENCE_PLAN", plan.as_ref());
        if let Some(agent) = self.agent {
            command = command
                .env("HOOKRIG_AGENT", agent)
                .env("HENCE_AGENT", agent);
        }
        let output = command.capture_blocking(Capture {
            stdin: board,
            stdout_cap: FORMATTER_OUTPUT_CAP,
            stderr: Stderr::Inherit,
            timeout: Some(self.timeout),
            kill_grace: FORMATTER_GRACE,
        });
        if let Some(warning) = output.leftover_warning(&format!("formatter '{}'", self.name)) {
            eprintln!("hookrig: warning: {warning}");
        }
        let name = self.name.to_owned();
        let how = match output.termination {
            Termination::Exited(0) if output.stdout_truncated => {
                return Err(PlanError::FormatterOutputTooLarge {
                    name,
                    cap: FORMATTER_OUTPUT_CAP,
                });
            }
            Termination::Exited(0) => return Ok(output.stdout),
            Termination::Exited(code) => format!("exit {code}"),
            Termination::Signaled(signal) => format!("killed by signal {signal}"),
            Termination::Interrupted => "interrupted".to_owned(),
            Termination::TimedOut { after, .. } => {
                return Err(PlanError::FormatterTimedOut {
                    name,
                    path: self.path.to_owned(),
                    after,
                });
            }
            Termination::SpawnFailed(source) => {
                return Err(PlanError::FormatterSpawn {
                    name,
                    path: self.path.to_owned(),
                    source,
                });
            }
        };
        Err(PlanError::FormatterFailed { name, how })
    }
}

/// What `plan next --json` prints.
#[derive(Debug, Serialize)]
struct Next<'a> {
    agent: &'a str,
    /// True when `tasks` are the agent's ready assignments; false when none is ready and
    /// `tasks` are all its assignments.
    ready: bool,
    tasks: Vec<BoardTask>,
}

fn next(
    args: &NextArgs,
    top_agent: Option<&OsStr>,
    top_plan: Option<&Path>,
) -> Result<u8, ExpectedError> {
    let path = plan_file::plan_path(args.file.as_deref().or(args.plan.as_deref()), top_plan)?;
    let agent = plan_file::agent(args.agent.as_deref(), top_agent)?;
    let agent = agent.strip_prefix("agent:").unwrap_or(&agent);
    let loaded = lifecycle::read(&path).map_err(PlanError::from)?;
    let board = Board::new(&path.display().to_string(), &loaded.plan);
    let assigned: Vec<BoardTask> = board
        .tasks
        .into_iter()
        .filter(|t| t.assigned_to.iter().any(|a| a == agent))
        .collect();
    let any_ready = assigned.iter().any(|t| t.state == TaskState::Ready);
    let tasks: Vec<BoardTask> = if any_ready {
        assigned
            .into_iter()
            .filter(|t| t.state == TaskState::Ready)
            .collect()
    } else {
        assigned
    };
    let next = Next {
        agent,
        ready: any_ready,
        tasks,
    };
    let text = if args.json {
        let mut json = serde_json::to_string_pretty(&next).expect("JSON always serializes");
        json.push('\n');
        json
    } else {
        next_text(&next)
    };
    output::print(&text)?;
    Ok(exit_codes::PROCEED)
}

fn next_text(next: &Next<'_>) -> String {
    use std::fmt::Write as _;
    let agent = next.agent;
    let mut text = if next.tasks.is_empty() {
        return format!("no tasks are assigned to {agent}\n");
    } else if next.ready {
        format!("ready for {agent}:\n")
    } else {
        format!("nothing assigned to {agent} is ready; all its assignments:\n")
    };
    let width = next
        .tasks
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(0);
    for task in &next.tasks {
        let description = task
            .meta
            .get("description")
            .and_then(|d| d.as_str())
            .unwrap_or_default();
        let line = format!(
            "  {:<width$}  {:<11}  {description}",
            task.name,
            task.state.as_str()
        );
        let _ = writeln!(text, "{}", line.trim_end());
    }
    text
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    #[test]
    fn a_formatter_that_never_exits_is_stopped_with_its_group() {
        // guards: a board formatter that never exits hung `plan board`
        let dir = tempfile::Builder::new()
            .prefix("hookrig-formatter-test-")
            .tempdir()
            .expect("tempdir");
        let marker = dir.path().to_str().expect("UTF-8 temp path").to_owned();
        let sleep = dir.path().join("sleep");
        std::os::unix::fs::symlink("/bin/sleep", &sleep).expect("symlink sleep");
        let path = dir.path().join("hookrig-board-stuck");
        hookrig_test_support::write_executable(
            &path,
            &format!("'{0}' 300 &\n'{0}' 301\n", sleep.display()),
        );
        let run = FormatterRun {
            name: "stuck",
            path: &path,
            cwd: dir.path().to_owned(),
            plan: Path::new("/p/plan.spl"),
            agent: None,
            timeout: Duration::from_millis(300),
        };
        let started = Instant::now();
        let error = run.output(b"{}".to_vec()).expect_err("timed out");
        assert!(started.elapsed() < Duration::from_secs(20));
        assert_eq!(
            error.to_string(),
            format!(
                "formatter 'stuck' ({}) did not finish within 300ms and was stopped",
                path.display()
            )
        );
        let left = hookrig_test_support::no_leftover(&marker, Duration::from_secs(10));
        hookrig_test_support::kill_all_with(&marker);
        assert!(
            left.is_empty(),
            "processes of the formatter are left: {left:?}"
        );
    }
}
