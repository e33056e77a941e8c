//! The Hence protocol: lifecycle hook scripts get the event as positional arguments and
//! `HENCE_*` variables, and their reply is only their exit status.
//!
//! Arguments: `$1` the plan path (as the payload's `plan` gives it), `$2` the task name
//! (for `post-assert`, the asserted SPL `expression`), `$3` the agent. Missing fields are
//! empty strings, so the positions never shift.
//!
//! Environment: inherited, plus `HENCE_HOOK`, `HENCE_PLAN` (absolute: a relative plan is
//! resolved against the event's directory), `HENCE_TASK` (empty for `post-assert`),
//! `HENCE_AGENT`, `HENCE_EVENT`, hookrig's `HOOKRIG_EVENT`, `HOOKRIG_HOOK`,
//! `HOOKRIG_SESSION`, and `HOOKRIG_PLAN`, `HOOKRIG_TASK`, `HOOKRIG_AGENT` with the same
//! values as their `HENCE_*` twins.
//!
//! Stdin: empty and closed at once. Hence passes nothing on stdin; a script that reads
//! it anyway gets end of file instead of waiting.
//!
//! Reply: hooks are post-commit notifications, so nothing they do changes the event.
//! Exit 0 is allow, whatever they print; anything else is a failure whose message is
//! Hence's warning (`hook 'NAME' failed (exit N)`, `hook 'NAME' timed out after Ns`).

use std::ffi::OsString;

use hookrig_core::{Dialect, Failure, FailureKind, Invocation, Reply, Verdict};
use hookrig_exec::process::{EnvPolicy, ProcessOutput, Termination};
use hookrig_exec::{Limits, Protocol};

use super::loader::HenceHook;
use super::wire::Presented;
use crate::protocol::DialectProtocol;

/// Hence's protocol for one lifecycle hook script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HenceProtocol(pub HenceHook);

impl Protocol for HenceProtocol {
    fn stdin(&self, _hook: &str, _invocation: &Invocation) -> Vec<u8> {
        Vec::new()
    }

    fn args(&self, invocation: &Invocation) -> Vec<OsString> {
        args(&self.0, invocation)
    }

    fn env(
        &self,
        hook: &str,
        invocation: &Invocation,
        configured: &[(String, String)],
    ) -> EnvPolicy {
        env(&self.0, hook, invocation, configured)
    }

    /// Hence hooks print only for the log.
    fn reads_stdout(&self) -> bool {
        false
    }

    fn reply(
        &self,
        hook: &str,
        limits: &Limits,
        invocation: &Invocation,
        output: &ProcessOutput,
    ) -> Reply {
        reply(&self.0, hook, limits, invocation, output)
    }
}

impl DialectProtocol for HenceProtocol {
    fn dialect(&self) -> Dialect {
        Dialect::Hence
    }

    fn definition(&self) -> String {
        format!("Hence({:?})", self.0)
    }
}

fn args(def: &HenceHook, invocation: &Invocation) -> Vec<OsString> {
    let presented = Presented::read(def, invocation);
    vec![
        OsString::from(presented.plan),
        OsString::from(presented.second),
        OsString::from(presented.agent),
    ]
}

fn env(
    def: &HenceHook,
    hook: &str,
    invocation: &Invocation,
    configured: &[(String, String)],
) -> EnvPolicy {
    let presented = Presented::read(def, invocation);
    let context = &invocation.context;
    let mut set = configured.to_vec();
    let mut put = |name: &str, value: &str| set.push((name.to_owned(), value.to_owned()));
    put("HENCE_HOOK", def.point.name());
    put("HENCE_PLAN", &presented.plan_absolute);
    put("HENCE_TASK", &presented.task);
    put("HENCE_AGENT", &presented.agent);
    put("HENCE_EVENT", def.point.hence_event());
    put("HOOKRIG_EVENT", context.name.as_str());
    put("HOOKRIG_HOOK", hook);
    put("HOOKRIG_SESSION", &context.session_id);
    put("HOOKRIG_PLAN", &presented.plan_absolute);
    put("HOOKRIG_TASK", &presented.task);
    put("HOOKRIG_AGENT", &presented.agent);
    EnvPolicy::Inherit { set }
}

fn reply(
    def: &HenceHook,
    _hook: &str,
    limits: &Limits,
    _invocation: &Invocation,
    output: &ProcessOutput,
) -> Reply {
    // Hence names the hook by its hook point in every warning.
    let name = def.point.name();
    let failure = |kind, message: String| Reply::Failure(Failure { kind, message });
    match &output.termination {
        Termination::Exited(0) => {
            let mut verdict = Verdict::allow();
            if let Some(warning) = output.leftover_warning(&format!("hook '{name}'")) {
                verdict.warnings.push(warning);
            }
            Reply::Verdict(verdict)
        }
        Termination::Exited(code) => failure(
            FailureKind::Exit,
            format!("hook '{name}' failed (exit {code})"),
        ),
        Termination::TimedOut { after, .. } => {
            // Hence states the configured timeout in whole seconds.
            let seconds = limits.timeout.unwrap_or(*after).as_secs();
            failure(
                FailureKind::Timeout,
                format!("hook '{name}' timed out after {seconds}s"),
            )
        }
        // Hence has no wording of its own for these; they follow its `failed (...)` form.
        Termination::Signaled(signal) => failure(
            FailureKind::Crash,
            format!("hook '{name}' failed (killed by signal {signal})"),
        ),
        Termination::SpawnFailed(err) => failure(
            FailureKind::Spawn,
            format!("hook '{name}' failed to start: {err}"),
        ),
        Termination::Interrupted => failure(
            FailureKind::Interrupted,
            format!(
                "hook '{name}' was killed before it finished: hookrig was interrupted or stopped waiting for it"
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::time::Duration;

    use hookrig_config::HookPoint;

    use hookrig_core::{EventContext, EventName, Payload};
    use serde_json::{Value, json};

    use super::*;

    fn invocation(event: &str, payload: Value) -> Invocation {
        let Value::Object(map) = payload else {
            panic!("payload must be an object")
        };
        Invocation {
            context: Arc::new(EventContext {
                name: EventName::resolve(event),
                session_id: "s1".to_owned(),
                cwd: PathBuf::from("/srv/repo"),
                env: None,
            }),
            payload: Payload::from_map(map),
        }
    }

    fn hook(point: HookPoint) -> HenceHook {
        HenceHook { point }
    }

    fn output(termination: Termination) -> ProcessOutput {
        ProcessOutput {
            termination,
            stdout: b"{\"decision\":\"deny\"}".to_vec(),
            stderr: b"boom".to_vec(),
            stdout_truncated: false,
            stderr_truncated: false,
            leaked: false,
            leftovers: hookrig_exec::Leftovers::default(),
            duration: Duration::from_millis(3),
        }
    }

    fn read(termination: Termination, timeout: Option<Duration>) -> Reply {
        let limits = Limits {
            timeout,
            ..Limits::default()
        };
        let inv = invocation("task.completed", json!({}));
        reply(
            &hook(HookPoint::PostComplete),
            "post-complete",
            &limits,
            &inv,
            &output(termination),
        )
    }

    fn failure(reply: Reply) -> (FailureKind, String) {
        match reply {
            Reply::Failure(f) => (f.kind, f.message),
            Reply::Verdict(v) => panic!("expected a failure, got {v:?}"),
        }
    }

    fn strings(args: Vec<OsString>) -> Vec<String> {
        args.into_iter()
            .map(|a| a.into_string().expect("UTF-8"))
            .collect()
    }

    #[test]
    fn exit_zero_allows_whatever_stdout_says() {
        let Reply::Verdict(v) = read(Termination::Exited(0), Some(Duration::from_secs(30))) else {
            panic!("expected a verdict")
        };
        assert_eq!(v, Verdict::allow());
    }

    #[test]
    fn non_zero_exit_is_hences_warning() {
        assert_eq!(
            failure(read(Termination::Exited(3), None)),
            (
                FailureKind::Exit,
                "hook 'post-complete' failed (exit 3)".to_owned()
            )
        );
    }

    #[test]
    fn timeout_states_the_configured_whole_seconds() {
        let timed_out = Termination::TimedOut {
            after: Duration::from_millis(30_004),
            killed: true,
        };
        assert_eq!(
            failure(read(timed_out.clone(), Some(Duration::from_secs(30)))),
            (
                FailureKind::Timeout,
                "hook 'post-complete' timed out after 30s".to_owned()
            )
        );
        // A fractional configured timeout is cut to whole seconds, as Hence counts them.
        assert_eq!(
            failure(read(timed_out, Some(Duration::from_millis(1500)))).1,
            "hook 'post-complete' timed out after 1s"
        );
    }

    #[test]
    fn other_failures_keep_hences_form() {
        assert_eq!(
            failure(read(Termination::Signaled(11), None)),
            (
                FailureKind::Crash,
                "hook 'post-complete' failed (killed by signal 11)".to_owned()
            )
        );
        assert_eq!(
            failure(read(Termination::Interrupted, None)).0,
            FailureKind::Interrupted
        );
    }

    #[test]
    fn arguments_are_plan_task_agent() {
        let inv = invocation(
            "task.completed",
            json!({"plan": "plans/plan.spl", "task": "auth", "agent": "coder", "expression": "x"}),
        );
        assert_eq!(
            strings(args(&hook(HookPoint::PostComplete), &inv)),
            ["plans/plan.spl", "auth", "coder"]
        );
    }

    #[test]
    fn post_assert_passes_the_expression_and_no_task() {
        let inv = invocation(
            "plan.asserted",
            json!({"plan": "/p/plan.spl", "task": "ignored", "agent": "coder", "expression": "(given done-auth)"}),
        );
        let def = hook(HookPoint::PostAssert);
        assert_eq!(
            strings(args(&def, &inv)),
            ["/p/plan.spl", "(given done-auth)", "coder"]
        );
        let EnvPolicy::Inherit { set } = env(&def, "post-assert", &inv, &[]) else {
            panic!("Hence hooks inherit the environment")
        };
        let get = |name: &str| set.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        assert_eq!(get("HENCE_TASK"), Some(""));
        assert_eq!(get("HOOKRIG_TASK"), Some(""));
        assert_eq!(get("HENCE_EVENT"), Some("assert"));
    }

    #[test]
    fn missing_fields_are_empty_and_keep_their_positions() {
        let inv = invocation("task.claimed", json!({"agent": "coder", "plan": null}));
        let def = hook(HookPoint::PostClaim);
        assert_eq!(strings(args(&def, &inv)), ["", "", "coder"]);
        let EnvPolicy::Inherit { set } = env(&def, "post-claim", &inv, &[]) else {
            panic!("Hence hooks inherit the environment")
        };
        assert!(set.contains(&("HENCE_PLAN".to_owned(), String::new())));
    }

    #[test]
    fn stdin_is_empty() {
        let inv = invocation("task.completed", json!({"task": "auth"}));
        assert!(
            HenceProtocol(hook(HookPoint::PostComplete))
                .stdin("post-complete", &inv)
                .is_empty()
        );
    }

    // guards: a Hence hook that ignores SIGTERM is killed after the grace period, and
    // the warning states the configured timeout. The product's 30 s default is not
    // overridable yet (Hence's `hook_timeout` arrives with its config.toml), so this runs
    // the real handler with short limits instead of going through `hookrig emit`.
    #[test]
    fn a_hook_that_traps_term_is_killed_after_the_grace() {
        use std::os::unix::fs::PermissionsExt as _;

        use hookrig_core::Handler as _;
        use hookrig_exec::{CommandDef, CommandHandler, ProcessGroups};

        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("log");
        let script = dir.path().join("post-complete");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\necho $$ > '{log}.pid'\ntrap 'echo term >> \"{log}\"' TERM\nwhile :; do sleep 0.05; done\n",
                log = log.display()
            ),
        )
        .expect("write script");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let handler = CommandHandler::new(
            "post-complete",
            CommandDef::Exec {
                argv: vec![script.to_string_lossy().into_owned()],
            },
            Vec::new(),
            Limits {
                timeout: Some(Duration::from_secs(1)),
                kill_grace: Duration::from_millis(500),
                ..Limits::default()
            },
            Arc::new(HenceProtocol(hook(HookPoint::PostComplete))),
            ProcessGroups::new(),
        );
        let mut inv = invocation("task.completed", json!({"task": "auth"}));
        Arc::make_mut(&mut inv.context).cwd = dir.path().to_owned();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let started = std::time::Instant::now();
        let report = runtime.block_on(handler.run(inv));
        let elapsed = started.elapsed();

        assert_eq!(
            failure(report.reply),
            (
                FailureKind::Timeout,
                "hook 'post-complete' timed out after 1s".to_owned()
            )
        );
        assert!(
            std::fs::read_to_string(&log).is_ok_and(|t| t.contains("term")),
            "the hook got SIGTERM first"
        );
        assert!(elapsed >= Duration::from_millis(1500), "{elapsed:?}");
        let pid: i32 = std::fs::read_to_string(format!("{}.pid", log.display()))
            .expect("pid file")
            .trim()
            .parse()
            .expect("pid");
        assert!(
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_err(),
            "the hook was killed"
        );
    }
}
