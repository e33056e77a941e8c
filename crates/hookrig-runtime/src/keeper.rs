//! The async keeper's side of an emit: what a one-shot emit hands over (`KeeperJob`),
//! and the keeper's run of it ([`keep`]).
//!
//! A one-shot `hookrig emit` must exit once the host has its answer, and its async hooks
//! must still run to their own timeout. So the emit holds them unstarted, and once its
//! row is recorded it starts a keeper (hookrig itself, detached: see
//! `hookrig_exec::keeper`) and hands it a description of where they were loaded and for
//! which event. The keeper loads the same configuration (same directory, environment,
//! plugin directories and packages), takes the hooks the emit dispatched (each by its
//! name, its file and the digest of its definition), and runs them with the same
//! handlers, protocols and process guarantees an emit uses, then completes their ledger
//! rows through `ledger::complete_async` as each one ends.
//!
//! A hook the keeper cannot find as the emit had it (its file was edited in between) is
//! not run, and its row says why: the keeper runs nothing that the emit did not dispatch.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hookrig_core::{
    AsyncCompletion, Dialect, Event, EventContext, HookRecord, HookResult, Matcher, Payload,
    Registry, dispatch,
};
use hookrig_dialects::{HookDef, LoadOptions, PackageRef};
use hookrig_exec::{AsyncPool, ProcessGroups};
use serde::{Deserialize, Serialize};

use crate::engine::ASYNC_LIMIT;
use crate::ledger::{self, Sink};
use crate::{interrupt, pool, registry};
use hookrig_config::Environment;

/// What an emit hands its keeper.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct KeeperJob {
    /// The directories the emit's config was loaded with.
    pub(crate) dirs: Dirs,
    /// The store file the emit recorded its row in; `None` when it recorded nothing.
    pub(crate) ledger: Option<PathBuf>,
    /// The emit's `--plugin-dir`s.
    pub(crate) plugin_dirs: Vec<PathBuf>,
    /// The plugin packages the emit loaded: id and directory, in order.
    pub(crate) packages: Vec<(String, PathBuf)>,
    /// `--no-plugins`.
    pub(crate) no_plugins: bool,
    /// The host the emit answered (its add-ons' hooks were not loaded).
    pub(crate) host: hookrig_core::Dialect,
    /// The event's canonical name.
    pub(crate) event: String,
    /// The session id (may be empty).
    pub(crate) session_id: String,
    /// The payload as the host sent it (JSON text): the load checks the trust of the
    /// hooks that would run for it, as the emit's load did.
    pub(crate) payload_in: String,
    /// The payload as the sync hooks left it: what the async hooks are given.
    pub(crate) payload: serde_json::Map<String, serde_json::Value>,
    /// The emit's run id, whose rows the keeper completes.
    pub(crate) run_id: String,
    /// The hooks to run, in dispatch order.
    pub(crate) hooks: Vec<KeptHook>,
}

/// The directories of an emit's scope ([`Environment`]), as the keeper loads its config
/// with them: given, not read again from the keeper's environment, so that the keeper
/// loads exactly what the emit loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Dirs {
    home: PathBuf,
    config_home: PathBuf,
    state_home: PathBuf,
    data_home: PathBuf,
    xcode_home: PathBuf,
    /// The directory the event happened in: the config is loaded from there, and the
    /// hooks run there.
    cwd: PathBuf,
    trust_all: bool,
}

impl Dirs {
    /// The directories of `env`.
    pub(crate) fn of(env: &Environment) -> Dirs {
        Dirs {
            home: env.home.clone(),
            config_home: env.config_home.clone(),
            state_home: env.state_home.clone(),
            data_home: env.data_home.clone(),
            xcode_home: env.xcode_home.clone(),
            cwd: env.cwd.clone(),
            trust_all: env.trust_all,
        }
    }

    fn environment(&self) -> Environment {
        Environment {
            home: self.home.clone(),
            config_home: self.config_home.clone(),
            state_home: self.state_home.clone(),
            data_home: self.data_home.clone(),
            xcode_home: self.xcode_home.clone(),
            cwd: self.cwd.clone(),
            trust_all: self.trust_all,
        }
    }
}

/// One async hook an emit dispatched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KeptHook {
    /// Its name.
    pub(crate) name: String,
    /// The file that declared it.
    pub(crate) source: PathBuf,
    /// That file's dialect.
    pub(crate) dialect: Dialect,
    /// The digest of its definition when the emit loaded it
    /// (`hookrig_dialects::definition_hash`).
    pub(crate) definition: String,
}

impl KeptHook {
    /// The hook `def` describes.
    pub(crate) fn of(def: &HookDef) -> KeptHook {
        KeptHook {
            name: def.spec.name.clone(),
            source: def.spec.source.path.clone(),
            dialect: def.spec.source.dialect,
            definition: hookrig_dialects::definition_hash(def),
        }
    }

    fn is(&self, def: &HookDef) -> bool {
        def.spec.name == self.name
            && def.spec.source.path == self.source
            && hookrig_dialects::definition_hash(def) == self.definition
    }
}

/// Runs `job` (the bytes an emit wrote to the keeper's stdin) to its end; returns the
/// keeper's exit code. Never panics on what it is given: a job it cannot read ends it
/// with code 2, having run nothing.
pub fn keep(job: &[u8]) -> i32 {
    let Ok(job) = serde_json::from_slice::<KeeperJob>(job) else {
        return 2;
    };
    match run(&job) {
        Ok(()) => 0,
        Err(error) => {
            tracing::debug!("async keeper: {error}");
            1
        }
    }
}

fn run(job: &KeeperJob) -> Result<(), crate::RuntimeError> {
    let env = job.dirs.environment();
    let name = hookrig_dialects::events::parse(&job.event)?;
    let payload_in = serde_json::from_str(&job.payload_in)
        .map(Payload::from_map)
        .unwrap_or_default();
    let options = LoadOptions {
        plugin_dirs: job.plugin_dirs.clone(),
        trust_only_for: Some((name.clone(), payload_in)),
        packages: job
            .packages
            .iter()
            .map(|(id, path)| PackageRef {
                id: id.clone(),
                path: path.clone(),
            })
            .collect(),
        no_plugins: job.no_plugins,
        host: Some(job.host),
    };
    let config = crate::config_cache::load(&env, &options);
    let groups = ProcessGroups::new();
    let (chosen, missing) = choose(&job.hooks, &config, &groups);
    let ledger = job
        .ledger
        .as_deref()
        .and_then(|path| match pool::open(path) {
            Ok(connection) => Some(Sink::Direct(connection)),
            Err(error) => {
                tracing::debug!("{}", ledger::warning(&error));
                None
            }
        });
    let complete = |completions: Vec<AsyncCompletion>| {
        if let Some(ledger) = &ledger
            && !completions.is_empty()
        {
            ledger::complete_async(ledger, &job.run_id, completions);
        }
    };
    complete(missing.into_iter().map(changed).collect());
    let event = Event {
        context: Arc::new(EventContext {
            name,
            session_id: job.session_id.clone(),
            cwd: env.cwd.clone(),
            env: None,
        }),
        payload: Payload::from_map(job.payload.clone()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(crate::RuntimeError::AsyncRuntime)?;
    let pool = AsyncPool::default();
    runtime.block_on(async {
        // SIGTERM, SIGINT or SIGHUP kill the hooks' groups: they are then recorded as
        // interrupted below, before the keeper ends.
        let _interrupt = interrupt::watch(groups.clone());
        let dispatched = dispatch(&chosen, event, &pool).await;
        // Until each ends, its row names the process it runs in, so that a keeper killed
        // with SIGKILL (whose guardian kills its hooks) leaves rows saying where they
        // were.
        let pid = std::process::id();
        complete(
            dispatched
                .records
                .into_iter()
                .filter(|record| record.result == HookResult::Dispatched)
                .map(|mut record| {
                    record.reason = Some(format!("running in the async keeper, pid {pid}"));
                    AsyncCompletion {
                        record,
                        warnings: Vec::new(),
                    }
                })
                .collect(),
        );
        let deadline = tokio::time::Instant::now() + ASYNC_LIMIT;
        while pool.in_flight() > 0 {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                groups.kill_all();
                complete(pool.drain(Duration::from_millis(500)).await.completions);
                break;
            }
            complete(pool.next_done(left).await.completions);
        }
    });
    Ok(())
}

/// The hooks of `config` that `kept` names, in a registry of their own, and the kept
/// hooks it does not have as the emit had them. Each kept hook is the first hook of the
/// load with its name, file and definition that no earlier kept hook took.
fn choose<'k>(
    kept: &'k [KeptHook],
    config: &hookrig_dialects::LoadedConfig,
    groups: &ProcessGroups,
) -> (Registry, Vec<&'k KeptHook>) {
    // The keeper is a process of its own for one emit's async hooks: its workers, if
    // any, live and die with it, and serve no other agent.
    let loaded = registry::registry(config, groups, None, None);
    let mut taken = vec![false; config.hooks.len()];
    let mut chosen = Registry::new();
    let mut missing = Vec::new();
    for kept in kept {
        let found = config
            .hooks
            .iter()
            .enumerate()
            .position(|(at, def)| !taken[at] && kept.is(def));
        let Some(at) = found else {
            missing.push(kept);
            continue;
        };
        taken[at] = true;
        let mut hook = (*loaded.hooks()[at]).clone();
        // The emit matched it already (against the payload the host sent): it runs.
        hook.spec.matcher = Matcher::Any;
        hook.spec.matcher_field = None;
        chosen.register(hook);
    }
    (chosen, missing)
}

/// The record of a kept hook the keeper's load does not have as the emit had it.
fn changed(kept: &KeptHook) -> AsyncCompletion {
    AsyncCompletion {
        record: HookRecord {
            name: kept.name.clone(),
            source: kept.source.clone(),
            dialect: kept.dialect,
            result: HookResult::Error,
            skip: None,
            exit_code: None,
            duration: None,
            reason: Some(
                "not run: its definition changed between the emit and the start of the async keeper"
                    .to_owned(),
            ),
            stdout: None,
            stderr: None,
            truncated: false,
            is_async: true,
            answer: None,
            shadow: false,
        },
        warnings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use hookrig_test_support::TestEnv;

    use super::*;

    fn environment(env: &TestEnv) -> Environment {
        Environment {
            home: env.home(),
            config_home: env.config_home(),
            state_home: env.state_home(),
            data_home: env.data_home(),
            xcode_home: env.home().join(".x-code"),
            cwd: env.project(),
            trust_all: true,
        }
    }

    fn load(env: &TestEnv) -> hookrig_dialects::LoadedConfig {
        crate::config_cache::load(
            &environment(env),
            &LoadOptions {
                plugin_dirs: Vec::new(),
                trust_only_for: None,
                packages: Vec::new(),
                no_plugins: false,
                host: None,
            },
        )
    }

    #[test]
    fn the_keeper_runs_a_hook_only_as_the_emit_loaded_it() {
        let env = TestEnv::new("hookrig");
        env.write_project_config(
            "[[hooks]]\nname = \"a\"\nevents = [\"session.start\"]\nmatcher = \"nothing-matches\"\nmode = \"async\"\ncommand = \"true\"\n",
        );
        let emitted = KeptHook::of(&load(&env).hooks[0]);
        let groups = ProcessGroups::new();

        let (chosen, missing) = choose(std::slice::from_ref(&emitted), &load(&env), &groups);
        assert!(missing.is_empty());
        assert_eq!(chosen.hooks().len(), 1);
        // The emit matched it already: the keeper's copy matches every payload.
        assert!(matches!(chosen.hooks()[0].spec.matcher, Matcher::Any));

        // An edit between the emit and the keeper: the hook is not run, and says why.
        env.write_project_config(
            "[[hooks]]\nname = \"a\"\nevents = [\"session.start\"]\nmode = \"async\"\ncommand = \"rm -rf x\"\n",
        );
        let (chosen, missing) = choose(std::slice::from_ref(&emitted), &load(&env), &groups);
        assert!(chosen.hooks().is_empty());
        assert_eq!(missing, [&emitted]);
        let record = changed(missing[0]).record;
        assert_eq!(record.result, HookResult::Error);
        assert_eq!(
            record.reason.as_deref(),
            Some(
                "not run: its definition changed between the emit and the start of the async keeper"
            )
        );
    }

    #[test]
    fn a_job_that_cannot_be_read_runs_nothing() {
        assert_eq!(keep(b"not json"), 2);
    }
}
