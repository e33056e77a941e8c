//! `http` against a real server on 127.0.0.1.

use serde_json::json;

use crate::support::{World, serve};

#[tokio::test]
async fn ok_not_found_and_truncated_bodies() {
    let (base, received) = serve(|request| match request.path.as_str() {
        "/ok" => (200, "OK", b"all good".to_vec()),
        "/missing" => (404, "Not Found", b"no such page".to_vec()),
        "/big" => (200, "OK", "é".repeat(60_000).into_bytes()),
        _ => (500, "Internal Server Error", b"boom".to_vec()),
    });
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
    let seen = received.lock().expect("lock");
    assert!(seen.iter().all(|r| r.body.is_empty()), "GET sends no body");
}

#[tokio::test]
async fn connection_refused_is_status_zero_with_an_error() {
    // A port that was just free: bind, note it, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let world = World::new();
    let result = world
        .one(json!({"type": "http", "url": format!("http://127.0.0.1:{port}/")}))
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
