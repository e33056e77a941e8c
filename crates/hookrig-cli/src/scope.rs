//! The runtime's [`Scope`] from this command line: the global `--ledger` and
//! `--no-ledger`, `hookrig --agent` and `hookrig --plan`, and the command's own `--cwd`,
//! `--agent` and `--plan`. Every command resolves its scope here, once; what the flags
//! leave out comes from the environment (`Scope::resolve`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use hookrig_runtime::{Scope, ScopeArgs, SharedStore};

use crate::cli::{AgentArg, CwdArg, GlobalArgs, PlanArg, StoreArg};
use crate::errors::ExpectedError;

/// The options given before the command: the ones every command's scope starts from.
#[derive(Debug, clap::Args)]
pub(crate) struct Top {
    #[command(flatten)]
    pub(crate) global: GlobalArgs,
    /// The agent of every command that names none, and of external commands
    /// (`HOOKRIG_AGENT`, `HENCE_AGENT`); default `$HOOKRIG_AGENT`, else `$HENCE_AGENT`.
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<OsString>,
    /// The plan file of every command that names none, and of external commands
    /// (`HOOKRIG_PLAN`, `HENCE_PLAN`); default `$HOOKRIG_PLAN`, else `$HENCE_PLAN`.
    #[arg(long, value_name = "PATH")]
    pub(crate) plan: Option<PathBuf>,
}

/// The scope flags a command was given.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Flags<'a> {
    cwd: Option<&'a Path>,
    agent: Option<&'a str>,
    plan: Option<&'a Path>,
    /// `Some` for the operator's own commands, which may be pointed at a shared store.
    operator: Option<&'a StoreArg>,
}

impl<'a> Flags<'a> {
    /// With the command's `--cwd`.
    pub(crate) fn cwd(self, arg: &'a CwdArg) -> Self {
        self.dir(arg.cwd.as_deref())
    }

    /// With a directory the command takes another way (`hookrig trust DIR`).
    pub(crate) fn dir(mut self, dir: Option<&'a Path>) -> Self {
        self.cwd = dir;
        self
    }

    /// With the command's `--agent`.
    pub(crate) fn agent(self, arg: &'a AgentArg) -> Self {
        self.agent_named(arg.agent.as_deref())
    }

    /// With an agent the command takes another way (`emit --agent`, whose default
    /// differs).
    pub(crate) fn agent_named(mut self, agent: Option<&'a str>) -> Self {
        self.agent = agent;
        self
    }

    /// With the command's plan: its `PLAN` argument, else its `--plan`.
    pub(crate) fn plan(mut self, file: Option<&'a Path>, arg: &'a PlanArg) -> Self {
        self.plan = file.or(arg.plan.as_deref());
        self
    }

    /// As an operator's own command (`serve`, `store`), with its `--store`: the store may
    /// come from the flag or `HOOKRIG_STORE_URL` (`SharedStore::Operator`).
    pub(crate) fn operator(mut self, arg: &'a StoreArg) -> Self {
        self.operator = Some(arg);
        self
    }
}

impl Top {
    /// The scope of a command given `flags`: each flag, else the same option given
    /// before the command, else the environment. Empty values count as not given.
    pub(crate) fn scope(&self, flags: Flags<'_>) -> Result<Scope, ExpectedError> {
        let agent = flags
            .agent
            .filter(|agent| !agent.is_empty())
            .map(str::to_owned)
            .or_else(|| {
                self.agent
                    .as_ref()
                    .map(|agent| agent.to_string_lossy().into_owned())
            });
        let plan = flags
            .plan
            .filter(|plan| !plan.as_os_str().is_empty())
            .or(self.plan.as_deref())
            .map(Path::to_owned);
        Ok(Scope::resolve(ScopeArgs {
            cwd: flags.cwd.map(Path::to_owned),
            agent,
            plan,
            store: self.global.ledger.clone(),
            no_ledger: self.global.no_ledger,
            shared_store: match flags.operator {
                Some(arg) => SharedStore::Operator(arg.store.clone()),
                None => SharedStore::UserConfig,
            },
        })?)
    }
}
