//! `memory_search`: notes and upserts ranked by bm25, re-ranked by a real
//! embeddings endpoint on 127.0.0.1 when one is configured.

use std::path::PathBuf;

use hookrig_automation::steps::EmbeddingsEndpoint;
use hookrig_store::Store;
use hookrig_test_support::{HttpStub, Reply};
use serde_json::{Value, json};

use crate::support::World;

fn notes(world: &World) {
    world.write(
        "notes/deploy.md",
        "# Deploy\nTo deploy, run make deploy. The deploy takes a minute; deploy on Mondays.\n\n## Kubernetes\nThe cluster runs kubernetes.\n",
    );
    world.write(
        "notes/rollback.md",
        "# Rollback\nIf a deploy breaks production, revert the release and tell the on-call person.\n",
    );
    world.write("notes/unrelated.md", "# Lunch\nSoup on Fridays.\n");
}

#[tokio::test]
async fn searches_notes_by_bm25_with_placeholders() {
    let mut world = World::new();
    notes(&world);
    world.env.event = Some(json!({"topic": "deploy", "project_id": "proj"}));
    let result = world
        .one(json!({"type": "memory_search", "project_id": "{{event.project_id}}", "query": "{{event.topic}}", "top_k": 2}))
        .await;
    assert_eq!(result["count"], 2);
    assert_eq!(result["ranking"], "lexical");
    let content = result["content"].as_str().expect("text");
    let first = content.split("\n\n### ").next().expect("a result");
    assert!(
        first.starts_with(&format!(
            "### {}/notes/deploy.md — Deploy (score ",
            world.root().display()
        )),
        "{content}"
    );
    assert!(first.contains("To deploy, run make deploy."), "{content}");
    assert!(content.contains("rollback.md — Rollback"), "{content}");
    assert!(!content.contains("Soup"));
    insta::assert_json_snapshot!(world.scrub(&result));
}

#[tokio::test]
async fn upserted_memories_are_searched_and_notes_follow_edits() {
    let world = World::new();
    notes(&world);
    {
        let ledger = Store::open(&world.env.store_path).expect("open");
        ledger
            .memory()
            .upsert(
                "proj",
                "event:chat",
                "Preferences",
                "the team prefers blue-green releases",
            )
            .expect("upsert");
        ledger
            .memory()
            .upsert("other", "event:chat", "Preferences", "releases elsewhere")
            .expect("upsert");
    }
    let result = world
        .one(json!({"type": "memory_search", "query": "blue-green"}))
        .await;
    assert_eq!(result["count"], 1);
    assert!(
        result["content"]
            .as_str()
            .expect("text")
            .starts_with("### event:chat — Preferences (score ")
    );

    std::fs::remove_file(world.root().join("notes/rollback.md")).expect("rm");
    let result = world
        .one(json!({"type": "memory_search", "query": "production"}))
        .await;
    assert_eq!(
        result,
        json!({"content": "", "count": 0, "ranking": "lexical", "_step_index": 0})
    );
}

#[tokio::test]
async fn an_unusable_store_degrades_to_empty_content() {
    let mut world = World::new();
    notes(&world);
    // A directory where the store file should be: SQLite cannot open it.
    std::fs::create_dir_all(&world.env.store_path).expect("mkdir");
    world.env.memory.notes_dir = PathBuf::from("notes");
    let result = world
        .one(json!({"type": "memory_search", "query": "deploy"}))
        .await;
    assert_eq!(
        result,
        json!({"content": "", "count": 0, "ranking": "lexical", "_step_index": 0})
    );
}

/// A two-dimensional embedding: texts about undoing things point one way,
/// everything else the other, so the stub "understands" that reverting a release
/// is what undoing a deploy means.
fn embedding(text: &str) -> Value {
    if text.contains("undo") || text.contains("revert") {
        json!([1.0, 0.0])
    } else {
        json!([0.0, 1.0])
    }
}

#[tokio::test]
async fn embeddings_rerank_the_lexical_candidates() {
    let stub = HttpStub::start(|request| {
        let body: Value = serde_json::from_slice(&request.body).expect("json body");
        let inputs = body["input"].as_array().expect("input list");
        // Answer in reverse order: the `index` field says which vector is which.
        let data: Vec<Value> = inputs
            .iter()
            .enumerate()
            .rev()
            .map(|(i, text)| json!({"index": i, "embedding": embedding(text.as_str().expect("text"))}))
            .collect();
        Reply::new(200, json!({"data": data}).to_string())
    });
    let base = stub.url();
    let mut world = World::new();
    notes(&world);
    world.env.memory.embeddings = Some(EmbeddingsEndpoint {
        base_url: format!("{base}/"),
        model: "embed-small".to_owned(),
        api_key: Some("sk-test".to_owned()),
    });
    let lexical = {
        let mut plain = World::new();
        notes(&plain);
        plain.env.memory.embeddings = None;
        plain
            .one(json!({"type": "memory_search", "query": "how do I undo a deploy", "top_k": 1}))
            .await
    };
    assert!(
        lexical["content"]
            .as_str()
            .expect("text")
            .contains("— Deploy (score"),
        "{lexical}"
    );

    let result = world
        .one(json!({"type": "memory_search", "query": "how do I undo a deploy", "top_k": 1}))
        .await;
    assert_eq!(result["ranking"], "embeddings");
    let content = result["content"].as_str().expect("text");
    assert!(
        content.contains("rollback.md — Rollback (score 1.000)"),
        "{content}"
    );
    let seen = stub.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/embeddings");
    assert_eq!(
        seen[0].headers.get("authorization").map(String::as_str),
        Some("Bearer sk-test")
    );
    let sent: Value = serde_json::from_slice(&seen[0].body).expect("json");
    assert_eq!(sent["model"], "embed-small");
    assert_eq!(sent["input"][0], "how do I undo a deploy");
}

#[tokio::test]
async fn a_failing_embeddings_endpoint_keeps_the_lexical_order() {
    let stub = HttpStub::replying(Reply::new(500, "down"));
    let mut world = World::new();
    notes(&world);
    world.env.memory.embeddings = Some(EmbeddingsEndpoint {
        base_url: stub.url().to_owned(),
        model: "m".to_owned(),
        api_key: None,
    });
    let result = world
        .one(json!({"type": "memory_search", "query": "deploy"}))
        .await;
    assert_eq!(result["ranking"], "lexical");
    assert_eq!(result["count"], 2);
    assert_eq!(
        result["embeddings_error"],
        "embeddings endpoint answered 500 Internal Server Error"
    );
}
