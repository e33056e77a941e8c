//! `http` against a real server on 127.0.0.1.

use hookrig_test_support::{HttpStub, Reply, refused_url};
use serde_json::json;

use crate::support::World;

#[tokio::test]
async fn ok_not_found_and_truncated_bodies() {
    let stub = HttpStub::start(|request| match request.path.as_str() {
        "/ok" => Reply::new(200, "all good"),
        "/missing" => Reply::new(404, "no such page"),
        "/big" => Reply::new(200, "é".repeat(60_000)),
        _ => Reply::new(500, "boom"),
    });
    let base = stub.url();
    let world = World::new();
    let results = world
        .run(json!([
            {"type": "http", "url": format!("{base}/ok")},
            {"type": "http", "url": format!("{base}/missing")},
            {"type": "http", "url": format!("{base}/other")},
        ]))
        .await;
    insta::assert_json_snapshot!(results, @r#"
    [
      {
        "body": "all good",
        "status_code": 200,
        "_step_index": 0
      },
      {
        "body": "no such page",
        "status_code": 404,
        "error": "HTTP Error 404: Not Found",
        "_step_index": 1
      },
      {
        "body": "boom",
        "status_code": 500,
        "error": "HTTP Error 500: Internal Server Error",
        "_step_index": 2
      }
    ]
    "#);
    let big = world
        .one(json!({"type": "http", "url": format!("{base}/big")}))
        .await;
    let body = big["body"].as_str().expect("text");
    assert_eq!(body.chars().count(), 50_000);
    assert!(body.chars().all(|c| c == 'é'));
    let seen = stub.requests();
    assert!(seen.iter().all(|r| r.body.is_empty()), "GET sends no body");
}

#[tokio::test]
async fn connection_refused_is_status_zero_with_an_error() {
    let url = refused_url();
    let world = World::new();
    let result = world
        .one(json!({"type": "http", "url": format!("{url}/")}))
        .await;
    assert_eq!(result["status_code"], 0);
    assert_eq!(result["body"], "");
    let error = result["error"].as_str().expect("an error");
    assert!(
        error.contains("refused") || error.contains("connect"),
        "{error}"
    );
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let world = World::new();
    let result = world
        .one(json!({"type": "http", "url": format!("http://{addr}/"), "timeout": 0.3}))
        .await;
    drop(listener);
    assert_eq!(
        result,
        json!({"body": "", "status_code": 0, "error": "request timed out after 0.3s", "_step_index": 0})
    );
}

#[tokio::test]
async fn a_bad_url_is_status_zero() {
    let world = World::new();
    let result = world.one(json!({"type": "http"})).await;
    assert_eq!(result["status_code"], 0);
    assert!(result["error"].is_string());
}
