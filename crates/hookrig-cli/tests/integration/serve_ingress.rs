//! `hookrig emit` hands each event to a running `hookrig serve` through its socket, and
//! is unaffected when none runs.

use std::io::Read as _;
use std::os::unix::net::UnixListener;

use crate::harness::{emit, test_env};

const PAYLOAD: &str = r#"{"tool":{"name":"bash","input":{"command":"ls"}},"project_id":"demo"}"#;

#[test]
fn emit_delivers_the_event_to_a_listening_serve() {
    let env = test_env();
    let socket = env.serve_socket();
    std::fs::create_dir_all(socket.parent().expect("dir")).expect("mkdir");
    let listener = UnixListener::bind(&socket).expect("bind");

    // An alias: the canonical name is what serve receives.
    let out = emit(&env, &["PreToolUse"], PAYLOAD);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow");

    // emit has exited: its connection is waiting in the backlog, or it never came.
    listener.set_nonblocking(true).expect("nonblocking");
    let (mut stream, _) = listener.accept().expect("emit connected to the socket");
    stream.set_nonblocking(false).expect("blocking");
    let mut line = String::new();
    stream.read_to_string(&mut line).expect("read");
    insta::assert_snapshot!("emit_delivers_to_serve", line);
}

#[test]
fn emit_is_unaffected_without_a_serve() {
    let env = test_env();
    let without = emit(&env, &["tool.before"], PAYLOAD);

    // A socket file left behind by a serve that crashed: nobody listens on it.
    let socket = env.serve_socket();
    std::fs::create_dir_all(socket.parent().expect("dir")).expect("mkdir");
    drop(UnixListener::bind(&socket).expect("bind"));
    let stale = emit(&env, &["tool.before"], PAYLOAD);

    for out in [&without, &stale] {
        assert_eq!(out.code, 0);
        assert_eq!(out.stderr, "");
        assert_eq!(out.outcome["decision"], "allow");
    }
    assert!(socket.exists(), "emit leaves the socket file to serve");
}
