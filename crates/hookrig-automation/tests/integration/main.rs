//! Integration tests of hookrig-automation: the context steps against real
//! processes, files, git repositories, HTTP servers and store files.

mod support;

mod files;
mod git;
mod http;
mod memory;
mod run_tests;
mod shell;
mod steps;
mod store;
