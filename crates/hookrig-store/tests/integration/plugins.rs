//! The plugin package registry in a real ledger file: rows survive reopening, deletes
//! cascade, and enablement follows the `*` rules across connections.

use hookrig_store::{AgentEnablement, PluginRow, Store, StoreError};

use crate::fixtures::TempStore;

fn package(id: &str, registered_at_ms: i64) -> PluginRow {
    PluginRow {
        id: id.to_owned(),
        name: format!("The {id} package"),
        description: format!("does {id} things"),
        path: format!("/opt/plugins/{id}"),
        version: Some("1.2.0".to_owned()),
        registered_at_ms,
    }
}

fn ids(rows: &[PluginRow]) -> Vec<&str> {
    rows.iter().map(|p| p.id.as_str()).collect()
}

#[test]
fn registry_round_trips_through_a_reopened_file() {
    let t = TempStore::new();
    // Registered out of id order: listing keeps registration order.
    t.store
        .plugins()
        .register(&package("zeta", 10))
        .expect("register");
    t.store
        .plugins()
        .register(&package("alpha", 20))
        .expect("register");
    t.store
        .plugins()
        .set_enabled("zeta", "*", true)
        .expect("enable");
    t.store
        .plugins()
        .set_enabled("zeta", "reviewer", false)
        .expect("disable");
    t.store
        .plugins()
        .set_enabled("alpha", "coder", true)
        .expect("enable");
    let path = t.path();
    drop(t.store);

    let ledger = Store::open(&path).expect("reopen");
    let listed = ledger.plugins().list().expect("list");
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0].plugin, package("zeta", 10));
    assert_eq!(
        listed[0].agents,
        [
            AgentEnablement {
                agent: "*".to_owned(),
                enabled: true
            },
            AgentEnablement {
                agent: "reviewer".to_owned(),
                enabled: false
            },
        ]
    );
    assert_eq!(listed[1].plugin, package("alpha", 20));
    assert_eq!(
        ids(&ledger.plugins().enabled_for(Some("coder")).expect("q")),
        ["zeta", "alpha"]
    );
    assert!(
        ledger
            .plugins()
            .enabled_for(Some("reviewer"))
            .expect("q")
            .is_empty()
    );
    assert_eq!(
        ids(&ledger.plugins().enabled_for(Some("other")).expect("q")),
        ["zeta"]
    );
    assert_eq!(
        ids(&ledger.plugins().enabled_for(None).expect("q")),
        ["zeta"]
    );
}

#[test]
fn duplicate_id_is_refused_and_keeps_the_first() {
    let t = TempStore::new();
    t.store
        .plugins()
        .register(&package("p", 1))
        .expect("register");
    let mut other = package("p", 2);
    other.path = "/elsewhere".to_owned();
    let error = t.store.plugins().register(&other).expect_err("duplicate");
    assert!(
        matches!(&error, StoreError::DuplicatePlugin { id } if id == "p"),
        "{error:?}"
    );
    assert_eq!(
        t.store.plugins().get("p").expect("read"),
        Some(package("p", 1))
    );
}

#[test]
fn delete_cascades_to_enablement_rows() {
    let t = TempStore::new();
    t.store
        .plugins()
        .register(&package("p", 1))
        .expect("register");
    t.store
        .plugins()
        .set_enabled("p", "*", true)
        .expect("enable");
    t.store
        .plugins()
        .set_enabled("p", "a", false)
        .expect("disable");
    t.store.plugins().delete("p").expect("delete");
    let conn = rusqlite::Connection::open(t.path()).expect("second connection");
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM agent_plugins", [], |row| row.get(0))
        .expect("count");
    assert_eq!(rows, 0, "enablement rows went with the plugin");
    assert!(t.store.plugins().list().expect("list").is_empty());
    // The id is free again.
    t.store
        .plugins()
        .register(&package("p", 3))
        .expect("register again");
    assert!(
        t.store.plugins().enabled_for(None).expect("q").is_empty(),
        "a fresh registration starts disabled"
    );
}
