//! Which provider runs a task: the built-in definitions of the CLIs hookrig knows, the
//! providers of config.toml, and the selection order.
//!
//! Selection, first match wins: `--provider`, the task's `(provider "ID")` meta, the
//! agent's `[[agents]] provider`, then the first of [`AUTO_DETECT`] whose CLI is on
//! `PATH`. An id is looked up in config.toml first, so a configured provider with a
//! built-in id replaces the built-in whole.

use std::path::{Path, PathBuf};

use hookrig_config::{ConfigToml, Provider};
use hookrig_exec::{Probe, probe};

use crate::errors::AgentError;

/// The order in which auto-detection tries the built-in providers.
pub(crate) const AUTO_DETECT: [&str; 4] = ["claude", "codex", "gemini", "aider"];

/// The built-in providers. Each runs its CLI's headless mode, because an agent spawned
/// by hookrig is detached: nobody sits at a terminal to answer it, and its output goes
/// to a log. The flags are the CLIs' documented ones (docs/agents.md has the sources).
pub(crate) fn built_ins() -> Vec<Provider> {
    let provider = |id: &str, name: &str| Provider {
        id: id.to_owned(),
        name: name.to_owned(),
        cli: id.to_owned(),
        version_args: vec!["--version".to_owned()],
        auto_approve_flag: None,
        initial_prompt_flag: None,
        use_keystroke_injection: false,
        keystroke_delay_ms: 100,
        resume_flag: None,
        default_args: Vec::new(),
    };
    vec![
        Provider {
            // `claude -p PROMPT` answers and exits; `--continue` resumes the latest
            // conversation of the directory.
            auto_approve_flag: Some("--dangerously-skip-permissions".to_owned()),
            initial_prompt_flag: Some("-p".to_owned()),
            resume_flag: Some("--continue".to_owned()),
            ..provider("claude", "Claude Code")
        },
        Provider {
            // `codex exec PROMPT` is the non-interactive mode; its prompt is positional.
            // Resuming is a subcommand (`codex exec resume --last`), not a flag, so
            // there is no resume_flag.
            default_args: vec!["exec".to_owned()],
            auto_approve_flag: Some("--full-auto".to_owned()),
            ..provider("codex", "Codex CLI")
        },
        Provider {
            auto_approve_flag: Some("--yolo".to_owned()),
            initial_prompt_flag: Some("--prompt".to_owned()),
            resume_flag: Some("--resume=latest".to_owned()),
            ..provider("gemini", "Gemini CLI")
        },
        Provider {
            auto_approve_flag: Some("--yes-always".to_owned()),
            initial_prompt_flag: Some("--message".to_owned()),
            resume_flag: Some("--restore-chat-history".to_owned()),
            ..provider("aider", "Aider")
        },
    ]
}

/// Where a provider definition comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A config.toml file and line.
    Config {
        /// The file.
        source: PathBuf,
        /// The line of its `[[providers]]` entry.
        line: usize,
    },
    /// hookrig's built-in definition.
    BuiltIn,
}

/// Every provider: the configured ones in merge order, then the built-ins that no
/// configured provider replaces.
pub(crate) fn all(config: &ConfigToml) -> Vec<(Provider, Origin)> {
    let mut all: Vec<(Provider, Origin)> = config
        .providers
        .iter()
        .map(|p| {
            (
                p.value.clone(),
                Origin::Config {
                    source: p.source.clone(),
                    line: p.line,
                },
            )
        })
        .collect();
    for built_in in built_ins() {
        if !all.iter().any(|(p, _)| p.id == built_in.id) {
            all.push((built_in, Origin::BuiltIn));
        }
    }
    all
}

/// Why a provider was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// `--provider`.
    Flag,
    /// The task's meta.
    TaskMeta,
    /// `[[agents]]` of config.toml.
    AgentConfig,
    /// The first known CLI found on `PATH`.
    AutoDetected,
}

impl Reason {
    /// How `agent spawn` names the reason.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Flag => "--provider",
            Reason::TaskMeta => "task meta",
            Reason::AgentConfig => "[[agents]] in config.toml",
            Reason::AutoDetected => "auto-detected on PATH",
        }
    }
}

/// The provider picked for a task, with its CLI found.
#[derive(Debug, Clone)]
pub(crate) struct Selected {
    pub(crate) provider: Provider,
    pub(crate) program: PathBuf,
    pub(crate) reason: Reason,
}

/// Where a provider's CLI is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// An executable file.
    At(PathBuf),
    /// A file that is not executable.
    NotExecutable(PathBuf),
    /// Nothing.
    Missing,
}

/// Finds the CLI `cli`: a name with a `/` is a path (relative to `dir`); any other name
/// is searched in `PATH`, as `execvp` would, skipping empty entries (hookrig does not run
/// programs from wherever it happens to be started).
pub(crate) fn find(cli: &str, dir: &Path) -> Found {
    if cli.contains('/') {
        let path = dir.join(cli);
        return match probe(&path) {
            Probe::Executable => Found::At(path),
            Probe::NotExecutable => Found::NotExecutable(path),
            Probe::Missing => Found::Missing,
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut not_executable = None;
    for entry in std::env::split_paths(&path).filter(|d| !d.as_os_str().is_empty()) {
        let candidate = entry.join(cli);
        match probe(&candidate) {
            Probe::Executable => return Found::At(candidate),
            Probe::NotExecutable => {
                not_executable.get_or_insert(candidate);
            }
            Probe::Missing => {}
        }
    }
    not_executable.map_or(Found::Missing, Found::NotExecutable)
}

/// Picks the provider of `task` for `agent`; `dir` resolves a relative `cli`.
pub(crate) fn select(
    config: &ConfigToml,
    flag: Option<&str>,
    task_meta: Option<&str>,
    task: &str,
    agent: &str,
    dir: &Path,
) -> Result<Selected, AgentError> {
    let providers = all(config);
    let configured = config
        .agents
        .iter()
        .find(|a| a.value.name == agent)
        .map(|a| (a.value.provider.as_str(), a));
    let wanted = match (flag, task_meta, configured) {
        (Some(id), _, _) => Some((id, Reason::Flag, "--provider".to_owned())),
        (None, Some(id), _) => Some((id, Reason::TaskMeta, format!("the meta of task-{task}"))),
        (None, None, Some((id, a))) => Some((
            id,
            Reason::AgentConfig,
            format!("{}:{}", a.source.display(), a.line),
        )),
        (None, None, None) => None,
    };
    if let Some((id, reason, origin)) = wanted {
        let Some((provider, _)) = providers.iter().find(|(p, _)| p.id == id) else {
            return Err(AgentError::UnknownProvider {
                id: id.to_owned(),
                origin,
                known: providers
                    .iter()
                    .map(|(p, _)| p.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        return match find(&provider.cli, dir) {
            Found::At(program) => Ok(Selected {
                provider: provider.clone(),
                program,
                reason,
            }),
            Found::NotExecutable(_) | Found::Missing => Err(AgentError::CliNotFound {
                id: provider.id.clone(),
                cli: provider.cli.clone(),
            }),
        };
    }
    for id in AUTO_DETECT {
        let Some((provider, _)) = providers.iter().find(|(p, _)| p.id == id) else {
            continue;
        };
        if let Found::At(program) = find(&provider.cli, dir) {
            return Ok(Selected {
                provider: provider.clone(),
                program,
                reason: Reason::AutoDetected,
            });
        }
    }
    Err(AgentError::NoProvider {
        task: task.to_owned(),
        agent: agent.to_owned(),
    })
}

/// The provider's arguments, in this order: `default_args`, `auto_approve_flag`,
/// `resume_flag` (with `--resume`), then the prompt: after `initial_prompt_flag`, or as
/// the last positional argument without one. With keystroke injection the prompt is
/// typed instead, so it is not an argument.
pub(crate) fn arguments(provider: &Provider, resume: bool, prompt: &str) -> Vec<String> {
    let mut args = provider.default_args.clone();
    args.extend(provider.auto_approve_flag.clone());
    if resume {
        args.extend(provider.resume_flag.clone());
    }
    if !provider.use_keystroke_injection {
        args.extend(provider.initial_prompt_flag.clone());
        args.push(prompt.to_owned());
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_come_in_the_documented_order() {
        let claude = built_ins().remove(0);
        assert_eq!(
            arguments(&claude, true, "do it"),
            [
                "--dangerously-skip-permissions",
                "--continue",
                "-p",
                "do it"
            ]
        );
        let codex = built_ins().remove(1);
        assert_eq!(
            arguments(&codex, true, "do it"),
            ["exec", "--full-auto", "do it"]
        );
        let typed = Provider {
            use_keystroke_injection: true,
            ..claude
        };
        assert_eq!(
            arguments(&typed, false, "do it"),
            ["--dangerously-skip-permissions"]
        );
    }

    #[test]
    fn a_configured_provider_replaces_the_built_in_of_its_id() {
        let mut config = ConfigToml::default();
        config.providers.push(hookrig_config::Sourced {
            value: Provider {
                name: "My Claude".to_owned(),
                ..built_ins().remove(0)
            },
            source: PathBuf::from("/c.toml"),
            line: 3,
        });
        let all = all(&config);
        let ids: Vec<_> = all.iter().map(|(p, _)| p.id.as_str()).collect();
        assert_eq!(ids, ["claude", "codex", "gemini", "aider"]);
        assert_eq!(all[0].0.name, "My Claude");
        assert_eq!(all[1].1, Origin::BuiltIn);
    }
}
