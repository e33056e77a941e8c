//! Finding the programs hookrig runs by name, git-style: external commands
//! (`hookrig-NAME`), board formatters (`hookrig-board-NAME`), and the commands,
//! validators and formatters plugin packages ship.
//!
//! A program is searched in `PATH`, then in the `[settings] plugin_path` directories of
//! `config.toml`, then among the files of the plugin packages enabled for the scope's
//! agent; the first executable file wins. A file that cannot be run does not hide a
//! later one that can, as with `execvp`, but it is what a caller reports when none can.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use hookrig_config::Environment;
use hookrig_core::{Severity, error_chain};
use hookrig_dialects::PackageRef;
use hookrig_exec::{Probe, probe};

use crate::errors::RuntimeError;
use crate::scope::Scope;

/// Where a program was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A `PATH` directory.
    Path,
    /// A `plugin_path` directory of `config.toml`.
    PluginPath,
    /// The plugin package with this id.
    Package(String),
}

/// A program a plugin package ships under a name of its manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageProgram {
    /// The name in the manifest, typed as is (`hookrig NAME`, `--format NAME`).
    pub name: String,
    /// The file it runs.
    pub path: PathBuf,
    /// The package's id.
    pub package: String,
}

/// What a search for one name found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The first executable file of that name.
    Found(PathBuf),
    /// Only files that cannot be executed; the first of them.
    NotExecutable(PathBuf),
    /// Nothing.
    Missing,
}

/// Which files of the plugin packages a search takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackageFiles {
    /// Their `commands` (`hookrig NAME`).
    Commands,
    /// Their `validators` (`hookrig plan validate`).
    Validators,
    /// Their `formatters` (`hookrig plan board --format NAME`).
    Formatters,
}

impl PackageFiles {
    /// These files of `packages`, each with its package's id, and a warning for each
    /// package that does not load.
    pub fn of(
        self,
        env: &Environment,
        packages: &[PackageRef],
    ) -> (Vec<PackageProgram>, Vec<String>) {
        let mut files = Vec::new();
        let mut warnings = Vec::new();
        for package in packages {
            let check = hookrig_dialects::check_package(env, package);
            let Some(loaded) = check.package else {
                warnings.push(match self {
                    PackageFiles::Commands => format!(
                        "plugin package {} is not loaded, its commands are not available: {}",
                        package.id,
                        check
                            .diagnostics
                            .iter()
                            .filter(|d| d.severity == Severity::Error)
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                    PackageFiles::Validators => format!(
                        "plugin package {} is not loaded, its validators do not run",
                        package.id
                    ),
                    PackageFiles::Formatters => format!(
                        "plugin package {} is not loaded, its formatters are not available",
                        package.id
                    ),
                });
                continue;
            };
            let chosen = match self {
                PackageFiles::Commands => loaded.commands,
                PackageFiles::Validators => loaded.validators,
                PackageFiles::Formatters => loaded.formatters,
            };
            files.extend(chosen.into_iter().map(|file| PackageProgram {
                name: file.name,
                path: file.path,
                package: loaded.id.clone(),
            }));
        }
        (files, warnings)
    }
}

/// The places programs of one kind are searched, in order.
#[derive(Debug, Clone)]
pub struct Programs {
    /// The file name prefixes, in order (`hookrig-`, `hence-`, `hookrig-board-`...).
    prefixes: Vec<&'static str>,
    dirs: Vec<(PathBuf, Origin)>,
    packages: Vec<PackageProgram>,
    /// What was worth saying while the search was built (unknown keys of
    /// `config.toml`, packages that do not load), for the caller to report.
    pub warnings: Vec<String>,
}

impl Programs {
    /// A search for files named PREFIX + NAME, one prefix after the other, in no place
    /// yet.
    pub fn named(prefixes: &[&'static str]) -> Self {
        Self {
            prefixes: prefixes.to_vec(),
            dirs: Vec::new(),
            packages: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The same search, with one more warning.
    #[must_use]
    pub fn warned(mut self, warning: String) -> Self {
        self.warnings.push(warning);
        self
    }

    /// Adds the `PATH` directories.
    #[must_use]
    pub fn with_path(mut self) -> Self {
        self.dirs
            .extend(path_dirs().into_iter().map(|dir| (dir, Origin::Path)));
        self
    }

    /// Adds the `plugin_path` directories of the `config.toml` files seen from the
    /// scope's working directory. A broken `config.toml` is an error.
    pub fn with_plugin_path(mut self, scope: &Scope) -> Result<Self, RuntimeError> {
        let mut warnings = Vec::new();
        let config = hookrig_config::load_config_toml(&scope.env, &mut warnings)?;
        self.warnings
            .extend(warnings.iter().map(ToString::to_string));
        self.dirs.extend(
            config
                .plugin_path
                .map(|dirs| dirs.value)
                .unwrap_or_default()
                .into_iter()
                .map(|dir| (dir, Origin::PluginPath)),
        );
        Ok(self)
    }

    /// Adds the `files` of the plugin packages enabled for the scope's agent, looked up
    /// after every directory. A package that does not load is left out with a warning;
    /// a registry that cannot be read is an error, as it is for an emit.
    pub fn with_packages(
        mut self,
        scope: &Scope,
        files: PackageFiles,
    ) -> Result<Self, RuntimeError> {
        let packages = scope.packages()?;
        if packages.is_empty() {
            return Ok(self);
        }
        let (found, warnings) = files.of(&scope.env, &packages);
        self.warnings.extend(warnings);
        Ok(self.with_package_programs(found))
    }

    /// Adds programs of plugin packages. Their files are named by the manifest
    /// (`"audit": "bin/audit"`), not PREFIX + NAME, so they are listed one by one rather
    /// than as directories.
    #[must_use]
    pub fn with_package_programs(
        mut self,
        programs: impl IntoIterator<Item = PackageProgram>,
    ) -> Self {
        self.packages.extend(programs);
        self
    }

    /// The first executable PREFIX + `name` in the directories (each prefix in turn),
    /// then the package program `name`.
    pub fn find(&self, name: &OsStr) -> Lookup {
        let file_names: Vec<OsString> = self
            .prefixes
            .iter()
            .map(|prefix| {
                let mut file_name = OsString::from(prefix);
                file_name.push(name);
                file_name
            })
            .collect();
        let in_dirs = file_names
            .iter()
            .flat_map(|file_name| self.dirs.iter().map(move |(dir, _)| dir.join(file_name)));
        let in_packages = self
            .packages
            .iter()
            .filter(|program| OsStr::new(&program.name) == name)
            .map(|program| program.path.clone());
        let mut not_executable = None;
        for candidate in in_dirs.chain(in_packages) {
            match probe(&candidate) {
                Probe::Executable => return Lookup::Found(candidate),
                Probe::NotExecutable => {
                    not_executable.get_or_insert(candidate);
                }
                Probe::Missing => {}
            }
        }
        not_executable.map_or(Lookup::Missing, Lookup::NotExecutable)
    }

    /// Every executable program, by name: the first of each name, and where it was
    /// found.
    pub fn all(&self) -> BTreeMap<String, (PathBuf, Origin)> {
        let mut found = BTreeMap::new();
        for prefix in &self.prefixes {
            self.add_all(prefix, &mut found);
        }
        for program in &self.packages {
            if !found.contains_key(&program.name) && probe(&program.path) == Probe::Executable {
                found.insert(
                    program.name.clone(),
                    (
                        program.path.clone(),
                        Origin::Package(program.package.clone()),
                    ),
                );
            }
        }
        found
    }

    /// Adds to `found` every executable PREFIX + NAME of the directories whose NAME is
    /// not there yet.
    fn add_all(&self, prefix: &str, found: &mut BTreeMap<String, (PathBuf, Origin)>) {
        for (dir, origin) in &self.dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let file_name = entry.file_name();
                let Some(name) = file_name
                    .to_str()
                    .and_then(|name| name.strip_prefix(prefix))
                    .filter(|name| !name.is_empty())
                else {
                    continue;
                };
                if found.contains_key(name) {
                    continue;
                }
                let path = entry.path();
                if probe(&path) == Probe::Executable {
                    found.insert(name.to_owned(), (path, origin.clone()));
                }
            }
        }
    }
}

/// Every external command of the scope (`PATH`, `plugin_path`, the plugin packages
/// enabled for the scope's agent), for listings, which show what they can: a broken
/// `config.toml` or package registry is a warning of the search instead of an error.
pub fn all_commands(scope: &Scope, prefixes: &[&'static str]) -> Programs {
    let path = Programs::named(prefixes).with_path();
    let search = path
        .clone()
        .with_plugin_path(scope)
        .unwrap_or_else(|err| path.warned(format!("config.toml not read: {}", error_chain(&err))));
    search
        .clone()
        .with_packages(scope, PackageFiles::Commands)
        .unwrap_or_else(|err| {
            search.warned(format!("plugin packages not read: {}", error_chain(&err)))
        })
}

/// Finds the external command `name` (a file PREFIX + `name`, or a package's command of
/// that name): in `PATH` first, then in the `plugin_path` directories, then among the
/// commands of the plugin packages enabled for the scope's agent. `config.toml` is read
/// only when `PATH` has no such command that can run, and the package registry (which
/// opens the store and reads each enabled package's manifest) only when neither has:
/// most external commands live in `PATH`, and must not fail on a config they never use.
/// A file that cannot be run is the answer when nothing later can be run either. What
/// the searches found worth saying goes to `warn`.
pub fn find_command(
    scope: &Scope,
    prefixes: &[&'static str],
    name: &OsStr,
    warn: &mut dyn FnMut(String),
) -> Result<Lookup, RuntimeError> {
    let mut lookup = Programs::named(prefixes).with_path().find(name);
    if !matches!(lookup, Lookup::Found(_)) {
        let search = Programs::named(prefixes).with_plugin_path(scope)?;
        lookup = lookup.or_in(&search, name, warn);
    }
    if !matches!(lookup, Lookup::Found(_)) {
        let search = Programs::named(prefixes).with_packages(scope, PackageFiles::Commands)?;
        lookup = lookup.or_in(&search, name, warn);
    }
    Ok(lookup)
}

impl Lookup {
    /// This lookup, or what `search` finds for `name` when that can run, or when this
    /// found nothing at all.
    fn or_in(self, search: &Programs, name: &OsStr, warn: &mut dyn FnMut(String)) -> Lookup {
        for warning in &search.warnings {
            warn(warning.clone());
        }
        let later = search.find(name);
        if matches!(later, Lookup::Found(_)) || self == Lookup::Missing {
            later
        } else {
            self
        }
    }
}

/// The directories of `PATH`, in order. An empty entry means the current directory to a
/// shell; hookrig does not run programs from wherever it happens to be started.
fn path_dirs() -> Vec<PathBuf> {
    std::env::var_os("PATH")
        .map(|path| {
            std::env::split_paths(&path)
                .filter(|dir| !dir.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// `path` as one shell word, quoted when it holds anything a shell would split or
/// expand: for messages that tell the user what to type.
pub fn shell_word(path: &Path) -> String {
    let text = path.to_string_lossy();
    if text
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@%".contains(&b))
    {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// A program PREFIX + `name` in `PATH` or the `plugin_path` directories, runnable or
/// not: what says that a command exists under another prefix (`hence-NAME` for a
/// `hookrig NAME` that has no `hookrig-NAME`). A `config.toml` that cannot be read
/// leaves `PATH` alone searched.
pub fn in_path(scope: &Scope, prefixes: &[&'static str], name: &OsStr) -> Option<PathBuf> {
    let path = Programs::named(prefixes).with_path();
    let search = path.clone().with_plugin_path(scope).unwrap_or(path);
    match search.find(name) {
        Lookup::Found(path) | Lookup::NotExecutable(path) => Some(path),
        Lookup::Missing => None,
    }
}

/// The candidates close to `name` by edit distance (Damerau-Levenshtein, so a swapped
/// pair of letters is one edit), closest first, at most three: what "did you mean"
/// offers for a command nobody has. Close means at most one edit per four characters of
/// `name`, and at least one.
pub fn closest(name: &str, candidates: Vec<String>) -> Vec<String> {
    let limit = name.chars().count().div_ceil(4).max(1);
    let mut ranked: Vec<(usize, String)> = candidates
        .into_iter()
        .map(|candidate| (strsim::damerau_levenshtein(name, &candidate), candidate))
        .filter(|(distance, _)| *distance <= limit)
        .collect();
    ranked.sort();
    ranked.dedup();
    ranked.into_iter().take(3).map(|(_, c)| c).collect()
}

/// The "External commands" section of `hookrig --help`: each command `found` that is
/// not one of the `builtins`, with its file and where it was found; when there is none,
/// how to add one under the `prefixes` searched.
pub fn help_section(
    found: &BTreeMap<String, (PathBuf, Origin)>,
    builtins: &[String],
    prefixes: &[&str],
) -> String {
    use std::fmt::Write as _;
    let shown: Vec<_> = found
        .iter()
        .filter(|(name, _)| !builtins.contains(name))
        .collect();
    let mut text = String::from("External commands:\n");
    if shown.is_empty() {
        let names: Vec<String> = prefixes.iter().map(|p| format!("{p}NAME")).collect();
        let _ = writeln!(
            text,
            "  (none found: put an executable named {} in PATH)",
            hookrig_core::text::or_list(&names)
        );
        return text;
    }
    let width = shown.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    for (name, (path, origin)) in shown {
        let from = match origin {
            Origin::Path => String::new(),
            Origin::PluginPath => " (plugin_path)".to_owned(),
            Origin::Package(id) => format!(" (plugin package {id})"),
        };
        let _ = writeln!(text, "  {name:<width$}  {}{from}", path.display());
    }
    text
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn names(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn the_closest_names_rank_by_edit_distance() {
        let all = names(&["emit", "events", "explain", "list", "show", "why", "lint"]);
        assert_eq!(closest("lsit", all.clone()), ["list"]);
        assert_eq!(closest("lint", all.clone()), ["lint", "list"]);
        assert_eq!(closest("expalin", all.clone()), ["explain"]);
        assert!(closest("frobnicate", all).is_empty());
    }

    #[test]
    fn help_lists_external_commands_but_not_builtins() {
        let mut found = BTreeMap::new();
        found.insert(
            "lint".to_owned(),
            (PathBuf::from("/bin/hookrig-lint"), Origin::Path),
        );
        found.insert(
            "emit".to_owned(),
            (PathBuf::from("/bin/hookrig-emit"), Origin::Path),
        );
        found.insert(
            "fmt".to_owned(),
            (
                PathBuf::from("/pkgs/fmt"),
                Origin::Package("tools".to_owned()),
            ),
        );
        assert_eq!(
            help_section(&found, &names(&["emit"]), &["hookrig-"]),
            "External commands:\n  fmt   /pkgs/fmt (plugin package tools)\n  lint  /bin/hookrig-lint\n"
        );
        assert_eq!(
            help_section(&BTreeMap::new(), &[], &["hence-", "hookrig-"]),
            "External commands:\n  (none found: put an executable named hence-NAME or hookrig-NAME in PATH)\n"
        );
    }

    #[test]
    fn package_programs_come_after_directories() {
        let dir = tempfile::tempdir().expect("tempdir");
        let executable = |path: &Path| {
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, "#!/bin/sh\n").expect("write");
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        };
        let in_dir = dir.path().join("bin/hookrig-x");
        let (x, y, hidden) = (
            dir.path().join("pkg/bin/x"),
            dir.path().join("pkg/bin/y"),
            dir.path().join("other/y"),
        );
        for path in [&in_dir, &x, &y, &hidden] {
            executable(path);
        }
        let program = |name: &str, path: &Path, package: &str| PackageProgram {
            name: name.to_owned(),
            path: path.to_owned(),
            package: package.to_owned(),
        };
        let mut search = Programs::named(&["hookrig-"]);
        search.dirs.push((dir.path().join("bin"), Origin::Path));
        let search = search
            .with_package_programs([program("x", &x, "pkg"), program("y", &y, "pkg")])
            .with_package_programs([program("y", &hidden, "other")]);
        assert_eq!(search.find(OsStr::new("x")), Lookup::Found(in_dir.clone()));
        assert_eq!(search.find(OsStr::new("y")), Lookup::Found(y.clone()));
        assert_eq!(search.find(OsStr::new("z")), Lookup::Missing);
        let all = search.all();
        assert_eq!(all["x"], (in_dir, Origin::Path));
        assert_eq!(all["y"], (y, Origin::Package("pkg".to_owned())));
    }

    #[test]
    fn a_file_that_cannot_run_does_not_hide_a_later_one_that_can() {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = dir.path().join("a/hookrig-board-x");
        let second = dir.path().join("b/hookrig-board-x");
        for (path, mode) in [(&first, 0o644), (&second, 0o755)] {
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, "#!/bin/sh\n").expect("write");
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
        }
        let mut search = Programs::named(&["hookrig-board-"]);
        search.dirs.push((dir.path().join("a"), Origin::Path));
        assert_eq!(
            search.find(OsStr::new("x")),
            Lookup::NotExecutable(first.clone())
        );
        search.dirs.push((dir.path().join("b"), Origin::PluginPath));
        assert_eq!(search.find(OsStr::new("x")), Lookup::Found(second));
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_word(Path::new("/a/b-c.sh")), "/a/b-c.sh");
        assert_eq!(shell_word(Path::new("/a b/it's")), r"'/a b/it'\''s'");
    }
}
