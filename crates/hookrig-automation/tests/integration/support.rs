//! What the step tests share: a workspace, an environment, and scrubbing of paths
//! and times for snapshots.

use std::path::{Path, PathBuf};

use hookrig_automation::steps::{MemoryOptions, StepEnv, run_steps};
use serde_json::Value;

/// A temporary project root with a store file beside it.
pub(crate) struct World {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) env: StepEnv,
}

impl World {
    pub(crate) fn new() -> World {
        let dir = tempfile::tempdir().expect("temp dir");
        let workspace = dir.path().join("project");
        std::fs::create_dir_all(&workspace).expect("mkdir project");
        let env = StepEnv {
            event: None,
            workspace,
            project_id: "proj".to_owned(),
            store_path: dir.path().join("state").join("hookrig.db"),
            memory: MemoryOptions::default(),
            shared: None,
        };
        World { dir, env }
    }

    pub(crate) fn root(&self) -> &Path {
        &self.env.workspace
    }

    /// Writes `text` to `relative` under the project root, creating directories.
    pub(crate) fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.root().join(relative);
        std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        path
    }

    /// Runs `steps` (a JSON array) with this world's environment.
    pub(crate) async fn run(&self, steps: Value) -> Vec<Value> {
        let steps = steps.as_array().expect("steps are an array").clone();
        run_steps(&steps, &self.env).await
    }

    /// Runs one step and returns its result.
    pub(crate) async fn one(&self, step: Value) -> Value {
        let mut results = self.run(Value::Array(vec![step])).await;
        assert_eq!(results.len(), 1);
        results.remove(0)
    }

    /// `value` with this world's temporary directory replaced by `[tmp]` and the
    /// values of time-like keys by placeholders, for snapshots.
    pub(crate) fn scrub(&self, value: &Value) -> Value {
        let tmp = self.dir.path().to_string_lossy().into_owned();
        scrub(value, &tmp)
    }
}

fn scrub(value: &Value, tmp: &str) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace(tmp, "[tmp]")),
        Value::Array(items) => Value::Array(items.iter().map(|v| scrub(v, tmp)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, v)| {
                    let v = match key.as_str() {
                        "mtime" | "created_at" | "updated_at" => Value::String(format!("[{key}]")),
                        "task_id" | "id" if v.is_string() => Value::String("[id]".to_owned()),
                        _ => scrub(v, tmp),
                    };
                    (key.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Waits up to 5 s for `pid` to be gone: a killed process needs a moment.
pub(crate) async fn wait_dead(pid: u32) -> bool {
    for _ in 0..250 {
        if !hookrig_test_support::is_alive(i32::try_from(pid).expect("a pid")) {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    false
}
