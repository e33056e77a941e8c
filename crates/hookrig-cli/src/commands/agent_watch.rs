//! `hookrig agent watch --plan P`: renders what `hookrig_agents::watch_plan` notices,
//! and delivers the lifecycle events of its claims and of the tasks whose agent failed.

use std::ops::ControlFlow;
use std::path::Path;
use std::time::Duration;

use hookrig_agents::{
    AgentError, Noticed, PlanWatch, SpawnObserver, StopRequest, Stopped, WatchEnd, WatchObserver,
};
use hookrig_plan::lifecycle::{Event, LifecycleEvent, Outcome};
use hookrig_plan::plan::TaskState;
use hookrig_runtime::Scope;
use hookrig_runtime::lifecycle::deliver_events;

use crate::commands::task as task_command;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{chain, print, warn, warn_all};

/// What the watch is asked, from `agent watch`'s flags.
pub(crate) struct Options {
    pub(crate) agents: Vec<String>,
    pub(crate) max: usize,
    pub(crate) provider: Option<String>,
    pub(crate) stop_on_exit: bool,
    pub(crate) grace: Duration,
}

/// Runs the watch on the plan of `scope` until the plan is complete or a signal.
pub(crate) fn run(
    scope: &Scope,
    options: Options,
    host: hookrig_agents::HostProgram,
) -> Result<u8, ExpectedError> {
    let plan = scope.plan.as_ref().ok_or(AgentError::NoPlan)?.named.clone();
    let request = PlanWatch {
        plan,
        agents: options.agents,
        max: options.max,
        provider: options.provider,
        stop_on_exit: options.stop_on_exit,
        grace: options.grace,
        store: scope.store.clone(),
        host,
    };
    let stop = StopRequest::on_signals().map_err(|e| AgentError::Start(e.to_string()))?;
    print(&format!(
        "watching {}: up to {} agent(s) at once; Ctrl-C stops watching{}\n",
        request.plan.display(),
        request.max,
        if request.stop_on_exit {
            " and the agents it started"
        } else {
            " (the agents keep running)"
        }
    ))?;
    let mut reporter = Reporter {
        scope,
        grace: request.grace,
        failed: None,
    };
    let end = hookrig_agents::watch_plan(&request, &stop, &mut reporter)?;
    if let Some(err) = reporter.failed {
        return Err(err);
    }
    match end {
        WatchEnd::Completed => {
            print("the plan is complete\n")?;
            Ok(exit_codes::PROCEED)
        }
        WatchEnd::Requested => {
            print("stopped watching\n")?;
            Ok(exit_codes::PROCEED)
        }
        WatchEnd::Interrupted(stopped) => stopped,
    }
}

/// Prints what the watch notices and delivers the lifecycle events.
struct Reporter<'a> {
    scope: &'a Scope,
    grace: Duration,
    /// stdout could not be written: the first such error, returned once the watch ends.
    failed: Option<ExpectedError>,
}

impl Reporter<'_> {
    fn say(&mut self, text: &str) {
        if self.failed.is_none()
            && let Err(err) = print(text)
        {
            self.failed = Some(err);
        }
    }
}

impl SpawnObserver for Reporter<'_> {
    /// The exit code of the signal that interrupted a post-claim hook.
    type Stop = Result<u8, ExpectedError>;

    fn warning(&mut self, warning: String) {
        warn(warning);
    }

    fn claimed(&mut self, outcome: &Outcome, plan: &Path, agent: &str) -> ControlFlow<Self::Stop> {
        self.say(&outcome.to_string());
        match task_command::deliver(self.scope, outcome, plan, agent) {
            Some(code) => ControlFlow::Break(Ok(code)),
            None => ControlFlow::Continue(()),
        }
    }
}

impl WatchObserver for Reporter<'_> {
    fn noticed(&mut self, noticed: Noticed) {
        match noticed {
            Noticed::Started(spawned) => self.say(&format!(
                "started {} ({}) for agent '{}' on task '{}', pid {}\n",
                spawned.provider,
                spawned.reason.as_str(),
                spawned.agent,
                spawned.task,
                spawned.pid
            )),
            Noticed::NotStarted { task, agent, error } => warn(format!(
                "no agent started on task '{task}' for '{agent}' (not tried again): {}",
                chain(&error)
            )),
            Noticed::Ended {
                task,
                agent,
                state,
                task_state,
                failed,
            } => {
                let now = task_state.map_or("gone from the plan", TaskState::as_str);
                self.say(&format!(
                    "the agent of task '{task}' {}; the task is {now}\n",
                    state.text()
                ));
                if let Some(payload) = failed {
                    let plan = Path::new(&payload.plan).to_owned();
                    let event = Event {
                        kind: LifecycleEvent::TaskFailed,
                        payload,
                    };
                    let delivered = deliver_events(self.scope, &[event], &plan, &agent);
                    warn_all(&delivered.warnings);
                }
            }
            Noticed::Blocked { task, reason } => self.say(&match reason {
                Some(reason) => format!("task '{task}' is blocked: {reason}\n"),
                None => format!("task '{task}' is blocked\n"),
            }),
            Noticed::Unreadable(error) => warn(format!(
                "{} (watching on; read again every round)",
                chain(&error)
            )),
            Noticed::LeftRunning { task, pid } => self.say(&format!(
                "left the agent of task '{task}' running (process group {pid})\n"
            )),
            Noticed::StoppedAgent { task, how } => {
                let how = match how {
                    Stopped::NotRunning => "it had exited".to_owned(),
                    Stopped::Terminated => "SIGTERM".to_owned(),
                    Stopped::Killed => format!("SIGKILL after {}s", self.grace.as_secs()),
                };
                self.say(&format!("stopped the agent of task '{task}' ({how})\n"));
            }
        }
    }
}
