//! `hookrig doctor`: for each agent host on the machine, whether hookrig is its one hook
//! (at the user's level and the project's), which of its hooks hookrig will run for the
//! working directory, which of them wait for `hookrig trust`, and what its files use
//! that hookrig cannot honour.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

use hookrig_config::Environment;
use hookrig_core::{Dialect, Level};
use hookrig_exec::CommandDef;
use serde::Serialize;
use serde_json::Value;

use super::{HOSTS, HostInstall, InstallLevel, Kind, hooks_json, project_dir};
use crate::loader::LoadOptions;

/// What `hookrig doctor` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Doctor {
    /// The working directory the hooks were loaded for.
    pub cwd: PathBuf,
    /// Each host found on the machine, in a fixed order.
    pub hosts: Vec<HostCheck>,
}

/// One host on the machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostCheck {
    /// The host.
    pub host: Dialect,
    /// Its name for people.
    pub title: String,
    /// Why it counts as found: its configuration directory, its programs on `PATH`.
    pub found: Vec<String>,
    /// Whether hookrig is installed in its user file and in the project's file.
    pub installed: Vec<Installed>,
    /// The host's hooks hookrig will run for the working directory, in load order.
    pub hooks: Vec<HookCheck>,
    /// Problems of the host's files: features hookrig cannot honour, entries skipped.
    pub warnings: Vec<String>,
}

/// hookrig in one of a host's files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Installed {
    /// The level of the file.
    pub level: InstallLevel,
    /// The file.
    pub file: PathBuf,
    /// What it holds.
    #[serde(flatten)]
    pub state: InstallState,
}

/// Whether a file makes hookrig the host's hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum InstallState {
    /// The file does not exist.
    Missing,
    /// The file has no entry of hookrig.
    NotInstalled,
    /// The file has hookrig's entries.
    Installed {
        /// The first entry's command line (or URL).
        entry: String,
        /// Whether the program it runs exists (a name is looked up on `PATH`); always
        /// true for an HTTP entry.
        program_exists: bool,
    },
    /// The file cannot be read or parsed.
    Unreadable {
        /// Why.
        reason: String,
    },
}

/// One hook of a host that hookrig loads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookCheck {
    /// Its hookrig name (`claude:user:PreToolUse:1`).
    pub name: String,
    /// The file that declares it.
    pub source: PathBuf,
    /// `global` or `project`.
    pub level: String,
    /// What it runs: a command line or a URL.
    pub command: String,
    /// Why it does not run until trusted, with the command that trusts it.
    pub untrusted: Option<String>,
    /// False when the host's own settings turn it off.
    pub enabled: bool,
}

/// What `hookrig doctor` prints: for each host, its files, the hooks hookrig runs for
/// it and what stands in their way.
impl fmt::Display for Doctor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.hosts.is_empty() {
            f.write_str("no agent host found (Claude Code, Codex CLI, Gemini CLI, Cursor)\n")?;
        }
        for host in &self.hosts {
            writeln!(f, "{} (found: {})", host.title, host.found.join(", "))?;
            for installed in &host.installed {
                writeln!(
                    f,
                    "  {:8} {}: {}",
                    format!("{}:", installed.level.as_str()),
                    installed.file.display(),
                    installed.state_text(host.host)
                )?;
            }
            if host.hooks.is_empty() {
                f.write_str("  hooks: none\n")?;
            } else {
                f.write_str("  hooks hookrig runs:\n")?;
            }
            for hook in &host.hooks {
                write!(f, "    {} ({})", hook.name, hook.source.display())?;
                if let Some(why) = &hook.untrusted {
                    write!(f, ": untrusted, {why}")?;
                } else if !hook.enabled {
                    f.write_str(": turned off")?;
                }
                writeln!(f)?;
            }
            for warning in &host.warnings {
                writeln!(f, "  {warning}")?;
            }
        }
        Ok(())
    }
}

impl Installed {
    /// What the file holds, as `hookrig doctor` says it: with the command that installs
    /// or repairs hookrig in `host` when it is missing or broken.
    fn state_text(&self, host: Dialect) -> String {
        match &self.state {
            InstallState::Missing => "no file".to_owned(),
            InstallState::NotInstalled => format!(
                "not installed (`hookrig install {host}{}`)",
                match self.level {
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
                "installed, but its program is gone: `{entry}`; run `hookrig install {host}` again"
            ),
            InstallState::Unreadable { reason } => format!("cannot be read: {reason}"),
        }
    }
}

/// Checks every host install knows; `path_var` is the `PATH` programs are looked up on.
pub fn doctor(env: &Environment, path_var: Option<&OsStr>) -> Doctor {
    let dirs: Vec<PathBuf> = path_var
        .into_iter()
        .flat_map(std::env::split_paths)
        .collect();
    let on_path = |name: &str| dirs.iter().map(|d| d.join(name)).find(|p| p.is_file());
    let mut hosts = Vec::new();
    for host in HOSTS {
        let mut found = Vec::new();
        let config_dir = (host.config_dir)(env);
        if config_dir.is_dir() {
            found.push(config_dir.display().to_string());
        }
        found.extend(
            host.programs
                .iter()
                .filter_map(|p| on_path(p))
                .map(|p| p.display().to_string()),
        );
        if found.is_empty() {
            continue;
        }
        // What an emit answering this host loads: not the hooks of the host's own plugins
        // or extensions, which the host runs itself.
        let loaded = crate::loader::load(
            env,
            &LoadOptions {
                host: Some(host.dialect),
                ..LoadOptions::default()
            },
        )
        .ok();
        let installed: Vec<Installed> = [InstallLevel::User, InstallLevel::Project]
            .into_iter()
            .flat_map(|level| installed(env, host, level, &on_path))
            .collect();
        let (hooks, warnings) = match &loaded {
            Some(config) => checks(env, host, config),
            None => (Vec::new(), Vec::new()),
        };
        let mut warnings = warnings;
        // The files whose hooks a project install moves without writing entries there
        // (Claude Code's settings.local.json).
        let moved_only: Vec<PathBuf> =
            (host.targets)(env, InstallLevel::Project, &project_dir(env))
                .into_iter()
                .filter(
                    |t| matches!(t.kind, Kind::Json(hooks) if hooks.role == super::Role::MovesOnly),
                )
                .map(|t| t.path)
                .collect();
        warnings.extend(run_twice(host, &installed, &moved_only, &hooks));
        if host.dialect == Dialect::Cursor {
            // Cursor can also run Claude Code's settings hooks itself (its third-party
            // hooks), so hookrig's entries and hooks there are named too.
            let claude: Vec<Installed> = [InstallLevel::User, InstallLevel::Project]
                .into_iter()
                .flat_map(|level| self::installed(env, &crate::claude::INSTALL, level, &on_path))
                .collect();
            let claude_sources: Vec<PathBuf> = loaded
                .iter()
                .flat_map(|config| &config.hooks)
                .filter(|h| h.dialect() == Dialect::Claude)
                .map(|h| h.spec.source.path.clone())
                .collect();
            warnings.extend(crate::cursor::third_party_twice(
                &installed,
                &claude,
                &claude_sources,
            ));
        }
        hosts.push(HostCheck {
            host: host.dialect,
            title: host.title.to_owned(),
            found,
            installed,
            hooks,
            warnings,
        });
    }
    Doctor {
        cwd: env.cwd.clone(),
        hosts,
    }
}

/// The state of each file of `host` at `level`.
fn installed(
    env: &Environment,
    host: &HostInstall,
    level: InstallLevel,
    on_path: &dyn Fn(&str) -> Option<PathBuf>,
) -> Vec<Installed> {
    (host.targets)(env, level, &project_dir(env))
        .into_iter()
        .filter_map(|target| match target.kind {
            Kind::Json(hooks) if hooks.role == super::Role::Entries => Some((target.path, hooks)),
            Kind::Json(_) | Kind::Toml(_) => None,
        })
        .map(|(path, hooks)| {
            let state = match std::fs::read_to_string(&path) {
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => InstallState::Missing,
                Err(err) => InstallState::Unreadable {
                    reason: err.to_string(),
                },
                Ok(text) => match hooks_json::hookrig_handlers(&text, hooks) {
                    None => InstallState::Unreadable {
                        reason: "the file does not parse".to_owned(),
                    },
                    Some(handlers) => match handlers.first() {
                        None => InstallState::NotInstalled,
                        Some(handler) => entry_state(handler, on_path),
                    },
                },
            };
            Installed {
                level,
                file: path,
                state,
            }
        })
        .collect()
}

/// hookrig's entry, and whether the program it names is still there.
fn entry_state(handler: &Value, on_path: &dyn Fn(&str) -> Option<PathBuf>) -> InstallState {
    if let Some(url) = handler.get("url").and_then(Value::as_str) {
        return InstallState::Installed {
            entry: url.to_owned(),
            program_exists: true,
        };
    }
    let command = handler
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let program = first_word(command);
    let program_exists = if program.contains('/') {
        Path::new(&program).is_file()
    } else {
        on_path(&program).is_some()
    };
    InstallState::Installed {
        entry: command.to_owned(),
        program_exists,
    }
}

/// The first word of a command line, its single or double quotes taken off.
fn first_word(line: &str) -> String {
    let line = line.trim_start();
    match line.chars().next() {
        Some(quote @ ('\'' | '"')) => line[1..].split(quote).next().unwrap_or("").to_owned(),
        _ => line.split_whitespace().next().unwrap_or("").to_owned(),
    }
}

/// The hooks of `host`'s dialect in `config`, and the warnings of `host`'s files.
fn checks(
    env: &Environment,
    host: &HostInstall,
    config: &crate::LoadedConfig,
) -> (Vec<HookCheck>, Vec<String>) {
    (
        config
            .hooks
            .iter()
            .filter(|h| h.dialect() == host.dialect)
            .map(|h| HookCheck {
                name: h.spec.name.clone(),
                source: h.spec.source.path.clone(),
                level: match h.spec.source.level {
                    Level::Global => "global",
                    Level::Project => "project",
                }
                .to_owned(),
                command: match &h.command {
                    CommandDef::Shell { line, .. } => line.clone(),
                    CommandDef::Exec { argv } => argv.join(" "),
                    CommandDef::Http { url, .. } => url.clone(),
                },
                untrusted: h.spec.untrusted.clone(),
                enabled: h.spec.enabled,
            })
            .collect(),
        config
            .warnings
            .iter()
            .filter(|d| (host.owns)(env, &d.path))
            .map(hookrig_core::Diagnostic::render_with_severity)
            .collect(),
    )
}

/// Once hookrig is the host's hook (at any level), the host still runs the hooks of
/// every other file it reads itself (the other level's file, Claude Code's
/// `settings.local.json` and managed settings...), and hookrig, which reads them too,
/// runs them again: one warning per such file, with the command that moves them when
/// install edits that file.
fn run_twice(
    host: &HostInstall,
    installed: &[Installed],
    moved_only: &[PathBuf],
    hooks: &[HookCheck],
) -> Vec<String> {
    if !installed
        .iter()
        .any(|i| matches!(i.state, InstallState::Installed { .. }))
    {
        return Vec::new();
    }
    let mut files: Vec<&Path> = Vec::new();
    for hook in hooks {
        let sidecar = hook
            .source
            .file_name()
            .is_some_and(|n| n.to_string_lossy().contains(".hookrig."));
        if !sidecar && !files.contains(&hook.source.as_path()) {
            files.push(&hook.source);
        }
    }
    files
        .into_iter()
        .map(|file| {
            let level = installed
                .iter()
                .find(|i| i.file == file)
                .map(|i| i.level)
                .or_else(|| moved_only.iter().any(|m| m == file).then_some(InstallLevel::Project));
            let hint = match level {
                Some(level) => format!(
                    "`hookrig install {}{}` moves them, so that they run once, through hookrig",
                    host.dialect,
                    match level {
                        InstallLevel::User => "",
                        InstallLevel::Project => " --project",
                    }
                ),
                None => "move them into a file only hookrig reads (such as hookrig's own hooks.toml), so that they run once".to_owned(),
            };
            format!(
                "{}: {} runs these hooks itself, and hookrig runs them too; {hint}",
                file.display(),
                host.title
            )
        })
        .collect()
}
