//! A scope over a [`TestEnv`]'s directories, built by hand as an embedder would.

use hookrig_config::Environment;
use hookrig_runtime::{Decided, Emit, EmitRequest, Scope};
use hookrig_test_support::TestEnv;

/// A temporary world: the program path is unused, nothing here starts `hookrig`.
pub(crate) fn world() -> TestEnv {
    TestEnv::new("hookrig")
}

/// The scope of `env`'s project, recording into `env`'s default ledger.
pub(crate) fn scope(env: &TestEnv) -> Scope {
    Scope {
        env: Environment {
            home: env.home(),
            config_home: env.config_home(),
            state_home: env.state_home(),
            data_home: env.data_home(),
            xcode_home: env.home().join(".x-code"),
            cwd: env.project(),
            trust_all: true,
        },
        agent: None,
        plan: None,
        store: env.ledger_path(),
        store_url: None,
        record: true,
        host_env: None,
        ledger_writers: None,
        shared_registry: None,
    }
}

/// Emits `request` in `scope` up to the decision.
pub(crate) fn decide(scope: &Scope, request: EmitRequest) -> Decided {
    Emit::prepare(scope, request)
        .and_then(hookrig_runtime::Prepared::dispatch)
        .expect("the emit runs")
}

/// A payload from JSON text.
pub(crate) fn payload(json: &str) -> hookrig_core::Payload {
    match serde_json::from_str(json).expect("valid JSON") {
        serde_json::Value::Object(map) => hookrig_core::Payload::from_map(map),
        other => panic!("not an object: {other}"),
    }
}
