//! `hookrig plan board` (built-in formats and external board formatters) and
//! `hookrig plan next`.

use std::ffi::OsStr;
use std::io::{IsTerminal as _, Read as _, Write as _};
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use clap::{Args, Subcommand};
use hookrig_config::Environment;
use hookrig_plan::board::{Board, BoardTask};
use hookrig_plan::lifecycle;
use hookrig_plan::plan::TaskState;
use hookrig_plan::render;
use serde::Serialize;

use crate::cli::GlobalArgs;
use crate::commands::plan_file::{self, PlanError};
use crate::errors::ExpectedError;
use crate::external::{Probe, probe};
use crate::{exit_codes, ledger, output};

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
            let stdout = run_formatter(name, &formatter, &board, &absolute, agent.as_deref())?;
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

/// Runs the formatter `path` with `board` on stdin and returns its stdout. Its stderr
/// is hookrig's, so its own error messages reach the user.
fn run_formatter(
    name: &str,
    path: &Path,
    board: &[u8],
    plan: &Path,
    agent: Option<&str>,
) -> Result<Vec<u8>, PlanError> {
    let spawn_error = |source| PlanError::FormatterSpawn {
        name: name.to_owned(),
        path: path.to_owned(),
        source,
    };
    let mut command = Command::new(path);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .env("HOOKRIG_PLAN", plan)
        .env("HENCE_PLAN", plan);
    if let Some(agent) = agent {
        command
            .env("HOOKRIG_AGENT", agent)
            .env("HENCE_AGENT", agent);
    }
    let mut child = command.spawn().map_err(spawn_error)?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let board = board.to_vec();
    // Written from a thread while stdout is read here: a formatter that prints before it
    // has read everything must not block on a full pipe.
    let writer = std::thread::spawn(move || {
        // A formatter that does not read its input closes the pipe: not an error.
        let _ = stdin.write_all(&board);
    });
    let mut stdout = Vec::new();
    let read = child
        .stdout
        .take()
        .expect("stdout is piped")
        .read_to_end(&mut stdout);
    let status = child.wait().map_err(spawn_error)?;
    let _ = writer.join();
    read.map_err(spawn_error)?;
    if status.success() {
        return Ok(stdout);
    }
    let how = match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => "exit ?".to_owned(),
    };
    Err(PlanError::FormatterFailed {
        name: name.to_owned(),
        how,
    })
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
