//! The plugin registry of a shared PostgreSQL store, end to end: the operator's
//! `hookrig plugins ... --store URL` writes signed rows; a `hookrig serve` node on that
//! store, holding a copy of the operator's key, runs a package of it in the emits it
//! answers only when its rows verify and its copy is the one signed. Rows forged with
//! SQL never run, nor does a changed copy; a plain `hookrig emit` never reads the shared
//! registry, whatever its environment or its project's config names. Skipped where
//! `HOOKRIG_TEST_POSTGRES` is unset.

use std::fs;
use std::path::PathBuf;
use std::time::Duration;

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

/// Emits on the node until the packages that ran are `expected`: a change of the
/// registry reaches a node that keeps what it read when the database's notification
/// does, a moment after the command that made it returned. The last Outcome.
fn emit_until(env: &TestEnv, port: u16, token: &str, expected: &[&str]) -> Value {
    wait_for(&format!("the node to run {expected:?}"), || {
        let outcome = emit_on(port, token);
        (ran(env) == expected).then_some(outcome)
    })
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

    // Disabled by the operator: no node runs it; enabled again, it runs (once the
    // change has reached the node).
    operator(&ops, db.url(), &["disable", "gate", "--all"]);
    emit_until(&ops, port, &token, &[]);
    operator(&ops, db.url(), &["enable", "gate", "--all"]);
    emit_until(&ops, port, &token, &["gate"]);

    // The node's copy changed after the operator signed it: not run, and said.
    fs::write(gate.join("extra.sh"), "echo changed\n").expect("change the package");
    let outcome = emit_on(port, &token);
    assert_eq!(ran(&ops), Vec::<String>::new(), "{outcome}");
    assert!(
        warnings(&outcome).contains("differ from those the operator signed"),
        "{outcome}"
    );
    serve.stop_cleanly();

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

/// A JavaScript plugin at `root/packages/<id>` with a tool `add` that answers the sum of
/// `a` and `b`, and the agent it was called for.
fn adder(env: &TestEnv, id: &str) -> PathBuf {
    let dir = env.root().join("packages").join(id);
    fs::create_dir_all(&dir).expect("mkdir");
    fs::write(dir.join("manifest.json"), "{}").expect("write the manifest");
    fs::write(
        dir.join("index.mjs"),
        "export function register(ctx) {\n  ctx.tools.add({\n    name: \"add\",\n    \
         description: \"adds two numbers\",\n    schema: { type: \"object\", properties: \
         { a: { type: \"number\" }, b: { type: \"number\" } } },\n    handler: ({ a, b }) \
         => ({ sum: a + b, agent: ctx.agent }),\n  });\n}\n",
    )
    .expect("write the plugin");
    dir
}

/// Writes a row of `plugins` and its `*` enablement straight into the database, without
/// signatures: what anyone who can write the database could do.
fn forge(db: &TestDatabase, id: &str, path: &std::path::Path) {
    let mut sql = db.connect();
    let digest = hookrig_dialects::package_digest(path).expect("a digest");
    sql.execute(
        "INSERT INTO plugins (id, name, description, path, registered_at, digest, signature)
         VALUES ($1, $1, '', $2, 1, $3, '')",
        &[&id, &path.display().to_string(), &digest],
    )
    .expect("forge a package row");
    sql.execute(
        "INSERT INTO agent_plugins (plugin_id, agent, enabled, signature)
         VALUES ($1, '*', true, '')",
        &[&id],
    )
    .expect("forge its enablement");
}

// guards: `plugins call --store` calls a tool of a shared package only under the rule
// of the emits: rows signed with this node's key, the copy the one signed
#[test]
fn plugins_call_with_store_calls_a_signed_package_and_refuses_a_forged_or_changed_one() {
    if !crate::harness::tool_available("node") {
        return;
    }
    let Some(db) = TestDatabase::create("shared_plugins_call") else {
        return;
    };
    let env = test_env();
    let package_dir = adder(&env, "calc");
    operator(
        &env,
        db.url(),
        &[
            "register",
            "calc",
            "--path",
            package_dir.to_str().expect("utf-8"),
        ],
    );
    operator(&env, db.url(), &["enable", "calc", "--agent", "coder"]);
    let call = |id: &str, store: bool| {
        let mut command = env.command([
            "--agent",
            "coder",
            "plugins",
            "call",
            id,
            "add",
            "--args",
            r#"{"a": 2, "b": 40}"#,
        ]);
        // `HOOKRIG_STORE_URL` names the operator's database as `--store` does.
        if store {
            command.env("HOOKRIG_STORE_URL", db.url());
        }
        let output =
            hookrig_test_support::run_with_input(command, b"", hookrig_test_support::HANG_LIMIT);
        (code(&output), text(&output.stdout), text(&output.stderr))
    };

    let (status, stdout, stderr) = call("calc", true);
    assert_eq!(status, 0, "{stderr}");
    let result: Value = serde_json::from_str(&stdout).expect("the result is JSON");
    assert_eq!(result, json!({"sum": 42, "agent": "coder"}));
    // The node's own registry has no such package.
    let (status, _, stderr) = call("calc", false);
    assert_eq!(status, 1);
    assert!(
        stderr.contains("no plugin `calc` is registered"),
        "{stderr}"
    );
    // Enabled for `coder` only: another agent is told how to enable it.
    let other = hookrig(
        &env,
        &[
            "--agent",
            "tester",
            "plugins",
            "call",
            "calc",
            "add",
            "--store",
            db.url(),
        ],
    );
    assert_eq!(code(&other), 1);
    assert!(
        text(&other.stderr).contains(
            "plugin `calc`: it is not enabled for agent `tester` in the shared registry; \
             `hookrig plugins enable calc --store URL --agent tester`"
        ),
        "{}",
        text(&other.stderr)
    );

    // A row written straight into the database, pointing at the same files.
    forge(&db, "forged", &package_dir);
    let (status, stdout, stderr) = call("forged", true);
    assert_eq!((status, stdout.as_str()), (1, ""), "{stderr}");
    assert!(
        stderr.contains(
            "error: shared plugin `forged` is not run: its registry row does not carry this \
             node's registry key signature"
        ),
        "{stderr}"
    );

    // The copy changed after the operator signed it.
    fs::write(
        package_dir.join("index.mjs"),
        "export function register(ctx) { ctx.tools.add({ name: \"add\", schema: {}, \
         handler: () => ({ sum: 0 }) }); }\n",
    )
    .expect("change the package");
    let (status, stdout, stderr) = call("calc", true);
    assert_eq!((status, stdout.as_str()), (1, ""), "{stderr}");
    assert!(
        stderr.contains("shared plugin `calc` is not run: its files at")
            && stderr.contains("differ from those the operator signed"),
        "{stderr}"
    );
}

/// An automation of agent `adding` whose model may call the adder's tool, on each
/// `task.completed`.
const ADDING: &str = r#"
id = "adding"
name = "Adding"
cooldown_seconds = 0
prompt_template = "Add the numbers."
tools = ["plugin:calc/add"]

[trigger]
type = "event"
event_type = "task.completed"
"#;

// guards: an automation's plugin tool on a serve node with a shared store comes from the
// shared registry, under the emits' rule, when the node's own registry has no package
#[test]
fn an_automation_on_a_serve_node_calls_a_tool_of_a_package_only_the_shared_registry_has() {
    if !crate::harness::tool_available("node") {
        return;
    }
    let Some(db) = TestDatabase::create("shared_plugins_tools") else {
        return;
    };
    let env = test_env();
    let package_dir = adder(&env, "calc");
    operator(
        &env,
        db.url(),
        &[
            "register",
            "calc",
            "--path",
            package_dir.to_str().expect("utf-8"),
        ],
    );
    operator(&env, db.url(), &["enable", "calc", "--agent", "adding"]);
    let tool_call = json!({"choices": [{"message": {"role": "assistant", "content": null,
        "tool_calls": [{"id": "c", "type": "function", "function": {
            "name": "calc__add", "arguments": r#"{"a": 2, "b": 40}"#}}]}}]});
    let done = json!({"choices": [{"message": {"role": "assistant", "content": "42."}}]});
    let next = std::sync::atomic::AtomicUsize::new(0);
    let model = hookrig_test_support::HttpStub::start(move |_| {
        let reply = if next.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
            &tool_call
        } else {
            &done
        };
        hookrig_test_support::Reply::json(200, reply.to_string())
    });
    crate::serve::write_config_toml(
        &env,
        &format!(
            "[automation.llm]\nprovider = \"openai\"\nmodel = \"m\"\nbase_url = \"{}\"\n\
             api_key_env = \"ADDING_KEY\"\n",
            model.url()
        ),
    );
    env.write_file(".hookrig/automations/adding.toml", ADDING);
    let mut command = env.command(["serve"]);
    command
        .env("HOOKRIG_STORE_URL", db.url())
        .env("ADDING_KEY", "sk-test");
    let serve = Serve::start_with(&env, command);

    let out = crate::harness::emit(&env, &["task.completed"], r#"{"task_id":"t1"}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut sql = db.connect();
    let (status, answer): (String, Option<String>) = wait_for("the automation's run", || {
        sql.query_opt(
            "SELECT status, llm_response FROM automation_runs
             WHERE automation_id = 'adding' AND status <> 'running'",
            &[],
        )
        .expect("read the runs")
        .map(|row| (row.get(0), row.get(1)))
    });
    assert_eq!(
        (status.as_str(), answer.as_deref()),
        ("completed", Some("42.")),
        "{}",
        serve.stderr()
    );
    // The model was given what the tool answered, called as the automation's agent.
    let requests = model.requests();
    let second = requests.get(1).expect("a second request").json();
    let result = second["messages"]
        .as_array()
        .and_then(|messages| messages.iter().find(|m| m["role"] == "tool"))
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    assert!(
        result.contains("42") && result.contains("adding"),
        "{second}"
    );
    serve.stop_cleanly();
}

// guards: a node that keeps what it read of the registry hears the operator's change on
// another machine, and never runs a copy changed after signing, however warm it is
#[test]
fn a_warm_node_hears_a_change_made_on_another_and_never_runs_a_changed_copy() {
    let Some(db) = TestDatabase::create("shared_plugins_cache") else {
        return;
    };
    let (ops, host) = (test_env(), test_env());
    let gate = package(&ops, "gate");
    operator(
        &ops,
        db.url(),
        &["register", "gate", "--path", gate.to_str().expect("utf-8")],
    );
    operator(&ops, db.url(), &["enable", "gate", "--all"]);
    copy_key(&ops, &host);
    let (serve, port, token) = node(&host, db.url());
    emit_until(&ops, port, &token, &["gate"]);

    // Disabled from the operator's machine: the next emits on the node stop running it.
    operator(&ops, db.url(), &["disable", "gate", "--all"]);
    emit_until(&ops, port, &token, &[]);
    operator(&ops, db.url(), &["enable", "gate", "--all"]);
    emit_until(&ops, port, &token, &["gate"]);

    // A node keeps a copy's digest once the copy has been left alone long enough for its
    // next change to show in its files' times: wait for that, then warm it.
    let written = fs::metadata(gate.join("plugin.json"))
        .and_then(|meta| meta.modified())
        .expect("the manifest's time");
    let settled = written + hookrig_config::consulted::SETTLE + Duration::from_millis(100);
    if let Ok(left) = settled.duration_since(std::time::SystemTime::now()) {
        std::thread::sleep(left);
    }
    for _ in 0..2 {
        let outcome = emit_on(port, &token);
        assert_eq!(ran(&ops), ["gate"], "{outcome}");
    }
    // The manifest rewritten with a hook of another's choosing, of the same length.
    let manifest = fs::read_to_string(gate.join("plugin.json")).expect("read");
    let tampered = manifest.replacen("echo gate", "echo evil", 1);
    assert_eq!(tampered.len(), manifest.len());
    fs::write(gate.join("plugin.json"), tampered).expect("tamper");
    let outcome = emit_on(port, &token);
    assert_eq!(ran(&ops), Vec::<String>::new(), "{outcome}");
    assert!(
        warnings(&outcome).contains("differ from those the operator signed"),
        "{outcome}"
    );
    serve.stop_cleanly();
}
