//! Where configuration and state live: home, XDG directories, the working directory.

use std::path::{Component, Path, PathBuf};

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
    /// `$XDG_DATA_HOME`, default `~/.local/share` (hookrig's own x-code plugins and their
    /// data).
    pub data_home: PathBuf,
    /// `$X_CODE_HOME`, default `~/.x-code`: x-code's own plugins.
    pub xcode_home: PathBuf,
    /// The directory the event happened in: where the project walk starts.
    pub cwd: PathBuf,
    /// `HOOKRIG_TRUST_ALL=1`: run project hooks without asking (containers, CI).
    pub trust_all: bool,
}

impl Environment {
    /// Reads `HOME` and the XDG variables. Relative XDG values are ignored, as the XDG
    /// base directory spec requires.
    pub fn from_process(cwd: PathBuf) -> Result<Self, crate::ConfigError> {
        Self::from_vars(cwd, |name| std::env::var_os(name))
    }

    /// [`Environment::from_process`] reading the variables `var` returns: a resident
    /// engine reads those of the `hookrig emit` it answers for.
    #[expect(
        clippy::needless_pass_by_value,
        reason = "callers hand over the directory they resolved; it is stored normalised"
    )]
    pub fn from_vars(
        cwd: PathBuf,
        var: impl Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Result<Self, crate::ConfigError> {
        let home = var("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .ok_or(crate::ConfigError::NoHome)?;
        let xdg = |name: &str, default: &[&str]| {
            var(name)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .unwrap_or_else(|| default.iter().fold(home.clone(), |p, part| p.join(part)))
        };
        Ok(Self {
            config_home: xdg("XDG_CONFIG_HOME", &[".config"]),
            state_home: xdg("XDG_STATE_HOME", &[".local", "state"]),
            data_home: xdg("XDG_DATA_HOME", &[".local", "share"]),
            // Relative values are ignored like the XDG ones: they would name a different
            // directory for every working directory.
            xcode_home: xdg("X_CODE_HOME", &[".x-code"]),
            home,
            cwd: normal_path(&cwd),
            trust_all: var("HOOKRIG_TRUST_ALL").is_some_and(|v| v == "1"),
        })
    }

    /// The global native config file.
    pub fn global_native(&self) -> PathBuf {
        self.config_home.join("hookrig").join("hooks.toml")
    }
}

/// The project a working directory belongs to, as the walk up from it found it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Project {
    /// The repository root: the nearest directory holding `.git`, if any.
    pub root: Option<PathBuf>,
    /// The directories a project-level config file may sit in, nearest first: from the
    /// working directory up to `root` (inclusive), or up to but not including `$HOME`,
    /// or up to `/`.
    pub walk: Vec<PathBuf>,
}

impl Project {
    /// The nearest `dir/relative` along the walk that is a file.
    pub fn nearest_file(&self, relative: &str) -> Option<PathBuf> {
        self.walk
            .iter()
            .map(|dir| dir.join(relative))
            .find(|candidate| crate::consulted::is_file(candidate))
    }

    /// The nearest `dir/relative` along the walk that is a directory.
    pub fn nearest_dir(&self, relative: &str) -> Option<PathBuf> {
        self.walk
            .iter()
            .map(|dir| dir.join(relative))
            .find(|candidate| crate::consulted::is_dir(candidate))
    }
}

/// Walks up from `env.cwd`.
///
/// The walk checks each directory, nearest first, and stops after the first directory
/// that holds `.git` (the repository root), before `$HOME` (whose files are the user's,
/// loaded as the global layer), and at `/`.
pub fn find_project(env: &Environment) -> Project {
    let mut project = Project::default();
    // `sub/..` must find the project `.` finds, under the same paths, or its trusted
    // hooks would look untrusted (and a trust from there would be a second entry).
    let cwd = normal_path(&env.cwd);
    for dir in cwd.ancestors() {
        if dir == env.home {
            break;
        }
        project.walk.push(dir.to_owned());
        if crate::consulted::exists(&dir.join(".git")) {
            project.root = Some(dir.to_owned());
            break;
        }
    }
    project
}

/// The project id of `dir`: the name of the repository root above it (the nearest
/// directory holding `.git`), else of `dir` itself, else `default` (for `/`).
///
/// One rule for every id of a project: an automation loaded from a project's files
/// gets it, and so do the events of a plan in that project, so that the orchestrator's
/// project scoping lets an automation see its own project's task events and no other's.
pub fn project_id(dir: &Path) -> String {
    let root = dir
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(dir);
    root.file_name().map_or_else(
        || "default".to_owned(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// `path` made absolute without `.` or `..` components, the way the trust store keys and
/// project walks need it: the same file always gets the same path.
///
/// A directory is resolved like the working directory the system reports (symbolic links
/// followed); for a file only its directory is, so that a plan file that is a link stays
/// where it was named. A path that does not exist is cleaned lexically.
pub fn normal_path(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    if absolute.is_dir()
        && let Ok(real) = absolute.canonicalize()
    {
        return real;
    }
    if let (Some(parent), Some(Component::Normal(name))) =
        (absolute.parent(), absolute.components().next_back())
        && parent.is_dir()
        && let Ok(real) = parent.canonicalize()
    {
        return real.join(name);
    }
    let mut clean = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::ParentDir => {
                clean.pop();
            }
            Component::CurDir => {}
            other => clean.push(other),
        }
    }
    clean
}

/// `path` without `.` components and with each `..` taking away the component before
/// it (a leading `..` stays), without touching the file system: where a relative path
/// written in a config file leads.
pub fn lexical_path(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod normal_path_tests {
    use super::*;

    #[test]
    fn dot_dot_and_dot_are_resolved() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(root.join("sub")).expect("mkdir");
        std::fs::write(root.join("plan.spl"), "").expect("write");
        assert_eq!(normal_path(&root.join("sub/..")), root);
        assert_eq!(
            normal_path(&root.join("sub/../plan.spl")),
            root.join("plan.spl")
        );
        assert_eq!(normal_path(&root.join("./sub/.")), root.join("sub"));
        assert_eq!(
            normal_path(&root.join("sub/../missing/../x")),
            root.join("x"),
            "missing paths are cleaned lexically"
        );
    }

    #[test]
    fn a_linked_file_keeps_its_own_directory() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(root.join("a")).expect("mkdir");
        std::fs::write(root.join("a/plan.spl"), "").expect("write");
        std::os::unix::fs::symlink(root.join("a/plan.spl"), root.join("link.spl")).expect("ln");
        assert_eq!(
            normal_path(&root.join("a/../link.spl")),
            root.join("link.spl")
        );
    }
}
