//! `run_tests` on real pytest and jest output (fixture files the test command
//! prints, jest's on stderr as jest does).

use serde_json::json;

use crate::support::World;

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/integration/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[tokio::test]
async fn pytest_failures_and_count() {
    let world = World::new();
    let result = world
        .one(json!({"type": "run_tests", "command": format!("cat '{}'; exit 1", fixture("pytest-output.txt"))}))
        .await;
    assert_eq!(result["exit_code"], 1);
    assert_eq!(result["passed"], false);
    assert_eq!(result["framework"], "auto");
    assert_eq!(
        result["failures"],
        json!([
            "tests/test_api.py::test_create",
            "tests/test_models.py::TestUser::test_email[upper]"
        ])
    );
    assert_eq!(result["test_count"], 42);
}

#[tokio::test]
async fn jest_failures_and_count_from_stderr() {
    let world = World::new();
    let command = format!("cat '{}' >&2; exit 1", fixture("jest-output.txt"));
    let auto = world
        .one(json!({"type": "run_tests", "command": command}))
        .await;
    assert_eq!(
        auto["failures"],
        json!(["src/sum.test.js", "adds negative numbers", "handles floats"])
    );
    assert_eq!(auto["test_count"], 7);
    let jest = world
        .one(json!({"type": "run_tests", "command": command, "framework": "jest"}))
        .await;
    assert_eq!(
        jest["failures"],
        json!(["adds negative numbers", "handles floats"])
    );
    assert_eq!(jest["framework"], "jest");
    assert_eq!(jest["stdout"], "");
}

#[tokio::test]
async fn a_passing_suite_in_a_workspace() {
    let world = World::new();
    world.write("suite/run.sh", "echo '5 passed in 0.01s'\n");
    let result = world
        .one(json!({"type": "run_tests", "command": "sh run.sh", "workspace": "suite", "framework": "pytest"}))
        .await;
    insta::assert_json_snapshot!(result, @r#"
    {
      "stdout": "5 passed in 0.01s\n",
      "stderr": "",
      "exit_code": 0,
      "passed": true,
      "failures": [],
      "test_count": 5,
      "framework": "pytest",
      "_step_index": 0
    }
    "#);
}

#[tokio::test]
async fn timeout_and_bad_framework() {
    let world = World::new();
    let results = world
        .run(json!([
            {"type": "run_tests", "command": "echo started; sleep 30", "timeout": 0.3},
            {"type": "run_tests", "framework": "mocha"},
        ]))
        .await;
    insta::assert_json_snapshot!(results);
}
