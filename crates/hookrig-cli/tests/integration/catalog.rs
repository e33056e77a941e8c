//! `hookrig events`.

use serde_json::Value;

use crate::harness::{code, hookrig, test_env, text};

#[test]
fn events_lists_tool_before_with_its_aliases() {
    let env = test_env();

    let output = hookrig(&env, &["events"]);

    assert_eq!(code(&output), 0);
    let table = text(&output.stdout);
    let row = table
        .lines()
        .find(|line| line.starts_with("tool.before "))
        .unwrap_or_else(|| panic!("no tool.before row: {table}"));
    let columns: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(columns[1], "decision", "{row}");
    assert!(row.contains("PreToolUse"), "{row}");
    assert!(row.contains("pre_tool"), "{row}");
}

#[test]
fn events_json_lists_tool_before_with_its_aliases() {
    let env = test_env();

    let output = hookrig(&env, &["events", "--json"]);

    assert_eq!(code(&output), 0);
    let catalog: Vec<Value> = serde_json::from_slice(&output.stdout).expect("a JSON array");
    let entry = catalog
        .iter()
        .find(|entry| entry["name"] == "tool.before")
        .expect("tool.before is in the catalog");
    assert_eq!(entry["kind"], "decision");
    let aliases: Vec<&str> = entry["aliases"]
        .as_array()
        .expect("aliases are an array")
        .iter()
        .map(|a| a.as_str().expect("aliases are strings"))
        .collect();
    assert!(aliases.contains(&"PreToolUse"), "{aliases:?}");
    assert!(aliases.contains(&"pre_tool"), "{aliases:?}");
}
