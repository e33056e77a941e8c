//! The token gate and the CSRF check.

use std::ffi::OsString;

use std::fmt::Write as _;
use std::io::{Read as _, Write as _};
use std::net::TcpStream;

use hookrig_runtime::{Scope, ScopeArgs};
use hookrig_ui::Dashboard;

pub(crate) const TOKEN: &str = "0123456789abcdef";

/// A dashboard of an empty project in `dir`, served on a free loopback port from a
/// thread of its own.
fn serve(dir: &std::path::Path) -> String {
    let home = dir.join("home");
    std::fs::create_dir_all(home.join(".config")).expect("a home");
    let var = |name: &str| -> Option<OsString> {
        match name {
            "HOME" => Some(home.clone().into()),
            "XDG_CONFIG_HOME" => Some(home.join(".config").into()),
            "XDG_STATE_HOME" => Some(home.join(".state").into()),
            _ => None,
        }
    };
    let scope = Scope::resolve_with(
        ScopeArgs {
            cwd: Some(dir.to_owned()),
            store: Some(dir.join("ledger.db")),
            ..ScopeArgs::default()
        },
        var,
    )
    .expect("a scope");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let dashboard = Dashboard::new(scope, TOKEN.to_owned(), None);
    let address = hookrig_ui::spawn(listener, dashboard).expect("served");
    address.to_string()
}

/// What the dashboard answered: the status, the head and the body.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) head: String,
    pub(crate) body: String,
}

/// One HTTP/1.1 request on a connection of its own (`Connection: close`).
pub(crate) fn request(
    address: &str,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    form: Option<&str>,
) -> Answer {
    let mut stream = TcpStream::connect(address).expect("connect");
    let mut text = format!("{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
    if let Some(cookie) = cookie {
        let _ = write!(text, "Cookie: {cookie}\r\n");
    }
    let body = form.unwrap_or("");
    if form.is_some() {
        text.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
    }
    let _ = write!(text, "Content-Length: {}\r\n\r\n{body}", body.len());
    stream.write_all(text.as_bytes()).expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read the answer");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .expect("a status");
    Answer {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
    }
}

#[test]
fn a_page_needs_the_token_and_the_link_turns_it_into_a_cookie() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let base = serve(dir.path());

    assert_eq!(request(&base, "GET", "/runs", None, None).status, 401);
    let wrong = request(
        &base,
        "GET",
        "/runs",
        Some("hookrig_ui=not-the-token"),
        None,
    );
    assert_eq!(wrong.status, 401);
    assert!(wrong.body.contains("hookrig ui"), "{}", wrong.body);
    assert_eq!(
        request(&base, "GET", "/runs?token=nope", None, None).status,
        401
    );

    let link = request(&base, "GET", &format!("/hooks?token={TOKEN}"), None, None);
    assert_eq!(link.status, 303);
    let head = link.head.to_ascii_lowercase();
    assert!(head.contains("\r\nlocation: /hooks\r\n"), "{head}");
    assert!(
        head.contains(&format!(
            "set-cookie: hookrig_ui={TOKEN}; httponly; samesite=strict"
        )),
        "{head}"
    );

    let cookie = format!("hookrig_ui={TOKEN}");
    let page = request(&base, "GET", "/hooks", Some(&cookie), None);
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("No hooks are configured."),
        "{}",
        page.body
    );
    // The embedded assets need no token: they hold nothing.
    assert_eq!(
        request(&base, "GET", "/assets/app.js", None, None).status,
        200
    );
    assert_eq!(
        request(&base, "GET", "/assets/other.js", None, None).status,
        404
    );
}

#[test]
fn an_action_without_the_csrf_token_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let base = serve(dir.path());
    let cookie = format!("hookrig_ui={TOKEN}");

    for form in ["csrf=forged", "csrf="] {
        let answer = request(&base, "POST", "/hooks/trust", Some(&cookie), Some(form));
        assert_eq!(answer.status, 403, "{form}");
        assert!(answer.body.contains("reload the page"), "{}", answer.body);
    }
    // Every action checks it, not only trust (the browser test posts the right one).
    for action in [
        "/automations/x/fire",
        "/automations/x/disable",
        "/agents/x/stop",
    ] {
        let answer = request(&base, "POST", action, Some(&cookie), Some("csrf=forged"));
        assert_eq!(answer.status, 403, "{action}");
    }
    // A GET of an action is no action.
    assert_eq!(
        request(&base, "GET", "/hooks/trust", Some(&cookie), None).status,
        405
    );
}
