//! Wire contracts as snapshots: the Outcome JSON, the exact bytes a native hook reads on
//! stdin, the exit codes, the event catalog and a rendered config error.
//!
//! What varies between runs is replaced before snapshotting: the temporary directory by
//! `[TMP]`, the run id by `[RUN_ID]`, durations by `1.0`.

use std::fmt::Write as _;

use hookrig_test_support::TestEnv;
use indoc::indoc;
use serde_json::Value;

use crate::harness::{Emitted, code, emit, hookrig, test_env, text};

/// `text` with the test's temporary directory replaced by `[TMP]`.
fn redact_paths(env: &TestEnv, text: &str) -> String {
    text.replace(env.marker(), "[TMP]")
}

/// The Outcome, pretty-printed with its run id, durations and paths replaced; checks
/// first that hookrig printed it compact, in the field order it is parsed in.
fn normalized_outcome(env: &TestEnv, out: &Emitted) -> String {
    assert_eq!(
        serde_json::to_string(&out.outcome).expect("serializes"),
        out.stdout.trim_end(),
        "the Outcome is compact JSON"
    );
    let mut outcome = out.outcome.clone();
    assert!(outcome["run_id"].is_string());
    outcome["run_id"] = Value::from("[RUN_ID]");
    for hook in outcome["hooks"].as_array_mut().expect("hooks") {
        if hook["duration_ms"].is_number() {
            hook["duration_ms"] = Value::from(1.0);
        }
    }
    let pretty = serde_json::to_string_pretty(&outcome).expect("serializes");
    redact_paths(env, &pretty)
}

#[test]
fn outcome_of_an_allow_with_modify_context_and_system_prompt() {
    let env = test_env();
    env.write_script(
        ".hookrig/rewrite.sh",
        indoc! {r#"
            cat > /dev/null
            cat <<'EOF'
            {"decision": "modify", "payload": {"tool": {"input": {"path": "notes.txt"}}}, "context": "rewrote .env to notes.txt", "system_prompt_append": "Never write to .env files."}
            EOF
        "#},
    );
    env.write_script(
        ".hookrig/remind.sh",
        indoc! {r#"
            echo '{"context": "second hook context"}'
        "#},
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "rewrite"
        events = ["tool.before"]
        matcher = "write_file"
        command = "./rewrite.sh"

        [[hooks]]
        name = "remind"
        events = ["tool.before"]
        command = "./remind.sh"

        [[hooks]]
        name = "elsewhere"
        events = ["tool.before"]
        matcher = "bash"
        command = "./remind.sh"

        [[hooks]]
        name = "other-event"
        events = ["session.start"]
        command = "./remind.sh"
    "#});

    let out = emit(
        &env,
        &["PreToolUse", "--session", "s-1"],
        r#"{"tool":{"name":"write_file","input":{"path":".env","content":"X=1"}},"host_field":{"kept":true}}"#,
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(normalized_outcome(&env, &out));
}

#[test]
fn outcome_of_a_deny() {
    let env = test_env();
    env.write_script(
        ".hookrig/guard.sh",
        "echo 'writes to .env files are not allowed' >&2\nexit 2\n",
    );
    env.write_script(".hookrig/after.sh", "exit 0\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "guard"
        events = ["tool.before"]
        command = "./guard.sh"

        [[hooks]]
        name = "after"
        events = ["tool.before"]
        command = "./after.sh"
    "#});

    let out = emit(
        &env,
        &["tool.before"],
        r#"{"tool":{"name":"write_file","input":{"path":".env"}}}"#,
    );

    assert_eq!(out.code, 2, "{}", out.stderr);
    insta::assert_snapshot!(normalized_outcome(&env, &out));
}

// guards: a shadow hook's record in the Outcome says what it would have decided and
// that it is a shadow; the decision and the others' records are as without it
#[test]
fn outcome_with_a_shadow_deny() {
    let env = test_env();
    env.write_script(
        ".hookrig/guard.sh",
        "echo 'writes to .env files are not allowed' >&2\nexit 2\n",
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "guard"
        events = ["tool.before"]
        command = "./guard.sh"
        shadow = true

        [[hooks]]
        name = "after"
        events = ["tool.before"]
        exec = ["true"]
    "#});

    let out = emit(
        &env,
        &["tool.before"],
        r#"{"tool":{"name":"write_file","input":{"path":".env"}}}"#,
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(normalized_outcome(&env, &out));
}

#[test]
fn exact_stdin_of_a_native_hook() {
    let env = test_env();
    env.write_script(".hookrig/dump.sh", "cat > stdin.bin\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "dump"
        events = ["tool.before"]
        command = "./dump.sh"
    "#});

    let out = emit(
        &env,
        &["pre_tool", "--session", "s-7"],
        // Pretty-printed on purpose, with the host's own `event` field and session fields.
        indoc! {r#"
            {
              "tool": {"name": "edit", "input": {"path": "a.rs", "text": "é\n\"q\""}},
              "session": {"model": "m-1"},
              "event": "host-sent",
              "extra": [1, 2.5, null, true]
            }
        "#},
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    let bytes = std::fs::read(env.project().join("stdin.bin")).expect("the hook ran");
    let stdin = String::from_utf8(bytes).expect("UTF-8");
    assert!(!stdin.ends_with('\n'), "no trailing newline: {stdin:?}");
    assert!(stdin.starts_with(r#"{"event":"tool.before","#), "{stdin}");
    let reparsed: Value = serde_json::from_str(&stdin).expect("JSON");
    assert_eq!(
        serde_json::to_string(&reparsed).expect("serializes"),
        stdin,
        "compact JSON"
    );
    insta::assert_snapshot!(redact_paths(&env, &stdin));
}

#[test]
fn exit_codes() {
    let env = test_env();
    env.write_script(
        ".hookrig/reply.sh",
        indoc! {r#"
            case "$(cat)" in
                *'"tool":{"name":"deny"'*) echo no >&2; exit 2 ;;
                *'"tool":{"name":"ask"'*) echo '{"decision":"ask","reason":"sure?"}' ;;
                *'"tool":{"name":"modify"'*) echo '{"decision":"modify","payload":{"x":1}}' ;;
                *'"tool":{"name":"fail"'*) exit 3 ;;
            esac
        "#},
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "reply"
        events = ["tool.before"]
        command = "./reply.sh"
    "#});

    let mut table = String::new();
    let cases = [
        ("allow", r#"{"tool":{"name":"allow"}}"#),
        ("ask", r#"{"tool":{"name":"ask"}}"#),
        ("modify", r#"{"tool":{"name":"modify"}}"#),
        (
            "hook exits 3 (on_error allow)",
            r#"{"tool":{"name":"fail"}}"#,
        ),
        ("deny", r#"{"tool":{"name":"deny"}}"#),
        ("stdin not JSON", "{"),
        ("stdin a JSON string", r#""x""#),
    ];
    for (case, payload) in cases {
        let out = emit(&env, &["tool.before"], payload);
        let decision = out.outcome["decision"].as_str().unwrap_or("-").to_owned();
        let _ = writeln!(table, "{case:30} exit {}  decision {decision}", out.code);
    }
    // A broken file is skipped with an error among the warnings; the rest decides.
    env.write_project_config("[[hooks]\n");
    let out = emit(&env, &["tool.before"], "{}");
    let _ = writeln!(
        table,
        "{:30} exit {}  decision {}",
        "broken config",
        out.code,
        out.outcome["decision"].as_str().unwrap_or("-")
    );
    insta::assert_snapshot!(table);
}

#[test]
fn events_text() {
    let env = test_env();
    let output = hookrig(&env, &["events"]);
    assert_eq!(code(&output), 0);
    insta::assert_snapshot!(text(&output.stdout));
}

#[test]
fn rendered_config_errors() {
    let env = test_env();
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "guard"
        events = ["tool.before"]
        command = "./guard.sh"
        timeout = "soon"
        on_error = "explode"

        [[hooks]]
        name = "guard"
        events = ["tool.before"]
        exec = ["true"]
    "#});

    let out = emit(&env, &["tool.before"], "{}");

    // The file is skipped; its errors are the Outcome's warnings, and `validate` fails.
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(redact_paths(&env, &out.warnings().join("\n")));
}

#[test]
fn rendered_syntax_error() {
    let env = test_env();
    env.write_project_config("[[hooks]]\nname = \"guard\nevents = []\n");

    let out = emit(&env, &["tool.before"], "{}");

    // The file is skipped; its errors are the Outcome's warnings, and `validate` fails.
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(redact_paths(&env, &out.warnings().join("\n")));
}
