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

/// The first hook run of the plugin `id` in the ledger (its first chain entry that
/// matched the event), for the emit that printed `out`.
fn recorded(env: &TestEnv, out: &Emitted, id: &str) -> (Value, Value) {
    let run = why_json(env, out.outcome["run_id"].as_str().expect("a run id"));
    let hook = run["hooks"]
        .as_array()
        .and_then(|hooks| {
            hooks.iter().find(|h| {
                h["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with(&format!("{id}:")))
                    && h["matched"] == true
            })
        })
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
    assert_eq!(
        out.outcome["decided_by"],
        "hermit-policy-gate:tool.before@v1"
    );
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
  ctx.bus.on("plugin.error@v1", (error) => ctx.logger.warn(`heard: ${error.plugin_id}: ${error.subscription}: ${error.message}`));
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
    let (run, hook) = recorded(&env, &out, "skip");
    let stderr = hook["stderr"].as_str().unwrap_or_default();
    assert!(
        stderr.contains(r#"plugin.error@v1 {"plugin_id":"skip""#),
        "{hook}"
    );
    assert!(stderr.contains("ctx.session is read-only"), "{hook}");
    // The plugin's own plugin.error@v1 listener hears it as the event delivered after
    // the chain: a second run of the plugin's hook.
    assert!(
        run["hooks"]
            .to_string()
            .contains("warn: heard: skip: tool.before@v1: TypeError: ctx.session is read-only"),
        "{run}"
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

/// `hookrig emit EVENT` of `payload`, with `vars` added to its environment (the test
/// environment removes every `HOOKRIG_*` variable of the test's own), through the
/// engine when `engine` is set.
fn emit_with(
    env: &TestEnv,
    event: &str,
    payload: &Value,
    vars: &[(String, String)],
    engine: bool,
) -> Emitted {
    let mut command = env.command(["emit", event]);
    command.env("HOOKRIG_ENGINE", if engine { "on" } else { "off" });
    command.envs(vars.iter().map(|(k, v)| (k, v)));
    let output = hookrig_test_support::run_with_input(
        command,
        payload.to_string().as_bytes(),
        hookrig_test_support::HANG_LIMIT,
    );
    crate::harness::emitted(&output)
}

/// `hookrig ARGS` with `vars` added to its environment.
fn hookrig_with(env: &TestEnv, args: &[&str], vars: &[(String, String)]) -> std::process::Output {
    let mut command = env.command(args);
    command.envs(vars.iter().map(|(k, v)| (k, v)));
    hookrig_test_support::run_with_input(command, b"", hookrig_test_support::HANG_LIMIT)
}

/// What the plugin host needs to load a TypeScript entry here: nothing where Node
/// strips types, the TypeScript loader CI installs (`HOOKRIG_TS_LOADER`, handed on) where
/// it does not; `None` (the test is skipped) where neither is there.
fn typescript() -> Option<Vec<(String, String)>> {
    if !tool_available("node") {
        return None;
    }
    if node_strips_types() {
        return Some(Vec::new());
    }
    if let Ok(loader) = std::env::var("HOOKRIG_TS_LOADER") {
        return Some(vec![("HOOKRIG_TS_LOADER".to_owned(), loader)]);
    }
    assert!(
        std::env::var_os("HOOKRIG_TEST_REQUIRE_TOOLS").is_none(),
        "this Node.js does not strip TypeScript types and HOOKRIG_TS_LOADER is not set (.ci/run installs tsx and sets it)"
    );
    eprintln!("skipped: this Node.js does not strip types and HOOKRIG_TS_LOADER is not set");
    None
}

/// An example plugin of this repository.
fn example_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
        .canonicalize()
        .expect("the example")
}

#[test]
fn the_typescript_gate_runs_through_a_typescript_loader_where_node_cannot_strip_types() {
    // guards: CI's Node 20 runs the policy gate example's index.ts through HOOKRIG_TS_LOADER
    let Some(vars) = typescript() else {
        return;
    };
    let env = test_env();
    let source = example();
    let dir = plugin(
        &env,
        "gate-ts",
        &[
            (
                "manifest.json",
                &fs::read_to_string(source.join("manifest.json")).expect("manifest"),
            ),
            (
                "package.json",
                &fs::read_to_string(source.join("package.json")).expect("package"),
            ),
            (
                "index.ts",
                &fs::read_to_string(source.join("index.ts")).expect("index.ts"),
            ),
        ],
    );
    register(&env, "hermit-policy-gate", &dir);
    let rm = json!({"tool": {"name": "bash", "input": {"command": "rm -rf /"}}});
    let out = emit_with(&env, "tool.before", &rm, &vars, false);
    assert_eq!(out.code, 2, "{}", out.outcome);
    assert_eq!(
        out.outcome["reason"],
        "rm -rf is not allowed by the policy gate"
    );
    let ls = json!({"tool": {"name": "bash", "input": {"command": "ls"}}});
    assert_eq!(emit_with(&env, "tool.before", &ls, &vars, false).code, 0);
}

/// A plugin with two tools, one of which throws, and one subscription.
const TOOLS: &str = r#"
export function register(ctx) {
  ctx.tools.add({
    name: "add",
    description: "adds two numbers",
    schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    handler: async ({ a, b }) => ({ sum: a + b, agent: ctx.agent }),
  });
  ctx.tools.add({
    name: "broken",
    schema: { type: "object" },
    handler: () => {
      throw new Error("the broken tool broke");
    },
  });
  ctx.bus.on("tool.after@v1", () => {}, { priority: 7 });
}
"#;

#[test]
fn tools_added_with_ctx_tools_add_are_listed_by_show_and_called_by_call() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    let dir = plugin(
        &env,
        "calc",
        &[
            ("manifest.json", r#"{"id": "calc", "version": "1.0.0"}"#),
            ("index.mjs", TOOLS),
        ],
    );
    register(&env, "calc", &dir);

    let output = hookrig(&env, &["plugins", "show", "calc", "--json"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let shown: Value = serde_json::from_slice(&output.stdout).expect("show --json");
    assert_eq!(shown["kind"], "js");
    insta::assert_json_snapshot!("js_plugin_show_json", shown["js"]);
    let output = hookrig(&env, &["plugins", "show", "calc"]);
    let shown = text(&output.stdout);
    for line in [
        "calc (calc, JavaScript plugin)",
        "  enabled for: every agent",
        "  tool.after@v1  listener  priority 7",
        "  add  adds two numbers",
        r#"    schema: {"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}"#,
    ] {
        assert!(shown.lines().any(|l| l == line), "{line:?} in {shown}");
    }

    let call = |args: &[&str]| {
        let mut all = vec!["--agent", "coder", "plugins", "call", "calc"];
        all.extend_from_slice(args);
        let output = hookrig(&env, &all);
        (
            code(&output),
            text(&output.stdout),
            env.redact(&text(&output.stderr)),
        )
    };
    let (status, stdout, stderr) = call(&["add", "--args", r#"{"a": 2, "b": 40}"#]);
    assert_eq!(status, 0, "{stderr}");
    let result: Value = serde_json::from_str(&stdout).expect("the result is JSON");
    assert_eq!(result, json!({"sum": 42, "agent": "coder"}));

    let (status, _, stderr) = call(&["add", "--args", r#"{"a": "2", "b": 40}"#]);
    assert_eq!(status, 1);
    assert_eq!(
        stderr.trim(),
        r#"hookrig: error: plugin `calc`, tool `add`: tool add: the argument "a" must be of type number, got string"#
    );
    let (status, _, stderr) = call(&["add"]);
    assert_eq!(status, 1);
    assert!(
        stderr.contains(r#"the argument "a" is required"#),
        "{stderr}"
    );
    // A tool that throws: its message and its stack, pointing into the plugin.
    let (status, _, stderr) = call(&["broken"]);
    assert_eq!(status, 1);
    assert!(
        stderr.contains("plugin `calc`, tool `broken`: Error: the broken tool broke")
            && stderr.contains("plugins/calc/index.mjs:"),
        "{stderr}"
    );
    let (status, _, stderr) = call(&["nope"]);
    assert_eq!(status, 1);
    assert!(
        stderr.contains(r#"plugin calc has no tool "nope" (its tools: add, broken)"#),
        "{stderr}"
    );
    let (status, _, stderr) = call(&["add", "--args", "{a: 1}"]);
    assert_eq!(status, 1);
    assert!(
        stderr.contains("is not JSON; give the tool's arguments as a JSON object"),
        "{stderr}"
    );
    let output = hookrig(&env, &["plugins", "call", "nobody", "add"]);
    assert_eq!(code(&output), 1);
    assert!(text(&output.stderr).contains("no plugin `nobody` is registered"));
}

#[test]
fn show_reports_a_plugin_that_throws_at_load_with_its_stack_trace() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    let dir = plugin(
        &env,
        "throws",
        &[
            ("manifest.json", "{}"),
            (
                "index.mjs",
                "export function register(ctx) {\n  ctx.tools.add({ name: 'x', schema: {}, handler: () => 1 });\n  throw new Error('no config file');\n}\n",
            ),
        ],
    );
    register(&env, "throws", &dir);
    let output = hookrig(&env, &["plugins", "show", "throws"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let shown = text(&output.stdout);
    assert!(
        shown.contains("load failure: plugin throws failed to load: Error: no config file")
            && shown.contains("plugins/throws/index.mjs:3:"),
        "{shown}"
    );
    let output = hookrig(&env, &["plugins", "show", "throws", "--json"]);
    let shown: Value = serde_json::from_slice(&output.stdout).expect("show --json");
    assert_eq!(shown["js"]["loaded"], false, "{shown}");
    assert!(
        shown["js"]["stack"]
            .as_str()
            .is_some_and(|s| s.contains("at register")),
        "{shown}"
    );
    let output = hookrig(&env, &["plugins", "call", "throws", "x"]);
    assert_eq!(code(&output), 1);
    assert!(text(&output.stderr).contains("failed to load: Error: no config file"));
}

#[test]
fn each_agent_gets_warm_workers_of_its_own_so_plugin_state_never_crosses_agents() {
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
    let before = |agent: &str| {
        let payload = json!({"tool": {"name": "bash", "input": {"command": "ls"}}});
        let vars = [("HOOKRIG_AGENT".to_owned(), agent.to_owned())];
        emit_with(&env, "tool.before", &payload, &vars, true)
    };
    assert_eq!(before("alpha").code, 0);
    assert_eq!(before("alpha").code, 0);
    // beta's first and second calls are its own, not alpha's third.
    assert_eq!(before("beta").code, 0);
    assert_eq!(before("beta").code, 0);
    let third = before("alpha");
    assert_eq!(third.code, 2, "{}", third.outcome);
    assert_eq!(third.outcome["reason"], "call 3 after 0 tool.after events");

    let status = hookrig(&env, &["engine", "status", "--json"]);
    let status: Value = serde_json::from_slice(&status.stdout).expect("status JSON");
    let pools: Vec<(String, u64)> = status["workers"]
        .as_array()
        .expect("pools")
        .iter()
        .map(|p| {
            (
                p["agent"].as_str().unwrap_or("-").to_owned(),
                p["workers"][0]["starts"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        pools,
        [("alpha".to_owned(), 1), ("beta".to_owned(), 1)],
        "{status}"
    );
    let (stopped, log) = serve.stop();
    assert!(stopped.success(), "{log}");
}

#[test]
fn a_hung_plugin_is_killed_at_its_timeout_and_a_new_worker_answers_the_next_event() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    let dir = plugin(
        &env,
        "sometimes-hangs",
        &[
            // Long enough for Node.js to start on a loaded machine: the first event's
            // time includes the worker's start.
            ("manifest.json", r#"{"timeout": 3000}"#),
            (
                "index.mjs",
                "export function register(ctx) {\n  ctx.bus.on('tool.before@v1', (p) => p.tool.input.command === 'hang' ? new Promise(() => {}) : { allow: false, reason: `answered ${process.pid}` });\n}\n",
            ),
        ],
    );
    register(&env, "sometimes-hangs", &dir);
    let serve = crate::serve::Serve::start(&env);
    let run = |command: &str| {
        let payload = json!({"tool": {"name": "bash", "input": {"command": command}}});
        emit_with(&env, "tool.before", &payload, &[], true)
    };
    let first = run("ls");
    assert_eq!(first.code, 2, "{}", first.outcome);
    let hung = run("hang");
    assert_eq!(hung.code, 0, "skipped (failureMode skip): {}", hung.outcome);
    assert_eq!(
        hung.outcome["hooks"][0]["result"], "timeout",
        "{}",
        hung.outcome
    );
    let after = run("ls");
    assert_eq!(after.code, 2, "{}", after.outcome);
    assert_ne!(
        after.outcome["reason"], first.outcome["reason"],
        "a new process answers"
    );
    let status = hookrig(&env, &["engine", "status", "--json"]);
    let status: Value = serde_json::from_slice(&status.stdout).expect("status JSON");
    assert_eq!(status["workers"][0]["workers"][0]["starts"], 2, "{status}");
    let (stopped, log) = serve.stop();
    assert!(stopped.success(), "{log}");
}

#[test]
fn the_typescript_examples_rewrite_tool_args_count_metrics_and_add_a_tool_through_the_engine() {
    let Some(vars) = typescript() else {
        return;
    };
    let env = test_env();
    for name in ["hermit-rewrite-args", "hermit-metrics", "hermit-tools"] {
        register(&env, name, &example_dir(name));
    }
    let serve = crate::serve::Serve::start(&env);
    let push =
        json!({"tool": {"name": "bash", "input": {"command": "git push --force origin main"}}});
    let out = emit_with(&env, "tool.before", &push, &vars, true);
    assert_eq!(out.code, 0, "{}", out.outcome);
    assert_eq!(
        out.outcome["payload"]["tool"]["input"]["command"],
        "git push --force-with-lease origin main",
        "{}",
        out.outcome
    );
    let after = json!({"tool": {"name": "bash", "output": "ok"}});
    emit_with(&env, "tool.after", &after, &vars, true);
    let failed = json!({"tool": {"name": "bash", "error": "exit 1"}});
    let out = emit_with(&env, "tool.after", &failed, &vars, true);
    let (_, hook) = recorded(&env, &out, "hermit-metrics");
    assert!(
        hook["stderr"]
            .as_str()
            .is_some_and(|s| s.contains("metrics: bash calls=2 failures=1 agent=-")),
        "the listener's counts live on in the warm host: {hook}"
    );
    let (stopped, log) = serve.stop();
    assert!(stopped.success(), "{log}");

    let output = hookrig_with(
        &env,
        &[
            "plugins",
            "call",
            "hermit-tools",
            "word_count",
            "--args",
            r#"{"text": "one two\nthree"}"#,
        ],
        &vars,
    );
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let result: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(result, json!({"lines": 2, "words": 3, "characters": 13}));
    let output = hookrig_with(&env, &["plugins", "show", "hermit-metrics"], &vars);
    let shown = text(&output.stdout);
    assert!(
        shown.contains("  tool.after@v1  listener  priority 100") && shown.contains("  metrics  "),
        "{shown}"
    );
}

/// A project plugin that notes each start of its code in `$HOME/node-started` (outside
/// its directory, whose every byte is trusted) and vetoes `rm -rf`.
const NOTING_GATE: &str = r#"
import { appendFileSync } from "node:fs";
appendFileSync(`${process.env.HOME}/node-started`, `${process.pid}\n`);
export function register(ctx) {
  ctx.bus.on("tool.before@v1", (p) => String(p.tool?.input?.command).includes("rm -rf")
    ? { allow: false, reason: "project gate" } : { allow: true });
}
"#;

#[test]
fn a_project_plugin_runs_only_trusted_and_any_changed_file_of_its_directory_untrusts_it() {
    // guards: an untrusted project plugin never starts Node.js; trust covers every file,
    // node_modules included
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    let dir = env.project().join(".hookrig/plugins/gate");
    fs::create_dir_all(dir.join("node_modules/dep")).expect("mkdir");
    fs::write(dir.join("manifest.json"), "{}").expect("write");
    fs::write(dir.join("index.mjs"), NOTING_GATE).expect("write");
    fs::write(
        dir.join("node_modules/dep/index.js"),
        "module.exports = 1;\n",
    )
    .expect("write");
    let started = env.home().join("node-started");
    let rm = json!({"tool": {"name": "bash", "input": {"command": "rm -rf /"}}}).to_string();
    let emit = || crate::harness::emit_untrusted(&env, &["tool.before"], &rm);
    let trust = || {
        let output = env.run_untrusted(["trust"], b"");
        assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    };

    let out = emit();
    assert_eq!(out.code, 0, "{}", out.outcome);
    assert_eq!(
        out.outcome["hooks"][0]["name"], "gate:plugin",
        "{}",
        out.outcome
    );
    assert_eq!(
        out.outcome["hooks"][0]["result"], "untrusted",
        "{}",
        out.outcome
    );
    assert!(!started.exists(), "an untrusted plugin started Node.js");

    trust();
    let out = emit();
    assert_eq!(out.code, 2, "{}", out.outcome);
    assert_eq!(out.outcome["reason"], "project gate");
    assert!(started.exists());

    for (file, contents) in [
        ("index.mjs", format!("{NOTING_GATE}// an edit\n")),
        (
            "node_modules/dep/index.js",
            "module.exports = 2;\n".to_owned(),
        ),
        ("node_modules/dep/new.js", "export {};\n".to_owned()),
    ] {
        fs::remove_file(&started).expect("rm marker");
        fs::write(dir.join(file), contents).expect("edit");
        let out = emit();
        assert_eq!(
            (out.code, &out.outcome["hooks"][0]["result"]),
            (0, &json!("untrusted")),
            "after a change to {file}: {}",
            out.outcome
        );
        assert!(
            !started.exists(),
            "after a change to {file}, Node.js started"
        );
        trust();
        assert_eq!(emit().code, 2, "trusted again after {file}");
    }
}

/// A plugin that consults hookrig's memory before a tool runs, and tries to write to it
/// after.
const REMEMBERING: &str = r#"
export function register(ctx) {
  ctx.bus.on("tool.before@v1", async (p) => {
    const command = String(p.tool.input.command);
    if (command.startsWith("recall ")) {
      const [source, heading] = command.slice("recall ".length).split("|");
      return { allow: false, reason: `got ${JSON.stringify(await ctx.memory.get(source, heading))}` };
    }
    const hits = await ctx.memory.search(command, { limit: 2 });
    return hits.length > 0
      ? { allow: false, reason: `remembered ${hits.length}: ${hits[0].heading}: ${hits[0].content}` }
      : { allow: true };
  });
  ctx.bus.on("tool.after@v1", () => {
    ctx.memory.upsert("notes", "the tool ran");
  });
  ctx.bus.on("session.opened@v1", () => {
    ctx.memory.recent = [];
  });
}
"#;

#[test]
fn ctx_memory_searches_and_gets_hookrigs_memory_through_the_worker_and_refuses_every_write() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    let store = hookrig_store::Store::open(&env.ledger_path()).expect("the ledger");
    store
        .memory()
        .upsert(
            "project",
            "notes/ops.md",
            "deploys",
            "never deploy to production on a friday",
        )
        .expect("remember");
    store
        .memory()
        .upsert(
            "another-project",
            "notes/x.md",
            "deploys",
            "deploy whenever",
        )
        .expect("remember");
    drop(store);
    let dir = plugin(
        &env,
        "remembering",
        &[("manifest.json", "{}"), ("index.mjs", REMEMBERING)],
    );
    register(&env, "remembering", &dir);

    let out = bash(&env, "deploy production");
    assert_eq!(out.code, 2, "{}", out.outcome);
    // Only the project's own memory: one hit, not the other project's.
    assert_eq!(
        out.outcome["reason"],
        "remembered 1: deploys: never deploy to production on a friday"
    );
    assert_eq!(bash(&env, "ls").code, 0);
    // One entry by its source and heading, of the project's own memory only.
    for (command, got) in [
        (
            "recall notes/ops.md|deploys",
            r#"got {"source":"notes/ops.md","heading":"deploys","content":"never deploy to production on a friday"}"#,
        ),
        ("recall notes/ops.md|Deploys", "got null"),
        ("recall notes/x.md|deploys", "got null"),
    ] {
        assert_eq!(bash(&env, command).outcome["reason"], got, "{command}");
    }

    for (event, words) in [
        (
            "tool.after",
            "ctx.memory is read-only: it has no upsert(); plugins read it with ctx.memory.search",
        ),
        (
            "session.start",
            "ctx.memory is read-only: cannot set recent",
        ),
    ] {
        let out = emit(&env, &[event], r#"{"tool": {"name": "bash"}}"#);
        assert_eq!(out.code, 0, "{}", out.outcome);
        let (_, hook) = recorded(&env, &out, "remembering");
        assert!(
            hook["stderr"].as_str().is_some_and(|s| s.contains(words)),
            "{event}: {hook}"
        );
    }
}

/// A plugin whose veto throws, and whose own plugin.error@v1 listener throws too.
const FAILING: &str = r#"
export function register(ctx) {
  ctx.bus.on("tool.before@v1", () => { throw new Error("the gate broke"); });
  ctx.bus.on("plugin.error@v1", () => { throw new Error("the error handler broke as well"); });
}
"#;

/// A plugin that listens to other plugins' failures.
const WATCHER: &str = r#"
export function register(ctx) {
  ctx.bus.on("plugin.error@v1", (e) => ctx.logger.info(`watcher heard ${e.plugin_id} fail in ${e.subscription}: ${e.message}`));
}
"#;

#[test]
fn a_throwing_handler_is_delivered_as_plugin_error_to_other_plugins_and_hooks_without_loops() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    for (id, code) in [("failing", FAILING), ("watcher", WATCHER)] {
        let dir = plugin(&env, id, &[("manifest.json", "{}"), ("index.mjs", code)]);
        register(&env, id, &dir);
    }
    env.write_project_config(
        "[[hooks]]\nname = \"error-log\"\nevents = [\"plugin.error@v1\"]\ncommand = \"cat >> \\\"$HOME/plugin-errors.jsonl\\\"; echo >> \\\"$HOME/plugin-errors.jsonl\\\"\"\n",
    );
    let out = bash(&env, "ls");
    assert_eq!(out.code, 0, "the failing veto is skipped: {}", out.outcome);
    let hooks = out.outcome["hooks"].as_array().expect("hooks");
    let names: Vec<&str> = hooks.iter().filter_map(|h| h["name"].as_str()).collect();
    // The chain, then plugin.error@v1 once to each listener: the failing plugin's own
    // listener throws, which is written and not delivered again.
    assert_eq!(
        names,
        [
            "failing:tool.before@v1",
            "failing:plugin.error@v1",
            "watcher:plugin.error@v1",
            "error-log"
        ],
        "{}",
        out.outcome
    );
    let run = why_json(&env, out.outcome["run_id"].as_str().expect("run id"));
    let text = run["hooks"].to_string();
    assert!(
        text.contains("watcher heard failing fail in tool.before@v1: Error: the gate broke"),
        "{run}"
    );
    assert!(text.contains("the error handler broke as well"), "{run}");
    let logged = fs::read_to_string(env.home().join("plugin-errors.jsonl")).expect("the hook ran");
    let lines: Vec<Value> = logged
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("the native hook's stdin"))
        .collect();
    assert_eq!(lines.len(), 1, "{logged}");
    assert_eq!(lines[0]["plugin_id"], "failing");
    assert_eq!(lines[0]["subscription"], "tool.before@v1");
    assert_eq!(lines[0]["message"], "Error: the gate broke");
}

/// A plugin that counts the tool calls it hears of and offers the counts as a tool, and
/// a tool that throws.
const TOOL_COUNTER: &str = r#"
const counts = {};
export function register(ctx) {
  ctx.bus.on("tool.after@v1", (payload) => {
    const name = String(payload.tool?.name ?? "unknown");
    counts[name] = (counts[name] ?? 0) + 1;
  });
  ctx.tools.add({
    name: "counts",
    description: "the tool calls counted by this worker",
    schema: { type: "object", properties: { tool: { type: "string" } } },
    handler: ({ tool }) => ({ agent: ctx.agent, counts: tool ? { [tool]: counts[tool] ?? 0 } : counts }),
  });
  ctx.tools.add({
    name: "boom",
    schema: { type: "object", properties: {} },
    handler: () => { throw new Error("the counter broke"); },
  });
}
"#;

/// An automation whose model may call the counter's tools and `emit`.
const COUNTING: &str = r#"
id = "counting"
name = "Counting"
prompt_template = "Count the tool calls."
tools = ["emit", "plugin:counter/counts", "plugin:counter/boom"]

[trigger]
type = "periodic"
interval_seconds = 7200
"#;

/// A model (OpenAI-compatible) that answers the n-th request with the n-th reply.
fn scripted_model(replies: Vec<Value>) -> hookrig_test_support::HttpStub {
    let next = std::sync::atomic::AtomicUsize::new(0);
    hookrig_test_support::HttpStub::start(move |_| {
        let n = next
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            .min(replies.len() - 1);
        hookrig_test_support::Reply::json(200, replies[n].to_string())
    })
}

/// A reply asking for one tool call.
fn calls(name: &str, args: &Value) -> Value {
    json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": name, "arguments": args.to_string()}}
    ]}}]})
}

/// `config.toml` naming the model at `url`, and the automation `counting` added.
fn add_counting(env: &TestEnv, url: &str) {
    let config = env.config_home().join("hookrig").join("config.toml");
    fs::create_dir_all(config.parent().expect("a parent")).expect("mkdir");
    fs::write(
        &config,
        format!(
            "[automation.llm]\nprovider = \"openai\"\nmodel = \"m\"\nbase_url = \"{url}\"\napi_key_env = \"COUNTING_KEY\"\n",
        ),
    )
    .expect("write config.toml");
    let automation = env.write_file("counting.toml", COUNTING);
    let add = hookrig(env, &["auto", "add", automation.to_str().expect("utf-8")]);
    assert_eq!(code(&add), 0, "{}", text(&add.stderr));
}

/// The model was offered the plugin's tools with their schemas, after hookrig's own.
fn assert_offered_counter_tools(model: &hookrig_test_support::HttpStub) {
    let offered: Vec<Value> = model.requests()[0].json()["tools"]
        .as_array()
        .expect("tools offered")
        .iter()
        .map(|t| t["function"].clone())
        .collect();
    let counts = offered
        .iter()
        .find(|f| f["name"] == "counter__counts")
        .expect("the plugin's tool is offered");
    assert_eq!(
        counts["description"],
        "the tool calls counted by this worker"
    );
    assert_eq!(
        counts["parameters"],
        json!({"type": "object", "properties": {"tool": {"type": "string"}}})
    );
    assert_eq!(
        offered.last().map(|f| f["name"].clone()),
        Some(json!("counter__boom"))
    );
}

#[test]
fn an_automations_model_calls_a_plugins_tool_in_the_warm_worker_that_answers_its_events() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    let dir = plugin(
        &env,
        "counter",
        &[("manifest.json", "{}"), ("index.mjs", TOOL_COUNTER)],
    );
    let model = scripted_model(vec![
        // The event reaches the plugin's worker of the automation's agent...
        calls(
            "emit",
            &json!({"event": "tool.after", "payload": {"tool": {"name": "bash"}}}),
        ),
        // ...and the tool, called in that same worker, sees what it counted.
        calls("counter__counts", &json!({"tool": "bash"})),
        calls("counter__boom", &json!({})),
        calls("counter__counts", &json!({"tool": 7})),
        json!({"choices": [{"message": {"role": "assistant", "content": "bash ran once."}}]}),
    ]);
    add_counting(&env, model.url());
    let fire = |env: &TestEnv| {
        let mut command = env.command(["fire", "counting", "--json"]);
        command.env("COUNTING_KEY", "sk-test");
        hookrig_test_support::run_with_input(command, b"", hookrig_test_support::HANG_LIMIT)
    };

    // Not registered yet: the run fails before the model is asked, saying what to do.
    let output = fire(&env);
    let run: Value = serde_json::from_slice(&output.stdout).expect("a run record");
    assert_eq!(run["status"], "failed", "{run} {}", text(&output.stderr));
    assert_eq!(
        run["llm_response"],
        "the granted plugin tools cannot be offered: no plugin `counter` is registered; `hookrig plugins list` lists them"
    );
    let registered = hookrig(
        &env,
        &[
            "plugins",
            "register",
            "counter",
            "--path",
            dir.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(code(&registered), 0, "{}", text(&registered.stderr));
    let output = fire(&env);
    let run: Value = serde_json::from_slice(&output.stdout).expect("a run record");
    assert_eq!(
        run["llm_response"],
        "the granted plugin tools cannot be offered: plugin `counter`: it is not enabled for agent `counting`; `hookrig plugins enable counter --agent counting` (or `--all`) lets it call the plugin's tools"
    );
    assert!(model.requests().is_empty(), "the model was not asked");

    let enabled = hookrig(
        &env,
        &["plugins", "enable", "counter", "--agent", "counting"],
    );
    assert_eq!(code(&enabled), 0, "{}", text(&enabled.stderr));
    let output = fire(&env);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let run: Value = serde_json::from_slice(&output.stdout).expect("a run record");
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(run["llm_response"], "bash ran once.");
    let actions = run["actions_taken"]
        .as_array()
        .expect("tool calls recorded");
    let names: Vec<&str> = actions.iter().filter_map(|a| a["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "emit",
            "counter__counts",
            "counter__boom",
            "counter__counts"
        ]
    );
    assert_eq!(
        actions[1]["result"],
        json!({"agent": "counting", "counts": {"bash": 1}})
    );
    assert_eq!(actions[2]["error"], "Error: the counter broke", "{run}");
    assert_eq!(
        actions[3]["error"],
        "tool counts: the argument \"tool\" must be of type string, got integer"
    );

    assert_offered_counter_tools(&model);
}
