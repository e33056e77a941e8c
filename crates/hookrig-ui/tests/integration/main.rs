//! The dashboard served on a loopback socket and asked over real HTTP: what it refuses
//! (no token, another token, a POST without the CSRF token) and what it lets through.

mod gate;
mod shared_ledger;
