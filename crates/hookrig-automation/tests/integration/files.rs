//! `read_file` and `list_files` on real files.

use serde_json::json;

use crate::support::World;

#[tokio::test]
async fn read_file_keeps_max_lines_and_drops_trailing_newlines() {
    let world = World::new();
    world.write("notes/a.txt", "one\r\ntwo\nthree\n\n\n");
    let all = world
        .one(json!({"type": "read_file", "path": "notes/a.txt"}))
        .await;
    assert_eq!(all["content"], "one\ntwo\nthree");
    let two = world
        .one(json!({"type": "read_file", "path": "notes/a.txt", "max_lines": 2}))
        .await;
    assert_eq!(two, json!({"content": "one\ntwo", "_step_index": 0}));
    let absolute = world.root().join("notes/a.txt");
    let by_absolute = world
        .one(json!({"type": "read_file", "path": absolute.to_string_lossy(), "max_lines": 1}))
        .await;
    assert_eq!(by_absolute["content"], "one");
}

#[tokio::test]
async fn read_file_default_is_500_lines() {
    let world = World::new();
    let text = (0..600)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    world.write("long.txt", &text);
    let result = world
        .one(json!({"type": "read_file", "path": "long.txt"}))
        .await;
    let content = result["content"].as_str().expect("text");
    assert_eq!(content.lines().count(), 500);
    assert!(content.ends_with("line 499"));
}

#[tokio::test]
async fn read_file_errors() {
    let world = World::new();
    std::fs::create_dir_all(world.root().join("dir")).expect("mkdir");
    // A FIFO nobody writes to would block an open forever.
    let fifo = std::process::Command::new("mkfifo")
        .arg(world.root().join("fifo"))
        .status()
        .expect("mkfifo runs");
    assert!(fifo.success());
    let blocked = world
        .one(json!({"type": "read_file", "path": "fifo"}))
        .await;
    assert!(
        blocked["error"]
            .as_str()
            .expect("an error")
            .ends_with("not a regular file"),
        "{blocked}"
    );
    let results = world
        .run(json!([
            {"type": "read_file", "path": "nope.txt"},
            {"type": "read_file"},
            {"type": "read_file", "path": "dir"},
            {"type": "read_file", "path": "x", "max_lines": -1},
            {"type": "read_file", "path": "/dev/zero"},
        ]))
        .await;
    insta::assert_json_snapshot!(world.scrub(&json!(results)));
}

fn tree(world: &World) {
    world.write("docs/a.md", "a");
    world.write("docs/b.txt", "bb");
    world.write("docs/C.MD", "ccc");
    world.write("docs/.hidden.md", "h");
    world.write("docs/.git/config.md", "g");
    world.write("docs/sub/d.md", "dddd");
    world.write("docs/sub/deeper/e.rst", "eeeee");
}

fn paths(result: &serde_json::Value, world: &World) -> Vec<String> {
    let root = format!("{}/", world.root().display());
    result["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().expect("path").replace(&root, ""))
        .collect()
}

#[tokio::test]
async fn list_files_skips_hidden_and_is_flat_by_default() {
    let world = World::new();
    tree(&world);
    let result = world
        .one(json!({"type": "list_files", "path": "docs"}))
        .await;
    assert_eq!(
        paths(&result, &world),
        ["docs/C.MD", "docs/a.md", "docs/b.txt"]
    );
    insta::assert_json_snapshot!(world.scrub(&result));
}

#[tokio::test]
async fn list_files_recursive_with_extensions_and_max_files() {
    let world = World::new();
    tree(&world);
    let md = world
        .one(json!({"type": "list_files", "path": "docs", "recursive": true, "extensions": [".md", "rst"]}))
        .await;
    assert_eq!(
        paths(&md, &world),
        [
            "docs/C.MD",
            "docs/a.md",
            "docs/sub/d.md",
            "docs/sub/deeper/e.rst"
        ]
    );
    assert_eq!(md["count"], 4);
    let capped = world
        .one(json!({"type": "list_files", "path": "docs", "recursive": true, "max_files": 2}))
        .await;
    assert_eq!(paths(&capped, &world), ["docs/C.MD", "docs/a.md"]);
    assert_eq!(capped["count"], 2);
}

#[tokio::test]
async fn list_files_path_takes_placeholders() {
    let mut world = World::new();
    tree(&world);
    world.env.event = Some(json!({"path": "docs/sub"}));
    let result = world
        .one(json!({"type": "list_files", "path": "{{event.path}}"}))
        .await;
    assert_eq!(paths(&result, &world), ["docs/sub/d.md"]);
    assert_eq!(
        result["directory"],
        world.root().join("docs/sub").to_string_lossy().as_ref()
    );
}

#[tokio::test]
async fn list_files_errors() {
    let world = World::new();
    world.write("file.txt", "x");
    let results = world
        .run(json!([
            {"type": "list_files", "path": "missing"},
            {"type": "list_files", "path": "file.txt"},
            {"type": "list_files", "extensions": "md"},
        ]))
        .await;
    insta::assert_json_snapshot!(world.scrub(&json!(results)));
}

// guards: `list_files` listed any directory an event named (`..`, absolute paths, a
// link out of the project); a path made by placeholders stays inside the workspace,
// and only a path written literally in the automation may leave it
#[tokio::test]
async fn list_files_confines_paths_from_event_data_to_the_workspace() {
    let mut world = World::new();
    tree(&world);
    let outside = world.dir.path().join("outside");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(outside.join("secret.txt"), "s").expect("write");
    std::os::unix::fs::symlink(&outside, world.root().join("docs/link")).expect("symlink");
    let workspace = world.root().display().to_string();
    for (path, inside) in [
        ("../outside".to_owned(), false),
        (outside.display().to_string(), false),
        ("docs/../../outside".to_owned(), false),
        ("docs/link".to_owned(), false),
        ("/".to_owned(), false),
        ("docs/sub/..".to_owned(), true),
        (format!("{workspace}/docs/sub"), true),
    ] {
        world.env.event = Some(json!({"path": path}));
        let result = world
            .one(json!({"type": "list_files", "path": "{{event.path}}"}))
            .await;
        if inside {
            assert!(result.get("error").is_none(), "{path}: {result}");
        } else {
            assert_eq!(
                result["error"],
                format!(
                    "`path` {path:?} comes from placeholders and leaves the workspace {workspace}; only a path written literally in the automation may"
                ),
                "{path}"
            );
            assert!(result.get("files").is_none(), "{path}: nothing listed");
        }
    }
    // Written literally, the automation may name any directory.
    world.env.event = None;
    let literal = world
        .one(json!({"type": "list_files", "path": outside.display().to_string()}))
        .await;
    assert_eq!(literal["count"], 1, "{literal}");
    let literal = world
        .one(json!({"type": "list_files", "path": "../outside"}))
        .await;
    assert_eq!(literal["count"], 1, "{literal}");
}
