//! Command-line arguments.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, FromArgMatches as _, Parser, Subcommand};

use crate::host::HostDialect;
use crate::scope::Top;

/// One hook and plugin runtime for AI agents.
#[derive(Debug, Parser)]
#[command(name = "hookrig", version, about, long_about = None, allow_external_subcommands = true)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) top: Top,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// What `hookrig --version` prints, as the full parser prints it (a test compares them).
pub(crate) const VERSION_LINE: &str = concat!("hookrig ", env!("CARGO_PKG_VERSION"), "\n");

impl Cli {
    /// Whether the command line is `hookrig --version` or `hookrig -V` and nothing else.
    /// Hosts, installers and `hookrig doctor`-style probes run it to see that hookrig is
    /// there; answering it from [`VERSION_LINE`] spares them the building of every
    /// command's parser, which is most of what the full parser's answer costs.
    pub(crate) fn asks_version_alone(args: &[OsString]) -> bool {
        matches!(args, [_, flag] if flag == "--version" || flag == "-V")
    }

    /// Parses `hookrig [TOP OPTIONS] emit ...` with a parser that knows `emit` alone: building every
    /// command's parser costs more than the rest of parsing, and hosts run `emit` on
    /// every event. `None` for any other command line, and for one this parser refuses
    /// or answers with help: the full parser then parses it, so that the errors and the
    /// help are the full parser's. What it accepts it parses with the same argument
    /// definitions as the full parser, into the same values (a test compares them).
    pub(crate) fn parse_emit(args: &[OsString]) -> Option<Cli> {
        let top = Top::augment_args(clap::Command::new("hookrig"));
        if !names_emit(&top, args) {
            return None;
        }
        let parser = top.subcommand(EmitArgs::augment_args(clap::Command::new("emit")));
        let mut matches = parser.try_get_matches_from(args).ok()?;
        let top = Top::from_arg_matches_mut(&mut matches).ok()?;
        let (_, mut emit) = matches.remove_subcommand()?;
        let emit = EmitArgs::from_arg_matches_mut(&mut emit).ok()?;
        Some(Cli {
            top,
            command: Command::Emit(emit),
        })
    }
}

/// Whether the first word of `args` after the top-level options (`top`'s, such as
/// `--ledger PATH`, which benchmarks and wrappers put first) is `emit`. Anything it does
/// not know, such as a short option, says no: the full parser then reads the line.
fn names_emit(top: &clap::Command, args: &[OsString]) -> bool {
    let mut words = args.iter().skip(1);
    while let Some(word) = words.next() {
        let Some(word) = word.to_str() else {
            return false;
        };
        if word == "emit" {
            return true;
        }
        let Some(long) = word.strip_prefix("--") else {
            return false;
        };
        if long.contains('=') {
            continue;
        }
        match top.get_arguments().find(|arg| arg.get_long() == Some(long)) {
            Some(arg) if arg.get_action().takes_values() => {
                words.next();
            }
            Some(_) => {}
            None => return false,
        }
    }
    false
}

/// Options every subcommand accepts.
#[derive(Debug, Args)]
pub(crate) struct GlobalArgs {
    /// Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`.
    #[arg(long, global = true)]
    pub(crate) debug: bool,
    /// Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to
    /// stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`.
    #[arg(long, global = true)]
    pub(crate) debug_hooks: bool,
    /// The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else
    /// `$XDG_STATE_HOME/hookrig/ledger.db`).
    #[arg(long, global = true, value_name = "PATH")]
    pub(crate) ledger: Option<PathBuf>,
    /// Do not record anything in the ledger.
    #[arg(long, global = true, conflicts_with = "ledger")]
    pub(crate) no_ledger: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Emit an event: payload JSON on stdin, one Outcome JSON object on stdout.
    ///
    /// Exit 0: proceed (allow, modify, ask); 2: denied; 1: hookrig failed.
    Emit(EmitArgs),
    /// Print the event catalog.
    Events {
        #[command(flatten)]
        json: JsonArg,
    },
    /// List recent emits, newest first.
    Runs(RunsArgs),
    /// List the configured hooks (every dialect, global and project).
    List {
        /// Only hooks that listen to this event (any accepted spelling).
        #[arg(long)]
        event: Option<String>,
        #[command(flatten)]
        cwd: CwdArg,
        #[command(flatten)]
        json: JsonArg,
        #[command(flatten)]
        agent: AgentArg,
    },
    /// Show everything about the hooks with this name.
    Show {
        /// The hook's name.
        name: String,
        #[command(flatten)]
        cwd: CwdArg,
        #[command(flatten)]
        agent: AgentArg,
    },
    /// Say which hooks an event would run, in what order, and why the others would not.
    Explain {
        /// The event (any accepted spelling).
        event: String,
        /// The tool name matchers would test.
        #[arg(long, value_name = "NAME")]
        tool: Option<String>,
        #[command(flatten)]
        cwd: CwdArg,
        /// An extra x-code plugin directory (repeatable).
        #[arg(long, value_name = "DIR")]
        plugin_dir: Vec<PathBuf>,
        #[command(flatten)]
        agent: AgentArg,
    },
    /// Check every config source; exit 1 on an error (and with --strict, on a warning).
    Validate {
        /// Fail on warnings too.
        #[arg(long)]
        strict: bool,
        #[command(flatten)]
        cwd: CwdArg,
        #[command(flatten)]
        agent: AgentArg,
    },
    /// Print the JSON Schema of hooks.toml.
    Schema,
    /// Print the completion script of SHELL (`hookrig completions bash > ...`).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Trust the project hooks and automation files of DIR as they are now, so that they run.
    Trust {
        /// The project directory (default: the current one).
        dir: Option<PathBuf>,
        /// List the trusted hooks instead.
        #[arg(long, conflicts_with = "revoke")]
        list: bool,
        /// Forget the trust given to the hooks of DIR (with --any-project: stop trusting
        /// every project).
        #[arg(long)]
        revoke: bool,
        /// Trust every project's hooks on this machine, as they are and whatever they
        /// become: for a container or CI machine whose checkouts are all the thing
        /// being tested, never where your credentials are.
        #[arg(long, conflicts_with_all = ["list", "dir"])]
        any_project: bool,
    },
    /// Make hookrig the one hook of an agent host; the host's own hooks then run
    /// through hookrig.
    Install(crate::commands::install::InstallArgs),
    /// Take hookrig out of an agent host's settings and put the host's hooks back.
    Uninstall(crate::commands::install::UninstallArgs),
    /// For each agent host on this machine: is hookrig installed, which of its hooks
    /// will run, which wait for `hookrig trust`, what hookrig cannot honour.
    Doctor {
        #[command(flatten)]
        json: JsonArg,
    },
    /// Register plugin packages and enable them per agent.
    Plugins(crate::commands::plugins::PluginsArgs),
    /// The automations of the automation engine (`hookrig serve`) and their runs.
    Auto(crate::commands::auto::AutoArgs),
    /// Run the automation engine: triggers, the file watcher, and the socket through
    /// which `hookrig emit` and `hookrig fire` reach it. Stops on SIGINT or SIGTERM.
    Serve(crate::commands::serve::ServeArgs),
    /// The store: its engine, schema and rows (`status`), and the copy of the SQLite
    /// store into PostgreSQL (`migrate --to`).
    Store(crate::commands::store::StoreArgs),
    /// Open the web dashboard of `hookrig serve --ui` in a browser (starting a serve with
    /// the dashboard on a free loopback port when none runs); prints the link.
    Ui(crate::commands::ui::UiArgs),
    /// The resident engine that answers emits: run, start, status, stop.
    Engine(crate::commands::engine::EngineArgs),
    /// Run an automation now, wait for it and print the run record (exit 1 when it failed).
    ///
    /// Through the running `hookrig serve` when there is one, else in this process: on
    /// the shared store (`--store`, `HOOKRIG_STORE_URL`, else your own `[store] url`)
    /// as a node of it, refused while a run of the automation is in flight on any node.
    Fire {
        /// The automation id.
        id: String,
        #[command(flatten)]
        json: JsonArg,
        #[command(flatten)]
        store: StoreArg,
    },
    /// Run the hook tests of `.hookrig/tests/` and `$XDG_CONFIG_HOME/hookrig/tests/` in a
    /// sandbox; exit 1 when one fails. `--new EVENT` writes a case instead.
    Test(crate::commands::test::TestArgs),
    /// Emit the ledger's recorded events again against today's config, in a sandbox, and
    /// say which decisions would change and which hook changed them.
    Replay(crate::commands::test::ReplayArgs),
    /// Show every hook considered for one emit, and why it did or did not run.
    Why {
        /// The run id (or a unique prefix of at least 4 characters).
        run_id: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Show the merged config.toml and where each value came from.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// The agent providers of config.toml.
    Providers {
        #[command(subcommand)]
        command: ProvidersCommand,
    },
    /// Start a provider CLI on a task in its own git worktree; list, watch, stop, clean.
    Agent(crate::commands::agent::AgentArgs),
    /// Plans: the board, what to do next, and checking a plan.
    Plan(crate::commands::plan::PlanArgs),
    /// Task actions: claim, unclaim, complete, block, unblock, assert.
    Task(crate::commands::task::TaskArgs),
    /// `hookrig NAME ARGS...` runs the external command `hookrig-NAME ARGS...`.
    #[command(external_subcommand)]
    External(Vec<OsString>),
}

/// `--cwd DIR`: where a command acts.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct CwdArg {
    /// The working directory whose project is used (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub(crate) cwd: Option<PathBuf>,
}

/// `--store URL`: the PostgreSQL store of an operator's own command (`serve`, `store`,
/// `fire`, `auto`, `plugins`).
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct StoreArg {
    /// The PostgreSQL store several nodes share (`postgres://user@host/db`); default
    /// `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your
    /// own config.toml), else this machine's SQLite files.
    #[arg(long, value_name = "URL")]
    pub(crate) store: Option<String>,
}

/// `--agent NAME`: for whom a command acts.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct AgentArg {
    /// The agent acting (default: `hookrig --agent`, else `$HOOKRIG_AGENT`, else
    /// `$HENCE_AGENT`); only the plugin packages enabled for it, or for every agent, are
    /// used.
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
}

/// `--plan FILE` (`-f FILE`): the plan a command works on.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct PlanArg {
    /// The plan file (default: `hookrig --plan`, else `$HOOKRIG_PLAN`, else
    /// `$HENCE_PLAN`).
    #[arg(long, short = 'f', value_name = "FILE")]
    pub(crate) plan: Option<PathBuf>,
}

/// `--plan`, `--agent` and `--json`: the flags of a command an agent runs on a plan.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct PlanAgentArgs {
    #[command(flatten)]
    pub(crate) plan: PlanArg,
    #[command(flatten)]
    pub(crate) agent: AgentArg,
    #[command(flatten)]
    pub(crate) json: JsonArg,
}

/// `--json`: print JSON instead of text.
#[derive(Debug, Clone, Copy, Default, Args)]
pub(crate) struct JsonArg {
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct EmitArgs {
    /// The event: a canonical name (`tool.before`), an alias (`PreToolUse`) or a custom
    /// name. May be left out when the --dialect input names the event.
    pub(crate) event: Option<String>,
    /// The host's input and output format.
    #[arg(long, value_enum, default_value_t = HostDialect::Native)]
    pub(crate) dialect: HostDialect,
    /// An extra x-code plugin directory (repeatable).
    #[arg(long, value_name = "DIR")]
    pub(crate) plugin_dir: Vec<PathBuf>,
    /// The directory the event happened in (default: the payload's `session.cwd`, else
    /// the current directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) cwd: Option<PathBuf>,
    /// The agent session id (default: the payload's `session.id`).
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
    /// The agent emitting: plugin packages run only when enabled for it (or for all
    /// agents). Default: `$HOOKRIG_AGENT`, else `$HENCE_AGENT`, else the payload's
    /// `session.agent`; without any, only packages enabled for all agents run.
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// The tool name, when the payload does not name one.
    #[arg(long, value_name = "NAME")]
    pub(crate) tool: Option<String>,
    /// Load every hook and plugin but run no hook: the event goes on as if every hook
    /// allowed, and the Outcome says hooks were suppressed. Also `HOOKRIG_NO_HOOKS=1`.
    #[arg(long, env = "HOOKRIG_NO_HOOKS", value_parser = clap::builder::FalseyValueParser::new())]
    pub(crate) no_hooks: bool,
    /// Load nothing from plugins (x-code plugins, --plugin-dir, registered packages);
    /// the other hooks run.
    #[arg(long)]
    pub(crate) no_plugins: bool,
    /// The largest payload read from stdin: bytes, or a number with `KiB`, `MiB` or
    /// `GiB`. A larger payload is an error.
    #[arg(
        long,
        env = "HOOKRIG_MAX_PAYLOAD",
        value_name = "SIZE",
        default_value = "16MiB",
        value_parser = parse_size
    )]
    pub(crate) max_payload: u64,
}

/// ` (16 MiB)` for a whole number of MiB or KiB, else nothing: for messages.
pub(crate) fn size_in_units(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!(" ({} MiB)", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!(" ({} KiB)", b >> 10),
        _ => String::new(),
    }
}

/// A size in bytes: `1048576`, `512KiB`, `16MiB`, `1GiB` (`K`, `M`, `G`, `KB`, `MB` and
/// `GB` are read as the same binary units).
pub(crate) fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        other => {
            return Err(format!(
                "unknown unit `{other}`: give bytes, or a number with KiB, MiB or GiB"
            ));
        }
    };
    let number: u64 = number.parse().map_err(|_| {
        format!("`{text}` is not a size: give bytes, or a number with KiB, MiB or GiB")
    })?;
    number
        .checked_mul(1 << shift)
        .filter(|size| *size > 0)
        .ok_or_else(|| format!("`{text}` is not a size greater than zero that fits in 64 bits"))
}

#[derive(Debug, Args)]
pub(crate) struct RunsArgs {
    /// How many emits to show.
    #[arg(long, default_value_t = 20)]
    pub(crate) limit: usize,
    /// Only this event (any accepted spelling).
    #[arg(long)]
    pub(crate) event: Option<String>,
    /// Only the emits of this agent (the exact name recorded from `emit --agent`,
    /// `HOOKRIG_AGENT` or the payload's `session.agent`).
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// Only the emits where a shadow hook's answer disagreed with the decision.
    #[arg(long)]
    pub(crate) shadow: bool,
    #[command(flatten)]
    pub(crate) json: JsonArg,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ConfigCommand {
    /// Print the merged config.toml, each value with the file and line it came from.
    Show {
        #[command(flatten)]
        cwd: CwdArg,
        #[command(flatten)]
        json: JsonArg,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ProvidersCommand {
    /// List the providers (merged by id), whether each CLI is found, and its version.
    ///
    /// Exit 0 even when a CLI is missing: the listing is the answer.
    List {
        #[command(flatten)]
        cwd: CwdArg,
        #[command(flatten)]
        json: JsonArg,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn the_version_alone_is_answered_as_the_full_parser_answers_it() {
        use clap::CommandFactory as _;
        assert_eq!(VERSION_LINE, Cli::command().render_version());
        for line in ["hookrig --version", "hookrig -V"] {
            assert!(Cli::asks_version_alone(&words(line)), "{line}");
        }
        for line in [
            "hookrig",
            "hookrig --version --debug",
            "hookrig --debug --version",
            "hookrig emit --version",
            "hookrig --versions",
        ] {
            assert!(!Cli::asks_version_alone(&words(line)), "{line}");
        }
    }

    #[test]
    fn the_emit_parser_parses_what_the_full_parser_does_into_the_same_values() {
        let lines = [
            "hookrig emit tool.before",
            "hookrig emit",
            "hookrig emit PreToolUse --dialect claude --cwd /w --session s --agent a --tool bash",
            "hookrig emit tool.after --no-plugins --plugin-dir /x --plugin-dir /y --no-hooks",
            "hookrig emit --debug --ledger /l.db --max-payload 1KiB tool.before",
            "hookrig emit --no-ledger --debug-hooks --agent=b session.start",
            "hookrig --debug emit tool.before",
            "hookrig --ledger /l.db emit tool.before --tool bash",
            "hookrig --ledger=/l.db --agent a --plan /p.md emit",
            "hookrig --ledger emit emit tool.before",
        ];
        for line in lines {
            let fast = Cli::parse_emit(&words(line)).unwrap_or_else(|| panic!("{line}: refused"));
            let full = Cli::try_parse_from(words(line)).expect("the full parser parses it");
            assert_eq!(format!("{fast:?}"), format!("{full:?}"), "{line}");
        }
    }

    #[test]
    fn the_emit_parser_leaves_help_errors_and_other_commands_to_the_full_parser() {
        for line in [
            "hookrig emit --help",
            "hookrig emit --version",
            "hookrig emit --bogus",
            "hookrig emit a b",
            "hookrig emit --ledger /l.db --no-ledger",
            "hookrig emit --max-payload lots",
            "hookrig --bogus emit tool.before",
            "hookrig -V emit",
            "hookrig --ledger",
            "hookrig --ledger emit",
            "hookrig --ledger /l.db --no-ledger emit",
            "hookrig runs",
            "hookrig --ledger /l.db runs",
            "hookrig",
        ] {
            assert!(Cli::parse_emit(&words(line)).is_none(), "{line}");
        }
    }

    #[test]
    fn sizes_read_bytes_and_binary_units() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("16MiB"), Ok(16 << 20));
        assert_eq!(parse_size("512 KiB"), Ok(512 << 10));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("5TB").is_err());
        assert!(parse_size("99999999999999GiB").is_err());
        assert_eq!(size_in_units(16 << 20), " (16 MiB)");
        assert_eq!(size_in_units(1000), "");
    }
}
