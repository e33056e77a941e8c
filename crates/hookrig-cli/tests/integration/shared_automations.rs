//! The automations' definitions on the PostgreSQL store the serve nodes share
//! (docs/postgres.md, "The automations"): what the operator's `hookrig auto ... --store`
//! (or `HOOKRIG_STORE_URL`) writes through one node's machine, every node runs, stops
//! running, and fires; and a database that a project names is never where `auto` or a
//! serve node reads or writes them. Real `hookrig serve` processes on a real cluster;
//! skipped where `HOOKRIG_TEST_POSTGRES` is unset.

use std::time::{SystemTime, UNIX_EPOCH};

use hookrig_test_support::{TestDatabase, TestEnv};
use serde_json::Value;

use crate::harness::{code, test_env, text};
use crate::serve::{Serve, wait_for, write_config_toml};

const EVERY_SECOND: &str = r#"
name = "Every Second"
cooldown_seconds = 0
context_steps = [{ type = "shell", command = "true" }]
[trigger]
type = "periodic"
interval_seconds = 1
skip_llm = true
"#;

/// Fired by hand only: no event of this name is ever emitted.
pub(crate) const ON_CALL: &str = r#"
name = "On Call"
cooldown_seconds = 0
context_steps = [{ type = "shell", command = "echo paged" }]
[trigger]
type = "event"
event_type = "custom.never.emitted"
skip_llm = true
"#;

/// A node's machine: its own HOME, store files and socket, ticking every 500 ms.
fn machine() -> TestEnv {
    let env = test_env();
    write_config_toml(&env, "[automation]\ntick = \"500ms\"\n");
    env
}

/// Runs `hookrig ARGS` on `env`'s machine and returns its stdout; it must succeed.
fn hookrig(env: &TestEnv, args: &[&str], url: Option<&str>) -> String {
    let mut command = env.command(args);
    if let Some(url) = url {
        command.env("HOOKRIG_STORE_URL", url);
    }
    let out = command.output().expect("run hookrig");
    assert_eq!(code(&out), 0, "hookrig {args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

fn count(client: &mut postgres::Client, sql: &str) -> i64 {
    client.query_one(sql, &[]).expect("count").get(0)
}

/// Waits until every node has said it is alive `seconds` after `since` (Unix seconds),
/// that is, until each has ticked since then.
fn ticked_since(client: &mut postgres::Client, since: f64, seconds: f64) {
    wait_for("both nodes to tick", || {
        let oldest: f64 = client
            .query_one("SELECT min(heartbeat_at) FROM nodes", &[])
            .expect("heartbeats")
            .get(0);
        (oldest >= since + seconds).then_some(())
    });
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs_f64()
}

// guards: `auto disable|enable|add` through one node's machine acts on every node, and
// a node fires an automation that only the shared store defines
#[test]
fn shared_automations_are_stopped_started_and_fired_on_every_node() {
    let Some(db) = TestDatabase::create("shared_automations") else {
        return;
    };
    let (a, b) = (machine(), machine());
    let mut client = db.connect();
    let runs = |client: &mut postgres::Client| {
        count(
            client,
            "SELECT count(*) FROM automation_runs WHERE automation_id = 'every-second'",
        )
    };

    // Added through node a's machine, with `--store`: in the database only, signed with
    // the operator's key, which the first write made and which every node holds a copy
    // of (docs/postgres.md, "The key").
    let file = a.write_file("every.toml", EVERY_SECOND);
    let added = hookrig(
        &a,
        &[
            "auto",
            "add",
            file.to_str().expect("UTF-8"),
            "--store",
            db.url(),
        ],
        None,
    );
    assert_eq!(added, "every-second\n");
    let key = |env: &TestEnv| env.config_home().join("hookrig").join("registry.key");
    std::fs::copy(key(&a), key(&b)).expect("copy the operator's key");
    // Written straight into the database: no node runs it.
    db.forge_automation(
        "forged",
        r#"{"type":"periodic","interval_seconds":1,"skip_llm":true}"#,
        r#"[{"type":"shell","command":"true"}]"#,
    );
    let nodes = [Serve::node(&a, db.url()), Serve::node(&b, db.url())];
    wait_for("the shared automation to run", || {
        (runs(&mut client) >= 2).then_some(())
    });
    for machine in [&a, &b] {
        let own: Value = serde_json::from_str(&hookrig(machine, &["auto", "list", "--json"], None))
            .expect("JSON");
        assert_eq!(own, serde_json::json!([]), "no node's own store has it");
    }
    listed_as_the_nodes_see_it(&a, &db);

    // Disabled through node b's machine, with the variable: neither node starts a run of
    // it once each has ticked since. A tick under way as it was disabled may still
    // start one, so the count is taken after the next tick of each, and again two
    // periods later.
    hookrig(&b, &["auto", "disable", "every-second"], Some(db.url()));
    let disabled_at = unix_now();
    ticked_since(&mut client, disabled_at, 1.0);
    wait_for("the last run to end", || {
        (count(
            &mut client,
            "SELECT count(*) FROM automation_runs WHERE status = 'running'",
        ) == 0)
            .then_some(())
    });
    let stopped = runs(&mut client);
    ticked_since(&mut client, disabled_at, 3.5);
    assert_eq!(runs(&mut client), stopped, "a disabled automation was run");
    let listed: Value = serde_json::from_str(&hookrig(
        &a,
        &["auto", "list", "--json", "--store", db.url()],
        None,
    ))
    .expect("JSON");
    assert_eq!(listed[0]["id"], "every-second");
    assert_eq!(listed[0]["enabled"], false, "{listed}");

    // Enabled again through node a's machine: one of them runs it.
    hookrig(
        &a,
        &["auto", "enable", "every-second", "--store", db.url()],
        None,
    );
    wait_for("a run after enabling", || {
        (runs(&mut client) > stopped).then_some(())
    });

    fired_through_another_node(&a, &b, &db, &mut client);
    assert_eq!(
        count(
            &mut client,
            "SELECT count(*) FROM automation_runs WHERE automation_id = 'forged'"
        ),
        0,
        "a row the operator did not sign ran"
    );
    for node in nodes {
        let stderr = node.stop_cleanly();
        assert!(
            stderr.contains(
                "the shared automation `forged` is not run: its row in the shared store is \
                 not signed with this node's key"
            ),
            "{stderr}"
        );
    }
}

/// `auto list` and `auto show` of the shared store, from `machine`: each row as the nodes
/// see it, the forged one held, with why.
fn listed_as_the_nodes_see_it(machine: &TestEnv, db: &TestDatabase) {
    let shared: Value = serde_json::from_str(&hookrig(
        machine,
        &["auto", "list", "--json", "--store", db.url()],
        None,
    ))
    .expect("JSON");
    let held = |id: &str| {
        let row = shared
            .as_array()
            .expect("an array")
            .iter()
            .find(|row| row["id"] == id);
        match row {
            Some(row) => row["held"].clone(),
            None => panic!("{id} is not listed: {shared}"),
        }
    };
    assert_eq!(held("every-second"), Value::Null, "{shared}");
    assert!(
        held("forged")
            .as_str()
            .is_some_and(|why| why.contains("not signed with this node's key")),
        "{shared}"
    );
    let shown = hookrig(
        machine,
        &["auto", "show", "forged", "--store", db.url()],
        None,
    );
    assert!(shown.contains("not signed with this node's key"), "{shown}");
}

/// Adds an automation through `a`'s machine, fires it through `b`'s serve, and removes
/// it through `b`'s: the run is recorded in the shared store, and the fire after the
/// removal finds nothing.
fn fired_through_another_node(
    a: &TestEnv,
    b: &TestEnv,
    db: &TestDatabase,
    client: &mut postgres::Client,
) {
    // Added through node a's machine, fired through node b's serve.
    let file = a.write_file("on-call.toml", ON_CALL);
    hookrig(
        a,
        &[
            "auto",
            "add",
            file.to_str().expect("UTF-8"),
            "--store",
            db.url(),
        ],
        None,
    );
    let fired: Value =
        serde_json::from_str(&hookrig(b, &["fire", "on-call", "--json"], None)).expect("JSON");
    assert_eq!(fired["automation_id"], "on-call");
    assert_eq!(fired["status"], "completed", "{fired}");
    assert_eq!(fired["trigger_reason"], "manual");
    let recorded: String = client
        .query_one(
            "SELECT status FROM automation_runs WHERE id = $1",
            &[&fired["id"].as_str().expect("an id")],
        )
        .expect("the run is in the shared store")
        .get(0);
    assert_eq!(recorded, "completed");

    // Listed from node a's machine: the run of b's serve is the shared store's, not a's.
    let listed: Value = serde_json::from_str(&hookrig(
        a,
        &["auto", "runs", "on-call", "--json", "--store", db.url()],
        None,
    ))
    .expect("JSON");
    assert_eq!(listed[0]["id"], fired["id"], "{listed}");
    let local = a
        .command(["auto", "runs", "on-call"])
        .output()
        .expect("run hookrig");
    assert!(
        text(&local.stderr).contains("Hook 'on-call' not found"),
        "a's own store knows nothing of it: {}",
        text(&local.stderr)
    );

    // Removed: gone from every node's view, with its runs.
    hookrig(b, &["auto", "rm", "on-call"], Some(db.url()));
    assert_eq!(
        count(
            client,
            "SELECT count(*) FROM automation_runs WHERE automation_id = 'on-call'"
        ),
        0
    );
    let out = b
        .command(["fire", "on-call"])
        .output()
        .expect("run hookrig");
    assert_ne!(code(&out), 0);
    assert!(
        text(&out.stderr).contains("Hook 'on-call' not found"),
        "{}",
        text(&out.stderr)
    );
}

// guards: a repository cannot make `auto` or a serve node read or write the automations
// of a database it names (docs/security.md, "Where the store is"), nor does the user's
// own `[store] url` send `auto` there without `--store`
#[test]
fn a_database_a_project_names_holds_no_automation_of_auto_or_serve() {
    let Some(db) = TestDatabase::create("automations_not_from_project") else {
        return;
    };
    let operator = machine();
    let file = operator.write_file("every.toml", EVERY_SECOND);
    let path = file.to_str().expect("UTF-8");
    hookrig(&operator, &["auto", "add", path, "--store", db.url()], None);
    hookrig(
        &operator,
        &["auto", "disable", "every-second"],
        Some(db.url()),
    );

    // A project that names the database in its own config.toml, trusted or not.
    let project = machine();
    project.write_file(
        ".hookrig/config.toml",
        &format!("[store]\nurl = {:?}\n", db.url()),
    );
    let listed: Value =
        serde_json::from_str(&hookrig(&project, &["auto", "list", "--json"], None)).expect("JSON");
    assert_eq!(
        listed,
        serde_json::json!([]),
        "the database's are not listed"
    );
    let file = project.write_file("mine.toml", EVERY_SECOND);
    hookrig(
        &project,
        &["auto", "add", file.to_str().expect("UTF-8")],
        None,
    );
    hookrig(&project, &["auto", "enable", "every-second"], None);

    // Its serve runs its own automation, in its own store, and not the database's.
    let serve = Serve::start(&project);
    wait_for("the node's own runs", || {
        let runs: Value = serde_json::from_str(&hookrig(
            &project,
            &["auto", "runs", "every-second", "--json"],
            None,
        ))
        .expect("JSON");
        (runs.as_array().expect("an array").len() >= 2).then_some(())
    });
    serve.stop_cleanly();
    let mut client = db.connect();
    assert_eq!(
        count(&mut client, "SELECT count(*) FROM automation_runs"),
        0
    );
    assert_eq!(count(&mut client, "SELECT count(*) FROM nodes"), 0);
    let enabled: bool = client
        .query_one(
            "SELECT enabled FROM automations WHERE id = 'every-second'",
            &[],
        )
        .expect("the operator's row")
        .get(0);
    assert!(
        !enabled,
        "the project's `auto enable` did not reach the database"
    );

    // The user's own `[store] url` names the database for serve and the ledger, but
    // `auto` writes there only with `--store` or the variable, as `plugins` does.
    let user = machine();
    write_config_toml(
        &user,
        &format!(
            "[automation]\ntick = \"500ms\"\n[store]\nurl = {:?}\n",
            db.url()
        ),
    );
    let file = user.write_file("on-call.toml", ON_CALL);
    hookrig(&user, &["auto", "add", file.to_str().expect("UTF-8")], None);
    assert_eq!(
        count(
            &mut client,
            "SELECT count(*) FROM automations WHERE id = 'on-call'"
        ),
        0
    );
}

/// Fired by hand only, and long enough to be seen in flight (and to refuse another
/// machine's fire meanwhile, however slow that machine is to start one).
const SLOW: &str = r#"
name = "Slow"
cooldown_seconds = 0
context_steps = [{ type = "shell", command = "sleep 8" }]
[trigger]
type = "event"
event_type = "custom.never.emitted"
skip_llm = true
"#;

// guards: with no serve running, `hookrig fire --store` runs the shared definition as a
// node of the store: refused while a run of it is in flight on any node, recorded there
// with its lease renewed while it runs, and never a forged row nor a machine's own
// automation of that id in its place
#[test]
fn fire_with_no_serve_is_a_node_of_the_shared_store_while_it_runs() {
    let Some(db) = TestDatabase::create("fire_as_a_node") else {
        return;
    };
    let (a, b) = (machine(), machine());
    let mut client = db.connect();
    for (name, text) in [("on-call.toml", ON_CALL), ("slow.toml", SLOW)] {
        let file = a.write_file(name, text);
        hookrig(
            &a,
            &["auto", "add", file.to_str().expect("UTF-8")],
            Some(db.url()),
        );
    }
    let key = |env: &TestEnv| env.config_home().join("hookrig").join("registry.key");
    std::fs::copy(key(&a), key(&b)).expect("copy the operator's key");

    // On a machine that does not define it itself, with the flag: the database's.
    let fired: Value = serde_json::from_str(&hookrig(
        &b,
        &["fire", "on-call", "--json", "--store", db.url()],
        None,
    ))
    .expect("a run record");
    assert_eq!(fired["status"], "completed", "{fired}");
    assert!(fired.to_string().contains("paged"), "{fired}");
    let shared_runs = count(
        &mut client,
        "SELECT count(*) FROM automation_runs WHERE automation_id = 'on-call'",
    );
    assert_eq!(shared_runs, 1, "the run is recorded in the shared store");
    let own: Value =
        serde_json::from_str(&hookrig(&b, &["auto", "runs", "--json"], None)).expect("JSON");
    assert_eq!(
        own,
        serde_json::json!([]),
        "and not in the machine's own store"
    );

    // A long run fired with the variable: it holds a lease as a node would, and renews it.
    let mut slow = a.command(["fire", "slow", "--json"]);
    slow.env("HOOKRIG_STORE_URL", db.url())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let slow = slow.spawn().expect("start fire");
    let pid = slow.id();
    let node_of_it = format!("%:{pid}:%");
    let expires = |client: &mut postgres::Client| -> Option<f64> {
        client
            .query_opt(
                "SELECT expires_at FROM automation_leases
                 WHERE automation_id = 'slow' AND node LIKE $1",
                &[&node_of_it],
            )
            .expect("read the lease")
            .map(|row| row.get(0))
    };
    let first = wait_for("the lease of the fire's run", || expires(&mut client));
    wait_for("the fire to renew its lease", || {
        expires(&mut client).filter(|now| *now > first).map(|_| ())
    });
    // Meanwhile, another machine's fire of it is refused, whatever it defines itself.
    let refused = b
        .command(["fire", "slow"])
        .env("HOOKRIG_STORE_URL", db.url())
        .output()
        .expect("run fire");
    assert_eq!(code(&refused), 1, "{}", text(&refused.stderr));
    assert!(
        text(&refused.stderr).contains("Hook 'slow' is already running"),
        "{}",
        text(&refused.stderr)
    );
    let out = slow.wait_with_output().expect("the fire ends");
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let record: Value = serde_json::from_str(&text(&out.stdout)).expect("a run record");
    assert_eq!(record["status"], "completed", "{record}");
    assert_eq!(
        count(&mut client, "SELECT count(*) FROM automation_leases"),
        0,
        "the lease ends with the run"
    );
    assert_eq!(
        count(
            &mut client,
            &format!("SELECT count(*) FROM nodes WHERE pid = {pid}")
        ),
        1,
        "the fire was a node of the store while it ran"
    );
    a_forged_row_fires_nowhere(&b, &db, &mut client);
}

/// A row written by hand into the database does not run through `fire --store` on `b`'s
/// machine, nor the machine's own automation of its id in its place.
fn a_forged_row_fires_nowhere(b: &TestEnv, db: &TestDatabase, client: &mut postgres::Client) {
    db.forge_automation(
        "forged",
        r#"{"type":"event","event_type":"x","skip_llm":true}"#,
        r#"[{"type":"shell","command":"true"}]"#,
    );
    let own = b.write_file(
        "forged.toml",
        &ON_CALL.replace("name = \"On Call\"", "id = \"forged\"\nname = \"Forged\""),
    );
    hookrig(b, &["auto", "add", own.to_str().expect("UTF-8")], None);
    let refused = b
        .command(["fire", "forged", "--store", db.url()])
        .output()
        .expect("run fire");
    assert_eq!(code(&refused), 1, "{}", text(&refused.stderr));
    let stderr = text(&refused.stderr);
    assert!(
        stderr.contains("Hook 'forged' is held") && stderr.contains("not signed"),
        "{stderr}"
    );
    assert_eq!(
        count(
            client,
            "SELECT count(*) FROM automation_runs WHERE automation_id = 'forged'"
        ),
        0
    );
    let own_runs: Value =
        serde_json::from_str(&hookrig(b, &["auto", "runs", "--json"], None)).expect("JSON");
    assert_eq!(
        own_runs,
        serde_json::json!([]),
        "the machine's own did not run"
    );
}
