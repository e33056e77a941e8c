//! The plugin registry of a shared PostgreSQL store, end to end: the operator's
//! `hookrig plugins ... --store URL` writes signed rows; a `hookrig serve` node on that
//! store, holding a copy of the operator's key, runs a package of it in the emits it
//! answers only when its rows verify and its copy is the one signed. Rows forged with
//! SQL never run, nor does a changed copy; a plain `hookrig emit` never reads the shared
//! registry, whatever its environment or its project's config names. Skipped where
//! `HOOKRIG_TEST_POSTGRES` is unset.

use std::fs;
use std::path::PathBuf;

use hookrig_test_support::{TestDatabase, TestEnv};
use serde_json::{Value, json};

use crate::engine::http;
use crate::harness::{code, hookrig, quoted, test_env, text};
use crate::serve::{Serve, wait_for};

/// A package at `root/packages/<id>` whose `PreToolUse` hook appends its id to the log
/// and allows.
fn package(env: &TestEnv, id: &str) -> PathBuf {
    let dir = env.root().join("packages").join(id);
    fs::create_dir_all(&dir).expect("mkdir");
    let log = env.root().join("log");
    let manifest = json!({
        "name": id,
        "hooks": {"PreToolUse": [{
            "command": format!("echo {id} >> {}; echo '{{\"decision\":\"allow\"}}'", quoted(&log))
        }]}
    });
    fs::write(dir.join("plugin.json"), manifest.to_string()).expect("write the manifest");
    dir
}

/// The ids of the packages whose hook ran since the last call.
fn ran(env: &TestEnv) -> Vec<String> {
    let log = env.root().join("log");
    let lines = fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    let _ = fs::remove_file(&log);
    lines
}

/// `hookrig plugins ARGS --store URL` as the operator, which must succeed; its stdout.
fn operator(env: &TestEnv, url: &str, args: &[&str]) -> String {
    let mut all = vec!["plugins"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--store", url]);
    let output = hookrig(env, &all);
    assert_eq!(code(&output), 0, "{all:?}: {}", text(&output.stderr));
    text(&output.stdout)
}

/// A serve node on `url` answering emits over HTTP: the node, its port and token.
fn node(env: &TestEnv, url: &str) -> (Serve, u16, String) {
    let mut command = env.command(["serve", "--http", "127.0.0.1:0"]);
    command.env("HOOKRIG_STORE_URL", url);
    let serve = Serve::start_with(env, command);
    let port: u16 = wait_for("the HTTP address", || {
        let log = serve.stderr();
        let at = log.find("answering emits on http://127.0.0.1:")?;
        log[at + "answering emits on http://127.0.0.1:".len()..]
            .split('/')
            .next()?
            .parse()
            .ok()
    });
    let token = text(&hookrig(env, &["serve", "--print-token"]).stdout)
        .trim()
        .to_owned();
    (serve, port, token)
}

/// One `PreToolUse` emit answered by the node: its Outcome.
fn emit_on(port: u16, token: &str) -> Value {
    let body = json!({"tool": {"name": "Bash", "input": {"command": "ls"}}});
    let (status, head, body) = http(
        port,
        "/emit/tool.before",
        Some(token),
        body.to_string().as_bytes(),
    );
    assert_eq!(status, 200, "{head}\n{body}");
    serde_json::from_str(&body).unwrap_or_else(|err| panic!("not JSON ({err}): {body}"))
}

fn warnings(outcome: &Value) -> String {
    outcome["warnings"].to_string()
}

fn copy_key(from: &TestEnv, to: &TestEnv) {
    let key = |env: &TestEnv| env.config_home().join("hookrig").join("registry.key");
    fs::create_dir_all(key(to).parent().expect("a parent")).expect("mkdir");
    fs::copy(key(from), key(to)).expect("copy the operator's key");
}

// guards: the shared registry's packages run on a node only as the operator signed
// them; forged rows, a changed copy and a node without the key run none
#[test]
fn a_serve_node_runs_the_packages_the_operator_signed_and_no_forged_or_changed_one() {
    let Some(db) = TestDatabase::create("shared_plugins_nodes") else {
        return;
    };
    let (ops, host) = (test_env(), test_env());
    let gate = package(&ops, "gate");
    let forged = package(&ops, "forged");
    let out = operator(
        &ops,
        db.url(),
        &["register", "gate", "--path", gate.to_str().expect("utf-8")],
    );
    assert!(out.contains("in the shared registry, signed with"), "{out}");
    operator(&ops, db.url(), &["enable", "gate", "--all"]);
    // Nothing went to the operator's own store file.
    let local = text(&hookrig(&ops, &["plugins", "list", "--json"]).stdout);
    assert_eq!(local.trim(), "[]");

    // Rows written straight into the database: a package with no signature, and one
    // with the gate's valid signatures copied onto it, both enabled for everyone.
    let mut sql = db.connect();
    for (id, copied) in [("forged", false), ("copied", true)] {
        let (signature, enabled) = if copied {
            let row = sql
                .query_one(
                    "SELECT p.signature, a.signature FROM plugins p
                     JOIN agent_plugins a ON a.plugin_id = p.id WHERE p.id = 'gate'",
                    &[],
                )
                .expect("read the gate's signatures");
            (row.get(0), row.get(1))
        } else {
            (String::new(), String::new())
        };
        let digest: String = sql
            .query_one("SELECT digest FROM plugins WHERE id = 'gate'", &[])
            .expect("read")
            .get(0);
        sql.execute(
            "INSERT INTO plugins (id, name, description, path, registered_at, digest, signature)
             VALUES ($1, $1, '', $2, 1, $3, $4)",
            &[&id, &forged.display().to_string(), &digest, &signature],
        )
        .expect("forge a package row");
        sql.execute(
            "INSERT INTO agent_plugins (plugin_id, agent, enabled, signature)
             VALUES ($1, '*', true, $2)",
            &[&id, &enabled],
        )
        .expect("forge its enablement");
    }
    let listed = hookrig(&ops, &["plugins", "list", "--store", db.url()]);
    let (stdout, stderr) = (text(&listed.stdout), text(&listed.stderr));
    assert!(
        stdout.contains("gate") && !stdout.contains("forged"),
        "{stdout}"
    );
    assert!(
        stderr.contains("shared plugin `forged` is not run")
            && stderr.contains("shared plugin `copied` is not run"),
        "{stderr}"
    );

    let shown = operator(&ops, db.url(), &["show", "gate"]);
    assert!(shown.contains("every agent"), "{shown}");
    let refused = hookrig(&ops, &["plugins", "show", "forged", "--store", db.url()]);
    assert_eq!(code(&refused), 1);
    assert!(
        text(&refused.stderr).contains("no plugin `forged` is registered"),
        "{}",
        text(&refused.stderr)
    );

    // A node without the key runs nothing of the registry; with a copy, the gate only.
    let (serve, port, token) = node(&host, db.url());
    let outcome = emit_on(port, &token);
    assert_eq!(ran(&ops), Vec::<String>::new(), "{outcome}");
    copy_key(&ops, &host);
    let outcome = emit_on(port, &token);
    assert_eq!(ran(&ops), ["gate"], "{outcome}");
    let said = warnings(&outcome);
    assert!(
        said.contains("shared plugin `forged` is not run")
            && said.contains("shared plugin `copied` is not run"),
        "{said}"
    );

    // Disabled by the operator: no node runs it; enabled again, it runs.
    operator(&ops, db.url(), &["disable", "gate", "--all"]);
    let outcome = emit_on(port, &token);
    assert_eq!(ran(&ops), Vec::<String>::new(), "{outcome}");
    operator(&ops, db.url(), &["enable", "gate", "--all"]);
    let outcome = emit_on(port, &token);
    assert_eq!(ran(&ops), ["gate"], "{outcome}");

    // The node's copy changed after the operator signed it: not run, and said.
    fs::write(gate.join("extra.sh"), "echo changed\n").expect("change the package");
    let outcome = emit_on(port, &token);
    assert_eq!(ran(&ops), Vec::<String>::new(), "{outcome}");
    assert!(
        warnings(&outcome).contains("differ from those the operator signed"),
        "{outcome}"
    );
    let (status, log) = serve.stop();
    assert!(status.success(), "{log}");

    let out = operator(&ops, db.url(), &["delete", "gate"]);
    assert_eq!(out, "deleted plugin `gate` from the shared registry\n");
    let left: i64 = sql
        .query_one("SELECT count(*) FROM plugins WHERE id = 'gate'", &[])
        .expect("count")
        .get(0);
    assert_eq!(left, 0);
}

// guards: only the operator names the database a registry is read from: a plain emit
// with a host variable or a project config naming it reads the store file only
#[test]
fn a_plain_emit_never_reads_the_shared_registry_whatever_names_the_database() {
    let Some(db) = TestDatabase::create("shared_plugins_plain_emit") else {
        return;
    };
    let env = test_env();
    let gate = package(&env, "gate");
    operator(
        &env,
        db.url(),
        &["register", "gate", "--path", gate.to_str().expect("utf-8")],
    );
    operator(&env, db.url(), &["enable", "gate", "--all"]);
    env.write_file(
        ".hookrig/config.toml",
        &format!("[store]\nurl = {:?}\n", db.url()),
    );
    let mut command = env.command(["emit", "PreToolUse"]);
    command.env("HOOKRIG_STORE_URL", db.url());
    let output = hookrig_test_support::run_with_input(
        command,
        json!({"tool": {"name": "Bash"}}).to_string().as_bytes(),
        hookrig_test_support::HANG_LIMIT,
    );
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(ran(&env), Vec::<String>::new());
}
