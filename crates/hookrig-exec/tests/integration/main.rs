//! Integration tests of hookrig-exec: real processes, real signals, real pipes.
//!
//! One test binary for the crate (fewer links on small machines); each area is a module.

mod child;
mod process;
