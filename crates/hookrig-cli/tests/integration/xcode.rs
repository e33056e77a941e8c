//! The xcode dialect end to end: its hooks run unchanged, presented and read by its own rules.
//!
//! Plugins are real directories with real manifests in the places x-code and hookrig
//! look; hooks are `sh` lines that record what they saw into files.

use std::fs;
use std::path::{Path, PathBuf};

use hookrig_test_support::TestEnv;
use indoc::indoc;
use serde_json::{Value, json};

use crate::harness::{Emitted, emit, quoted, test_env};

/// Writes `contents` at `path`, creating parents.
fn put(path: &Path, contents: &str) {
    fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    fs::write(path, contents).expect("write");
}

/// A plugin at `dir` with `plugin.json` holding `name` and inline `hooks`.
fn plugin(dir: &Path, name: &str, hooks: &Value) -> PathBuf {
    put(
        &dir.join("plugin.json"),
        &serde_json::to_string_pretty(&json!({"name": name, "version": "0.1.0", "hooks": hooks}))
            .expect("json"),
    );
    dir.to_owned()
}

fn global_plugins(env: &TestEnv) -> PathBuf {
    env.data_home().join("hookrig").join("plugins")
}

fn xcode_plugins(env: &TestEnv) -> PathBuf {
    env.home().join(".x-code").join("plugins")
}

fn project_plugins(env: &TestEnv) -> PathBuf {
    env.project().join(".hookrig").join("plugins")
}

/// x-code's own project plugins directory.
fn xcode_project_plugins(env: &TestEnv) -> PathBuf {
    env.project().join(".x-code").join("plugins")
}

/// Records `name@market` `version` as installed in x-code's `installed_plugins.json`, in
/// the order of the calls, as x-code's installer does.
fn record_install(env: &TestEnv, market: &str, name: &str, version: &str) {
    let path = xcode_plugins(env).join("installed_plugins.json");
    let mut record: Value = fs::read_to_string(&path).map_or_else(
        |_| json!({"schemaVersion": "1", "plugins": []}),
        |text| serde_json::from_str(&text).expect("the record is JSON"),
    );
    record["plugins"]
        .as_array_mut()
        .expect("plugins")
        .push(json!({
            "id": format!("{name}@{market}"), "name": name, "marketplace": market,
            "version": version, "source": {"kind": "local", "path": "/src"},
            "installedAt": "2026-01-01T00:00:00.000Z", "installScope": "user",
        }));
    put(&path, &record.to_string());
}

/// A command that appends `word` to the log file `log`.
fn log_line(log: &Path, word: &str) -> String {
    format!("echo {word} >> {}", quoted(log))
}

fn log_of(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn pre_tool(env: &TestEnv, extra: &[&str], tool: &str) -> Emitted {
    let mut args = vec!["PreToolUse"];
    args.extend_from_slice(extra);
    emit(
        env,
        &args,
        &json!({"tool": {"name": tool, "input": {"path": "a.ts"}}}).to_string(),
    )
}

/// A hook entry that logs `word` and prints `reply`.
fn replying(log: &Path, word: &str, reply: &Value) -> Value {
    json!({"command": format!("{}; echo '{}'", log_line(log, word), reply)})
}

#[test]
fn every_location_in_order_with_levels_and_ids() {
    let env = test_env();
    let log = env.root().join("log");
    let entry = |word: &str| json!({"PreToolUse": [{"command": log_line(&log, word)}]});
    // Sorted by name, whatever order they were made in.
    plugin(&global_plugins(&env).join("b-dir"), "bee", &entry("xdg-b"));
    plugin(&global_plugins(&env).join("a-dir"), "ant", &entry("xdg-a"));
    let cache = xcode_plugins(&env).join("cache").join("market");
    plugin(
        &cache.join("cached").join("1.9.0"),
        "cached",
        &entry("cache-1.9"),
    );
    plugin(
        &cache.join("cached").join("1.10.0"),
        "cached",
        &entry("cache-1.10"),
    );
    plugin(
        &cache.join("cached").join("1.10.0-beta"),
        "cached",
        &entry("cache-beta"),
    );
    record_install(&env, "market", "cached", "1.10.0");
    let dev = plugin(&env.root().join("dev"), "dev", &entry("plugin-dir"));
    plugin(
        &project_plugins(&env).join("proj"),
        "proj",
        &entry("project"),
    );
    plugin(
        &xcode_project_plugins(&env).join("xproj"),
        "xproj",
        &entry("xcode-project"),
    );

    let out = pre_tool(
        &env,
        &["--plugin-dir", dev.to_str().expect("utf-8")],
        "edit",
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        log_of(&log),
        [
            "xdg-a",
            "xdg-b",
            "cache-1.10",
            "plugin-dir",
            "project",
            "xcode-project"
        ]
    );
    let names: Vec<String> = out.results().into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "ant@local:PreToolUse:0",
            "bee@local:PreToolUse:0",
            "cached@market:PreToolUse:0",
            "dev@local:PreToolUse:0",
            "proj@local:PreToolUse:0",
            "xproj@local:PreToolUse:0",
        ]
    );
    assert_eq!(out.hook("cached@market:PreToolUse:0")["dialect"], "xcode");
    assert_eq!(
        out.hook("cached@market:PreToolUse:0")["source"],
        cache
            .join("cached/1.10.0/plugin.json")
            .display()
            .to_string()
    );
}

#[test]
fn project_plugins_come_from_the_nearest_directory_of_the_walk() {
    let env = test_env();
    let log = env.root().join("log");
    let entry = |word: &str| json!({"PreToolUse": [{"command": log_line(&log, word)}]});
    plugin(&project_plugins(&env).join("root"), "root", &entry("root"));
    let sub = env.project().join("sub");
    plugin(&sub.join(".hookrig/plugins/near"), "near", &entry("near"));

    let out = pre_tool(&env, &["--cwd", sub.to_str().expect("utf-8")], "edit");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(log_of(&log), ["near"]);
}

#[test]
fn manifest_lookup_order() {
    let env = test_env();
    let log = env.root().join("log");
    let root = project_plugins(&env);
    let manifest = |name: &str| {
        json!({"name": name, "hooks": {"PreToolUse": [{"command": log_line(&log, name)}]}})
            .to_string()
    };
    put(
        &root.join("p1/.x-code-plugin/plugin.json"),
        &manifest("xcode-manifest"),
    );
    put(
        &root.join("p1/.claude-plugin/plugin.json"),
        &manifest("claude-manifest-1"),
    );
    put(&root.join("p1/plugin.json"), &manifest("plain-manifest-1"));
    put(
        &root.join("p2/.claude-plugin/plugin.json"),
        &manifest("claude-manifest"),
    );
    put(&root.join("p2/plugin.json"), &manifest("plain-manifest-2"));
    put(&root.join("p3/plugin.json"), &manifest("plain-manifest"));

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        log_of(&log),
        ["xcode-manifest", "claude-manifest", "plain-manifest"]
    );
}

#[test]
fn hooks_inline_in_a_file_or_in_the_default_hooks_json() {
    let env = test_env();
    let log = env.root().join("log");
    let root = project_plugins(&env);
    let hooks = |word: &str| json!({"PreToolUse": [{"command": log_line(&log, word)}]});
    plugin(&root.join("a"), "inline", &hooks("inline"));
    put(
        &root.join("b/plugin.json"),
        &json!({"name": "file", "hooks": "./config/my-hooks.json"}).to_string(),
    );
    put(
        &root.join("b/config/my-hooks.json"),
        &hooks("file").to_string(),
    );
    put(
        &root.join("c/plugin.json"),
        &json!({"name": "fallback"}).to_string(),
    );
    put(
        &root.join("c/hooks/hooks.json"),
        &hooks("fallback").to_string(),
    );
    // A named file wins over hooks/hooks.json.
    put(
        &root.join("b/hooks/hooks.json"),
        &hooks("not-this").to_string(),
    );

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(log_of(&log), ["inline", "file", "fallback"]);
    assert_eq!(
        out.hook("file@local:PreToolUse:0")["source"],
        root.join("b/config/my-hooks.json").display().to_string()
    );
}

#[test]
fn a_plugin_name_must_follow_the_rule() {
    let env = test_env();
    let log = env.root().join("log");
    let hooks = json!({"PreToolUse": [{"command": log_line(&log, "ran")}]});
    let manifest =
        plugin(&project_plugins(&env).join("bad"), "Bad_Name", &hooks).join("plugin.json");

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(log_of(&log).is_empty());
    assert_eq!(
        out.warnings(),
        [format!(
            "{}:2:11: plugin name \"Bad_Name\" must match ^[a-z0-9][a-z0-9-]*$; the plugin is not loaded",
            manifest.display()
        )]
    );
}

#[test]
fn one_invalid_entry_rejects_that_plugin_and_lists_every_bad_path() {
    let env = test_env();
    let log = env.root().join("log");
    let bad = plugin(
        &project_plugins(&env).join("a-bad"),
        "bad",
        &json!({
            "PreToolUse": [
                {"command": log_line(&log, "bad-0"), "timeout": 0},
                {"command": log_line(&log, "bad-1")},
                {"timeout": 30001, "failurePolicy": "strict"}
            ],
            "UserPromptSubmit": [{"command": ""}]
        }),
    );
    plugin(
        &project_plugins(&env).join("b-good"),
        "good",
        &json!({"PreToolUse": [{"command": log_line(&log, "good")}]}),
    );

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(log_of(&log), ["good"]);
    assert_eq!(
        out.warnings(),
        [format!(
            "{}:8:20: invalid hook config of plugin bad@local, its hooks are not loaded: \
             hooks.PreToolUse[0].timeout: must be a positive integer of milliseconds, at most 30000; \
             hooks.PreToolUse[2].command: is required; \
             hooks.PreToolUse[2].timeout: must be a positive integer of milliseconds, at most 30000; \
             hooks.PreToolUse[2].failurePolicy: must be \"allow\" or \"block\"; \
             hooks.UserPromptSubmit[0].command: must be a non-empty string",
            bad.join("plugin.json").display()
        )]
    );
    // `validate` exits 1 on Severity::Error diagnostics; here the load itself goes on.
    assert_eq!(out.results().len(), 1);
}

#[test]
fn unknown_events_are_ignored() {
    let env = test_env();
    let log = env.root().join("log");
    let dir = plugin(
        &project_plugins(&env).join("p"),
        "p",
        &json!({
            "Stop": [{"timeout": -1}],
            "PreToolUse": [{"command": log_line(&log, "ran")}]
        }),
    );

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(log_of(&log), ["ran"]);
    let warnings = out.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(&format!(
            "{}:5:13: unknown x-code event \"Stop\" ignored (events: SessionStart, ",
            dir.join("plugin.json").display()
        )),
        "{warnings:?}"
    );
}

#[test]
fn the_per_os_command_replaces_command() {
    let env = test_env();
    let log = env.root().join("log");
    plugin(
        &project_plugins(&env).join("p"),
        "p",
        &json!({"PreToolUse": [
            {"command": log_line(&log, "base"), "commandLinux": log_line(&log, "linux"),
             "commandDarwin": log_line(&log, "darwin"), "commandWindows": log_line(&log, "windows")},
            {"command": log_line(&log, "portable"), "commandWindows": log_line(&log, "windows")}
        ]}),
    );

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(log_of(&log), ["linux", "portable"]);
}

#[test]
fn variables_are_expanded_and_quoted() {
    let env = test_env();
    let out_file = env.root().join("vars");
    let dir = plugin(
        &project_plugins(&env).join("vars"),
        "vars",
        &json!({"PreToolUse": [{"command": format!(
            "printf '%s\\n' ${{pluginDir}} ${{pluginDataDir}} ${{cwd}} ${{homedir}} ${{sep}} \
             \"${{env:XC_SET}}\" [${{env:XC_UNSET}}] '${{plugindir}}' '${{env:}}' > {}",
            quoted(&out_file)
        )}]}),
    );
    let data_dir = env.data_home().join("hookrig/plugin-data/vars@local");
    assert!(!data_dir.exists());

    let mut command = env.command(["emit", "PreToolUse"]);
    command
        .env("XC_SET", "a b; $(touch injected)")
        .env_remove("XC_UNSET");
    let output = hookrig_test_support::run_with_input(
        command,
        br#"{"tool":{"name":"edit"}}"#,
        hookrig_test_support::HANG_LIMIT,
    );

    assert_eq!(output.status.code(), Some(0));
    assert!(
        data_dir.is_dir(),
        "${{pluginDataDir}} is created on first use"
    );
    assert_eq!(
        fs::read_to_string(&out_file).expect("the hook ran"),
        format!(
            "{}\n{}\n{}\n{}\n/\na b; $(touch injected)\n[]\n${{plugindir}}\n${{env:}}\n",
            dir.display(),
            data_dir.display(),
            env.project().display(),
            env.home().display(),
        )
    );
    assert!(!env.project().join("injected").exists());
}

#[test]
fn plugin_data_dir_of_x_code_plugins_is_x_code_s_and_only_made_when_used() {
    let env = test_env();
    let cache = xcode_plugins(&env).join("cache/market");
    plugin(
        &cache.join("uses/1.0.0"),
        "uses",
        &json!({"PreToolUse": [{"command": "touch ${pluginDataDir}/seen"}]}),
    );
    plugin(
        &cache.join("unused/1.0.0"),
        "unused",
        &json!({"PreToolUse": [{"command": "true"}]}),
    );
    record_install(&env, "market", "uses", "1.0.0");
    record_install(&env, "market", "unused", "1.0.0");

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 0, "{}", out.stderr);
    let data = xcode_plugins(&env).join("data");
    assert!(data.join("uses@market/seen").is_file());
    assert!(!data.join("unused@market").exists());
}

// guards: hooks with spaces and `;` in ${cwd}
#[test]
fn a_cwd_with_spaces_and_semicolons_neither_splits_nor_injects() {
    let env = test_env();
    let out_file = env.root().join("args");
    plugin(
        &project_plugins(&env).join("p"),
        "p",
        &json!({"PreToolUse": [{"command": format!(
            "printf '[%s]' ${{cwd}} > {}; printf '[%s]' \"${{cwd}}/x\" >> {}",
            quoted(&out_file), quoted(&out_file)
        )}]}),
    );
    let weird = env.project().join("we ird;touch injected");
    fs::create_dir_all(&weird).expect("mkdir");

    let out = pre_tool(&env, &["--cwd", weird.to_str().expect("utf-8")], "edit");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        fs::read_to_string(&out_file).expect("the hook ran"),
        format!("[{}][{}/x]", weird.display(), weird.display())
    );
    assert!(!weird.join("injected").exists());
    assert!(!env.project().join("injected").exists());
}

// guards: `${env:EVIL}` and `${cwd}` ran as code inside a here-document, inside
// `"$( ... )"` and after a `#` comment holding a quote (EVIL='$(touch PWNED)',
// ';touch PWNED;', a newline; a working directory named `$(touch PWNED)`).
#[test]
fn variable_values_never_run_as_code_in_any_context() {
    let env = test_env();
    let out_file = env.root().join("seen");
    let out = quoted(&out_file);
    plugin(
        &global_plugins(&env).join("p"),
        "p",
        &json!({"PreToolUse": [{"command": format!(
            "cat <<EOF > {out}\n${{env:EVIL}}|${{cwd}}\nEOF\n\
             printf '%s|' \"$(printf %s \"${{env:EVIL}}\")\" \"$(printf %s ${{cwd}})\" >> {out}\n\
             # it's a comment, \"quoted\n\
             printf '%s|' ${{env:EVIL}} \"${{cwd}}\" '${{env:EVIL}}' >> {out}\n"
        )}]}),
    );
    let weird = env.project().join("$(touch PWNED)");
    fs::create_dir_all(&weird).expect("mkdir");
    let cwd = weird.to_str().expect("utf-8");
    for evil in [
        "$(touch PWNED)",
        ";touch PWNED;",
        "\ntouch PWNED\n",
        "`touch PWNED`",
    ] {
        let mut command = env.command(["emit", "PreToolUse", "--cwd", cwd]);
        command.env("EVIL", evil);
        let output = hookrig_test_support::run_with_input(
            command,
            br#"{"tool":{"name":"edit"}}"#,
            hookrig_test_support::HANG_LIMIT,
        );
        assert_eq!(output.status.code(), Some(0), "{evil:?}");
        for dir in [weird.as_path(), env.project().as_path(), env.root()] {
            assert!(
                !dir.join("PWNED").exists(),
                "{evil:?} ran as code in {}",
                dir.display()
            );
        }
        assert_eq!(
            fs::read_to_string(&out_file).expect("the hook ran"),
            format!(
                "{evil}|{cwd}\n{}|{cwd}|{evil}|{cwd}|{evil}|",
                evil.trim_end_matches('\n')
            ),
            "{evil:?}"
        );
    }
}

#[test]
fn timeouts_and_failure_policies_with_their_reasons() {
    let env = test_env();
    let sleep = env.marked_sleep();
    let hooks = json!({
        "PreToolUse": [
            {"command": format!("{} 5", sleep.display()), "timeout": 200},
            {"command": "exit 3"},
            {"command": "kill -SEGV $$"},
        ],
        "UserPromptSubmit": [{"command": "exit 4", "failurePolicy": "block"}],
        "SessionStart": [{"command": format!("{} 5", sleep.display()), "timeout": 200, "failurePolicy": "block"}],
    });
    plugin(&project_plugins(&env).join("p"), "p", &hooks);

    let out = pre_tool(&env, &[], "edit");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.warnings(),
        [
            "hook timed out after 200ms",
            "hook exited 3",
            "hook crashed: killed by signal 11"
        ]
    );
    assert_eq!(out.result("p@local:PreToolUse:0"), "timeout");
    assert_eq!(out.result("p@local:PreToolUse:1"), "error");

    let out = emit(&env, &["UserPromptSubmit"], r#"{"prompt":"hi"}"#);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["reason"], "hook exited 4");
    assert_eq!(out.outcome["decided_by"], "p@local:UserPromptSubmit:0");

    // A notify event cannot be denied, whatever the policy.
    let out = emit(&env, &["SessionStart"], "{}");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.warnings(), ["hook timed out after 200ms"]);
    assert!(env.leftovers().is_empty());
}

#[test]
fn block_turns_a_timeout_into_a_deny() {
    let env = test_env();
    let hooks = json!({"PreToolUse": [
        {"command": format!("{} 5", env.marked_sleep().display()), "timeout": 150, "failurePolicy": "block"},
        {"command": "echo never > never"},
    ]});
    plugin(&project_plugins(&env).join("p"), "p", &hooks);

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["reason"], "hook timed out after 150ms");
    assert_eq!(out.result("p@local:PreToolUse:1"), "skipped");
    assert!(!env.project().join("never").exists());
}

// guards: a reply over the 1 MiB cap that starts with whitespace is a failure under the
// failure policy, not an empty reply that allows
#[test]
fn a_reply_over_the_cap_that_starts_with_whitespace_is_a_failure() {
    let env = test_env();
    let hooks = json!({"PreToolUse": [
        {"command": "head -c 2097152 /dev/zero | tr '\\0' ' '; echo '{\"decision\":\"deny\"}'",
         "failurePolicy": "block"},
    ]});
    plugin(&project_plugins(&env).join("p"), "p", &hooks);

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.result("p@local:PreToolUse:0"), "error");
    assert_eq!(
        out.outcome["reason"],
        "hook p@local:PreToolUse:0: reply is larger than the 1 MiB stdout cap"
    );
}

#[test]
fn matchers_apply_to_tool_events_only_and_an_invalid_one_matches_all() {
    let env = test_env();
    let log = env.root().join("log");
    let hooks = json!({
        "PreToolUse": [
            {"command": log_line(&log, "write-or-edit"), "matcher": "writeFile|edit"},
            {"command": log_line(&log, "anchored"), "matcher": "^shell$"},
            {"command": log_line(&log, "invalid"), "matcher": "(["},
        ],
        "UserPromptSubmit": [{"command": log_line(&log, "prompt"), "matcher": "nothing-matches"}],
    });
    let dir = plugin(&project_plugins(&env).join("p"), "p", &hooks);

    let out = pre_tool(&env, &[], "editFile");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(log_of(&log), ["write-or-edit", "invalid"]);
    assert_eq!(out.result("p@local:PreToolUse:1"), "skipped");
    assert_eq!(
        out.warnings(),
        [format!(
            "{}:16:20: hooks.matcher-invalid: hooks.PreToolUse[2].matcher: invalid matcher regex `([`; the hook runs for every tool",
            dir.join("plugin.json").display()
        )]
    );

    fs::remove_file(&log).expect("rm");
    let out = emit(&env, &["UserPromptSubmit"], r#"{"prompt":"hi"}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(log_of(&log), ["prompt"]);
}

/// Replaces the test's directory in `text`, for snapshots.
fn redact(env: &TestEnv, text: &str) -> String {
    env.redact(text)
}

#[test]
fn exact_stdin_of_x_code_hooks() {
    let env = test_env();
    let dump = |name: &str| {
        let path = env.root().join(name);
        format!("cat > {}", quoted(&path))
    };
    record_install(&env, "anthropic-marketplace", "linear", "1.2.0");
    plugin(
        &xcode_plugins(&env).join("cache/anthropic-marketplace/linear/1.2.0"),
        "linear",
        &json!({
            "PreToolUse": [{"command": dump("pre")}],
            "PostToolUse": [{"command": dump("post")}],
            "UserPromptSubmit": [{"command": dump("prompt")}],
            "TurnComplete": [{"command": dump("turn")}],
        }),
    );
    let session = json!({"id": "s1", "model": "anthropic:claude-sonnet-4-6"});
    let tool = json!({"name": "writeFile", "input": {"path": "src/foo.ts", "content": "..."},
                      "call_id": "call_abc123", "output": "wrote 42 bytes", "is_error": false});
    for (event, payload) in [
        ("PreToolUse", json!({"session": session, "tool": tool})),
        ("PostToolUse", json!({"session": session, "tool": tool})),
        (
            "UserPromptSubmit",
            json!({"session": session, "prompt": "Refactor X to do Y"}),
        ),
        (
            "TurnComplete",
            json!({"session": session, "turn": 3, "message": "done",
            "tokenUsage": {"inputTokens": 4321, "outputTokens": 567, "totalTokens": 4888}}),
        ),
    ] {
        let out = emit(&env, &[event], &payload.to_string());
        assert_eq!(out.code, 0, "{event}: {}", out.stderr);
    }
    for name in ["pre", "post", "prompt", "turn"] {
        let bytes = fs::read_to_string(env.root().join(name)).expect("the hook ran");
        assert!(!bytes.ends_with('\n'), "no trailing newline");
        insta::assert_snapshot!(format!("xcode_stdin_{name}"), redact(&env, &bytes));
    }
}

#[test]
fn pre_tool_use_last_object_args_wins_and_each_hook_sees_the_previous() {
    let env = test_env();
    let log = env.root().join("seen");
    let root = project_plugins(&env);
    let seen = format!("cat >> {}; echo >> {}", quoted(&log), quoted(&log));
    plugin(
        &root.join("a"),
        "a",
        &json!({"PreToolUse": [
            {"command": format!("{seen}; echo '{}'", json!({"decision": "modify", "args": {"path": "first"}}))},
            {"command": format!("{seen}; echo '{}'", json!({"decision": "modify", "args": "not an object"}))},
        ]}),
    );
    plugin(
        &root.join("b"),
        "b",
        &json!({"PreToolUse": [
            {"command": format!("{seen}; echo '{}'", json!({"decision": "modify", "args": {"path": "second"}, "context": "ignored"}))},
            {"command": format!("{seen}; echo '{}'", json!({"decision": "allow"}))},
        ]}),
    );

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.outcome["payload"]["tool"],
        json!({"name": "edit", "input": {"path": "second"}})
    );
    assert_eq!(out.outcome["context"], json!([]));
    let args: Vec<Value> = log_of(&log)
        .iter()
        .map(|line| serde_json::from_str::<Value>(line).expect("json")["tool"]["args"].clone())
        .collect();
    assert_eq!(
        args,
        [
            json!({"path": "a.ts"}),
            json!({"path": "first"}),
            json!({"path": "first"}),
            json!({"path": "second"})
        ]
    );
    assert_eq!(
        out.warnings(),
        ["hook a@local:PreToolUse:1: `args` ignored: it must be a JSON object"]
    );
    assert_eq!(out.result("a@local:PreToolUse:1"), "allow");
    assert_eq!(out.result("b@local:PreToolUse:0"), "modify");
}

#[test]
fn a_deny_stops_the_rest_in_registration_order() {
    let env = test_env();
    let log = env.root().join("log");
    let root = project_plugins(&env);
    // Event key order inside a plugin: UserPromptSubmit is declared before PreToolUse,
    // which does not matter for one event, so the order shown is plugin then entry.
    plugin(
        &root.join("a"),
        "a",
        &json!({"PreToolUse": [
            replying(&log, "a0", &json!({"decision": "allow"})),
            replying(&log, "a1", &json!({"decision": "deny", "reason": "Editing prod config is forbidden"})),
        ]}),
    );
    plugin(
        &root.join("b"),
        "b",
        &json!({"PreToolUse": [replying(&log, "b0", &json!({"decision": "allow"}))]}),
    );

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(log_of(&log), ["a0", "a1"]);
    assert_eq!(out.outcome["reason"], "Editing prod config is forbidden");
    assert_eq!(out.outcome["decided_by"], "a@local:PreToolUse:1");
    assert_eq!(out.result("b@local:PreToolUse:0"), "skipped");
}

#[test]
fn post_tool_use_last_string_output_wins_and_deny_is_ignored() {
    let env = test_env();
    let log = env.root().join("log");
    plugin(
        &project_plugins(&env).join("p"),
        "p",
        &json!({"PostToolUse": [
            replying(&log, "one", &json!({"decision": "modify", "output": "[redacted 1]"})),
            replying(&log, "two", &json!({"decision": "deny", "reason": "too late"})),
            replying(&log, "three", &json!({"decision": "modify", "output": "[redacted 2]"})),
            replying(&log, "four", &json!({"decision": "modify", "output": {"not": "a string"}})),
            {"command": "exit 9", "failurePolicy": "block"},
        ]}),
    );

    let out = emit(
        &env,
        &["PostToolUse"],
        &json!({"tool": {"name": "shell", "input": {}, "output": "secret"}}).to_string(),
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow");
    assert_eq!(log_of(&log), ["one", "two", "three", "four"]);
    assert_eq!(out.outcome["payload"]["tool"]["output"], "[redacted 2]");
    assert_eq!(
        out.warnings(),
        [
            "hook p@local:PostToolUse:1: deny ignored on PostToolUse: the tool already ran",
            "hook p@local:PostToolUse:3: `output` ignored: it must be a string",
            "hook exited 9",
        ]
    );
}

#[test]
fn user_prompt_submit_collects_context_in_order_and_a_deny_clears_it() {
    let env = test_env();
    let log = env.root().join("log");
    let root = project_plugins(&env);
    plugin(
        &root.join("a"),
        "a",
        &json!({"UserPromptSubmit": [
            replying(&log, "a", &json!({"decision": "allow", "context": "Current sprint: Sprint 42"})),
            replying(&log, "b", &json!({"decision": "modify", "context": "Sprint 42 in progress"})),
            replying(&log, "c", &json!({"decision": "allow"})),
        ]}),
    );

    let out = emit(&env, &["UserPromptSubmit"], r#"{"prompt":"hi"}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.outcome["context"],
        json!(["Current sprint: Sprint 42", "Sprint 42 in progress"])
    );
    assert_eq!(out.outcome["payload"]["prompt"], "hi");

    plugin(
        &root.join("b"),
        "b",
        &json!({"UserPromptSubmit": [
            replying(&log, "deny", &json!({"decision": "deny", "reason": "off topic"})),
        ]}),
    );
    let out = emit(&env, &["UserPromptSubmit"], r#"{"prompt":"hi"}"#);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["context"], json!([]));
    assert_eq!(out.outcome["reason"], "off topic");
}

#[test]
fn other_events_run_in_parallel_and_ignore_stdout() {
    let env = test_env();
    let (a, b) = (env.root().join("a-started"), env.root().join("b-started"));
    // Each hook waits (up to 4 s) for the other to have started: run one after the other,
    // the first would time out.
    let wait_for = |mine: &Path, other: &Path| {
        format!(
            "touch {}; i=0; while [ ! -e {} ] && [ $i -lt 40 ]; do {} 0.1; i=$((i+1)); done; \
             [ -e {} ] && echo '{{\"decision\":\"deny\",\"reason\":\"no\"}}'",
            quoted(mine),
            quoted(other),
            env.marked_sleep().display(),
            quoted(other)
        )
    };
    plugin(
        &project_plugins(&env).join("p"),
        "p",
        &json!({"SessionStart": [
            {"command": wait_for(&a, &b), "timeout": 10000},
            {"command": wait_for(&b, &a), "timeout": 10000},
        ]}),
    );

    let out = emit(&env, &["SessionStart"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("p@local:SessionStart:0"), "allow");
    assert_eq!(out.result("p@local:SessionStart:1"), "allow");
    assert!(out.warnings().is_empty(), "{:?}", out.warnings());
}

#[test]
fn unparsable_replies_allow_with_a_warning() {
    let env = test_env();
    plugin(
        &project_plugins(&env).join("p"),
        "p",
        &json!({"PreToolUse": [
            {"command": "echo 'not json'"},
            {"command": "echo '{\"decision\":\"ask\"}'"},
            {"command": "echo '{\"decision\":\"allow\"} {}'"},
            {"command": "printf '  \\n {\"decision\":\"deny\",\"reason\":\"trimmed\"} \\n'"},
        ]}),
    );

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["reason"], "trimmed");
    let expected: Vec<String> = (0..3)
        .map(|i| format!("hook p@local:PreToolUse:{i}: reply is not a JSON object with decision allow, deny or modify; treated as allow"))
        .collect();
    assert_eq!(out.warnings(), expected);
}

#[test]
fn emit_dialect_xcode_reads_x_code_s_payload() {
    let env = test_env();
    let seen = env.root().join("seen");
    plugin(
        &project_plugins(&env).join("p"),
        "p",
        &json!({
            "UserPromptSubmit": [
                {"command": format!("cat > {}; echo '{}'", quoted(&seen), json!({"decision": "allow", "context": "one"}))},
                {"command": format!("echo '{}'", json!({"decision": "modify", "context": "two"}))},
            ],
            "PreToolUse": [
                {"command": format!("cat > {}; echo '{}'", quoted(&seen), json!({"decision": "modify", "args": {"path": "/safer"}}))},
            ],
        }),
    );
    let input = json!({
        "event": "PreToolUse",
        "session": {"cwd": env.project(), "modelId": "anthropic:claude-sonnet-4-6"},
        "plugin": {"id": "host@local", "dir": "/nowhere"},
        "tool": {"name": "writeFile", "args": {"path": "src/foo.ts"}, "callId": "call_1"},
    });

    let out = emit(&env, &["--dialect", "xcode"], &input.to_string());

    // The answer is x-code's own reply; the Outcome is in the ledger.
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.outcome,
        json!({"decision": "modify", "args": {"path": "/safer"}})
    );
    let runs = env.run(["runs", "--json", "--limit", "1"], b"");
    let runs: Value = serde_json::from_slice(&runs.stdout).expect("runs JSON");
    let why = env.run(
        [
            "why",
            runs[0]["run_id"].as_str().expect("a run id"),
            "--json",
        ],
        b"",
    );
    let why: Value = serde_json::from_slice(&why.stdout).expect("why JSON");
    assert_eq!(why["event"], "tool.before", "{why:#}");
    assert_eq!(
        serde_json::from_str::<Value>(why["payload_out"].as_str().expect("text")).expect("JSON"),
        json!({
            "session": {"cwd": env.project(), "model": "anthropic:claude-sonnet-4-6"},
            "tool": {"name": "writeFile", "input": {"path": "/safer"}, "call_id": "call_1"},
        })
    );
    let hook_saw: Value =
        serde_json::from_str(&fs::read_to_string(&seen).expect("ran")).expect("json");
    assert_eq!(
        hook_saw,
        json!({
            "event": "PreToolUse",
            "session": {"cwd": env.project(), "modelId": "anthropic:claude-sonnet-4-6"},
            "plugin": {"id": "p@local", "dir": project_plugins(&env).join("p")},
            "tool": {"name": "writeFile", "args": {"path": "src/foo.ts"}, "callId": "call_1"},
        })
    );

    // The context list is kept apart: an x-code host joins it with a blank line.
    let input = json!({"event": "UserPromptSubmit", "session": {"cwd": env.project()}, "prompt": "Refactor X"});
    let out = emit(&env, &["--dialect", "xcode"], &input.to_string());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.outcome,
        json!({"decision": "allow", "context": "one\n\ntwo"})
    );

    // The EVENT argument wins over the payload's, and no event at all is an error.
    let out = emit(
        &env,
        &["--dialect", "xcode", "SessionStart"],
        &input.to_string(),
    );
    assert_eq!(out.outcome, json!({"decision": "allow"}));
    let runs = env.run(["runs", "--json", "--limit", "1"], b"");
    let runs: Value = serde_json::from_slice(&runs.stdout).expect("runs JSON");
    assert_eq!(runs[0]["event"], "session.start");
    let out = emit(&env, &["--dialect", "xcode"], "{}");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("no event"), "{}", out.stderr);
}

#[test]
fn debug_log_lines_name_the_plugin_and_the_x_code_event() {
    let env = test_env();
    plugin(
        &project_plugins(&env).join("p"),
        "p",
        &json!({"PreToolUse": [
            {"command": "echo '{\"decision\":\"modify\",\"args\":{}}'", "matcher": "(["},
            {"command": "exit 3"},
            {"command": format!("{} 5", env.marked_sleep().display()), "timeout": 100},
            {"command": "echo ${pluginDataDir}"},
        ]}),
    );
    // A file where the data directory should be: it cannot be created.
    put(&env.data_home().join("hookrig/plugin-data"), "");

    let mut command = env.command(["emit", "PreToolUse"]);
    command.env("HOOKRIG_LOG", "debug");
    let output = hookrig_test_support::run_with_input(
        command,
        br#"{"tool":{"name":"edit"}}"#,
        hookrig_test_support::HANG_LIMIT,
    );

    let stderr = String::from_utf8_lossy(&output.stderr);
    for line in [
        "hooks.matcher-invalid p@local PreToolUse: matcher \"([\" is not a valid regex; matching every tool",
        "hooks.exec-ran p@local PreToolUse: decision=modify",
        "hooks.exec-nonzero p@local PreToolUse: exit 3: hook exited 3",
        "hooks.exec-timeout p@local PreToolUse: hook timed out after 100ms",
        "hooks.exec-error p@local PreToolUse: hook p@local:PreToolUse:3: cannot create the plugin data directory",
    ] {
        assert!(stderr.contains(line), "no `{line}` in:\n{stderr}");
    }
}

// guards: as an x-code plugin's one hook, hookrig's deny (exit 2) was read by x-code as
// a failed hook and let through, and its rewrites never reached x-code
#[test]
fn emit_dialect_xcode_answers_in_x_code_s_reply_with_exit_0() {
    let env = test_env();
    plugin(
        &project_plugins(&env).join("p"),
        "p",
        &json!({
            "PreToolUse": [{"command": "echo '{\"decision\":\"deny\",\"reason\":\"no writes\"}'"}],
            "PostToolUse": [{"command": "echo '{\"decision\":\"modify\",\"output\":\"[redacted]\"}'"}],
        }),
    );
    let session = json!({"cwd": env.project()});
    let out = emit(
        &env,
        &["--dialect", "xcode"],
        &json!({"event": "PreToolUse", "session": session, "tool": {"name": "writeFile", "args": {}}})
            .to_string(),
    );
    assert_eq!(out.code, 0, "the deny travels in the JSON: {}", out.stderr);
    assert_eq!(
        out.outcome,
        json!({"decision": "deny", "reason": "no writes"})
    );

    let out = emit(
        &env,
        &["--dialect", "xcode"],
        &json!({"event": "PostToolUse", "session": session,
                "tool": {"name": "readFile", "args": {}, "output": "secret"}})
        .to_string(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.outcome,
        json!({"decision": "modify", "output": "[redacted]"})
    );

    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "confirm"
        events = ["tool.before"]
        command = "echo '{\"decision\":\"ask\",\"reason\":\"sure?\"}'"
    "#});
    let out = emit(
        &env,
        &["--dialect", "xcode"],
        &json!({"event": "PreToolUse", "session": session, "tool": {"name": "bash", "args": {}}})
            .to_string(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "deny");
}

// guards: a host that sends the flat form (`tool_name` / `tool_input`) must not make an
// x-code guard fail open: the hook gets its `tool` object and its deny stands
#[test]
fn a_flat_form_payload_reaches_an_xcode_guard_as_its_tool() {
    let env = test_env();
    let guard = indoc! {r#"
        input=$(cat)
        case "$input" in
          *'"tool":{'*'"name":"bash"'*'rm -rf'*) echo '{"decision":"deny","reason":"no rm -rf"}' ;;
          *'"tool":{'*) echo '{"decision":"allow"}' ;;
          *) exit 1 ;;
        esac
    "#};
    plugin(
        &project_plugins(&env).join("gate"),
        "gate",
        &json!({"PreToolUse": [{"command": guard}]}),
    );

    let out = emit(
        &env,
        &["tool.before"],
        r#"{"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}"#,
    );

    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["reason"], "no rm -rf");
}

/// A native project hook and a project x-code plugin, both on `PreToolUse`, each leaving a
/// line in `log` when it runs; the plugin also denies.
fn a_hook_and_a_plugin(env: &TestEnv) -> PathBuf {
    let log = env.root().join("log");
    env.write_project_config(&format!(
        "[[hooks]]\nname = \"native\"\nevents = [\"tool.before\"]\ncommand = {:?}\n",
        log_line(&log, "native")
    ));
    plugin(
        &project_plugins(env).join("gate"),
        "gate",
        &json!({"PreToolUse": [replying(&log, "plugin", &json!({"decision": "deny", "reason": "no"}))]}),
    );
    log
}

// guards: `emit --no-hooks` (x-code's switch to find a hanging hook) loads every hook
// and plugin, runs none, and the Outcome says hooks were suppressed
#[test]
fn no_hooks_loads_everything_and_runs_nothing() {
    let env = test_env();
    let log = a_hook_and_a_plugin(&env);

    let out = pre_tool(&env, &["--no-hooks"], "edit");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow");
    assert!(log_of(&log).is_empty(), "{:?}", log_of(&log));
    assert_eq!(
        out.results(),
        [
            ("native".to_owned(), "skipped".to_owned()),
            ("gate@local:PreToolUse:0".to_owned(), "skipped".to_owned()),
        ]
    );
    assert!(
        out.has_warning(
            "hooks suppressed (--no-hooks or HOOKRIG_NO_HOOKS): 2 hooks of tool.before not run"
        ),
        "{:?}",
        out.warnings()
    );
    let why = crate::harness::why_text(&env, &out.run_id());
    assert!(why.contains("hooks suppressed"), "{why}");

    // The same through the environment; `HOOKRIG_NO_HOOKS=0` does not suppress.
    let mut command = env.command(["emit", "PreToolUse"]);
    command.env("HOOKRIG_NO_HOOKS", "1");
    let payload = json!({"tool": {"name": "edit"}}).to_string();
    let out = crate::harness::emitted(&hookrig_test_support::run_with_input(
        command,
        payload.as_bytes(),
        hookrig_test_support::HANG_LIMIT,
    ));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(log_of(&log).is_empty(), "{:?}", log_of(&log));
    let mut command = env.command(["emit", "PreToolUse"]);
    command.env("HOOKRIG_NO_HOOKS", "0");
    let out = crate::harness::emitted(&hookrig_test_support::run_with_input(
        command,
        payload.as_bytes(),
        hookrig_test_support::HANG_LIMIT,
    ));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(log_of(&log), ["native", "plugin"]);
}

// guards: `emit --no-plugins` loads nothing from plugins, and the other hooks still run
#[test]
fn no_plugins_loads_no_plugin_and_runs_the_other_hooks() {
    let env = test_env();
    let log = a_hook_and_a_plugin(&env);
    let dev = plugin(
        &env.root().join("dev"),
        "dev",
        &json!({"PreToolUse": [{"command": log_line(&log, "dev")}]}),
    );

    let out = pre_tool(
        &env,
        &["--no-plugins", "--plugin-dir", dev.to_str().expect("utf-8")],
        "edit",
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(log_of(&log), ["native"]);
    assert_eq!(out.results(), [("native".to_owned(), "allow".to_owned())]);
    assert!(
        out.has_warning("plugins not loaded (--no-plugins)"),
        "{:?}",
        out.warnings()
    );
}

// guards: `--debug-hooks` (the quiet x-code `--plugin-debug`) prints the hook-run lines
// and nothing else of the debug log
#[test]
fn debug_hooks_prints_only_the_hook_run_lines() {
    let env = test_env();
    let log = a_hook_and_a_plugin(&env);

    let out = pre_tool(&env, &["--debug-hooks"], "edit");

    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(log_of(&log), ["native", "plugin"]);
    // Every line is a hook line: the runs, and what the hooks printed.
    assert!(
        out.stderr
            .lines()
            .all(|line| line.starts_with("hooks.exec-")),
        "{}",
        out.stderr
    );
    let lines: Vec<&str> = out
        .stderr
        .lines()
        .filter(|line| line.starts_with("hooks.exec-ran "))
        .collect();
    assert_eq!(lines.len(), 2, "{}", out.stderr);
    assert!(
        lines[0].starts_with("hooks.exec-ran native tool.before: decision=allow ("),
        "{}",
        out.stderr
    );
    assert!(
        lines[1].starts_with("hooks.exec-ran gate@local PreToolUse: decision=deny ("),
        "{}",
        out.stderr
    );
    // `--debug` prints those lines among the rest.
    let full = pre_tool(&env, &["--debug"], "edit");
    assert!(full.stderr.lines().count() > 2, "{}", full.stderr);
    assert!(
        full.stderr.contains("hooks.exec-ran native"),
        "{}",
        full.stderr
    );
}

// guards: x-code's project plugins (`<project>/.x-code/plugins/<name>/`) load as
// `name@local`, and like every project source run only once the project is trusted
#[test]
fn x_code_project_plugins_load_as_local_and_wait_for_trust() {
    let env = test_env();
    let log = env.root().join("log");
    plugin(
        &xcode_project_plugins(&env).join("gate"),
        "gate",
        &json!({"PreToolUse": [replying(&log, "gate", &json!({"decision": "deny", "reason": "no"}))]}),
    );
    let payload = json!({"tool": {"name": "edit"}}).to_string();

    let untrusted = crate::harness::emit_untrusted(&env, &["PreToolUse"], &payload);
    assert_eq!(untrusted.code, 0, "{}", untrusted.stderr);
    assert_eq!(untrusted.result("gate@local:PreToolUse:0"), "untrusted");
    assert!(
        untrusted.has_warning("hookrig trust"),
        "{:?}",
        untrusted.warnings()
    );
    assert!(log_of(&log).is_empty());

    let trusted = env.run_untrusted(["trust"], b"");
    assert_eq!(
        trusted.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&trusted.stderr)
    );
    let out = crate::harness::emit_untrusted(&env, &["PreToolUse"], &payload);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["decided_by"], "gate@local:PreToolUse:0");
    assert_eq!(log_of(&log), ["gate"]);
}

// guards: the version x-code recorded as installed runs, not the newest directory in its
// cache, and a cached plugin without a record does not run at all
#[test]
fn the_installed_version_runs_not_the_newest_directory() {
    let env = test_env();
    let log = env.root().join("log");
    let entry = |word: &str| json!({"PreToolUse": [{"command": log_line(&log, word)}]});
    let cache = xcode_plugins(&env).join("cache/market");
    plugin(
        &cache.join("pinned/1.0.0"),
        "pinned",
        &entry("pinned-1.0.0"),
    );
    plugin(
        &cache.join("pinned/2.0.0"),
        "pinned",
        &entry("pinned-2.0.0"),
    );
    plugin(&cache.join("orphan/1.0.0"), "orphan", &entry("orphan"));
    record_install(&env, "market", "pinned", "1.0.0");
    record_install(&env, "market", "gone", "3.0.0");

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(log_of(&log), ["pinned-1.0.0"]);
    assert_eq!(
        out.hook("pinned@market:PreToolUse:0")["source"],
        cache.join("pinned/1.0.0/plugin.json").display().to_string()
    );
    assert!(
        out.has_warning("gone@market 3.0.0 is recorded as installed, but"),
        "{:?}",
        out.warnings()
    );

    // No record at all: x-code runs nothing from its cache, and says so here.
    fs::remove_file(xcode_plugins(&env).join("installed_plugins.json")).expect("rm");
    let out = pre_tool(&env, &[], "edit");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(log_of(&log), ["pinned-1.0.0"]);
    assert!(
        out.has_warning(
            "no installed_plugins.json beside it: x-code runs none of the 2 cached plugins"
        ),
        "{:?}",
        out.warnings()
    );
}

// guards: a plugin x-code's `enabledPlugins` switches off does not run; a repository's
// `.x-code/settings.local.json` may switch off its own plugins but never the user's
#[test]
fn enabled_plugins_are_honoured_and_a_project_cannot_switch_off_yours() {
    let env = test_env();
    let log = env.root().join("log");
    let cache = xcode_plugins(&env).join("cache/market");
    plugin(
        &cache.join("guard/1.0.0"),
        "guard",
        &json!({"PreToolUse": [replying(&log, "guard", &json!({"decision": "deny", "reason": "guarded"}))]}),
    );
    plugin(
        &cache.join("off/1.0.0"),
        "off",
        &json!({"PreToolUse": [{"command": log_line(&log, "off")}]}),
    );
    record_install(&env, "market", "guard", "1.0.0");
    record_install(&env, "market", "off", "1.0.0");
    put(
        &env.home().join(".x-code/settings.json"),
        &json!({"enabledPlugins": {"off@market": false, "guard@market": true}}).to_string(),
    );
    plugin(
        &xcode_project_plugins(&env).join("mine"),
        "mine",
        &json!({"PreToolUse": [{"command": log_line(&log, "mine")}]}),
    );
    let settings = env.project().join(".x-code/settings.local.json");
    put(
        &settings,
        &json!({"enabledPlugins": {"guard@market": false, "mine@local": false}}).to_string(),
    );

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["decided_by"], "guard@market:PreToolUse:0");
    assert_eq!(log_of(&log), ["guard"]);
    assert_eq!(
        out.results(),
        [
            ("guard@market:PreToolUse:0".to_owned(), "deny".to_owned()),
            ("off@market:PreToolUse:0".to_owned(), "skipped".to_owned()),
            ("mine@local:PreToolUse:0".to_owned(), "skipped".to_owned()),
        ]
    );
    assert!(
        out.has_warning(&format!(
            "{}: enabledPlugins: `guard@market` is one of your own plugins; a project cannot disable it",
            settings.display()
        )),
        "{:?}",
        out.warnings()
    );
}

// guards: `$X_CODE_HOME/plugins/local/`, which x-code never reads, is not loaded, and
// a plugin left there is reported
#[test]
fn x_code_home_plugins_local_is_not_read() {
    let env = test_env();
    let log = env.root().join("log");
    plugin(
        &xcode_plugins(&env).join("local/mine"),
        "mine",
        &json!({"PreToolUse": [{"command": log_line(&log, "mine")}]}),
    );

    let out = pre_tool(&env, &[], "edit");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(log_of(&log).is_empty());
    assert!(
        out.has_warning("x-code does not read this directory"),
        "{:?}",
        out.warnings()
    );
}
