use std::path::Path;

use indoc::indoc;

use super::config_toml;
use super::hooks_json::{install, is_hookrig_handler, uninstall};
use super::*;

fn claude_hooks() -> &'static JsonHooks {
    let env =
        Environment::from_vars("/".into(), |n| (n == "HOME").then(|| "/h".into())).expect("env");
    match (claude::INSTALL.targets)(&env, InstallLevel::User, Path::new("/p"))[0].kind {
        Kind::Json(hooks) => hooks,
        Kind::Toml(_) => unreachable!("Claude Code's settings are JSON"),
    }
}

fn entry() -> Entry {
    Entry {
        program: "hookrig".to_owned(),
        http: None,
    }
}

fn install_into(
    text: Option<&str>,
    sidecar: Option<&str>,
    hooks: &JsonHooks,
) -> hooks_json::Edited {
    let entry = entry();
    install(
        Path::new("/h/.claude/settings.json"),
        text,
        Path::new("/h/.claude/settings.hookrig.json"),
        sidecar,
        hooks,
        &hooks_json::Writing {
            entry: &|event| (hooks.entry)(&entry, event),
            extra: &[],
            off: &|_, _, _| false,
        },
    )
    .expect("installs")
}

const SETTINGS: &str = indoc! {r#"
    {
      "model": "opus",
      "hooks": {
        "PreToolUse": [
          {
            "matcher": "Bash",
            "hooks": [
              { "type": "command", "command": "~/.claude/guard.sh", "timeout": 5 }
            ]
          }
        ],
        "Stop": [{ "hooks": [{ "type": "command", "command": "say done" }] }]
      },
      "permissions": { "allow": ["Bash(ls)"] }
    }
"#};

// guards: Claude Code creates worktrees itself unless a `WorktreeCreate` hook does it, so
// hookrig's entry goes there only while there are hooks to run, and goes away with them
#[test]
fn worktree_events_get_hookrigs_entry_only_while_they_have_hooks() {
    let hooks = claude_hooks();
    let without = install_into(Some(SETTINGS), None, hooks);
    assert!(without.file.contains("\"PreToolUse\""), "{}", without.file);
    assert!(!without.file.contains("Worktree"), "{}", without.file);

    let with = indoc! {r#"
        {
          "hooks": {
            "WorktreeCreate": [
              { "hooks": [{ "type": "command", "command": "./make-worktree.sh" }] }
            ]
          }
        }
    "#};
    let first = install_into(Some(with), None, hooks);
    assert_eq!(first.moved, 1);
    assert!(first.file.contains("\"WorktreeCreate\""), "{}", first.file);
    assert!(!first.file.contains("WorktreeRemove"), "{}", first.file);
    assert!(!first.file.contains("make-worktree"), "{}", first.file);
    // Installed again with the hook in the sidecar: the entry stays, nothing changes.
    let sidecar = first.sidecar.as_deref().expect("the hook moved");
    let again = install_into(Some(&first.file), Some(sidecar), hooks);
    assert_eq!(again.file, first.file);
    // With `--http` the worktree entry stays a command: Claude Code reads the path from
    // a command's stdout only.
    let http = Entry {
        program: "hookrig".to_owned(),
        http: Some("127.0.0.1:7700".to_owned()),
    };
    assert_eq!(
        (hooks.entry)(&http, "WorktreeCreate")["type"],
        "command",
        "worktree entry"
    );
    assert_eq!((hooks.entry)(&http, "PreToolUse")["type"], "http");
    // The sidecar emptied by hand: the next install takes hookrig's entry away.
    let emptied = install_into(Some(&first.file), Some("{}"), hooks);
    assert!(!emptied.file.contains("Worktree"), "{}", emptied.file);
}

#[test]
fn install_moves_the_hooks_and_keeps_every_other_byte() {
    let hooks = claude_hooks();
    let edited = install_into(Some(SETTINGS), None, hooks);
    assert_eq!(edited.moved, 2);
    // Everything before `hooks` and after it is as it was.
    assert!(
        edited
            .file
            .starts_with("{\n  \"model\": \"opus\",\n  \"hooks\": {\n")
    );
    assert!(
        edited
            .file
            .ends_with("  },\n  \"permissions\": { \"allow\": [\"Bash(ls)\"] }\n}\n"),
        "{}",
        edited.file
    );
    let file: Value = serde_json::from_str(&edited.file).expect("json");
    assert_eq!(
        file["hooks"]["PreToolUse"],
        serde_json::json!([{"hooks": [{"type": "command", "command": "hookrig emit --dialect claude"}]}])
    );
    // Every event but the two worktree events, which have no hook here.
    assert_eq!(
        file["hooks"].as_object().expect("object").len(),
        claude::events::EVENTS.len() - 2
    );
    insta::assert_snapshot!("claude_sidecar", edited.sidecar.expect("a sidecar"));
}

#[test]
fn a_second_install_changes_nothing() {
    let hooks = claude_hooks();
    let first = install_into(Some(SETTINGS), None, hooks);
    let second = install_into(Some(&first.file), first.sidecar.as_deref(), hooks);
    assert_eq!(second.file, first.file);
    assert_eq!(second.sidecar, None);
    assert_eq!(second.moved, 0);
}

#[test]
fn hooks_added_after_install_are_appended_to_the_sidecar() {
    let hooks = claude_hooks();
    let first = install_into(Some(SETTINGS), None, hooks);
    let added = first.file.replacen(
        "\"Stop\": [",
        "\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"later\"}]}, ",
        1,
    );
    let second = install_into(Some(&added), first.sidecar.as_deref(), hooks);
    assert_eq!(second.moved, 1);
    // Stop's entry now runs two hooks of Claude Code's 600 s default one after another.
    assert_eq!(
        second.file,
        first.file.replace("\"timeout\": 605", "\"timeout\": 1205")
    );
    let sidecar: Value = serde_json::from_str(&second.sidecar.expect("sidecar")).expect("json");
    let stop: Vec<&str> = sidecar["hooks"]["Stop"]
        .as_array()
        .expect("list")
        .iter()
        .map(|g| g["hooks"][0]["command"].as_str().expect("command"))
        .collect();
    assert_eq!(stop, ["say done", "later"]);
}

#[test]
fn uninstall_puts_the_hooks_back() {
    let hooks = claude_hooks();
    let first = install_into(Some(SETTINGS), None, hooks);
    let (restored, moved) = uninstall(
        Path::new("/h/.claude/settings.json"),
        Some(&first.file),
        Path::new("/h/.claude/settings.hookrig.json"),
        first.sidecar.as_deref(),
        hooks,
    )
    .expect("uninstalls");
    assert_eq!(moved, 2);
    assert_eq!(
        hooks_json::meaning(&restored, hooks),
        hooks_json::meaning(SETTINGS, hooks)
    );
}

#[test]
fn a_missing_file_is_created() {
    let hooks = claude_hooks();
    let edited = install_into(None, None, hooks);
    assert_eq!(edited.moved, 0);
    assert_eq!(edited.sidecar, None);
    let file: Value = serde_json::from_str(&edited.file).expect("json");
    assert!(file["hooks"]["SessionStart"].is_array());
    assert!(edited.file.ends_with("}\n"));
}

#[test]
fn files_that_do_not_parse_or_have_the_wrong_shape_are_refused_with_their_place() {
    let hooks = claude_hooks();
    let cases = [
        "{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n",
        "{\"hooks\": []}",
        "{\"hooks\": {\n  \"Stop\": {\"command\": \"x\"}\n}}",
        "{\"hooks\": {\"Stop\": [1]}}",
        "{\"hooks\": {\"Stop\": [{\"hooks\": {}}]}}",
        "{\"hooks\": {\"Stop\": [{\"hooks\": [\"x\"]}]}}",
        "[]",
        "{\"a\": 1,}",
        "// comment\n{}",
    ];
    let entry = entry();
    let errors: Vec<String> = cases
        .iter()
        .map(|text| {
            install(
                Path::new("/h/.claude/settings.json"),
                Some(text),
                Path::new("/h/.claude/settings.hookrig.json"),
                None,
                hooks,
                &hooks_json::Writing {
                    entry: &|event| (hooks.entry)(&entry, event),
                    extra: &[],
                    off: &|_, _, _| false,
                },
            )
            .expect_err("refused")
            .to_string()
        })
        .collect();
    insta::assert_snapshot!("refused", errors.join("\n"));
}

#[test]
fn hookrig_entries_are_recognised() {
    for (handler, ours) in [
        (
            serde_json::json!({"type": "command", "command": "hookrig emit --dialect claude"}),
            true,
        ),
        (
            serde_json::json!({"type": "command", "command": "'/opt/my tools/hookrig' emit --dialect claude"}),
            true,
        ),
        (
            serde_json::json!({"type": "http", "url": "http://127.0.0.1:7700/emit/Stop?dialect=claude"}),
            true,
        ),
        (
            serde_json::json!({"type": "http", "url": "http://127.0.0.1:7700/audit"}),
            false,
        ),
        (
            serde_json::json!({"type": "command", "command": "hookrig list"}),
            false,
        ),
        (
            serde_json::json!({"type": "command", "command": "guard.sh"}),
            false,
        ),
    ] {
        assert_eq!(is_hookrig_handler(&handler), ours, "{handler}");
    }
}

#[test]
fn the_program_is_hookrig_only_when_path_finds_this_executable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let exe = bin.join("hookrig");
    std::fs::write(&exe, "").expect("write");
    let other = dir.path().join("my tools");
    std::fs::create_dir_all(&other).expect("mkdir");
    let elsewhere = other.join("hookrig");
    std::fs::write(&elsewhere, "").expect("write");
    assert_eq!(hookrig_program(&exe, Some(bin.as_os_str())), "hookrig");
    assert_eq!(
        hookrig_program(&elsewhere, Some(bin.as_os_str())),
        format!("'{}'", elsewhere.display())
    );
    assert_eq!(hookrig_program(&exe, None), exe.display().to_string());
}

#[test]
fn sidecars_sit_beside_their_file() {
    assert_eq!(
        sidecar_of(Path::new("/h/.claude/settings.json")),
        Path::new("/h/.claude/settings.hookrig.json")
    );
    assert_eq!(
        sidecar_of(Path::new("/h/.codex/config.toml")),
        Path::new("/h/.codex/config.hookrig.toml")
    );
    assert_eq!(
        backup_of(Path::new("/h/.cursor/hooks.json")),
        Path::new("/h/.cursor/hooks.json.hookrig-backup")
    );
}

#[test]
fn config_toml_event_arrays_move_in_either_form_and_come_back() {
    let events = ["PreToolUse", "Stop"];
    let text = indoc! {r#"
        model = "o3"
        hooks.Stop = [{ hooks = [{ type = "command", command = "say done" }] }]

        [[hooks.PreToolUse]]
        matcher = "Bash"
        [[hooks.PreToolUse.hooks]]
        type = "command"
        command = "guard.sh"

        [hooks.state.k]
        enabled = false
    "#};
    let path = Path::new("/h/.codex/config.toml");
    let side = Path::new("/h/.codex/config.hookrig.toml");
    let edited = config_toml::install(path, Some(text), side, None, &events, &|_, _, _| false, &[])
        .expect("installs");
    assert_eq!(edited.moved, 2);
    assert_eq!(
        edited.file,
        "model = \"o3\"\n\n[hooks.state.k]\nenabled = false\n"
    );
    let (back, restored, rest) = config_toml::uninstall(
        path,
        Some(&edited.file),
        side,
        edited.sidecar.as_deref(),
        &events,
        None,
    )
    .expect("uninstalls");
    assert_eq!(rest, None);
    assert_eq!(restored, 2);
    assert_eq!(
        config_toml::meaning(&back).map(|t| t["hooks"]["PreToolUse"].clone()),
        config_toml::meaning(text).map(|t| t["hooks"]["PreToolUse"].clone())
    );
    assert_eq!(
        config_toml::meaning(&back).map(|t| t["hooks"]["Stop"].clone()),
        config_toml::meaning(text).map(|t| t["hooks"]["Stop"].clone())
    );
    let refused = config_toml::install(
        path,
        Some("[hooks]\nStop = 1\n"),
        side,
        None,
        &events,
        &|_, _, _| false,
        &[],
    )
    .expect_err("refused")
    .to_string();
    assert_eq!(
        refused,
        "/h/.codex/config.toml:2:8: `hooks.Stop` must be an array of tables; the file is left as it is"
    );
}

/// The JSON hooks of `host`'s first file.
fn json_hooks(host: &HostInstall) -> &'static JsonHooks {
    let env =
        Environment::from_vars("/".into(), |n| (n == "HOME").then(|| "/h".into())).expect("env");
    match (host.targets)(&env, InstallLevel::User, Path::new("/p"))[0].kind {
        Kind::Json(hooks) => hooks,
        Kind::Toml(_) => unreachable!("the first file of every host is JSON"),
    }
}

/// The `timeout` of hookrig's entry of `event` in an installed file.
fn entry_timeout_of(file: &str, hooks: &JsonHooks, event: &str) -> Option<u64> {
    let value: Value = serde_json::from_str(file).expect("json");
    let entry = &value["hooks"][event][0];
    let handler = if hooks.grouped {
        &entry["hooks"][0]
    } else {
        entry
    };
    assert!(is_hookrig_handler(handler), "{event}: {handler}");
    handler
        .get("timeout")
        .map(|t| t.as_u64().expect("an integer"))
}

/// A case of the entry's timeout: the host, the event, the file's hooks, the handlers of
/// the host's other files, and the entry's timeout in the host's unit.
type TimeoutCase = (
    &'static HostInstall,
    &'static str,
    &'static str,
    &'static [&'static str],
    Option<u64>,
);

const TIMEOUT_CASES: &[TimeoutCase] = &[
    // Claude Code, seconds, default 600 (30 on UserPromptSubmit).
    (
        &claude::INSTALL,
        "PreToolUse",
        r#"{"PreToolUse": [{"hooks": [{"type": "command", "command": "a", "timeout": 5}]}]}"#,
        &[],
        None,
    ),
    (
        &claude::INSTALL,
        "PreToolUse",
        r#"{"PreToolUse": [{"hooks": [{"type": "command", "command": "a", "timeout": 900}]}]}"#,
        &[],
        Some(905),
    ),
    (
        &claude::INSTALL,
        "UserPromptSubmit",
        r#"{"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "a", "timeout": 20}, {"type": "command", "command": "b", "timeout": 20}]}]}"#,
        &[],
        Some(45),
    ),
    (
        &claude::INSTALL,
        "PostToolUse",
        r#"{"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a", "timeout": 1.5}]}, {"hooks": [{"type": "command", "command": "b", "timeout": 599}]}]}"#,
        &[],
        Some(606),
    ),
    // Gemini CLI, milliseconds, default 60000.
    (
        &gemini::INSTALL,
        "BeforeTool",
        r#"{"BeforeTool": [{"hooks": [{"type": "command", "command": "a", "timeout": 5000}]}]}"#,
        &[],
        None,
    ),
    (
        &gemini::INSTALL,
        "BeforeTool",
        r#"{"BeforeTool": [{"hooks": [{"type": "command", "command": "a", "timeout": 120000}]}]}"#,
        &[],
        Some(125_000),
    ),
    (
        &gemini::INSTALL,
        "AfterAgent",
        r#"{"AfterAgent": [{"hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}]}]}"#,
        &[],
        Some(125_000),
    ),
    // Codex CLI, whole seconds, default 600; config.toml's hooks count too.
    (
        &codex::INSTALL,
        "Stop",
        r#"{"Stop": [{"hooks": [{"type": "command", "command": "a", "timeout": 10}]}]}"#,
        &[],
        None,
    ),
    (
        &codex::INSTALL,
        "Stop",
        r#"{"Stop": [{"hooks": [{"type": "command", "command": "a", "timeout": 10}]}]}"#,
        &[r#"{"type": "command", "command": "b", "timeout": 700}"#],
        Some(715),
    ),
    (
        &codex::INSTALL,
        "PreToolUse",
        "{}",
        &[r#"{"type": "command", "command": "b"}"#],
        Some(605),
    ),
    // Cursor, seconds, hookrig's default of 30 (Cursor names none).
    (
        &cursor::INSTALL,
        "beforeShellExecution",
        r#"{"beforeShellExecution": [{"command": "a", "timeout": 10}]}"#,
        &[],
        None,
    ),
    (
        &cursor::INSTALL,
        "beforeShellExecution",
        r#"{"beforeShellExecution": [{"command": "a", "timeout": 40}]}"#,
        &[],
        Some(45),
    ),
];

#[test]
fn hookrigs_entry_outlasts_the_hooks_it_runs_one_after_another() {
    for (host, event, events, extra, expected) in TIMEOUT_CASES {
        let hooks = json_hooks(host);
        let text = format!("{{\"hooks\": {events}}}");
        let extra: Vec<(String, Value)> = extra
            .iter()
            .map(|h| ((*event).to_owned(), serde_json::from_str(h).expect("json")))
            .collect();
        let entry = entry();
        let run = |text: &str, sidecar: Option<&str>| {
            install(
                Path::new("/h/f.json"),
                Some(text),
                Path::new("/h/f.hookrig.json"),
                sidecar,
                hooks,
                &hooks_json::Writing {
                    entry: &|event| (hooks.entry)(&entry, event),
                    extra: &extra,
                    off: &|_, _, _| false,
                },
            )
            .expect("installs")
        };
        let first = run(&text, None);
        assert_eq!(
            entry_timeout_of(&first.file, hooks, event),
            *expected,
            "{}: {events}",
            host.title
        );
        // Recomputed from the sidecar on the next install, the entry stays as it is.
        let second = run(&first.file, first.sidecar.as_deref());
        assert_eq!(second.file, first.file, "{}: {events}", host.title);
        assert_eq!(second.sidecar, None);
    }
}

#[test]
fn config_toml_handlers_are_read_for_the_entry_timeout() {
    let text = indoc! {r#"
        model = "o3"

        [[hooks.Stop]]
        [[hooks.Stop.hooks]]
        type = "command"
        command = "a"
        timeout = 700

        [hooks.state]
        "x" = { enabled = false }
    "#};
    let handlers = config_toml::handlers(text, &["Stop", "PreToolUse"]);
    assert_eq!(handlers.len(), 1);
    assert_eq!(handlers[0].0, "Stop");
    assert_eq!(handlers[0].1["timeout"], 700);
    assert!(config_toml::handlers("[hooks", &["Stop"]).is_empty());
}

#[test]
fn hooks_turned_off_in_codex_are_marked_in_the_sidecar_and_unmarked_on_uninstall() {
    let hooks = json_hooks(&codex::INSTALL);
    assert!(hooks.carries_state);
    let text = r#"{"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}]},
        {"hooks": [{"type": "command", "command": "c"}]}
    ]}}"#;
    let entry = entry();
    let off = |event: &str, g: usize, h: usize| event == "Stop" && (g, h) == (0, 1);
    let edited = install(
        Path::new("/h/.codex/hooks.json"),
        Some(text),
        Path::new("/h/.codex/hooks.hookrig.json"),
        None,
        hooks,
        &hooks_json::Writing {
            entry: &|event| (hooks.entry)(&entry, event),
            extra: &[],
            off: &off,
        },
    )
    .expect("installs");
    let side: Value =
        serde_json::from_str(edited.sidecar.as_deref().expect("sidecar")).expect("json");
    let enabled: Vec<&Value> = side["hooks"]["Stop"]
        .as_array()
        .expect("list")
        .iter()
        .flat_map(|g| g["hooks"].as_array().expect("hooks"))
        .map(|h| &h["enabled"])
        .collect();
    assert_eq!(enabled, [&Value::Null, &Value::Bool(false), &Value::Null]);
    let (back, restored) = uninstall(
        Path::new("/h/.codex/hooks.json"),
        Some(&edited.file),
        Path::new("/h/.codex/hooks.hookrig.json"),
        edited.sidecar.as_deref(),
        hooks,
    )
    .expect("uninstalls");
    assert_eq!(restored, 3);
    assert_eq!(
        hooks_json::meaning(&back, hooks),
        hooks_json::meaning(text, hooks)
    );

    // config.toml's hooks: the same, in TOML.
    let toml = "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"a\"\n";
    let path = Path::new("/h/.codex/config.toml");
    let side_path = Path::new("/h/.codex/config.hookrig.toml");
    let edited = config_toml::install(
        path,
        Some(toml),
        side_path,
        None,
        &["Stop"],
        &|e, g, h| e == "Stop" && (g, h) == (0, 0),
        &[],
    )
    .expect("installs");
    let side = edited.sidecar.expect("sidecar");
    assert!(side.contains("enabled = false"), "{side}");
    let (back, _, _) = config_toml::uninstall(
        path,
        Some(&edited.file),
        side_path,
        Some(&side),
        &["Stop"],
        None,
    )
    .expect("uninstalls");
    assert_eq!(config_toml::meaning(&back), config_toml::meaning(toml));
}

#[test]
fn claudes_settings_local_json_only_loses_its_hooks() {
    let env =
        Environment::from_vars("/".into(), |n| (n == "HOME").then(|| "/h".into())).expect("env");
    let targets = (claude::INSTALL.targets)(&env, InstallLevel::Project, Path::new("/p"));
    let paths: Vec<&Path> = targets.iter().map(|t| t.path.as_path()).collect();
    assert_eq!(
        paths,
        [
            Path::new("/p/.claude/settings.json"),
            Path::new("/p/.claude/settings.local.json")
        ]
    );
    assert_eq!(
        targets[1].sidecar,
        Path::new("/p/.claude/settings.local.hookrig.json")
    );
    let Kind::Json(local) = targets[1].kind else {
        unreachable!("Claude Code's settings are JSON")
    };
    assert_eq!(local.role, Role::MovesOnly);
    let edited = install_into(Some(SETTINGS), None, local);
    let file: Value = serde_json::from_str(&edited.file).expect("json");
    assert_eq!(file["hooks"], serde_json::json!({}));
    assert_eq!(file["model"], "opus");
    assert_eq!(edited.moved, 2);
    // Nothing new: nothing written.
    let again = install_into(Some(&edited.file), edited.sidecar.as_deref(), local);
    assert_eq!(again.file, edited.file);
    assert_eq!(again.sidecar, None);
    let (back, restored) = uninstall(
        Path::new("/h/.claude/settings.json"),
        Some(&edited.file),
        Path::new("/h/.claude/settings.hookrig.json"),
        edited.sidecar.as_deref(),
        local,
    )
    .expect("uninstalls");
    assert_eq!(restored, 2);
    assert_eq!(
        hooks_json::meaning(&back, local),
        hooks_json::meaning(SETTINGS, local)
    );
}

/// A home with `~/.codex` and a repository `repo/` (the working directory), for
/// installs into Codex through the real files.
struct CodexWorld {
    _dir: tempfile::TempDir,
    env: Environment,
    home: PathBuf,
    repo: PathBuf,
}

fn codex_world() -> CodexWorld {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    let home = root.join("home");
    let repo = root.join("repo");
    std::fs::create_dir_all(home.join(".codex")).expect("mkdir");
    std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
    let vars = |name: &str| (name == "HOME").then(|| home.clone().into_os_string());
    let env = Environment::from_vars(repo.clone(), vars).expect("env");
    CodexWorld {
        _dir: dir,
        env,
        home: home.join(".codex"),
        repo,
    }
}

fn codex_request(level: InstallLevel) -> InstallRequest {
    InstallRequest {
        host: Dialect::Codex,
        level,
        program: "hookrig".to_owned(),
        http: None,
    }
}

fn read_text(path: &Path) -> String {
    std::fs::read_to_string(path).expect("read")
}

/// The keys of `[hooks.state]` in a `config.toml` text.
fn state_keys(text: &str) -> Vec<String> {
    config_toml::meaning(text)
        .and_then(|t| t.get("hooks")?.get("state")?.as_table().cloned())
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn codex_state_keys_of_the_places_hookrig_takes_move_out_and_come_back() {
    // guards: a hook the user turned off in Codex at the place hookrig's entry takes
    // (the first handler of an event's first group) must not turn hookrig off
    let w = codex_world();
    let hooks_json = w.home.join("hooks.json");
    let at = |place: &str| format!("{}:{place}", hooks_json.display());
    std::fs::write(
        &hooks_json,
        r#"{"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]},
            {"hooks": [{"type": "command", "command": "log.sh"}]}
        ]}}"#,
    )
    .expect("write");
    let config = format!(
        "model = \"o3\" # mine\n\n[hooks.state.\"{}\"]\nenabled = false\n\n[hooks.state.\"{}\"]\nenabled = false\ntrusted_hash = \"sha256:1\"\n\n[features]\nhooks = true\n",
        at("pre_tool_use:0:0"),
        at("pre_tool_use:1:0"),
    );
    let config_path = w.home.join("config.toml");
    std::fs::write(&config_path, &config).expect("write");

    let report = super::install(&w.env, &codex_request(InstallLevel::User)).expect("installs");
    let toml_change = &report.files[1];
    assert!(toml_change.changed);
    assert_eq!(toml_change.moved, 0, "no hook moved out of config.toml");
    let after = read_text(&config_path);
    assert_eq!(state_keys(&after), [at("pre_tool_use:1:0")]);
    assert!(after.starts_with("model = \"o3\" # mine\n"), "{after}");
    let kept = read_text(&w.home.join("config.hookrig.toml"));
    assert_eq!(state_keys(&kept), [at("pre_tool_use:0:0")]);
    // The turned-off hooks stay off through hookrig.
    let side: Value =
        serde_json::from_str(&read_text(&w.home.join("hooks.hookrig.json"))).expect("json");
    assert_eq!(side["hooks"]["PreToolUse"][0]["hooks"][0]["enabled"], false);
    assert_eq!(side["hooks"]["PreToolUse"][1]["hooks"][0]["enabled"], false);

    let again = super::install(&w.env, &codex_request(InstallLevel::User)).expect("installs");
    assert!(again.files.iter().all(|f| !f.changed), "{again:?}");

    // Codex keeps its own state of hookrig's entry once the user reviewed it: that
    // state goes with the entry.
    let reviewed = format!(
        "{after}\n[hooks.state.\"{}\"]\ntrusted_hash = \"sha256:hookrig\"\n",
        at("stop:0:0")
    );
    std::fs::write(&config_path, reviewed).expect("write");
    let again = super::install(&w.env, &codex_request(InstallLevel::User)).expect("installs");
    assert!(
        again.files.iter().all(|f| !f.changed),
        "the state of hookrig's own entry is not taken"
    );

    super::uninstall(&w.env, Dialect::Codex, InstallLevel::User).expect("uninstalls");
    assert_eq!(read_text(&config_path), config, "byte for byte");
    assert!(!w.home.join("config.hookrig.toml").exists());
    assert!(!w.home.join("config.toml.hookrig-backup").exists());
}

#[test]
fn a_codex_project_install_takes_only_the_keys_of_the_projects_places() {
    let w = codex_world();
    let project_hooks = w.repo.join(".codex/hooks.json");
    std::fs::create_dir_all(w.repo.join(".codex")).expect("mkdir");
    std::fs::write(
        &project_hooks,
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}"#,
    )
    .expect("write");
    let user_hooks = w.home.join("hooks.json");
    std::fs::write(
        &user_hooks,
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}}"#,
    )
    .expect("write");
    let project_key = format!("{}:stop:0:0", project_hooks.display());
    let user_key = format!("{}:stop:0:0", user_hooks.display());
    let config = format!(
        "# my settings\n[hooks.state]\n\"{project_key}\" = {{ enabled = false }}\n\"{user_key}\" = {{ enabled = false }}\n"
    );
    let config_path = w.home.join("config.toml");
    std::fs::write(&config_path, &config).expect("write");

    super::install(&w.env, &codex_request(InstallLevel::Project)).expect("installs");
    assert_eq!(state_keys(&read_text(&config_path)), [user_key.as_str()]);
    let kept_path = w.home.join("config.hookrig.toml");
    assert_eq!(state_keys(&read_text(&kept_path)), [project_key.as_str()]);
    assert!(
        !w.repo.join(".codex/config.hookrig.toml").exists(),
        "nothing of the user's goes into the project"
    );

    super::install(&w.env, &codex_request(InstallLevel::User)).expect("installs");
    assert!(state_keys(&read_text(&config_path)).is_empty());
    let mut kept = state_keys(&read_text(&kept_path));
    kept.sort();
    let mut both = vec![project_key.clone(), user_key.clone()];
    both.sort();
    assert_eq!(kept, both);

    super::uninstall(&w.env, Dialect::Codex, InstallLevel::Project).expect("uninstalls");
    assert_eq!(state_keys(&read_text(&config_path)), [project_key]);
    assert_eq!(
        state_keys(&read_text(&kept_path)),
        [user_key],
        "the user level's key stays kept"
    );
    super::uninstall(&w.env, Dialect::Codex, InstallLevel::User).expect("uninstalls");
    assert_eq!(read_text(&config_path), config, "byte for byte");
    assert!(!kept_path.exists());
}

#[test]
fn a_codex_project_install_refuses_a_users_config_toml_that_does_not_parse() {
    let w = codex_world();
    std::fs::create_dir_all(w.repo.join(".codex")).expect("mkdir");
    let config_path = w.home.join("config.toml");
    std::fs::write(&config_path, "model = \"o3\"\n[hooks.state\n").expect("write");
    let err = super::install(&w.env, &codex_request(InstallLevel::Project))
        .expect_err("refused")
        .to_string();
    assert!(
        err.starts_with(&format!("{}:2:", config_path.display())),
        "{err}"
    );
    assert!(
        !w.repo.join(".codex/hooks.json").exists(),
        "nothing written"
    );
}

#[test]
fn codex_state_keys_come_back_when_the_user_changed_config_toml_meanwhile() {
    // guards: without the backup to restore, the kept keys are put back by meaning,
    // beside what the user changed
    let w = codex_world();
    let hooks_json = w.home.join("hooks.json");
    std::fs::write(
        &hooks_json,
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say"}]}]}}"#,
    )
    .expect("write");
    let key = format!("{}:stop:0:0", hooks_json.display());
    let config_path = w.home.join("config.toml");
    std::fs::write(
        &config_path,
        format!("model = \"o3\"\n\n[hooks.state.\"{key}\"]\nenabled = false\n\n[features]\nhooks = true\n"),
    )
    .expect("write");
    super::install(&w.env, &codex_request(InstallLevel::User)).expect("installs");
    let installed = read_text(&config_path);
    assert!(state_keys(&installed).is_empty(), "{installed}");
    std::fs::write(&config_path, installed.replace("\"o3\"", "\"gpt-5\"")).expect("write");

    super::uninstall(&w.env, Dialect::Codex, InstallLevel::User).expect("uninstalls");
    let back = read_text(&config_path);
    assert_eq!(state_keys(&back), [key.as_str()], "{back}");
    let meaning = config_toml::meaning(&back).expect("parses");
    assert_eq!(meaning["model"].as_str(), Some("gpt-5"));
    assert_eq!(meaning["features"]["hooks"].as_bool(), Some(true));
    assert_eq!(
        meaning["hooks"]["state"][key.as_str()]["enabled"].as_bool(),
        Some(false)
    );
    assert!(!w.home.join("config.hookrig.toml").exists());
    assert!(
        w.home.join("config.toml.hookrig-backup").exists(),
        "the backup stays while the file differs from it"
    );
}

#[test]
fn an_install_report_names_moved_hooks_backups_and_what_is_left_to_do() {
    let file = FileChange {
        path: PathBuf::from("/p/.claude/settings.json"),
        sidecar: PathBuf::from("/p/.claude/settings.hookrig.json"),
        changed: true,
        backup: Some(PathBuf::from("/p/.claude/settings.json.hookrig-backup")),
        moved: 2,
    };
    let report = InstallReport {
        host: Dialect::Claude,
        level: InstallLevel::Project,
        entry: "http://127.0.0.1:7700/emit".to_owned(),
        files: vec![file.clone()],
        trust: SidecarTrust::Untrusted {
            command: "hookrig trust /p".to_owned(),
        },
    };
    assert_eq!(
        report.to_string(),
        indoc! {"
            /p/.claude/settings.json: updated, 2 hooks moved to settings.hookrig.json; the original is kept in settings.json.hookrig-backup
            claude runs `http://127.0.0.1:7700/emit` on every event (project level)
            the moved hooks come with the project and are not trusted yet: review them, then run `hookrig trust /p`
            the engine must serve HTTP there (`hookrig serve --http ADDR`), and Claude Code must run with HOOKRIG_TOKEN set to its token (`hookrig serve --print-token`)
        "}
    );
    let unchanged = FileChange {
        changed: false,
        ..file
    };
    let report = UninstallReport {
        host: Dialect::Claude,
        level: InstallLevel::User,
        files: vec![unchanged],
    };
    assert_eq!(
        report.to_string(),
        indoc! {"
            /p/.claude/settings.json: unchanged
            hookrig is not installed in claude (user level); nothing changed
        "}
    );
}
