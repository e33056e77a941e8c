//! A JavaScript plugin's subscriptions in the one chain: each an entry of its own at its
//! own priority, interleaved with native hooks and other plugins' entries, answered by
//! the plugin's one warm worker; described when the plugin's files change, and for a
//! project plugin only once trusted. Real Node.js, real processes, the real ledger.

use std::fs;
use std::path::{Path, PathBuf};

use hookrig_test_support::TestEnv;
use serde_json::{Value, json};

use crate::harness::{Emitted, code, emit, hookrig, test_env, text, tool_available, why_json};

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

/// `hookrig emit tool.before` of a bash `command`, through the engine when `engine`.
fn bash(env: &TestEnv, command: &str, engine: bool) -> Emitted {
    let payload = json!({"tool": {"name": "bash", "input": {"command": command}}});
    let mut cmd = env.command(["emit", "tool.before"]);
    cmd.env("HOOKRIG_ENGINE", if engine { "on" } else { "off" });
    let output = hookrig_test_support::run_with_input(
        cmd,
        payload.to_string().as_bytes(),
        hookrig_test_support::HANG_LIMIT,
    );
    crate::harness::emitted(&output)
}

/// The names of the hooks an emit ran (or skipped), in the order of the chain.
fn chain(out: &Emitted) -> Vec<String> {
    out.outcome["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .map(|h| format!("{}={}", h["name"].as_str().unwrap_or("?"), h["result"]))
        .collect()
}

/// Native hooks at priority 5 (allows) and 20 (denies every tool call).
const NATIVE_AROUND: &str = r#"
[[hooks]]
name = "native-5"
events = ["tool.before"]
priority = 5
command = "exit 0"

[[hooks]]
name = "native-20"
events = ["tool.before"]
priority = 20
command = "echo 'native 20 denies' >&2; exit 2"
"#;

/// A veto of `rm -rf` at `PRIORITY`.
const VETO: &str = r#"
export function register(ctx) {
  ctx.bus.on("tool.before@v1", (p) => String(p.tool?.input?.command).includes("rm -rf")
    ? { allow: false, reason: "the plugin vetoes rm -rf" } : { allow: true }, { priority: PRIORITY });
}
"#;

fn veto_at(priority: i32) -> String {
    VETO.replace("PRIORITY", &priority.to_string())
}

#[test]
fn a_js_veto_at_priority_10_runs_after_a_native_hook_at_5_and_before_one_at_20() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    env.write_project_config(NATIVE_AROUND);
    let dir = plugin(
        &env,
        "veto",
        &[("manifest.json", "{}"), ("index.mjs", &veto_at(10))],
    );
    register(&env, "veto", &dir);

    let serve = crate::serve::Serve::start(&env);
    for engine in [false, true] {
        // The veto decides before native-20 would: as one hook at the manifest's
        // priority (100) the plugin would run last and native-20 would deny first.
        let out = bash(&env, "rm -rf /", engine);
        assert_eq!(out.code, 2, "engine {engine}: {}", out.stderr);
        assert_eq!(out.outcome["reason"], "the plugin vetoes rm -rf");
        assert_eq!(out.outcome["decided_by"], "veto:tool.before@v1");
        let run = why_json(&env, out.outcome["run_id"].as_str().expect("run id"));
        let recorded: Vec<String> = run["hooks"]
            .as_array()
            .expect("hooks")
            .iter()
            .map(|h| format!("{}={}", h["name"].as_str().unwrap_or("?"), h["result"]))
            .collect();
        assert_eq!(
            recorded,
            [
                r#"native-5="allow""#,
                r#"veto:tool.before@v1="deny""#,
                r#"native-20="skipped""#
            ],
            "hookrig why: {run}"
        );
        assert_eq!(
            chain(&out),
            [
                r#"native-5="allow""#,
                r#"veto:tool.before@v1="deny""#,
                r#"native-20="skipped""#
            ],
            "engine {engine}"
        );
        // After a native hook at 5: a deny there ends the chain before the plugin.
        let out = bash(&env, "ls", engine);
        assert_eq!(out.outcome["decided_by"], "native-20", "engine {engine}");
        assert_eq!(
            chain(&out),
            [
                r#"native-5="allow""#,
                r#"veto:tool.before@v1="allow""#,
                r#"native-20="deny""#
            ],
            "engine {engine}"
        );
    }
    let (stopped, log) = serve.stop();
    assert!(stopped.success(), "{log}");
}

/// Plugin A: transforms at priorities 1 and 30 of one worker, the second reporting how
/// many times the first ran in that worker.
const TAG_A: &str = r#"
let seen = 0;
export function register(ctx) {
  ctx.bus.on("channel.message.out@v1", (p) => { seen += 1; return { ...p, text: `${p.text} a1` }; }, { priority: 1 });
  ctx.bus.on("channel.message.out@v1", (p) => ({ ...p, text: `${p.text} a30(seen ${seen})` }), { priority: 30 });
}
"#;

/// Plugin B: a transform at priority 10.
const TAG_B: &str = r#"
export function register(ctx) {
  ctx.bus.on("channel.message.out@v1", (p) => ({ ...p, text: `${p.text} b10` }), { priority: 10 });
}
"#;

/// A native hook at priority 20 that appends to the text it is given.
const NATIVE_TAG: &str = r#"
[[hooks]]
name = "native-20"
events = ["channel.message.out"]
priority = 20
exec = ["node", "-e", "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const p=JSON.parse(s);process.stdout.write(JSON.stringify({decision:'modify',payload:{text:p.text+' n20'}}))})"]
"#;

#[test]
fn two_plugins_and_a_native_hook_interleave_and_each_transform_feeds_the_next_entry() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    env.write_project_config(NATIVE_TAG);
    for (id, code) in [("a", TAG_A), ("b", TAG_B)] {
        let dir = plugin(&env, id, &[("manifest.json", "{}"), ("index.mjs", code)]);
        register(&env, id, &dir);
    }
    let serve = crate::serve::Serve::start(&env);
    let payload = json!({"channel": "chat", "text": "x"}).to_string();
    for (round, engine) in [(1, false), (1, true), (2, true)] {
        let mut cmd = env.command(["emit", "channel.message.out"]);
        cmd.env("HOOKRIG_ENGINE", if engine { "on" } else { "off" });
        let out = crate::harness::emitted(&hookrig_test_support::run_with_input(
            cmd,
            payload.as_bytes(),
            hookrig_test_support::HANG_LIMIT,
        ));
        assert_eq!(out.code, 0, "{}", out.stderr);
        // A1, B10, the native hook at 20, A30: A's handlers are not run together, and
        // A30 sees what B and the native hook made of A1's payload. Both of A's entries
        // share its worker: A30 counts A1's runs in the same process (a warm one under
        // the engine).
        assert_eq!(
            out.outcome["payload"]["text"],
            format!("x a1 b10 n20 a30(seen {round})"),
            "engine {engine}: {}",
            out.outcome
        );
        let names: Vec<&str> = out.outcome["hooks"]
            .as_array()
            .expect("hooks")
            .iter()
            .filter_map(|h| h["name"].as_str())
            .collect();
        assert_eq!(
            names,
            [
                "a:channel.message.out@v1",
                "b:channel.message.out@v1",
                "native-20",
                "a:channel.message.out@v1:2"
            ]
        );
    }
    // One pool for plugin A, whatever the number of its entries.
    let status = hookrig(&env, &["engine", "status", "--json"]);
    let status: Value = serde_json::from_slice(&status.stdout).expect("status JSON");
    let pools: Vec<&str> = status["workers"]
        .as_array()
        .expect("pools")
        .iter()
        .filter_map(|p| p["hook"].as_str())
        .collect();
    assert_eq!(pools, ["a:plugin", "b:plugin"], "{status}");
    let (stopped, log) = serve.stop();
    assert!(stopped.success(), "{log}");

    // `list` and `explain` show each subscription as an entry of its own.
    let listed = hookrig(&env, &["list", "--event", "channel.message.out"]);
    assert_eq!(code(&listed), 0, "{}", text(&listed.stderr));
    insta::assert_snapshot!("js_chain_list", env.redact(&text(&listed.stdout)));
    let explained = hookrig(&env, &["explain", "channel.message.out"]);
    assert_eq!(code(&explained), 0, "{}", text(&explained.stderr));
    insta::assert_snapshot!("js_chain_explain", env.redact(&text(&explained.stdout)));
}

/// The descriptions kept under the state directory.
fn descriptions(env: &TestEnv) -> Vec<String> {
    let dir = env.state_home().join("hookrig/plugin-descriptions");
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_changed_plugin_is_described_again_and_takes_its_new_place_in_the_chain() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    env.write_project_config(NATIVE_AROUND);
    let dir = plugin(
        &env,
        "veto",
        &[("manifest.json", "{}"), ("index.mjs", &veto_at(30))],
    );
    register(&env, "veto", &dir);
    // `register` described it: the emits after it need no Node.js to build the chain.
    assert_eq!(descriptions(&env).len(), 1, "{:?}", descriptions(&env));
    let out = bash(&env, "rm -rf /", false);
    assert_eq!(out.outcome["decided_by"], "native-20", "{}", out.outcome);

    // The edit is found by the engine's load, which describes the plugin anew.
    let serve = crate::serve::Serve::start(&env);
    fs::write(dir.join("index.mjs"), veto_at(10)).expect("edit");
    let out = bash(&env, "rm -rf /", true);
    assert_eq!(
        out.outcome["decided_by"], "veto:tool.before@v1",
        "{}",
        out.outcome
    );
    assert_eq!(descriptions(&env).len(), 2, "{:?}", descriptions(&env));
    let (stopped, log) = serve.stop();
    assert!(stopped.success(), "{log}");
}

/// A gate that notes every start of its code (its top-level statements run at import),
/// at priority PRIORITY.
const NOTING_GATE: &str = r#"
import { appendFileSync } from "node:fs";
appendFileSync(`${process.env.HOME}/node-started`, `${process.pid}\n`);
export function register(ctx) {
  ctx.bus.on("tool.before@v1", (p) => String(p.tool?.input?.command).includes("rm -rf")
    ? { allow: false, reason: "project gate" } : { allow: true }, { priority: PRIORITY });
}
"#;

#[test]
fn a_changed_project_plugin_is_neither_described_nor_run_until_trusted_again() {
    // guards: describing a plugin runs its code; a project plugin's code may run only
    // once trusted, so no load (list, explain, emit) may describe it before
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    env.write_project_config(NATIVE_AROUND);
    let dir = env.project().join(".hookrig/plugins/gate");
    fs::create_dir_all(&dir).expect("mkdir");
    fs::write(dir.join("manifest.json"), "{}").expect("write");
    fs::write(dir.join("index.mjs"), NOTING_GATE.replace("PRIORITY", "30")).expect("write");
    let started = env.home().join("node-started");
    let rm = json!({"tool": {"name": "bash", "input": {"command": "rm -rf /"}}}).to_string();
    let emit = || crate::harness::emit_untrusted(&env, &["tool.before"], &rm);
    let run = |args: &[&str]| {
        let output = env.run_untrusted(args.iter().copied(), b"");
        assert_eq!(code(&output), 0, "{args:?}: {}", text(&output.stderr));
        text(&output.stdout)
    };

    run(&["trust"]);
    let out = emit();
    assert_eq!(out.outcome["decided_by"], "native-20", "{}", out.outcome);
    assert!(
        chain(&out).contains(&r#"gate:tool.before@v1="skipped""#.to_owned()),
        "{}",
        out.outcome
    );
    assert!(started.exists());

    fs::remove_file(&started).expect("rm marker");
    fs::write(dir.join("index.mjs"), NOTING_GATE.replace("PRIORITY", "1")).expect("edit");
    let listed = run(&["list"]);
    assert!(
        listed.contains("gate:plugin") && listed.contains("untrusted"),
        "{listed}"
    );
    run(&["explain", "tool.before"]);
    let out = emit();
    assert_eq!(out.outcome["decided_by"], "native-20", "{}", out.outcome);
    assert!(
        chain(&out).contains(&r#"gate:plugin="untrusted""#.to_owned()),
        "{}",
        out.outcome
    );
    assert!(
        !started.exists(),
        "the changed plugin's code ran before it was trusted"
    );

    run(&["trust"]);
    let out = emit();
    assert_eq!(
        out.outcome["decided_by"], "gate:tool.before@v1",
        "{}",
        out.outcome
    );
    assert!(started.exists());
}

#[test]
fn a_plugin_that_cannot_be_described_is_reported_and_runs_as_one_failing_hook() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    let dir = plugin(
        &env,
        "broken",
        &[
            ("manifest.json", r#"{"failureMode": "fail", "priority": 7}"#),
            (
                "index.mjs",
                "export function register() { throw new Error('no register today'); }\n",
            ),
        ],
    );
    register(&env, "broken", &dir);
    assert_eq!(
        descriptions(&env),
        Vec::<String>::new(),
        "a failure is not kept"
    );

    let out = emit(
        &env,
        &["tool.before"],
        r#"{"tool": {"name": "bash", "input": {"command": "ls"}}}"#,
    );
    // failureMode fail: the plugin that cannot load denies.
    assert_eq!(out.code, 2, "{}", out.outcome);
    assert_eq!(chain(&out), [r#"broken:plugin="error""#]);
    let warnings = out.outcome["warnings"].to_string();
    assert!(
        warnings.contains("plugin broken cannot be described")
            && warnings.contains("no register today")
            && warnings.contains("one hook, `broken:plugin`, at the manifest's priority 7"),
        "{warnings}"
    );
    let run = why_json(&env, out.outcome["run_id"].as_str().expect("run id"));
    assert!(
        run["warnings"]
            .to_string()
            .contains("plugin broken cannot be described"),
        "the ledger keeps the warning: {run}"
    );
    let shown = hookrig(&env, &["plugins", "show", "broken"]);
    let shown = text(&shown.stdout);
    assert!(
        shown.contains("problem: ") && shown.contains("plugin broken cannot be described"),
        "{shown}"
    );
    assert!(shown.contains("  broken:plugin  "), "{shown}");
}

/// A plugin whose registration depends on the agent: described (for no agent) its
/// handler 0 is a tool.before veto; for the agent `odd` handler 0 is a listener of
/// another event.
const AGENT_DEPENDENT: &str = r#"
export function register(ctx) {
  if (ctx.agent === "odd") ctx.bus.on("session.opened@v1", () => {});
  ctx.bus.on("tool.before@v1", () => ({ allow: false, reason: "vetoed by handler 0" }), { priority: 10 });
}
"#;

#[test]
fn a_worker_that_registers_otherwise_than_described_refuses_rather_than_run_another_handler() {
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    let dir = plugin(
        &env,
        "moody",
        &[
            ("manifest.json", r#"{"failureMode": "fail"}"#),
            ("index.mjs", AGENT_DEPENDENT),
        ],
    );
    register(&env, "moody", &dir);
    let payload = r#"{"tool": {"name": "bash", "input": {"command": "ls"}}}"#;
    let out = emit(&env, &["tool.before"], payload);
    assert_eq!(
        out.outcome["reason"], "vetoed by handler 0",
        "{}",
        out.outcome
    );

    let out = emit(&env, &["tool.before", "--agent", "odd"], payload);
    assert_eq!(out.code, 2, "failureMode fail: {}", out.outcome);
    assert_eq!(chain(&out), [r#"moody:tool.before@v1="error""#]);
    let text = out.outcome.to_string();
    assert!(
        text.contains("its description is stale") && text.contains("a session.opened@v1 handler"),
        "{text}"
    );
}

/// A plugin whose `register` never returns; each start of its code is noted.
const HANGS_AT_LOAD: &str = r#"
import { appendFileSync } from "node:fs";
appendFileSync(`${process.env.HOME}/hang-started`, `${process.pid}\n`);
export function register(ctx) {
  ctx.bus.on("tool.before@v1", () => ({ allow: true }));
  return new Promise(() => setInterval(() => {}, 1000));
}
"#;

#[test]
fn a_plugin_that_hangs_at_load_is_described_once_and_runs_as_one_hook_to_its_timeout() {
    // guards: a hang at load costing every emit its timeout twice, once to describe
    if !tool_available("node") {
        return;
    }
    let env = test_env();
    let dir = plugin(
        &env,
        "slow",
        &[
            (
                "manifest.json",
                r#"{"timeout": 1000, "failureMode": "fail"}"#,
            ),
            ("index.mjs", HANGS_AT_LOAD),
        ],
    );
    register(&env, "slow", &dir);
    let starts = || {
        fs::read_to_string(env.home().join("hang-started"))
            .unwrap_or_default()
            .lines()
            .count()
    };
    assert_eq!(starts(), 1, "register describes it");
    for emits in 1..=2 {
        let out = emit(
            &env,
            &["tool.before"],
            r#"{"tool": {"name": "bash", "input": {"command": "ls"}}}"#,
        );
        assert_eq!(out.code, 2, "failureMode fail: {}", out.outcome);
        assert_eq!(chain(&out), [r#"slow:plugin="timeout""#]);
        assert!(
            out.outcome["warnings"]
                .to_string()
                .contains("plugin slow cannot be described: no answer within its timeout"),
            "{}",
            out.outcome
        );
        // Only the worker started: the timed-out description is kept.
        assert_eq!(starts(), 1 + emits, "after {emits} emits");
    }
}
