//! Integration tests of the `hookrig` binary: real `sh` hooks, real signals, a real
//! ledger, each test in its own [`TestEnv`](hookrig_test_support::TestEnv).
//!
//! One test binary for the crate (fewer links on two cores); each area is a module.
//! Timeouts are short; no test asserts that something was fast, only generous bounds
//! that turn a hang into a failure.

mod agents;
mod async_keeper;
mod auto;
mod broken_sources;
mod catalog;
mod claude;
mod claude_conformance;
mod codex;
mod config;
mod cursor;
mod dashboard;
mod dispatch;
mod engine;
mod external;
mod gemini;
mod harness;
mod hence;
mod hook_tests;
mod hygge;
mod input;
mod inspect;
mod install;
mod js_chain;
mod js_plugins;
mod ledger;
mod plan_validate;
mod plans;
mod plugins;
mod process;
mod protocol;
mod providers;
mod serve;
mod serve_ingress;
mod serve_nodes;
mod settings_scope;
mod shadow;
mod shared_agents;
mod shared_automations;
mod shared_ledger;
mod shared_plugins;
mod snapshots;
mod store;
mod trust;
mod ui;
mod webhooks;
mod xcode;
