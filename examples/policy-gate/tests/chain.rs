//! The gate's veto and a real command hook in one chain, emitted through the runtime as
//! an embedding agent would: a refused tool call never reaches the shell hook, and both
//! calls are in the ledger.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use hookrig_config::Environment;
use hookrig_core::{
    Bus, Decision, LogLevel, LogSink, MemoryView, Payload, PluginHost, SessionView, Tools,
};
use hookrig_example_policy_gate::{PolicyGate, REASON};
use hookrig_runtime::{Decided, Emit, EmitRequest, Scope};
use serde_json::{Value, json};

struct Quiet;
impl LogSink for Quiet {
    fn log(&self, _plugin_id: &str, _level: LogLevel, _message: &str) {}
}

/// A bus with the gate installed, as an agent does when it starts.
fn gate() -> Bus {
    let bus = hookrig_dialects::events::bus();
    let mut tools = Tools::new();
    let memory: Arc<dyn MemoryView> = Arc::new(BTreeMap::new());
    let log: Arc<dyn LogSink> = Arc::new(Quiet);
    PluginHost {
        bus: &bus,
        tools: &mut tools,
        session: &SessionView::default(),
        memory: &memory,
        log: &log,
    }
    .install(&PolicyGate::default())
    .expect("installs");
    bus
}

/// A scope whose user config (under `dir`) has a native command hook on `tool.before`
/// (default priority 100) that touches `marker`, and whose ledger is under `dir` too.
fn scope(dir: &Path, marker: &Path) -> Scope {
    let env = Environment {
        home: dir.join("home"),
        config_home: dir.join("config"),
        state_home: dir.join("state"),
        data_home: dir.join("data"),
        xcode_home: dir.join("x-code"),
        cwd: dir.join("work"),
        trust_all: false,
    };
    std::fs::create_dir_all(&env.cwd).expect("work dir");
    let hooks = env.global_native();
    std::fs::create_dir_all(hooks.parent().expect("a parent")).expect("config dir");
    std::fs::write(
        &hooks,
        format!(
            "[[hooks]]\nname = \"marker\"\nevents = [\"tool.before\"]\ncommand = \"touch '{}'\"\n",
            marker.display()
        ),
    )
    .expect("hooks.toml");
    Scope {
        store: dir.join("state").join("ledger.db"),
        env,
        agent: None,
        plan: None,
        record: true,
        host_env: None,
        ledger_writers: None,
        store_url: None,
        shared_registry: None,
    }
}

fn emit(scope: &Scope, bus: &Bus, command: &str) -> Decided {
    let Value::Object(map) = json!({"tool": {"name": "bash", "input": {"command": command}}})
    else {
        unreachable!("an object literal")
    };
    let mut request = EmitRequest::new(
        hookrig_dialects::events::parse("PreToolUse").expect("a catalog alias"),
        Payload::from_map(map),
    );
    request.bus = Some(bus.clone());
    Emit::prepare(scope, request)
        .and_then(hookrig_runtime::Prepared::dispatch)
        .expect("emits")
}

#[test]
fn the_veto_stops_a_command_hook_later_in_the_chain() {
    let dir = tempfile::tempdir().expect("temp dir");
    let marker = dir.path().join("hook-ran");
    let scope = scope(dir.path(), &marker);

    let refused = emit(&scope, &gate(), "rm -rf /");
    let run_id = refused.run_id().to_owned();

    assert_eq!(refused.dispatched.decision, Decision::Deny);
    assert_eq!(
        refused.dispatched.decided_by.as_deref(),
        Some("policy-gate")
    );
    assert_eq!(refused.dispatched.reason.as_deref(), Some(REASON));
    assert!(!marker.exists(), "the command hook ran after the veto");
    let finished = refused.finish();
    assert!(finished.late_warnings.is_empty(), "{finished:?}");
    let ledger = hookrig_store::Store::open(&scope.store).expect("ledger");
    let recorded = ledger
        .emits()
        .detail(&run_id)
        .expect("reads")
        .expect("the emit is recorded")
        .emit;
    assert_eq!(recorded.decision, hookrig_store::EmitDecision::Deny);
    assert_eq!(recorded.decided_by.as_deref(), Some("policy-gate"));
}

#[test]
fn an_allowed_call_reaches_the_command_hook() {
    // The counterpart that makes the test above meaningful: the same hook does run.
    let dir = tempfile::tempdir().expect("temp dir");
    let marker = dir.path().join("hook-ran");
    let scope = scope(dir.path(), &marker);

    let allowed = emit(&scope, &gate(), "ls -la");

    assert_eq!(allowed.dispatched.decision, Decision::Allow, "{allowed:?}");
    assert!(marker.exists(), "the command hook did not run");
    let ran: Vec<(&str, &str)> = allowed
        .dispatched
        .records
        .iter()
        .map(|r| (r.name.as_str(), r.result.as_str()))
        .collect();
    assert_eq!(ran, [("policy-gate", "allow"), ("marker", "allow")]);
    allowed.finish();
}
