//! Integration tests of hookrig-store against real SQLite files in temp dirs.
//!
//! One binary with submodules, so the test suite links once.

mod columns;
mod concurrency;
mod conformance;
mod events;
mod fixtures;
mod ledger;
mod migrate;
mod open;
mod plugins;
mod shared_plugins;
mod snapshot;
