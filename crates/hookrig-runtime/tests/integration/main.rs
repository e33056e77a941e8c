//! Tests of the runtime as a library, with real hook processes, real config files and a
//! real SQLite ledger under a temporary home.

mod emit;
mod explain;
mod lifecycle;
mod project;
mod support;
