//! One emit end to end: config, hooks, decision, ledger rows, async hooks.

use std::time::Duration;

use hookrig_core::{Decision, EventName};
use hookrig_runtime::{Emit, EmitRequest, Scope, Suppress};
use hookrig_store::Store;

use crate::support::{decide, payload, scope, world};

fn tool_before(command: &str) -> EmitRequest {
    EmitRequest::new(
        EventName::resolve("tool.before"),
        payload(&format!(
            r#"{{"tool":{{"name":"bash","input":{{"command":"{command}"}}}}}}"#
        )),
    )
}

#[test]
fn a_deny_decides_and_the_emit_and_its_hooks_are_recorded() {
    let env = world();
    env.write_script(".hookrig/guard.sh", "echo 'no rm' >&2; exit 2");
    env.write_project_config(
        r#"
        [[hooks]]
        name = "guard"
        events = ["tool.before"]
        command = "./guard.sh"

        [[hooks]]
        name = "later"
        events = ["PreToolUse"]
        command = "true"
        priority = 200
        "#,
    );
    let scope = scope(&env);

    let decided = decide(&scope, tool_before("rm -rf /"));
    assert_eq!(decided.dispatched.decision, Decision::Deny);
    assert_eq!(decided.dispatched.decided_by.as_deref(), Some("guard"));
    assert_eq!(decided.outcome().reason, Some("no rm"));
    let run_id = decided.run_id().to_owned();
    let finished = decided.finish();
    assert_eq!(finished.interrupted, None);
    assert!(finished.late_warnings.is_empty(), "{finished:?}");

    let emit = Store::open(&scope.store)
        .expect("ledger")
        .emits()
        .detail(&run_id)
        .expect("reads")
        .expect("recorded")
        .emit;
    assert_eq!(emit.decision, hookrig_store::EmitDecision::Deny);
    assert_eq!(emit.event, "tool.before");
    assert_eq!(emit.dialect, hookrig_core::Dialect::Native);
    let hooks: Vec<(&str, &str, bool)> = emit
        .hooks
        .iter()
        .map(|h| (h.name.as_str(), h.result.as_str(), h.matched))
        .collect();
    assert_eq!(hooks, [("guard", "deny", true), ("later", "skipped", true)]);
}

/// The ledger's row of `run_id` as it is now: its decision, or `None` when there is none.
fn decision_now(scope: &Scope, run_id: &str) -> Option<hookrig_store::EmitDecision> {
    Store::open(&scope.store)
        .expect("ledger")
        .emits()
        .detail(run_id)
        .expect("reads")
        .map(|detail| detail.emit.decision)
}

/// [`decide`], writing the `running` row after `after` of hooks running.
fn decide_with_running_row_after(
    scope: &Scope,
    request: EmitRequest,
    after: Duration,
) -> hookrig_runtime::Decided {
    Emit::prepare(scope, request)
        .map(|prepared| prepared.with_running_row_after(after))
        .and_then(hookrig_runtime::Prepared::dispatch)
        .expect("the emit runs")
}

#[test]
fn an_emit_is_recorded_running_only_when_a_hook_would_run_for_it() {
    let env = world();
    env.write_project_config(
        "[[hooks]]\nname = \"ok\"\nevents = [\"tool.before\"]\ncommand = \"true\"\n",
    );
    let scope = scope(&env);

    // Decided, not finished: what the ledger holds is what a SIGKILL here would leave.
    let hooked = decide_with_running_row_after(&scope, tool_before("ls"), Duration::ZERO);
    let run_id = hooked.run_id().to_owned();
    assert_eq!(
        decision_now(&scope, &run_id),
        Some(hookrig_store::EmitDecision::Running)
    );
    hooked.finish();
    assert_eq!(
        decision_now(&scope, &run_id),
        Some(hookrig_store::EmitDecision::Allow)
    );

    // Nothing listens to session.start: its one row is written at the end.
    let unhooked = decide_with_running_row_after(
        &scope,
        EmitRequest::new(EventName::resolve("session.start"), payload("{}")),
        Duration::ZERO,
    );
    let run_id = unhooked.run_id().to_owned();
    assert_eq!(decision_now(&scope, &run_id), None);
    unhooked.finish();
    assert_eq!(
        decision_now(&scope, &run_id),
        Some(hookrig_store::EmitDecision::Allow)
    );

    // A hook listens to tool.before but its matcher refuses the tool: none can run, so
    // the row is written at the end too, with the hook recorded as not matched.
    env.write_project_config(
        "[[hooks]]\nname = \"edits\"\nevents = [\"tool.before\"]\nmatcher = \"^edit$\"\ncommand = \"true\"\n",
    );
    let unmatched = decide_with_running_row_after(&scope, tool_before("ls"), Duration::ZERO);
    let run_id = unmatched.run_id().to_owned();
    assert_eq!(decision_now(&scope, &run_id), None);
    unmatched.finish();
    assert_eq!(
        decision_now(&scope, &run_id),
        Some(hookrig_store::EmitDecision::Allow)
    );
}

#[test]
fn the_running_row_is_written_once_the_hooks_have_run_for_a_while() {
    let env = world();
    env.write_project_config(
        "[[hooks]]\nname = \"slow\"\nevents = [\"tool.before\"]\ncommand = \"sleep 1\"\n",
    );
    let scope = scope(&env);

    // The hook outlives the delay: the row was written while it ran.
    let slow = decide_with_running_row_after(&scope, tool_before("ls"), Duration::from_millis(10));
    let run_id = slow.run_id().to_owned();
    assert_eq!(
        decision_now(&scope, &run_id),
        Some(hookrig_store::EmitDecision::Running)
    );
    slow.finish();
    assert_eq!(
        decision_now(&scope, &run_id),
        Some(hookrig_store::EmitDecision::Allow)
    );

    // The hooks end before the delay: one row, written whole at the end.
    env.write_project_config(
        "[[hooks]]\nname = \"quick\"\nevents = [\"tool.before\"]\ncommand = \"true\"\n",
    );
    let quick = decide_with_running_row_after(&scope, tool_before("ls"), Duration::from_hours(1));
    let run_id = quick.run_id().to_owned();
    assert_eq!(decision_now(&scope, &run_id), None);
    quick.finish();
    let emit = Store::open(&scope.store)
        .expect("ledger")
        .emits()
        .detail(&run_id)
        .expect("reads")
        .expect("recorded at the end")
        .emit;
    assert_eq!(emit.decision, hookrig_store::EmitDecision::Allow);
    let hooks: Vec<(&str, &str)> = emit
        .hooks
        .iter()
        .map(|h| (h.name.as_str(), h.result.as_str()))
        .collect();
    assert_eq!(hooks, [("quick", "allow")]);
}

#[test]
fn without_recording_nothing_is_written() {
    let env = world();
    env.write_project_config(
        "[[hooks]]\nname = \"ok\"\nevents = [\"tool.before\"]\ncommand = \"true\"\n",
    );
    let mut scope = scope(&env);
    scope.record = false;

    let decided = decide(&scope, tool_before("ls"));
    assert_eq!(decided.dispatched.decision, Decision::Allow);
    decided.finish();
    assert!(!scope.store.exists(), "--no-ledger created the ledger");
}

#[test]
fn a_ledger_that_cannot_be_opened_never_stops_the_hooks_from_deciding() {
    // guards: a corrupt ledger made the emit fail, which hosts read as a non-blocking
    // error, so the user's guard was switched off
    let env = world();
    env.write_script(".hookrig/guard.sh", "exit 2");
    env.write_project_config(
        "[[hooks]]\nname = \"guard\"\nevents = [\"tool.before\"]\ncommand = \"./guard.sh\"\n",
    );
    let scope = scope(&env);
    std::fs::create_dir_all(scope.store.parent().expect("a parent")).expect("state dir");
    std::fs::write(&scope.store, b"this is not a database").expect("corrupt ledger");

    let decided = decide(&scope, tool_before("rm -rf /"));
    assert_eq!(decided.dispatched.decision, Decision::Deny);
    assert!(
        decided
            .warnings
            .iter()
            .any(|w| w.starts_with("ledger: ") && w.ends_with("this emit is not recorded")),
        "{:?}",
        decided.warnings
    );
    decided.finish();
}

#[test]
fn async_hooks_are_recorded_once_they_end() {
    let env = world();
    let marker = env.root().join("async-ran");
    env.write_project_config(&format!(
        r#"
        [[hooks]]
        name = "later"
        events = ["session.start"]
        mode = "async"
        command = "sleep 0.2; touch '{}'"
        "#,
        marker.display()
    ));
    let scope = scope(&env);

    let decided = decide(
        &scope,
        EmitRequest::new(
            hookrig_dialects::events::resolve("SessionStart"),
            payload("{}"),
        ),
    );
    assert_eq!(decided.outcome().hooks[0].result, "dispatched");
    let run_id = decided.run_id().to_owned();
    decided.finish();

    assert!(marker.exists(), "the async hook was not waited for");
    let emit = Store::open(&scope.store)
        .expect("ledger")
        .emits()
        .detail(&run_id)
        .expect("reads")
        .expect("recorded")
        .emit;
    assert_eq!(
        emit.hooks[0].result,
        hookrig_core::HookResult::Allow,
        "{:?}",
        emit.hooks
    );
}

/// An async hook on session.start that runs `command`, and the emit that dispatched it.
fn async_emit(
    env: &hookrig_test_support::TestEnv,
    command: &str,
) -> (Scope, hookrig_runtime::Decided) {
    env.write_project_config(&format!(
        "[[hooks]]\nname = \"later\"\nevents = [\"session.start\"]\nmode = \"async\"\ncommand = '''{command}'''\n"
    ));
    let scope = scope(env);
    let decided = decide(
        &scope,
        EmitRequest::new(
            hookrig_dialects::events::resolve("SessionStart"),
            payload("{}"),
        ),
    );
    assert_eq!(decided.outcome().hooks[0].result, "dispatched");
    (scope, decided)
}

fn async_row(scope: &Scope, run_id: &str) -> hookrig_store::HookRun {
    Store::open(&scope.store)
        .expect("ledger")
        .emits()
        .detail(run_id)
        .expect("reads")
        .expect("recorded")
        .emit
        .hooks
        .remove(0)
}

#[test]
fn async_hooks_still_running_after_the_drain_are_killed() {
    // Without a keeper (an embedder, or a keeper that cannot start) the emit waits up to
    // its drain time for its async hooks, then kills them with their children.
    let env = world();
    let sleep = env.marked_sleep();
    let (scope, decided) = async_emit(
        &env,
        &format!("'{0}' 30 & touch started; '{0}' 30", sleep.display()),
    );
    let run_id = decided.run_id().to_owned();

    // A hang here is caught by the test runner's own limits.
    decided.finish();

    assert!(env.project().join("started").exists(), "the hook did start");
    let left = env.leftovers();
    assert!(left.is_empty(), "the async hook's group survived: {left:?}");
    let row = async_row(&scope, &run_id);
    assert_eq!(row.result, hookrig_core::HookResult::Error, "{row:?}");
}

#[test]
fn a_keeper_that_cannot_start_leaves_async_hooks_to_the_drain_with_a_warning() {
    // Armed for this test's process only (nextest runs each test in a process of its
    // own): the keeper's program does not exist.
    hookrig_exec::keeper::arm(std::path::PathBuf::from("/nonexistent/hookrig"));
    let env = world();
    let marker = env.root().join("async-ran");
    let (scope, decided) = async_emit(&env, &format!("sleep 0.2; touch '{}'", marker.display()));
    let run_id = decided.run_id().to_owned();

    let finished = decided.finish();

    assert_eq!(finished.late_warnings.len(), 1, "{finished:?}");
    assert!(
        finished.late_warnings[0].starts_with("cannot start the async keeper ("),
        "{finished:?}"
    );
    assert!(marker.exists(), "the async hook ran in the emit's process");
    let row = async_row(&scope, &run_id);
    assert_eq!(row.result, hookrig_core::HookResult::Allow, "{row:?}");
}

#[test]
fn suppressed_hooks_are_loaded_and_not_run() {
    let env = world();
    let marker = env.root().join("ran");
    env.write_project_config(&format!(
        "[[hooks]]\nname = \"m\"\nevents = [\"tool.before\"]\ncommand = \"touch '{}'\"\n",
        marker.display()
    ));
    let scope = scope(&env);
    let mut request = tool_before("ls");
    request.suppress = Suppress {
        hooks: true,
        plugins: false,
        side_effects: false,
    };

    let decided = decide(&scope, request);
    assert!(!marker.exists());
    assert_eq!(decided.outcome().hooks[0].result, "skipped");
    assert!(
        decided
            .warnings
            .iter()
            .any(|w| w.contains("1 hook of tool.before not run")),
        "{:?}",
        decided.warnings
    );
    decided.finish();
}

#[test]
fn an_emit_whose_scope_carries_ledger_writers_records_through_them() {
    // guards: the scope's ledger writers (an engine's) select the batched path, and each
    // step returns only once its rows are committed: the finished row when the emit is
    // recorded, the async hook's row when it is drained
    let env = world();
    env.write_project_config(
        r#"
        [[hooks]]
        name = "guard"
        events = ["tool.before"]
        command = "exit 2"

        [[hooks]]
        name = "later"
        events = ["message.after"]
        mode = "async"
        command = "true"
        "#,
    );
    let writers = hookrig_runtime::ledger::Writers::new();
    let mut scope = scope(&env);
    scope.ledger_writers = Some(writers.clone());
    let read = |run_id: &str| {
        Store::open_read_only(&scope.store)
            .expect("ledger")
            .emits()
            .detail(run_id)
            .expect("reads")
            .expect("recorded")
            .emit
    };

    let decided = decide(&scope, tool_before("rm -rf /"));
    let run_id = decided.run_id().to_owned();
    let recorded = decided.record();
    assert!(recorded.late_warnings().is_empty(), "{recorded:?}");
    assert_eq!(read(&run_id).decision, hookrig_store::EmitDecision::Deny);
    assert!(writers.batches() >= 1, "written by the writer");

    let decided = decide(
        &scope,
        EmitRequest::new(EventName::resolve("message.after"), payload("{}")),
    );
    let run_id = decided.run_id().to_owned();
    let recorded = decided.record();
    assert_eq!(
        read(&run_id).hooks[0].result,
        hookrig_core::HookResult::Dispatched
    );
    recorded.drain_within(std::time::Duration::from_secs(30));
    let later = &read(&run_id).hooks[0];
    assert_eq!(later.result, hookrig_core::HookResult::Allow, "{later:?}");

    writers.stop();
    assert_eq!(writers.waiting(), 0);
}
