//! `shell`: output, exit codes, truncation, timeouts that kill the whole group.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{World, wait_dead};

#[tokio::test]
async fn captures_stdout_stderr_and_exit_code_in_the_workspace() {
    let world = World::new();
    world.write("marker.txt", "here");
    let result = world
        .one(json!({"type": "shell", "command": "cat marker.txt; echo oops >&2; exit 3"}))
        .await;
    insta::assert_json_snapshot!(result, @r#"
    {
      "stdout": "here",
      "stderr": "oops\n",
      "exit_code": 3,
      "_step_index": 0
    }
    "#);
}

#[tokio::test]
async fn killed_by_a_signal_is_minus_the_signal() {
    let world = World::new();
    let result = world
        .one(json!({"type": "shell", "command": "kill -TERM $$"}))
        .await;
    assert_eq!(result["exit_code"], -15);
}

#[tokio::test]
async fn output_is_cut_at_the_limits_on_character_boundaries() {
    let world = World::new();
    // 60,000 two-byte characters on stdout, 20,000 on stderr.
    let result = world
        .one(json!({
            "type": "shell",
            "command": "awk 'BEGIN { for (i = 0; i < 60000; i++) printf \"é\"; for (i = 0; i < 20000; i++) printf \"ü\" > \"/dev/stderr\" }'",
        }))
        .await;
    let stdout = result["stdout"].as_str().expect("text");
    let stderr = result["stderr"].as_str().expect("text");
    assert_eq!(stdout.chars().count(), 50_000);
    assert!(stdout.chars().all(|c| c == 'é'));
    assert_eq!(stderr.chars().count(), 10_000);
    assert!(stderr.chars().all(|c| c == 'ü'));
    assert_eq!(result["exit_code"], 0);
}

#[tokio::test]
async fn endless_output_is_drained_not_buffered() {
    let world = World::new();
    let result = world
        .one(json!({"type": "shell", "command": "head -c 20000000 /dev/zero | tr '\\0' x", "timeout": 30}))
        .await;
    assert_eq!(result["exit_code"], 0);
    assert_eq!(result["stdout"].as_str().expect("text").len(), 50_000);
}

#[tokio::test]
async fn timeout_kills_the_process_group_grandchildren_too() {
    let world = World::new();
    let pidfile = world.root().join("grandchild.pid");
    let started = Instant::now();
    let result = world
        .one(json!({
            "type": "shell",
            "command": format!("echo partial; sleep 30 & echo $! > '{}'; wait", pidfile.display()),
            "timeout": 0.5,
        }))
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the step did not wait for sleep"
    );
    assert_eq!(result["exit_code"], -1);
    assert_eq!(result["stdout"], "partial\n");
    assert_eq!(
        result["stderr"],
        "command timed out after 0.5s and was killed"
    );
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .expect("pid written")
        .trim()
        .parse()
        .expect("a pid");
    assert!(
        wait_dead(pid).await,
        "grandchild {pid} survived the timeout"
    );
}

#[tokio::test]
async fn a_background_process_holding_the_pipes_does_not_hang_the_step() {
    let world = World::new();
    let pidfile = world.root().join("bg.pid");
    let started = Instant::now();
    let result = world
        .one(json!({
            "type": "shell",
            "command": format!("sleep 30 & echo $! > '{}'; echo done", pidfile.display()),
        }))
        .await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(result["exit_code"], 0);
    assert_eq!(result["stdout"], "done\n");
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .expect("pid written")
        .trim()
        .parse()
        .expect("a pid");
    assert!(
        wait_dead(pid).await,
        "the leaked sleep {pid} was killed with its group"
    );
}

#[tokio::test]
async fn dropping_the_future_kills_the_group() {
    let world = World::new();
    let pidfile = world.root().join("dropped.pid");
    let steps = json!([{
        "type": "shell",
        "command": format!("sleep 30 & echo $! > '{}'; wait", pidfile.display()),
    }]);
    let steps = steps.as_array().expect("array").clone();
    let run = hookrig_automation::steps::run_steps(&steps, &world.env);
    let outcome = tokio::time::timeout(Duration::from_millis(500), run).await;
    assert!(outcome.is_err(), "the step was still running");
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .expect("pid written")
        .trim()
        .parse()
        .expect("a pid");
    assert!(
        wait_dead(pid).await,
        "grandchild {pid} survived the dropped future"
    );
}

#[tokio::test]
async fn a_missing_workspace_is_an_error() {
    let mut world = World::new();
    world.env.workspace = world.dir.path().join("gone");
    let result = world.one(json!({"type": "shell", "command": "true"})).await;
    let error = result["error"].as_str().expect("an error");
    assert!(
        error.starts_with("could not run the command in "),
        "{error}"
    );
}

// guards: the spawn failure of the shared runner names the missing directory, not `sh`
#[tokio::test]
async fn a_missing_workspace_is_named_in_the_error() {
    let mut world = World::new();
    let gone = world.dir.path().join("gone");
    world.env.workspace.clone_from(&gone);
    let result = world.one(json!({"type": "shell", "command": "true"})).await;
    assert_eq!(
        result["error"],
        format!(
            "could not run the command in {0}: cannot run sh: working directory {0} does not exist or is not a directory",
            gone.display()
        )
    );
}
