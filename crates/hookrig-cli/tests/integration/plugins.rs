//! Plugin packages end to end: `hookrig plugins` against the real SQLite store, and
//! `hookrig emit --agent` running a package's hooks only for the agents it is enabled
//! for.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use hookrig_test_support::{HANG_LIMIT, HttpStub, Reply, Request, TestEnv, run_with_input};
use serde_json::{Value, json};

use crate::harness::{Emitted, code, emit, emitted, hookrig, quoted, test_env, text};

/// Writes `contents` at `path`, creating parents.
fn put(path: &Path, contents: &str) {
    fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    fs::write(path, contents).expect("write");
}

/// A package at `root/packages/<dir>` whose `PreToolUse` hook appends `word` to `log`
/// and prints `reply`.
fn package(env: &TestEnv, dir: &str, word: &str, reply: &Value) -> PathBuf {
    let path = env.root().join("packages").join(dir);
    let log = env.root().join("log");
    let manifest = json!({
        "name": dir,
        "version": "1.0.0",
        "description": format!("the {dir} package"),
        "hooks": {"PreToolUse": [{"command": format!("echo {word} >> {}; echo '{reply}'", quoted(&log))}]},
        "commands": {"todo": "bin/todo"}
    });
    put(
        &path.join("plugin.json"),
        &serde_json::to_string_pretty(&manifest).expect("json"),
    );
    path
}

fn log(env: &TestEnv) -> Vec<String> {
    let lines = fs::read_to_string(env.root().join("log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    let _ = fs::remove_file(env.root().join("log"));
    lines
}

/// `hookrig plugins ARGS`, which must succeed; its stdout.
fn plugins(env: &TestEnv, args: &[&str]) -> String {
    let output = plugins_output(env, args);
    assert_eq!(
        code(&output),
        0,
        "plugins {args:?} failed: {}",
        text(&output.stderr)
    );
    text(&output.stdout)
}

fn plugins_output(env: &TestEnv, args: &[&str]) -> Output {
    let mut all = vec!["plugins"];
    all.extend_from_slice(args);
    hookrig(env, &all)
}

/// `hookrig plugins ARGS`, which must fail with exit 1; its stderr.
fn plugins_error(env: &TestEnv, args: &[&str]) -> String {
    let output = plugins_output(env, args);
    assert_eq!(code(&output), 1, "stdout: {}", text(&output.stdout));
    assert!(output.stdout.is_empty());
    env.redact(&text(&output.stderr))
}

fn register(env: &TestEnv, id: &str, path: &Path) {
    plugins(
        env,
        &["register", id, "--path", path.to_str().expect("utf-8")],
    );
}

fn pre_tool(env: &TestEnv, args: &[&str], payload: &Value) -> Emitted {
    let mut all = vec!["PreToolUse"];
    all.extend_from_slice(args);
    emit(env, &all, &payload.to_string())
}

fn bash() -> Value {
    json!({"tool": {"name": "Bash", "input": {"command": "ls"}}})
}

fn allow() -> Value {
    json!({"decision": "allow"})
}

/// The list as JSON, with the registration time (which changes) checked and removed.
fn list_json(env: &TestEnv) -> Value {
    let mut list: Value = serde_json::from_str(&plugins(env, &["list", "--json"])).expect("json");
    for entry in list.as_array_mut().expect("an array") {
        let at = entry
            .as_object_mut()
            .expect("an object")
            .remove("registered_at_ms")
            .expect("registered_at_ms");
        assert!(at.as_i64().is_some_and(|ms| ms > 1_700_000_000_000), "{at}");
    }
    list
}

#[test]
fn register_enable_disable_delete_round_trip_through_the_store() {
    let env = test_env();
    let guard = package(&env, "guard", "g", &allow());
    let audit = package(&env, "audit", "a", &allow());
    assert_eq!(
        plugins(&env, &["list"]),
        "no plugins registered; `hookrig plugins register ID --path DIR` adds one\n"
    );

    let said = plugins(
        &env,
        &[
            "register",
            "guard",
            "--name",
            "Guard",
            "--description",
            "blocks things",
            "--path",
            guard.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(
        env.redact(&said),
        "registered plugin `guard` (Guard) from [TMP]/packages/guard; enable it with `hookrig plugins enable guard --agent NAME` or `--all`\n"
    );
    // Name and description default to the manifest's.
    register(&env, "audit", &audit);
    plugins(&env, &["enable", "guard", "--all"]);
    plugins(&env, &["disable", "guard", "--agent", "reviewer"]);
    plugins(&env, &["enable", "audit", "--agent", "coder"]);
    plugins(&env, &["enable", "audit", "--agent", "tester"]);

    insta::assert_snapshot!(env.redact(&plugins(&env, &["list"])));
    let json = serde_json::to_string_pretty(&list_json(&env)).expect("json");
    insta::assert_snapshot!(env.redact(&json));

    // What the CLI wrote is in the store file where the ledger lives.
    let store = hookrig_store::Store::open(&env.ledger_path()).expect("the store");
    let ids = |agent: Option<&str>| {
        store
            .plugins()
            .enabled_for(agent)
            .expect("query")
            .into_iter()
            .map(|p| p.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(Some("coder")), ["guard", "audit"]);
    assert_eq!(ids(Some("reviewer")), Vec::<String>::new());
    assert_eq!(ids(None), ["guard"]);

    // --all replaces the per-agent exceptions.
    plugins(&env, &["disable", "audit", "--all"]);
    plugins(&env, &["delete", "guard"]);
    let list = list_json(&env);
    assert_eq!(
        list,
        json!([{
            "id": "audit",
            "name": "audit",
            "description": "the audit package",
            "path": audit.display().to_string(),
            "version": "1.0.0",
            "agents": [{"agent": "*", "enabled": false}]
        }])
    );
}

#[test]
fn package_hooks_run_only_for_the_agents_they_are_enabled_for() {
    let env = test_env();
    let log_path = env.root().join("log");
    env.write_global_config(&format!(
        "[[hooks]]\nname = \"native\"\nevents = [\"tool.before\"]\ncommand = \"echo native >> {}\"\n",
        quoted(&log_path).replace('\'', "\\\"")
    ));
    let guard = package(&env, "guard", "guard", &allow());
    register(&env, "guard", &guard);

    // Registered but enabled for nobody: only the native hook runs.
    let out = pre_tool(&env, &["--agent", "coder"], &bash());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(log(&env), ["native"]);

    plugins(&env, &["enable", "guard", "--agent", "coder"]);
    let out = pre_tool(&env, &["--agent", "coder"], &bash());
    assert_eq!(
        out.results(),
        [
            ("native".to_owned(), "allow".to_owned()),
            ("guard:PreToolUse:0".to_owned(), "allow".to_owned())
        ]
    );
    assert_eq!(out.hook("guard:PreToolUse:0")["dialect"], "xcode");
    assert_eq!(log(&env), ["native", "guard"]);

    // --no-ledger stops recording, not the registry.
    pre_tool(&env, &["--agent", "coder", "--no-ledger"], &bash());
    assert_eq!(log(&env), ["native", "guard"], "--no-ledger");
    pre_tool(&env, &["--agent", "reviewer"], &bash());
    assert_eq!(log(&env), ["native"], "not enabled for reviewer");
    pre_tool(&env, &[], &bash());
    assert_eq!(
        log(&env),
        ["native"],
        "no agent: only packages enabled for *"
    );

    // The agent from HOOKRIG_AGENT, and from the payload's session.agent.
    let mut command = env.command(["emit", "PreToolUse"]);
    command.env("HOOKRIG_AGENT", "coder");
    let output = run_with_input(command, bash().to_string().as_bytes(), HANG_LIMIT);
    assert_eq!(code(&output), 0);
    assert_eq!(log(&env), ["native", "guard"], "HOOKRIG_AGENT");
    let mut payload = bash();
    payload["session"] = json!({"agent": "coder"});
    pre_tool(&env, &[], &payload);
    assert_eq!(log(&env), ["native", "guard"], "session.agent");
    pre_tool(&env, &["--agent", "reviewer"], &payload);
    assert_eq!(log(&env), ["native"], "--agent wins over session.agent");

    // Every agent but reviewer; with no agent, the * row decides.
    plugins(&env, &["enable", "guard", "--all"]);
    plugins(&env, &["disable", "guard", "--agent", "reviewer"]);
    for (agent, expected) in [
        (Some("other"), &["native", "guard"][..]),
        (Some("reviewer"), &["native"][..]),
        (None, &["native", "guard"][..]),
    ] {
        let args: Vec<&str> = agent.map(|a| vec!["--agent", a]).unwrap_or_default();
        pre_tool(&env, &args, &bash());
        assert_eq!(log(&env), expected, "agent {agent:?}");
    }

    plugins(&env, &["delete", "guard"]);
    pre_tool(&env, &["--agent", "other"], &bash());
    assert_eq!(log(&env), ["native"], "deleted packages do not run");
}

#[test]
fn package_deny_decides_and_its_hook_sees_the_registered_id() {
    let env = test_env();
    let seen = env.root().join("stdin.json");
    let dir = env.root().join("packages").join("gate");
    put(
        &dir.join("plugin.json"),
        &json!({
            "id": "gate",
            "name": "gate",
            "hooks": {"PreToolUse": [{
                "command": format!("cat > {}; echo '{{\"decision\":\"deny\",\"reason\":\"no ${{pluginDir}}\"}}'", quoted(&seen)),
                "matcher": "Bash"
            }]}
        })
        .to_string(),
    );
    register(&env, "gate", &dir);
    plugins(&env, &["enable", "gate", "--agent", "coder"]);

    let out = pre_tool(
        &env,
        &["--agent", "coder", "--session", "s1"],
        &json!({"session": {"cwd": env.project().display().to_string()}, "tool": {"name": "Bash", "input": {"command": "rm -rf /"}}}),
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "deny");
    assert_eq!(out.outcome["decided_by"], "gate:PreToolUse:0");
    let stdin = fs::read_to_string(&seen).expect("the hook ran");
    insta::assert_snapshot!(env.redact(&stdin));

    let out = pre_tool(&env, &["--agent", "tester"], &bash());
    assert_eq!(out.code, 0, "not enabled for tester");
}

#[test]
fn errors_name_the_id_or_the_path() {
    let env = test_env();
    let guard = package(&env, "guard", "g", &allow());
    register(&env, "guard", &guard);
    let other = package(&env, "other", "o", &allow());
    let empty = env.root().join("packages").join("empty");
    fs::create_dir_all(&empty).expect("mkdir");
    let broken = env.root().join("packages").join("broken");
    put(
        &broken.join("plugin.json"),
        "{\n  \"name\": \"broken\",\n  \"commands\": {\"x\": \"/bin/sh\"}\n}",
    );
    let path = |p: &Path| p.to_str().expect("utf-8").to_owned();

    let errors = [
        plugins_error(&env, &["register", "guard", "--path", &path(&other)]),
        plugins_error(&env, &["register", "Bad_Id", "--path", &path(&other)]),
        plugins_error(&env, &["register", "empty", "--path", &path(&empty)]),
        plugins_error(
            &env,
            &[
                "register",
                "gone",
                "--path",
                &path(&env.root().join("gone")),
            ],
        ),
        plugins_error(&env, &["register", "broken", "--path", &path(&broken)]),
        plugins_error(&env, &["enable", "nope", "--agent", "coder"]),
        plugins_error(&env, &["disable", "nope", "--all"]),
        plugins_error(&env, &["delete", "nope"]),
        plugins_error(&env, &["enable", "guard", "--agent", ""]),
    ];
    insta::assert_snapshot!(errors.join(""));

    // Neither --agent nor --all: a usage error from the parser (exit 2).
    let output = plugins_output(&env, &["enable", "guard"]);
    assert_eq!(code(&output), 2);
    assert!(
        text(&output.stderr).contains("--agent <NAME>|--all"),
        "{}",
        text(&output.stderr)
    );
    // Nothing changed.
    let list: Value = serde_json::from_str(&plugins(&env, &["list", "--json"])).expect("json");
    assert_eq!(list.as_array().map(Vec::len), Some(1));
    assert_eq!(list[0]["agents"], json!([]));
}

#[test]
fn ledger_flag_selects_the_store_and_a_broken_package_is_reported_by_emit() {
    let env = test_env();
    let store = env.root().join("elsewhere.db");
    let store_arg = store.to_str().expect("utf-8");
    let guard = package(&env, "guard", "guard", &allow());
    hookrig(
        &env,
        &[
            "--ledger",
            store_arg,
            "plugins",
            "register",
            "guard",
            "--path",
            guard.to_str().expect("utf-8"),
        ],
    );
    hookrig(
        &env,
        &["--ledger", store_arg, "plugins", "enable", "guard", "--all"],
    );
    assert!(
        !env.ledger_path().exists(),
        "the default store was not touched"
    );

    pre_tool(&env, &[], &bash());
    assert!(log(&env).is_empty(), "the default store has no packages");
    pre_tool(&env, &["--ledger", store_arg], &bash());
    assert_eq!(log(&env), ["guard"]);

    // The package's manifest broke after registration: the emit goes on without it and
    // says why.
    put(
        &guard.join("plugin.json"),
        "{\"name\": \"guard\", \"commands\": 3}",
    );
    let out = pre_tool(&env, &["--ledger", store_arg], &bash());
    assert_eq!(out.code, 0);
    assert!(out.results().is_empty());
    assert!(
        out.has_warning("plugin.json:1:31: commands must be an object mapping names to paths inside the package; package guard is not loaded"),
        "{:?}",
        out.warnings()
    );
}

/// A package at `root/packages/<id>` with only `webhooks`.
fn webhook_package(env: &TestEnv, id: &str, webhooks: &Value) -> PathBuf {
    let path = env.root().join("packages").join(id);
    put(
        &path.join("plugin.json"),
        &serde_json::to_string_pretty(&json!({"name": id, "webhooks": webhooks})).expect("json"),
    );
    path
}

#[test]
fn package_webhooks_receive_their_event_for_enabled_agents_only() {
    let env = test_env();
    let stub = HttpStub::routes([("/after", Reply::new(200, ""))]);
    let base = stub.url();
    let dir = webhook_package(
        &env,
        "notify",
        &json!([{"event": "PostToolUse", "url": format!("{base}/after"), "secret_env": "NOTIFY_KEY",
                 "headers": {"X-Team": "a"}}]),
    );
    register(&env, "notify", &dir);
    plugins(&env, &["enable", "notify", "--agent", "coder"]);
    let payload = json!({"tool": {"name": "Bash", "input": {"command": "ls"}, "output": "a\n"}});

    let out = pre_tool_after(&env, &["--agent", "coder", "--session", "s-1"], &payload);
    let hook = out.hook("notify:webhook:0");
    assert_eq!(
        (&hook["result"], &hook["dialect"]),
        (&json!("allow"), &json!("native"))
    );
    {
        let received = stub.requests();
        let [
            Request {
                path,
                headers,
                body,
                ..
            },
        ] = received.as_slice()
        else {
            panic!("one request: {received:?}");
        };
        assert_eq!(path, "/after");
        assert_eq!(headers["x-hookrig-event"], "tool.after");
        assert_eq!(headers["x-team"], "a");
        let signature = headers["x-hookrig-signature"].clone();
        assert!(
            signature.starts_with("sha256=") && signature.len() == 71,
            "{signature}"
        );
        let body: Value = serde_json::from_slice(body).expect("json body");
        assert_eq!(body["event"], "tool.after");
        assert_eq!(body["tool"]["output"], "a\n");
    }

    // Not enabled for reviewer, nor with no agent: nothing is sent.
    pre_tool_after(&env, &["--agent", "reviewer"], &payload);
    pre_tool_after(&env, &[], &payload);
    plugins(&env, &["enable", "notify", "--all"]);
    plugins(&env, &["disable", "notify", "--agent", "reviewer"]);
    pre_tool_after(&env, &["--agent", "reviewer"], &payload);
    assert_eq!(stub.requests().len(), 1, "disabled agents");
    // Another event than its own: nothing either.
    pre_tool(&env, &["--agent", "coder"], &bash());
    assert_eq!(stub.requests().len(), 1, "tool.before");
    pre_tool_after(&env, &["--agent", "coder"], &payload);
    assert_eq!(stub.requests().len(), 2, "enabled by --all");
}

/// `emit tool.after ARGS`, with the signing key of the webhooks set; must exit 0.
fn pre_tool_after(env: &TestEnv, args: &[&str], payload: &Value) -> Emitted {
    let mut all = vec!["emit", "tool.after"];
    all.extend_from_slice(args);
    let mut command = env.command(all);
    command.env("NOTIFY_KEY", "k3y");
    let output = run_with_input(command, payload.to_string().as_bytes(), HANG_LIMIT);
    let out = emitted(&output);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out
}

#[test]
fn package_webhook_on_a_hot_path_event_is_refused_with_its_position() {
    let env = test_env();
    let stub = HttpStub::routes([("/hot", Reply::new(200, ""))]);
    let base = stub.url();
    let hot = json!([
        {"event": "tool.after", "url": format!("{base}/hot")},
        {"event": "tool.before", "url": format!("{base}/hot")}
    ]);
    let dir = webhook_package(&env, "hot", &hot);

    // register refuses it.
    let error = plugins_error(
        &env,
        &["register", "hot", "--path", dir.to_str().expect("utf-8")],
    );
    insta::assert_snapshot!(error);

    // Registered while valid, then edited: the emit goes on without the whole package
    // and says why, at the entry's position.
    webhook_package(
        &env,
        "hot",
        &json!([{"event": "tool.after", "url": format!("{base}/hot")}]),
    );
    register(&env, "hot", &dir);
    plugins(&env, &["enable", "hot", "--all"]);
    webhook_package(&env, "hot", &hot);
    let out = pre_tool_after(&env, &[], &bash());
    assert!(out.results().is_empty(), "{:?}", out.results());
    let warnings: Vec<String> = out.warnings().iter().map(|w| env.redact(w)).collect();
    insta::assert_snapshot!(warnings.join("\n"));
    assert!(stub.requests().is_empty());
}

/// The hook names `hookrig ARGS` (a `list --json`) prints.
fn listed(env: &TestEnv, args: &[&str], vars: &[(&str, &str)]) -> Vec<String> {
    let mut command = env.command(args);
    command.envs(vars.iter().copied());
    let output = run_with_input(command, b"", HANG_LIMIT);
    assert_eq!(code(&output), 0, "{args:?}: {}", text(&output.stderr));
    let list: Value = serde_json::from_slice(&output.stdout).expect("json");
    list.as_array()
        .expect("an array")
        .iter()
        .map(|h| h["name"].as_str().expect("a name").to_owned())
        .collect()
}

/// The `guard` package (a hook) with a webhook, registered and enabled for `coder`.
fn guard_with_webhook(env: &TestEnv) -> PathBuf {
    let dir = package(env, "guard", "guard", &allow());
    let manifest = dir.join("plugin.json");
    let mut value: Value =
        serde_json::from_str(&fs::read_to_string(&manifest).expect("read")).expect("json");
    value["webhooks"] = json!([{"event": "tool.after", "url": "http://127.0.0.1:9/after"}]);
    put(
        &manifest,
        &serde_json::to_string_pretty(&value).expect("json"),
    );
    register(env, "guard", &dir);
    plugins(env, &["enable", "guard", "--agent", "coder"]);
    dir
}

#[test]
fn list_and_show_include_packages_enabled_for_the_agent() {
    let env = test_env();
    env.write_global_config(
        "[[hooks]]\nname = \"native\"\nevents = [\"tool.before\"]\ncommand = \"true\"\n",
    );
    guard_with_webhook(&env);
    let both = ["guard:PreToolUse:0", "guard:webhook:0", "native"].map(str::to_owned);
    assert_eq!(
        listed(&env, &["list", "--json", "--agent", "coder"], &[]),
        both
    );
    assert_eq!(
        listed(&env, &["--agent", "coder", "list", "--json"], &[]),
        both,
        "hookrig --agent"
    );
    assert_eq!(
        listed(&env, &["list", "--json"], &[("HOOKRIG_AGENT", "coder")]),
        both,
        "HOOKRIG_AGENT"
    );
    assert_eq!(
        listed(
            &env,
            &["list", "--json", "--agent", "reviewer"],
            &[("HOOKRIG_AGENT", "coder")]
        ),
        ["native"],
        "--agent wins"
    );
    assert_eq!(
        listed(&env, &["list", "--json"], &[]),
        ["native"],
        "no agent"
    );
    // Another store: no package there.
    let other = env.root().join("other.db");
    assert_eq!(
        listed(
            &env,
            &[
                "list",
                "--json",
                "--agent",
                "coder",
                "--ledger",
                other.to_str().expect("utf-8")
            ],
            &[]
        ),
        ["native"],
        "--ledger"
    );

    let output = hookrig(&env, &["list", "--agent", "coder", "--event", "tool.after"]);
    let table = text(&output.stdout);
    assert!(table.contains("guard:webhook:0  "), "{table}");
    assert!(!table.contains("guard:PreToolUse:0"), "{table}");

    let output = hookrig(&env, &["show", "guard:webhook:0", "--agent", "coder"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("POST http://127.0.0.1:9/after"),
        "{}",
        text(&output.stdout)
    );
    assert_eq!(
        code(&hookrig(
            &env,
            &["show", "guard:webhook:0", "--agent", "reviewer"]
        )),
        1
    );
}

#[test]
fn explain_includes_packages_enabled_for_the_agent() {
    let env = test_env();
    guard_with_webhook(&env);
    let explain = |args: &[&str]| {
        let output = hookrig(&env, args);
        assert_eq!(code(&output), 0, "{}", text(&output.stderr));
        text(&output.stdout)
    };
    let coder = explain(&["explain", "tool.after", "--agent", "coder"]);
    assert!(coder.contains("  1. guard:webhook:0 (native, "), "{coder}");
    let coder = explain(&[
        "explain",
        "PreToolUse",
        "--tool",
        "Bash",
        "--agent",
        "coder",
    ]);
    assert!(
        coder.contains("  1. guard:PreToolUse:0 (xcode, "),
        "{coder}"
    );
    let reviewer = explain(&["explain", "tool.after", "--agent", "reviewer"]);
    assert!(reviewer.contains("(no hooks configured)"), "{reviewer}");
}

#[test]
fn validate_checks_packages_enabled_for_the_agent() {
    let env = test_env();
    let dir = guard_with_webhook(&env);
    let validate = |args: &[&str]| {
        let output = hookrig(&env, args);
        (code(&output), env.redact(&text(&output.stdout)))
    };
    assert_eq!(
        validate(&["validate", "--agent", "coder"]),
        (0, "0 errors, 0 warnings\n".to_owned())
    );

    // Broken after registration: validate names it for the agents that load it.
    let manifest = dir.join("plugin.json");
    let broken = fs::read_to_string(&manifest)
        .expect("read")
        .replace("\"tool.after\"", "\"tool.before\"");
    put(&manifest, &broken);
    let (code_coder, out) = validate(&["validate", "--agent", "coder"]);
    assert_eq!(code_coder, 1, "{out}");
    insta::assert_snapshot!(out);
    assert_eq!(
        validate(&["validate", "--agent", "reviewer"]),
        (0, "0 errors, 0 warnings\n".to_owned())
    );
}
