//! Shadow hooks (`shadow = true`): they run on real events and decide nothing; the
//! ledger keeps what they would have decided, `runs --shadow` and `why` show it.

use indoc::indoc;
use serde_json::{Value, json};

use crate::harness::{code, emit, hookrig, test_env, text, why_json, why_text};

/// A shadow `candidate` that refuses `rm` and rewrites every command, and a real `ok`.
fn shadow_guard(env: &hookrig_test_support::TestEnv) {
    env.write_script(
        ".hookrig/candidate.sh",
        indoc! {r#"
            if grep -q '"rm' ; then
              echo '{"decision":"deny","reason":"rm is refused"}'
            else
              echo '{"decision":"modify","payload":{"tool":{"input":{"command":"rewritten"}}},"context":"from the shadow"}'
            fi
        "#},
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "candidate"
        events = ["tool.before"]
        command = "./candidate.sh"
        shadow = true

        [[hooks]]
        name = "ok"
        events = ["tool.before"]
        exec = ["true"]
    "#});
}

const RM: &str = r#"{"tool": {"name": "bash", "input": {"command": "rm -rf build"}}}"#;
const LS: &str = r#"{"tool": {"name": "bash", "input": {"command": "ls"}}}"#;

fn runs_json(env: &hookrig_test_support::TestEnv, args: &[&str]) -> Vec<Value> {
    let output = hookrig(env, &[&["runs", "--json"], args].concat());
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("runs --json prints a JSON array")
}

// guards: a shadow deny that denied, stopped the chain, or reached the host's answer
#[test]
fn a_shadow_deny_leaves_the_emit_allowed_and_is_recorded() {
    let env = test_env();
    shadow_guard(&env);

    let out = emit(&env, &["tool.before"], RM);

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow");
    assert_eq!(out.outcome["decided_by"], Value::Null);
    assert_eq!(
        out.results(),
        [
            ("candidate".to_owned(), "deny".to_owned()),
            ("ok".to_owned(), "allow".to_owned())
        ],
        "the chain went on past the shadow deny"
    );
    assert_eq!(out.hook("candidate")["shadow"], true);
    assert_eq!(out.hook("ok").get("shadow"), None);

    let why = why_json(&env, &out.run_id());
    assert_eq!(why["decision"], "allow");
    assert_eq!(why["hooks"][0]["name"], "candidate");
    assert_eq!(why["hooks"][0]["result"], "deny");
    assert_eq!(why["hooks"][0]["reason"], "rm is refused");
    assert_eq!(why["hooks"][0]["shadow"], true);
    assert_eq!(why["hooks"][1].get("shadow"), None);

    // Claude Code is answered as if the shadow hook had not run.
    let claude = emit(
        &env,
        &["--dialect", "claude"],
        &json!({
            "session_id": "s1",
            "cwd": env.project(),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf build"}
        })
        .to_string(),
    );
    assert_eq!(
        (claude.code, claude.stdout.as_str()),
        (0, "{}\n"),
        "{}",
        claude.stderr
    );
}

// guards: a shadow modify that reached the payload, or its context the host
#[test]
fn a_shadow_modify_does_not_change_the_payload() {
    let env = test_env();
    shadow_guard(&env);

    let out = emit(&env, &["tool.before"], LS);

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["payload"]["tool"]["input"]["command"], "ls");
    assert_eq!(out.outcome["context"], json!([]));
    assert_eq!(out.result("candidate"), "modify");
    assert_eq!(out.hook("candidate")["shadow"], true);
}

#[test]
fn runs_shadow_lists_the_emits_a_shadow_hook_disagreed_with_and_why_shows_it() {
    let env = test_env();
    shadow_guard(&env);
    let agreed = emit(&env, &["tool.before"], LS).run_id();
    let disagreed = emit(&env, &["tool.before"], RM).run_id();

    let listed = runs_json(&env, &["--shadow"]);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["run_id"], disagreed.as_str());
    assert_eq!(listed[0]["shadow_disagreed"], json!(["candidate"]));
    assert_eq!(runs_json(&env, &[]).len(), 2);

    let table = text(&hookrig(&env, &["runs", "--shadow"]).stdout);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 2, "{table}");
    assert!(
        lines[0].ends_with("DECIDED BY  SHADOW DISAGREED"),
        "{table}"
    );
    assert!(lines[1].starts_with(&disagreed), "{table}");
    assert!(lines[1].ends_with("  -           candidate"), "{table}");

    let why = why_text(&env, &agreed);
    assert!(
        why.contains("  shadow    would have decided allow; the emit decided allow: agrees"),
        "{why}"
    );
    let why = why_text(&env, &disagreed);
    insta::assert_snapshot!("why_with_a_shadow_deny", redact_why(&env, &why));

    let none = hookrig(&env, &["runs", "--shadow", "--event", "session.start"]);
    assert_eq!(
        text(&none.stdout),
        "(no run where a shadow hook disagreed)\n"
    );
}

/// The text of `why` from its decision on, without what changes from run to run: the
/// durations, the project's directory and the hooks' stdout.
fn redact_why(env: &hookrig_test_support::TestEnv, why: &str) -> String {
    let project = env.project().display().to_string();
    why.lines()
        .skip_while(|line| !line.starts_with("decision"))
        .filter(|line| !line.starts_with("  stdout"))
        .map(|line| {
            let line = line.replace(&project, "[project]");
            let Some(unit) = line.rfind(" ms") else {
                return line;
            };
            let number = line[..unit]
                .rfind(|c: char| !c.is_ascii_digit() && c != '.')
                .map_or(0, |at| at + 1);
            format!("{}[N]{}", &line[..number], &line[unit..])
        })
        .collect::<Vec<_>>()
        .join("\n")
}
