//! External commands, git-style: `hookrig foo ARGS` runs `hookrig-foo ARGS`. Run as
//! `hence` (a link of that name to hookrig), `hence foo ARGS` runs `hence-foo ARGS`
//! first, as Hence users' scripts expect, then `hookrig-foo`.
//!
//! `hookrig-foo` is searched in `PATH`, then in the `[settings] plugin_path` directories
//! of `config.toml`; then `foo` is looked up in the `commands` of the plugin packages
//! enabled for the scope's agent (`hookrig_runtime::programs`); the first executable
//! file wins. Built-in commands always win, because clap only hands over names it does
//! not know. The command inherits stdin, stdout, stderr and the environment, plus the
//! scope's variables (`Scope::child_env`: `HOOKRIG_AGENT`, `HOOKRIG_PLAN` and Hence's
//! `HENCE_AGENT`, `HENCE_PLAN` when known); its exit status becomes hookrig's (128 + N
//! when it dies of signal N, as a shell reports it).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::{CommandFactory as _, FromArgMatches as _, Parser as _};
use hookrig_exec::{Command, EnvPolicy, Exit, Program};
use hookrig_runtime::Scope;
use hookrig_runtime::programs::{self, Lookup, Origin, Programs};

use crate::cli::{Cli, GlobalArgs};
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{warn, warn_all};
use crate::scope::{Flags, Top};

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
fn prefixes() -> &'static [&'static str] {
    if invoked_as_hence() {
        &[HENCE_PREFIX, PREFIX]
    } else {
        &[PREFIX]
    }
}

/// Every external command of the scope: `PATH`, `plugin_path`, plugin packages. For
/// listings, which show what they can: a broken `config.toml` or registry (or a scope
/// that cannot be resolved) becomes a warning.
fn everything(scope: Result<&Scope, String>) -> Programs {
    match scope {
        Ok(scope) => programs::all_commands(scope, prefixes()),
        Err(why) => Programs::named(prefixes()).with_path().warned(why),
    }
}

/// Parses the command line. Help for hookrig itself (`hookrig --help`, `hookrig help`,
/// `hookrig` alone) also lists the external commands found; that search runs only then,
/// so that `emit` pays nothing for it. `hookrig help NAME` for an external command runs
/// `hookrig-NAME --help`.
pub(crate) fn parse() -> Cli {
    let args: Vec<OsString> = std::env::args_os().collect();
    if let Some(cli) = Cli::parse_emit(&args) {
        return cli;
    }
    let err = match Cli::try_parse_from(&args) {
        Ok(cli) => return cli,
        Err(err) => err,
    };
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let scope = help_top(&args)
                .scope(Flags::default())
                .map_err(|err| format!("plugin packages not read: {}", crate::output::chain(&err)));
            let search = everything(scope.as_ref().map_err(Clone::clone));
            warn_all(&search.warnings);
            let command = Cli::command().after_help(help_section(&search.all()));
            match command.try_get_matches_from(&args) {
                Ok(matches) => Cli::from_arg_matches(&matches).unwrap_or_else(|err| err.exit()),
                Err(err) => err.exit(),
            }
        }
        ErrorKind::InvalidSubcommand => {
            // `hookrig help NAME` where NAME is no built-in: the command's own help.
            if let Some(name) = help_target(&args) {
                let scope = help_top(&args).scope(Flags::default());
                let code = match scope.and_then(|scope| run(&scope, &[name, "--help".into()])) {
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

/// The options given before the command, read from a command line clap could not
/// parse (help): the values of `--agent`, `--plan` and `--ledger` given before the first
/// word that is not an option, with `--ledger`'s variable as clap reads it.
fn help_top(args: &[OsString]) -> Top {
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
    let [agent, plan, ledger] = values;
    // HOOKRIG_LEDGER is left to the scope, which reads it as it reads it for every
    // command.
    let ledger = ledger
        .filter(|ledger| !ledger.is_empty())
        .map(PathBuf::from);
    Top {
        global: GlobalArgs {
            debug: false,
            debug_hooks: false,
            ledger,
            no_ledger: false,
        },
        agent,
        plan: plan.map(PathBuf::from),
    }
}

/// Runs the external command `args[0]` with the rest of `args` in the scope's working
/// directory, with the scope's variables, and returns the exit code hookrig leaves with.
pub(crate) fn run(scope: &Scope, args: &[OsString]) -> Result<u8, ExpectedError> {
    let (name, rest) = args
        .split_first()
        .expect("clap hands over an external subcommand with its name");
    let path = resolve(scope, name)?;
    let set = scope
        .child_env()
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value.to_string_lossy().into_owned()))
        .collect();
    let command = Command {
        program: Program::Exec {
            program: path.into_os_string(),
            args: rest.to_vec(),
        },
        cwd: scope.cwd().to_owned(),
        env: EnvPolicy::Inherit { set },
    };
    // On the terminal, in hookrig's process group: SIGINT and SIGQUIT are left to the
    // command, SIGTERM and SIGHUP passed on to it (hookrig_exec's foreground mode).
    Ok(exit_code(command.run_inherited()?))
}

/// The path of the command `name`, or why there is none.
fn resolve(scope: &Scope, name: &OsStr) -> Result<PathBuf, ExpectedError> {
    // A name with a slash would name a file in a subdirectory of a search directory.
    if name.is_empty() || name.as_bytes().contains(&b'/') {
        return Err(unknown(scope, name));
    }
    match programs::find_command(scope, prefixes(), name, &mut warn)? {
        Lookup::Found(path) => Ok(path),
        Lookup::NotExecutable(path) => Err(ExpectedError::NotExecutable(path)),
        Lookup::Missing => Err(hence_command(scope, name).map_or_else(
            || unknown(scope, name),
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
fn hence_command(scope: &Scope, name: &OsStr) -> Option<PathBuf> {
    if invoked_as_hence() {
        return None;
    }
    let path = Programs::named(&[HENCE_PREFIX]).with_path();
    let search = path.clone().with_plugin_path(scope).unwrap_or(path);
    match search.find(name) {
        Lookup::Found(path) | Lookup::NotExecutable(path) => Some(path),
        Lookup::Missing => None,
    }
}

/// The error for a command nobody has, with the names close to it.
fn unknown(scope: &Scope, name: &OsStr) -> ExpectedError {
    let name = name.to_string_lossy().into_owned();
    let mut candidates = builtin_names();
    candidates.extend(everything(Ok(scope)).all().into_keys());
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
    fn help_reads_options_before_the_command() {
        let args = |words: &[&str]| words.iter().map(OsString::from).collect::<Vec<_>>();
        let top = help_top(&args(&[
            "hookrig",
            "--agent",
            "coder",
            "--ledger=/tmp/l.db",
            "--help",
        ]));
        assert_eq!(top.agent.as_deref(), Some(OsStr::new("coder")));
        assert_eq!(top.global.ledger.as_deref(), Some(Path::new("/tmp/l.db")));
        let top = help_top(&args(&["hookrig", "help", "--agent", "x"]));
        assert_ne!(top.agent.as_deref(), Some(OsStr::new("x")));
    }

    #[test]
    fn signal_deaths_are_128_plus_the_signal() {
        let exit = |code, signal| Exit { code, signal };
        assert_eq!(exit_code(exit(Some(3), None)), 3);
        assert_eq!(exit_code(exit(None, Some(9))), 137);
    }
}
