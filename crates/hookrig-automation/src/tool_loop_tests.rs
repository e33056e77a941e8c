use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hookrig_config::ConfigToml;
use hookrig_test_support::{HttpStub, Reply, Request};
use serde_json::{Value, json};

use super::Limits;
use crate::llm::{Llm, LlmError, ResolvedLlm};
use crate::steps::{MemoryOptions, StepEnv};
use crate::tools::{ActionLog, BuiltinTools, NoTools, ToolEnv, ToolGrants};

/// A stub that answers the n-th request with the n-th reply, and the last one after.
fn scripted(replies: Vec<Value>) -> HttpStub {
    let next = AtomicUsize::new(0);
    HttpStub::start(move |_: &Request| {
        let n = next.fetch_add(1, Ordering::SeqCst).min(replies.len() - 1);
        Reply::json(200, replies[n].to_string())
    })
}

fn llm(dir: &Path) -> Llm {
    Llm::new(&ConfigToml::default(), dir).with_env([
        ("OPENAI_API_KEY".to_owned(), "sk-test".to_owned()),
        ("ANTHROPIC_API_KEY".to_owned(), "sk-ant-test".to_owned()),
    ])
}

fn config(provider: &str, url: &str) -> ResolvedLlm {
    ResolvedLlm {
        provider: provider.to_owned(),
        model: Some("test-model".to_owned()),
        base_url: Some(url.to_owned()),
        api_key_env: None,
        timeout: Duration::from_secs(10),
        max_tokens: 1024,
    }
}

/// A workspace with `notes.txt`, and a file outside it.
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).expect("mkdir");
    std::fs::write(ws.join("notes.txt"), "first line\nsecond line\n").expect("write");
    std::fs::write(dir.path().join("secret.txt"), "outside").expect("write");
    (dir, ws)
}

fn tools(ws: &Path, grants: ToolGrants) -> BuiltinTools {
    BuiltinTools::new(
        ToolEnv {
            steps: StepEnv {
                event: None,
                workspace: ws.to_owned(),
                project_id: "p".to_owned(),
                store_path: ws.join("store.db"),
                memory: MemoryOptions::default(),
                shared: None,
            },
            automation_name: "nightly".to_owned(),
            agent: "nightly".to_owned(),
            notifiers: None,
        },
        grants,
    )
}

const LIMITS: Limits = Limits {
    max_rounds: 10,
    max_tokens: None,
};

/// The request bodies, with the workspace's path written `[ws]` and file times 0.
fn bodies(stub: &HttpStub, ws: &Path) -> Value {
    let text = Value::Array(stub.requests().iter().map(Request::json).collect()).to_string();
    let ws = serde_json::to_string(&ws.display().to_string()).expect("a string");
    let ws = &ws[1..ws.len() - 1];
    let mtime = regex::Regex::new(r#"\\"mtime\\":[0-9.e+]+"#).expect("a regex");
    let text = text.replace(ws, "[ws]");
    let text = mtime.replace_all(&text, r#"\"mtime\":0"#);
    serde_json::from_str(&text).expect("still JSON")
}

fn openai_calls(calls: &[(&str, &str, Value)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| {
            // A string is sent as it is, so that a test can send arguments that are not JSON.
            let text = args
                .as_str()
                .map_or_else(|| args.to_string(), str::to_owned);
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": text}})
        })
        .collect();
    json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": calls}}]})
}

fn openai_text(text: &str) -> Value {
    json!({"choices": [{"message": {"role": "assistant", "content": text}}], "usage": {"total_tokens": 7}})
}

fn anthropic_uses(uses: &[(&str, &str, Value)]) -> Value {
    let mut blocks = vec![json!({"type": "text", "text": "Let me look."})];
    blocks.extend(uses.iter().map(
        |(id, name, input)| json!({"type": "tool_use", "id": id, "name": name, "input": input}),
    ));
    json!({"content": blocks, "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5}})
}

#[tokio::test]
async fn openai_loop_calls_the_tools_feeds_results_back_and_stops_at_the_answer() {
    let (_dir, ws) = workspace();
    let stub = scripted(vec![
        openai_calls(&[
            (
                "c1",
                "read_file",
                json!({"path": "notes.txt", "max_lines": 1}),
            ),
            ("c2", "read_file", json!({"path": "../secret.txt"})),
        ]),
        openai_text("The notes start with `first line`."),
    ]);
    let log = ActionLog::default();
    let reply = llm(&ws)
        .converse(
            "Summarise the notes.",
            &config("openai", stub.url()),
            &tools(&ws, ToolGrants::default()),
            LIMITS,
            &log,
        )
        .await
        .expect("answers");
    assert_eq!(reply.text, "The notes start with `first line`.");
    let actions = log.actions();
    assert_eq!(actions.len(), 2);
    assert_eq!(
        actions[0].result.as_ref().map(|r| &r["content"]),
        Some(&json!("first line"))
    );
    // guards: a path the model names may not leave the workspace.
    let refused = actions[1].error.as_deref().expect("refused");
    assert!(
        refused.starts_with("`path` \"../secret.txt\" is outside the workspace"),
        "{refused}"
    );
    assert!(actions[1].result.is_none());
    insta::assert_json_snapshot!(bodies(&stub, &ws));
}

#[tokio::test]
async fn anthropic_loop_refuses_an_ungranted_tool_and_feeds_the_refusal_back() {
    let (_dir, ws) = workspace();
    let stub = scripted(vec![
        anthropic_uses(&[
            (
                "tu1",
                "shell",
                json!({"program": "rm", "args": ["-rf", "/"]}),
            ),
            ("tu2", "list_files", json!({})),
        ]),
        json!({"content": [{"type": "text", "text": "I may not run commands."}], "stop_reason": "end_turn"}),
    ]);
    let log = ActionLog::default();
    let reply = llm(&ws)
        .converse(
            "Clean up.",
            &config("anthropic", stub.url()),
            &tools(&ws, ToolGrants::default()),
            LIMITS,
            &log,
        )
        .await
        .expect("answers");
    assert_eq!(reply.text, "I may not run commands.");
    assert_eq!(reply.tokens_reported, Some(15));
    let actions = log.actions();
    assert_eq!(
        actions[0].error.as_deref(),
        Some(
            "tool `shell` is not granted to this automation; it may call read_file, list_files, memory_search"
        )
    );
    assert_eq!(
        actions[1].result.as_ref().map(|r| &r["count"]),
        Some(&json!(1))
    );
    insta::assert_json_snapshot!(bodies(&stub, &ws));
}

#[tokio::test]
async fn a_model_that_never_stops_asking_is_stopped_at_max_rounds() {
    let (_dir, ws) = workspace();
    let stub = scripted(vec![openai_calls(&[("c", "list_files", json!({}))])]);
    let log = ActionLog::default();
    let limits = Limits {
        max_rounds: 3,
        max_tokens: None,
    };
    let err = llm(&ws)
        .converse(
            "Loop.",
            &config("openai", stub.url()),
            &tools(&ws, ToolGrants::default()),
            limits,
            &log,
        )
        .await
        .expect_err("stopped");
    assert_eq!(err, LlmError::RoundLimit { rounds: 3 });
    assert_eq!(
        err.to_string(),
        "the model still asked for tools after 3 tool rounds (max_tool_rounds); the run was stopped"
    );
    assert_eq!(stub.count(), 4);
    assert_eq!(log.actions().len(), 3);
}

#[tokio::test]
async fn the_token_cap_counts_the_whole_loop_and_stops_before_sending() {
    let (_dir, ws) = workspace();
    std::fs::write(ws.join("big.txt"), "word ".repeat(2000)).expect("write");
    let stub = scripted(vec![
        anthropic_uses(&[("tu", "read_file", json!({"path": "big.txt"}))]),
        json!({"content": [{"type": "text", "text": "done"}]}),
    ]);
    let log = ActionLog::default();
    let limits = Limits {
        max_rounds: 10,
        max_tokens: Some(1000),
    };
    let err = llm(&ws)
        .converse(
            "Read big.txt",
            &config("anthropic", stub.url()),
            &tools(&ws, ToolGrants::default()),
            limits,
            &log,
        )
        .await
        .expect_err("stopped");
    let LlmError::TokenLimit {
        estimate,
        max,
        rounds,
    } = err
    else {
        panic!("a token limit: {err}");
    };
    assert!(
        estimate > 2500,
        "the file's 10000 characters count: {estimate}"
    );
    assert_eq!((max, rounds), (1000, 1));
    // The second request, which would carry the file, was never sent.
    assert_eq!(stub.count(), 1);
    assert_eq!(log.actions().len(), 1);
}

#[tokio::test]
async fn a_tool_error_is_fed_back_not_fatal() {
    let (_dir, ws) = workspace();
    let stub = scripted(vec![
        openai_calls(&[("c1", "read_file", json!({"path": "missing.txt"}))]),
        openai_calls(&[("c2", "read_file", Value::String("{not json".into()))]),
        openai_text("Nothing to read."),
    ]);
    let log = ActionLog::default();
    let reply = llm(&ws)
        .converse(
            "Read.",
            &config("openai", stub.url()),
            &tools(&ws, ToolGrants::default()),
            LIMITS,
            &log,
        )
        .await
        .expect("answers");
    assert_eq!(reply.text, "Nothing to read.");
    let actions = log.actions();
    assert!(
        actions[0]
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with("could not read ")),
        "{actions:?}"
    );
    assert_eq!(actions[1].arguments, json!("{not json"));
    assert_eq!(
        actions[1].error.as_deref(),
        Some("the arguments are not a JSON object")
    );
    let fed = &stub.requests()[1].json()["messages"][2];
    assert_eq!(fed["role"], "tool");
    assert!(
        fed["content"]
            .as_str()
            .is_some_and(|c| c.starts_with("error: could not read ")),
        "{fed}"
    );
}

#[tokio::test]
async fn without_tools_the_request_is_the_single_call() {
    let (_dir, ws) = workspace();
    let stub = scripted(vec![openai_text("ok")]);
    let log = ActionLog::default();
    let reply = llm(&ws)
        .converse("p", &config("openai", stub.url()), &NoTools, LIMITS, &log)
        .await
        .expect("answers");
    assert_eq!(reply.text, "ok");
    assert!(stub.requests()[0].json().get("tools").is_none());
}

#[tokio::test]
async fn each_call_is_told_to_the_watcher_as_it_ends() {
    let (_dir, ws) = workspace();
    let stub = scripted(vec![
        openai_calls(&[("c1", "list_files", json!({}))]),
        openai_calls(&[("c2", "read_file", json!({"path": "notes.txt"}))]),
        openai_text("done"),
    ]);
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let log = ActionLog::watched(Arc::new(move |actions| {
        sink.lock()
            .expect("not poisoned")
            .push(actions.iter().map(|a| a.name.clone()).collect::<Vec<_>>());
    }));
    llm(&ws)
        .converse(
            "p",
            &config("openai", stub.url()),
            &tools(&ws, ToolGrants::default()),
            LIMITS,
            &log,
        )
        .await
        .expect("answers");
    assert_eq!(
        *seen.lock().expect("not poisoned"),
        [vec!["list_files"], vec!["list_files", "read_file"]]
    );
}
