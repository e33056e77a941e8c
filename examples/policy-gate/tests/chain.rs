//! The gate's veto and a real command hook in one chain: a refused tool call never
//! reaches the shell hook.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use hookrig_core::{
    AsyncCompletion, AsyncSink, BoxFuture, Bus, Decision, Dispatched, Event, EventContext,
    EventName, Hook, HookSpec, Level, LogLevel, LogSink, Matcher, MemoryView, Mode, OnError,
    Payload, PluginHost, Registry, SessionView, Source, Tools, dispatch,
};
use hookrig_dialects::NativeProtocol;
use hookrig_example_policy_gate::{PolicyGate, REASON};
use hookrig_exec::{CommandDef, CommandHandler, Limits, ProcessGroups};
use serde_json::{Value, json};

struct Quiet;
impl LogSink for Quiet {
    fn log(&self, _plugin_id: &str, _level: LogLevel, _message: &str) {}
}

struct NoAsync;
impl AsyncSink for NoAsync {
    fn submit(&self, _job: BoxFuture<AsyncCompletion>) -> bool {
        false
    }
}

/// A registry with the gate installed on its bus first, then a native command hook on
/// `tool.before` (default priority 100) that touches `marker`.
fn registry(bus: &Bus, marker: &Path) -> Registry {
    let mut tools = Tools::new();
    let memory: Arc<dyn MemoryView> = Arc::new(BTreeMap::new());
    let log: Arc<dyn LogSink> = Arc::new(Quiet);
    PluginHost {
        bus,
        tools: &mut tools,
        session: &SessionView::default(),
        memory: &memory,
        log: &log,
    }
    .install(&PolicyGate::default())
    .expect("installs");

    let mut registry = Registry::new();
    registry.attach_bus(bus);
    let line = format!("touch '{}'", marker.display());
    registry.register(Hook {
        spec: HookSpec {
            name: "marker".into(),
            events: vec![EventName::resolve("tool.before")],
            matcher: Matcher::Any,
            priority: HookSpec::DEFAULT_PRIORITY,
            mode: Mode::Sync,
            enabled: true,
            on_error: OnError::Allow,
            source: Source {
                path: "/cfg/hooks.toml".into(),
                dialect: hookrig_core::Dialect::Native,
                level: Level::Global,
            },
            description: None,
            timeout: Some(Limits::DEFAULT_TIMEOUT),
            group: None,
            matcher_field: None,
            untrusted: None,
        },
        handler: Arc::new(CommandHandler::new(
            "marker",
            CommandDef::Shell { line, script: None },
            Vec::new(),
            Limits::default(),
            Arc::new(NativeProtocol),
            ProcessGroups::new(),
        )),
    });
    registry
}

async fn emit(registry: &Registry, cwd: &Path, command: &str) -> Dispatched {
    let Value::Object(map) = json!({"tool": {"name": "bash", "input": {"command": command}}})
    else {
        unreachable!("an object literal")
    };
    let event = Event {
        context: Arc::new(EventContext {
            name: EventName::resolve("PreToolUse"),
            session_id: "s1".into(),
            cwd: cwd.to_path_buf(),
        }),
        payload: Payload::from_map(map),
    };
    dispatch(registry, event, &NoAsync).await
}

#[tokio::test]
async fn the_veto_stops_a_command_hook_later_in_the_chain() {
    let dir = tempfile::tempdir().expect("temp dir");
    let marker = dir.path().join("hook-ran");
    let bus = Bus::new();
    let registry = registry(&bus, &marker);

    let refused = emit(&registry, dir.path(), "rm -rf /").await;

    assert_eq!(refused.decision, Decision::Deny);
    assert_eq!(refused.decided_by.as_deref(), Some("policy-gate"));
    assert_eq!(refused.reason.as_deref(), Some(REASON));
    assert!(!marker.exists(), "the command hook ran after the veto");
}

#[tokio::test]
async fn an_allowed_call_reaches_the_command_hook() {
    // The counterpart that makes the test above meaningful: the same hook does run.
    let dir = tempfile::tempdir().expect("temp dir");
    let marker = dir.path().join("hook-ran");
    let bus = Bus::new();
    let registry = registry(&bus, &marker);

    let allowed = emit(&registry, dir.path(), "ls -la").await;

    assert_eq!(allowed.decision, Decision::Allow, "{allowed:?}");
    assert!(marker.exists(), "the command hook did not run");
    let ran: Vec<(&str, &str)> = allowed
        .records
        .iter()
        .map(|r| (r.name.as_str(), r.result.as_str()))
        .collect();
    assert_eq!(ran, [("policy-gate", "allow"), ("marker", "allow")]);
}
