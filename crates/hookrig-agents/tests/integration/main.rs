//! Integration tests of hookrig-agents: recorded agents in a real store, stopped and
//! watched through the library.
//!
//! One test binary for the crate (fewer links on small machines); each area is a module.
//! Spawning needs the `hookrig` binary as the host, so it is tested in hookrig-cli.

mod control;
