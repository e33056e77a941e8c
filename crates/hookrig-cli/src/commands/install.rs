//! `hookrig install|uninstall HOST`: hookrig as an agent host's one hook; `hookrig
//! doctor`: where it is installed and what it will run.

use std::fmt::Write as _;
use std::path::Path;

use clap::{Args, ValueEnum};
use hookrig_core::Dialect;
use hookrig_dialects::{
    Doctor, FileChange, InstallLevel, InstallReport, InstallRequest, InstallState, SidecarTrust,
    UninstallReport,
};

use crate::cli::JsonArg;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{count, json_or_text};
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
    json_or_text(args.json.json, &report, install_text)?;
    Ok(exit_codes::PROCEED)
}

pub(crate) fn uninstall(top: &Top, args: &UninstallArgs) -> Result<u8, ExpectedError> {
    let scope = top.scope(Flags::default())?;
    let report = hookrig_dialects::uninstall(&scope.env, args.host.dialect(), args.level.level())?;
    json_or_text(args.json.json, &report, uninstall_text)?;
    Ok(exit_codes::PROCEED)
}

fn name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn install_text(report: &InstallReport) -> String {
    let mut text = String::new();
    for file in &report.files {
        file_text(&mut text, file, "moved to");
    }
    let _ = writeln!(
        text,
        "{} runs `{}` on every event ({} level)",
        report.host,
        report.entry,
        report.level.as_str()
    );
    match &report.trust {
        SidecarTrust::User | SidecarTrust::NothingMoved => {}
        SidecarTrust::Carried => text.push_str(
            "the moved hooks were trusted as they were; they stay trusted in their new file\n",
        ),
        SidecarTrust::Untrusted { command } => {
            let _ = writeln!(
                text,
                "the moved hooks come with the project and are not trusted yet: review them, then run `{command}`"
            );
        }
    }
    if report.entry.starts_with("http://") {
        text.push_str(
            "the engine must serve HTTP there (`hookrig serve --http ADDR`), and Claude Code must run with HOOKRIG_TOKEN set to its token (`hookrig serve --print-token`)\n",
        );
    }
    text
}

fn uninstall_text(report: &UninstallReport) -> String {
    let mut text = String::new();
    for file in &report.files {
        file_text(&mut text, file, "put back from");
    }
    if report.files.iter().all(|f| !f.changed) {
        let _ = writeln!(
            text,
            "hookrig is not installed in {} ({} level); nothing changed",
            report.host,
            report.level.as_str()
        );
    }
    text
}

fn file_text(text: &mut String, file: &FileChange, moved: &str) {
    if !file.changed {
        let _ = writeln!(text, "{}: unchanged", file.path.display());
        return;
    }
    let _ = write!(text, "{}: updated", file.path.display());
    if file.moved > 0 {
        let _ = write!(
            text,
            ", {} {moved} {}",
            count(file.moved, "hook"),
            name(&file.sidecar)
        );
    }
    if let Some(backup) = &file.backup {
        let _ = write!(text, "; the original is kept in {}", name(backup));
    }
    text.push('\n');
}

/// `hookrig doctor`: always exits 0, since it reports rather than decides.
pub(crate) fn doctor(top: &Top, json: bool) -> Result<u8, ExpectedError> {
    let scope = top.scope(Flags::default())?;
    let path = std::env::var_os("PATH");
    let report = hookrig_dialects::doctor(&scope.env, path.as_deref());
    json_or_text(json, &report, doctor_text)?;
    Ok(exit_codes::PROCEED)
}

fn doctor_text(report: &Doctor) -> String {
    let mut text = String::new();
    if report.hosts.is_empty() {
        text.push_str("no agent host found (Claude Code, Codex CLI, Gemini CLI, Cursor)\n");
    }
    for host in &report.hosts {
        let _ = writeln!(text, "{} (found: {})", host.title, host.found.join(", "));
        for installed in &host.installed {
            let state = match &installed.state {
                InstallState::Missing => "no file".to_owned(),
                InstallState::NotInstalled => format!(
                    "not installed (`hookrig install {}{}`)",
                    host.host,
                    match installed.level {
                        InstallLevel::User => "",
                        InstallLevel::Project => " --project",
                    }
                ),
                InstallState::Installed {
                    entry,
                    program_exists: true,
                } => format!("installed: `{entry}`"),
                InstallState::Installed {
                    entry,
                    program_exists: false,
                } => format!(
                    "installed, but its program is gone: `{entry}`; run `hookrig install {}` again",
                    host.host
                ),
                InstallState::Unreadable { reason } => format!("cannot be read: {reason}"),
            };
            let _ = writeln!(
                text,
                "  {:8} {}: {state}",
                format!("{}:", installed.level.as_str()),
                installed.file.display()
            );
        }
        if host.hooks.is_empty() {
            text.push_str("  hooks: none\n");
        } else {
            text.push_str("  hooks hookrig runs:\n");
        }
        for hook in &host.hooks {
            let _ = write!(text, "    {} ({})", hook.name, hook.source.display());
            if let Some(why) = &hook.untrusted {
                let _ = write!(text, ": untrusted, {why}");
            } else if !hook.enabled {
                text.push_str(": turned off");
            }
            text.push('\n');
        }
        for warning in &host.warnings {
            let _ = writeln!(text, "  {warning}");
        }
    }
    text
}
