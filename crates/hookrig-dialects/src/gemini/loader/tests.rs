//! The Gemini CLI settings loader: valid files, every error at its place, unknown keys
//! as warnings, and the rules that need every layer (sequential events, disabled hooks,
//! identical hooks run once).

use hookrig_config::Environment;
use indoc::indoc;
use test_case::test_case;

use super::*;
use crate::loader::LoadOptions;

fn parse_ok(text: &str) -> (ParsedFile, Vec<String>) {
    let mut diagnostics = Vec::new();
    let file = parse(
        Path::new("/p/.gemini/settings.json"),
        text,
        Layer::Project,
        &mut diagnostics,
    )
    .unwrap_or_else(|d| panic!("{d}"));
    (file, diagnostics.iter().map(ToString::to_string).collect())
}

fn names(file: &ParsedFile) -> Vec<&str> {
    file.hooks
        .iter()
        .map(|(h, _)| h.spec.name.as_str())
        .collect()
}

#[test]
fn a_valid_file_is_lowered() {
    let (file, diagnostics) = parse_ok(indoc! {r#"
        {
          // Gemini CLI allows comments in its settings.
          "general": {"vimMode": true},
          "hooks": {
            "BeforeTool": [
              {"matcher": "run_shell_command|write_.*", "hooks": [
                {"name": "guard", "type": "command", "command": "$GEMINI_PROJECT_DIR/.gemini/guard.sh",
                 "timeout": 5000, "description": "no rm -rf", "env": {"MODE": "strict"}}
              ]}
            ],
            /* A lifecycle matcher is an exact value. */
            "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "ctx.sh"}]}],
            "AfterAgent": [{"matcher": "ignored", "hooks": [{"type": "command", "command": "a.sh"}]}]
          }
        }
    "#});
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(
        names(&file),
        [
            "gemini:project:BeforeTool:1",
            "gemini:project:SessionStart:1",
            "gemini:project:AfterAgent:1"
        ]
    );
    let (guard, name) = &file.hooks[0];
    assert_eq!(name.name, "guard");
    assert_eq!(name.key, "guard:$GEMINI_PROJECT_DIR/.gemini/guard.sh");
    assert_eq!(guard.spec.timeout, Some(Duration::from_secs(5)));
    assert_eq!(guard.spec.events[0].as_str(), "tool.before");
    assert_eq!(guard.spec.group.as_deref(), Some(GROUP));
    assert_eq!(guard.spec.description.as_deref(), Some("no rm -rf"));
    assert_eq!(guard.env, [("MODE".to_owned(), "strict".to_owned())]);
    assert!(guard.spec.matcher.matches(Some("write_file")));
    assert!(guard.spec.matcher.matches(Some("run_shell_command")));
    assert!(!guard.spec.matcher.matches(Some("read_file")));
    let (start, name) = &file.hooks[1];
    assert_eq!(name.name, "ctx.sh");
    assert_eq!(start.spec.timeout, Some(DEFAULT_TIMEOUT));
    assert_eq!(start.spec.matcher_field, Some("source"));
    assert!(start.spec.matcher.matches(Some("startup")));
    assert!(!start.spec.matcher.matches(Some("resume")));
    assert!(matches!(file.hooks[2].0.spec.matcher, Matcher::Any));
}

#[test_case("", true ; "empty")]
#[test_case(" * ", true ; "star trimmed")]
#[test_case("shell", true ; "unanchored regex")]
#[test_case("^read_", false ; "anchored regex")]
#[test_case("run_shell_command(", false ; "invalid regex is an exact name")]
fn tool_matchers(pattern: &str, matches_shell: bool) {
    let text = format!(
        r#"{{"hooks": {{"BeforeTool": [{{"matcher": {pattern:?}, "hooks": [{{"type": "command", "command": "x"}}]}}]}}}}"#
    );
    let (file, _) = parse_ok(&text);
    let matcher = &file.hooks[0].0.spec.matcher;
    assert_eq!(matcher.matches(Some("run_shell_command")), matches_shell);
    if pattern.ends_with('(') {
        assert!(matcher.matches(Some("run_shell_command(")));
    }
}

#[test]
fn syntax_error_names_line_and_column() {
    let text = "{\n  \"hooks\": {\n    \"BeforeTool\": [,]\n  }\n}\n";
    let err = parse(
        Path::new("/p/.gemini/settings.json"),
        text,
        Layer::Project,
        &mut Vec::new(),
    )
    .expect_err("broken");
    assert_eq!(
        err.to_string(),
        "/p/.gemini/settings.json:3:20: invalid Gemini CLI settings, file skipped: expected value"
    );
}

#[test]
fn bad_entries_are_skipped_alone_with_positions() {
    let (file, diagnostics) = parse_ok(indoc! {r#"
        {
          "hooks": {
            "disabled": "guard",
            "BeforeTool": [
              {"matcher": 5, "hooks": [{"type": "command", "command": "a"}]},
              {"hooks": {"type": "command"}},
              {"matchr": "x", "hooks": [
                {"type": "plugin", "command": "p"},
                {"type": "command"},
                {"type": "shell", "command": "s"},
                {"command": "t"},
                {"type": "command", "command": "slow", "timeout": 0},
                {"type": "command", "command": "e", "env": {"A": 1}},
                {"type": "command", "command": "ok", "timout": 10}
              ]},
              "not an object",
              {}
            ],
            "BeforeTol": [],
            "AfterTool": {"hooks": []}
          }
        }
    "#});
    assert_eq!(names(&file), ["gemini:project:BeforeTool:7"]);
    insta::assert_snapshot!(diagnostics.join("\n"));
}

#[test]
fn switches_and_disabled_lists_are_read() {
    let (file, _) = parse_ok(
        r#"{"tools": {"enableHooks": false}, "hooksConfig": {"disabled": ["a"]}, "hooks": {"disabled": ["b"]}}"#,
    );
    assert!(file.turned_off);
    assert_eq!(file.disabled, ["a", "b"]);
    for text in [
        r#"{"hooksConfig": {"enabled": false}}"#,
        r#"{"hooks": {"enabled": false}}"#,
    ] {
        assert!(parse_ok(text).0.turned_off, "{text}");
    }
    assert!(!parse_ok(r#"{"hooks": {"enabled": true}}"#).0.turned_off);
}

#[test]
fn comments_are_blanked_in_place() {
    let text = "{\"a\": \"//not\", // gone\n/* x\ny */ \"b\": \"/*kept*/\"}";
    let blanked = blank_comments(text);
    assert_eq!(blanked.len(), text.len());
    assert_eq!(
        blanked,
        "{\"a\": \"//not\",        \n    \n     \"b\": \"/*kept*/\"}"
    );
    assert_eq!(blank_comments("\"é\" // é"), "\"é\"      ");
}

// Whole loads, with every layer.

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A home and a project (the working directory) in `root`.
fn environment(root: &Path) -> Environment {
    let home = root.join("home");
    let project = root.join("project");
    std::fs::create_dir_all(project.join(".git")).expect("mkdir");
    std::fs::create_dir_all(&home).expect("mkdir");
    let vars = |name: &str| (name == "HOME").then(|| home.clone().into_os_string());
    Environment::from_vars(project, vars).expect("env")
}

fn handlers(commands: &[(&str, bool)]) -> String {
    let defs: Vec<String> = commands
        .iter()
        .map(|(command, sequential)| {
            format!(
                r#"{{"sequential": {sequential}, "hooks": [{{"type": "command", "command": "{command}"}}]}}"#
            )
        })
        .collect();
    defs.join(",")
}

#[test]
fn a_sequential_definition_makes_every_hook_of_its_event_run_in_order() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let env = environment(tmp.path());
    write(
        &env.home.join(".gemini/settings.json"),
        &format!(
            r#"{{"hooks": {{"BeforeTool": [{}], "AfterTool": [{}]}}}}"#,
            handlers(&[("u1", false)]),
            handlers(&[("u2", false), ("u3", false)])
        ),
    );
    write(
        &env.cwd.join(".gemini/settings.json"),
        &format!(
            r#"{{"hooks": {{"BeforeTool": [{}]}}}}"#,
            handlers(&[("p1", true)])
        ),
    );
    let config = crate::loader::read_sources(&env, &LoadOptions::default()).trusted(&env, None);
    let shape: Vec<(String, Option<String>, bool)> = config
        .hooks
        .iter()
        .map(|def| {
            let protocol = def.protocol_as::<GeminiProtocol>().expect("gemini");
            (
                def.spec.name.clone(),
                def.spec.group.clone(),
                protocol.0.sequential,
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            ("gemini:user:BeforeTool:1".to_owned(), None, true),
            (
                "gemini:user:AfterTool:1".to_owned(),
                Some("gemini".to_owned()),
                false
            ),
            (
                "gemini:user:AfterTool:2".to_owned(),
                Some("gemini".to_owned()),
                false
            ),
            ("gemini:project:BeforeTool:1".to_owned(), None, true),
        ]
    );
    // The project's hook is untrusted until `hookrig trust`, as every project hook.
    assert!(config.hooks[3].spec.untrusted.is_some());
    assert!(config.hooks[0].spec.untrusted.is_none());
}

#[test]
fn identical_hooks_run_once_and_disabled_ones_never() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let env = environment(tmp.path());
    write(
        &env.home.join(".gemini/settings.json"),
        r#"{"hooks": {"disabled": ["quiet"], "BeforeTool": [{"hooks": [
            {"type": "command", "command": "same.sh"},
            {"name": "quiet", "type": "command", "command": "q.sh"},
            {"name": "mine", "type": "command", "command": "m.sh"}
        ]}]}}"#,
    );
    write(
        &env.cwd.join(".gemini/settings.json"),
        r#"{"hooks": {"disabled": ["mine", "p.sh"], "BeforeTool": [{"hooks": [
            {"type": "command", "command": "same.sh"},
            {"type": "command", "command": "p.sh"}
        ]}]}}"#,
    );
    let config = crate::loader::read_sources(&env, &LoadOptions::default()).trusted(&env, None);
    let shape: Vec<(&str, bool)> = config
        .hooks
        .iter()
        .map(|def| (def.spec.name.as_str(), def.spec.enabled))
        .collect();
    // The project's list turns off its own `p.sh`, not the user's `mine`.
    assert_eq!(
        shape,
        [
            ("gemini:user:BeforeTool:1", true),
            ("gemini:user:BeforeTool:2", false),
            ("gemini:user:BeforeTool:3", true),
            ("gemini:project:BeforeTool:2", false),
        ]
    );
    assert_eq!(config.shadowed.len(), 1);
    assert_eq!(
        config.shadowed[0].hook.spec.name,
        "gemini:project:BeforeTool:1"
    );
    assert_eq!(config.shadowed[0].by, "gemini:user:BeforeTool:1");
}

#[test]
fn the_users_switch_turns_every_gemini_hook_off_and_a_broken_file_leaves_the_others() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let env = environment(tmp.path());
    write(&env.home.join(".gemini/settings.json"), "{\"hooks\": ");
    write(
        &env.cwd.join(".gemini/settings.json"),
        r#"{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "p.sh"}]}]}}"#,
    );
    let config = crate::loader::read_sources(&env, &LoadOptions::default()).trusted(&env, None);
    assert_eq!(config.hooks.len(), 1);
    assert!(config.hooks[0].spec.enabled);
    assert!(
        config.warnings.iter().any(|w| w
            .to_string()
            .contains("invalid Gemini CLI settings, file skipped")),
        "{:?}",
        config.warnings
    );

    write(
        &env.home.join(".gemini/settings.json"),
        r#"{"hooksConfig": {"enabled": false}}"#,
    );
    let config = crate::loader::read_sources(&env, &LoadOptions::default()).trusted(&env, None);
    assert!(!config.hooks[0].spec.enabled);
}
