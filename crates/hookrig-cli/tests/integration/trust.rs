//! Trust: project hooks run only once `hookrig trust` has approved them as they are,
//! and stop running when their definition or script changes.
//!
//! These tests run hookrig without `hookrig trust --any-project` (which
//! [`TestEnv::command`] switches on) unless they test that switch.

use std::path::{Path, PathBuf};
use std::process::Output;

use hookrig_test_support::{HANG_LIMIT, TestEnv, run_with_input};
use indoc::indoc;
use serde_json::json;

use crate::harness::{Emitted, code, emit_untrusted, test_env, text};

/// A project hook `mark` that runs `.hookrig/mark.sh`, which writes the file `marker`.
fn project_with_marking_hook(env: &TestEnv) {
    env.write_script(".hookrig/mark.sh", "touch marker\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "mark"
        events = ["tool.before"]
        command = "./mark.sh"
        timeout = "5s"
    "#});
}

/// `hookrig ARGS...` run in the project untrusted; fails the test
/// unless it exits 0.
fn untrusted_ok(env: &TestEnv, args: &[&str]) -> String {
    let output = env.run_untrusted(args, b"");
    assert_eq!(
        code(&output),
        0,
        "hookrig {args:?} failed: {}",
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// `hookrig trust` in the project.
fn trust(env: &TestEnv) -> String {
    untrusted_ok(env, &["trust"])
}

/// Emits `tool.before` untrusted, and whether the marker appeared
/// (removing it for the next emit).
fn emit_and_mark(env: &TestEnv) -> (Emitted, bool) {
    let out = emit_untrusted(env, &["tool.before"], "{}");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let marker = env.project().join("marker");
    let ran = marker.exists();
    if ran {
        std::fs::remove_file(&marker).expect("remove the marker");
    }
    (out, ran)
}

/// Checks that `mark` was reported untrusted, not run, with a warning that names
/// `hookrig trust <project>` and contains `why`.
fn assert_untrusted(env: &TestEnv, out: &Emitted, ran: bool, why: &str) {
    assert!(!ran, "an untrusted hook must not run");
    assert_eq!(out.result("mark"), "untrusted");
    assert_eq!(out.outcome["decision"], "allow");
    let command = format!("`hookrig trust {}`", env.project().display());
    let warning = out
        .warnings()
        .into_iter()
        .find(|w| w.starts_with("hook mark was not run: "))
        .unwrap_or_else(|| panic!("no warning about `mark`: {:?}", out.warnings()));
    assert!(warning.contains(&command), "{warning}");
    assert!(warning.contains(why), "expected {why:?} in {warning}");
}

fn assert_ran(out: &Emitted, ran: bool) {
    assert!(ran, "a trusted hook runs: {:#}", out.outcome);
    assert_eq!(out.result("mark"), "allow");
    assert!(
        !out.has_warning("hookrig trust"),
        "no trust warning: {:?}",
        out.warnings()
    );
}

#[test]
fn a_project_hook_runs_only_after_trust() {
    let env = test_env();
    project_with_marking_hook(&env);

    let (out, ran) = emit_and_mark(&env);
    assert_untrusted(&env, &out, ran, "not trusted yet");
    assert_eq!(
        out.outcome["hooks"].as_array().map(Vec::len),
        Some(1),
        "listed, never silently dropped"
    );

    let trusted = trust(&env);
    assert!(trusted.contains("trusted mark (native, "), "{trusted}");
    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);

    // Trusting again changes nothing and says so.
    assert!(trust(&env).contains("already trusted mark"));
    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);
}

#[test]
fn a_changed_script_is_untrusted_again() {
    let env = test_env();
    project_with_marking_hook(&env);
    trust(&env);

    env.write_script(".hookrig/mark.sh", "touch marker\necho changed >&2\n");
    let (out, ran) = emit_and_mark(&env);
    assert_untrusted(&env, &out, ran, "its script changed since it was trusted");

    trust(&env);
    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);
}

#[test]
fn a_changed_definition_is_untrusted_again() {
    let env = test_env();
    project_with_marking_hook(&env);
    trust(&env);

    let config = env.project_config_path();
    let toml = std::fs::read_to_string(&config).expect("read the config");
    env.write_project_config(&toml.replace("timeout = \"5s\"", "timeout = \"6s\""));
    let (out, ran) = emit_and_mark(&env);
    assert_untrusted(
        &env,
        &out,
        ran,
        "its definition changed since it was trusted",
    );

    trust(&env);
    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);
}

#[test]
fn trust_list_shows_trusted_hooks_and_revoke_forgets_them() {
    let env = test_env();
    project_with_marking_hook(&env);
    assert_eq!(
        untrusted_ok(&env, &["trust", "--list"]),
        "(no trusted project hooks)\n"
    );
    trust(&env);

    let list = untrusted_ok(&env, &["trust", "--list"]);
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["NAME", "DIALECT", "SOURCE"]
    );
    assert_eq!(
        lines[1].split_whitespace().collect::<Vec<_>>(),
        [
            "mark",
            "native",
            env.project_config_path().to_str().expect("UTF-8")
        ]
    );
    assert_eq!(lines.len(), 2, "{list}");
    // The hook's text is kept beside the store for a later review, and goes with it.
    let texts = env.state_home().join("hookrig/trusted-text");
    let kept = || std::fs::read_dir(&texts).map_or(0, Iterator::count);
    assert_eq!(kept(), 1);

    let revoked = untrusted_ok(&env, &["trust", "--revoke"]);
    assert_eq!(
        revoked,
        format!(
            "revoked trust in 1 hook under {}\n",
            env.project().display()
        )
    );
    assert_eq!(kept(), 0, "the text of a revoked hook is forgotten");
    let (out, ran) = emit_and_mark(&env);
    assert_untrusted(&env, &out, ran, "not trusted yet");
    assert_eq!(
        untrusted_ok(&env, &["trust", "--list"]),
        "(no trusted project hooks)\n"
    );
}

/// Runs `command` (made by the `TestEnv`) in `dir` instead of the project.
fn run_in(dir: &Path, mut command: std::process::Command) -> Output {
    command.current_dir(dir);
    run_with_input(command, b"", HANG_LIMIT)
}

#[test]
fn trust_dir_from_another_working_directory() {
    let env = test_env();
    project_with_marking_hook(&env);
    let project = env.project();
    let elsewhere = env.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("create another directory");

    let project_arg = project.to_str().expect("UTF-8");
    let output = run_in(&elsewhere, env.untrusted_command(["trust", project_arg]));
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("trusted mark"));

    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);

    let output = run_in(
        &elsewhere,
        env.untrusted_command(["trust", "--revoke", project_arg]),
    );
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let (out, ran) = emit_and_mark(&env);
    assert_untrusted(&env, &out, ran, "not trusted yet");
}

// guards: `trust --revoke` in a directory outside any repository revoked the trust of
// every project (it revoked everything under the top of the walk, which is `/`).
#[test]
fn revoke_outside_a_repository_keeps_other_projects_trusted() {
    let env = test_env();
    project_with_marking_hook(&env);
    trust(&env);
    // A project without `.git`: its walk goes up to `/`.
    let loose = env.root().join("loose");
    std::fs::create_dir_all(loose.join(".hookrig")).expect("create a loose project");
    std::fs::write(
        loose.join(".hookrig/hooks.toml"),
        indoc! {r#"
            [[hooks]]
            name = "loose"
            events = ["tool.before"]
            exec = ["true"]
        "#},
    )
    .expect("write its config");
    let output = run_in(&loose, env.untrusted_command(["trust"]));
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));

    let output = run_in(&loose, env.untrusted_command(["trust", "--revoke"]));
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        format!("revoked trust in 1 hook under {}\n", loose.display())
    );

    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);
}

// guards: `hookrig trust --any-project` (a container's or CI's switch) runs every
// project's hooks without a per-project trust, records no hook, shows in `--list`,
// and `--any-project --revoke` brings back trust one project at a time
#[test]
fn trust_any_project_runs_every_project_hook_until_revoked() {
    let env = test_env();
    project_with_marking_hook(&env);
    let (out, ran) = emit_and_mark(&env);
    assert_untrusted(&env, &out, ran, "not trusted yet");

    let said = text(
        &env.command_as_trusted_now(["trust", "--any-project"])
            .output()
            .expect("runs")
            .stdout,
    );
    assert!(
        said.contains("every project's hooks are now trusted"),
        "{said}"
    );
    let run = |args: &[&str]| {
        let output = run_with_input(env.command_as_trusted_now(args), b"{}", HANG_LIMIT);
        assert_eq!(code(&output), 0, "{}", text(&output.stderr));
        text(&output.stdout)
    };
    let listed = run(&["trust", "--list"]);
    assert!(
        listed.contains("every project is trusted on this machine"),
        "{listed}"
    );
    assert!(listed.contains("(no trusted project hooks)"), "{listed}");
    run(&["emit", "tool.before"]);
    assert!(
        env.project().join("marker").exists(),
        "the project hook ran"
    );
    std::fs::remove_file(env.project().join("marker")).expect("remove the marker");

    run(&["trust", "--any-project", "--revoke"]);
    run(&["emit", "tool.before"]);
    assert!(!env.project().join("marker").exists(), "untrusted again");
}

// guards: a variable is no way to trust a project: a repository can set the host's
// variables (Claude Code's project `env`, Gemini CLI's project `.env`), so
// HOOKRIG_TRUST_ALL, which hookrig once read, must change nothing
#[test]
fn a_variable_cannot_trust_a_project() {
    let env = test_env();
    project_with_marking_hook(&env);
    let mut command = env.untrusted_command(["emit", "tool.before"]);
    command.env("HOOKRIG_TRUST_ALL", "1");
    let out = crate::harness::emitted(&run_with_input(command, b"{}", HANG_LIMIT));
    let ran = env.project().join("marker").exists();
    assert_untrusted(&env, &out, ran, "not trusted yet");
}

// guards: the variables naming the user's own files (a host's managed, system or
// enterprise settings, Codex's home, the ledger with its registered plugins) count only
// as absolute paths: a relative one, which a repository can set, would name a file of
// the project and have it trusted as the user's. Each file is first shown to run its
// hook when named absolutely, so that the refusal is of the relative name alone.
#[test]
fn relative_paths_in_variables_cannot_make_project_files_the_users_own() {
    let env = test_env();
    let mark = |name: &str| env.project().join(name);
    let hook = |name: &str| format!("touch '{}'", mark(name).display());
    let claude = json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": hook("m-claude")}]}]}});
    let codex = json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": hook("m-codex")}]}]}});
    let gemini = json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": hook("m-gemini")}]}]}});
    let cursor = json!({"version": 1, "hooks": {"preToolUse": [{"command": hook("m-cursor")}]}});
    let cases = [
        (
            "HOOKRIG_CLAUDE_MANAGED_SETTINGS",
            ".x/managed.json",
            "",
            claude,
            "m-claude",
        ),
        (
            "CODEX_HOME",
            ".x/codex-home",
            "hooks.json",
            codex.clone(),
            "m-codex",
        ),
        (
            "HOOKRIG_CODEX_SYSTEM_DIR",
            ".x/codex-system",
            "hooks.json",
            codex,
            "m-codex",
        ),
        (
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
            ".x/gemini.json",
            "",
            gemini.clone(),
            "m-gemini",
        ),
        (
            "GEMINI_CLI_SYSTEM_DEFAULTS_PATH",
            ".x/gemini-defaults.json",
            "",
            gemini,
            "m-gemini",
        ),
        (
            "HOOKRIG_CURSOR_ENTERPRISE_HOOKS",
            ".x/cursor.json",
            "",
            cursor,
            "m-cursor",
        ),
    ];
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}).to_string();
    for (variable, named, file, content, marker) in cases {
        let path = env.project().join(named);
        let file_path = if file.is_empty() {
            path.clone()
        } else {
            path.join(file)
        };
        std::fs::create_dir_all(file_path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&file_path, content.to_string()).expect("write");
        let marker = mark(marker);
        for (value, runs) in [(path.clone(), true), (PathBuf::from(named), false)] {
            let mut command = env.untrusted_command(["emit", "tool.before"]);
            command.env(variable, &value);
            let output = run_with_input(command, payload.as_bytes(), HANG_LIMIT);
            assert_eq!(code(&output), 0, "{variable}: {}", text(&output.stderr));
            assert_eq!(
                marker.exists(),
                runs,
                "{variable}={}: {}",
                value.display(),
                text(&output.stdout)
            );
            let _ = std::fs::remove_file(&marker);
        }
        std::fs::remove_dir_all(env.project().join(".x")).expect("clean up");
    }

    // A relative HOME is refused rather than read as the project's directory.
    let mut command = env.untrusted_command(["emit", "tool.before"]);
    command.env("HOME", ".");
    let output = run_with_input(command, payload.as_bytes(), HANG_LIMIT);
    assert_ne!(code(&output), 0);
    assert!(
        text(&output.stderr).contains("set HOME to an absolute path"),
        "{}",
        text(&output.stderr)
    );

    // A relative HOOKRIG_LEDGER leaves the ledger where it is by default.
    let mut command = env.untrusted_command(["emit", "tool.before"]);
    command.env("HOOKRIG_LEDGER", "project.db");
    let output = run_with_input(command, payload.as_bytes(), HANG_LIMIT);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(!env.project().join("project.db").exists());
    assert!(env.ledger_path().exists());
}

#[test]
fn global_hooks_run_without_trust() {
    let env = test_env();
    env.write_bin("global-mark", "touch global-marker\n");
    env.write_global_config(indoc! {r#"
        [[hooks]]
        name = "global"
        events = ["tool.before"]
        command = "global-mark"
    "#});

    let out = emit_untrusted(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("global"), "allow");
    assert!(env.read_file("global-marker").is_some());
    assert!(out.warnings().is_empty(), "{:?}", out.warnings());
}

#[test]
fn a_corrupt_trust_store_trusts_no_project_hook_and_keeps_global_hooks() {
    let env = test_env();
    project_with_marking_hook(&env);
    trust(&env);
    env.write_bin("global-mark", "touch global-marker\n");
    env.write_global_config(indoc! {r#"
        [[hooks]]
        name = "global"
        events = ["tool.before"]
        command = "global-mark"
    "#});
    let store = env.state_home().join("hookrig/trust.json");
    std::fs::write(&store, "{ not json \u{0} at all").expect("corrupt the store");

    let (out, ran) = emit_and_mark(&env);

    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert_untrusted(&env, &out, ran, "not trusted yet");
    assert_eq!(out.result("global"), "allow");
    assert!(env.read_file("global-marker").is_some());
    let warning = out
        .warnings()
        .into_iter()
        .find(|w| w.contains("trust.json"))
        .unwrap_or_else(|| panic!("no warning about the store: {:?}", out.warnings()));
    assert!(
        warning.starts_with(&format!("{}: ", store.display()))
            && warning.contains("not valid")
            && warning.contains("no project hook is trusted"),
        "{warning}"
    );

    // `trust` refuses to overwrite a store it cannot read, without panicking.
    let output = env.run_untrusted(["trust"], b"");
    assert_eq!(code(&output), 1, "{}", text(&output.stdout));
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with("hookrig: error: ") && stderr.contains("trust.json"),
        "{stderr}"
    );
}

// guards: a project hook whose script lies outside the project recorded no script hash,
// so the script could be changed after trust and still run.
#[test]
fn a_changed_script_outside_the_project_is_untrusted_again() {
    let env = test_env();
    let outside = env.write_bin("outside.sh", "touch marker\n");
    env.write_project_config(&format!(
        indoc! {r#"
            [[hooks]]
            name = "mark"
            events = ["tool.before"]
            command = "{}"
        "#},
        outside.display()
    ));
    trust(&env);
    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);

    env.write_bin("outside.sh", "touch marker\necho changed >&2\n");
    let (out, ran) = emit_and_mark(&env);
    assert_untrusted(&env, &out, ran, "its script changed since it was trusted");
}

/// Emits `tool.before` for the Bash tool untrusted; which of the
/// `markers` (files in the project) appeared, removing them.
fn emit_and_marks(env: &TestEnv, markers: &[&str]) -> (Emitted, Vec<String>) {
    let out = emit_untrusted(env, &["tool.before"], r#"{"tool":{"name":"Bash"}}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut ran = Vec::new();
    for marker in markers {
        let path = env.project().join(marker);
        if path.exists() {
            std::fs::remove_file(&path).expect("remove the marker");
            ran.push((*marker).to_owned());
        }
    }
    (out, ran)
}

// guards: trust recorded no script hash for Claude Code's usual
// `"$CLAUDE_PROJECT_DIR"/.claude/hook.sh`, so an edited script ran without a new trust.
#[test]
fn a_changed_claude_script_named_through_the_project_dir_is_untrusted_again() {
    let env = test_env();
    std::fs::create_dir_all(env.project().join(".git")).expect("make it a repository");
    env.write_script(".claude/hook.sh", "touch claude-marker\n");
    env.write_file(
        ".claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "", "hooks": [
            {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hook.sh"}
        ]}]}}"#,
    );
    trust(&env);
    let (_, ran) = emit_and_marks(&env, &["claude-marker"]);
    assert_eq!(ran, ["claude-marker"], "trusted, it runs");

    env.write_script(".claude/hook.sh", "touch claude-marker\ntouch edited\n");
    let (out, ran) = emit_and_marks(&env, &["claude-marker"]);
    assert!(ran.is_empty(), "the edited script must not run");
    assert!(!env.project().join("edited").exists());
    assert!(
        out.has_warning("its script changed since it was trusted"),
        "{:?}",
        out.warnings()
    );
}

// guards: trust recorded no script hash for Claude Code's unquoted
// `$CLAUDE_PROJECT_DIR/.claude/hook.sh` (the form its documentation also shows), so an
// edited script ran without a new trust.
#[test]
fn a_changed_claude_script_named_unquoted_through_the_project_dir_is_untrusted_again() {
    let env = test_env();
    env.write_script(".claude/hook.sh", "touch claude-marker\n");
    env.write_file(
        ".claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "", "hooks": [
            {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hook.sh"}
        ]}]}}"#,
    );
    trust(&env);
    let (_, ran) = emit_and_marks(&env, &["claude-marker"]);
    assert_eq!(ran, ["claude-marker"], "trusted, it runs");

    env.write_script(".claude/hook.sh", "touch claude-marker\ntouch edited\n");
    let (out, ran) = emit_and_marks(&env, &["claude-marker"]);
    assert!(ran.is_empty(), "the edited script must not run");
    assert!(!env.project().join("edited").exists());
    assert!(
        out.has_warning("its script changed since it was trusted"),
        "{:?}",
        out.warnings()
    );
}

// guards: trust recorded no script hash for x-code's `${pluginDir}/run.sh` and
// `sh ${pluginDir}/run.sh` in a project plugin, so an edited script ran.
#[test]
fn a_changed_x_code_plugin_script_is_untrusted_again() {
    edited_plugin_scripts_are_untrusted_again(".hookrig/plugins");
}

// guards: the same for a plugin in x-code's own project plugins directory,
// `<project>/.x-code/plugins/<name>/`: its edited `${pluginDir}/run.sh` must not run.
#[test]
fn a_changed_script_of_an_x_code_project_plugin_is_untrusted_again() {
    edited_plugin_scripts_are_untrusted_again(".x-code/plugins");
}

/// Two project plugins under `plugins` (relative to the project) whose hooks run
/// `${pluginDir}/run.sh` directly and through `sh`: trusted they run, and once their
/// scripts are edited neither runs and both are reported changed.
fn edited_plugin_scripts_are_untrusted_again(plugins: &str) {
    let env = test_env();
    std::fs::create_dir_all(env.project().join(".git")).expect("make it a repository");
    for (name, command) in [
        ("direct", "${pluginDir}/run.sh"),
        ("through-sh", "sh ${pluginDir}/run.sh"),
    ] {
        let dir = format!("{plugins}/{name}");
        env.write_script(format!("{dir}/run.sh"), &format!("touch {name}-marker\n"));
        env.write_file(
            format!("{dir}/plugin.json"),
            &serde_json::json!({
                "name": name,
                "hooks": {"PreToolUse": [{"command": command}]}
            })
            .to_string(),
        );
    }
    let markers = ["direct-marker", "through-sh-marker"];
    trust(&env);
    let (_, ran) = emit_and_marks(&env, &markers);
    assert_eq!(ran, markers, "{plugins}: trusted, they run");

    for name in ["direct", "through-sh"] {
        env.write_script(
            format!("{plugins}/{name}/run.sh"),
            &format!("touch {name}-marker\ntouch edited\n"),
        );
    }
    let (out, ran) = emit_and_marks(&env, &markers);
    assert!(
        ran.is_empty(),
        "{plugins}: the edited scripts must not run: {ran:?}"
    );
    assert!(!env.project().join("edited").exists(), "{plugins}");
    let changed = out
        .warnings()
        .into_iter()
        .filter(|w| w.contains("its script changed since it was trusted"))
        .count();
    assert_eq!(changed, 2, "{plugins}: {:?}", out.warnings());
}

/// A project script run through an interpreter (`sh x.sh`, `python3 hook.py`) is the
/// file the hook runs too: changing it must untrust the hook. Today only a command's
/// first word is hashed, so the changed script runs without a new `hookrig trust`.
#[test]

fn a_changed_script_run_through_an_interpreter_is_untrusted_again() {
    let env = test_env();
    env.write_file(".hookrig/mark.sh", "touch marker\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "mark"
        events = ["tool.before"]
        command = "sh .hookrig/mark.sh"
    "#});
    trust(&env);
    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);

    env.write_file(".hookrig/mark.sh", "touch marker\ntouch changed\n");
    let (out, ran) = emit_and_mark(&env);
    assert_untrusted(&env, &out, ran, "its script changed since it was trusted");
}

#[test]
fn explain_says_an_untrusted_hook_does_not_run() {
    let env = test_env();
    project_with_marking_hook(&env);

    let output = env.run_untrusted(["explain", "tool.before"], b"");

    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("   - mark (native, ")
            && stdout.contains("     does not run: not trusted\n")
            && stdout.contains(&format!("`hookrig trust {}`", env.project().display())),
        "{stdout}"
    );
    assert!(env.read_file("marker").is_none(), "explain runs nothing");

    trust(&env);
    let stdout = untrusted_ok(&env, &["explain", "tool.before"]);
    assert!(stdout.contains("  1. mark (native, "), "{stdout}");
    assert!(!stdout.contains("not trusted"), "{stdout}");
}

// ---------------------------------------------------------------------------------
// Project config.toml and plan validators
// ---------------------------------------------------------------------------------

/// `hookrig ARGS...` untrusted: stdout and stderr, failing the test
/// unless it exits with `expected`.
fn untrusted_run(env: &TestEnv, args: &[&str], expected: i32) -> (String, String) {
    let output = env.run_untrusted(args, b"");
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(
        code(&output),
        expected,
        "hookrig {args:?}: {stdout}{stderr}"
    );
    (stdout, stderr)
}

/// `config show --json` untrusted, and its stderr.
fn config_json(env: &TestEnv) -> (serde_json::Value, String) {
    let (stdout, stderr) = untrusted_run(env, &["config", "show", "--json"], 0);
    (
        serde_json::from_str(&stdout).expect("config show --json"),
        stderr,
    )
}

/// A global provider `a` and a project `.hookrig/config.toml` that overrides it and sets
/// everything that needs trust, beside harmless settings; returns the project file.
fn project_config_toml(env: &TestEnv) -> std::path::PathBuf {
    env.write_file(
        env.config_home().join("hookrig/config.toml"),
        indoc! {r#"
            [[providers]]
            id = "a"
            name = "A global"
            cli = "a-global"
        "#},
    );
    env.write_file(
        ".hookrig/config.toml",
        indoc! {r#"
            [settings]
            hook_timeout = 3
            plugin_path = ["tools"]

            [[providers]]
            id = "a"
            name = "A local"
            cli = "a-local"

            [[agents]]
            name = "coder"
            provider = "a"

            [hooks]
            post_complete = false

            [worktree.provision]
            files = [{ from = ".env" }]

            [automation]
            max_concurrent = 7

            [automation.llm]
            provider = "openai"
            base_url = "http://127.0.0.1:9/v1"

            [[notifiers]]
            kind = "slack"
            url = "http://127.0.0.1:9/hook"

            [memory]
            notes_dir = "docs/notes"

            [memory.embeddings]
            base_url = "http://127.0.0.1:9/v1"
            model = "m"
        "#},
    )
}

const IGNORED: [&str; 6] = [
    "[[providers]]",
    "[[agents]]",
    "plugin_path",
    "[automation.llm]",
    "[[notifiers]]",
    "[memory.embeddings]",
];

/// Checks that the project file's sensitive settings were ignored (the global provider
/// is used), its harmless ones applied, and the one warning says why.
fn assert_config_ignored(env: &TestEnv, file: &Path, why: &str) {
    let (json, stderr) = config_json(env);
    assert_eq!(json["providers"][0]["value"]["cli"], "a-global", "{json:#}");
    assert_eq!(json["providers"].as_array().map(Vec::len), Some(1));
    assert_eq!(json["agents"], serde_json::json!([]));
    assert_eq!(
        json["settings"]["plugin_path"]["value"],
        serde_json::json!([])
    );
    assert_eq!(json["notifiers"], serde_json::json!([]));
    assert_eq!(json["memory"]["embeddings"], serde_json::Value::Null);
    assert_eq!(
        json["automation"]["llm"]["provider"]["value"],
        serde_json::Value::Null
    );
    // Harmless settings still apply.
    assert_eq!(json["settings"]["hook_timeout"]["value"], 3);
    assert_eq!(json["hooks"]["post_complete"]["value"], false);
    assert_eq!(json["automation"]["max_concurrent"]["value"], 7);
    assert_eq!(
        json["worktree"]["provision"]["files"][0]["value"]["from"],
        ".env"
    );
    assert_eq!(json["memory"]["notes_dir"]["value"], "docs/notes");
    assert_eq!(
        json["untrusted"],
        serde_json::json!([{"path": file, "reason": why, "ignored": IGNORED}])
    );
    assert_eq!(
        stderr,
        format!(
            "hookrig: warning: {}: {why}; ignoring its {}; review it, then run hookrig trust\n",
            file.display(),
            IGNORED.join(", ")
        )
    );
    // The text form marks the file where it lists the files.
    let (stdout, _) = untrusted_run(env, &["config", "show"], 0);
    assert!(
        stdout.contains(&format!(
            "#   {}  (not trusted: {why}; ignored: {}; review it, then run hookrig trust)\n",
            file.display(),
            IGNORED.join(", ")
        )),
        "{stdout}"
    );
    assert!(stdout.contains("cli = \"a-global\""), "{stdout}");
}

fn assert_config_used(env: &TestEnv) {
    let (json, stderr) = config_json(env);
    assert_eq!(json["providers"][0]["value"]["cli"], "a-local", "{json:#}");
    assert_eq!(json["agents"][0]["value"]["provider"], "a");
    assert_eq!(json["notifiers"].as_array().map(Vec::len), Some(1));
    assert_eq!(json["automation"]["llm"]["provider"]["value"], "openai");
    assert_eq!(json["untrusted"], serde_json::json!([]));
    assert_eq!(stderr, "", "no warning once trusted");
}

// guards: every emit in a repository with an untrusted config.toml repeated the warning
// about providers and notifiers, which an emit never uses
#[test]
fn an_emit_does_not_repeat_the_untrusted_config_toml_warning() {
    let env = test_env();
    project_config_toml(&env);
    let out = emit_untrusted(&env, &["tool.before"], "{}");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !out.has_warning("review it, then run hookrig trust"),
        "{:?}",
        out.warnings()
    );
    let (_, stderr) = untrusted_run(&env, &["config", "show"], 0);
    assert!(
        stderr.contains("review it, then run hookrig trust"),
        "config show still says it: {stderr}"
    );
}

#[test]
fn an_untrusted_project_config_toml_keeps_only_harmless_settings() {
    let env = test_env();
    let file = project_config_toml(&env);
    assert_config_ignored(
        &env,
        &file,
        "it comes with the project and is not trusted yet",
    );
    let (json, _) = config_json(&env);
    let shown = serde_json::to_string_pretty(&json["untrusted"]).expect("JSON");
    insta::assert_snapshot!(shown.replace(env.marker(), "[TMP]"), @r#"
    [
      {
        "path": "[TMP]/project/.hookrig/config.toml",
        "reason": "it comes with the project and is not trusted yet",
        "ignored": [
          "[[providers]]",
          "[[agents]]",
          "plugin_path",
          "[automation.llm]",
          "[[notifiers]]",
          "[memory.embeddings]"
        ]
      }
    ]
    "#);

    // `providers list` falls back to the global provider too.
    let (stdout, stderr) = untrusted_run(&env, &["providers", "list", "--json"], 0);
    let list: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let a = list
        .as_array()
        .and_then(|all| all.iter().find(|p| p["provider"]["id"] == "a"))
        .unwrap_or_else(|| panic!("provider a in {list:#}"));
    assert_eq!(a["provider"]["cli"], "a-global", "{a:#}");
    assert!(
        stderr.contains("review it, then run hookrig trust"),
        "{stderr}"
    );

    let (stdout, _) = untrusted_run(&env, &["trust"], 0);
    assert_eq!(stdout, format!("trusted config {}\n", file.display()));
    assert_config_used(&env);
    let (stdout, _) = untrusted_run(&env, &["trust"], 0);
    assert_eq!(
        stdout,
        format!("already trusted config {}\n", file.display())
    );

    // Any change, even a comment, needs a new review.
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, format!("{text}# edited\n")).expect("edit");
    assert_config_ignored(&env, &file, "it changed since it was trusted");
    untrusted_run(&env, &["trust"], 0);
    assert_config_used(&env);

    let (stdout, _) = untrusted_run(&env, &["trust", "--revoke"], 0);
    assert_eq!(
        stdout,
        format!(
            "revoked trust in 1 hook under {}\n",
            env.project().display()
        )
    );
    assert_config_ignored(
        &env,
        &file,
        "it comes with the project and is not trusted yet",
    );
}

#[test]
fn a_project_config_toml_with_only_harmless_settings_needs_no_trust() {
    let env = test_env();
    env.write_file(
        ".hence/config.toml",
        "[settings]\nhook_timeout = 4\n\n[memory]\nnotes_dir = \"~/notes\"\n",
    );
    let (json, stderr) = config_json(&env);
    assert_eq!(json["settings"]["hook_timeout"]["value"], 4);
    // A notes directory outside the project is where notes would be read and written:
    // it needs trust, while the relative one above did not.
    assert_eq!(json["memory"]["notes_dir"]["value"], "notes");
    assert!(
        stderr.contains("ignoring its [memory] notes_dir outside the project; review"),
        "{stderr}"
    );
    env.write_file(".hence/config.toml", "[settings]\nhook_timeout = 4\n");
    let (json, stderr) = config_json(&env);
    assert_eq!(json["settings"]["hook_timeout"]["value"], 4);
    assert_eq!(json["untrusted"], serde_json::json!([]));
    assert_eq!(stderr, "");

    // Provisioning a file of the repository is harmless; one from elsewhere is not.
    env.write_file(
        ".hence/config.toml",
        "[worktree.provision]\nfiles = [{ from = \".env\" }, { from = \"../../secret\", to = \"s\" }]\n",
    );
    let (json, stderr) = config_json(&env);
    let files = &json["worktree"]["provision"]["files"];
    assert_eq!(files.as_array().map(Vec::len), Some(1), "{files:#}");
    assert_eq!(files[0]["value"]["from"], ".env");
    assert!(
        stderr.contains("ignoring its [worktree.provision] files from outside the project; review"),
        "{stderr}"
    );
}

#[test]
fn trust_any_project_applies_an_untrusted_project_config_toml() {
    let env = test_env();
    project_config_toml(&env);
    let output = env.run(["config", "show", "--json"], b"");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(json["providers"][0]["value"]["cli"], "a-local");
    assert_eq!(text(&output.stderr), "");
}

/// A plan with no finding of any built-in rule.
const PLAN: &str = "(meta plan (title \"Shop\"))\n(given task-api)\n(meta task-api (description \"Build the API\") (acceptance \"Tests pass\"))\n";

/// `plan validate ARGS plan.spl` untrusted: exit code, stdout,
/// stderr.
fn validate_untrusted(env: &TestEnv, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["plan", "validate", "plan.spl"];
    args.extend(extra);
    let output = env.run_untrusted(args, b"");
    (code(&output), text(&output.stdout), text(&output.stderr))
}

#[test]
fn project_validators_run_only_once_trusted_and_while_unchanged() {
    let env = test_env();
    env.write_file("plan.spl", PLAN);
    let said = |who: &str| {
        format!("#!/bin/sh\necho '[{{\"level\": \"error\", \"message\": \"{who} ran\"}}]'\n")
    };
    let local = env.write_script(".hookrig/validators/team", &said("team"));
    env.write_script(
        env.config_home().join("hookrig/validators/mine"),
        &said("mine"),
    );
    let warning =
        "hookrig: warning: validator 'team' is not trusted; review it, then run hookrig trust\n";

    let (exit, stdout, stderr) = validate_untrusted(&env, &[]);
    assert_eq!(exit, 1, "the global validator still runs: {stdout}");
    assert!(stderr.ends_with(warning), "{stderr}");
    assert!(!stdout.contains("team ran"), "{stdout}");
    assert!(
        stdout.contains("[mine] plan.spl: error: mine ran"),
        "{stdout}"
    );

    // A skipped validator is a warning: `--strict` fails on it alone.
    std::fs::remove_file(env.config_home().join("hookrig/validators/mine"))
        .expect("remove the global validator");
    env.write_script(".hookrig/validators/team", "#!/bin/sh\necho '[]'\n");
    let (exit, _, stderr) = validate_untrusted(&env, &[]);
    assert_eq!(exit, 0, "{stderr}");
    let (exit, _, stderr) = validate_untrusted(&env, &["--strict"]);
    assert_eq!(exit, 1, "an untrusted validator fails --strict: {stderr}");
    env.write_script(".hookrig/validators/team", &said("team"));

    let (stdout, _) = untrusted_run(&env, &["trust"], 0);
    assert_eq!(
        stdout,
        format!("trusted validator team ({})\n", local.display())
    );
    let (exit, stdout, stderr) = validate_untrusted(&env, &[]);
    assert_eq!(exit, 1);
    assert!(
        stdout.contains("[team] plan.spl: error: team ran"),
        "{stdout}"
    );
    assert_eq!(stderr, "");

    env.write_script(".hookrig/validators/team", &said("edited team"));
    let (exit, stdout, stderr) = validate_untrusted(&env, &[]);
    assert_eq!(exit, 0, "{stdout}");
    assert_eq!(stderr, warning);
    assert!(!stdout.contains("team ran"), "{stdout}");

    untrusted_run(&env, &["trust"], 0);
    let (_, stdout, _) = validate_untrusted(&env, &[]);
    assert!(stdout.contains("edited team ran"), "{stdout}");
    untrusted_run(&env, &["trust", "--revoke"], 0);
    let (_, stdout, stderr) = validate_untrusted(&env, &[]);
    assert_eq!(stderr, warning);
    assert!(!stdout.contains("team ran"), "{stdout}");
}

// guards: `hookrig trust` keeps its hook and automation lines and adds one per config
// file and validator, in that order.
#[test]
fn trust_lists_every_kind_it_trusted() {
    let env = test_env();
    project_with_marking_hook(&env);
    let config = env.write_file(".hence/config.toml", "[settings]\nhook_timeout = 4\n");
    let validator = env.write_script(".hence/validators/v", "#!/bin/sh\necho '[]'\n");
    let (stdout, _) = untrusted_run(&env, &["trust"], 0);
    assert_eq!(
        stdout,
        format!(
            "trusted mark (native, {})\ntrusted config {}\ntrusted validator v ({})\n",
            env.project_config_path().display(),
            config.display(),
            validator.display()
        )
    );
}

/// A repository `name` under the test root with one project hook named `name`.
fn small_repository(env: &TestEnv, name: &str) -> std::path::PathBuf {
    let dir = env.root().join(name);
    std::fs::create_dir_all(dir.join(".git")).expect("create the repository");
    std::fs::create_dir_all(dir.join(".hookrig")).expect("create .hookrig");
    std::fs::write(
        dir.join(".hookrig/hooks.toml"),
        format!("[[hooks]]\nname = \"{name}\"\nevents = [\"tool.before\"]\nexec = [\"true\"]\n"),
    )
    .expect("write its config");
    dir
}

/// The names of the hooks `hookrig trust --list` shows.
fn trusted_names(env: &TestEnv) -> Vec<String> {
    untrusted_ok(env, &["trust", "--list"])
        .lines()
        .skip(1)
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect()
}

/// Starts `hookrig ARGS...` in `dir` without waiting for it.
fn start_in(env: &TestEnv, dir: &Path, args: &[&str]) -> std::process::Child {
    let mut command = env.untrusted_command(args);
    command
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    command.spawn().expect("start hookrig")
}

fn assert_succeeded(child: std::process::Child) {
    let output = child.wait_with_output().expect("wait for hookrig");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
}

// guards: concurrent `hookrig trust` commands lost updates: a revoke that reported
// success was undone by a trust saving the store it had read before the revoke.
#[test]
fn a_revoke_concurrent_with_a_trust_is_not_lost() {
    let env = test_env();
    let revoked = small_repository(&env, "revoked");
    let trusted = small_repository(&env, "trusted");
    for round in 0..8 {
        assert_succeeded(start_in(&env, &revoked, &["trust"]));
        let revoke = start_in(&env, &revoked, &["trust", "--revoke"]);
        let trust = start_in(&env, &trusted, &["trust"]);
        assert_succeeded(revoke);
        assert_succeeded(trust);
        assert_eq!(
            trusted_names(&env),
            ["trusted"],
            "round {round}: the revoke must hold and the trust must be kept"
        );
        assert_succeeded(start_in(&env, &trusted, &["trust", "--revoke"]));
    }
}

// guards: eight concurrent `hookrig trust` commands kept only some of the eight
// projects (each saved the store it had read, without the others' entries).
#[test]
fn eight_concurrent_trusts_all_stay_trusted() {
    let env = test_env();
    let names: Vec<String> = (0..8).map(|i| format!("project{i}")).collect();
    let dirs: Vec<_> = names.iter().map(|n| small_repository(&env, n)).collect();
    let children: Vec<_> = dirs.iter().map(|d| start_in(&env, d, &["trust"])).collect();
    for child in children {
        assert_succeeded(child);
    }
    let mut kept = trusted_names(&env);
    kept.sort();
    assert_eq!(kept, names);
}

// guards: `hookrig trust DIR/sub/..` stored a second entry for the project under a path
// with `..` instead of finding the one `hookrig trust DIR` made.
#[test]
fn trust_through_dot_dot_is_the_same_project() {
    let env = test_env();
    project_with_marking_hook(&env);
    trust(&env);
    std::fs::create_dir_all(env.project().join("sub")).expect("create sub");
    let through = format!("{}/sub/..", env.project().display());
    let stdout = untrusted_ok(&env, &["trust", &through]);
    assert!(stdout.contains("already trusted mark"), "{stdout}");
    assert_eq!(trusted_names(&env), ["mark"], "one entry, not two");
}

// guards: a plan named through `..` from a subdirectory (`plan validate ../plan.spl`,
// `task claim -f ../plan.spl`) treated the trusted project's validators and hooks as
// untrusted; they must run, and see the plan's normalised path in `HENCE_PLAN`.
#[test]
fn a_plan_named_through_dot_dot_keeps_the_project_trusted() {
    let env = test_env();
    std::fs::create_dir_all(env.project().join(".git")).expect("make it a repository");
    env.write_file(
        "plan.spl",
        "(given task-design)\n(meta task-design (description \"Design\") (acceptance \"Done\"))\n(normally r-ready-design task-design ready-design)\n",
    );
    let project = env.project();
    env.write_script(
        ".hookrig/validators/team",
        &format!(
            "#!/bin/sh\nprintf '%s' \"$HENCE_PLAN\" > {}\necho '[]'\n",
            project.join("validator-saw").display()
        ),
    );
    env.write_script(
        ".hence/hooks/post-claim",
        &format!(
            "printf '%s' \"$HENCE_PLAN\" > {}\n",
            project.join("hook-saw").display()
        ),
    );
    trust(&env);
    let sub = project.join("sub");
    std::fs::create_dir_all(&sub).expect("create sub");
    let plan = project.join("plan.spl").display().to_string();

    let output = run_in(
        &sub,
        env.untrusted_command(["plan", "validate", "../plan.spl", "--strict"]),
    );
    assert_eq!(
        code(&output),
        0,
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    assert!(
        !text(&output.stderr).contains("not trusted"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(
        env.read_file("validator-saw").as_deref(),
        Some(plan.as_str())
    );

    let output = run_in(
        &sub,
        env.untrusted_command([
            "task",
            "claim",
            "design",
            "-f",
            "../plan.spl",
            "--agent",
            "coder",
        ]),
    );
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(
        !text(&output.stderr).contains("trust"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(env.read_file("hook-saw").as_deref(), Some(plan.as_str()));
}

// guards: `task complete -f ../plan.spl` from a subdirectory treated the trusted
// project's hooks as untrusted; its post-complete hook must run, and see the plan's
// normalised path in `HENCE_PLAN`.
#[test]
fn completing_a_task_of_a_plan_named_through_dot_dot_keeps_the_project_trusted() {
    let env = test_env();
    env.write_file(
        "plan.spl",
        "(given task-a)\n(meta task-a (description \"A\") (acceptance \"Done\"))\n(normally r-ready-a task-a ready-a)\n",
    );
    let project = env.project();
    env.write_script(
        ".hence/hooks/post-complete",
        &format!(
            "printf '%s' \"$HENCE_PLAN\" > {}\n",
            project.join("hook-saw").display()
        ),
    );
    trust(&env);
    let sub = project.join("sub");
    std::fs::create_dir_all(&sub).expect("create sub");

    let output = run_in(
        &sub,
        env.untrusted_command([
            "task",
            "complete",
            "a",
            "-f",
            "../plan.spl",
            "--agent",
            "coder",
        ]),
    );
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(
        !text(&output.stderr).contains("trust"),
        "{}",
        text(&output.stderr)
    );
    let plan = project.join("plan.spl").display().to_string();
    assert_eq!(env.read_file("hook-saw").as_deref(), Some(plan.as_str()));
}

// guards: the file a hook's output is redirected to counted as one of its scripts, so
// the hook's first run (which creates it) made it untrusted.
#[test]
fn a_hook_writing_its_log_inside_the_project_stays_trusted() {
    let env = test_env();
    env.write_script(".hookrig/mark.sh", "touch marker\necho ran\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "mark"
        events = ["tool.before"]
        command = "./mark.sh >> log.txt 2>&1"
    "#});
    trust(&env);
    for round in 0..2 {
        let (out, ran) = emit_and_mark(&env);
        assert!(env.project().join("log.txt").exists(), "round {round}");
        assert_ran(&out, ran);
    }
}
