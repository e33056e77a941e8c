//! External commands, git-style: `hookrig foo ARGS` runs `hookrig-foo ARGS`. Run as
//! `hence` (a link of that name to hookrig), `hence foo ARGS` runs `hence-foo ARGS`
//! first, as Hence users' scripts expect, then `hookrig-foo`.
//!
//! `hookrig-foo` is searched in `PATH`, then in the `[settings] plugin_path` directories
//! of `config.toml`; then `foo` is looked up in the `commands` of the plugin packages
//! enabled for the current agent (see [`Search::with_package_commands`]); the first
//! executable file wins. Built-in
//! commands always win, because clap only hands over names it does not know. The
//! command inherits stdin, stdout, stderr and the environment, plus `HOOKRIG_AGENT`,
//! `HOOKRIG_PLAN` and Hence's `HENCE_AGENT`, `HENCE_PLAN` when known; its exit status
//! becomes hookrig's (128 + N when it dies of signal N, as a shell reports it).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::{CommandFactory as _, FromArgMatches as _, Parser as _};
use hookrig_config::Environment;
use hookrig_exec::{Command, EnvPolicy, Exit, Probe, Program, probe};

use crate::cli::Cli;
use crate::errors::ExpectedError;
use crate::exit_codes;

/// The file name prefix of external commands.
const PREFIX: &str = "hookrig-";

/// The file name prefix of Hence's external commands, run when hookrig is invoked as
/// `hence`.
const HENCE_PREFIX: &str = "hence-";

/// Whether hookrig was started under the name `hence` (a symlink or copy so named).
pub(crate) fn invoked_as_hence() -> bool {
    std::env::args_os()
        .next()
        .is_some_and(|argv0| Path::new(&argv0).file_name() == Some(OsStr::new("hence")))
}

/// The prefixes external commands are searched with, in order.
fn prefixes() -> Vec<&'static str> {
    if invoked_as_hence() {
        vec![HENCE_PREFIX, PREFIX]
    } else {
        vec![PREFIX]
    }
}

/// Where an external command came from, for the help listing.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    Path,
    PluginPath,
    /// The `commands` of the plugin package with this id.
    Package(String),
}

/// A command a plugin package ships: `hookrig NAME` runs `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PackageCommand {
    /// The name in the manifest's `commands`, typed as is after `hookrig`.
    pub(crate) name: String,
    /// The file it runs.
    pub(crate) path: PathBuf,
    /// The package's id.
    pub(crate) package: String,
}

/// The directories external commands are searched in, in order, then the commands of
/// plugin packages.
#[derive(Debug)]
pub(crate) struct Search {
    /// The file name prefixes, in order: `hookrig-`, after `hence-` when run as `hence`.
    prefixes: Vec<&'static str>,
    dirs: Vec<(PathBuf, Origin)>,
    packages: Vec<PackageCommand>,
    /// Diagnostics of `config.toml` met while building the search, for the help path,
    /// which lists what it can rather than fail.
    warnings: Vec<String>,
}

impl Default for Search {
    fn default() -> Self {
        Self {
            prefixes: prefixes(),
            dirs: Vec::new(),
            packages: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

impl Search {
    /// The `PATH` directories.
    fn path() -> Self {
        Self {
            dirs: path_dirs()
                .into_iter()
                .map(|dir| (dir, Origin::Path))
                .collect(),
            ..Self::default()
        }
    }

    /// Adds the `plugin_path` directories of the `config.toml` files seen from the
    /// current directory. A broken `config.toml` is an error.
    fn with_plugin_path(mut self) -> Result<Self, ExpectedError> {
        self.dirs.extend(
            plugin_path_dirs()?
                .into_iter()
                .map(|dir| (dir, Origin::PluginPath)),
        );
        Ok(self)
    }

    /// Adds the commands of plugin packages, looked up after every directory. Their
    /// files are named by the manifest (`"audit": "bin/audit"`), not `hookrig-NAME`, so
    /// they are listed one by one rather than as directories.
    pub(crate) fn with_package_commands(
        mut self,
        commands: impl IntoIterator<Item = PackageCommand>,
    ) -> Self {
        self.packages.extend(commands);
        self
    }

    /// Adds the commands of the packages enabled for `context`'s agent. A package that
    /// does not load is left out with a warning; a registry that cannot be read is an
    /// error, as it is for an emit.
    fn with_packages(mut self, context: &Context) -> Result<Self, ExpectedError> {
        let (commands, warnings) = package_commands(context)?;
        self.warnings.extend(warnings);
        Ok(self.with_package_commands(commands))
    }

    /// Every directory and package: `PATH`, `plugin_path`, plugin packages. For
    /// listings, which show what they can: a broken `config.toml` or registry becomes a
    /// warning.
    fn everything(context: &Context) -> Self {
        let mut search = Self::path().with_plugin_path().unwrap_or_else(|err| {
            let mut search = Self::path();
            search.warnings.push(format!(
                "config.toml not read: {}",
                crate::output::chain(&err)
            ));
            search
        });
        match package_commands(context) {
            Ok((commands, warnings)) => {
                search.warnings.extend(warnings);
                search.packages.extend(commands);
            }
            Err(err) => search.warnings.push(format!(
                "plugin packages not read: {}",
                crate::output::chain(&err)
            )),
        }
        search
    }

    /// The first `hookrig-NAME` in these directories (`hence-NAME`, then `hookrig-NAME`
    /// when run as `hence`), then the package command NAME.
    fn find(&self, name: &OsStr) -> Lookup {
        let file_names: Vec<OsString> = self
            .prefixes
            .iter()
            .map(|prefix| {
                let mut file_name = OsString::from(prefix);
                file_name.push(name);
                file_name
            })
            .collect();
        let mut not_executable = None;
        let in_packages = self
            .packages
            .iter()
            .filter(|command| OsStr::new(&command.name) == name)
            .map(|command| command.path.clone());
        let in_dirs = file_names
            .iter()
            .flat_map(|file_name| self.dirs.iter().map(move |(dir, _)| dir.join(file_name)));
        for candidate in in_dirs.chain(in_packages) {
            match probe(&candidate) {
                Probe::Executable => return Lookup::Found(candidate),
                // As execvp does: a file that cannot be run does not hide a later one
                // that can, but it is what the error names when none can.
                Probe::NotExecutable => {
                    not_executable.get_or_insert(candidate);
                }
                Probe::Missing => {}
            }
        }
        not_executable.map_or(Lookup::Missing, Lookup::NotExecutable)
    }

    /// Every external command, by name: the first executable of each name, and where
    /// it was found.
    fn all(&self) -> BTreeMap<String, (PathBuf, Origin)> {
        let mut found = BTreeMap::new();
        for prefix in &self.prefixes {
            self.add_all(prefix, &mut found);
        }
        for command in &self.packages {
            if !found.contains_key(&command.name) && probe(&command.path) == Probe::Executable {
                found.insert(
                    command.name.clone(),
                    (
                        command.path.clone(),
                        Origin::Package(command.package.clone()),
                    ),
                );
            }
        }
        found
    }

    /// Adds to `found` every executable `PREFIXNAME` of the directories whose NAME is not
    /// there yet.
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

/// The directories of `PATH`, in order. An empty entry means the current directory to a
/// shell; hookrig does not run programs from wherever it happens to be started.
pub(crate) fn path_dirs() -> Vec<PathBuf> {
    std::env::var_os("PATH")
        .map(|path| {
            std::env::split_paths(&path)
                .filter(|dir| !dir.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The `plugin_path` directories of the `config.toml` files seen from the current
/// directory, where hookrig's programs (external commands, board formatters) are looked
/// for after `PATH`. Warnings about those files go to stderr; a broken file is an error.
pub(crate) fn plugin_path_dirs() -> Result<Vec<PathBuf>, ExpectedError> {
    let cwd = std::env::current_dir().map_err(ExpectedError::Cwd)?;
    let env = Environment::from_process(cwd)?;
    let mut warnings = Vec::new();
    let config = hookrig_config::load_config_toml(&env, &mut warnings)?;
    for warning in warnings {
        eprintln!("hookrig: warning: {warning}");
    }
    Ok(config
        .plugin_path
        .map(|dirs| dirs.value)
        .unwrap_or_default())
}

/// What a search for one command found.
#[derive(Debug, PartialEq, Eq)]
enum Lookup {
    Found(PathBuf),
    NotExecutable(PathBuf),
    Missing,
}

/// Parses the command line. Help for hookrig itself (`hookrig --help`, `hookrig help`,
/// `hookrig` alone) also lists the external commands found; that search runs only then,
/// so that `emit` pays nothing for it. `hookrig help NAME` for an external command runs
/// `hookrig-NAME --help`.
pub(crate) fn parse() -> Cli {
    let args: Vec<OsString> = std::env::args_os().collect();
    let err = match Cli::try_parse_from(&args) {
        Ok(cli) => return cli,
        Err(err) => err,
    };
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let search = Search::everything(&Context::from_args(&args));
            for warning in &search.warnings {
                eprintln!("hookrig: warning: {warning}");
            }
            let command = Cli::command().after_help(help_section(&search.all()));
            match command.try_get_matches_from(&args) {
                Ok(matches) => Cli::from_arg_matches(&matches).unwrap_or_else(|err| err.exit()),
                Err(err) => err.exit(),
            }
        }
        ErrorKind::InvalidSubcommand => {
            // `hookrig help NAME` where NAME is no built-in: the command's own help.
            if let Some(name) = help_target(&args) {
                let code = match run(&Context::from_args(&args), &[name, "--help".into()]) {
                    Ok(code) => code,
                    Err(err) => {
                        eprintln!("hookrig: error: {}", crate::output::chain(&err));
                        err.exit_code()
                    }
                };
                std::process::exit(i32::from(code));
            }
            err.exit()
        }
        _ => err.exit(),
    }
}

/// hookrig's own options that take a value as the next word.
const VALUED_OPTIONS: [&[u8]; 3] = [b"--agent", b"--plan", b"--ledger"];

/// NAME of `hookrig [GLOBAL FLAGS] help NAME`, when that is the whole command line.
fn help_target(args: &[OsString]) -> Option<OsString> {
    let mut words: Vec<&OsString> = Vec::new();
    let mut rest = args.iter().skip(1);
    while let Some(arg) = rest.next() {
        if VALUED_OPTIONS.contains(&arg.as_bytes()) {
            // `--agent coder help NAME`: `coder` is the option's value.
            rest.next();
        } else if !arg.as_bytes().starts_with(b"-") {
            words.push(arg);
        }
    }
    match words.as_slice() {
        [help, name] if *help == "help" => Some((*name).clone()),
        _ => None,
    }
}

/// The "External commands" section of `hookrig --help`.
fn help_section(found: &BTreeMap<String, (PathBuf, Origin)>) -> String {
    let builtins = builtin_names();
    let shown: Vec<_> = found
        .iter()
        .filter(|(name, _)| !builtins.contains(name))
        .collect();
    let mut text = String::from("External commands:\n");
    if shown.is_empty() {
        text.push_str(if invoked_as_hence() {
            "  (none found: put an executable named hence-NAME or hookrig-NAME in PATH)\n"
        } else {
            "  (none found: put an executable named hookrig-NAME in PATH)\n"
        });
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

/// The names of the built-in commands, `help` included.
fn builtin_names() -> Vec<String> {
    let command = Cli::command();
    command
        .get_subcommands()
        .flat_map(|sub| std::iter::once(sub.get_name()).chain(sub.get_all_aliases()))
        .map(str::to_owned)
        .chain(std::iter::once("help".to_owned()))
        .collect()
}

/// What an external command is told besides its arguments.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Context {
    /// The agent: `--agent`, else `HOOKRIG_AGENT`, else `HENCE_AGENT`.
    pub(crate) agent: Option<OsString>,
    /// The plan file, absolute: `--plan`, else `HOOKRIG_PLAN`, else `HENCE_PLAN`.
    pub(crate) plan: Option<PathBuf>,
    /// The store holding the plugin package registry: `--ledger`, else
    /// `HOOKRIG_LEDGER`, else the default ledger; `None` when it cannot be worked out.
    pub(crate) store: Option<PathBuf>,
}

impl Context {
    /// From the command line's `--agent`, `--plan` and `--ledger`, falling back on the
    /// environment.
    pub(crate) fn new(agent: Option<&OsStr>, plan: Option<&Path>, store: Option<&Path>) -> Self {
        let from_env = |names: [&str; 2]| {
            names
                .into_iter()
                .find_map(|name| std::env::var_os(name).filter(|v| !v.is_empty()))
        };
        let agent = agent
            .filter(|a| !a.is_empty())
            .map(OsStr::to_owned)
            .or_else(|| from_env(["HOOKRIG_AGENT", "HENCE_AGENT"]));
        let plan = plan
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_owned)
            .or_else(|| from_env(["HOOKRIG_PLAN", "HENCE_PLAN"]).map(PathBuf::from))
            .map(|plan| hookrig_config::normal_path(&plan));
        let store = store
            .map(Path::to_owned)
            .or_else(|| {
                std::env::var_os("HOOKRIG_LEDGER")
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
            })
            .or_else(|| {
                Environment::from_process(PathBuf::new())
                    .ok()
                    .map(|env| hookrig_store::default_ledger_path(&env.state_home))
            });
        Self { agent, plan, store }
    }

    /// From a command line clap could not parse (help): the values of `--agent`,
    /// `--plan` and `--ledger` given before the first word that is not an option.
    fn from_args(args: &[OsString]) -> Self {
        let mut values: [Option<OsString>; 3] = Default::default();
        let mut words = args.iter().skip(1);
        while let Some(word) = words.next() {
            let bytes = word.as_bytes();
            if !bytes.starts_with(b"-") {
                break;
            }
            for (index, option) in VALUED_OPTIONS.iter().enumerate() {
                if bytes == *option {
                    values[index] = words.next().cloned();
                } else if let Some(value) = bytes
                    .strip_prefix(*option)
                    .and_then(|rest| rest.strip_prefix(b"="))
                {
                    values[index] = Some(OsStr::from_bytes(value).to_owned());
                }
            }
        }
        let [agent, plan, store] = values;
        Self::new(
            agent.as_deref(),
            plan.as_deref().map(Path::new),
            store.as_deref().map(Path::new),
        )
    }
}

/// Runs the external command `args[0]` with the rest of `args`, and returns the exit
/// code hookrig leaves with.
pub(crate) fn run(context: &Context, args: &[OsString]) -> Result<u8, ExpectedError> {
    let (name, rest) = args
        .split_first()
        .expect("clap hands over an external subcommand with its name");
    let path = resolve(context, name)?;
    let mut set = Vec::new();
    if let Some(agent) = &context.agent {
        let agent = agent.to_string_lossy().into_owned();
        set.push(("HOOKRIG_AGENT".to_owned(), agent.clone()));
        set.push(("HENCE_AGENT".to_owned(), agent));
    }
    if let Some(plan) = &context.plan {
        let plan = plan.to_string_lossy().into_owned();
        set.push(("HOOKRIG_PLAN".to_owned(), plan.clone()));
        set.push(("HENCE_PLAN".to_owned(), plan));
    }
    let command = Command {
        program: Program::Exec {
            program: path.into_os_string(),
            args: rest.to_vec(),
        },
        cwd: std::env::current_dir().map_err(ExpectedError::Cwd)?,
        env: EnvPolicy::Inherit { set },
    };
    // On the terminal, in hookrig's process group: SIGINT and SIGQUIT are left to the
    // command, SIGTERM and SIGHUP passed on to it (hookrig_exec's foreground mode).
    Ok(exit_code(command.run_inherited()?))
}

/// The path of the command `name`, or why there is none.
fn resolve(context: &Context, name: &OsStr) -> Result<PathBuf, ExpectedError> {
    // A name with a slash would name a file in a subdirectory of a search directory.
    if name.is_empty() || name.as_bytes().contains(&b'/') {
        return Err(unknown(context, name));
    }
    let mut lookup = Search::path().find(name);
    if !matches!(lookup, Lookup::Found(_)) {
        // `config.toml` is read only when PATH has no such command: most external
        // commands live in PATH, and they should not fail on a config they never use.
        let later = Search::default().with_plugin_path()?.find(name);
        // A file that cannot be run in PATH is what the error names when nothing later
        // can be run either.
        if matches!(later, Lookup::Found(_)) || lookup == Lookup::Missing {
            lookup = later;
        }
    }
    if !matches!(lookup, Lookup::Found(_)) {
        // The package registry last, and only when needed: it opens the store and
        // reads each enabled package's manifest.
        let search = Search::default().with_packages(context)?;
        for warning in &search.warnings {
            eprintln!("hookrig: warning: {warning}");
        }
        let later = search.find(name);
        if matches!(later, Lookup::Found(_)) || lookup == Lookup::Missing {
            lookup = later;
        }
    }
    match lookup {
        Lookup::Found(path) => Ok(path),
        Lookup::NotExecutable(path) => Err(ExpectedError::NotExecutable(path)),
        Lookup::Missing => Err(hence_command(name).map_or_else(
            || unknown(context, name),
            |path| ExpectedError::HenceCommand {
                name: name.to_string_lossy().into_owned(),
                path,
            },
        )),
    }
}

/// A Hence command `hence-NAME` in `PATH` or `plugin_path`, when hookrig runs under its
/// own name and has no `hookrig-NAME`: it is not run, but the error says how to make it
/// one.
fn hence_command(name: &OsStr) -> Option<PathBuf> {
    if invoked_as_hence() {
        return None;
    }
    let mut search = Search::path();
    if let Ok(dirs) = plugin_path_dirs() {
        search
            .dirs
            .extend(dirs.into_iter().map(|dir| (dir, Origin::PluginPath)));
    }
    search.prefixes = vec![HENCE_PREFIX];
    match search.find(name) {
        Lookup::Found(path) | Lookup::NotExecutable(path) => Some(path),
        Lookup::Missing => None,
    }
}

/// The commands of the plugin packages enabled for `context`'s agent (only those
/// enabled for every agent when there is none), and a warning per package that does
/// not load.
fn package_commands(
    context: &Context,
) -> Result<(Vec<PackageCommand>, Vec<String>), ExpectedError> {
    let Some(store) = &context.store else {
        return Ok((Vec::new(), Vec::new()));
    };
    let agent = context.agent.as_ref().map(|a| a.to_string_lossy());
    let (packages, _) = crate::ledger::enabled_packages_at(store, agent.as_deref())?;
    if packages.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let env = Environment::from_process(std::env::current_dir().map_err(ExpectedError::Cwd)?)?;
    let mut commands = Vec::new();
    let mut warnings = Vec::new();
    for package in &packages {
        let check = hookrig_dialects::check_package(&env, package);
        match check.package {
            Some(loaded) => {
                commands.extend(loaded.commands.into_iter().map(|file| PackageCommand {
                    name: file.name,
                    path: file.path,
                    package: loaded.id.clone(),
                }));
            }
            None => warnings.push(format!(
                "plugin package {} is not loaded, its commands are not available: {}",
                package.id,
                check
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity == hookrig_core::Severity::Error)
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
        }
    }
    Ok((commands, warnings))
}

/// The error for a command nobody has, with the names close to it.
fn unknown(context: &Context, name: &OsStr) -> ExpectedError {
    let name = name.to_string_lossy().into_owned();
    let mut candidates = builtin_names();
    candidates.extend(Search::everything(context).all().into_keys());
    ExpectedError::UnknownCommand {
        suggestions: suggest(&name, candidates),
        name,
    }
}

/// The candidates close to `name` by edit distance (Damerau-Levenshtein, so a swapped
/// pair of letters is one edit), closest first, at most three. Close means at most one
/// edit per four characters of `name`, and at least one.
fn suggest(name: &str, candidates: Vec<String>) -> Vec<String> {
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

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn or_list(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// `path` as one shell word, quoted when it holds anything a shell would split or expand.
pub(crate) fn shell_word(path: &Path) -> String {
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

/// The command's exit code, or 128 + N when signal N ended it.
fn exit_code(exit: Exit) -> u8 {
    if let Some(code) = exit.code {
        // Exit codes are 0..=255 on Unix; anything else cannot happen.
        return u8::try_from(code & 0xff).unwrap_or(exit_codes::FAILURE);
    }
    exit.signal
        .and_then(|signal| u8::try_from(128 + signal).ok())
        .unwrap_or(exit_codes::FAILURE)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn names(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn suggestions_rank_by_edit_distance() {
        let all = names(&["emit", "events", "explain", "list", "show", "why", "lint"]);
        assert_eq!(suggest("lsit", all.clone()), ["list"]);
        assert_eq!(suggest("lint", all.clone()), ["lint", "list"]);
        assert_eq!(suggest("expalin", all.clone()), ["explain"]);
        assert!(suggest("frobnicate", all).is_empty());
    }

    #[test]
    fn or_lists_read_as_english() {
        assert_eq!(or_list(&names(&["a"])), "a");
        assert_eq!(or_list(&names(&["a", "b"])), "a or b");
        assert_eq!(or_list(&names(&["a", "b", "c"])), "a, b or c");
    }

    #[test]
    fn package_commands_come_after_directories() {
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
        let command = |name: &str, path: &Path, package: &str| PackageCommand {
            name: name.to_owned(),
            path: path.to_owned(),
            package: package.to_owned(),
        };
        let search = Search {
            dirs: vec![(dir.path().join("bin"), Origin::Path)],
            ..Search::default()
        }
        .with_package_commands([command("x", &x, "pkg"), command("y", &y, "pkg")])
        .with_package_commands([command("y", &hidden, "other")]);
        assert_eq!(search.find(OsStr::new("x")), Lookup::Found(in_dir.clone()));
        assert_eq!(search.find(OsStr::new("y")), Lookup::Found(y.clone()));
        assert_eq!(search.find(OsStr::new("z")), Lookup::Missing);
        let all = search.all();
        assert_eq!(all["x"], (in_dir, Origin::Path));
        assert_eq!(all["y"], (y, Origin::Package("pkg".to_owned())));
    }

    #[test]
    fn help_context_reads_options_before_the_command() {
        let args = |words: &[&str]| words.iter().map(OsString::from).collect::<Vec<_>>();
        let context = Context::from_args(&args(&[
            "hookrig",
            "--agent",
            "coder",
            "--ledger=/tmp/l.db",
            "--help",
        ]));
        assert_eq!(context.agent.as_deref(), Some(OsStr::new("coder")));
        assert_eq!(context.store.as_deref(), Some(Path::new("/tmp/l.db")));
        let context = Context::from_args(&args(&["hookrig", "help", "--agent", "x"]));
        assert_ne!(context.agent.as_deref(), Some(OsStr::new("x")));
    }

    #[test]
    fn signal_deaths_are_128_plus_the_signal() {
        let exit = |code, signal| Exit { code, signal };
        assert_eq!(exit_code(exit(Some(3), None)), 3);
        assert_eq!(exit_code(exit(None, Some(9))), 137);
    }
}
