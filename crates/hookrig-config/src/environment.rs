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
    /// Trust every project hook and file without the trust store: set in process only,
    /// by `hookrig trust` (which must see every project hook) and by a `hookrig test`
    /// sandbox. Never read from the environment: a repository can set variables for
    /// the host's hooks (Claude Code's project `env`, Gemini CLI's project `.env`), so a
    /// variable could switch trust off. A machine whose every checkout is trusted (a
    /// container, CI) says so in the user's own trust store:
    /// `hookrig trust --any-project`.
    pub trust_all: bool,
}

impl Environment {
    /// Reads `HOME` and the XDG variables. Relative XDG values are ignored, as the XDG
    /// base directory spec requires; a relative `HOME` is refused.
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
        // Every path below names the user's own files, which are trusted: a relative one
        // would name a file of whatever directory the event happened in (a repository
        // can set the host's variables), so it must be absolute.
        let home = absolute_var(var("HOME")).ok_or(crate::ConfigError::NoHome)?;
        let xdg = |name: &str, default: &[&str]| {
            absolute_var(var(name))
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
            trust_all: false,
        })
    }

    /// The global native config file.
    pub fn global_native(&self) -> PathBuf {
        self.config_home.join("hookrig").join("hooks.toml")
    }
}

/// The value of a variable that names a file or directory hookrig trusts as the user's
/// own (a home, a system settings file, the ledger), when it is an absolute path.
///
/// Empty and relative values count as unset. A relative one would be resolved against
/// the directory the event happened in, and a repository can set the host's variables
/// (Claude Code's project `env`, Gemini CLI's project `.env`): with `.x/managed.json`
/// it would have its own file read as the user's, trusted without `hookrig trust`.
pub fn absolute_var(value: Option<std::ffi::OsString>) -> Option<PathBuf> {
    value.map(PathBuf::from).filter(|path| path.is_absolute())
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
    if crate::consulted::looks_like_dir(&absolute)
        && let Some(real) = crate::consulted::canonical(&absolute)
    {
        return real;
    }
    if let (Some(parent), Some(Component::Normal(name))) =
        (absolute.parent(), absolute.components().next_back())
        && crate::consulted::looks_like_dir(parent)
        && let Some(real) = crate::consulted::canonical(parent)
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

#[cfg(test)]
mod from_vars_tests {
    use super::*;

    fn from(vars: &[(&str, &str)]) -> Result<Environment, crate::ConfigError> {
        Environment::from_vars(PathBuf::from("/w"), |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, value)| value.into())
        })
    }

    #[test]
    fn relative_user_directories_are_not_read_from_the_working_directory() {
        // guards: a repository can set the host's variables; a relative home or XDG
        // directory would make files of the project the user's own
        assert!(matches!(
            from(&[("HOME", ".")]),
            Err(crate::ConfigError::NoHome)
        ));
        assert!(matches!(from(&[]), Err(crate::ConfigError::NoHome)));
        let env = from(&[
            ("HOME", "/h"),
            ("XDG_CONFIG_HOME", "conf"),
            ("XDG_STATE_HOME", "./state"),
            ("X_CODE_HOME", ".x-code"),
        ])
        .expect("env");
        assert_eq!(env.config_home, Path::new("/h/.config"));
        assert_eq!(env.state_home, Path::new("/h/.local/state"));
        assert_eq!(env.xcode_home, Path::new("/h/.x-code"));
    }

    #[test]
    fn no_variable_trusts_every_project() {
        // guards: HOOKRIG_TRUST_ALL, once read, could be set by a repository
        let env = from(&[("HOME", "/h"), ("HOOKRIG_TRUST_ALL", "1")]).expect("env");
        assert!(!env.trust_all);
    }

    #[test]
    fn absolute_var_keeps_absolute_paths_only() {
        assert_eq!(
            absolute_var(Some("/a/b".into())),
            Some(PathBuf::from("/a/b"))
        );
        assert_eq!(absolute_var(Some("a/b".into())), None);
        assert_eq!(absolute_var(Some("".into())), None);
        assert_eq!(absolute_var(None), None);
    }
}
