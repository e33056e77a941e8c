//! The dashboard of a serve whose ledger is a shared PostgreSQL database: the runs page,
//! a run's page (this machine's file too, for the emits answered with no engine), the
//! live view and the agents page read the database.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use hookrig_core::Dialect;
use hookrig_runtime::{Scope, ScopeArgs, SharedStore};
use hookrig_store::{
    AgentRow, AgentStore as _, EmitDecision, EmitRecord, Ledger as _, PgStore, Store,
};
use hookrig_test_support::{HANG_LIMIT, TestDatabase};
use hookrig_ui::Dashboard;

use crate::gate::{TOKEN, request};

/// A dashboard of a serve recording into `url`, with its ledger file in `dir`.
fn serve(dir: &std::path::Path, url: &str) -> String {
    let home = dir.join("home");
    std::fs::create_dir_all(home.join(".config")).expect("a home");
    let var = |name: &str| match name {
        "HOME" => Some(home.clone().into()),
        "XDG_CONFIG_HOME" => Some(home.join(".config").into()),
        "XDG_STATE_HOME" => Some(home.join(".state").into()),
        _ => None,
    };
    let scope = Scope::resolve_with(
        ScopeArgs {
            cwd: Some(dir.to_owned()),
            store: Some(dir.join("ledger.db")),
            shared_store: SharedStore::Operator(Some(url.to_owned())),
            ..ScopeArgs::default()
        },
        var,
    )
    .expect("a scope");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let dashboard = Dashboard::new(scope, TOKEN.to_owned(), None);
    hookrig_ui::spawn(listener, dashboard)
        .expect("served")
        .to_string()
}

fn emit(run_id: &str, started_at_ms: i64) -> EmitRecord {
    EmitRecord {
        run_id: run_id.to_owned(),
        started_at_ms,
        event: "tool.before".to_owned(),
        dialect: Dialect::Native,
        cwd: "/srv/repo".to_owned(),
        session_id: "s1".to_owned(),
        agent: Some("builder".to_owned()),
        decision: EmitDecision::Allow,
        reason: None,
        decided_by: None,
        duration_ms: 2.5,
        payload_in: "{}".to_owned(),
        payload_out: "{}".to_owned(),
        warnings: Vec::new(),
        hooks: Vec::new(),
        by_engine: true,
    }
}

// guards: `serve --store URL --ui` shows the database's runs, not the empty file's, and
// a run's page finds an emit of this machine's file too
#[test]
fn the_runs_pages_read_the_shared_ledger() {
    let Some(db) = TestDatabase::create("ui_shared_ledger") else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let shared = PgStore::open(db.url()).expect("the database");
    let now = hookrig_store::now_ms();
    let in_db = "0197a000-0000-7000-8000-00000000d001";
    shared.record(&emit(in_db, now)).expect("recorded");
    let in_file = "0197a000-0000-7000-8000-00000000f001";
    Store::open_ledger(&dir.path().join("ledger.db"))
        .expect("the file")
        .emits()
        .record(&emit(in_file, now))
        .expect("recorded");
    let base = serve(dir.path(), db.url());
    let cookie = format!("hookrig_ui={TOKEN}");
    let get = |path: &str| request(&base, "GET", path, Some(&cookie), None);

    let runs = get("/runs");
    assert_eq!(runs.status, 200, "{}", runs.body);
    assert!(
        runs.body.contains(&in_db[..8]) || runs.body.contains(in_db),
        "{}",
        runs.body
    );
    assert!(
        !runs.body.contains(in_file),
        "the runs page lists the shared ledger"
    );
    let agent = get("/runs?agent=builder");
    assert!(agent.body.contains(in_db), "{}", agent.body);
    for id in [in_db, in_file] {
        let page = get(&format!("/runs/{id}"));
        assert_eq!(page.status, 200, "{id}: {}", page.body);
        assert!(page.body.contains(id), "{}", page.body);
    }
    assert_eq!(
        get("/runs/0197a000-0000-7000-8000-0000000000ff").status,
        404
    );
    let live = get("/live");
    assert!(live.body.contains(in_db), "{}", live.body);

    // Every machine's agents, with their machine.
    shared
        .agents()
        .record(&AgentRow {
            host: "node-b".to_owned(),
            worktree: "/srv/repo/.hookrig/worktrees/api".to_owned(),
            repo: "/srv/repo".to_owned(),
            task: "api".to_owned(),
            plan: "/srv/repo/plan.spl".to_owned(),
            agent: "coder".to_owned(),
            provider: "claude".to_owned(),
            branch: "task/api".to_owned(),
            log: "/srv/repo/.hookrig/worktrees/api.log".to_owned(),
            pid: Some(4242),
            proc_start: None,
            started_at_ms: now,
            exit_code: None,
            exit_signal: None,
            ended_at_ms: None,
            stopped_at_ms: None,
        })
        .expect("another machine's agent");
    let agents = get("/agents");
    assert_eq!(agents.status, 200, "{}", agents.body);
    assert!(
        agents.body.contains("<th>machine</th>") && agents.body.contains("node-b"),
        "{}",
        agents.body
    );
    assert!(
        !agents.body.contains("Stop</button>"),
        "not stopped from here"
    );
}

// guards: the live view's feed reads the rows other nodes write into the database
#[test]
fn the_live_view_streams_the_rows_written_into_the_shared_ledger() {
    let Some(db) = TestDatabase::create("ui_shared_live") else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let shared = PgStore::open(db.url()).expect("the database");
    let base = serve(dir.path(), db.url());
    let cookie = format!("hookrig_ui={TOKEN}");
    assert_eq!(
        request(&base, "GET", "/live", Some(&cookie), None).status,
        200
    );

    let mut stream = TcpStream::connect(&base).expect("connect");
    write!(
        stream,
        "GET /live/stream HTTP/1.1\r\nHost: {base}\r\nCookie: {cookie}\r\n\r\n"
    )
    .expect("send");
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .expect("a read timeout");
    // The feed starts from the rows there when it first reads: record until one arrives.
    let (mut seen, mut buffer, started) = (String::new(), [0_u8; 8192], Instant::now());
    for n in 0_u32.. {
        let run_id = format!("0197a000-0000-7000-8000-{n:012}");
        shared
            .record(&emit(&run_id, hookrig_store::now_ms()))
            .expect("recorded");
        let until = Instant::now() + Duration::from_millis(400);
        while Instant::now() < until {
            if let Ok(read) = stream.read(&mut buffer) {
                seen.push_str(&String::from_utf8_lossy(&buffer[..read]));
            }
        }
        if seen.contains("event: runs") && seen.contains("0197a000-0000-7000-8000-") {
            break;
        }
        assert!(started.elapsed() < HANG_LIMIT, "no row came: {seen}");
    }
}
