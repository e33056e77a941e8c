//! The task's git worktree: `.hookrig/worktrees/<task>` on branch `task/<task>`, the
//! files provisioned into it, and its removal.

use std::ffi::OsStr;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use hookrig_config::{ProvisionFile, ProvisionMode, Sourced};
use hookrig_exec::{Capture, Command, EnvPolicy, Program, Stderr, Termination};

use crate::errors::AgentError;

/// The most of git's output that is kept: far more than any listing of worktrees.
const GIT_OUTPUT_CAP: usize = 16 << 20;

/// Runs `git ARGS` in `dir` and returns its stdout, trimmed at the end.
pub(crate) fn git<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Result<String, AgentError> {
    let shown = || {
        args.iter()
            .map(|a| a.as_ref().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let failed = |message: String| AgentError::Git {
        args: shown(),
        dir: dir.to_owned(),
        message,
    };
    let command = Command {
        program: Program::Exec {
            program: "git".into(),
            args: args.iter().map(|a| a.as_ref().to_owned()).collect(),
        },
        cwd: dir.to_owned(),
        // A worktree command run from inside a hook must not act on the hook's repo: the
        // environment is hookrig's without GIT_DIR and GIT_WORK_TREE.
        env: EnvPolicy::Only {
            keep: std::env::vars_os()
                .filter_map(|(name, _)| name.into_string().ok())
                .filter(|name| name != "GIT_DIR" && name != "GIT_WORK_TREE")
                .collect(),
            set: Vec::new(),
        },
    };
    // No time limit, as for a git run by hand: a worktree of a large repository takes
    // as long as its checkout does.
    let output = command.capture_blocking(Capture {
        stdin: Vec::new(),
        stdout_cap: GIT_OUTPUT_CAP,
        stderr: Stderr::Capture(GIT_OUTPUT_CAP),
        timeout: None,
        kill_grace: std::time::Duration::ZERO,
    });
    match output.termination {
        Termination::Exited(0) => Ok(String::from_utf8_lossy(&output.stdout)
            .trim_end()
            .to_owned()),
        Termination::SpawnFailed(error) => Err(failed(error.to_string())),
        _ => Err(failed(
            String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        )),
    }
}

/// The repository root of `dir` (`git rev-parse --show-toplevel`).
pub(crate) fn repo_root(dir: &Path) -> Result<PathBuf, AgentError> {
    git(dir, &["rev-parse", "--show-toplevel"]).map(PathBuf::from)
}

/// A task name becomes a directory and a branch name: keep it to characters that are
/// safe in both.
pub(crate) fn check_task_name(task: &str) -> Result<(), AgentError> {
    let ok = !task.is_empty()
        && !task.starts_with('.')
        // git refuses ref names ending in `.lock`, in any case.
        && !task.to_ascii_lowercase().ends_with(".lock")
        && !task.contains("..")
        && task
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(AgentError::BadTaskName(task.to_owned()))
    }
}

/// Where the worktree of `task` goes.
pub(crate) fn worktree_path(repo: &Path, task: &str) -> PathBuf {
    repo.join(".hookrig").join("worktrees").join(task)
}

/// Where the provider's output of `task` is logged.
pub(crate) fn log_path(repo: &Path, task: &str) -> PathBuf {
    repo.join(".hookrig")
        .join("worktrees")
        .join(format!("{task}.log"))
}

/// The branch of `task`.
pub(crate) fn branch(task: &str) -> String {
    format!("task/{task}")
}

/// What preparing the task's worktree did: created it, or reused the one there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prepared {
    /// A new worktree.
    Created {
        /// Whether the branch was new too.
        branch_created: bool,
    },
    /// The existing worktree, clean (or dirty, with `--resume`).
    Reused,
}

/// Creates the worktree of `task`, or reuses it when git knows it and it is clean
/// (ignoring `provisioned` files, which are untracked by design). A dirty worktree is
/// reused only with `resume`: it holds the interrupted agent's work.
pub(crate) fn prepare(
    repo: &Path,
    task: &str,
    provisioned: &[String],
    resume: bool,
) -> Result<Prepared, AgentError> {
    let path = worktree_path(repo, task);
    exclude_worktrees(repo)?;
    if path.symlink_metadata().is_ok() {
        check_existing(
            repo,
            path,
            provisioned,
            resume,
            "commit them, spawn with --resume to continue in it, or `hookrig agent clean TASK --force`",
        )?;
        return Ok(Prepared::Reused);
    }
    let branch = branch(task);
    let exists = git(
        repo,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("refs/heads/{branch}"),
        ],
    )
    .is_ok();
    let path_text = path.to_string_lossy().into_owned();
    if exists {
        git(
            repo,
            &["worktree", "add", path_text.as_str(), branch.as_str()],
        )?;
    } else {
        git(
            repo,
            &["worktree", "add", "-b", branch.as_str(), path_text.as_str()],
        )?;
    }
    Ok(Prepared::Created {
        branch_created: !exists,
    })
}

/// Checks what is at a task's worktree `path` before it is reused or removed: it must be
/// a worktree of `repo`, and hold no changes but the `provisioned` files unless
/// `changes_allowed`; `hint` says what to do about changes. Returns `path`.
fn check_existing(
    repo: &Path,
    path: PathBuf,
    provisioned: &[String],
    changes_allowed: bool,
    hint: &'static str,
) -> Result<PathBuf, AgentError> {
    if !is_worktree(repo, &path)? {
        return Err(AgentError::NotAWorktree {
            path,
            repo: repo.to_owned(),
        });
    }
    let dirty = changes(&path, provisioned)?;
    if !dirty.is_empty() && !changes_allowed {
        return Err(AgentError::Dirty {
            path,
            files: dirty,
            hint,
        });
    }
    Ok(path)
}

/// Adds `.hookrig/worktrees/` to the repository's `info/exclude`, once: the worktrees
/// and logs live inside the main working tree and must not show up as untracked files.
fn exclude_worktrees(repo: &Path) -> Result<(), AgentError> {
    const LINE: &str = "/.hookrig/worktrees/";
    let common = git(repo, &["rev-parse", "--git-common-dir"])?;
    let exclude = repo.join(common).join("info").join("exclude");
    let text = match std::fs::read_to_string(&exclude) {
        Ok(text) => text,
        Err(err) if err.kind() == ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(AgentError::Io {
                what: "cannot read",
                path: exclude,
                source,
            });
        }
    };
    if text.lines().any(|l| l.trim() == LINE) {
        return Ok(());
    }
    let mut text = text;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(LINE);
    text.push('\n');
    let io = |source| AgentError::Io {
        what: "cannot write",
        path: exclude.clone(),
        source,
    };
    if let Some(parent) = exclude.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    std::fs::write(&exclude, text).map_err(io)
}

/// Whether git lists `path` among the worktrees of `repo`.
pub(crate) fn is_worktree(repo: &Path, path: &Path) -> Result<bool, AgentError> {
    let list = git(repo, &["worktree", "list", "--porcelain"])?;
    let wanted = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    Ok(list
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .any(|p| {
            let p = Path::new(p);
            p.canonicalize().unwrap_or_else(|_| p.to_owned()) == wanted
        }))
}

/// The uncommitted changes of the worktree at `path` (`git status --porcelain` paths),
/// leaving out the `provisioned` files.
pub(crate) fn changes(path: &Path, provisioned: &[String]) -> Result<Vec<String>, AgentError> {
    let status = git(path, &["status", "--porcelain", "--untracked-files=all"])?;
    Ok(status
        .lines()
        .filter_map(|l| l.get(3..))
        .filter(|file| !provisioned.iter().any(|p| normal(p) == *file))
        .map(str::to_owned)
        .collect())
}

/// A relative path as git prints it: `./a//b` is `a/b`.
fn normal(path: &str) -> String {
    Path::new(path)
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// A provisioned file that was not there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Missing {
    /// The file that was looked for.
    pub(crate) from: PathBuf,
    /// The config file of the entry.
    pub(crate) source: PathBuf,
    /// Its line.
    pub(crate) line: usize,
}

/// Where each `[worktree.provision] files` entry comes from: its real path, or (`Err`)
/// the path that is not there.
pub(crate) type Sources = Vec<Result<PathBuf, PathBuf>>;

/// Checks every `[worktree.provision] files` entry before anything is created: a `to`
/// that leaves the worktree, or a `from` whose real path (every symlink followed) is
/// outside the repository, is refused. Returns each entry's source for [`provision`].
pub(crate) fn check_provision(
    repo: &Path,
    files: &[Sourced<ProvisionFile>],
) -> Result<Sources, AgentError> {
    let repo_root = repo.canonicalize().unwrap_or_else(|_| repo.to_owned());
    let mut sources = Vec::with_capacity(files.len());
    for file in files {
        if !stays_inside(&file.value.to) {
            return Err(AgentError::ProvisionEscapes {
                to: file.value.to.clone(),
                source_file: file.source.display().to_string(),
                line: file.line,
            });
        }
        // A committed symlink (`from = "key"` with `key -> ~/.ssh/id_rsa`, or a
        // symlinked directory on the way) must not carry a file from outside the
        // repository into the worktree: resolve it and link or copy the real file.
        // A `from` written as absolute or with `..` names a place outside on purpose;
        // the config layer drops such entries from project files until they are
        // trusted, so only the user's own choices reach this point.
        let from = repo.join(&file.value.from);
        let explicit = Path::new(&file.value.from).components().any(|c| {
            matches!(
                c,
                Component::RootDir | Component::Prefix(_) | Component::ParentDir
            )
        });
        match from.canonicalize() {
            Ok(real) if explicit || real.starts_with(&repo_root) => sources.push(Ok(real)),
            Ok(real) => {
                return Err(AgentError::ProvisionOutsideRepo {
                    from: file.value.from.clone(),
                    real,
                    repo: repo_root,
                    source_file: file.source.display().to_string(),
                    line: file.line,
                });
            }
            // Not there, or a symlink to nothing: nothing to carry, only a warning.
            Err(_) => sources.push(Err(from)),
        }
    }
    Ok(sources)
}

/// Links or copies every `[worktree.provision] files` entry into `worktree`, from the
/// `sources` [`check_provision`] resolved; a missing `from` is returned, for a warning,
/// and skipped.
pub(crate) fn provision(
    worktree: &Path,
    files: &[Sourced<ProvisionFile>],
    sources: Sources,
) -> Result<Vec<Missing>, AgentError> {
    let root = worktree
        .canonicalize()
        .unwrap_or_else(|_| worktree.to_owned());
    let mut missing = Vec::new();
    for (file, source) in files.iter().zip(sources) {
        let from = match source {
            Ok(real) => real,
            Err(from) => {
                missing.push(Missing {
                    from,
                    source: file.source.clone(),
                    line: file.line,
                });
                continue;
            }
        };
        let to = worktree.join(&file.value.to);
        let failed = |source| AgentError::Provision {
            from: from.clone(),
            to: to.clone(),
            source,
        };
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(failed)?;
            // A directory of the worktree may be a symlink pointing elsewhere: check
            // where the parent really is, not only how the path reads.
            let real = parent.canonicalize().map_err(failed)?;
            if !real.starts_with(&root) {
                return Err(AgentError::ProvisionEscapes {
                    to: file.value.to.clone(),
                    source_file: file.source.display().to_string(),
                    line: file.line,
                });
            }
        }
        match to.symlink_metadata() {
            Ok(meta) if meta.is_dir() => {
                return Err(failed(std::io::Error::new(
                    ErrorKind::IsADirectory,
                    "the destination is a directory",
                )));
            }
            Ok(_) => std::fs::remove_file(&to).map_err(failed)?,
            Err(_) => {}
        }
        match file.value.mode {
            ProvisionMode::Symlink => std::os::unix::fs::symlink(&from, &to).map_err(failed)?,
            ProvisionMode::Copy => {
                std::fs::copy(&from, &to).map_err(failed)?;
            }
        }
    }
    Ok(missing)
}

/// Whether the relative path `to` stays inside the directory it is joined to.
fn stays_inside(to: &str) -> bool {
    let mut depth = 0_usize;
    for component in Path::new(to).components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    depth > 0
}

/// What [`remove`] did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Removed {
    /// The branch was deleted (merged), or why it was kept.
    pub(crate) branch: Result<(), String>,
}

/// Removes the worktree of `task` (refusing uncommitted changes unless `force`), then
/// deletes its branch when it is merged into the current branch (`git branch -d`).
pub(crate) fn remove(
    repo: &Path,
    task: &str,
    provisioned: &[String],
    force: bool,
) -> Result<Removed, AgentError> {
    let path = worktree_path(repo, task);
    if path.symlink_metadata().is_ok() {
        let path = check_existing(
            repo,
            path,
            provisioned,
            force,
            "commit them, or clean with --force to discard them",
        )?;
        // The provisioned files are ours, untracked by design; git would refuse to
        // remove a worktree that holds them.
        for file in provisioned {
            let target = path.join(file);
            if target.symlink_metadata().is_ok_and(|m| !m.is_dir()) {
                let _ = std::fs::remove_file(&target);
            }
        }
        let path_text = path.to_string_lossy().into_owned();
        if force {
            git(repo, &["worktree", "remove", "--force", path_text.as_str()])?;
        } else {
            git(repo, &["worktree", "remove", path_text.as_str()])?;
        }
    } else {
        // The directory is gone already: let git forget it.
        git(repo, &["worktree", "prune"])?;
    }
    let branch = branch(task);
    let result = match git(repo, &["branch", "-d", branch.as_str()]) {
        Ok(_) => Ok(()),
        Err(AgentError::Git { message, .. }) => Err(message),
        Err(other) => Err(other.to_string()),
    };
    Ok(Removed { branch: result })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_inside_stay_inside() {
        for ok in ["a", ".env", "config/x.toml", "a/../b", "./a"] {
            assert!(stays_inside(ok), "{ok}");
        }
        for bad in ["../a", "/etc/passwd", "a/../../b", ".", "", "a/.."] {
            assert!(!stays_inside(bad), "{bad}");
        }
    }

    #[test]
    fn task_names_must_be_safe_for_directories_and_branches() {
        for ok in ["api", "task-1", "a.b_c"] {
            assert!(check_task_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "../x", "a/b", ".hidden", "x.lock", "a b", "a..b"] {
            assert!(check_task_name(bad).is_err(), "{bad}");
        }
    }
}
