//! `create_task` and `db_query` on a real store file.

use hookrig_store::Store;
use serde_json::json;

use crate::support::World;

#[tokio::test]
async fn create_task_fills_placeholders_in_every_field() {
    let mut world = World::new();
    world.env.event = Some(json!({
        "_event_type": "task.failed", "task_id": "t-9", "title": "Nightly build",
        "project_id": "proj-x", "error": "linker died",
    }));
    let results = world
        .run(json!([
            {"type": "shell", "command": "printf 'ld: out of memory'"},
            {
                "type": "create_task",
                "title_template": "Fix {{event.title}}",
                "description_template": "{{event.task_id}} failed: {{event.error}}\n{{step_0}}",
                "project_id": "{{event.project_id}}",
                "parent_task_id": "{{event.task_id}}",
                "branch_name": "fix/{{event.task_id}}",
                "priority": 7,
                "context_entries": [
                    {"type": "log", "label": "{{event._event_type}}", "content": "{{step_0.stdout}}"}
                ],
            },
        ]))
        .await;
    assert_eq!(results[1]["created"], true, "{}", results[1]);
    let task_id = results[1]["task_id"].as_str().expect("an id").to_owned();
    let ledger = Store::open(&world.env.store_path).expect("open");
    let task = ledger
        .tasks()
        .get(&task_id)
        .expect("read")
        .expect("inserted");
    insta::assert_json_snapshot!(world.scrub(&json!(task)));
}

#[tokio::test]
async fn create_task_defaults() {
    let world = World::new();
    let result = world.one(json!({"type": "create_task"})).await;
    let task_id = result["task_id"].as_str().expect("an id");
    let ledger = Store::open(&world.env.store_path).expect("open");
    let task = ledger
        .tasks()
        .get(task_id)
        .expect("read")
        .expect("inserted");
    assert_eq!(task.title, "Hook-created task");
    assert_eq!(task.description, "");
    assert_eq!(task.project_id, "proj", "the automation's project");
    assert_eq!(task.priority, 100);
    assert_eq!(task.context_entries, json!([]));
    assert_eq!(task.parent_task_id, None);
    assert_eq!(task.status, "pending");
}

#[tokio::test]
async fn create_task_bad_fields_are_errors() {
    let world = World::new();
    let results = world
        .run(json!([
            {"type": "create_task", "priority": "high"},
            {"type": "create_task", "context_entries": ["text"]},
            {"type": "create_task", "title_template": 5},
        ]))
        .await;
    insta::assert_json_snapshot!(results);
}

#[tokio::test]
async fn db_query_named_queries_with_event_params() {
    let mut world = World::new();
    world.env.event = Some(json!({"project_id": "proj", "wanted": "pending"}));
    let results = world
        .run(json!([
            {"type": "create_task", "title_template": "low", "priority": 200},
            {"type": "create_task", "title_template": "high", "priority": 1},
            {"type": "create_task", "title_template": "elsewhere", "project_id": "other"},
            {
                "type": "db_query",
                "query": "project_tasks_by_status",
                "params": {"project_id": "{{event.project_id}}", "status": "{{event.wanted}}"},
            },
            {"type": "db_query", "query": "task_detail", "params": {"task_id": "{{step_1.task_id}}"}},
            {"type": "db_query", "query": "failed_tasks"},
        ]))
        .await;
    let titles: Vec<&str> = results[3]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| row["title"].as_str().expect("title"))
        .collect();
    assert_eq!(titles, ["high", "low"], "by priority, only the project's");
    assert_eq!(results[3]["count"], 2);
    // Step references resolve to "" in db_query params: only the event is known there.
    assert_eq!(
        results[4],
        json!({"rows": [], "count": 0, "_step_index": 4})
    );
    assert_eq!(
        results[5],
        json!({"rows": [], "count": 0, "_step_index": 5})
    );
}

#[tokio::test]
async fn db_query_refuses_unknown_names_and_raw_sql() {
    let world = World::new();
    Store::open(&world.env.store_path).expect("create the store");
    let results = world
        .run(json!([
            {"type": "db_query", "query": "DELETE FROM tasks"},
            {"type": "db_query"},
            {"type": "db_query", "query": "failed_tasks", "params": ["x"]},
        ]))
        .await;
    insta::assert_json_snapshot!(results, @r#"
    [
      {
        "error": "Unknown query: DELETE FROM tasks",
        "_step_index": 0
      },
      {
        "error": "Unknown query: ",
        "_step_index": 1
      },
      {
        "error": "`params` must be an object",
        "_step_index": 2
      }
    ]
    "#);
}

#[tokio::test]
async fn db_query_without_a_store_is_an_error_not_a_new_file() {
    let world = World::new();
    let result = world
        .one(json!({"type": "db_query", "query": "recent_events"}))
        .await;
    assert!(
        result["error"]
            .as_str()
            .expect("an error")
            .starts_with("could not open the ledger")
    );
    assert!(!world.env.store_path.exists());
}
