//! `hookrig ui`: with no dashboard running it starts `hookrig serve --ui` in the
//! background and prints a link that answers over HTTP with the token; with one
//! running it reuses it; with `BROWSER` set it opens the link through that program.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::process::Output;
use std::time::{Duration, Instant};

use hookrig_test_support::{HANG_LIMIT, TestEnv, is_alive, run_with_input};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::harness::{code, test_env, text};

fn ui(env: &TestEnv, args: &[&str], browser: Option<&str>) -> Output {
    let mut command = env.command(["ui"].iter().chain(args));
    match browser {
        Some(program) => command.env("BROWSER", program),
        None => command.env_remove("BROWSER"),
    };
    let out = run_with_input(command, b"", HANG_LIMIT);
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    out
}

/// The serves of this test's user: `hookrig serve` processes whose environment names
/// the test's directory (the one `hookrig ui` starts is detached, not our child).
fn serves(env: &TestEnv) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            (cmdline.contains("serve --ui 127.0.0.1:0")
                && String::from_utf8_lossy(&environ).contains(env.marker()))
            .then_some(pid)
        })
        .collect()
}

/// `GET path` on `address` with an optional cookie: the status and the head.
fn get(address: &str, path: &str, cookie: Option<&str>) -> (u16, String) {
    let mut stream = TcpStream::connect(address).expect("connect to the dashboard");
    let cookie = cookie.map_or_else(String::new, |c| format!("Cookie: {c}\r\n"));
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n{cookie}\r\n"
    )
    .expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read the answer");
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not HTTP: {answer}"));
    (status, answer)
}

#[test]
fn ui_starts_a_serve_once_and_opens_its_link_with_browser() {
    let env = test_env();
    assert!(serves(&env).is_empty());

    // Nothing runs: a serve is started, and the link is printed.
    let first = text(&ui(&env, &["--no-open"], None).stdout);
    let url = first.trim();
    let rest = url
        .strip_prefix("http://")
        .unwrap_or_else(|| panic!("{first}"));
    let (address, path) = rest.split_once('/').expect("a path");
    assert!(address.starts_with("127.0.0.1:"), "{url}");
    assert_eq!(serves(&env).len(), 1, "one serve started");

    // The link answers: the token becomes a cookie, the cookie opens the page, and
    // without either the page is refused.
    let (status, head) = get(address, &format!("/{path}"), None);
    assert!((300..400).contains(&status), "{head}");
    let cookie = head
        .lines()
        .find_map(|line| {
            line.to_ascii_lowercase()
                .starts_with("set-cookie:")
                .then(|| line["set-cookie:".len()..].trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no cookie: {head}"));
    let cookie = cookie.split(';').next().expect("a name=value");
    let (status, page) = get(address, "/runs", Some(cookie));
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("<h1>Runs"), "{page}");
    assert_eq!(get(address, "/runs", None).0, 401);

    // Running: the same dashboard, no second serve.
    let again = text(&ui(&env, &["--no-open"], None).stdout);
    assert_eq!(again, first);
    assert_eq!(serves(&env).len(), 1, "the running serve is reused");

    // BROWSER names the program that opens the link.
    let opened = env.root().join("opened.txt");
    let browser = env.write_bin(
        "fake-browser",
        &format!("printf '%s\\n' \"$1\" > '{}'", opened.display()),
    );
    let out = text(&ui(&env, &[], browser.to_str()).stdout);
    assert_eq!(out, format!("opened {url}\n"));
    let deadline = Instant::now() + HANG_LIMIT;
    while !opened.exists() {
        assert!(Instant::now() < deadline, "the browser was never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let deadline = Instant::now() + HANG_LIMIT;
    loop {
        let seen = std::fs::read_to_string(&opened).expect("read what it was given");
        if seen == format!("{url}\n") {
            break;
        }
        assert!(Instant::now() < deadline, "the browser was given {seen:?}");
        std::thread::sleep(Duration::from_millis(20));
    }

    // What `hookrig ui` started is stopped.
    for pid in serves(&env) {
        kill(Pid::from_raw(pid), Signal::SIGTERM).expect("stop the serve");
        let deadline = Instant::now() + HANG_LIMIT;
        while is_alive(pid) {
            assert!(Instant::now() < deadline, "the serve {pid} did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
