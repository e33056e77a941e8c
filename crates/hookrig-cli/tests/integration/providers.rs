//! `hookrig config show` and `hookrig providers list`: the merged config.toml with the
//! source of every value, and the providers' CLIs found or not.

use std::time::{Duration, Instant};

use hookrig_test_support::TestEnv;
use indoc::indoc;
use serde_json::Value;

use crate::harness::{code, hookrig, test_env, text};

fn redact(env: &TestEnv, text: &str) -> String {
    env.redact(text)
}

/// A global file and a project file that override each other: the project's
/// `hook_timeout` and provider `a` win, the global `plugin_path` and provider `b` stay.
fn two_files(env: &TestEnv) {
    env.write_file(
        env.config_home().join("hookrig/config.toml"),
        indoc! {r#"
            [settings]
            hook_timeout = 10
            plugin_path = ["plugins", "~/bin"]

            [[providers]]
            id = "a"
            name = "A global"
            cli = "a-cli"
            version_args = ["--version"]

            [[providers]]
            id = "b"
            name = "B"
            cli = "/opt/b"
            auto_approve_flag = "-y"

            [hooks]
            post_claim = "notify.sh"
        "#},
    );
    env.write_file(
        ".hence/config.toml",
        indoc! {r#"
            [settings]
            hook_timeout = 3

            [[providers]]
            id = "a"
            name = "A local"
            cli = "a-local"
            default_args = ["--quiet"]

            [hooks]
            post_complete = false

            [worktree.provision]
            files = [{ from = ".env", mode = "copy" }]
        "#},
    );
}

#[test]
fn config_show_prints_every_value_with_its_file_and_line() {
    let env = test_env();
    two_files(&env);
    let output = hookrig(&env, &["config", "show"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(text(&output.stderr), "");
    insta::assert_snapshot!(redact(&env, &text(&output.stdout)));
}

#[test]
fn config_show_json_says_the_same() {
    let env = test_env();
    two_files(&env);
    let output = hookrig(&env, &["config", "show", "--json"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let json: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(json["providers"][0]["value"]["name"], "A local");
    insta::assert_snapshot!(redact(&env, &text(&output.stdout)));
}

#[test]
fn config_show_without_files_shows_the_defaults() {
    let env = test_env();
    let output = hookrig(&env, &["config", "show"]);
    assert_eq!(code(&output), 0);
    insta::assert_snapshot!(text(&output.stdout));
    let output = hookrig(&env, &["config", "show", "--json"]);
    let json: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(
        json["settings"]["hook_timeout"],
        serde_json::json!({"value": 30, "source": null, "line": null})
    );
}

#[test]
fn config_show_fails_on_an_error_with_its_place() {
    let env = test_env();
    let path = env.write_file(
        ".hookrig/config.toml",
        "[[providers]]\nid = \"x\"\nname = \"X\"\ncli = \"\"\n",
    );
    let output = hookrig(&env, &["config", "show"]);
    assert_eq!(code(&output), 1);
    assert_eq!(output.stdout, b"");
    assert_eq!(
        text(&output.stderr),
        format!(
            "hookrig: error: {}:4:7: provider `x`: `cli` must not be empty\n",
            path.display()
        )
    );
    // providers list reads the same files and fails the same way.
    let output = providers_list(&env, &["providers", "list"]);
    assert_eq!(code(&output), 1);
    assert!(text(&output.stderr).contains(":4:7: provider `x`"));
}

#[test]
fn config_show_warns_about_unknown_keys_and_goes_on() {
    let env = test_env();
    let path = env.write_file(
        env.config_home().join("hence/config.toml"),
        "[settings]\nhook_timeot = 4\n",
    );
    let output = hookrig(&env, &["config", "show", "--json"]);
    assert_eq!(code(&output), 0);
    assert_eq!(
        text(&output.stderr),
        format!(
            "hookrig: warning: {}:2:1: unknown key `hook_timeot` is ignored; did you mean `hook_timeout`?\n",
            path.display()
        )
    );
    let json: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(json["settings"]["hook_timeout"]["value"], 30);
}

/// A provider whose CLI is in the bin dir (first in `PATH`), one whose CLI is missing,
/// one given by path that hangs on its version check, and one with no `version_args`.
fn providers(env: &TestEnv) {
    env.write_bin(
        "fake-agent",
        "if [ \"$1\" = --version ]; then printf '\\nfake-agent 1.2.3 (build 7)\\nmore\\n'; else exit 9; fi",
    );
    let sleep = env.marked_sleep();
    env.write_script("tools/hangs", &format!("exec '{}' 30", sleep.display()));
    env.write_bin("quiet-agent", "exit 0");
    env.write_file(
        ".hookrig/config.toml",
        indoc! {r#"
            [[providers]]
            id = "fake"
            name = "Fake Agent"
            cli = "fake-agent"
            version_args = ["--version"]

            [[providers]]
            id = "gone"
            name = "Gone"
            cli = "no-such-agent-cli"
            version_args = ["--version"]

            [[providers]]
            id = "hangs"
            name = "Hangs"
            cli = "tools/hangs"
            version_args = ["-V"]

            [[providers]]
            id = "quiet"
            name = "Quiet"
            cli = "quiet-agent"
        "#},
    );
}

#[test]
fn providers_list_finds_runs_and_times_out_version_checks() {
    let env = test_env();
    providers(&env);
    let started = Instant::now();
    let output = providers_list(&env, &["providers", "list"]);
    let took = started.elapsed();
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    // The checks run concurrently, and the hanging one is killed at 2 s.
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(8),
        "{took:?}"
    );
    assert!(
        env.leftovers().is_empty(),
        "the hanging version check is left"
    );
    insta::assert_snapshot!(redact(&env, &text(&output.stdout)));
}

#[test]
fn providers_list_json() {
    let env = test_env();
    providers(&env);
    let output = providers_list(&env, &["providers", "list", "--json"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(env.leftovers().is_empty());
    let json: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(
        json[1]["error"],
        "provider 'gone' CLI 'no-such-agent-cli' not found"
    );
    assert_eq!(json[1]["found"], false);
    insta::assert_snapshot!(redact(&env, &text(&output.stdout)));
}

#[test]
fn providers_merge_by_id_and_the_local_one_wins() {
    let env = test_env();
    two_files(&env);
    env.write_bin("a-local", "echo a-local 2.0");
    let output = providers_list(&env, &["providers", "list", "--json"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let json: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let rows: Vec<_> = json
        .as_array()
        .expect("a list")
        .iter()
        .map(|row| {
            (
                row["provider"]["id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                row["provider"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                row["found"].as_bool(),
            )
        })
        .collect();
    // The configured providers first, then the built-ins (none of them on this PATH).
    assert_eq!(
        rows,
        [
            ("a".to_owned(), "A local".to_owned(), Some(true)),
            ("b".to_owned(), "B".to_owned(), Some(false)),
            ("claude".to_owned(), "Claude Code".to_owned(), Some(false)),
            ("codex".to_owned(), "Codex CLI".to_owned(), Some(false)),
            ("gemini".to_owned(), "Gemini CLI".to_owned(), Some(false)),
            ("aider".to_owned(), "Aider".to_owned(), Some(false)),
        ]
    );
    // The local provider has no version_args: nothing is inherited from the global one.
    assert_eq!(json[0]["version"], Value::Null);
    assert_eq!(json[1]["error"], "provider 'b' CLI '/opt/b' not found");
}

#[test]
fn providers_list_without_config_shows_the_built_ins() {
    let env = test_env();
    // A built-in found on PATH gets its version checked like any provider.
    env.write_bin("aider", "echo 'aider 0.86.1'");
    let output = providers_list(&env, &["providers", "list"]);
    assert_eq!(code(&output), 0);
    insta::assert_snapshot!(redact(&env, &text(&output.stdout)));
    let output = providers_list(&env, &["providers", "list", "--json"]);
    let json: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(json[3]["built_in"], true);
    assert_eq!(json[3]["version"], "aider 0.86.1");
    assert_eq!(json[3]["source"], Value::Null);
}

/// `hookrig ARGS` with only the test's bin and the system directories in `PATH`, so that
/// a real `claude` (or codex, gemini, aider) of the machine does not change the listing.
fn providers_list(env: &TestEnv, args: &[&str]) -> std::process::Output {
    let mut command = env.command(args);
    command.env(
        "PATH",
        format!("{}:/usr/local/bin:/usr/bin:/bin", env.bin().display()),
    );
    hookrig_test_support::run_with_input(command, b"", hookrig_test_support::HANG_LIMIT)
}

/// `[automation]`, `[automation.llm]`, `[[notifiers]]` and `[memory]` at two levels.
fn automation_files(env: &TestEnv) {
    env.write_file(
        env.config_home().join("hookrig/config.toml"),
        indoc! {r#"
            [automation]
            max_concurrent = 3
            debounce = "250ms"

            [automation.llm]
            provider = "openai"
            model = "gpt-4o-mini"
            api_key_env = "TEAM_OPENAI_KEY"

            [[notifiers]]
            kind = "discord"
            url = "https://discord.example/api/webhooks/1/a"
            events = ["failed", "completed"]

            [memory.embeddings]
            base_url = "http://127.0.0.1:11434"
            model = "nomic-embed-text"
        "#},
    );
    env.write_file(
        ".hookrig/config.toml",
        indoc! {r#"
            [automation]
            run_timeout = "2m"

            [automation.llm]
            model = "gpt-4.1"

            [[notifiers]]
            kind = "slack"
            url = "https://hooks.slack.example/services/T/B/X"

            [memory]
            notes_dir = "docs/notes"
        "#},
    );
}

#[test]
fn config_show_prints_the_automation_sections_with_their_sources() {
    let env = test_env();
    automation_files(&env);
    let output = hookrig(&env, &["config", "show"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(text(&output.stderr), "");
    insta::assert_snapshot!(redact(&env, &text(&output.stdout)));
    let output = hookrig(&env, &["config", "show", "--json"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let json: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let part = serde_json::json!({
        "automation": json["automation"],
        "notifiers": json["notifiers"],
        "memory": json["memory"],
    });
    let part = serde_json::to_string_pretty(&part).expect("JSON");
    insta::assert_snapshot!(redact(&env, &part));
    assert!(
        json["automation"]["llm"]["model"]["source"]
            .as_str()
            .is_some_and(|s| s.ends_with(".hookrig/config.toml")),
        "the project's model wins: {json}"
    );
}

#[test]
fn config_show_fails_on_a_bad_automation_value_with_its_place() {
    let env = test_env();
    let path = env.write_file(
        ".hookrig/config.toml",
        "[automation]\ntick = \"often\"\n\n[[notifiers]]\nkind = \"teams\"\nurl = \"https://x.example\"\n",
    );
    let output = hookrig(&env, &["config", "show"]);
    assert_eq!(code(&output), 1);
    assert_eq!(output.stdout, b"");
    assert_eq!(
        text(&output.stderr),
        format!(
            "hookrig: error: {p}:2:8: `automation.tick` must be a duration such as \"300s\" or \"5m\", got \"often\": expected number at 0\n{p}:5:8: notifier: unknown kind `teams`; use \"discord\" or \"slack\"\n",
            p = path.display()
        )
    );
}
