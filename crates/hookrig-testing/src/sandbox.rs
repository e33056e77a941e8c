//! The sandbox a test run emits in: a temporary ledger that is deleted with the run,
//! and the project's hooks trusted for the run only.
//!
//! Each case is emitted exactly as `hookrig emit --dialect D` emits for a host (the
//! runtime's [`hookrig_runtime::answer`]), so that what a test sees is what the host
//! would: the host's input read in its dialect, the hooks run as real processes, the
//! host's answer written in its format. Only where it happens differs: the ledger is
//! the sandbox's (so plugin packages registered in the user's ledger are not loaded),
//! nothing is handed to a running `hookrig serve`, and the project's hooks are trusted
//! for the emit without the trust store being read or written (running the tests is
//! the user's approval).

use std::ffi::OsString;
use std::path::PathBuf;

use hookrig_core::{HookResult, HostEnv};
use hookrig_exec::{AsyncPool, ProcessGroups};
use hookrig_runtime::ledger::Writers;
use hookrig_runtime::{CallSite, EmitCall, Suppress};
use serde::Serialize;
use serde_json::Value;

use crate::case::Case;
use crate::errors::TestingError;

/// A temporary ledger shared by every case of a run, written through one batched writer
/// so that parallel cases do not wait on each other's locks.
#[derive(Debug)]
pub struct Sandbox {
    dir: tempfile::TempDir,
    writers: Writers,
    /// The environment cases start from (the runner's own).
    base_env: Vec<(OsString, OsString)>,
}

/// What came of one emit: the decision and the host's answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Actual {
    /// `allow`, `deny` or `ask`.
    pub decision: String,
    /// The hook that decided.
    pub decided_by: Option<String>,
    /// The reason of the deny or ask.
    pub reason: Option<String>,
    /// The final payload.
    pub payload: Value,
    /// The context lines.
    pub context: Vec<String>,
    /// The hooks that ran, in order.
    pub ran: Vec<String>,
    /// The hooks considered and skipped, in order.
    pub skipped: Vec<String>,
    /// The host answer's exit code.
    pub exit_code: u8,
    /// The host answer's stdout.
    pub stdout: String,
    /// What each hook that wrote on stderr wrote (name, text).
    pub hook_stderr: Vec<(String, String)>,
    /// The hooks not run because they may have side effects ([`Sandbox::replay`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<String>,
}

impl Drop for Sandbox {
    /// The writer thread commits what is queued and closes the ledger before its
    /// directory is deleted.
    fn drop(&mut self) {
        self.writers.stop();
    }
}

impl Sandbox {
    /// A sandbox in a new temporary directory, whose cases start from `base_env`.
    pub fn new(base_env: Vec<(OsString, OsString)>) -> Result<Sandbox, TestingError> {
        let dir = tempfile::Builder::new()
            .prefix("hookrig-test-")
            .tempdir()
            .map_err(TestingError::Sandbox)?;
        Ok(Sandbox {
            dir,
            writers: Writers::new(),
            base_env,
        })
    }

    /// The sandbox's ledger file.
    pub fn ledger(&self) -> PathBuf {
        self.dir.path().join("ledger.db")
    }

    /// Emits `case` and returns what came of it; `Err` with hookrig's message when the
    /// emit failed before any hook decided.
    pub fn emit(&self, case: &Case) -> Result<Actual, String> {
        self.emit_with(case, Suppress::default())
    }

    /// Emits `case` as [`Sandbox::emit`] does, running only the hooks that declared they
    /// have no side effects unless `side_effects` allows every hook; the others are
    /// listed in [`Actual::held`].
    pub fn replay(&self, case: &Case, side_effects: bool) -> Result<Actual, String> {
        self.emit_with(
            case,
            Suppress {
                side_effects: !side_effects,
                ..Suppress::default()
            },
        )
    }

    fn emit_with(&self, case: &Case, suppress: Suppress) -> Result<Actual, String> {
        let call = EmitCall {
            event: Some(case.event.clone()),
            host: case.dialect,
            cwd: Some(case.cwd.clone()),
            session: None,
            agent: case.agent.clone(),
            tool: None,
            plugin_dirs: Vec::new(),
            suppress,
            store: Some(self.ledger()),
            no_ledger: false,
            verbosity: hookrig_runtime::log::Verbosity::Quiet,
        };
        let mut env = self.base_env.clone();
        env.extend(
            case.env
                .iter()
                .map(|(name, value)| (OsString::from(name), OsString::from(value))),
        );
        let site = CallSite::Host {
            dir: case.cwd.clone(),
            env: HostEnv::new(env),
            groups: ProcessGroups::new(),
            ledger: self.writers.clone(),
            trust_all: true,
        };
        let stdin = serde_json::to_vec(&case.payload).unwrap_or_default();
        let (reply, decided) = hookrig_runtime::answer(&call, &stdin, site, &mut |_| {});
        let Some(decided) = decided else {
            return Err(reply.stderr.trim().to_owned());
        };
        let dispatched = &decided.dispatched;
        let considered = dispatched.records.iter().filter(|record| {
            record
                .skip
                .as_ref()
                .is_none_or(hookrig_core::SkipReason::considered)
        });
        let mut actual = Actual {
            decision: dispatched.decision.as_str().to_owned(),
            decided_by: dispatched.decided_by.clone(),
            reason: dispatched.reason.clone(),
            payload: Value::Object(dispatched.payload.as_map().clone()),
            context: dispatched.context.clone(),
            exit_code: reply.exit_code,
            stdout: reply.stdout,
            ..Actual::default()
        };
        for record in considered {
            let ran = record.skip.is_none()
                && !matches!(record.result, HookResult::Skipped | HookResult::Untrusted);
            if ran {
                actual.ran.push(record.name.clone());
            } else if record.skip == Some(hookrig_core::SkipReason::SideEffects) {
                actual.held.push(record.name.clone());
            } else {
                actual.skipped.push(record.name.clone());
            }
            let stderr = record.stderr.as_deref().filter(|s| !s.trim().is_empty());
            // A hook that failed with nothing on stderr (it could not start, it timed
            // out) says why through its reason; a test's author needs that most.
            let failed = matches!(record.result, HookResult::Error | HookResult::Timeout);
            let said = match (stderr, &record.reason) {
                (Some(stderr), _) => Some(stderr.to_owned()),
                (None, Some(reason)) if failed => {
                    Some(format!("({}: {reason})", record.result.as_str()))
                }
                _ => None,
            };
            if let Some(said) = said {
                actual.hook_stderr.push((record.name.clone(), said));
            }
        }
        // Recorded in the sandbox's ledger; the event goes to no `hookrig serve`.
        decided
            .record_to(|_, _, _| {})
            .drain_within(AsyncPool::DRAIN_TIMEOUT);
        Ok(actual)
    }
}
