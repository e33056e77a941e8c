//! The dashboard of a serve whose ledger is a shared PostgreSQL database: the runs page,
//! a run's page (this machine's file too, for the emits answered with no engine), the
//! live view, the agents page and the automations pages read the database.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use hookrig_core::Dialect;
use hookrig_runtime::{Scope, ScopeArgs, SharedStore};
use hookrig_store::{
    AgentRow, AgentStore as _, EmitDecision, EmitRecord, Ledger as _, PgStore, RegistryKey, Store,
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

/// A periodic automation's definition, named `name`.
fn automation_file(dir: &std::path::Path, id: &str, name: &str) -> std::path::PathBuf {
    let file = dir.join(format!("{id}.toml"));
    std::fs::write(
        &file,
        format!(
            "id = \"{id}\"\nname = \"{name}\"\nprompt_template = \"go\"\n\
             [trigger]\ntype = \"periodic\"\ninterval_seconds = 60\n"
        ),
    )
    .expect("write the definition");
    file
}

/// The CSRF token of a page's forms.
fn csrf_of(page: &str) -> String {
    let (_, after) = page
        .split_once("name=\"csrf\" value=\"")
        .expect("a form with the CSRF token");
    after.split('"').next().expect("a value").to_owned()
}

// guards: a serve node's dashboard shows the automations the node runs (the database's,
// held when unsigned, and its own only for ids the database lacks), their runs from the
// database, and enables and disables a shared one there, signed, never an unsigned one
#[test]
fn the_automations_page_shows_and_switches_what_the_node_runs() {
    let Some(db) = TestDatabase::create("ui_shared_automations") else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let key = RegistryKey::load_or_create(&RegistryKey::path(&dir.path().join("home/.config")))
        .expect("the operator's key");
    let shared = PgStore::open(db.url()).expect("the database");
    let signed = shared.signed_automations(&key);
    hookrig_automation::add(
        &signed,
        &automation_file(dir.path(), "nightly", "Shared Nightly"),
    )
    .expect("added to the database");
    let own = Store::open(&dir.path().join("ledger.db")).expect("the machine's store");
    for (id, name) in [("nightly", "Own Nightly"), ("local-only", "Own Report")] {
        hookrig_automation::add(&own.automations(), &automation_file(dir.path(), id, name))
            .expect("added to the machine's store");
    }
    db.forge_automation(
        "forged",
        r#"{"type":"periodic","interval_seconds":60}"#,
        "[]",
    );
    db.connect()
        .batch_execute(
            "INSERT INTO automation_runs (id, automation_id, project_id, trigger_reason,
                 status, tokens_used, started_at, completed_at)
             VALUES ('run-on-node-b', 'nightly', 'p', 'periodic', 'completed', 7,
                 1700000000, 1700000001)",
        )
        .expect("write rows by hand");
    let base = serve(dir.path(), db.url());
    let cookie = format!("hookrig_ui={TOKEN}");
    let get = |path: &str| request(&base, "GET", path, Some(&cookie), None);

    let list = get("/automations");
    assert_eq!(list.status, 200, "{}", list.body);
    let body = &list.body;
    for id in ["nightly", "local-only", "forged"] {
        assert_eq!(
            body.matches(&format!("data-automation=\"{id}\"")).count(),
            1,
            "{id} listed once: {body}"
        );
    }
    assert!(
        body.contains("Shared Nightly") && !body.contains("Own Nightly"),
        "the database's definition of an id it defines: {body}"
    );
    let forged_row = body
        .split("data-automation=\"forged\"")
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .expect("the forged row");
    assert!(forged_row.contains("held"), "{forged_row}");
    let forged = get("/automations/forged");
    assert!(forged.body.contains("not signed"), "{}", forged.body);
    let nightly = get("/automations/nightly");
    assert!(
        nightly.body.contains("data-run=\"run-on-node-b\""),
        "another node's run: {}",
        nightly.body
    );

    // Disabled from here: in the database, signed, so every node stops it.
    let csrf = csrf_of(body);
    let form = format!("csrf={csrf}");
    let post = |path: &str| request(&base, "POST", path, Some(&cookie), Some(&form));
    assert_eq!(post("/automations/nightly/disable").status, 303);
    let as_nodes_see = hookrig_automation::SharedDefinitions::new(
        std::sync::Arc::new(PgStore::open(db.url()).expect("the database")),
        Some(key),
    );
    let row = as_nodes_see
        .get("nightly")
        .expect("read")
        .expect("still defined");
    assert!(!row.enabled && row.held.is_none(), "{row:?}");
    assert!(
        own.automations()
            .get("nightly")
            .expect("read")
            .expect("kept")
            .enabled,
        "the machine's own copy is not what was switched"
    );
    // An unsigned row is not signed by switching it from here.
    let refused = post("/automations/forged/disable");
    assert_eq!(refused.status, 400, "{}", refused.body);
    let forged = as_nodes_see.get("forged").expect("read").expect("defined");
    assert!(forged.enabled && forged.held.is_some(), "{forged:?}");
    // The machine's own automation is switched in its store.
    assert_eq!(post("/automations/local-only/disable").status, 303);
    assert!(
        !own.automations()
            .get("local-only")
            .expect("read")
            .expect("kept")
            .enabled
    );
    the_key_counts_at_every_look(&base, &cookie, &dir.path().join("home/.config"));
}

/// Without the operator's key the database's rows are held, and with it back they verify
/// again, on a dashboard that keeps what it read: the key file is read at every look.
fn the_key_counts_at_every_look(base: &str, cookie: &str, config_home: &std::path::Path) {
    let get = |path: &str| request(base, "GET", path, Some(cookie), None);
    let key_file = RegistryKey::path(config_home);
    let saved = std::fs::read(&key_file).expect("the key");
    std::fs::remove_file(&key_file).expect("take the key away");
    let keyless = get("/automations/nightly");
    assert!(keyless.body.contains("<dt>held</dt>"), "{}", keyless.body);
    std::fs::write(&key_file, saved).expect("the key back");
    let keyed = get("/automations/nightly");
    assert!(!keyed.body.contains("<dt>held</dt>"), "{}", keyed.body);
}
