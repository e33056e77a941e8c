//! OpenHermit's JavaScript plugins end to end: registered with `hookrig plugins
//! register`, run by hookrig's plugin host in a real Node.js process, answered through
//! `hookrig emit`, recorded in the real SQLite ledger.

use std::fs;
use std::path::{Path, PathBuf};

use hookrig_test_support::TestEnv;
use serde_json::{Value, json};

use crate::harness::{Emitted, code, emit, hookrig, test_env, text, tool_available, why_json};

/// The example policy gate of this repository.
fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/hermit-policy-gate")
        .canonicalize()
        .expect("examples/hermit-policy-gate")
}

/// A plugin directory under the test's root with these files.
fn plugin(env: &TestEnv, name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = env.root().join("plugins").join(name);
    fs::create_dir_all(&dir).expect("mkdir");
    for (file, contents) in files {
        fs::write(dir.join(file), contents).expect("write");
    }
    dir
}

/// Registers `dir` as `id` and enables it for every agent.
fn register(env: &TestEnv, id: &str, dir: &Path) {
    for args in [
        vec![
            "plugins",
            "register",
            id,
            "--path",
            dir.to_str().expect("utf-8"),
        ],
        vec!["plugins", "enable", id, "--all"],
    ] {
        let output = hookrig(env, &args);
        assert_eq!(code(&output), 0, "{args:?}: {}", text(&output.stderr));
    }
}

/// `hookrig emit tool.before` of a bash `command`.
fn bash(env: &TestEnv, command: &str) -> Emitted {
    let payload = json!({"tool": {"name": "bash", "input": {"command": command}}});
    emit(env, &["tool.before"], &payload.to_string())
}

/// The hook run of the plugin `id` in the ledger, for the emit that printed `out`.
fn recorded(env: &TestEnv, out: &Emitted, id: &str) -> (Value, Value) {
    let run = why_json(env, out.outcome["run_id"].as_str().expect("a run id"));
    let hook = run["hooks"]
        .as_array()
        .and_then(|hooks| hooks.iter().find(|h| h["name"] == format!("{id}:plugin")))
        .cloned()
        .unwrap_or_else(|| panic!("no hook run of {id}: {run}"));
    (run, hook)
}

/// Whether the Node.js on PATH strips TypeScript types by itself.
fn node_strips_types() -> bool {
    std::process::Command::new("node")
        .args(["-p", "Boolean(process.features.typescript)"])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "true")
}

#[test]
fn the_js_policy_gate_vetoes_rm_rf_through_emit_with_its_reason_and_ledger_row() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    register(&env, "hermit-policy-gate", &example());

    let out = bash(&env, "rm -rf /");
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "deny");
    assert_eq!(
        out.outcome["reason"],
        "rm -rf is not allowed by the policy gate"
    );
    assert_eq!(out.outcome["decided_by"], "hermit-policy-gate:plugin");
    let (run, hook) = recorded(&env, &out, "hermit-policy-gate");
    assert_eq!(run["decision"], "deny", "{run}");
    assert_eq!(hook["result"], "deny", "{hook}");
    assert_eq!(hook["dialect"], "hermit", "{hook}");
    // ctx.logger writes to the hook run's record.
    assert!(
        hook["stderr"]
            .as_str()
            .is_some_and(|s| s.contains("[plugin hermit-policy-gate] info: vetoed: rm -rf /")),
        "{hook}"
    );

    let out = bash(&env, "ls -la");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow");
    assert_eq!(
        out.outcome["hooks"][0]["result"], "allow",
        "{}",
        out.outcome
    );
}

#[test]
fn the_typescript_gate_runs_where_node_strips_types_and_names_both_ways_out_where_not() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    let source = example();
    let read = |name: &str| fs::read_to_string(source.join(name)).expect("example file");
    let (manifest, package, index) = (
        read("manifest.json"),
        read("package.json"),
        read("index.ts"),
    );
    let dir = plugin(
        &env,
        "gate-ts",
        &[
            ("manifest.json", &manifest),
            ("package.json", &package),
            ("index.ts", &index),
        ],
    );
    register(&env, "hermit-policy-gate", &dir);

    let out = bash(&env, "rm -rf /");
    if node_strips_types() {
        assert_eq!(out.code, 2, "{}", out.stderr);
        assert_eq!(
            out.outcome["reason"],
            "rm -rf is not allowed by the policy gate"
        );
        return;
    }
    // The plugin cannot load: skipped (failureMode skip), and the emit says why.
    assert_eq!(out.code, 0, "{}", out.stderr);
    let hook = &out.outcome["hooks"][0];
    assert_eq!(hook["result"], "error", "{}", out.outcome);
    let warnings = out.outcome["warnings"].to_string();
    for words in [
        "does not strip TypeScript types",
        "23.6 or newer",
        "--experimental-strip-types",
        "\\\"typescriptLoader\\\": \\\"tsx\\\"",
    ] {
        assert!(warnings.contains(words), "{words} in {warnings}");
    }
}

/// A plugin whose first handler (priority 1) rewrites `--force` out of bash commands
/// and whose second (priority 2, async) denies any command still forcing.
const REWRITE: &str = r#"
export function register(ctx) {
  ctx.bus.on("tool.before@v1", async (payload) => {
    await new Promise((resolve) => setImmediate(resolve));
    return payload.tool.input.command.includes("--force") ? { allow: false, reason: "still forced" } : { allow: true };
  }, { priority: 2 });
  ctx.bus.on("tool.before", (payload) => {
    const command = payload.tool.input.command.replace(" --force", "");
    return { allow: true, payload: { ...payload, tool: { ...payload.tool, input: { command } } } };
  }, { priority: 1 });
  ctx.bus.on("channel.message.out@v1", (payload) => ({ ...payload, text: `${payload.text} (sent)` }), { priority: 2 });
  ctx.bus.on("channel.message.out@v1", async (payload) => ({ ...payload, text: payload.text.toUpperCase() }), { priority: 1 });
}
"#;

#[test]
fn handlers_rewrite_tool_args_and_transform_payloads_for_the_handlers_after_them() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    let dir = plugin(
        &env,
        "rewrite",
        &[
            ("manifest.json", r#"{"name": "rewrite"}"#),
            ("index.mjs", REWRITE),
        ],
    );
    register(&env, "rewrite", &dir);

    let out = bash(&env, "git push --force");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow", "{}", out.outcome);
    assert_eq!(
        out.outcome["hooks"][0]["result"], "modify",
        "{}",
        out.outcome
    );
    assert_eq!(
        out.outcome["payload"]["tool"]["input"]["command"], "git push",
        "{}",
        out.outcome
    );
    // A transform's payload replaces the payload, in priority order.
    let out = emit(
        &env,
        &["channel.message.out"],
        r#"{"channel": "chat", "text": "done"}"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.outcome["payload"]["text"], "DONE (sent)",
        "{}",
        out.outcome
    );

    let out = bash(&env, "git push --force");
    let (run, _) = recorded(&env, &out, "rewrite");
    assert!(
        run["payload_out"]
            .as_str()
            .is_some_and(|p| p.contains(r#""command":"git push""#)),
        "{run}"
    );
}

/// A plugin whose first handler writes to the read-only `ctx.session` (and so throws),
/// and whose second denies.
const THROWING: &str = r#"
export function register(ctx) {
  ctx.bus.on("tool.before@v1", () => {
    ctx.session.agent = "someone else";
    return { allow: true };
  }, { priority: 1 });
  ctx.bus.on("tool.before@v1", () => ({ allow: false, reason: "the second handler ran" }), { priority: 2 });
  ctx.bus.on("plugin.error@v1", (error) => ctx.logger.warn(`heard: ${error.subscription}: ${error.error}`));
}
"#;

#[test]
fn a_throwing_handler_is_skipped_and_reported_or_aborts_with_failure_mode_fail() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    let skip = plugin(
        &env,
        "skip",
        &[
            ("manifest.json", r#"{"id": "skip"}"#),
            ("index.mjs", THROWING),
        ],
    );
    register(&env, "skip", &skip);

    let out = bash(&env, "ls");
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["reason"], "the second handler ran");
    let (_, hook) = recorded(&env, &out, "skip");
    let stderr = hook["stderr"].as_str().unwrap_or_default();
    assert!(stderr.contains(r#""event":"plugin.error@v1""#), "{hook}");
    assert!(stderr.contains("ctx.session is read-only"), "{hook}");
    assert!(
        stderr.contains("warn: heard: tool.before@v1: TypeError: ctx.session is read-only"),
        "{hook}"
    );

    let output = hookrig(&env, &["plugins", "delete", "skip"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let fail = plugin(
        &env,
        "fail",
        &[
            ("manifest.json", r#"{"id": "fail", "failureMode": "fail"}"#),
            ("index.mjs", THROWING),
        ],
    );
    register(&env, "fail", &fail);
    let out = bash(&env, "ls");
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(
        out.outcome["hooks"][0]["result"], "error",
        "{}",
        out.outcome
    );
    assert_ne!(out.outcome["reason"], "the second handler ran");
    assert!(
        out.outcome.to_string().contains("ctx.session is read-only"),
        "{}",
        out.outcome
    );
}

#[test]
fn an_invalid_js_manifest_is_refused_at_its_field() {
    let env = test_env();
    let dir = plugin(
        &env,
        "bad",
        &[(
            "manifest.json",
            "{\n  \"name\": \"bad\",\n  \"failureMode\": \"maybe\"\n}\n",
        )],
    );
    let output = hookrig(
        &env,
        &[
            "plugins",
            "register",
            "bad",
            "--path",
            dir.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(code(&output), 1);
    let stderr = env.redact(&text(&output.stderr));
    assert!(
        stderr.contains(r#"manifest.json:3:18: failureMode "maybe" is neither "skip" nor "fail""#),
        "{stderr}"
    );
}

/// A plugin that keeps state between events: a listener counting `tool.after` events
/// (its return is ignored) and a veto denying the third `tool.before` with the counts.
const COUNTER: &str = r#"
let before = 0;
let after = 0;
export function register(ctx) {
  ctx.bus.on("tool.after@v1", () => { after += 1; return "a listener's return is ignored"; });
  ctx.bus.on("tool.before@v1", () => {
    before += 1;
    return before === 3 ? { allow: false, reason: `call ${before} after ${after} tool.after events` } : { allow: true };
  });
}
"#;

#[test]
fn one_warm_worker_per_plugin_keeps_its_state_between_emits_through_the_engine() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    let dir = plugin(
        &env,
        "counter",
        &[
            ("manifest.json", r#"{"id": "counter"}"#),
            ("index.mjs", COUNTER),
        ],
    );
    register(&env, "counter", &dir);
    let serve = crate::serve::Serve::start(&env);
    let through_engine = |event: &str| {
        let payload = json!({"tool": {"name": "bash", "input": {"command": "ls"}}});
        let mut command = env.command(["emit", event]);
        command.env("HOOKRIG_ENGINE", "on");
        let output = hookrig_test_support::run_with_input(
            command,
            payload.to_string().as_bytes(),
            hookrig_test_support::HANG_LIMIT,
        );
        crate::harness::emitted(&output)
    };
    for _ in 0..2 {
        assert_eq!(through_engine("tool.before").code, 0);
        assert_eq!(through_engine("tool.after").code, 0);
    }
    let third = through_engine("tool.before");
    assert_eq!(third.code, 2, "{}", third.stderr);
    assert_eq!(third.outcome["reason"], "call 3 after 2 tool.after events");

    let status = hookrig(&env, &["engine", "status", "--json"]);
    let status: Value = serde_json::from_slice(&status.stdout).expect("status JSON");
    let worker = &status["workers"][0]["workers"][0];
    assert_eq!(worker["starts"], 1, "one process for every event: {status}");
    assert_eq!(worker["answered"], 5, "{status}");
    let (stopped, log) = serve.stop();
    assert!(stopped.success(), "{log}");
}

#[test]
fn a_plugin_that_cannot_register_or_hangs_never_blocks_the_emit() {
    // guards: an unknown event version at register, and a handler that never settles
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    let dir = plugin(
        &env,
        "v2",
        &[
            ("manifest.json", "{}"),
            (
                "index.mjs",
                "export function register(ctx) { ctx.bus.on('tool.before@v2', () => ({ allow: false })); }\n",
            ),
        ],
    );
    register(&env, "v2", &dir);
    let out = bash(&env, "rm -rf /");
    assert_eq!(out.code, 0, "skipped: {}", out.outcome);
    assert_eq!(
        out.outcome["hooks"][0]["result"], "error",
        "{}",
        out.outcome
    );
    let warnings = out.outcome["warnings"].to_string();
    assert!(
        warnings.contains("plugin v2 failed to load")
            && warnings.contains("hookrig serves tool.before@v1, not @v2"),
        "{warnings}"
    );
    let output = hookrig(&env, &["plugins", "delete", "v2"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));

    let dir = plugin(
        &env,
        "hang",
        &[
            (
                "manifest.json",
                r#"{"timeout": 500, "failureMode": "fail"}"#,
            ),
            (
                "index.mjs",
                "export function register(ctx) { ctx.bus.on('tool.before@v1', () => new Promise(() => {})); }\n",
            ),
        ],
    );
    register(&env, "hang", &dir);
    let out = bash(&env, "ls");
    assert_eq!(out.code, 2, "failureMode fail denies: {}", out.outcome);
    assert_eq!(
        out.outcome["hooks"][0]["result"], "timeout",
        "{}",
        out.outcome
    );
}
