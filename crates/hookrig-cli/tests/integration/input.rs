//! What `emit` accepts on stdin and on its command line.

use serde_json::{Value, json};

use crate::harness::{emit, test_env};

fn marking_hook(env: &hookrig_test_support::TestEnv, matcher: Option<&str>) {
    env.write_script(".hookrig/mark.sh", "cat > hook-stdin.json\n");
    let matcher = matcher.map_or_else(String::new, |m| format!("matcher = \"{m}\"\n"));
    env.write_project_config(&format!(
        "[[hooks]]\nname = \"mark\"\nevents = [\"tool.before\"]\ncommand = \"./mark.sh\"\n{matcher}"
    ));
}

#[test]
fn stdin_that_is_not_json_fails_with_one_line() {
    let env = test_env();
    marking_hook(&env, None);

    let out = emit(&env, &["tool.before"], "{not json");

    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .starts_with("hookrig: error: stdin is not valid JSON"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(env.read_file("hook-stdin.json").is_none(), "no hook ran");
}

#[test]
fn stdin_that_is_a_json_array_fails() {
    let env = test_env();
    marking_hook(&env, None);

    let out = emit(&env, &["tool.before"], "[1, 2]");

    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "hookrig: error: the payload must be a JSON object, got an array\n"
    );
    assert!(env.read_file("hook-stdin.json").is_none(), "no hook ran");
}

#[test]
fn empty_stdin_is_an_empty_payload() {
    let env = test_env();
    marking_hook(&env, None);

    let out = emit(&env, &["tool.before"], "");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["payload"], json!({}));
    let seen: Value =
        serde_json::from_str(&env.read_file("hook-stdin.json").expect("hook ran")).expect("JSON");
    assert_eq!(
        seen,
        json!({
            "event": "tool.before",
            "session": {"id": "", "cwd": env.project().to_str().expect("UTF-8")}
        })
    );
}

#[test]
fn tool_option_names_the_tool_for_matchers() {
    let env = test_env();
    marking_hook(&env, Some("^write_file$"));

    let without = emit(&env, &["tool.before"], "");
    assert_eq!(without.result("mark"), "skipped");
    assert!(env.read_file("hook-stdin.json").is_none());

    let with = emit(&env, &["tool.before", "--tool", "write_file"], "");
    assert_eq!(with.code, 0, "{}", with.stderr);
    assert_eq!(with.result("mark"), "allow");
    assert_eq!(
        with.outcome["payload"],
        json!({"tool": {"name": "write_file"}})
    );
    let seen: Value =
        serde_json::from_str(&env.read_file("hook-stdin.json").expect("hook ran")).expect("JSON");
    assert_eq!(seen["tool"]["name"], "write_file");
}

#[test]
fn tool_option_does_not_override_the_payload() {
    let env = test_env();
    marking_hook(&env, Some("^write_file$"));

    let out = emit(
        &env,
        &["tool.before", "--tool", "write_file"],
        r#"{"tool_name": "bash"}"#,
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("mark"), "skipped", "the flat tool_name wins");
    // The flat form is moved into the tool section before any hook sees it.
    assert_eq!(out.outcome["payload"], json!({"tool": {"name": "bash"}}));
}
