//! Where configuration and state live: home, XDG directories, the working directory.

use std::path::{Path, PathBuf};

/// The directories config discovery depends on. Built from the process environment by
/// the CLI, or by hand in tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// `$HOME`.
    pub home: PathBuf,
    /// `$XDG_CONFIG_HOME`, default `~/.config`.
    pub config_home: PathBuf,
    /// `$XDG_STATE_HOME`, default `~/.local/state`.
    pub state_home: PathBuf,
    /// The directory the event happened in: where the project walk starts.
    pub cwd: PathBuf,
}

impl Environment {
    /// Reads `HOME` and the XDG variables. Relative XDG values are ignored, as the XDG
    /// base directory spec requires.
    pub fn from_process(cwd: PathBuf) -> Result<Self, crate::ConfigError> {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .ok_or(crate::ConfigError::NoHome)?;
        let xdg = |var: &str, default: &[&str]| {
            std::env::var_os(var)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .unwrap_or_else(|| default.iter().fold(home.clone(), |p, part| p.join(part)))
        };
        Ok(Self {
            config_home: xdg("XDG_CONFIG_HOME", &[".config"]),
            state_home: xdg("XDG_STATE_HOME", &[".local", "state"]),
            home,
            cwd,
        })
    }

    /// The global native config file.
    pub fn global_native(&self) -> PathBuf {
        self.config_home.join("hookrig").join("hooks.toml")
    }
}

/// The project a working directory belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The project root: the directory holding `.git`, or where project config was found.
    pub root: PathBuf,
    /// The native config file, when there is one.
    pub native: Option<PathBuf>,
}

/// Walks up from `env.cwd` looking for `.hookrig/hooks.toml`.
///
/// The walk checks each directory, nearest first, and stops after checking the first
/// directory that holds `.git` (the repository root), before `$HOME` (whose files are the
/// user's, loaded as the global layer), and at `/`.
pub fn find_project(env: &Environment) -> Option<Project> {
    let mut found: Option<PathBuf> = None;
    for dir in env.cwd.ancestors() {
        if dir == env.home {
            break;
        }
        let candidate = dir.join(".hookrig").join("hooks.toml");
        if found.is_none() && candidate.is_file() {
            found = Some(candidate);
        }
        if dir.join(".git").exists() {
            return Some(Project {
                root: dir.to_owned(),
                native: found,
            });
        }
    }
    found.map(|native| Project {
        root: project_root_of(&native),
        native: Some(native),
    })
}

/// `<root>/.hookrig/hooks.toml` → `<root>`.
fn project_root_of(file: &Path) -> PathBuf {
    file.parent()
        .and_then(Path::parent)
        .map_or_else(PathBuf::new, Path::to_owned)
}
