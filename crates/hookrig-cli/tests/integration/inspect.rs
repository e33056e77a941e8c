//! Seeing and checking the configuration: `list`, `show`, `explain`, `validate` and
//! `schema`.
//!
//! Snapshots replace the test's temporary directory by `[TMP]`.

use std::process::Output;

use hookrig_test_support::TestEnv;
use indoc::indoc;
use serde_json::Value;

use crate::harness::{code, hookrig, test_env, text};

/// `text` with the test's temporary directory replaced by `[TMP]`.
fn redact_paths(env: &TestEnv, text: &str) -> String {
    text.replace(env.marker(), "[TMP]")
}

/// stdout of a command that must exit 0 with nothing on stderr.
fn stdout_ok(output: &Output) -> String {
    assert_eq!(code(output), 0, "{}", text(&output.stderr));
    assert_eq!(text(&output.stderr), "", "nothing on stderr");
    text(&output.stdout)
}

/// A global hook and six project hooks: one on another event, one whose matcher will
/// not match `bash`, a disabled one, an async one, and three priorities. Every hook
/// writes `ran-NAME` in the project when it runs.
fn fixture(env: &TestEnv) {
    env.write_bin("mark", "touch \"ran-$1\"\n");
    env.write_global_config(indoc! {r#"
        [[hooks]]
        name = "audit"
        events = ["tool.before", "tool.after"]
        exec = ["mark", "audit"]
        priority = 50
        description = "global audit"
    "#});
    env.write_project_config(indoc! {r#"
        [settings]
        timeout = "10s"

        [[hooks]]
        name = "late"
        events = ["PreToolUse"]
        command = "mark late"
        priority = 200

        [[hooks]]
        name = "bash-guard"
        events = ["tool.before"]
        matcher = "^bash$"
        command = "mark bash-guard"
        priority = 10
        timeout = "2s"
        on_error = "deny"
        description = "checks shell commands"

        [[hooks]]
        name = "edit-only"
        events = ["tool.before"]
        matcher = "edit|write"
        command = "mark edit-only"

        [[hooks]]
        name = "off"
        events = ["tool.before"]
        command = "mark off"
        enabled = false

        [[hooks]]
        name = "greeter"
        events = ["session.start"]
        command = "mark greeter"

        [[hooks]]
        name = "notify"
        events = ["tool.after"]
        mode = "async"
        timeout = "0s"
        command = "mark notify"
    "#});
}

/// No fixture hook ran.
fn assert_nothing_ran(env: &TestEnv) {
    let ran: Vec<String> = std::fs::read_dir(env.project())
        .expect("read the project")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.starts_with("ran-"))
        .collect();
    assert!(ran.is_empty(), "nothing may run, but {ran:?} did");
}

#[test]
fn list_prints_a_table_of_every_hook() {
    let env = test_env();
    fixture(&env);

    // Untrusted: the global hook is the user's, the project's untrusted.
    let stdout = stdout_ok(&env.run_untrusted(["list"], b""));

    let header: Vec<&str> = stdout
        .lines()
        .next()
        .expect("a header")
        .split_whitespace()
        .collect();
    assert_eq!(
        header,
        [
            "NAME",
            "SOURCE",
            "DIALECT",
            "EVENTS",
            "MODE",
            "TIMEOUT",
            "TRUST",
            "DESCRIPTION"
        ]
    );
    assert_eq!(stdout.lines().count(), 8, "{stdout}");
    assert_nothing_ran(&env);
    assert_columns_aligned(&stdout);
    // The padding depends on the length of the temporary path: the snapshot keeps the
    // cells, two spaces apart.
    insta::assert_snapshot!(collapse_padding(&redact_paths(&env, &stdout)));

    // With it, project hooks are listed as trusted.
    let stdout = stdout_ok(&hookrig(&env, &["list"]));
    let late = stdout
        .lines()
        .find(|line| line.starts_with("late "))
        .expect("`late` is listed");
    assert!(late.split_whitespace().any(|w| w == "trusted"), "{late}");
}

/// Checks that every cell of a table starts where its header does.
fn assert_columns_aligned(table: &str) {
    let mut lines = table.lines();
    let header = lines.next().expect("a header");
    let starts: Vec<usize> = header
        .char_indices()
        .filter(|&(i, c)| c != ' ' && (i == 0 || header.as_bytes()[i - 1] == b' '))
        .map(|(i, _)| i)
        .collect();
    for line in lines {
        for &start in &starts {
            // An empty last cell is trimmed away.
            if start >= line.len() {
                continue;
            }
            let before = if start == 0 {
                b' '
            } else {
                line.as_bytes()[start - 1]
            };
            assert!(
                before == b' ' && line.as_bytes()[start] != b' ',
                "column at {start} not aligned in {line:?}"
            );
        }
    }
}

/// Each run of spaces between cells as two spaces.
fn collapse_padding(table: &str) -> String {
    table
        .lines()
        .map(|line| {
            line.split("  ")
                .filter(|cell| !cell.is_empty())
                .map(str::trim)
                .collect::<Vec<_>>()
                .join("  ")
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn list_without_hooks() {
    let env = test_env();
    assert_eq!(
        stdout_ok(&hookrig(&env, &["list"])),
        "(no hooks configured)\n"
    );
    // A filter that leaves nothing says the same.
    fixture(&env);
    assert_eq!(
        stdout_ok(&hookrig(&env, &["list", "--event", "prompt.submit"])),
        "(no hooks configured)\n"
    );
}

/// The names in the first column of a `list` table.
fn listed_names(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().next().expect("a name"))
        .collect()
}

#[test]
fn list_event_filter_accepts_aliases() {
    let env = test_env();
    fixture(&env);

    let by_alias = stdout_ok(&hookrig(&env, &["list", "--event", "PreToolUse"]));
    assert_eq!(
        listed_names(&by_alias),
        ["audit", "bash-guard", "edit-only", "late", "off"]
    );
    let by_name = stdout_ok(&hookrig(&env, &["list", "--event", "tool.before"]));
    assert_eq!(by_alias, by_name);
    let after = stdout_ok(&hookrig(&env, &["list", "--event", "post_tool"]));
    assert_eq!(listed_names(&after), ["audit", "notify"]);
}

#[test]
fn list_json_has_every_field() {
    let env = test_env();
    fixture(&env);

    let stdout = stdout_ok(&env.run_untrusted(["list", "--json", "--event", "tool.after"], b""));
    let listed: Value = serde_json::from_str(&stdout).expect("list --json prints JSON");
    let listed = listed.as_array().expect("an array");
    assert_eq!(listed.len(), 2, "{stdout}");
    for hook in listed {
        let keys: Vec<&str> = hook
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "name",
                "source",
                "dialect",
                "level",
                "events",
                "matcher",
                "mode",
                "timeout",
                "priority",
                "enabled",
                "trust",
                "untrusted_because",
                "command",
                "description"
            ]
        );
    }
    let audit = &listed[0];
    assert_eq!(audit["name"], "audit");
    assert_eq!(
        audit["source"],
        env.global_config_path().to_str().expect("UTF-8")
    );
    assert_eq!(audit["level"], "global");
    assert_eq!(
        audit["events"],
        serde_json::json!(["tool.before", "tool.after"])
    );
    assert_eq!(audit["priority"], 50);
    assert_eq!(audit["trust"], "user");
    assert_eq!(audit["untrusted_because"], Value::Null);
    assert_eq!(audit["command"], "mark audit");
    assert_eq!(audit["description"], "global audit");
    let notify = &listed[1];
    assert_eq!(notify["name"], "notify");
    assert_eq!(notify["level"], "project");
    assert_eq!(notify["mode"], "async");
    assert_eq!(notify["timeout"], Value::Null, "0s means no timeout");
    assert_eq!(notify["trust"], "untrusted");
    let because = notify["untrusted_because"].as_str().expect("a reason");
    assert!(
        because.contains(&format!("`hookrig trust {}`", env.project().display())),
        "{because}"
    );
    assert_eq!(notify["description"], Value::Null);
}

#[test]
fn show_prints_one_hook() {
    let env = test_env();
    fixture(&env);

    let stdout = stdout_ok(&hookrig(&env, &["show", "bash-guard"]));
    let labels: Vec<&str> = stdout
        .lines()
        .map(|line| line.split_once(':').expect("label: value").0)
        .collect();
    for label in [
        "name",
        "source",
        "dialect",
        "events",
        "mode",
        "timeout",
        "trust",
        "description",
    ] {
        assert!(labels.contains(&label), "no `{label}:` in {stdout}");
    }
    insta::assert_snapshot!("show_trusted", redact_paths(&env, &stdout));

    let stdout = stdout_ok(&env.run_untrusted(["show", "late"], b""));
    insta::assert_snapshot!("show_untrusted", redact_paths(&env, &stdout));
}

#[test]
fn show_unknown_name_fails_with_a_suggestion() {
    let env = test_env();
    fixture(&env);

    let output = hookrig(&env, &["show", "bash-gaurd"]);

    assert_eq!(code(&output), 1);
    assert_eq!(text(&output.stdout), "");
    assert_eq!(
        text(&output.stderr),
        "hookrig: error: no hook named `bash-gaurd` (did you mean `bash-guard`?); \
         `hookrig list` shows the configured hooks\n"
    );

    // Nothing close: no suggestion, still the pointer to `hookrig list`.
    let output = hookrig(&env, &["show", "zzzzzzzz"]);
    assert_eq!(code(&output), 1);
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("`hookrig list`") && !stderr.contains("did you mean"),
        "{stderr}"
    );
}

#[test]
fn explain_lists_hooks_in_dispatch_order_and_runs_nothing() {
    let env = test_env();
    fixture(&env);

    let stdout = stdout_ok(&hookrig(
        &env,
        &["explain", "tool.before", "--tool", "bash"],
    ));

    // Every hook, each once, in dispatch order: by priority, then registration (global
    // first), then the hooks on other events.
    let order: Vec<&str> = stdout
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let rest = line.strip_prefix("- ").or_else(|| {
                line.split_once(". ")
                    .filter(|(n, _)| n.parse::<u32>().is_ok())
                    .map(|(_, rest)| rest)
            })?;
            rest.split_whitespace().next()
        })
        .collect();
    assert_eq!(
        order,
        [
            "bash-guard",
            "audit",
            "edit-only",
            "off",
            "late",
            "greeter",
            "notify"
        ]
    );
    assert!(stdout.contains("does not run: other event"));
    assert!(stdout.contains("does not run: matcher `edit|write` did not match tool `bash`"));
    assert!(stdout.contains("does not run: disabled"));
    assert_nothing_ran(&env);
    assert_eq!(env.leftovers(), Vec::<i32>::new());
    insta::assert_snapshot!("explain_trusted", redact_paths(&env, &stdout));

    // Untrusted: project hooks that would run say why they do not; the global one runs.
    let stdout = stdout_ok(&env.run_untrusted(["explain", "PreToolUse", "--tool", "bash"], b""));
    assert_nothing_ran(&env);
    insta::assert_snapshot!("explain_untrusted", redact_paths(&env, &stdout));
}

#[test]
fn explain_cwd_selects_the_project() {
    let env = test_env();
    fixture(&env);
    let elsewhere = env.root().join("elsewhere");
    std::fs::create_dir_all(elsewhere.join(".git")).expect("create another repository");

    let project = env.project();
    let args = [
        "explain",
        "tool.before",
        "--cwd",
        elsewhere.to_str().expect("UTF-8"),
    ];
    let stdout = stdout_ok(&hookrig(&env, &args));

    assert!(
        stdout.starts_with(&format!(
            "event tool.before (decision), in {}\n",
            elsewhere.display()
        )),
        "{stdout}"
    );
    assert!(stdout.contains("  1. audit (native, "), "{stdout}");
    assert!(
        !stdout.contains(&project.display().to_string()),
        "the project's hooks are not seen from elsewhere: {stdout}"
    );
}

/// Writes the project config, runs `validate` (with `args`) and returns its exit code
/// and its stdout with paths redacted.
fn validate(env: &TestEnv, toml: &str, args: &[&str]) -> (i32, String) {
    env.write_project_config(toml);
    let output = hookrig(env, &[&["validate"][..], args].concat());
    assert_eq!(text(&output.stderr), "", "validate reports on stdout");
    (code(&output), redact_paths(env, &text(&output.stdout)))
}

#[test]
fn validate_reports_a_broken_file_with_its_position() {
    let env = test_env();
    let (code, stdout) = validate(
        &env,
        indoc! {r#"
            [[hooks]]
            name = "broken"
            events = ["tool.before"
            command = "true"
        "#},
        &[],
    );

    assert_eq!(code, 1, "{stdout}");
    let first = stdout.lines().next().expect("a diagnostic");
    let rest = first
        .strip_prefix("[TMP]/project/.hookrig/hooks.toml:")
        .unwrap_or_else(|| panic!("path first: {first}"));
    let (line, rest) = rest.split_once(':').expect("line");
    let (col, rest) = rest.split_once(':').expect("col");
    assert!(
        line.parse::<u32>().is_ok() && col.parse::<u32>().is_ok(),
        "{first}"
    );
    assert!(rest.starts_with(" error: "), "{first}");
    insta::assert_snapshot!(stdout);
}

#[test]
fn validate_warns_on_unknown_keys_and_fails_on_them_when_strict() {
    let env = test_env();
    let toml = indoc! {r#"
        [[hooks]]
        name = "typo"
        events = ["tool.before"]
        exec = ["true"]
        descripton = "a typo"
    "#};

    let (code, stdout) = validate(&env, toml, &[]);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(
        stdout,
        "[TMP]/project/.hookrig/hooks.toml:5:1: warning: unknown key `descripton` is ignored; \
         did you mean `description`?\n0 errors, 1 warning\n"
    );

    let (code, strict) = validate(&env, toml, &["--strict"]);
    assert_eq!(code, 1, "{strict}");
    assert_eq!(strict, stdout);
}

#[test]
fn validate_reports_missing_and_non_executable_scripts() {
    let env = test_env();
    env.write_file(".hookrig/plain.sh", "echo not executable\n");
    env.write_script(".hookrig/ok.sh", "exit 0\n");

    let (code, stdout) = validate(
        &env,
        indoc! {r#"
            [[hooks]]
            name = "missing"
            events = ["tool.before"]
            command = "./nope.sh"

            [[hooks]]
            name = "plain"
            events = ["tool.before"]
            command = "./plain.sh"

            [[hooks]]
            name = "fine"
            events = ["tool.before"]
            command = "./ok.sh --flag"

            [[hooks]]
            name = "typo"
            events = ["tool.before"]
            exec = ["./ok.sh"]
            enabeld = false
        "#},
        &[],
    );

    assert_eq!(code, 1, "{stdout}");
    let errors: Vec<&str> = stdout.lines().filter(|l| l.contains(": error: ")).collect();
    assert_eq!(errors.len(), 2, "{stdout}");
    assert!(
        errors
            .iter()
            .any(|l| l.contains("hook `missing`") && l.contains("nope.sh"))
    );
    assert!(
        errors
            .iter()
            .any(|l| l.contains("hook `plain`") && l.contains("chmod +x"))
    );
    assert!(stdout.ends_with("2 errors, 1 warning\n"), "{stdout}");
    assert_nothing_ran(&env);
    insta::assert_snapshot!(stdout);
}

#[test]
fn validate_a_clean_config() {
    let env = test_env();
    fixture(&env);
    let output = hookrig(&env, &["validate", "--strict"]);
    assert_eq!(stdout_ok(&output), "0 errors, 0 warnings\n");
    assert_nothing_ran(&env);
}

/// The committed schema, regenerated by `hookrig schema` (see the assertion message).
const SCHEMA_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/hooks.schema.json");

#[test]
fn schema_describes_every_key_and_matches_the_committed_file() {
    let env = test_env();
    let stdout = stdout_ok(&hookrig(&env, &["schema"]));
    let schema: Value = serde_json::from_str(&stdout).expect("schema prints JSON");

    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let keys = |value: &Value| -> Vec<String> {
        let mut keys: Vec<String> = value["properties"]
            .as_object()
            .expect("properties")
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    };
    assert_eq!(keys(&schema), ["hooks", "settings"]);
    assert_eq!(
        keys(&schema["properties"]["settings"]),
        ["engine", "engine_idle", "kill_grace", "timeout"]
    );
    assert_eq!(
        keys(&schema["properties"]["hooks"]["items"]),
        [
            "command",
            "description",
            "enabled",
            "env",
            "events",
            "exec",
            "headers",
            "matcher",
            "mode",
            "name",
            "on_error",
            "priority",
            "secret_env",
            "shadow",
            "side_effects",
            "timeout",
            "url",
            "worker",
            "workers"
        ]
    );

    let committed = std::fs::read_to_string(SCHEMA_FILE)
        .unwrap_or_else(|err| panic!("cannot read {SCHEMA_FILE}: {err}"));
    assert!(
        committed == stdout,
        "docs/hooks.schema.json is out of date; regenerate it with\n    \
         cargo run -q -p hookrig-cli -- schema > docs/hooks.schema.json\nand commit it"
    );
}

// guards: validate dropping the warnings of a file that also has errors
#[test]
fn validate_reports_warnings_next_to_errors() {
    let env = test_env();
    let toml = indoc! {r#"
        [[hooks]]
        name = "broken"
        events = ["tool.before"]
        exec = ["true"]
        matcher = "(unclosed"
        descripton = "a typo"
    "#};
    let (code, stdout) = validate(&env, toml, &[]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(":5:11: error: hook `broken`: invalid matcher regex")
            && stdout.contains(":6:1: warning: unknown key `descripton`")
            && stdout.ends_with("1 error, 1 warning\n"),
        "{stdout}"
    );
}

/// Writes `text` at `path` under the project, creating parents.
fn put_project_file(env: &TestEnv, path: &str, text: &str) {
    let path = env.project().join(path);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A project with a missing and a non-executable script in native `hooks.toml`, hygge,
/// an x-code `hooks.json` and Claude Code `settings.json`, each entry at a known place.
fn scripts_with_problems_in_every_dialect(env: &TestEnv) {
    env.write_file(".hookrig/plain.sh", "echo not executable\n");
    env.write_file(".hygge/plain.sh", "echo not executable\n");
    env.write_file(".claude/hooks/plain.sh", "echo not executable\n");
    env.write_file(".hookrig/plugins/p/hooks/plain.sh", "echo not executable\n");
    env.write_script(".hookrig/ok.sh", "exit 0\n");
    env.write_project_config(indoc! {r#"
        # native hooks: positions are the `[[hooks]]` headers
        [[hooks]]
        name = "fine"
        events = ["tool.before"]
        command = "./ok.sh"

        [[hooks]]
        name = "missing"
        events = ["tool.before"]
        command = "./nope.sh"

          [[hooks]]
          name = "plain"
          events = ["tool.before"]
          exec = ["./plain.sh", "--flag"]
    "#});
    put_project_file(
        env,
        ".hygge/hooks.toml",
        indoc! {r#"
            [hooks.missing]
            events = ["pre_tool"]
            command = ".hygge/nope.sh"

            [hooks.plain]
            events = ["pre_tool"]
            command = ".hygge/plain.sh"
        "#},
    );
    put_project_file(
        env,
        ".claude/settings.json",
        indoc! {r#"
            {
              "hooks": {
                "PreToolUse": [
                  {
                    "matcher": "Bash",
                    "hooks": [
                      {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/nope.sh"},
                      {
                        "type": "command",
                        "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/plain.sh --x"
                      }
                    ]
                  }
                ]
              }
            }
        "#},
    );
    put_project_file(
        env,
        ".hookrig/plugins/p/plugin.json",
        r#"{"name": "p", "version": "0.1.0"}"#,
    );
    put_project_file(
        env,
        ".hookrig/plugins/p/hooks/hooks.json",
        indoc! {r#"
            {
              "PreToolUse": [
                {"command": "${pluginDir}/hooks/nope.sh"},
                  {
                    "command": "'${pluginDir}/hooks/plain.sh' arg",
                    "timeout": 5000
                  }
              ]
            }
        "#},
    );
}

// guards: script problems of every dialect name the line and column of the hook's
// declaration, not only its file
#[test]
fn validate_places_script_problems_at_the_hook_in_every_dialect() {
    let env = test_env();
    scripts_with_problems_in_every_dialect(&env);

    let output = hookrig(&env, &["validate"]);
    let stdout = redact_paths(&env, &text(&output.stdout));
    assert_eq!(code(&output), 1, "{stdout}");
    let places: Vec<(&str, &str)> = stdout
        .lines()
        .filter_map(|line| {
            let (place, message) = line.split_once(": error: ")?;
            let name = message.split('`').nth(1)?;
            Some((name, place.strip_prefix("[TMP]/project/")?))
        })
        .collect();
    assert_eq!(
        places,
        [
            ("claude:project:PreToolUse:1", ".claude/settings.json:7:11"),
            ("claude:project:PreToolUse:2", ".claude/settings.json:8:11"),
            ("missing", ".hookrig/hooks.toml:7:1"),
            ("plain", ".hookrig/hooks.toml:12:3"),
            (
                "p@local:PreToolUse:0",
                ".hookrig/plugins/p/hooks/hooks.json:3:5"
            ),
            (
                "p@local:PreToolUse:1",
                ".hookrig/plugins/p/hooks/hooks.json:4:7"
            ),
            ("missing", ".hygge/hooks.toml:1:8"),
            ("plain", ".hygge/hooks.toml:5:8"),
        ],
        "{stdout}"
    );
    assert!(stdout.ends_with("8 errors, 0 warnings\n"), "{stdout}");
    assert_nothing_ran(&env);
    insta::assert_snapshot!(stdout);
}

#[test]
fn show_names_the_line_of_the_declaration() {
    let env = test_env();
    scripts_with_problems_in_every_dialect(&env);

    let shown = redact_paths(&env, &stdout_ok(&hookrig(&env, &["show", "plain"])));
    let sources: Vec<&str> = shown
        .lines()
        .filter_map(|line| line.strip_prefix("source:      [TMP]/project/"))
        .collect();
    assert_eq!(
        sources,
        [".hookrig/hooks.toml:12", ".hygge/hooks.toml:5"],
        "{shown}"
    );
}

// guards: a config file that is not UTF-8 was reported without the line and column of
// the offending byte.
#[test]
fn validate_places_a_byte_that_is_not_utf8_at_its_line_and_column() {
    let env = test_env();
    let native = env.project_config_path();
    std::fs::create_dir_all(native.parent().expect("a parent")).expect("mkdir");
    std::fs::write(
        &native,
        b"[[hooks]]\nname = \"x\"\ncommand = \"ec\xffho\"\nevents = [\"tool.before\"]\n",
    )
    .expect("write hooks.toml");
    let claude = env.project().join(".claude/settings.json");
    std::fs::create_dir_all(claude.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&claude, b"{\n  \"hooks\": \"\xc3\x28\"\n}\n").expect("write settings");

    let output = hookrig(&env, &["validate"]);
    let stdout = redact_paths(&env, &text(&output.stdout));
    assert_eq!(code(&output), 1, "{stdout}");
    assert_eq!(
        stdout,
        "[TMP]/project/.claude/settings.json:2:13: error: not valid UTF-8 (byte 0xc3); the file must be UTF-8 text\n\
         [TMP]/project/.hookrig/hooks.toml:3:14: error: not valid UTF-8 (byte 0xff); the file must be UTF-8 text\n\
         2 errors, 0 warnings\n"
    );
}

// guards: a `command` containing a NUL byte passed `validate`, although no process can
// be given it.
#[test]
fn validate_rejects_a_command_with_a_nul_byte_in_every_dialect() {
    let env = test_env();
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "nul"
        events = ["tool.before"]
        command = "echo a\u0000b"
    "#});
    let claude = env.project().join(".claude/settings.json");
    std::fs::create_dir_all(claude.parent().expect("a parent")).expect("mkdir");
    std::fs::write(
        &claude,
        r#"{"hooks": {"PreToolUse": [{"matcher": "", "hooks": [
            {"type": "command", "command": "echo a\u0000b"}
        ]}]}}"#,
    )
    .expect("write settings");

    let output = hookrig(&env, &["validate"]);
    let stdout = redact_paths(&env, &text(&output.stdout));
    assert_eq!(code(&output), 1, "{stdout}");
    let errors: Vec<&str> = stdout.lines().filter(|l| l.contains("NUL")).collect();
    assert_eq!(
        errors,
        [
            "[TMP]/project/.claude/settings.json:2:13: error: hook `claude:project:PreToolUse:1`: its command contains a NUL byte, which no process can be given",
            "[TMP]/project/.hookrig/hooks.toml:1:1: error: hook `nul`: its command contains a NUL byte, which no process can be given",
        ],
        "{stdout}"
    );
}

#[test]
fn completions_match_the_committed_scripts() {
    // guards: a flag added to the command line without regenerating the completion
    // scripts that packagers install
    let env = test_env();
    for (shell, file) in [
        ("bash", "hookrig.bash"),
        ("zsh", "_hookrig"),
        ("fish", "hookrig.fish"),
    ] {
        let script = stdout_ok(&hookrig(&env, &["completions", shell]));
        assert!(script.contains("emit"), "{shell}: {script}");
        let path = format!("{}/../../completions/{file}", env!("CARGO_MANIFEST_DIR"));
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            script == committed,
            "completions/{file} is out of date: regenerate it with \
             `cargo run -q -p hookrig-cli -- completions {shell} > completions/{file}`"
        );
    }
    let unknown = hookrig(&env, &["completions", "tcsh"]);
    assert_eq!(unknown.status.code(), Some(2), "{unknown:?}");
}
