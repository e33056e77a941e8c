//! `hookrig test`: the hook tests, run in a sandbox (hookrig-testing), or a new case
//! written from an event.

use std::path::PathBuf;

use clap::Args;
use hookrig_runtime::Scope;
use hookrig_testing::{NewCase, RunOptions, Sandbox};

use crate::cli::{CwdArg, JsonArg};
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::host::HostDialect;
use crate::output::{print, print_json};

/// The largest payload `--new` reads from stdin, as `hookrig emit`'s default.
const MAX_PAYLOAD: u64 = 16 << 20;

#[derive(Debug, Args)]
pub(crate) struct TestArgs {
    /// Run only the cases whose id (`FILE::NAME`) contains this text.
    filter: Option<String>,
    /// Also write the report as JUnit XML to FILE.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// How many cases run at once (default: one per core).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0)]
    jobs: usize,
    /// Write a case for EVENT, its payload read from stdin, expecting today's answer.
    #[arg(long, value_name = "EVENT", conflicts_with_all = ["filter", "junit"])]
    new: Option<String>,
    /// Write a case from the ledger's emit with this run id, expecting today's answer.
    #[arg(long, value_name = "RUN_ID", conflicts_with_all = ["filter", "junit", "new"])]
    from_run: Option<String>,
    /// The dialect of the `--new` payload (the host's input).
    #[arg(long, value_enum, default_value_t, requires = "new")]
    dialect: HostDialect,
    /// The new case's name (default: EVENT-N).
    #[arg(long)]
    name: Option<String>,
    /// The test file in `.hookrig/tests/` the new case goes to.
    #[arg(long, value_name = "FILE.toml", default_value = hookrig_testing::DEFAULT_FILE)]
    file: String,
    #[command(flatten)]
    pub(crate) cwd: CwdArg,
    #[command(flatten)]
    json: JsonArg,
}

pub(crate) fn run(scope: &Scope, args: &TestArgs) -> Result<u8, ExpectedError> {
    let vars = std::env::vars_os().collect();
    let new = match (&args.new, &args.from_run) {
        (Some(event), _) => {
            let stdin = crate::commands::emit::read_stdin(MAX_PAYLOAD)?;
            let payload = serde_json::from_slice(&stdin)
                .map_err(|err| hookrig_testing::TestingError::Payload(err.to_string()))?;
            Some(NewCase {
                event: event.clone(),
                dialect: args.dialect.dialect(),
                payload,
                agent: scope.agent.clone(),
                name: None,
                file: None,
            })
        }
        (None, Some(run_id)) => {
            let run_id = run_id.trim().to_ascii_lowercase();
            let detail = crate::commands::runs::ledger(scope)?
                .emits()
                .detail(&run_id)?
                .ok_or(ExpectedError::UnknownRun(run_id))?;
            Some(NewCase::from_run(&detail.emit)?)
        }
        (None, None) => None,
    };
    if let Some(new) = new {
        let new = NewCase {
            name: args.name.clone(),
            file: Some(args.file.clone()),
            ..new
        };
        let pinned = hookrig_testing::pin(&scope.env, vars, &new)?;
        if args.json.json {
            print_json(&pinned)?;
        } else {
            print(&format!(
                "{}\nadded to {}\n",
                pinned.text,
                pinned.path.display()
            ))?;
        }
        return Ok(exit_codes::PROCEED);
    }
    let suite = hookrig_testing::discover(&scope.env)?;
    let options = RunOptions {
        filter: args.filter.clone(),
        jobs: args.jobs,
    };
    let report = hookrig_testing::run(&suite, &options, &Sandbox::new(vars)?, scope.cwd());
    if let Some(path) = &args.junit {
        hookrig_testing::write_junit(&report, path)?;
    }
    if args.json.json {
        print_json(&report)?;
    } else {
        print(&report.text())?;
    }
    Ok(if report.success() {
        exit_codes::PROCEED
    } else {
        exit_codes::FAILURE
    })
}

#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// Only emits recorded within this long before now (`1d`, `2h`, `30m`).
    #[arg(long, value_name = "DURATION", default_value = "1d", value_parser = humantime::parse_duration)]
    since: std::time::Duration,
    /// Only emits of this event (any accepted spelling).
    #[arg(long)]
    event: Option<String>,
    /// Only emits this hook took part in, then or today.
    #[arg(long, value_name = "NAME")]
    hook: Option<String>,
    /// At most this many emits, newest first.
    #[arg(long, default_value_t = 1000)]
    limit: usize,
    /// Run every hook, whatever it does besides answering; by default only the hooks
    /// that declared `side_effects = false` run.
    #[arg(long)]
    allow_side_effects: bool,
    #[command(flatten)]
    json: JsonArg,
}

pub(crate) fn replay(scope: &Scope, args: &ReplayArgs) -> Result<u8, ExpectedError> {
    let since = i64::try_from(args.since.as_millis()).unwrap_or(i64::MAX);
    let options = hookrig_testing::ReplayOptions {
        since_ms: hookrig_store::now_ms().saturating_sub(since),
        event: args.event.clone(),
        hook: args.hook.clone(),
        limit: args.limit,
        allow_side_effects: args.allow_side_effects,
    };
    let ledger = crate::commands::runs::ledger(scope)?;
    let sandbox = Sandbox::new(std::env::vars_os().collect())?;
    let replayed = hookrig_testing::replay(&ledger, &sandbox, &options)?;
    if args.json.json {
        print_json(&replayed)?;
    } else {
        print(&replayed.text())?;
    }
    Ok(exit_codes::PROCEED)
}
