//! `run_steps` itself: indexes, unknown types, errors as values.

use serde_json::json;

use crate::support::World;

#[tokio::test]
async fn every_result_has_its_index_and_errors_are_values() {
    let world = World::new();
    let results = world
        .run(json!([
            {"type": "shell", "command": "printf one"},
            {"type": "teleport"},
            {"command": "no type"},
            "not an object",
            {"type": "shell", "timeout": "soon"},
            {"type": "read_file", "path": "missing.txt"},
            {"type": "shell", "command": "printf '{{step_0}}'"},
        ]))
        .await;
    insta::assert_json_snapshot!(world.scrub(&json!(results)));
}

#[tokio::test]
async fn no_steps_no_results() {
    let world = World::new();
    assert!(world.run(json!([])).await.is_empty());
}
