//! `hookrig agent watch --plan P`: renders what `hookrig_agents::watch_plan` notices,
//! and delivers the lifecycle events of its claims and of the tasks whose agent failed.

use std::ops::ControlFlow;
use std::path::Path;
use std::time::Duration;

use hookrig_agents::{
    AgentError, Noticed, PlanWatch, Progress, SpawnObserver, StopRequest, WatchEnd, WatchObserver,
};
use hookrig_plan::lifecycle::{Event, LifecycleEvent, Outcome};
use hookrig_runtime::Scope;
use hookrig_runtime::lifecycle::deliver_events;

use crate::commands::task as task_command;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{print, warn, warn_all};

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
        config_home: scope.env.config_home.clone(),
        host,
    };
    let stop = StopRequest::on_signals().map_err(|e| AgentError::Start(e.to_string()))?;
    print(&request.banner())?;
    let mut reporter = Reporter {
        scope,
        grace: request.grace,
        failed: None,
    };
    let end = hookrig_agents::watch_plan(&request, &stop, &mut reporter)?;
    if let Some(err) = reporter.failed {
        return Err(err);
    }
    if let Some(text) = end.text() {
        print(text)?;
    }
    match end {
        WatchEnd::Interrupted(stopped) => stopped,
        WatchEnd::Completed | WatchEnd::Requested => Ok(exit_codes::PROCEED),
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
        match noticed.progress(self.grace) {
            Progress::Line(line) => self.say(&line),
            Progress::Warning(warning) => warn(warning),
        }
        if let Noticed::Ended {
            agent,
            failed: Some(payload),
            ..
        } = noticed
        {
            let plan = Path::new(&payload.plan).to_owned();
            let event = Event {
                kind: LifecycleEvent::TaskFailed,
                payload,
            };
            let delivered = deliver_events(self.scope, &[event], &plan, &agent);
            warn_all(&delivered.warnings);
        }
    }
}
