//! `hookrig plan validate`: the plan's built-in checks and its validators
//! (`hookrig_runtime::check_plan`), rendered as text or JSON.

use std::path::PathBuf;

use clap::Args;

use crate::cli::{AgentArg, JsonArg, PlanArg};
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{print, print_json, warn_all};
use crate::scope::{Flags, Top};

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// The plan file (as Hence takes it: `plan validate plan.spl`).
    #[arg(value_name = "PLAN", conflicts_with = "plan")]
    file: Option<PathBuf>,
    #[command(flatten)]
    plan: PlanArg,
    /// Warnings (and validators that cannot run) fail too.
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    json: JsonArg,
    #[command(flatten)]
    agent: AgentArg,
}

/// `plan validate`: the plan is the positional file, else `--plan`, else `hookrig
/// --plan`, else `$HOOKRIG_PLAN`, else `$HENCE_PLAN`.
pub(crate) fn run(top: &Top, args: &ValidateArgs) -> Result<u8, ExpectedError> {
    let flags = Flags::default()
        .plan(args.file.as_deref(), &args.plan)
        .agent(&args.agent);
    let scope = top.scope(flags)?;
    let plan = scope.plan.as_ref().ok_or(ExpectedError::NoPlan)?;
    let check = hookrig_runtime::check_plan(&scope, plan, args.strict)?;
    warn_all(&check.warnings);
    let shown = plan.named.display().to_string();
    if args.json.json {
        print_json(&check.report(&shown, args.strict))?;
    } else {
        warn_all(&check.skipped);
        print(&check.text(&shown, args.strict))?;
    }
    Ok(if check.passes(args.strict) {
        exit_codes::PROCEED
    } else {
        exit_codes::FAILURE
    })
}
