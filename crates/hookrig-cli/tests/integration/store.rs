//! `hookrig store status|migrate` on the real SQLite files and on a fresh database of the
//! PostgreSQL test cluster (skipped where `HOOKRIG_TEST_POSTGRES` is unset), and the
//! rule that only the user names the store (docs/security.md, "Where the store is").

use std::io::ErrorKind;
use std::net::TcpListener;

use hookrig_test_support::{TestDatabase, TestEnv};
use serde_json::Value;

use crate::harness::{code, test_env, text};

const QUIET: &str = r#"{
  "id": "quiet",
  "project_id": "p1",
  "name": "Quiet",
  "trigger": {"type": "event", "event_type": "task.completed", "skip_llm": true}
}"#;

/// `hookrig ARGS` with `vars`, which must succeed; its stdout.
fn ok(env: &TestEnv, args: &[&str], vars: &[(&str, &str)]) -> String {
    let mut command = env.command(args);
    command.envs(vars.iter().copied());
    let output = command.output().expect("hookrig runs");
    assert_eq!(
        code(&output),
        0,
        "{args:?} failed: {}",
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// The JSON of a status, without what changes from run to run.
fn status_json(env: &TestEnv, stdout: &str, db: Option<&TestDatabase>) -> Value {
    let mut value: Value = serde_json::from_str(&env.redact(stdout)).expect("JSON");
    // Every part is at the version this build knows; which one that is changes with
    // every migration, not with the shape of the status.
    for part in value["schema"].as_array_mut().expect("schema parts") {
        assert_eq!(part["version"], part["supported"], "{part}");
        part["version"] = Value::from("[version]");
        part["supported"] = Value::from("[version]");
    }
    if let Some(db) = db {
        assert_eq!(value["location"], db.url());
        value["location"] = Value::from("[database]");
    }
    value
}

#[test]
fn status_shows_each_engine_and_migrate_copies_the_runs_into_postgres() {
    let env = test_env();
    let file = env.write_file("quiet.json", QUIET);
    ok(&env, &["auto", "add", &file.display().to_string()], &[]);
    ok(&env, &["fire", "quiet"], &[]);
    ok(&env, &["fire", "quiet"], &[]);

    let sqlite = ok(&env, &["store", "status", "--json"], &[]);
    insta::assert_json_snapshot!("store_status_sqlite", status_json(&env, &sqlite, None));

    let Some(db) = TestDatabase::create("cli_store_migrate") else {
        return;
    };
    let migrated = ok(&env, &["store", "migrate", "--to", db.url()], &[]);
    assert!(
        migrated.contains("automation_runs     2     2       0"),
        "{migrated}"
    );
    assert!(
        migrated.contains("automations         1     1       0"),
        "the definition is copied too: {migrated}"
    );
    let again = ok(&env, &["store", "migrate", "--to", db.url(), "--json"], &[]);
    let again: Value = serde_json::from_str(&again).expect("JSON");
    assert_eq!(again["tables"][0]["table"], "automations", "{again}");
    assert_eq!(again["tables"][0]["already_there"], 1, "{again}");
    assert_eq!(again["tables"][1]["already_there"], 2, "{again}");

    // A node that ran automations there, as `hookrig serve` records itself.
    db.connect()
        .execute(
            "INSERT INTO nodes (id, host, pid, started_at, heartbeat_at)
             VALUES ('build-7:4242:1764000000.000', 'build-7', 4242, 1764000000, 1764000012.5)",
            &[],
        )
        .expect("a node");

    // The operator names the database by the flag or by the variable.
    let by_flag = ok(
        &env,
        &["store", "status", "--store", db.url(), "--json"],
        &[],
    );
    insta::assert_json_snapshot!(
        "store_status_postgres",
        status_json(&env, &by_flag, Some(&db))
    );
    let by_var = ok(
        &env,
        &["store", "status", "--json"],
        &[("HOOKRIG_STORE_URL", db.url())],
    );
    assert_eq!(by_var, by_flag);
    let text = ok(&env, &["store", "status", "--store", db.url()], &[]);
    assert!(
        text.starts_with("engine: postgres\n")
            && text.contains("automation_runs     2\n")
            && text.contains("build-7:4242:1764000000.000  build-7  4242  2025-11-24 16:00:12"),
        "{text}"
    );
}

/// A repository's database, named by the project's config.toml: a socket that takes
/// connections and never answers, and its URL. Nothing may connect to it.
fn projects_database(env: &TestEnv) -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("non-blocking");
    let url = format!(
        "postgres://loot@127.0.0.1:{}/loot",
        listener.local_addr().expect("address").port()
    );
    env.write_file(
        ".hookrig/config.toml",
        &format!("[store]\nurl = \"{url}\"\n"),
    );
    (listener, url)
}

fn assert_untouched(database: &TcpListener) {
    assert!(
        matches!(database.accept(), Err(err) if err.kind() == ErrorKind::WouldBlock),
        "hookrig connected to the project's database"
    );
}

// guards: `fire` with no serve running joins the shared store the user names (the flag,
// the variable, their own `[store] url`), never one a project's config.toml names: the
// automation runs and is recorded on the machine's own store, and nothing connects to
// the project's database
#[test]
fn a_projects_store_url_does_not_reach_fire() {
    let env = test_env();
    let (database, _) = projects_database(&env);
    let file = env.write_file("on-call.toml", crate::shared_automations::ON_CALL);
    ok(&env, &["auto", "add", file.to_str().expect("UTF-8")], &[]);

    let fired: Value =
        serde_json::from_str(&ok(&env, &["fire", "on-call", "--json"], &[])).expect("JSON");

    assert_eq!(fired["status"], "completed", "{fired}");
    assert!(fired.to_string().contains("paged"), "{fired}");
    let runs: Value =
        serde_json::from_str(&ok(&env, &["auto", "runs", "--json"], &[])).expect("JSON");
    assert_eq!(
        runs.as_array().map(Vec::len),
        Some(1),
        "the run is in the machine's own store: {runs}"
    );
    assert_untouched(&database);
}

// guards: a cloned repository pointing the user's store at its own database, by its
// config.toml or by the environment a host gives the hooks it runs
#[test]
fn a_project_or_a_hosts_environment_cannot_point_hookrig_at_a_database() {
    let env = test_env();
    let (database, url) = projects_database(&env);

    let mut emit = env.command(["emit", "tool.before"]);
    emit.env("HOOKRIG_STORE_URL", &url);
    let output =
        hookrig_test_support::run_with_input(emit, b"{}", hookrig_test_support::HANG_LIMIT);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));

    let output = env.command(["store", "status"]).output().expect("runs");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(stdout.starts_with("engine: sqlite\n"), "{stdout}");
    assert!(
        text(&output.stderr).contains("`[store] url` is ignored in a project's config.toml"),
        "{}",
        text(&output.stderr)
    );
    assert_untouched(&database);
}
