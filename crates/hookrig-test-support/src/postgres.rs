//! A PostgreSQL database of its own for each test. The cluster is given by
//! `HOOKRIG_TEST_POSTGRES`, a connection URL to a database the tests may create databases
//! from (`.ci/run` starts a cluster on a Unix socket and sets it); each [`TestDatabase`]
//! creates a fresh, uniquely named database there and drops it when dropped, so that
//! tests running at once never see each other's rows.
//!
//! Where the variable is unset a test skips itself with a message on stderr, except
//! under `HOOKRIG_TEST_REQUIRE_TOOLS` (set by `.ci/run`), where a missing cluster fails
//! the test rather than letting it pass untested.

use std::sync::atomic::{AtomicU32, Ordering};

/// The variable naming the cluster the tests use.
pub const POSTGRES_VAR: &str = "HOOKRIG_TEST_POSTGRES";

/// A database created for one test, dropped (with every connection to it) on drop.
#[derive(Debug)]
pub struct TestDatabase {
    admin_url: String,
    name: String,
    url: String,
}

impl TestDatabase {
    /// Creates a fresh database for the test `label` (any text; it becomes part of the
    /// database's name for whoever looks at the cluster), or `None` after a message on
    /// stderr when `HOOKRIG_TEST_POSTGRES` is unset.
    ///
    /// # Panics
    ///
    /// When the variable is unset under `HOOKRIG_TEST_REQUIRE_TOOLS`, or the cluster
    /// cannot be reached or refuses to create the database.
    pub fn create(label: &str) -> Option<TestDatabase> {
        let Some(admin_url) = std::env::var(POSTGRES_VAR).ok().filter(|u| !u.is_empty()) else {
            assert!(
                std::env::var_os("HOOKRIG_TEST_REQUIRE_TOOLS").is_none(),
                "{POSTGRES_VAR} is unset, and HOOKRIG_TEST_REQUIRE_TOOLS is set: \
                 .ci/run starts a PostgreSQL cluster and sets it"
            );
            eprintln!("skipped: {POSTGRES_VAR} is unset (a postgres:// URL runs this test)");
            return None;
        };
        let name = unique_name(label);
        let mut admin = connect(&admin_url);
        off_runtime(|| admin.batch_execute(&format!("CREATE DATABASE \"{name}\"")))
            .unwrap_or_else(|e| panic!("create the test database {name}: {e}"));
        off_runtime(move || drop(admin));
        let url = with_database(&admin_url, &name);
        Some(TestDatabase {
            admin_url,
            name,
            url,
        })
    }

    /// The connection URL of the test's database.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Writes an automation row into the database by hand, unsigned, as anyone who can
    /// write to it could: `id` (also its name), its `trigger` and `context_steps` as JSON
    /// text. No node may run it.
    ///
    /// # Panics
    ///
    /// When the row cannot be written (the schema is not migrated, or the id is taken).
    pub fn forge_automation(&self, id: &str, trigger: &str, context_steps: &str) {
        self.connect()
            .execute(
                "INSERT INTO automations (id, project_id, name, enabled, trigger, context_steps,
                     prompt_template, cooldown_seconds, created_at, updated_at)
                 VALUES ($1, 'p', $1, true, $2, $3, 'go', 0, 0, 0)",
                &[&id, &trigger, &context_steps],
            )
            .expect("write an automation row by hand");
    }

    /// A new connection to the test's database, for a test that looks at rows itself
    /// (outside a tokio runtime: the blocking client cannot be used inside one).
    ///
    /// # Panics
    ///
    /// When the database cannot be reached.
    pub fn connect(&self) -> postgres::Client {
        connect(&self.url)
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        // FORCE ends the connections a test left open (a store it did not drop, a node
        // it killed whose backend has not noticed yet).
        off_runtime(|| {
            if let Ok(mut admin) = postgres::Client::connect(&self.admin_url, postgres::NoTls) {
                let _ = admin.batch_execute(&format!(
                    "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
                    self.name
                ));
            }
        });
    }
}

fn connect(url: &str) -> postgres::Client {
    off_runtime(|| postgres::Client::connect(url, postgres::NoTls))
        .unwrap_or_else(|e| panic!("connect to the test cluster at {url}: {e}"))
}

/// Runs `work` on a thread of its own: the blocking client drives a runtime of its own,
/// which tokio refuses to start inside a `#[tokio::test]`.
fn off_runtime<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| match scope.spawn(work).join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

/// A database name no other test of any process uses: the label's letters and digits,
/// the pid and a counter, within PostgreSQL's 63 bytes.
fn unique_name(label: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let label: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .take(32)
        .collect();
    format!("hookrig_t{}_{n}_{label}", std::process::id())
}

/// `url` with its database (the path after the host) replaced by `name`; the query
/// (`?host=/socket/dir`) is kept.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let authority_start = base.find("://").map_or(0, |i| i + 3);
    let path_start = base[authority_start..]
        .find('/')
        .map_or(base.len(), |i| authority_start + i);
    let mut out = format!("{}/{name}", &base[..path_start]);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_of_a_url_is_replaced_and_its_query_kept() {
        assert_eq!(
            with_database("postgresql://u@/postgres?host=/run/pg", "t1"),
            "postgresql://u@/t1?host=/run/pg"
        );
        assert_eq!(
            with_database("postgres://u:p@127.0.0.1:5432", "t1"),
            "postgres://u:p@127.0.0.1:5432/t1"
        );
        assert_eq!(
            with_database("postgres://127.0.0.1/db", "t2"),
            "postgres://127.0.0.1/t2"
        );
    }

    #[test]
    fn names_are_unique_and_fit_postgres() {
        let a = unique_name("a test: with spaces and a very long label that goes on");
        let b = unique_name("a test: with spaces and a very long label that goes on");
        assert_ne!(a, b);
        assert!(a.len() <= 63, "{a}");
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    }

    #[test]
    fn each_database_is_fresh_and_gone_after_the_drop() {
        let Some(db) = TestDatabase::create("fresh") else {
            return;
        };
        let mut client = db.connect();
        client
            .batch_execute("CREATE TABLE t (x int); INSERT INTO t VALUES (1)")
            .expect("write");
        let name = db.name().to_owned();
        let admin_url = db.admin_url.clone();
        drop(client);
        drop(db);
        let mut admin = connect(&admin_url);
        let left = admin
            .query_one(
                "SELECT count(*) FROM pg_database WHERE datname = $1",
                &[&name],
            )
            .expect("count")
            .get::<_, i64>(0);
        assert_eq!(left, 0, "the test database was dropped");
    }
}
