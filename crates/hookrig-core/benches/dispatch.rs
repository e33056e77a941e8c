//! Benchmarks of the dispatcher (divan).
//!
//! The dispatcher is driven with in-process handlers that answer `allow` at once, so
//! these figures are the dispatcher's own cost per emit: scanning the registry, testing
//! matchers, cloning the payload for each hook, building the records. Process spawns are
//! measured end to end by `scripts/bench-emit.sh` instead.
//!
//! Run with `cargo bench -p hookrig-core --bench dispatch`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use divan::Bencher;
use futures_util::FutureExt as _;
use hookrig_core::{
    AsyncCompletion, AsyncSink, BoxFuture, Dispatched, Event, EventContext, EventName, Handler,
    Hook, HookSpec, Invocation, Level, Matcher, Mode, OnError, Payload, Registry, Reply, Report,
    Source, Verdict, dispatch,
};
use serde_json::{Value, json};

fn main() {
    divan::main();
}

/// Answers `allow` immediately, without looking at the payload.
#[derive(Debug)]
struct AllowAtOnce;

impl Handler for AllowAtOnce {
    fn run(&self, _invocation: Invocation) -> BoxFuture<Report> {
        let report = Report::from_reply(Reply::Verdict(Verdict::allow()), Duration::ZERO);
        Box::pin(std::future::ready(report))
    }
}

/// Refuses async jobs; none of the benchmarked hooks is async.
struct RefuseAll;

impl AsyncSink for RefuseAll {
    fn submit(&self, _job: BoxFuture<AsyncCompletion>) -> bool {
        false
    }
}

fn hook(name: String, event: &str, matcher: Matcher) -> Hook {
    Hook {
        spec: HookSpec {
            name,
            events: vec![EventName::resolve(event)],
            matcher,
            priority: HookSpec::DEFAULT_PRIORITY,
            mode: Mode::Sync,
            enabled: true,
            on_error: OnError::Allow,
            source: Source {
                path: PathBuf::from("/home/user/project/.hookrig/hooks.toml"),
                dialect: hookrig_core::Dialect::Native,
                level: Level::Project,
            },
            description: Some("a benchmark hook".to_owned()),
            timeout: Some(Duration::from_secs(30)),
            group: None,
            matcher_field: None,
            untrusted: None,
            shadow: false,
            side_effects: true,
        },
        handler: Arc::new(AllowAtOnce),
    }
}

/// A `tool.before` event for the tool `bash`, with a payload of the size a coding agent
/// sends for a shell command (a few hundred bytes).
fn tool_event() -> Event {
    let Value::Object(map) = json!({
        "session": {"id": "0b6f7a1e-5d7c-4c1e-9a57-6c1f0e2d9a10", "cwd": "/home/user/project", "model": "some-model", "agent": "some-agent"},
        "tool": {
            "name": "bash",
            "call_id": "call_01HZX3J8Q2",
            "input": {"command": "cargo test --workspace --all-features", "description": "Run the test suite", "timeout": 120_000}
        },
        "transcript_path": "/home/user/.agent/sessions/0b6f7a1e.jsonl"
    }) else {
        unreachable!("a JSON object literal")
    };
    Event {
        context: Arc::new(EventContext {
            name: EventName::resolve("tool.before"),
            session_id: "0b6f7a1e-5d7c-4c1e-9a57-6c1f0e2d9a10".to_owned(),
            cwd: PathBuf::from("/home/user/project"),
            env: None,
        }),
        payload: Payload::from_map(map),
    }
}

/// The mix of `scripts/bench-emit.sh` scenario (c): 200 hooks, none of which runs for
/// `tool.before` on `bash`.
///
/// - 100 `tool.before` hooks with literal matchers naming other tools,
/// - 50 `tool.before` hooks with regex matchers that do not match `bash`,
/// - 50 hooks on other events.
fn none_matching_registry() -> Registry {
    const OTHER_EVENTS: [&str; 5] = [
        "session.start",
        "tool.after",
        "prompt.submit",
        "message.after",
        "turn.complete",
    ];
    let mut registry = Registry::new();
    for i in 0..200 {
        let name = format!("hook-{i:03}");
        let hook = match i % 4 {
            0 | 1 => hook(
                name,
                "tool.before",
                Matcher::regex(&format!("write_file_{i}|edit_{i}")).expect("valid"),
            ),
            2 => hook(
                name,
                "tool.before",
                Matcher::regex(&format!("^mcp__server{i}__.*$")).expect("valid"),
            ),
            _ => hook(name, OTHER_EVENTS[i % OTHER_EVENTS.len()], Matcher::Any),
        };
        registry.register(hook);
    }
    registry
}

fn run(registry: &Registry, event: Event) -> Dispatched {
    dispatch(registry, event, &RefuseAll)
        .now_or_never()
        .expect("in-process handlers never wait")
}

/// One `tool.before` event through `n` hooks that all match and all answer allow.
#[divan::bench(args = [1, 10, 200])]
fn dispatch_matching(bencher: Bencher<'_, '_>, n: usize) {
    let mut registry = Registry::new();
    for i in 0..n {
        registry.register(hook(format!("hook-{i:03}"), "tool.before", Matcher::Any));
    }
    let event = tool_event();
    assert_eq!(run(&registry, event.clone()).records.len(), n);
    bencher
        .with_inputs(|| event.clone())
        .bench_local_values(|event| run(&registry, event));
}

/// One `tool.before` event through 200 registered hooks of which none matches.
#[divan::bench]
fn dispatch_200_none_matching(bencher: Bencher<'_, '_>) {
    let registry = none_matching_registry();
    let event = tool_event();
    let dispatched = run(&registry, event.clone());
    assert_eq!(dispatched.records.len(), 200);
    assert!(dispatched.records.iter().all(|r| r.skip.is_some()));
    bencher
        .with_inputs(|| event.clone())
        .bench_local_values(|event| run(&registry, event));
}

/// Cloning the benchmark payload: what the dispatcher pays per hook it runs, because
/// each handler gets its own copy of the payload as modified so far.
#[divan::bench]
fn payload_clone(bencher: Bencher<'_, '_>) {
    let payload = tool_event().payload;
    bencher.bench_local(|| divan::black_box(&payload).clone());
}
