//! Native webhooks (`url` hooks in `hooks.toml`) against a real HTTP server on
//! 127.0.0.1: the body and headers sent, the signature, the native reply rules, and every
//! failure under `on_error`.

use std::fmt::Write;
use std::time::Duration;

use hmac::{Hmac, Mac};
use hookrig_test_support::{HttpStub, Reply, TestEnv, refused_url};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::harness::{Emitted, emit, emit_untrusted, quoted, test_env};

const PAYLOAD: &str =
    r#"{"tool":{"name":"Bash","input":{"command":"ls"},"call_id":"toolu_1"},"extra":{"ü":1}}"#;

fn url_hook(name: &str, url: &str, extra: &str) -> String {
    format!("[[hooks]]\nname = \"{name}\"\nevents = [\"tool.before\"]\nurl = \"{url}\"\n{extra}\n")
}

fn hex_hmac(key: &[u8], body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("any key length");
    mac.update(body);
    let mut hex = String::new();
    for byte in mac.finalize().into_bytes() {
        write!(hex, "{byte:02x}").expect("writing to a String");
    }
    hex
}

fn emit_with(env: &TestEnv, vars: &[(&str, &str)], args: &[&str]) -> Emitted {
    let mut cmd = env.command(std::iter::once("emit").chain(args.iter().copied()));
    for (name, value) in vars {
        cmd.env(name, value);
    }
    let output =
        hookrig_test_support::run_with_input(cmd, PAYLOAD.as_bytes(), Duration::from_mins(1));
    let code = output.status.code().expect("exited");
    let stdout = String::from_utf8(output.stdout).expect("utf-8");
    let stderr = String::from_utf8(output.stderr).expect("utf-8");
    let outcome = if code == 1 {
        Value::Null
    } else {
        serde_json::from_str(&stdout).expect("an Outcome")
    };
    Emitted {
        code,
        stdout,
        stderr,
        outcome,
    }
}

#[test]
fn body_headers_and_signature() {
    let env = test_env();
    let stub = HttpStub::routes([("/hook?team=a", Reply::new(200, ""))]);
    let base = stub.url();
    // A command hook on the same event records its stdin: the webhook body must be the
    // same bytes.
    let stdin = env.root().join("stdin.json");
    let script = env.write_script(".hookrig/record.sh", &format!("cat > {}\n", quoted(&stdin)));
    env.write_project_config(&format!(
        "{}\n[[hooks]]\nname = \"record\"\nevents = [\"tool.before\"]\ncommand = {:?}\n",
        url_hook(
            "audit",
            &format!("{base}/hook?team=a"),
            "secret_env = \"HOOK_SECRET\"\nheaders = { Authorization = \"Bearer t0k3n\" }"
        ),
        script.display().to_string()
    ));

    // An alias on the command line: the header carries the canonical name.
    let out = emit_with(
        &env,
        &[("HOOK_SECRET", "s3cr3t")],
        &["PreToolUse", "--session", "s-1"],
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.results(),
        [
            ("audit".to_owned(), "allow".to_owned()),
            ("record".to_owned(), "allow".to_owned())
        ]
    );
    let received = stub.requests();
    assert_eq!(received.len(), 1);
    let (path, headers, body) = (&received[0].path, &received[0].headers, received[0].text());
    assert_eq!(path, "/hook?team=a");
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(headers["x-hookrig-event"], "tool.before");
    assert_eq!(headers["authorization"], "Bearer t0k3n");
    assert_eq!(
        headers["x-hookrig-signature"],
        format!("sha256={}", hex_hmac(b"s3cr3t", body.as_bytes()))
    );
    assert_eq!(
        body,
        &std::fs::read_to_string(&stdin).expect("the command hook ran"),
        "the body is what a command hook reads on stdin"
    );
    insta::assert_snapshot!(body.replace(env.root().to_str().expect("utf-8"), "[ROOT]"));
}

#[test]
fn no_signature_without_a_secret() {
    let env = test_env();
    let stub = HttpStub::routes([("/hook", Reply::new(200, ""))]);
    let base = stub.url();
    env.write_project_config(&url_hook("plain", &format!("{base}/hook"), ""));

    let out = emit(&env, &["tool.before"], PAYLOAD);

    assert_eq!(
        (out.code, out.result("plain")),
        (0, "allow"),
        "{}",
        out.stderr
    );
    let received = stub.requests();
    assert!(!received[0].headers.contains_key("x-hookrig-signature"));
}

#[test]
fn replies_follow_the_native_rules() {
    let env = test_env();
    let stub = HttpStub::routes([
        (
            "/deny",
            Reply::new(
                200,
                json!({"decision": "deny", "reason": "blocked by policy"}).to_string(),
            ),
        ),
        (
            "/modify",
            Reply::new(
                200,
                json!({"decision": "modify", "payload": {"tool": {"input": {"command": "ls -la"}}},
                    "context": "from the webhook", "system_prompt_append": "be careful"})
                .to_string(),
            ),
        ),
        (
            "/ask",
            Reply::new(
                201,
                json!({"decision": "ask", "reason": "sure?"}).to_string(),
            ),
        ),
    ]);
    let base = stub.url();

    env.write_project_config(&url_hook("gate", &format!("{base}/deny"), ""));
    let out = emit(&env, &["tool.before"], PAYLOAD);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "deny");
    assert_eq!(out.outcome["reason"], "blocked by policy");
    assert_eq!(out.outcome["decided_by"], "gate");

    env.write_project_config(&url_hook("rewrite", &format!("{base}/modify"), ""));
    let out = emit(&env, &["tool.before"], PAYLOAD);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("rewrite"), "modify");
    assert_eq!(
        out.outcome["payload"]["tool"],
        json!({"name": "Bash", "input": {"command": "ls -la"}, "call_id": "toolu_1"})
    );
    assert_eq!(out.outcome["payload"]["extra"], json!({"ü": 1}));
    insta::assert_json_snapshot!(
        "modify_outcome_context",
        json!({"context": out.outcome["context"], "system_prompt_append": out.outcome["system_prompt_append"]})
    );

    env.write_project_config(&url_hook("asker", &format!("{base}/ask"), ""));
    let out = emit(&env, &["tool.before"], PAYLOAD);
    assert_eq!(out.outcome["decision"], "ask", "any 2xx is a reply");
}

#[test]
fn failures_under_on_error() {
    let env = test_env();
    let stub = HttpStub::routes([
        ("/broken", Reply::new(500, "oops")),
        ("/slow", Reply::new(200, "").after(Duration::from_secs(3))),
        ("/text", Reply::new(200, "not json")),
        ("/array", Reply::new(200, "[1]")),
    ]);
    let base = stub.url();
    // Nothing listens on the port of a closed listener.
    let refused = format!("{}/gone", refused_url());

    let cases = [
        (
            format!("{base}/broken"),
            "",
            "error",
            format!("hook w: POST {base}/broken: HTTP 500"),
        ),
        (
            format!("{base}/slow"),
            "timeout = \"300ms\"",
            "timeout",
            format!("hook w: POST {base}/slow: timed out after 300ms"),
        ),
        (
            format!("{base}/text"),
            "",
            "error",
            format!("hook w: POST {base}/text: reply is not a JSON object"),
        ),
        (
            format!("{base}/array"),
            "",
            "error",
            format!("hook w: POST {base}/array: reply is not a JSON object"),
        ),
        (
            refused.clone(),
            "",
            "error",
            format!("hook w: POST {refused}: cannot connect: Connection refused (os error 111)"),
        ),
        (
            format!("{base}/unsigned"),
            "secret_env = \"HOOKRIG_TEST_UNSET_SECRET\"",
            "error",
            format!(
                "hook w: POST {base}/unsigned: secret variable HOOKRIG_TEST_UNSET_SECRET is not set; the request was not sent"
            ),
        ),
    ];
    for (url, extra, result, message) in &cases {
        env.write_project_config(&url_hook(
            "w",
            url,
            &format!("{extra}\non_error = \"allow\""),
        ));
        let out = emit(&env, &["tool.before"], PAYLOAD);
        assert_eq!(
            (out.code, out.outcome["decision"].as_str(), out.result("w")),
            (0, Some("allow"), *result),
            "{url}: {}",
            out.stdout
        );
        assert_eq!(out.warnings(), std::slice::from_ref(message), "{url}");

        env.write_project_config(&url_hook(
            "w",
            url,
            &format!("{extra}\non_error = \"deny\""),
        ));
        let out = emit(&env, &["tool.before"], PAYLOAD);
        assert_eq!(
            (out.code, out.outcome["decision"].as_str(), out.result("w")),
            (2, Some("deny"), *result),
            "{url}: {}",
            out.stdout
        );
        assert_eq!(out.outcome["reason"], message.as_str(), "{url}");
    }
}

// guards: a webhook answering 2 MiB of spaces then a deny was read as an empty reply
// (allow) even with `on_error = "deny"`; a body cut at the cap is a failure.
#[test]
fn a_body_of_spaces_over_the_cap_then_a_deny_goes_through_on_error() {
    let env = test_env();
    let body = format!("{}{{\"decision\":\"deny\"}}", " ".repeat(2 * 1024 * 1024));
    let stub = HttpStub::routes([("/spaces", Reply::new(200, body))]);
    let base = stub.url();
    env.write_project_config(&url_hook(
        "w",
        &format!("{base}/spaces"),
        "on_error = \"deny\"",
    ));
    let out = emit(&env, &["tool.before"], PAYLOAD);
    assert_eq!(
        (out.code, out.outcome["decision"].as_str(), out.result("w")),
        (2, Some("deny"), "error"),
        "{}",
        out.stdout
    );
    assert_eq!(
        out.outcome["reason"],
        format!("hook w: POST {base}/spaces: reply is larger than the 1 MiB stdout cap")
    );
}

#[test]
fn the_settings_timeout_is_the_default() {
    let env = test_env();
    let stub = HttpStub::routes([("/slow", Reply::new(200, "").after(Duration::from_secs(3)))]);
    let base = stub.url();
    env.write_project_config(&format!(
        "[settings]\ntimeout = \"200ms\"\n\n{}",
        url_hook("w", &format!("{base}/slow"), "")
    ));

    let out = emit(&env, &["tool.before"], PAYLOAD);

    assert_eq!(out.result("w"), "timeout");
    assert_eq!(
        out.warnings(),
        [format!("hook w: POST {base}/slow: timed out after 200ms")]
    );
    assert_eq!(stub.requests().len(), 1, "the request was sent");
}

#[test]
fn config_errors_have_positions() {
    let env = test_env();
    let path = env.write_project_config(indoc::indoc! {r#"
        [[hooks]]
        name = "both"
        events = ["tool.after"]
        command = "true"
        url = "http://127.0.0.1:1/h"

        [[hooks]]
        name = "bad"
        events = ["tool.after"]
        url = "localhost:8080/hook"
    "#});

    let out = emit(&env, &["tool.after"], "{}");

    // The file is skipped; its errors are the Outcome's warnings.
    assert_eq!(out.code, 0, "{}", out.stderr);
    let path = path.display();
    assert_eq!(
        out.warnings(),
        [
            format!("{path}:5:7: hook `both` sets both `command` and `url`; keep one"),
            format!(
                "{path}:10:7: hook `bad`: invalid url `localhost:8080/hook`: scheme `localhost` is not http or https; write url = \"http://host/path\""
            ),
        ],
        "{}",
        out.stdout
    );
}

#[test]
fn a_project_webhook_is_sent_only_once_trusted_and_again_after_a_change() {
    let env = test_env();
    let stub = HttpStub::routes([("/a", Reply::new(200, "")), ("/b", Reply::new(200, ""))]);
    let base = stub.url();
    let sent = || stub.requests().len();
    let trust = || {
        let output = env.run_untrusted(["trust"], b"");
        assert_eq!(output.status.code(), Some(0), "{output:?}");
    };
    env.write_project_config(&url_hook("w", &format!("{base}/a"), ""));

    let out = emit_untrusted(&env, &["tool.before"], PAYLOAD);
    assert_eq!((out.result("w"), sent()), ("untrusted", 0));

    trust();
    let out = emit_untrusted(&env, &["tool.before"], PAYLOAD);
    assert_eq!((out.result("w"), sent()), ("allow", 1));

    // The secret's name is part of the definition: naming another variable asks again.
    env.write_project_config(&url_hook(
        "w",
        &format!("{base}/a"),
        "secret_env = \"HOME\"",
    ));
    let out = emit_untrusted(&env, &["tool.before"], PAYLOAD);
    assert_eq!((out.result("w"), sent()), ("untrusted", 1));
    assert!(
        out.has_warning("its definition changed"),
        "{:?}",
        out.warnings()
    );

    // So is the URL.
    trust();
    env.write_project_config(&url_hook(
        "w",
        &format!("{base}/b"),
        "secret_env = \"HOME\"",
    ));
    let out = emit_untrusted(&env, &["tool.before"], PAYLOAD);
    assert_eq!((out.result("w"), sent()), ("untrusted", 1));
}
