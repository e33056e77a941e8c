//! The shared plugin registry on a real PostgreSQL database: a node uses a row only
//! when the operator's key signed it, its enablement row too, and its copy of the
//! package has the digest signed. Rows are forged with plain SQL, as anyone who can
//! write the database could.

use std::path::Path;

use hookrig_store::{PgStore, PluginRow, RegistryKey, SignedPlugin};
use hookrig_test_support::TestDatabase;

fn package(id: &str) -> PluginRow {
    PluginRow {
        id: id.to_owned(),
        name: id.to_owned(),
        description: String::new(),
        path: format!("/opt/plugins/{id}"),
        version: None,
        registered_at_ms: 1,
    }
}

fn key(byte: u8) -> RegistryKey {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("registry.key");
    std::fs::write(&path, [byte; 32]).expect("write the key");
    RegistryKey::load(&path).expect("load").expect("a key")
}

/// Every package's copy holds the digest `good-<id>`.
fn digest_of(path: &Path) -> Option<String> {
    path.file_name()
        .map(|name| format!("good-{}", name.to_string_lossy()))
}

/// The ids a node holding `key` runs for `agent`, and the rows it skipped.
fn run_by(store: &PgStore, key: &RegistryKey, agent: &str) -> (Vec<String>, Vec<String>) {
    let signed = store.plugins().signed().expect("read the registry");
    let verified = SignedPlugin::verified_for(&signed, key, Some(agent), &mut digest_of);
    let ids = verified.packages.into_iter().map(|p| p.id).collect();
    (
        ids,
        verified.skipped.into_iter().map(|left| left.why).collect(),
    )
}

#[test]
fn only_rows_the_operator_signed_are_run_and_forged_ones_are_named() {
    let Some(db) = TestDatabase::create("shared_plugins_signed") else {
        return;
    };
    let store = PgStore::open(db.url()).expect("open");
    let operator = key(1);
    let plugins = store.plugins();
    for id in ["signed", "other"] {
        plugins
            .register_signed(&package(id), &format!("good-{id}"), &operator)
            .expect("register");
    }
    plugins
        .set_enabled_signed("signed", "*", true, &operator)
        .expect("enable");
    plugins
        .set_enabled_signed("other", "reviewer", true, &operator)
        .expect("enable");
    assert_eq!(
        run_by(&store, &operator, "coder"),
        (vec!["signed".to_owned()], vec![])
    );

    let mut sql = db.connect();
    // A row without a signature, one with a made-up signature, and one with the
    // signature of another package's row: each enabled for every agent by a row that
    // carries a valid signature copied from `signed`'s.
    let stolen: String = sql
        .query_one("SELECT signature FROM plugins WHERE id = 'signed'", &[])
        .expect("read")
        .get(0);
    let enabled: String = sql
        .query_one(
            "SELECT signature FROM agent_plugins WHERE plugin_id = 'signed'",
            &[],
        )
        .expect("read")
        .get(0);
    for (id, signature) in [
        ("bare", ""),
        ("made-up", "00ff"),
        ("copied", stolen.as_str()),
    ] {
        sql.execute(
            "INSERT INTO plugins (id, name, description, path, registered_at, digest, signature)
             VALUES ($1, $1, '', '/opt/plugins/' || $1, 1, 'good-' || $1, $2)",
            &[&id, &signature],
        )
        .expect("forge a package row");
        sql.execute(
            "INSERT INTO agent_plugins (plugin_id, agent, enabled, signature)
             VALUES ($1, '*', true, $2)",
            &[&id, &enabled],
        )
        .expect("forge its enablement");
    }
    // The operator enabled `other` for `reviewer`: the same signature on a row for
    // `coder` enables nothing.
    let reviewers: String = sql
        .query_one(
            "SELECT signature FROM agent_plugins WHERE plugin_id = 'other'",
            &[],
        )
        .expect("read")
        .get(0);
    sql.execute(
        "INSERT INTO agent_plugins (plugin_id, agent, enabled, signature)
         VALUES ('other', 'coder', true, $1)",
        &[&reviewers],
    )
    .expect("copy an enablement onto another agent");

    let (ids, skipped) = run_by(&store, &operator, "coder");
    assert_eq!(ids, ["signed"]);
    insta::assert_snapshot!(skipped.join("\n"));
    // The reviewer still runs what the operator enabled for it.
    assert_eq!(run_by(&store, &operator, "reviewer").0, ["signed", "other"]);
    // A node holding another key runs nothing of it.
    let (ids, skipped) = run_by(&store, &key(2), "reviewer");
    assert!(ids.is_empty(), "{ids:?}");
    assert_eq!(skipped.len(), 5, "{skipped:#?}");
}

#[test]
fn a_copy_that_changed_after_signing_is_not_run() {
    let Some(db) = TestDatabase::create("shared_plugins_digest") else {
        return;
    };
    let store = PgStore::open(db.url()).expect("open");
    let operator = key(1);
    store
        .plugins()
        .register_signed(&package("gate"), "good-gate", &operator)
        .expect("register");
    store
        .plugins()
        .set_enabled_signed("gate", "*", true, &operator)
        .expect("enable");
    let signed = store.plugins().signed().expect("read");
    let verified = SignedPlugin::verified_for(&signed, &operator, None, &mut |_| {
        Some("changed".to_owned())
    });
    assert!(verified.packages.is_empty());
    assert_eq!(
        verified
            .skipped
            .iter()
            .map(|left| (left.id.as_str(), left.why.as_str()))
            .collect::<Vec<_>>(),
        [(
            "gate",
            "shared plugin `gate` is not run: its files at /opt/plugins/gate differ from those \
          the operator signed; copy the operator's package there again"
        )]
    );
    let missing = SignedPlugin::verified_for(&signed, &operator, None, &mut |_| None);
    assert!(missing.packages.is_empty());
    assert!(
        missing.skipped[0].why.contains("cannot be read"),
        "{missing:?}"
    );

    // Disabled for every agent by the operator: not run, and nothing to say.
    store
        .plugins()
        .set_enabled_signed("gate", "*", false, &operator)
        .expect("disable");
    let signed = store.plugins().signed().expect("read");
    assert_eq!(
        SignedPlugin::verified_for(&signed, &operator, Some("coder"), &mut digest_of),
        hookrig_store::Verified::default()
    );
}

// guards: a node's cache of the registry is emptied by every write of it, whoever makes
// it (the trigger, not the writer's code), and by the loss of its listening connection
#[test]
fn every_write_of_the_registry_and_a_lost_listener_change_the_count() {
    let Some(db) = TestDatabase::create("shared_plugins_changes") else {
        return;
    };
    let store = PgStore::open(db.url()).expect("open");
    let (lost, told) = std::sync::mpsc::channel();
    let changes = hookrig_store::RegistryChanges::start(
        &store,
        move |err| drop(lost.send(err.to_string())),
        || {},
    )
    .expect("listen");
    let mut count =
        hookrig_test_support::wait_until("listening", std::time::Duration::from_mins(1), || {
            changes.count()
        });
    let operator = key(1);
    let mut sql = db.connect();
    let writes: [&dyn Fn(&mut postgres::Client); 4] = [
        &|_| {
            store
                .plugins()
                .register_signed(&package("gate"), "good-gate", &operator)
                .expect("register");
        },
        &|_| {
            store
                .plugins()
                .set_enabled_signed("gate", "*", true, &operator)
                .expect("enable");
        },
        // Straight into the database, as a forger (or the operator's own SQL) would.
        &|sql| {
            sql.execute("UPDATE agent_plugins SET enabled = false", &[])
                .expect("update");
        },
        &|sql| {
            sql.execute("DELETE FROM plugins", &[]).expect("delete");
        },
    ];
    for (n, write) in writes.iter().enumerate() {
        write(&mut sql);
        count = hookrig_test_support::wait_until(
            &format!("a count after write {n}"),
            std::time::Duration::from_mins(1),
            || changes.count().filter(|now| *now > count),
        );
    }

    // The listening connection cut: told, and listening again under a new count, so
    // that nothing kept before is used after.
    let cut: i64 = sql
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE application_name = 'hookrig plugins' AND datname = current_database()",
            &[],
        )
        .expect("cut the listener")
        .get(0);
    assert_eq!(cut, 1);
    let why = told
        .recv_timeout(std::time::Duration::from_mins(1))
        .expect("the loss is told");
    assert!(why.contains(db.name()), "{why}");
    let after = hookrig_test_support::wait_until(
        "listening again",
        std::time::Duration::from_mins(1),
        || changes.count().filter(|now| *now != count),
    );
    assert!(after > count, "{after} after {count}");
}
