//! `git_diff` and `file_diff` in real repositories.

use serde_json::json;

use hookrig_test_support::git;

use crate::support::World;

/// A repository on `main` with `app.txt` committed, and a `feature` branch that
/// changed it in a second commit.
fn repository(world: &World) {
    let root = world.root();
    git(root, &["init", "-q"]);
    world.write("app.txt", "one\ntwo\n");
    git(root, &["add", "app.txt"]);
    git(root, &["commit", "-q", "-m", "first"]);
    git(root, &["checkout", "-q", "-b", "feature"]);
    world.write("app.txt", "one\nTWO\n");
    git(root, &["commit", "-q", "-am", "second"]);
}

#[tokio::test]
async fn git_diff_against_the_base_branch() {
    let world = World::new();
    repository(&world);
    let result = world.one(json!({"type": "git_diff"})).await;
    assert_eq!(result["exit_code"], 0);
    let diff = result["diff"].as_str().expect("text");
    assert!(diff.contains("-two\n+TWO"), "{diff}");
    assert!(result.get("error").is_none());
    let same = world
        .one(json!({"type": "git_diff", "base_branch": "feature"}))
        .await;
    assert_eq!(same, json!({"diff": "", "exit_code": 0, "_step_index": 0}));
}

#[tokio::test]
async fn git_diff_workspace_is_relative_to_the_project() {
    let world = World::new();
    let sub = world.root().join("sub");
    std::fs::create_dir_all(&sub).expect("mkdir");
    git(&sub, &["init", "-q"]);
    std::fs::write(sub.join("f"), "x\n").expect("write");
    git(&sub, &["add", "f"]);
    git(&sub, &["commit", "-q", "-m", "c"]);
    let result = world
        .one(json!({"type": "git_diff", "workspace": "sub"}))
        .await;
    assert_eq!(
        result,
        json!({"diff": "", "exit_code": 0, "_step_index": 0})
    );
}

#[tokio::test]
async fn git_diff_failures_carry_gits_message() {
    let world = World::new();
    repository(&world);
    let outside = World::new();
    let results = world
        .run(json!([
            {"type": "git_diff", "base_branch": "nope"},
            {"type": "git_diff", "base_branch": "--output=/tmp/pwned"},
        ]))
        .await;
    assert_eq!(results[0]["exit_code"], 128);
    let error = results[0]["error"].as_str().expect("git's message");
    assert!(error.contains("nope"), "{error}");
    assert_eq!(
        results[1],
        json!({"error": "`base_branch` must not start with `-`: --output=/tmp/pwned", "_step_index": 1})
    );
    let not_a_repo = outside.one(json!({"type": "git_diff"})).await;
    assert_ne!(not_a_repo["exit_code"], 0);
    assert!(
        not_a_repo["error"]
            .as_str()
            .expect("message")
            .to_lowercase()
            .contains("not a git repository"),
        "{not_a_repo}"
    );
}

#[tokio::test]
async fn file_diff_of_a_changed_file_from_the_event_path() {
    let mut world = World::new();
    repository(&world);
    world.write("app.txt", "one\nTWO\nthree\n");
    world.env.event = Some(json!({"path": "app.txt", "workspace": "."}));
    let result = world
        .one(json!({"type": "file_diff", "path": "{{event.path}}", "workspace": "{{event.workspace}}"}))
        .await;
    insta::assert_json_snapshot!(world.scrub(&result), @r#"
    {
      "diff": "diff --git a/app.txt b/app.txt\nindex 879de50..ddc897f 100644\n--- a/app.txt\n+++ b/app.txt\n@@ -1,2 +1,3 @@\n one\n TWO\n+three\n",
      "path": "[tmp]/project/app.txt",
      "exit_code": 0,
      "_step_index": 0
    }
    "#);
}

#[tokio::test]
async fn file_diff_falls_back_to_the_index_without_a_head() {
    let world = World::new();
    git(world.root(), &["init", "-q"]);
    world.write("new.txt", "fresh\n");
    git(world.root(), &["add", "new.txt"]);
    let result = world
        .one(json!({"type": "file_diff", "path": "new.txt"}))
        .await;
    assert_eq!(result["exit_code"], 0, "{result}");
    let diff = result["diff"].as_str().expect("text");
    assert!(
        diff.contains("new file mode") && diff.contains("+fresh"),
        "{diff}"
    );
}

#[tokio::test]
async fn file_diff_of_an_unchanged_file_is_empty() {
    let world = World::new();
    repository(&world);
    let result = world
        .one(json!({"type": "file_diff", "path": "app.txt"}))
        .await;
    assert_eq!(result["diff"], "");
    assert_eq!(result["exit_code"], 0);
    let empty = world.one(json!({"type": "file_diff"})).await;
    assert_eq!(empty["error"], "`path` is empty");
}

// guards: `file_diff` took `path` and `workspace` from event data without a bound; a
// path made by placeholders must stay inside the workspace
#[tokio::test]
async fn file_diff_confines_paths_from_event_data_to_the_workspace() {
    let mut world = World::new();
    repository(&world);
    world.write("app.txt", "one\nTWO\nthree\n");
    let inside = world.root().join("app.txt").display().to_string();
    world.env.event = Some(json!({"path": inside, "workspace": "."}));
    let result = world
        .one(json!({"type": "file_diff", "path": "{{event.path}}", "workspace": "{{event.workspace}}"}))
        .await;
    assert_eq!(result["exit_code"], 0, "an absolute path inside: {result}");
    for (path, workspace, field) in [
        ("../../etc/passwd", ".", "path"),
        ("/etc/passwd", ".", "path"),
        ("app.txt", "..", "workspace"),
    ] {
        world.env.event = Some(json!({"path": path, "workspace": workspace}));
        let result = world
            .one(json!({"type": "file_diff", "path": "{{event.path}}", "workspace": "{{event.workspace}}"}))
            .await;
        let error = result["error"].as_str().unwrap_or_default();
        assert!(
            error.starts_with(&format!("`{field}` ")) && error.contains("leaves the workspace"),
            "{path} in {workspace}: {result}"
        );
        assert!(result.get("diff").is_none(), "nothing ran: {result}");
    }
}
