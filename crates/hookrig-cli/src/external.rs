//! External commands, git-style: `hookrig foo ARGS` runs `hookrig-foo ARGS`.
//!
//! `hookrig-foo` is searched in `PATH`, then in the `[settings] plugin_path` directories
//! of `config.toml`, then in the command directories of enabled plugin packages (see
//! [`Search::with_plugin_command_dirs`]); the first executable file wins. Built-in
//! commands always win, because clap only hands over names it does not know. The
//! command inherits stdin, stdout, stderr and the environment, plus `HOOKRIG_AGENT`,
//! `HOOKRIG_PLAN` and Hence's `HENCE_AGENT`, `HENCE_PLAN` when known; its exit status
//! becomes hookrig's (128 + N when it dies of signal N, as a shell reports it).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::{CommandFactory as _, FromArgMatches as _, Parser as _};
use hookrig_config::Environment;
use nix::sys::signal::Signal;
use nix::unistd::Pid;
use tokio::signal::unix::{SignalKind, signal};

use crate::cli::Cli;
use crate::errors::ExpectedError;
use crate::exit_codes;

/// The file name prefix of external commands.
const PREFIX: &str = "hookrig-";

/// Where an external command directory came from, for the help listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    Path,
    PluginPath,
    Plugin,
}

/// The directories external commands are searched in, in order.
#[derive(Debug, Default)]
pub(crate) struct Search {
    dirs: Vec<(PathBuf, Origin)>,
    /// Diagnostics of `config.toml` met while building the search, for the help path,
    /// which lists what it can rather than fail.
    warnings: Vec<String>,
}

impl Search {
    /// The `PATH` directories.
    fn path() -> Self {
        let dirs = std::env::var_os("PATH")
            .map(|path| {
                std::env::split_paths(&path)
                    // An empty entry means the current directory to a shell; hookrig
                    // does not run programs from wherever it happens to be started.
                    .filter(|dir| !dir.as_os_str().is_empty())
                    .map(|dir| (dir, Origin::Path))
                    .collect()
            })
            .unwrap_or_default();
        Self {
            dirs,
            warnings: Vec::new(),
        }
    }

    /// Adds the `plugin_path` directories of the `config.toml` files seen from the
    /// current directory. A broken `config.toml` is an error.
    fn with_plugin_path(mut self) -> Result<Self, ExpectedError> {
        let cwd = std::env::current_dir().map_err(ExpectedError::Cwd)?;
        let env = Environment::from_process(cwd)?;
        let mut warnings = Vec::new();
        let config = hookrig_config::load_config_toml(&env, &mut warnings)?;
        for warning in warnings {
            eprintln!("hookrig: warning: {warning}");
        }
        if let Some(dirs) = config.plugin_path {
            self.dirs
                .extend(dirs.value.into_iter().map(|dir| (dir, Origin::PluginPath)));
        }
        Ok(self)
    }

    /// Adds directories that hold the `hookrig-NAME` executables of enabled plugin
    /// packages, searched after `PATH` and `plugin_path`.
    ///
    /// This is the seam for plugin packages (issue 4 item 3): the code that knows which
    /// packages are enabled for the current agent passes their `commands` directories
    /// here, by chaining `.with_plugin_command_dirs(dirs)` after `with_plugin_path()` in
    /// [`resolve`] (running) and [`Search::everything`] (help, suggestions). Until it
    /// lands nothing calls this outside tests.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "plugin packages land separately")
    )]
    pub(crate) fn with_plugin_command_dirs(
        mut self,
        dirs: impl IntoIterator<Item = PathBuf>,
    ) -> Self {
        self.dirs
            .extend(dirs.into_iter().map(|dir| (dir, Origin::Plugin)));
        self
    }

    /// Every directory: `PATH`, `plugin_path`, plugin packages. For listings, which show
    /// what they can: a broken `config.toml` becomes a warning.
    fn everything() -> Self {
        match Self::path().with_plugin_path() {
            Ok(search) => search,
            Err(err) => {
                let mut search = Self::path();
                search.warnings.push(format!(
                    "config.toml not read: {}",
                    crate::output::chain(&err)
                ));
                search
            }
        }
    }

    /// The first `hookrig-NAME` in these directories.
    fn find(&self, name: &OsStr) -> Lookup {
        let mut file_name = OsString::from(PREFIX);
        file_name.push(name);
        let mut not_executable = None;
        for (dir, _) in &self.dirs {
            let candidate = dir.join(&file_name);
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
        for (dir, origin) in &self.dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let file_name = entry.file_name();
                let Some(name) = file_name
                    .to_str()
                    .and_then(|name| name.strip_prefix(PREFIX))
                    .filter(|name| !name.is_empty())
                else {
                    continue;
                };
                if found.contains_key(name) {
                    continue;
                }
                let path = entry.path();
                if probe(&path) == Probe::Executable {
                    found.insert(name.to_owned(), (path, *origin));
                }
            }
        }
        found
    }
}

/// What a search for one command found.
#[derive(Debug, PartialEq, Eq)]
enum Lookup {
    Found(PathBuf),
    NotExecutable(PathBuf),
    Missing,
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Probe {
    Executable,
    NotExecutable,
    Missing,
}

pub(crate) fn probe(path: &Path) -> Probe {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            if meta.permissions().mode() & 0o111 != 0
                && nix::unistd::access(path, nix::unistd::AccessFlags::X_OK).is_ok()
            {
                Probe::Executable
            } else {
                Probe::NotExecutable
            }
        }
        _ => Probe::Missing,
    }
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
            let search = Search::everything();
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
                let code = match run(&Context::from_env(), &[name, "--help".into()]) {
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

/// NAME of `hookrig [GLOBAL FLAGS] help NAME`, when that is the whole command line.
fn help_target(args: &[OsString]) -> Option<OsString> {
    let words: Vec<&OsString> = args
        .iter()
        .skip(1)
        .filter(|arg| !arg.as_bytes().starts_with(b"-"))
        .collect();
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
        text.push_str("  (none found: put an executable named hookrig-NAME in PATH)\n");
        return text;
    }
    let width = shown.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    for (name, (path, origin)) in shown {
        let from = match origin {
            Origin::Path => "",
            Origin::PluginPath => " (plugin_path)",
            Origin::Plugin => " (plugin)",
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
}

impl Context {
    /// From the command line's `--agent` and `--plan`, falling back on the environment.
    pub(crate) fn new(agent: Option<&OsStr>, plan: Option<&Path>) -> Self {
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
            .map(|plan| std::path::absolute(&plan).unwrap_or(plan));
        Self { agent, plan }
    }

    fn from_env() -> Self {
        Self::new(None, None)
    }
}

/// Runs the external command `args[0]` with the rest of `args`, and returns the exit
/// code hookrig leaves with.
pub(crate) fn run(context: &Context, args: &[OsString]) -> Result<u8, ExpectedError> {
    let (name, rest) = args
        .split_first()
        .expect("clap hands over an external subcommand with its name");
    let path = resolve(name)?;
    let mut command = tokio::process::Command::new(&path);
    command.args(rest);
    if let Some(agent) = &context.agent {
        command
            .env("HOOKRIG_AGENT", agent)
            .env("HENCE_AGENT", agent);
    }
    if let Some(plan) = &context.plan {
        command.env("HOOKRIG_PLAN", plan).env("HENCE_PLAN", plan);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ExpectedError::Runtime)?;
    runtime.block_on(supervise(command, &path))
}

/// The path of the command `name`, or why there is none.
fn resolve(name: &OsStr) -> Result<PathBuf, ExpectedError> {
    // A name with a slash would name a file in a subdirectory of a search directory.
    if name.is_empty() || name.as_bytes().contains(&b'/') {
        return Err(unknown(name));
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
    match lookup {
        Lookup::Found(path) => Ok(path),
        Lookup::NotExecutable(path) => Err(ExpectedError::NotExecutable(path)),
        Lookup::Missing => Err(unknown(name)),
    }
}

/// The error for a command nobody has, with the names close to it.
fn unknown(name: &OsStr) -> ExpectedError {
    let name = name.to_string_lossy().into_owned();
    let mut candidates = builtin_names();
    candidates.extend(Search::everything().all().into_keys());
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

/// Waits for the command. SIGINT and SIGQUIT are left to the command: from a terminal
/// they reach the whole foreground process group, the command included, and it decides
/// whether they end it (as `system()` does). SIGTERM and SIGHUP, usually sent to
/// hookrig alone, are passed on to the command.
async fn supervise(mut command: tokio::process::Command, path: &Path) -> Result<u8, ExpectedError> {
    let spawn_error = |source| ExpectedError::SpawnExternal {
        path: path.to_owned(),
        source,
    };
    let (mut int, mut quit, mut term, mut hup) = (
        signal(SignalKind::interrupt()).map_err(spawn_error)?,
        signal(SignalKind::quit()).map_err(spawn_error)?,
        signal(SignalKind::terminate()).map_err(spawn_error)?,
        signal(SignalKind::hangup()).map_err(spawn_error)?,
    );
    let mut child = command.spawn().map_err(spawn_error)?;
    let pid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .map(Pid::from_raw);
    let forward = |signal: Signal| {
        if let Some(pid) = pid {
            let _ = nix::sys::signal::kill(pid, signal);
        }
    };
    let status = loop {
        tokio::select! {
            status = child.wait() => break status.map_err(spawn_error)?,
            _ = int.recv() => {}
            _ = quit.recv() => {}
            _ = term.recv() => forward(Signal::SIGTERM),
            _ = hup.recv() => forward(Signal::SIGHUP),
        }
    };
    Ok(exit_code(status))
}

/// The command's exit code, or 128 + N when signal N ended it.
fn exit_code(status: std::process::ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        // Exit codes are 0..=255 on Unix; anything else cannot happen.
        return u8::try_from(code & 0xff).unwrap_or(exit_codes::FAILURE);
    }
    status
        .signal()
        .and_then(|signal| u8::try_from(128 + signal).ok())
        .unwrap_or(exit_codes::FAILURE)
}

#[cfg(test)]
mod tests {
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
    fn plugin_command_dirs_come_last() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (first, second) = (dir.path().join("a"), dir.path().join("b"));
        for d in [&first, &second] {
            std::fs::create_dir_all(d).expect("mkdir");
            let file = d.join("hookrig-x");
            std::fs::write(&file, "#!/bin/sh\n").expect("write");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let search = Search::default()
            .with_plugin_command_dirs([first.clone()])
            .with_plugin_command_dirs([second]);
        assert_eq!(
            search.find(OsStr::new("x")),
            Lookup::Found(first.join("hookrig-x"))
        );
        assert_eq!(search.all()["x"], (first.join("hookrig-x"), Origin::Plugin));
    }

    #[test]
    fn signal_deaths_are_128_plus_the_signal() {
        assert_eq!(exit_code(std::process::ExitStatus::from_raw(3 << 8)), 3);
        assert_eq!(exit_code(std::process::ExitStatus::from_raw(9)), 137);
    }
}
