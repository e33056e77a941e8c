//! Benchmarks of the in-process bus (divan).
//!
//! Each chain of 10 handlers is measured twice: through [`Bus`], and through the
//! hand-written loop over a `Vec<Box<dyn Fn>>` a plugin host would otherwise write,
//! with handlers doing the same work. The ratio of the two is the bus's cost
//! (resolving the event name, taking the chain snapshot, catching panics).
//!
//! Run with `cargo bench -p hookrig-core --bench bus`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use divan::Bencher;
use hookrig_core::{Bus, BusHandler, BusShape, EventNames, Payload, VetoOutcome, VetoReply};
use serde_json::{Value, json};

fn main() {
    divan::main();
}

const HANDLERS: usize = 10;

/// The hand-written baselines' handlers.
type Listener = Box<dyn Fn(&Payload)>;
type Veto = Box<dyn Fn(&Payload) -> VetoReply>;

/// The `tool.before` payload of the dispatch bench: a shell command of a coding agent.
fn tool_payload() -> Payload {
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
    Payload::from_map(map)
}

/// A listener's work: look at the tool name and count the calls for bash.
fn count_bash(payload: &Payload, counter: &AtomicUsize) {
    if payload.tool_name() == Some("bash") {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// A veto's work: refuse a shell command that contains `rm -rf` (none here does).
fn gate(payload: &Payload) -> VetoReply {
    let command = payload
        .as_map()
        .get("tool")
        .and_then(|t| t.get("input"))
        .and_then(|i| i.get("command"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if command.contains("rm -rf") {
        VetoReply::deny("rm -rf is not allowed")
    } else {
        VetoReply::Allow
    }
}

#[divan::bench]
fn listener_chain_bus(bencher: Bencher<'_, '_>) {
    // OpenHermit's shape of tool.after, as an agent's bus has it from the dialects.
    let mut names = EventNames::new();
    names.set_shape("tool.after", BusShape::Listener);
    let bus = Bus::with_names(&names);
    let counter = Arc::new(AtomicUsize::new(0));
    for i in 0..HANDLERS {
        let counter = counter.clone();
        bus.on(
            "tool.after",
            &format!("plugin-{i}"),
            BusHandler::listener(move |p| {
                count_bash(p, &counter);
                Ok(())
            }),
            100,
        )
        .expect("subscribes");
    }
    let payload = tool_payload();
    bus.emit("tool.after", &payload).expect("emits");
    assert_eq!(counter.load(Ordering::Relaxed), HANDLERS);
    bencher.bench_local(|| bus.emit(divan::black_box("tool.after"), &payload));
}

#[divan::bench]
fn listener_chain_loop(bencher: Bencher<'_, '_>) {
    let counter = Arc::new(AtomicUsize::new(0));
    let handlers: Vec<Listener> = (0..HANDLERS)
        .map(|_| {
            let counter = counter.clone();
            Box::new(move |p: &Payload| count_bash(p, &counter)) as Listener
        })
        .collect();
    let payload = tool_payload();
    bencher.bench_local(|| {
        for handler in divan::black_box(&handlers) {
            handler(&payload);
        }
    });
}

#[divan::bench]
fn veto_chain_bus(bencher: Bencher<'_, '_>) {
    let bus = Bus::new();
    for i in 0..HANDLERS {
        bus.on(
            "tool.before",
            &format!("plugin-{i}"),
            BusHandler::veto(|p| Ok(gate(p))),
            100,
        )
        .expect("subscribes");
    }
    let payload = tool_payload();
    assert!(matches!(
        bus.veto("tool.before", payload.clone()),
        Ok(VetoOutcome::Allow { .. })
    ));
    bencher
        .with_inputs(|| payload.clone())
        .bench_local_values(|p| bus.veto(divan::black_box("tool.before"), p));
}

#[divan::bench]
fn veto_chain_loop(bencher: Bencher<'_, '_>) {
    let handlers: Vec<Veto> = (0..HANDLERS).map(|_| Box::new(gate) as Veto).collect();
    let payload = tool_payload();
    bencher
        .with_inputs(|| payload.clone())
        .bench_local_values(|mut p| {
            for handler in divan::black_box(&handlers) {
                match handler(&p) {
                    VetoReply::Allow => {}
                    VetoReply::Replace(next) => p = next,
                    deny @ VetoReply::Deny { .. } => return Err(deny),
                }
            }
            Ok(p)
        });
}
