//! `hookrig install|uninstall HOST`: hookrig as an agent host's one hook; `hookrig
//! doctor`: where it is installed and what it will run.

use clap::{Args, ValueEnum};
use hookrig_core::Dialect;
use hookrig_dialects::{Doctor, InstallLevel, InstallReport, InstallRequest, UninstallReport};

use crate::cli::JsonArg;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::json_or_text;
use crate::scope::{Flags, Top};

/// The engine's address when `--http` names none: the one docs/engine.md uses.
const DEFAULT_HTTP: &str = "127.0.0.1:7700";

/// An agent host hookrig installs into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Host {
    /// Claude Code.
    Claude,
    /// Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// Cursor.
    Cursor,
}

impl Host {
    fn dialect(self) -> Dialect {
        match self {
            Host::Claude => Dialect::Claude,
            Host::Codex => Dialect::Codex,
            Host::Gemini => Dialect::Gemini,
            Host::Cursor => Dialect::Cursor,
        }
    }
}

/// `--user` (the default) or `--project`.
#[derive(Debug, Clone, Copy, Default, Args)]
pub(crate) struct LevelArgs {
    /// The user's settings file (the default).
    #[arg(long, conflicts_with = "project")]
    user: bool,
    /// The settings file of the working directory's repository.
    #[arg(long)]
    project: bool,
}

impl LevelArgs {
    fn level(self) -> InstallLevel {
        if self.project {
            InstallLevel::Project
        } else {
            InstallLevel::User
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct InstallArgs {
    /// The host.
    #[arg(value_enum)]
    host: Host,
    #[command(flatten)]
    level: LevelArgs,
    /// Claude Code only: HTTP hooks posting to the resident engine at ADDR (default
    /// 127.0.0.1:7700) instead of a command; Claude Code must have `HOOKRIG_TOKEN` set.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = DEFAULT_HTTP)]
    http: Option<String>,
    #[command(flatten)]
    json: JsonArg,
}

#[derive(Debug, Args)]
pub(crate) struct UninstallArgs {
    /// The host.
    #[arg(value_enum)]
    host: Host,
    #[command(flatten)]
    level: LevelArgs,
    #[command(flatten)]
    json: JsonArg,
}

pub(crate) fn install(top: &Top, args: &InstallArgs) -> Result<u8, ExpectedError> {
    let scope = top.scope(Flags::default())?;
    // The host runs this very executable: by name when PATH finds it, else by its path.
    let exe = std::env::current_exe().map_err(ExpectedError::CurrentExe)?;
    let path = std::env::var_os("PATH");
    let request = InstallRequest {
        host: args.host.dialect(),
        level: args.level.level(),
        program: hookrig_dialects::hookrig_program(&exe, path.as_deref()),
        http: args.http.clone(),
    };
    let report = hookrig_dialects::install(&scope.env, &request)?;
    json_or_text(args.json.json, &report, InstallReport::to_string)?;
    Ok(exit_codes::PROCEED)
}

pub(crate) fn uninstall(top: &Top, args: &UninstallArgs) -> Result<u8, ExpectedError> {
    let scope = top.scope(Flags::default())?;
    let report = hookrig_dialects::uninstall(&scope.env, args.host.dialect(), args.level.level())?;
    json_or_text(args.json.json, &report, UninstallReport::to_string)?;
    Ok(exit_codes::PROCEED)
}

/// `hookrig doctor`: always exits 0, since it reports rather than decides.
pub(crate) fn doctor(top: &Top, json: bool) -> Result<u8, ExpectedError> {
    let scope = top.scope(Flags::default())?;
    let path = std::env::var_os("PATH");
    let report = hookrig_dialects::doctor(&scope.env, path.as_deref());
    json_or_text(json, &report, Doctor::to_string)?;
    Ok(exit_codes::PROCEED)
}
