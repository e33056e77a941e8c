//! Where and for whom a command acts, resolved once from its flags and the environment.
//!
//! Every command that runs hooks, reads the store or starts another program needs the
//! same few answers: the working directory, the agent, the plan, the store. They come
//! from a flag, else hookrig's variable, else Hence's (`HOOKRIG_AGENT`, then
//! `HENCE_AGENT`); this is the one place that reads them, and the one place that writes
//! them back for a child process, so that no two commands can disagree.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use hookrig_config::{Environment, normal_path};
use hookrig_core::HostEnv;
use hookrig_dialects::PackageRef;

use crate::errors::RuntimeError;

/// The agent variables, hookrig's first: a child gets both.
const AGENT_VARS: [&str; 2] = ["HOOKRIG_AGENT", "HENCE_AGENT"];
/// The variable naming a PostgreSQL store shared by several nodes, read only for the
/// operator's own commands ([`SharedStore::Operator`]).
const STORE_URL_VAR: &str = "HOOKRIG_STORE_URL";

/// The plan variables, hookrig's first: a child gets both.
const PLAN_VARS: [&str; 2] = ["HOOKRIG_PLAN", "HENCE_PLAN"];

/// What the command line said about the scope; anything left out is looked up in the
/// environment by [`Scope::resolve`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScopeArgs {
    /// `--cwd`: the directory to act in (must exist).
    pub cwd: Option<PathBuf>,
    /// `--agent`.
    pub agent: Option<String>,
    /// `--plan`.
    pub plan: Option<PathBuf>,
    /// `--ledger`: the store file. Without it, `HOOKRIG_LEDGER` when it is an absolute
    /// path, else the default under the state directory.
    pub store: Option<PathBuf>,
    /// `--no-ledger`: record nothing (the store is still read for plugin packages).
    pub no_ledger: bool,
    /// Whether the command may be pointed at a shared store by a flag or a variable.
    pub shared_store: SharedStore,
}

/// Who may name the PostgreSQL store a command uses (docs/security.md, "Where the store
/// is").
///
/// The store holds the ledger and the plugin registry, whose packages run as the user's
/// own. A repository the user cloned can set the environment of the hooks a host runs
/// (Claude Code applies a project's `.claude/settings.json` `env`, Gemini CLI loads the
/// project's `.env`), and so of the `hookrig emit` a host starts: a variable must not
/// choose the store of such a command. Only the operator's own commands, which no host
/// starts, read `HOOKRIG_STORE_URL`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SharedStore {
    /// A command a host or its hooks may start (`emit`, `runs`, `task`...): only the
    /// `[store] url` of the user's own `config.toml` names the store.
    #[default]
    UserConfig,
    /// The operator's own commands (`hookrig serve`, `hookrig store ...`): this URL
    /// (`--store`), else `HOOKRIG_STORE_URL`, else the user's `[store] url`.
    Operator(Option<String>),
}

/// A plan file, as it was named and as hooks and trust lookups see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFile {
    /// The path as the command line or the environment gave it: what messages and
    /// boards show, so that they name the file the way the user did.
    pub named: PathBuf,
    /// The same file, absolute and without `.` or `..` components: what a program
    /// started for the plan is given, and where its project is looked up.
    pub path: PathBuf,
}

impl PlanFile {
    /// The plan file `named`.
    pub fn new(named: PathBuf) -> PlanFile {
        let path = normal_path(&named);
        PlanFile { named, path }
    }
}

/// Where and for whom a command acts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// The directories config discovery uses, with the working directory.
    pub env: Environment,
    /// The agent acting: `--agent`, else `HOOKRIG_AGENT`, else `HENCE_AGENT`; empty
    /// values count as not given.
    pub agent: Option<String>,
    /// The plan file: `--plan`, else `HOOKRIG_PLAN`, else `HENCE_PLAN`.
    pub plan: Option<PlanFile>,
    /// The store file: the ledger and the plugin package registry.
    pub store: PathBuf,
    /// The PostgreSQL database the operator named for this command (`--store`, else
    /// `HOOKRIG_STORE_URL`; only under [`SharedStore::Operator`]), whose automation runs
    /// `hookrig serve` shares with the other nodes on it (docs/postgres.md). The user's
    /// `[store] url` applies after it: [`Scope::shared_store`].
    pub store_url: Option<String>,
    /// Whether emits are recorded in the store.
    pub record: bool,
    /// The environment of the host a resident engine acts for: hooks start from it
    /// instead of this process's, and the variables above were read from it. `None`
    /// when hookrig acts for itself.
    pub host_env: Option<HostEnv>,
    /// The ledger writers of the resident engine acting, through which its emits record
    /// in batches (the engine sets them). `None` when this process writes its own rows,
    /// as a one-shot `hookrig emit` does: a writer thread would only cost it time. The
    /// scope carries them, as it carries `host_env`, because an emit decides everything
    /// about its ledger from its scope (the store file, `--no-ledger`): the emit API is
    /// then the same for an engine and for a one-shot emit.
    pub ledger_writers: Option<crate::ledger::Writers>,
    /// The shared plugin registry whose packages that verify an emit of this scope runs
    /// after the store file's: set only by a serve node on the store its operator named
    /// (docs/postgres.md, "Plugins"), never from a project or a host's environment.
    pub shared_registry: Option<crate::SharedRegistry>,
}

impl Scope {
    /// Resolves `args` against the process environment.
    pub fn resolve(args: ScopeArgs) -> Result<Scope, RuntimeError> {
        Self::resolve_with(args, |name| std::env::var_os(name))
    }

    /// Resolves `args` against the variables `var` returns (tests give their own).
    pub fn resolve_with(
        args: ScopeArgs,
        var: impl Fn(&str) -> Option<OsString>,
    ) -> Result<Scope, RuntimeError> {
        let first = |names: [&str; 2]| {
            names
                .into_iter()
                .find_map(|name| var(name).filter(|value| !value.is_empty()))
        };
        let cwd = working_dir(args.cwd.as_deref())?;
        let env = Environment::from_vars(cwd, &var)?;
        let agent = args
            .agent
            .filter(|agent| !agent.is_empty())
            .or_else(|| first(AGENT_VARS).map(|agent| agent.to_string_lossy().into_owned()));
        let plan = args
            .plan
            .filter(|plan| !plan.as_os_str().is_empty())
            .or_else(|| first(PLAN_VARS).map(PathBuf::from))
            .map(PlanFile::new);
        // The ledger holds the plugin packages the user registered, which run as the
        // user's own: a relative HOOKRIG_LEDGER (a repository can set the host's
        // variables) would name a ledger of the project.
        let store = args
            .store
            .or_else(|| hookrig_config::absolute_var(var("HOOKRIG_LEDGER")))
            .unwrap_or_else(|| hookrig_store::default_ledger_path(&env.state_home));
        let store_url = match args.shared_store {
            SharedStore::UserConfig => None,
            SharedStore::Operator(flag) => flag.filter(|url| !url.is_empty()).or_else(|| {
                var(STORE_URL_VAR)
                    .filter(|url| !url.is_empty())
                    .map(|url| url.to_string_lossy().into_owned())
            }),
        };
        Ok(Scope {
            env,
            agent,
            plan,
            store,
            store_url,
            record: !args.no_ledger,
            host_env: None,
            ledger_writers: None,
            shared_registry: None,
        })
    }

    /// Resolves `args` for a host whose environment is `host`, as a resident engine does
    /// for the `hookrig emit` the host started: every variable is read from `host`, and
    /// hooks start from it. `args.cwd` must name the host's working directory.
    pub fn for_host(args: ScopeArgs, host: HostEnv) -> Result<Scope, RuntimeError> {
        let mut scope = Self::resolve_with(args, |name| host.get(name).map(ToOwned::to_owned))?;
        scope.host_env = Some(host);
        Ok(scope)
    }

    /// The same scope acting in `cwd` (an emit acts where its event happened).
    #[must_use]
    pub fn at(&self, cwd: &Path) -> Scope {
        let mut scope = self.clone();
        scope.env.cwd = normal_path(cwd);
        scope
    }

    /// The PostgreSQL store of this command: the operator's ([`Scope::store_url`]), else
    /// the `[store] url` of the user's own `config.toml` (`config`; a project's is never
    /// there). `None` keeps the SQLite files.
    pub fn shared_store(&self, config: &hookrig_config::ConfigToml) -> Option<String> {
        self.store_url
            .clone()
            .or_else(|| config.store_url.as_ref().map(|url| url.value.clone()))
    }

    /// The working directory.
    pub fn cwd(&self) -> &Path {
        &self.env.cwd
    }

    /// The ledger to record into, or `None` with `--no-ledger`.
    pub fn ledger(&self) -> Option<&Path> {
        self.record.then_some(self.store.as_path())
    }

    /// The plugin packages enabled for the scope's agent (only those enabled for every
    /// agent when there is none), as an emit of this scope would load them.
    pub fn packages(&self) -> Result<Vec<PackageRef>, RuntimeError> {
        let mut skipped = Vec::new();
        let (packages, _) =
            crate::ledger::enabled_packages(self, self.agent.as_deref(), &mut skipped)?;
        for line in skipped {
            tracing::warn!("{line}");
        }
        Ok(packages)
    }

    /// What the commands that show the scope's hooks (`list`, `show`, `explain`,
    /// `validate`) load: what an emit of this scope would, plus `plugin_dirs`.
    pub fn load_options(
        &self,
        plugin_dirs: &[PathBuf],
    ) -> Result<hookrig_dialects::LoadOptions, RuntimeError> {
        Ok(hookrig_dialects::LoadOptions {
            plugin_dirs: plugin_dirs.to_vec(),
            packages: self.packages()?,
            ..hookrig_dialects::LoadOptions::default()
        })
    }

    /// The variables a program hookrig starts on the scope's behalf is given: the agent
    /// and the plan under hookrig's and Hence's names.
    pub fn child_env(&self) -> Vec<(&'static str, OsString)> {
        let mut vars = Vec::new();
        if let Some(agent) = &self.agent {
            vars.extend(AGENT_VARS.map(|name| (name, OsString::from(agent))));
        }
        if let Some(plan) = &self.plan {
            vars.extend(PLAN_VARS.map(|name| (name, plan.path.as_os_str().to_owned())));
        }
        vars
    }
}

/// The working directory: `dir` without `.` and `..` (it must exist), else the current
/// one (`/` when that is gone).
pub fn working_dir(dir: Option<&Path>) -> Result<PathBuf, RuntimeError> {
    match dir {
        Some(dir) => {
            let dir = normal_path(dir);
            if dir.is_dir() {
                Ok(dir)
            } else {
                Err(RuntimeError::NoSuchCwd(dir))
            }
        }
        None => Ok(std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn resolve(args: ScopeArgs, vars: &[(&str, &str)]) -> Scope {
        let vars: HashMap<String, OsString> = [("HOME", "/home/u")]
            .iter()
            .chain(vars)
            .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
            .collect();
        Scope::resolve_with(args, |name| vars.get(name).cloned()).expect("resolves")
    }

    fn plan(scope: &Scope) -> Option<&Path> {
        scope.plan.as_ref().map(|plan| plan.path.as_path())
    }

    #[test]
    fn a_plan_keeps_the_name_it_was_given() {
        let args = ScopeArgs {
            plan: Some(PathBuf::from("/p/sub/../plan.spl")),
            ..ScopeArgs::default()
        };
        let scope = resolve(args, &[]);
        let plan = scope.plan.expect("a plan");
        assert_eq!(plan.named, Path::new("/p/sub/../plan.spl"));
        assert_eq!(plan.path, Path::new("/p/plan.spl"));
    }

    #[test]
    fn the_flag_wins_then_hookrigs_variable_then_hences() {
        // guards: emit, list, show, explain and validate ignored HENCE_AGENT while the
        // task, plan and agent commands honoured it
        let hence = [("HENCE_AGENT", "h"), ("HENCE_PLAN", "/p/hence.spl")];
        let scope = resolve(ScopeArgs::default(), &hence);
        assert_eq!(scope.agent.as_deref(), Some("h"));
        assert_eq!(plan(&scope), Some(Path::new("/p/hence.spl")));

        let both = [
            ("HENCE_AGENT", "h"),
            ("HOOKRIG_AGENT", "k"),
            ("HOOKRIG_PLAN", "/p/sub/../hookrig.spl"),
            ("HENCE_PLAN", "/p/hence.spl"),
        ];
        let scope = resolve(ScopeArgs::default(), &both);
        assert_eq!(scope.agent.as_deref(), Some("k"));
        assert_eq!(plan(&scope), Some(Path::new("/p/hookrig.spl")));

        let flags = ScopeArgs {
            agent: Some("flag".to_owned()),
            plan: Some(PathBuf::from("/q/plan.spl")),
            ..ScopeArgs::default()
        };
        let scope = resolve(flags, &both);
        assert_eq!(scope.agent.as_deref(), Some("flag"));
        assert_eq!(plan(&scope), Some(Path::new("/q/plan.spl")));
    }

    #[test]
    fn empty_values_count_as_not_given() {
        let vars = [("HOOKRIG_AGENT", ""), ("HENCE_AGENT", "h")];
        let args = ScopeArgs {
            agent: Some(String::new()),
            ..ScopeArgs::default()
        };
        assert_eq!(resolve(args, &vars).agent.as_deref(), Some("h"));
        assert_eq!(resolve(ScopeArgs::default(), &[]).agent, None);
    }

    #[test]
    fn a_child_gets_both_names_of_each_value() {
        let scope = resolve(
            ScopeArgs {
                agent: Some("coder".to_owned()),
                plan: Some(PathBuf::from("/p/plan.spl")),
                ..ScopeArgs::default()
            },
            &[],
        );
        assert_eq!(
            scope.child_env(),
            vec![
                ("HOOKRIG_AGENT", OsString::from("coder")),
                ("HENCE_AGENT", OsString::from("coder")),
                ("HOOKRIG_PLAN", OsString::from("/p/plan.spl")),
                ("HENCE_PLAN", OsString::from("/p/plan.spl")),
            ]
        );
    }

    fn operator(flag: Option<&str>) -> ScopeArgs {
        ScopeArgs {
            shared_store: SharedStore::Operator(flag.map(str::to_owned)),
            ..ScopeArgs::default()
        }
    }

    #[test]
    fn an_operators_command_takes_the_store_from_its_flag_then_its_variable() {
        let url = "postgres://app@db/hookrig";
        let scope = resolve(operator(None), &[("HOOKRIG_STORE_URL", url)]);
        assert_eq!(scope.store_url.as_deref(), Some(url));
        let scope = resolve(operator(None), &[("HOOKRIG_STORE_URL", "")]);
        assert_eq!(scope.store_url, None);
        let flag = "postgres://ops@other/hookrig";
        let scope = resolve(operator(Some(flag)), &[("HOOKRIG_STORE_URL", url)]);
        assert_eq!(scope.store_url.as_deref(), Some(flag));
    }

    // guards: a repository's `.claude/settings.json` `env` pointing `hookrig emit` at
    // its own database
    #[test]
    fn a_command_a_host_starts_never_takes_the_store_from_the_environment() {
        let url = "postgres://evil@attacker.example/loot";
        let scope = resolve(ScopeArgs::default(), &[("HOOKRIG_STORE_URL", url)]);
        assert_eq!(scope.store_url, None);
        let host = HostEnv::new(
            [("HOME", "/home/u"), ("HOOKRIG_STORE_URL", url)]
                .map(|(name, value)| (OsString::from(name), OsString::from(value))),
        );
        let scope = Scope::for_host(ScopeArgs::default(), host).expect("resolves");
        assert_eq!(scope.store_url, None);
        assert_eq!(
            scope.shared_store(&hookrig_config::ConfigToml::default()),
            None
        );
    }

    #[test]
    fn the_users_config_names_the_store_when_the_operator_did_not() {
        let users = hookrig_config::ConfigToml {
            store_url: Some(hookrig_config::Sourced {
                value: "postgres://me@db/hookrig".to_owned(),
                source: PathBuf::from("/home/me/.config/hookrig/config.toml"),
                line: 2,
            }),
            ..hookrig_config::ConfigToml::default()
        };
        let scope = resolve(ScopeArgs::default(), &[]);
        assert_eq!(
            scope.shared_store(&users).as_deref(),
            Some("postgres://me@db/hookrig")
        );
        let scope = resolve(operator(Some("postgres://ops@db/x")), &[]);
        assert_eq!(
            scope.shared_store(&users).as_deref(),
            Some("postgres://ops@db/x")
        );
    }

    #[test]
    fn no_ledger_keeps_the_store_for_reading() {
        let args = ScopeArgs {
            store: Some(PathBuf::from("/s/ledger.db")),
            no_ledger: true,
            ..ScopeArgs::default()
        };
        let scope = resolve(args, &[]);
        assert_eq!(scope.store, Path::new("/s/ledger.db"));
        assert_eq!(scope.ledger(), None);
    }

    #[test]
    fn a_cwd_that_is_not_a_directory_is_refused() {
        let args = ScopeArgs {
            cwd: Some(PathBuf::from("/no/such/dir")),
            ..ScopeArgs::default()
        };
        let err = Scope::resolve_with(args, |_| None).expect_err("refused");
        assert_eq!(err.to_string(), "--cwd /no/such/dir: no such directory");
    }
}
