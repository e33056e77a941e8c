//! The dispatcher: runs an event's hooks with the semantics of its kind.

use std::sync::Arc;

use crate::event::{EventKind, EventName};
use crate::hook::{BoxFuture, EventContext, Hook, Invocation, Mode, Report};
use crate::payload::Payload;
use crate::record::{HookRecord, HookResult, SkipReason};
use crate::registry::Registry;
use crate::verdict::{Action, Failure, FailureKind, OnError, Reply, Stop};
use futures_util::future::join_all;

/// The combined decision of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Proceed (maybe with a modified payload).
    Allow,
    /// Stop.
    Deny,
    /// Ask the user.
    Ask,
}

impl Decision {
    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Deny => "deny",
            Decision::Ask => "ask",
        }
    }
}

/// An event to dispatch.
#[derive(Debug, Clone)]
pub struct Event {
    /// The event, resolved.
    pub context: Arc<EventContext>,
    /// The payload as the host sent it.
    pub payload: Payload,
}

/// Where async hooks go: the runtime that owns the process decides how they run, how
/// many may be in flight and how long shutdown waits for them.
pub trait AsyncSink: Send + Sync {
    /// Starts `job` without waiting for it. Returns false when it was refused because
    /// too many async hooks are in flight.
    fn submit(&self, job: BoxFuture<AsyncCompletion>) -> bool;
}

/// The record of an async hook that has finished, with any warnings about its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct AsyncCompletion {
    /// The hook's record.
    pub record: HookRecord,
    /// Warnings (an ignored modify, a failure).
    pub warnings: Vec<String>,
}

/// The result of dispatching one event.
#[derive(Debug, Clone)]
pub struct Dispatched {
    /// The event.
    pub event: EventName,
    /// The combined decision.
    pub decision: Decision,
    /// The reason of the deny or ask.
    pub reason: Option<String>,
    /// The hook that denied (or asked).
    pub decided_by: Option<String>,
    /// The final payload.
    pub payload: Payload,
    /// Context collected from the hooks, in run order.
    pub context: Vec<String>,
    /// System-prompt text collected from the hooks, in run order.
    pub system_prompt_append: Vec<String>,
    /// One record per registered hook, in dispatch order; hooks on other events last.
    pub records: Vec<HookRecord>,
    /// Warnings for the host.
    pub warnings: Vec<String>,
    /// Whether a hook stopped the agent: the first hook that did, with its reason. A stop
    /// wins over the decision, which is kept for the record.
    pub stop: Option<Stopped>,
}

/// The agent was stopped by a hook ([`crate::Verdict::stop`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopped {
    /// The first hook that stopped it.
    pub by: String,
    /// Its reason, when it gave one.
    pub reason: Option<String>,
}

/// Dispatches `event` to the hooks of `registry`, and to the subscriptions of the bus
/// attached to it ([`Registry::attach_bus`]), in one chain.
///
/// Decision and transform events run their sync hooks one after another by priority,
/// then registration order; the first deny stops the chain and names the denier;
/// modifies accumulate. A hook that stops the agent (of any kind of event) stops the
/// chain as a deny does, and wins over every decision: the first stop is kept. Notify events run their sync hooks concurrently and nothing
/// they answer changes the event. Async hooks are handed to `sink` after the sync hooks,
/// with the payload as modified by them.
pub async fn dispatch(registry: &Registry, event: Event, sink: &dyn AsyncSink) -> Dispatched {
    let Event {
        context,
        mut payload,
    } = event;
    // Before any hook or plugin sees it: every dialect presents the `tool` section.
    payload.normalize_flat_tool();
    let mut state = State {
        decision: Decision::Allow,
        reason: None,
        decided_by: None,
        payload,
        context: Vec::new(),
        system_prompt_append: Vec::new(),
        warnings: Vec::new(),
        stop: None,
    };
    let hooks = registry.chain_for(&context.name);
    let Sorted {
        mut records,
        mut sync_hooks,
        async_hooks,
    } = sort_out(
        &hooks,
        &context.name,
        &state.payload,
        (registry.hooks_suppressed(), registry.side_effects_held()),
        &mut state.warnings,
    );
    sync_hooks.sort_by_key(|(index, hook)| (hook.spec.priority, *index));

    match context.name.kind() {
        EventKind::Decision | EventKind::Transform => {
            // Hooks of one parallel group that are next to each other in the chain run
            // concurrently and are then read in chain order (Claude Code runs all the
            // hooks of an event at once; the most restrictive answer wins).
            for batch in sync_hooks
                .chunk_by(|(_, a), (_, b)| a.spec.group.is_some() && a.spec.group == b.spec.group)
            {
                if let Some(by) = state.chain_stopped_by() {
                    let by = by.to_owned();
                    for (index, hook) in batch {
                        let reason = SkipReason::ChainStopped { by: by.clone() };
                        records.push(((hook.spec.priority, *index), skipped(hook, reason)));
                    }
                    continue;
                }
                let runs = batch.iter().map(|(_, hook)| {
                    hook.handler.run(Invocation {
                        context: Arc::clone(&context),
                        payload: state.payload.clone(),
                    })
                });
                let reports = join_all(runs).await;
                for ((index, hook), report) in batch.iter().zip(reports) {
                    let record = state.apply_or_shadow(hook, |state| {
                        state.apply_chained(hook, report, context.name.kind(), &context.name)
                    });
                    records.push(((hook.spec.priority, *index), record));
                }
            }
        }
        EventKind::Notify => {
            let runs = sync_hooks.iter().map(|(_, hook)| {
                hook.handler.run(Invocation {
                    context: Arc::clone(&context),
                    payload: state.payload.clone(),
                })
            });
            let reports = join_all(runs).await;
            for ((index, hook), report) in sync_hooks.iter().zip(reports) {
                let record = state.apply_or_shadow(hook, |state| {
                    state.apply_notify(hook, report, &context.name)
                });
                records.push(((hook.spec.priority, *index), record));
            }
        }
    }

    for (index, hook) in async_hooks {
        let record = dispatch_async(hook, &context, &state.payload, sink, &mut state.warnings);
        records.push(((hook.spec.priority, index), record));
    }

    records.sort_by_key(|(key, _)| *key);
    Dispatched {
        event: context.name.clone(),
        decision: state.decision,
        reason: state.reason,
        decided_by: state.decided_by,
        payload: state.payload,
        context: state.context,
        system_prompt_append: state.system_prompt_append,
        records: records.into_iter().map(|(_, record)| record).collect(),
        warnings: state.warnings,
        stop: state.stop,
    }
}

/// A dispatch position: (priority, registration index). Records are kept with theirs so
/// the ledger reads in the order things happened.
type Position = (i32, usize);

/// The registry's hooks sorted out for one event.
struct Sorted<'r> {
    records: Vec<(Position, HookRecord)>,
    sync_hooks: Vec<(usize, &'r Hook)>,
    async_hooks: Vec<(usize, &'r Hook)>,
}

/// Decides for every hook whether it runs for this event, and records why not.
/// `held` is whether every hook is suppressed, and whether those with side effects are.
fn sort_out<'r>(
    hooks: &'r [Arc<Hook>],
    event: &EventName,
    payload: &Payload,
    (suppressed, side_effects_held): (bool, bool),
    warnings: &mut Vec<String>,
) -> Sorted<'r> {
    let mut sorted = Sorted {
        records: Vec::new(),
        sync_hooks: Vec::new(),
        async_hooks: Vec::new(),
    };
    for (index, hook) in hooks.iter().enumerate() {
        let spec = &hook.spec;
        let skip = if !spec.listens_to(event) {
            Some(SkipReason::OtherEvent)
        } else if !spec.enabled {
            Some(SkipReason::Disabled)
        } else if let (subject, value) = spec.matcher_subject(payload)
            && !spec.matcher.matches(value)
        {
            Some(SkipReason::Matcher {
                pattern: spec.matcher.pattern(),
                subject,
                tool: value.map(str::to_owned),
            })
        } else if let Some(hint) = &spec.untrusted {
            // Never silently dropped: the host learns that a hook would have run.
            warnings.push(format!("hook {} was not run: {hint}", spec.name));
            Some(SkipReason::Untrusted)
        } else if suppressed {
            Some(SkipReason::Suppressed)
        } else if side_effects_held && spec.side_effects {
            Some(SkipReason::SideEffects)
        } else {
            None
        };
        match (skip, spec.mode) {
            (Some(skip), _) => {
                let key = if skip.considered() {
                    (spec.priority, index)
                } else {
                    (i32::MAX, index)
                };
                sorted.records.push((key, skipped(hook, skip)));
            }
            (None, Mode::Sync) => sorted.sync_hooks.push((index, hook)),
            (None, Mode::Async) => sorted.async_hooks.push((index, hook)),
        }
    }
    sorted
}

/// One hook in the order an event would consider it, and why it would not run.
#[derive(Debug, Clone)]
pub struct Planned<'r> {
    /// The hook.
    pub hook: &'r Hook,
    /// Why it would not run; `None` when it would.
    pub skip: Option<SkipReason>,
}

/// The hooks `event` would consider, in dispatch order (sync hooks by priority then
/// registration, then async hooks, then hooks on other events), without running any:
/// what `hookrig explain` shows.
///
/// An attached bus's subscriptions are not listed: a [`Planned`] borrows its hook from
/// the registry, and they are made per dispatch.
pub fn plan<'r>(registry: &'r Registry, event: &EventName, tool: Option<&str>) -> Vec<Planned<'r>> {
    let mut ignored = Vec::new();
    let mut payload = Payload::new();
    if let Some(tool) = tool {
        payload.set_tool_name_if_missing(tool);
    }
    let sorted = sort_out(
        registry.hooks(),
        event,
        &payload,
        (registry.hooks_suppressed(), registry.side_effects_held()),
        &mut ignored,
    );
    let mut planned: Vec<(Position, Planned<'r>)> = Vec::new();
    for (index, hook) in sorted.sync_hooks {
        planned.push(((hook.spec.priority, index), Planned { hook, skip: None }));
    }
    for (index, hook) in sorted.async_hooks {
        // Async hooks start after the chain, whatever their priority.
        planned.push(((i32::MAX - 1, index), Planned { hook, skip: None }));
    }
    let hooks = registry.hooks();
    for ((priority, index), record) in sorted.records {
        let hook: &Hook = &hooks[index];
        planned.push((
            (priority, index),
            Planned {
                hook,
                skip: record.skip,
            },
        ));
    }
    planned.sort_by_key(|(position, _)| *position);
    planned.into_iter().map(|(_, planned)| planned).collect()
}

/// The event as the chain has left it so far.
struct State {
    decision: Decision,
    reason: Option<String>,
    decided_by: Option<String>,
    payload: Payload,
    context: Vec<String>,
    system_prompt_append: Vec<String>,
    warnings: Vec<String>,
    stop: Option<Stopped>,
}

impl State {
    /// The hook after whose answer no further hook of a chain runs: the first that
    /// stopped the agent, else the one that denied.
    fn chain_stopped_by(&self) -> Option<&str> {
        if let Some(stop) = &self.stop {
            return Some(&stop.by);
        }
        match self.decision {
            Decision::Deny => self.decided_by.as_deref(),
            _ => None,
        }
    }

    /// Keeps the first stop, with the first reason any stopping hook gave (hooks of one
    /// parallel group stop together); the hook's record says `stop`, with its reason.
    fn stopped(&mut self, hook: &str, stop: Stop, record: &mut HookRecord) {
        record.result = HookResult::Stop;
        if stop.reason.is_some() {
            record.reason.clone_from(&stop.reason);
        }
        match &mut self.stop {
            None => {
                self.stop = Some(Stopped {
                    by: hook.to_owned(),
                    reason: stop.reason,
                });
            }
            Some(first) if first.reason.is_none() => first.reason = stop.reason,
            Some(_) => {}
        }
    }

    /// The first deny decides; a deny also drops the context collected so far, since
    /// the event it was meant for will not happen.
    fn deny(&mut self, hook: &str, reason: Option<String>) {
        if self.decision == Decision::Deny {
            return;
        }
        self.decision = Decision::Deny;
        self.reason = reason;
        self.decided_by = Some(hook.to_owned());
        self.context.clear();
        self.system_prompt_append.clear();
    }

    /// Applies a hook's answer with `apply`, or, for a shadow hook, applies it to a copy
    /// of the event that is then thrown away: its record says what it would have done
    /// (the result a deny, ask, modify or stop would give it), and the event, the chain
    /// and the host's warnings are left as they were. Its answer in its dialect's terms
    /// is dropped, so that no host mode can fold it into the host's answer.
    fn apply_or_shadow(
        &mut self,
        hook: &Hook,
        apply: impl FnOnce(&mut State) -> HookRecord,
    ) -> HookRecord {
        if !hook.spec.shadow {
            return apply(self);
        }
        let mut scratch = State {
            decision: self.decision,
            reason: self.reason.clone(),
            decided_by: self.decided_by.clone(),
            payload: self.payload.clone(),
            context: Vec::new(),
            system_prompt_append: Vec::new(),
            warnings: Vec::new(),
            stop: self.stop.clone(),
        };
        let mut record = apply(&mut scratch);
        record.answer = None;
        record
    }

    /// Applies one answer of a decision or transform chain.
    fn apply_chained(
        &mut self,
        hook: &Hook,
        report: Report,
        kind: EventKind,
        event: &EventName,
    ) -> HookRecord {
        let name = hook.spec.name.as_str();
        let mut record = ran(hook, &report);
        match report.reply {
            Reply::Failure(failure) => {
                note_failure(&mut record, &failure);
                self.warnings.push(failure.message.clone());
                if hook.spec.on_error == OnError::Deny {
                    self.deny(name, Some(failure.message));
                }
            }
            Reply::Verdict(verdict) => {
                self.warnings.extend(verdict.warnings);
                record.reason.clone_from(&verdict.reason);
                record.answer = verdict.answer.map(|answer| *answer);
                let action = match (kind, verdict.action) {
                    (EventKind::Transform, Action::Deny | Action::Ask) => {
                        self.warnings.push(format!(
                            "hook {name}: `{}` ignored on transform event {event}: transform hooks only rewrite the payload",
                            verdict.action.as_str()
                        ));
                        Action::Allow
                    }
                    (_, action) => action,
                };
                record.result = action_result(action);
                match action {
                    Action::Deny => self.deny(name, verdict.reason),
                    Action::Ask => {
                        if self.decision == Decision::Allow {
                            self.decision = Decision::Ask;
                            self.reason = verdict.reason;
                            self.decided_by = Some(name.to_owned());
                        }
                    }
                    Action::Modify => {
                        if verdict.replace.is_none() && verdict.patch.is_none() {
                            self.warnings.push(format!(
                                "hook {name}: decision \"modify\" without a payload changes nothing"
                            ));
                        }
                        if let Some(replace) = verdict.replace {
                            self.payload = *replace;
                        }
                        if let Some(patch) = verdict.patch {
                            self.payload.apply_patch(&patch);
                        }
                    }
                    Action::Allow => {}
                }
                if self.decision != Decision::Deny {
                    self.collect(verdict.context, verdict.system_prompt_append);
                }
                if let Some(stop) = verdict.stop {
                    self.stopped(name, stop, &mut record);
                }
            }
        }
        record
    }

    /// Applies one answer to a notify event: only context is kept.
    fn apply_notify(&mut self, hook: &Hook, report: Report, event: &EventName) -> HookRecord {
        let name = hook.spec.name.as_str();
        let mut record = ran(hook, &report);
        match report.reply {
            Reply::Failure(failure) => {
                note_failure(&mut record, &failure);
                self.warnings.push(failure.message);
            }
            Reply::Verdict(verdict) => {
                self.warnings.extend(verdict.warnings);
                record.result = action_result(verdict.action);
                record.reason.clone_from(&verdict.reason);
                record.answer = verdict.answer.map(|answer| *answer);
                if verdict.action != Action::Allow {
                    self.warnings.push(format!(
                        "hook {name}: `{}` ignored on notify event {event}: notify hooks cannot change the event",
                        verdict.action.as_str()
                    ));
                }
                self.collect(verdict.context, verdict.system_prompt_append);
                if let Some(stop) = verdict.stop {
                    self.stopped(name, stop, &mut record);
                }
            }
        }
        record
    }

    fn collect(&mut self, context: Option<String>, system_prompt_append: Option<String>) {
        self.context.extend(context.filter(|c| !c.is_empty()));
        self.system_prompt_append
            .extend(system_prompt_append.filter(|s| !s.is_empty()));
    }
}

/// Hands an async hook to the sink and returns its record for the outcome.
fn dispatch_async(
    hook: &Hook,
    context: &Arc<EventContext>,
    payload: &Payload,
    sink: &dyn AsyncSink,
    warnings: &mut Vec<String>,
) -> HookRecord {
    let run = hook.handler.run(Invocation {
        context: Arc::clone(context),
        payload: payload.clone(),
    });
    let mut pending = skipped(hook, SkipReason::AsyncCapReached);
    pending.skip = None;
    pending.result = HookResult::Dispatched;
    let template = pending.clone();
    let job: BoxFuture<AsyncCompletion> = Box::pin(async move {
        let report = run.await;
        finish_async(template, report)
    });
    if sink.submit(job) {
        pending
    } else {
        warnings.push(format!(
            "async hook {} dropped: too many async hooks in flight",
            hook.spec.name
        ));
        skipped(hook, SkipReason::AsyncCapReached)
    }
}

/// Turns an async hook's report into its record; its answer cannot change anything.
fn finish_async(mut record: HookRecord, report: Report) -> AsyncCompletion {
    record.exit_code = report.exit_code;
    record.duration = Some(report.duration);
    record.stdout = report.stdout;
    record.stderr = report.stderr;
    record.truncated = report.truncated;
    let mut warnings = Vec::new();
    match report.reply {
        Reply::Failure(failure) => {
            note_failure(&mut record, &failure);
            warnings.push(failure.message);
        }
        Reply::Verdict(verdict) => {
            warnings.extend(verdict.warnings);
            record.result = action_result(verdict.action);
            record.reason = verdict.reason;
            if matches!(verdict.action, Action::Modify | Action::Deny | Action::Ask) {
                warnings.push(format!(
                    "async hook {}: `{}` ignored: async hooks cannot change the event",
                    record.name,
                    verdict.action.as_str()
                ));
            }
            if verdict.stop.is_some() {
                // The host had its answer before the hook ended: nobody can be told.
                warnings.push(format!(
                    "async hook {}: `stop` ignored: the host had its answer before the hook ended",
                    record.name
                ));
            }
        }
    }
    AsyncCompletion { record, warnings }
}

fn action_result(action: Action) -> HookResult {
    match action {
        Action::Allow => HookResult::Allow,
        Action::Deny => HookResult::Deny,
        Action::Ask => HookResult::Ask,
        Action::Modify => HookResult::Modify,
    }
}

/// A failure is recorded as `timeout` or `error`, with its message as the reason.
fn note_failure(record: &mut HookRecord, failure: &Failure) {
    record.result = match failure.kind {
        FailureKind::Timeout => HookResult::Timeout,
        _ => HookResult::Error,
    };
    record.reason = Some(failure.message.clone());
}

fn base_record(hook: &Hook) -> HookRecord {
    HookRecord {
        name: hook.spec.name.clone(),
        source: hook.spec.source.path.clone(),
        dialect: hook.spec.source.dialect,
        result: HookResult::Skipped,
        skip: None,
        exit_code: None,
        duration: None,
        reason: None,
        stdout: None,
        stderr: None,
        truncated: false,
        is_async: hook.spec.mode == Mode::Async,
        answer: None,
        shadow: hook.spec.shadow,
    }
}

fn skipped(hook: &Hook, reason: SkipReason) -> HookRecord {
    let result = match reason {
        SkipReason::Untrusted => HookResult::Untrusted,
        _ => HookResult::Skipped,
    };
    HookRecord {
        result,
        skip: Some(reason),
        ..base_record(hook)
    }
}

fn ran(hook: &Hook, report: &Report) -> HookRecord {
    HookRecord {
        exit_code: report.exit_code,
        duration: Some(report.duration),
        stdout: report.stdout.clone(),
        stderr: report.stderr.clone(),
        truncated: report.truncated,
        ..base_record(hook)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Mutex;
    use std::time::Duration;

    use futures_util::FutureExt;
    use serde_json::{Value, json};

    use super::*;
    use crate::hook::{Handler, HookSpec, Level, Source};
    use crate::matcher::Matcher;
    use crate::verdict::{Failure, Verdict};

    /// An in-process handler that answers a fixed reply and remembers what it saw.
    #[derive(Debug)]
    struct Scripted {
        reply: Reply,
        seen: Arc<Mutex<Vec<(String, Value)>>>,
        name: String,
    }

    impl Handler for Scripted {
        fn run(&self, invocation: Invocation) -> BoxFuture<Report> {
            self.seen.lock().expect("not poisoned").push((
                self.name.clone(),
                Value::Object(invocation.payload.into_map()),
            ));
            let report = Report::from_reply(self.reply.clone(), Duration::from_millis(1));
            Box::pin(async move { report })
        }
    }

    /// The tests name events as hosts do (`PreToolUse`, `post_message`), through a
    /// stand-in for the dialects' table.
    fn names() -> crate::EventNames {
        crate::event::tests::stand_in_names()
    }

    struct Fixture {
        registry: Registry,
        seen: Arc<Mutex<Vec<(String, Value)>>>,
    }

    impl Fixture {
        fn new() -> Self {
            Self {
                registry: Registry::new(),
                seen: Arc::default(),
            }
        }

        fn hook(&mut self, name: &str, event: &str, reply: Reply) -> &mut HookSpec {
            let handler = Scripted {
                reply,
                seen: Arc::clone(&self.seen),
                name: name.to_owned(),
            };
            self.registry.register(Hook {
                spec: HookSpec {
                    name: name.to_owned(),
                    events: vec![names().resolve(event)],
                    matcher: Matcher::Any,
                    priority: HookSpec::DEFAULT_PRIORITY,
                    mode: Mode::Sync,
                    enabled: true,
                    on_error: OnError::Allow,
                    source: Source {
                        path: PathBuf::from("/cfg/hooks.toml"),
                        dialect: crate::Dialect::Native,
                        level: Level::Global,
                    },
                    description: None,
                    timeout: None,
                    group: None,
                    matcher_field: None,
                    untrusted: None,
                    shadow: false,
                    side_effects: true,
                },
                handler: Arc::new(handler),
            });
            let last = self.registry.hooks().len() - 1;
            &mut Arc::get_mut(&mut self.registry.hooks[last])
                .expect("not shared yet")
                .spec
        }

        fn emit(&self, event: &str, payload: Value) -> Dispatched {
            self.emit_with(event, payload, &RefuseAll)
        }

        fn emit_with(&self, event: &str, payload: Value, sink: &dyn AsyncSink) -> Dispatched {
            let Value::Object(map) = payload else {
                panic!("payload must be an object")
            };
            let event = Event {
                context: Arc::new(EventContext {
                    name: names().resolve(event),
                    session_id: "s".into(),
                    cwd: "/w".into(),
                    env: None,
                }),
                payload: Payload::from_map(map),
            };
            dispatch(&self.registry, event, sink)
                .now_or_never()
                .expect("scripted handlers never wait")
        }

        fn order(&self) -> Vec<String> {
            self.seen
                .lock()
                .expect("not poisoned")
                .iter()
                .map(|(n, _)| n.clone())
                .collect()
        }
    }

    struct RefuseAll;
    impl AsyncSink for RefuseAll {
        fn submit(&self, _job: BoxFuture<AsyncCompletion>) -> bool {
            false
        }
    }

    #[derive(Default)]
    struct Collect(Mutex<Vec<BoxFuture<AsyncCompletion>>>);
    impl AsyncSink for Collect {
        fn submit(&self, job: BoxFuture<AsyncCompletion>) -> bool {
            self.0.lock().expect("not poisoned").push(job);
            true
        }
    }

    fn allow() -> Reply {
        Reply::Verdict(Verdict::allow())
    }

    fn deny(reason: &str) -> Reply {
        Reply::Verdict(Verdict::deny(reason))
    }

    fn modify(patch: Value) -> Reply {
        let Value::Object(map) = patch else {
            panic!("patch must be an object")
        };
        Reply::Verdict(Verdict {
            patch: Some(map),
            ..Verdict::with_action(Action::Modify)
        })
    }

    fn fail(kind: FailureKind) -> Reply {
        Reply::Failure(Failure {
            kind,
            message: "hook broken exited 3".into(),
        })
    }

    fn stop(reason: Option<&str>, action: Action) -> Reply {
        Reply::Verdict(Verdict {
            stop: Some(Stop {
                reason: reason.map(str::to_owned),
            }),
            ..Verdict::with_action(action)
        })
    }

    // guards: a hook's stop wins over every decision, ends the chain, and keeps the
    // decision the other hooks made
    #[test]
    fn a_stop_ends_the_chain_and_wins_over_the_decision() {
        let mut f = Fixture::new();
        f.hook("a", "tool.before", allow());
        f.hook(
            "halt",
            "tool.before",
            stop(Some("budget spent"), Action::Allow),
        );
        f.hook("c", "tool.before", deny("no"));
        let d = f.emit("PreToolUse", json!({}));
        assert_eq!(
            d.stop,
            Some(Stopped {
                by: "halt".into(),
                reason: Some("budget spent".into())
            })
        );
        assert_eq!(d.decision, Decision::Allow);
        assert_eq!(f.order(), ["a", "halt"]);
        assert_eq!(d.records[1].result, HookResult::Stop);
        assert_eq!(d.records[1].reason.as_deref(), Some("budget spent"));
        assert_eq!(
            d.records[2].skip,
            Some(SkipReason::ChainStopped { by: "halt".into() })
        );
    }

    #[test]
    fn a_deny_and_a_stop_of_one_hook_are_both_kept() {
        let mut f = Fixture::new();
        f.hook("guard", "tool.before", stop(None, Action::Deny));
        let d = f.emit("PreToolUse", json!({}));
        assert_eq!(d.decision, Decision::Deny);
        assert_eq!(
            d.stop,
            Some(Stopped {
                by: "guard".into(),
                reason: None
            })
        );
        assert_eq!(d.records[0].result, HookResult::Stop);
    }

    // guards: on notify and transform events a stop is kept (the agent stops whatever
    // the kind of event); on notify events every hook still runs, and the first
    // stopping hook keeps the first reason any of them gave
    #[test]
    fn notify_and_transform_events_carry_a_stop() {
        let mut f = Fixture::new();
        f.hook("quiet", "SessionStart", stop(None, Action::Allow));
        f.hook("loud", "SessionStart", stop(Some("done"), Action::Allow));
        f.hook("after", "SessionStart", allow());
        let d = f.emit("SessionStart", json!({}));
        assert_eq!(
            d.stop,
            Some(Stopped {
                by: "quiet".into(),
                reason: Some("done".into())
            })
        );
        assert_eq!(f.order(), ["quiet", "loud", "after"]);

        let mut f = Fixture::new();
        f.hook("halt", "model.before", stop(Some("quota"), Action::Deny));
        let d = f.emit("model.before", json!({}));
        assert_eq!(d.decision, Decision::Allow, "a transform hook cannot deny");
        assert_eq!(d.stop.map(|s| s.reason), Some(Some("quota".into())));
    }

    #[test]
    fn an_async_hooks_stop_is_ignored_with_a_warning() {
        let mut f = Fixture::new();
        f.hook("bg", "SessionStart", stop(Some("late"), Action::Allow))
            .mode = Mode::Async;
        let sink = Collect::default();
        let d = f.emit_with("SessionStart", json!({}), &sink);
        assert_eq!(d.stop, None);
        let jobs = std::mem::take(&mut *sink.0.lock().expect("not poisoned"));
        let done = jobs
            .into_iter()
            .next()
            .expect("one job")
            .now_or_never()
            .expect("ready");
        assert_eq!(
            done.warnings,
            ["async hook bg: `stop` ignored: the host had its answer before the hook ended"]
        );
    }

    #[test]
    fn first_deny_stops_the_chain_and_names_the_denier() {
        let mut f = Fixture::new();
        f.hook("a", "tool.before", allow());
        f.hook("guard", "tool.before", deny("no"));
        f.hook("c", "tool.before", allow());
        let d = f.emit("PreToolUse", json!({}));
        assert_eq!(d.decision, Decision::Deny);
        assert_eq!(d.decided_by.as_deref(), Some("guard"));
        assert_eq!(d.reason.as_deref(), Some("no"));
        assert_eq!(f.order(), ["a", "guard"]);
        assert_eq!(
            d.records[2].skip,
            Some(SkipReason::ChainStopped { by: "guard".into() })
        );
    }

    // guards: with hooks suppressed (`--no-hooks`) nothing runs and every hook of the
    // event is recorded as suppressed, not as allowed
    #[test]
    fn suppressed_hooks_do_not_run_and_are_recorded_as_suppressed() {
        let mut f = Fixture::new();
        f.hook("guard", "tool.before", deny("no"));
        f.hook("other", "tool.after", allow());
        f.registry.suppress_hooks();
        let d = f.emit("tool.before", json!({}));
        assert_eq!(d.decision, Decision::Allow);
        assert!(f.order().is_empty(), "{:?}", f.order());
        assert_eq!(d.records[0].skip, Some(SkipReason::Suppressed));
        assert_eq!(d.records[0].result, HookResult::Skipped);
        assert_eq!(d.records[1].skip, Some(SkipReason::OtherEvent));
    }

    #[test]
    fn modifies_accumulate_in_order() {
        let mut f = Fixture::new();
        f.hook(
            "one",
            "tool.before",
            modify(json!({"tool": {"input": {"n": 1}}})),
        );
        f.hook("two", "tool.before", modify(json!({"extra": true})));
        f.hook("three", "tool.before", allow());
        let d = f.emit(
            "tool.before",
            json!({"tool": {"name": "bash", "input": {"n": 0}}}),
        );
        let seen = f.seen.lock().expect("not poisoned").clone();
        assert_eq!(seen[1].1["tool"]["input"], json!({"n": 1}));
        assert_eq!(seen[2].1["extra"], json!(true));
        assert_eq!(
            Value::Object(d.payload.into_map()),
            json!({"tool": {"name": "bash", "input": {"n": 1}}, "extra": true})
        );
        assert_eq!(d.decision, Decision::Allow);
    }

    // guards: a shadow hook decides nothing: its deny neither denies nor stops the
    // chain, its context is not collected, and its record says what it would have done
    #[test]
    fn a_shadow_deny_is_recorded_and_the_chain_goes_on() {
        let mut f = Fixture::new();
        let denies = Reply::Verdict(Verdict {
            context: Some("from the shadow".into()),
            answer: Some(Box::new(json!({"decision": "block"}))),
            ..Verdict::deny("would refuse")
        });
        f.hook("candidate", "tool.before", denies).shadow = true;
        f.hook("after", "tool.before", allow());
        let d = f.emit("tool.before", json!({"tool": {"name": "bash"}}));
        assert_eq!(d.decision, Decision::Allow);
        assert_eq!((d.reason, d.decided_by), (None, None));
        assert!(d.context.is_empty(), "{:?}", d.context);
        assert_eq!(f.order(), ["candidate", "after"]);
        let shadow = &d.records[0];
        assert!(shadow.shadow);
        assert_eq!(shadow.result, HookResult::Deny);
        assert_eq!(shadow.reason.as_deref(), Some("would refuse"));
        assert_eq!(shadow.answer, None, "no host mode may fold it in");
        assert!(!d.records[1].shadow);
        assert_eq!(d.records[1].result, HookResult::Allow);
    }

    #[test]
    fn a_shadow_modify_or_stop_changes_nothing() {
        let mut f = Fixture::new();
        f.hook(
            "rewrites",
            "tool.before",
            modify(json!({"tool": {"input": {"n": 1}}})),
        )
        .shadow = true;
        f.hook("stops", "tool.before", stop(Some("enough"), Action::Allow))
            .shadow = true;
        f.hook("after", "tool.before", allow());
        let d = f.emit(
            "tool.before",
            json!({"tool": {"name": "bash", "input": {"n": 0}}}),
        );
        let seen = f.seen.lock().expect("not poisoned").clone();
        assert_eq!(seen[2].1["tool"]["input"], json!({"n": 0}));
        assert_eq!(
            Value::Object(d.payload.into_map()),
            json!({"tool": {"name": "bash", "input": {"n": 0}}})
        );
        assert_eq!(d.stop, None);
        assert_eq!(d.decision, Decision::Allow);
        let results: Vec<_> = d.records.iter().map(|r| (r.result, r.shadow)).collect();
        assert_eq!(
            results,
            [
                (HookResult::Modify, true),
                (HookResult::Stop, true),
                (HookResult::Allow, false)
            ]
        );
    }

    // guards: a replay that runs a hook which did not declare it has no side effects
    #[test]
    fn held_side_effects_run_only_the_hooks_declared_without_them() {
        let mut f = Fixture::new();
        f.hook("pure", "tool.before", deny("no")).side_effects = false;
        f.hook("writes", "tool.before", allow());
        f.registry.hold_side_effects();
        let d = f.emit("tool.before", json!({"tool": {"name": "bash"}}));
        assert_eq!(f.order(), ["pure"]);
        assert_eq!(d.decided_by.as_deref(), Some("pure"));
        assert_eq!(d.records[1].name, "writes");
        assert_eq!(d.records[1].skip, Some(SkipReason::SideEffects));
        assert_eq!(
            plan(&f.registry, &names().resolve("tool.before"), None)[1].skip,
            Some(SkipReason::SideEffects)
        );
    }

    #[test]
    fn priority_then_registration_order() {
        let mut f = Fixture::new();
        f.hook("late", "tool.before", allow()).priority = 200;
        f.hook("b", "tool.before", allow());
        f.hook("early", "tool.before", allow()).priority = 1;
        f.hook("c", "tool.before", allow());
        f.emit("tool.before", json!({}));
        assert_eq!(f.order(), ["early", "b", "c", "late"]);
    }

    #[test]
    fn ask_is_kept_unless_a_later_hook_denies() {
        let mut f = Fixture::new();
        f.hook(
            "asker",
            "tool.before",
            Reply::Verdict(Verdict {
                reason: Some("sure?".into()),
                ..Verdict::with_action(Action::Ask)
            }),
        );
        f.hook("b", "tool.before", allow());
        let d = f.emit("tool.before", json!({}));
        assert_eq!(d.decision, Decision::Ask);
        assert_eq!(d.decided_by.as_deref(), Some("asker"));
        f.hook("denier", "tool.before", deny("no"));
        let d = f.emit("tool.before", json!({}));
        assert_eq!(d.decision, Decision::Deny);
        assert_eq!(d.decided_by.as_deref(), Some("denier"));
    }

    #[test]
    fn failures_follow_on_error() {
        let mut f = Fixture::new();
        f.hook("broken", "tool.before", fail(FailureKind::Exit));
        let d = f.emit("tool.before", json!({}));
        assert_eq!(d.decision, Decision::Allow);
        assert_eq!(d.warnings, ["hook broken exited 3"]);
        assert_eq!(d.records[0].result, HookResult::Error);

        f.registry.unregister("broken");
        f.hook("broken", "tool.before", fail(FailureKind::Timeout))
            .on_error = OnError::Deny;
        let d = f.emit("tool.before", json!({}));
        assert_eq!(d.decision, Decision::Deny);
        assert_eq!(d.decided_by.as_deref(), Some("broken"));
        assert_eq!(d.records[0].result, HookResult::Timeout);
    }

    #[test]
    fn notify_ignores_denies_and_keeps_context() {
        let mut f = Fixture::new();
        f.hook("d", "session.start", deny("no"));
        f.hook(
            "ctx",
            "session.start",
            Reply::Verdict(Verdict {
                context: Some("hello".into()),
                ..Verdict::allow()
            }),
        );
        let d = f.emit("SessionStart", json!({}));
        assert_eq!(d.decision, Decision::Allow);
        assert_eq!(d.context, ["hello"]);
        assert_eq!(d.warnings.len(), 1, "{:?}", d.warnings);
    }

    #[test]
    fn transform_events_only_rewrite() {
        let mut f = Fixture::new();
        f.hook("d", "prompt.assemble", deny("no"));
        f.hook("m", "prompt.assemble", modify(json!({"prompt": "x"})));
        let d = f.emit("prompt.assemble", json!({"prompt": "a"}));
        assert_eq!(d.decision, Decision::Allow);
        assert_eq!(d.payload.as_map()["prompt"], json!("x"));
    }

    #[test]
    fn skips_record_why() {
        let mut f = Fixture::new();
        f.hook("other", "session.start", allow());
        f.hook("off", "tool.before", allow()).enabled = false;
        f.hook("edit-only", "tool.before", allow()).matcher =
            Matcher::regex("edit").expect("valid");
        let d = f.emit("tool.before", json!({"tool_name": "bash"}));
        let skips: Vec<String> = d
            .records
            .iter()
            .map(|r| r.skip.as_ref().map(ToString::to_string).unwrap_or_default())
            .collect();
        assert_eq!(
            skips,
            [
                "disabled",
                "matcher `edit` did not match tool `bash`",
                "other event"
            ]
        );
        assert!(f.order().is_empty());
    }

    #[test]
    fn async_hooks_get_the_modified_payload_and_cannot_modify() {
        let mut f = Fixture::new();
        f.hook("sync", "tool.after", modify(json!({"x": 2})));
        f.hook("bg", "tool.after", modify(json!({"x": 3}))).mode = Mode::Async;
        let sink = Collect::default();
        let d = f.emit_with("tool.after", json!({"x": 1}), &sink);
        assert_eq!(d.payload.as_map()["x"], json!(2));
        let bg = d.records.iter().find(|r| r.name == "bg").expect("recorded");
        assert_eq!(bg.result, HookResult::Dispatched);
        let jobs = std::mem::take(&mut *sink.0.lock().expect("not poisoned"));
        assert_eq!(jobs.len(), 1);
        let done = jobs
            .into_iter()
            .next()
            .expect("one job")
            .now_or_never()
            .expect("ready");
        assert_eq!(done.record.result, HookResult::Modify);
        assert!(done.warnings[0].contains("ignored"), "{:?}", done.warnings);
        let seen = f.seen.lock().expect("not poisoned").clone();
        assert_eq!(
            seen[1].1["x"],
            json!(2),
            "async hook sees the modified payload"
        );
    }

    #[test]
    fn refused_async_hooks_are_dropped_with_a_warning() {
        let mut f = Fixture::new();
        f.hook("bg", "message.after", allow()).mode = Mode::Async;
        let d = f.emit("post_message", json!({}));
        assert_eq!(d.records[0].skip, Some(SkipReason::AsyncCapReached));
        assert!(d.warnings[0].contains("dropped"), "{:?}", d.warnings);
    }

    #[test]
    fn a_parallel_group_runs_whole_and_the_most_restrictive_answer_wins() {
        let mut f = Fixture::new();
        f.hook("first", "tool.before", allow());
        for (name, reply) in [
            ("c-allow", allow()),
            (
                "c-ask",
                Reply::Verdict(Verdict {
                    reason: Some("sure?".into()),
                    ..Verdict::with_action(Action::Ask)
                }),
            ),
            ("c-deny", deny("no")),
            ("c-deny-too", deny("also no")),
        ] {
            f.hook(name, "tool.before", reply).group = Some("claude".into());
        }
        f.hook("after", "tool.before", allow());
        let d = f.emit("tool.before", json!({}));
        // Every member of the group ran, even after a deny among them; the hook after
        // the group did not.
        assert_eq!(
            f.order(),
            ["first", "c-allow", "c-ask", "c-deny", "c-deny-too"]
        );
        assert_eq!(d.decision, Decision::Deny);
        assert_eq!(d.decided_by.as_deref(), Some("c-deny"));
        assert_eq!(d.reason.as_deref(), Some("no"));
        assert_eq!(
            d.records.last().and_then(|r| r.skip.clone()),
            Some(SkipReason::ChainStopped {
                by: "c-deny".into()
            })
        );
    }

    #[test]
    fn a_deny_drops_collected_context() {
        let mut f = Fixture::new();
        f.hook(
            "ctx",
            "prompt.submit",
            Reply::Verdict(Verdict {
                context: Some("hello".into()),
                system_prompt_append: Some("be nice".into()),
                ..Verdict::allow()
            }),
        );
        f.hook("no", "prompt.submit", deny("stop"));
        let d = f.emit("UserPromptSubmit", json!({}));
        assert_eq!(d.decision, Decision::Deny);
        assert!(
            d.context.is_empty() && d.system_prompt_append.is_empty(),
            "{d:?}"
        );
    }

    #[test]
    fn untrusted_hooks_are_reported_not_run() {
        let mut f = Fixture::new();
        f.hook("repo-hook", "tool.before", deny("no")).untrusted =
            Some("run `hookrig trust /repo` to allow it".into());
        f.hook("other-tool", "tool.before", allow()).matcher =
            Matcher::regex("edit").expect("valid");
        let d = f.emit("tool.before", json!({"tool": {"name": "bash"}}));
        assert!(f.order().is_empty());
        assert_eq!(d.decision, Decision::Allow);
        assert_eq!(d.records[0].result, HookResult::Untrusted);
        assert_eq!(
            d.warnings,
            ["hook repo-hook was not run: run `hookrig trust /repo` to allow it"]
        );
    }

    #[test]
    fn plan_orders_sync_by_priority_then_async_then_other_events_and_runs_nothing() {
        let mut f = Fixture::new();
        f.hook("late", "tool.after", allow()).priority = 200;
        // Async hooks start after the chain, whatever their priority.
        let bg = f.hook("bg", "tool.after", allow());
        bg.mode = Mode::Async;
        bg.priority = 1;
        f.hook("early", "tool.after", allow()).priority = 1;
        f.hook("other", "session.start", allow()).priority = 0;
        f.hook("repo", "tool.after", deny("no")).untrusted = Some("run `hookrig trust`".into());
        f.hook("b", "tool.after", allow());
        f.hook("off", "tool.after", allow()).enabled = false;
        f.hook("edit-only", "tool.after", allow()).matcher = Matcher::regex("edit").expect("valid");
        f.hook("c", "tool.after", allow());

        let planned = plan(&f.registry, &names().resolve("PostToolUse"), Some("bash"));

        let rows: Vec<(&str, String)> = planned
            .iter()
            .map(|p| {
                let skip = p.skip.as_ref().map(ToString::to_string);
                (p.hook.spec.name.as_str(), skip.unwrap_or_default())
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("early", String::new()),
                ("repo", "not trusted".into()),
                ("b", String::new()),
                ("off", "disabled".into()),
                (
                    "edit-only",
                    "matcher `edit` did not match tool `bash`".into()
                ),
                ("c", String::new()),
                ("late", String::new()),
                ("bg", String::new()),
                ("other", "other event".into()),
            ]
        );
        assert!(
            f.order().is_empty(),
            "planning runs nothing: {:?}",
            f.order()
        );
    }

    #[test]
    fn registry_all_dedups_and_sorts() {
        let mut f = Fixture::new();
        f.hook("zeta", "tool.before", allow());
        f.hook("alpha", "tool.before", allow());
        f.hook("zeta", "session.start", allow());
        let names: Vec<&str> = f
            .registry
            .all()
            .iter()
            .map(|h| h.spec.name.as_str())
            .collect();
        assert_eq!(names, ["alpha", "zeta"]);
        assert_eq!(f.registry.all()[1].spec.events[0].as_str(), "tool.before");
        assert_eq!(f.registry.unregister("zeta"), 2);
        assert_eq!(f.registry.len(), 1);
    }

    /// A plugin's bus subscriptions and the registry's hooks in one chain.
    mod chain {
        use hookrig_test_support::Recorder;
        use serde_json::{Value, json};

        use super::*;
        use crate::bus::{Bus, BusHandler, SubscribeOptions, VetoReply};
        use crate::hook::HookSpec;

        fn payload(value: Value) -> Payload {
            let Value::Object(map) = value else {
                panic!("payload must be an object")
            };
            Payload::from_map(map)
        }

        /// A veto handler that logs `name` into `f`'s order and answers `reply`.
        fn veto(f: &Fixture, name: &str, reply: VetoReply) -> BusHandler {
            let (seen, name) = (Arc::clone(&f.seen), name.to_owned());
            BusHandler::veto(move |p| {
                seen.lock()
                    .expect("not poisoned")
                    .push((name.clone(), Value::Object(p.as_map().clone())));
                Ok(reply.clone())
            })
        }

        fn attach(f: &mut Fixture) -> Bus {
            let bus = Bus::with_names(&names());
            f.registry.attach_bus(&bus);
            bus
        }

        #[test]
        fn a_plugin_veto_stops_a_later_hook() {
            let mut f = Fixture::new();
            let bus = attach(&mut f);
            f.hook("shell", "tool.before", allow());
            bus.on(
                "tool.before@v1",
                "gate",
                veto(&f, "gate", VetoReply::deny("no rm")),
                50,
            )
            .expect("subscribes");
            let d = f.emit("PreToolUse", json!({"tool": {"name": "bash"}}));
            assert_eq!(d.decision, Decision::Deny);
            assert_eq!(d.decided_by.as_deref(), Some("gate"));
            assert_eq!(d.reason.as_deref(), Some("no rm"));
            assert_eq!(f.order(), ["gate"]);
            assert_eq!(d.records[0].dialect, crate::Dialect::Plugin);
            assert_eq!(d.records[0].result, HookResult::Deny);
            assert_eq!(
                d.records[1].skip,
                Some(SkipReason::ChainStopped { by: "gate".into() })
            );
        }

        #[test]
        fn a_hook_deny_stops_a_later_plugin() {
            let mut f = Fixture::new();
            let bus = attach(&mut f);
            bus.on(
                "tool.before",
                "gate",
                veto(&f, "gate", VetoReply::Allow),
                100,
            )
            .expect("subscribes");
            f.hook("shell", "tool.before", deny("hook says no"))
                .priority = 50;
            let d = f.emit("tool.before", json!({}));
            assert_eq!(d.decided_by.as_deref(), Some("shell"));
            assert_eq!(f.order(), ["shell"]);
            assert_eq!(d.records[1].name, "gate");
            assert_eq!(
                d.records[1].skip,
                Some(SkipReason::ChainStopped { by: "shell".into() })
            );
        }

        #[test]
        fn a_replacement_is_the_whole_payload_the_next_hook_sees() {
            let mut f = Fixture::new();
            let bus = attach(&mut f);
            let redacted = payload(json!({"tool": {"name": "bash", "input": {"command": "ls"}}}));
            bus.on(
                "tool.before",
                "redact",
                veto(&f, "redact", VetoReply::Replace(redacted)),
                10,
            )
            .expect("subscribes");
            f.hook("shell", "tool.before", allow());
            let d = f.emit(
                "tool.before",
                json!({"tool": {"name": "bash", "input": {"command": "ls", "secret": "x"}}, "token": "t"}),
            );
            let seen = f.seen.lock().expect("not poisoned").clone();
            // A patch could not have removed `secret` nor `token`: the replacement did.
            let expected = json!({"tool": {"name": "bash", "input": {"command": "ls"}}});
            assert_eq!(seen[1], ("shell".to_owned(), expected.clone()));
            assert_eq!(Value::Object(d.payload.into_map()), expected);
            assert_eq!(d.records[0].result, HookResult::Modify);
        }

        #[test]
        fn a_transform_returning_a_payload_modifies_and_none_keeps() {
            let mut f = Fixture::new();
            let bus = attach(&mut f);
            bus.on(
                "prompt.submit",
                "upper",
                BusHandler::transform(|p| {
                    let prompt = p.as_map()["prompt"].as_str().unwrap_or("").to_uppercase();
                    Ok(Some(payload(json!({ "prompt": prompt }))))
                }),
                10,
            )
            .expect("subscribes");
            bus.on(
                "prompt.submit",
                "keep",
                BusHandler::transform(|_| Ok(None)),
                20,
            )
            .expect("subscribes");
            f.hook("shell", "prompt.submit", allow());
            let d = f.emit("UserPromptSubmit", json!({"prompt": "hi", "extra": 1}));
            let seen = f.seen.lock().expect("not poisoned").clone();
            assert_eq!(seen[0].1, json!({"prompt": "HI"}));
            assert_eq!(d.records[1].result, HookResult::Allow);
        }

        #[test]
        fn ties_run_plugins_first_then_hooks_each_in_registration_order() {
            let mut f = Fixture::new();
            f.hook("h1", "tool.before", allow());
            let bus = attach(&mut f);
            bus.on("tool.before", "p1", veto(&f, "p1", VetoReply::Allow), 100)
                .expect("subscribes");
            f.hook("h2", "tool.before", allow());
            bus.on("tool.before", "p2", veto(&f, "p2", VetoReply::Allow), 100)
                .expect("subscribes");
            bus.on("tool.before", "p0", veto(&f, "p0", VetoReply::Allow), 0)
                .expect("subscribes");
            f.hook("h0", "tool.before", allow()).priority = 0;
            f.emit("tool.before", json!({}));
            assert_eq!(f.order(), ["p0", "h0", "p1", "p2", "h1", "h2"]);
        }

        #[test]
        fn subscriptions_changed_after_attaching_are_seen_by_the_next_dispatch() {
            let mut f = Fixture::new();
            let bus = attach(&mut f);
            f.hook("shell", "tool.before", allow());
            f.emit("tool.before", json!({}));
            let sub = bus
                .on(
                    "tool.before",
                    "late",
                    veto(&f, "late", VetoReply::Allow),
                    100,
                )
                .expect("subscribes");
            f.emit("tool.before", json!({}));
            assert!(sub.unsubscribe());
            f.emit("tool.before", json!({}));
            assert_eq!(f.order(), ["shell", "late", "shell", "shell"]);
        }

        /// Subscribes a listener to `plugin.error` that keeps what it receives.
        fn errors(bus: &Bus) -> Recorder<Value> {
            let got = Recorder::default();
            let keep = got.clone();
            bus.on(
                "plugin.error",
                "watcher",
                BusHandler::listener(move |p| {
                    keep.push(Value::Object(p.as_map().clone()));
                    Ok(())
                }),
                100,
            )
            .expect("subscribes");
            got
        }

        #[test]
        fn a_panicking_plugin_is_skipped_and_reported() {
            let mut f = Fixture::new();
            let bus = attach(&mut f);
            let reported = errors(&bus);
            bus.on(
                "tool.before",
                "broken",
                BusHandler::veto(|_| panic!("boom")),
                10,
            )
            .expect("subscribes");
            f.hook("shell", "tool.before", allow());
            let d = f.emit("tool.before", json!({}));
            assert_eq!(d.decision, Decision::Allow);
            assert_eq!(f.order(), ["shell"]);
            assert_eq!(d.records[0].result, HookResult::Error);
            assert_eq!(
                d.warnings,
                ["plugin `broken` failed on tool.before@v1: panicked: boom (skipped)"]
            );
            assert_eq!(
                reported.entries(),
                [
                    json!({"plugin_id": "broken", "event": "tool.before@v1", "message": "panicked: boom"})
                ]
            );
        }

        #[test]
        fn a_failing_plugin_in_fail_mode_denies_the_event() {
            let mut f = Fixture::new();
            let bus = attach(&mut f);
            let reported = errors(&bus);
            bus.on(
                "tool.before",
                "strict",
                BusHandler::veto(|_| Err("policy store unreachable".into())),
                SubscribeOptions::from(10).fail(),
            )
            .expect("subscribes");
            f.hook("shell", "tool.before", allow());
            let d = f.emit("tool.before", json!({}));
            assert_eq!(d.decision, Decision::Deny);
            assert_eq!(d.decided_by.as_deref(), Some("strict"));
            assert_eq!(
                d.reason.as_deref(),
                Some("plugin `strict` failed on tool.before@v1: policy store unreachable")
            );
            assert!(f.order().is_empty());
            assert!(reported.is_empty());
        }

        #[test]
        fn notify_listeners_run_with_the_notify_hooks() {
            let mut f = Fixture::new();
            let bus = attach(&mut f);
            f.hook("shell", "session.start", allow());
            let seen = Arc::clone(&f.seen);
            bus.on(
                "session.opened@v1",
                "audit",
                BusHandler::listener(move |p| {
                    seen.lock()
                        .expect("not poisoned")
                        .push(("audit".into(), Value::Object(p.as_map().clone())));
                    Ok(())
                }),
                HookSpec::DEFAULT_PRIORITY,
            )
            .expect("subscribes");
            let d = f.emit("SessionStart", json!({"session": {"id": "s"}}));
            assert_eq!(f.order(), ["audit", "shell"]);
            assert_eq!(d.records[0].result, HookResult::Allow);
            assert_eq!(
                d.records[0].source,
                std::path::PathBuf::from("plugin:audit")
            );
        }

        #[test]
        fn fail_mode_on_a_notify_event_is_a_warning() {
            let mut f = Fixture::new();
            let bus = attach(&mut f);
            f.hook("shell", "session.start", allow());
            bus.on(
                "session.start",
                "strict",
                BusHandler::listener(|_| Err("no".into())),
                SubscribeOptions::from(10).fail(),
            )
            .expect("subscribes");
            let d = f.emit("session.start", json!({}));
            assert_eq!(d.decision, Decision::Allow);
            assert_eq!(f.order(), ["shell"]);
            assert_eq!(
                d.warnings,
                ["plugin `strict` failed on session.start@v1: no"]
            );
        }

        #[test]
        fn a_failing_plugin_error_listener_is_not_reported_again() {
            let mut f = Fixture::new();
            let bus = attach(&mut f);
            let reported = errors(&bus);
            bus.on(
                "plugin.error",
                "broken",
                BusHandler::listener(|_| Err("again".into())),
                10,
            )
            .expect("subscribes");
            let d = f.emit("plugin.error", json!({"plugin_id": "x"}));
            // The watcher got the host's event once, and nothing about `broken`.
            assert_eq!(reported.entries(), [json!({"plugin_id": "x"})]);
            assert_eq!(
                d.warnings,
                ["plugin `broken` failed on plugin.error@v1: again (skipped)"]
            );
        }

        #[test]
        fn a_listener_on_tool_after_runs_in_the_chain_and_cannot_change_it() {
            let mut f = Fixture::new();
            let bus = attach(&mut f);
            f.hook("shell", "tool.after", modify(json!({"note": 1})));
            let seen = Arc::clone(&f.seen);
            bus.on(
                "PostToolUse",
                "after",
                BusHandler::listener(move |p| {
                    seen.lock()
                        .expect("not poisoned")
                        .push(("after".into(), Value::Object(p.as_map().clone())));
                    Ok(())
                }),
                200,
            )
            .expect("subscribes");
            let d = f.emit("tool.after", json!({}));
            let seen = f.seen.lock().expect("not poisoned").clone();
            assert_eq!(seen[1], ("after".to_owned(), json!({"note": 1})));
            assert_eq!(d.decision, Decision::Allow);
        }
    }
}
