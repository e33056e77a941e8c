//! `hookrig plan board` (built-in formats and external board formatters),
//! `hookrig plan next` and `hookrig plan validate`.

use std::io::IsTerminal as _;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use hookrig_plan::board::{Board, Next};
use hookrig_plan::lifecycle;
use hookrig_plan::render;
use hookrig_runtime::Scope;

use crate::cli::{PlanAgentArgs, PlanArg};
use crate::errors::ExpectedError;
use crate::scope::{Flags, Top};
use crate::{exit_codes, output};

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
    Validate(super::plan_validate::ValidateArgs),
}

#[derive(Debug, Args)]
struct BoardArgs {
    /// The plan file (as Hence writes it: `plan board plan.spl`); same as --plan.
    #[arg(value_name = "PLAN", conflicts_with = "plan")]
    file: Option<PathBuf>,
    #[command(flatten)]
    plan: PlanArg,
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
    #[command(flatten)]
    flags: PlanAgentArgs,
}

/// The kanban width when stdout is not a terminal.
const DEFAULT_WIDTH: usize = 100;

/// Runs `hookrig plan ...`.
pub(crate) fn run(top: &Top, args: &PlanArgs) -> Result<u8, ExpectedError> {
    match &args.command {
        PlanCommand::Board(board) => {
            let scope = top.scope(Flags::default().plan(board.file.as_deref(), &board.plan))?;
            self::board(&scope, board)
        }
        PlanCommand::Next(next) => {
            let flags = Flags::default()
                .plan(next.file.as_deref(), &next.flags.plan)
                .agent(&next.flags.agent);
            self::next(&top.scope(flags)?, next.flags.json.json)
        }
        PlanCommand::Validate(validate) => super::plan_validate::run(top, validate),
    }
}

fn board(scope: &Scope, args: &BoardArgs) -> Result<u8, ExpectedError> {
    let format = if args.json {
        "json"
    } else {
        args.format
            .as_deref()
            .unwrap_or(if args.dot { "dag" } else { "kanban" })
    };
    if args.dot && format != "dag" {
        return Err(ExpectedError::DotWithoutDag);
    }
    let path = &scope.plan.as_ref().ok_or(ExpectedError::NoPlan)?.named;
    let loaded = lifecycle::read(path)?;
    let shown = path.display().to_string();
    let plan = &loaded.plan;
    let text = match format {
        "kanban" => render::kanban(&shown, plan, terminal_width()),
        "tree" => render::tree(&shown, plan),
        "dag" if args.dot => render::dot(&shown, plan),
        "dag" => render::dag(&shown, plan),
        "json" => {
            output::print_json(&Board::new(&shown, plan))?;
            return Ok(exit_codes::PROCEED);
        }
        name => {
            let board = serde_json::to_vec(&Board::new(&shown, plan)).expect("JSON serializes");
            let stdout = hookrig_runtime::format_board(scope, name, board, &mut output::warn)?;
            output::write(&stdout)?;
            return Ok(exit_codes::PROCEED);
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

fn next(scope: &Scope, json: bool) -> Result<u8, ExpectedError> {
    let path = &scope.plan.as_ref().ok_or(ExpectedError::NoPlan)?.named;
    let agent = scope.agent.as_deref().ok_or(ExpectedError::NoAgent)?;
    let loaded = lifecycle::read(path)?;
    let next = Board::new(&path.display().to_string(), &loaded.plan).next_for(agent);
    output::json_or_text(json, &next, Next::to_string)?;
    Ok(exit_codes::PROCEED)
}
