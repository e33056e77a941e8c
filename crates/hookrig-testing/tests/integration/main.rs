//! Tests of hook tests: real test files, real hook processes, a real SQLite ledger in
//! the sandbox, under a temporary home.

mod runner;
mod support;
