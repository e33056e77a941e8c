//! What the step tests share: a workspace, an environment, a loopback HTTP
//! server, git, and scrubbing of paths and times for snapshots.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

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

/// Runs git in `dir` with a fixed identity and no user or system config.
pub(crate) fn git(dir: &Path, args: &[&str]) {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.invalid",
        ])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// One request the test server received.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) path: String,
    pub(crate) headers: HashMap<String, String>,
    pub(crate) body: Vec<u8>,
}

/// An answer: status line, body.
pub(crate) type Answer = (u16, &'static str, Vec<u8>);

/// A loopback HTTP/1.1 server on 127.0.0.1:0 answering each request with
/// `route(request)`; returns its base URL and what it received.
pub(crate) fn serve(
    route: impl Fn(&Request) -> Answer + Send + Sync + 'static,
) -> (String, Arc<Mutex<Vec<Request>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let received = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&received);
    let route = Arc::new(route);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let seen = Arc::clone(&seen);
            let route = Arc::clone(&route);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    return;
                }
                let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
                let mut headers = HashMap::new();
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).is_err() {
                        return;
                    }
                    let header = header.trim_end();
                    if header.is_empty() {
                        break;
                    }
                    if let Some((name, value)) = header.split_once(':') {
                        headers.insert(name.trim().to_lowercase(), value.trim().to_owned());
                    }
                }
                let length = headers
                    .get("content-length")
                    .and_then(|l| l.parse().ok())
                    .unwrap_or(0);
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let request = Request {
                    path,
                    headers,
                    body,
                };
                let (status, reason, answer) = route(&request);
                seen.lock().expect("lock").push(request);
                let head = format!(
                    "HTTP/1.1 {status} {reason}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    answer.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&answer);
            });
        }
    });
    (base, received)
}

/// Whether the process `pid` is gone (or a zombie waiting for its reaper).
pub(crate) fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state is the field after the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
    }
}

/// Waits up to 5 s for `pid` to be gone: a killed process needs a moment.
pub(crate) async fn wait_dead(pid: u32) -> bool {
    for _ in 0..250 {
        if is_dead(pid) {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    false
}
