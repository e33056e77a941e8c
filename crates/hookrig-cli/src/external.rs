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

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::{CommandFactory as _, FromArgMatches as _, Parser as _};
use hookrig_exec::{Command, EnvPolicy, Program};
use hookrig_runtime::Scope;
use hookrig_runtime::programs::{self, Lookup, Programs};

use crate::cli::{Cli, GlobalArgs, VERSION_LINE};
use crate::errors::ExpectedError;
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
    if Cli::asks_version_alone(&args) {
        // As clap does: a stdout closed early is no error of ours.
        let _ = std::io::Write::write_all(&mut std::io::stdout(), VERSION_LINE.as_bytes());
        std::process::exit(0);
    }
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
            let section = programs::help_section(&search.all(), &builtin_names(), prefixes());
            let command = Cli::command().after_help(section);
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
    Ok(command.run_inherited()?.shell_code())
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
    programs::in_path(scope, &[HENCE_PREFIX], name)
}

/// The error for a command nobody has, with the names close to it.
fn unknown(scope: &Scope, name: &OsStr) -> ExpectedError {
    let name = name.to_string_lossy().into_owned();
    let mut candidates = builtin_names();
    candidates.extend(everything(Ok(scope)).all().into_keys());
    ExpectedError::UnknownCommand {
        suggestions: programs::closest(&name, candidates),
        name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
