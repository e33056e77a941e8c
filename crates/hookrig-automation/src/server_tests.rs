//! The [`Server`] with real parts: a Unix socket in a temp dir, a SQLite store, project
//! automation files, and events delivered through the socket as `hookrig emit` does.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use hookrig_config::Environment;
use hookrig_store::{AutomationRun, RunStatus, RunStore, Store};
use serde_json::json;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{Server, ServerOptions};
use crate::errors::AutomationError;
use hookrig_runtime::ingress::{self, IngressError};

/// A generous bound that only proves "did not hang".
const LIMIT: Duration = Duration::from_secs(10);

const AFTER_TOOLS: &str = r#"
name = "After tools"
cooldown_seconds = 0
[trigger]
type = "event"
event_type = "PostToolUse"
skip_llm = true
"#;

/// A project with its automation files, trusted, and where its server keeps things.
struct Project {
    _dir: tempfile::TempDir,
    options: ServerOptions,
    notices: Arc<Mutex<Vec<String>>>,
}

impl Project {
    fn new(files: &[(&str, &str)]) -> Project {
        Project::with_config(files, "")
    }

    /// A project whose user `config.toml` is `config`.
    fn with_config(files: &[(&str, &str)], config: &str) -> Project {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("repo");
        let autos = crate::definition::project_automations_dir(&root);
        std::fs::create_dir_all(&autos).expect("automations dir");
        for (name, text) in files {
            std::fs::write(autos.join(name), text).expect("write automation");
        }
        let home = dir.path().join("home");
        let env = Environment {
            home: home.clone(),
            config_home: home.join(".config"),
            state_home: home.join(".local/state"),
            data_home: home.join(".local/share"),
            xcode_home: home.join(".x-code"),
            cwd: root.clone(),
            trust_all: true,
        };
        let config_file = env.config_home.join("hookrig/config.toml");
        std::fs::create_dir_all(config_file.parent().expect("a parent")).expect("config dir");
        std::fs::write(&config_file, config).expect("write config.toml");
        let mut warnings = Vec::new();
        let config = hookrig_config::load_config_toml(&env, &mut warnings).expect("config");
        assert!(warnings.is_empty(), "{warnings:?}");
        let options = ServerOptions {
            env,
            root,
            config,
            store_path: dir.path().join("hookrig.db"),
            socket: dir.path().join("run/serve.sock"),
            http: None,
            shared_store: None,
        };
        Project {
            _dir: dir,
            options,
            notices: Arc::default(),
        }
    }

    fn server(&self) -> Server {
        let notices = Arc::clone(&self.notices);
        Server::new(
            self.options.clone(),
            Arc::new(move |notice| {
                notices
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(notice.to_string());
            }),
        )
    }

    /// Starts a server and waits until it answers on its socket.
    async fn start(&self) -> Running {
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(self.server().run_until(async move {
            let _ = stopped.await;
        }));
        let socket = self.options.socket.clone();
        wait_for("the server to answer", async || {
            ingress::ping(&socket, LIMIT).await.ok()
        })
        .await;
        Running { stop, task }
    }

    fn notices(&self) -> Vec<String> {
        self.notices
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn socket(&self) -> &Path {
        &self.options.socket
    }

    fn store(&self) -> Store {
        Store::open(&self.options.store_path).expect("open the store")
    }

    async fn finished_run(&self, id: &str) -> AutomationRun {
        wait_for(&format!("a finished run of {id}"), async || {
            self.store()
                .automation_runs()
                .list(Some(id), 10)
                .expect("read runs")
                .into_iter()
                .find(|run| run.status != RunStatus::Running)
        })
        .await
    }
}

struct Running {
    stop: oneshot::Sender<()>,
    task: JoinHandle<Result<(), AutomationError>>,
}

impl Running {
    async fn stop(self) -> Result<(), AutomationError> {
        let _ = self.stop.send(());
        tokio::time::timeout(LIMIT, self.task)
            .await
            .expect("the server stops")
            .expect("the server task does not panic")
    }
}

async fn wait_for<T>(what: &str, mut check: impl AsyncFnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + LIMIT;
    loop {
        if let Some(found) = check().await {
            return found;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

// guards: an automation on `PostToolUse` fires when the event arrives under any of its
// names, and a stop removes the socket and says so
#[tokio::test]
async fn an_event_through_the_socket_runs_its_trigger_under_any_name() {
    let project = Project::new(&[("after.toml", AFTER_TOOLS)]);
    let running = project.start().await;

    ingress::deliver_event(
        project.socket(),
        "tool.after",
        &json!({"tool_name": "Bash"}),
    )
    .await
    .expect("deliver");
    let run = project.finished_run("after-tools").await;
    assert_eq!(run.status, RunStatus::Completed);
    assert_eq!(run.trigger_reason, "event:tool.after");

    ingress::deliver_event(project.socket(), "post_tool@v1", &json!({}))
        .await
        .expect("deliver");
    wait_for("a second run", async || {
        let runs = project
            .store()
            .automation_runs()
            .list(Some("after-tools"), 10)
            .ok()?;
        (runs.len() == 2 && runs.iter().all(|r| r.status != RunStatus::Running)).then_some(())
    })
    .await;

    running.stop().await.expect("a clean stop");
    assert!(!project.socket().exists(), "the socket is removed");
    let notices = project.notices();
    let expected_in_order = [
        format!("listening on {}", project.socket().display()),
        "loaded `after-tools` from ".to_owned(),
        "ready (tick every ".to_owned(),
        "run of `after-tools` started (event:tool.after)".to_owned(),
        "run of `after-tools` completed".to_owned(),
        "stopping".to_owned(),
        "stopped".to_owned(),
    ];
    let mut rest = notices.iter();
    for expected in &expected_in_order {
        assert!(
            rest.any(|notice| notice.starts_with(expected.as_str())),
            "no `{expected}` in order in {notices:#?}"
        );
    }
}

// guards: a server on a shared store records and starts its runs there, and says so
// on every tick
#[tokio::test]
async fn a_server_on_a_shared_store_records_its_runs_there() {
    let Some(db) = hookrig_test_support::TestDatabase::create("serve_shared") else {
        return;
    };
    let mut project = Project::new(&[("after.toml", AFTER_TOOLS)]);
    project.options.shared_store = Some(db.url().to_owned());
    let running = project.start().await;
    ingress::deliver_event(
        project.socket(),
        "tool.after",
        &json!({"tool_name": "Bash"}),
    )
    .await
    .expect("deliver");
    let shared = open_shared(db.url()).await;
    let run = wait_for("a finished run in the shared store", async || {
        let store = Arc::clone(&shared);
        tokio::task::spawn_blocking(move || store.runs(Some("after-tools"), 10))
            .await
            .expect("joined")
            .expect("read runs")
            .into_iter()
            .find(|run| run.status != RunStatus::Running)
    })
    .await;
    assert_eq!(run.status, RunStatus::Completed);
    assert_eq!(run.trigger_reason, "event:tool.after");
    let local = project
        .store()
        .automation_runs()
        .list(Some("after-tools"), 10)
        .expect("read local runs");
    assert!(
        local.is_empty(),
        "the runs are not in the local store: {local:?}"
    );
    let nodes = {
        let store = Arc::clone(&shared);
        tokio::task::spawn_blocking(move || store.nodes())
            .await
            .expect("joined")
            .expect("nodes")
    };
    assert_eq!(nodes.len(), 1);
    assert_eq!(nodes[0].pid, i64::from(std::process::id()));
    running.stop().await.expect("a clean stop");
}

async fn open_shared(url: &str) -> Arc<hookrig_store::PgStore> {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || hookrig_store::PgStore::open(&url))
        .await
        .expect("joined")
        .map(Arc::new)
        .expect("open the shared store")
}

// guards: a second server on the same socket is refused before it touches the store,
// where it would take the first one's runs for a crash's leftovers
#[tokio::test]
async fn a_second_server_on_the_socket_is_refused_before_it_opens_the_store() {
    let project = Project::new(&[]);
    let running = project.start().await;
    let mut second = project.options.clone();
    second.store_path = PathBuf::from("/nonexistent/never-opened.db");
    let refused = Server::new(second, Arc::new(|_| {}))
        .run_until(std::future::pending())
        .await;
    assert!(
        matches!(
            refused,
            Err(AutomationError::Ingress(
                IngressError::AlreadyRunning { .. }
            ))
        ),
        "{refused:?}"
    );
    running.stop().await.expect("the first one is unharmed");
}

// guards: a `memory.upsert` event is stored for `memory_search`, under the served
// project when it names none, and one without content is reported, not stored
#[tokio::test]
async fn memory_upsert_events_are_remembered() {
    let project = Project::new(&[]);
    let running = project.start().await;
    ingress::deliver_event(project.socket(), "memory.upsert", &json!({"source": "s"}))
        .await
        .expect("deliver");
    ingress::deliver_event(
        project.socket(),
        "memory.upsert",
        &json!({"heading": "Deploys", "content": "deploys go through the staging box"}),
    )
    .await
    .expect("deliver");
    let project_id = crate::definition::default_project_id(&project.options.root);
    let hit = wait_for("the memory to be stored", async || {
        project
            .store()
            .memory()
            .search(&project_id, "staging", 5)
            .ok()?
            .into_iter()
            .next()
    })
    .await;
    assert_eq!(hit.heading, "Deploys");
    assert_eq!(hit.source, "memory.upsert");
    running.stop().await.expect("a clean stop");
    assert!(
        project
            .notices()
            .contains(&"memory.upsert without a `content` string: nothing stored".to_owned()),
        "{:#?}",
        project.notices()
    );
}

const HOURLY: &str = r#"
name = "Hourly"
context_steps = [{ type = "shell", command = "true" }]
[trigger]
type = "periodic"
interval_seconds = 3600
skip_llm = true
"#;

const ON_TASK: &str = r#"
name = "On Task"
cooldown_seconds = 0
[trigger]
type = "event"
event_type = "task.completed"
skip_llm = true
"#;

// guards: `[automation] enabled = false` (the master switch) was an unknown key and
// ignored; with it no trigger fires (ticks, events, watches) and `fire` still runs one
#[tokio::test]
async fn the_master_switch_fires_no_trigger_but_fire_still_runs() {
    let project = Project::with_config(
        &[("hourly.toml", HOURLY), ("on-task.toml", ON_TASK)],
        "[automation]\nenabled = false\ntick = \"1s\"\n",
    );
    let running = project.start().await;
    assert!(
        project.notices().contains(
            &"automations are switched off ([automation] enabled = false): no trigger fires; `hookrig fire ID` still runs one".to_owned()
        ),
        "{:#?}",
        project.notices()
    );
    // A file added now is loaded on a tick: once it is, ticks have gone by (the first
    // one at start-up, when the never-run periodic automation would have been due).
    let autos = crate::definition::project_automations_dir(&project.options.root);
    std::fs::write(autos.join("late.toml"), ON_TASK.replace("On Task", "Late")).expect("write");
    wait_for("a tick to load the new file", async || {
        project
            .notices()
            .iter()
            .any(|n| n.starts_with("loaded `late`"))
            .then_some(())
    })
    .await;
    ingress::deliver_event(
        project.socket(),
        "task.completed",
        &json!({"task_id": "t1"}),
    )
    .await
    .expect("deliver");

    let record = ingress::fire(project.socket(), "hourly", LIMIT)
        .await
        .expect("fire runs it");
    assert_eq!(record["trigger_reason"], "manual");
    running.stop().await.expect("a clean stop");
    let reasons: Vec<String> = project
        .store()
        .automation_runs()
        .list(None, 10)
        .expect("read runs")
        .iter()
        .map(|r| format!("{} {}", r.automation_id, r.trigger_reason))
        .collect();
    assert_eq!(reasons, ["hourly manual"], "only the fire ran");
}

// guards: serve's log shows each tool call of a run as it happens, before the run ends
#[tokio::test]
async fn serve_reports_each_tool_call_of_a_run() {
    let replies = [
        json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "list_files", "arguments": "{}"}}]}}]}),
        json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"none.txt\"}"}}]}}]}),
        json!({"choices": [{"message": {"role": "assistant", "content": "done"}}]}),
    ];
    let next = std::sync::atomic::AtomicUsize::new(0);
    let model = hookrig_test_support::HttpStub::start(move |_| {
        let n = next
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            .min(2);
        hookrig_test_support::Reply::json(200, replies[n].to_string())
    });
    // Any variable set in a test's environment serves as the key: the stub takes any.
    let config = format!(
        "[automation.llm]\nprovider = \"openai\"\nmodel = \"m\"\nbase_url = \"{}\"\napi_key_env = \"CARGO_MANIFEST_DIR\"\n",
        model.url()
    );
    let tooled = "name = \"Tooled\"\nprompt_template = \"look\"\n[trigger]\ntype = \"event\"\nevent_type = \"custom.never\"\n";
    let project = Project::with_config(&[("tooled.toml", tooled)], &config);
    let running = project.start().await;
    let record = ingress::fire(project.socket(), "tooled", LIMIT)
        .await
        .expect("fire runs it");
    assert_eq!(record["status"], "completed", "{record}");
    running.stop().await.expect("a clean stop");
    let notices = project.notices();
    let expected_in_order = [
        "run of `tooled` started (manual)",
        "run of `tooled` called `list_files`",
        "run of `tooled` called `list_files` → `read_file`",
        "run of `tooled` completed",
    ];
    let mut rest = notices.iter();
    for expected in expected_in_order {
        assert!(
            rest.any(|notice| notice == expected),
            "no `{expected}` in order in {notices:#?}"
        );
    }
}

// guards: a serve whose runs go to a store a repository or a host named
#[test]
fn a_servers_shared_store_is_the_operators_else_the_users_config() {
    use hookrig_runtime::{Scope, ScopeArgs, SharedStore};
    let dir = tempfile::tempdir().expect("temp dir");
    let users = hookrig_config::ConfigToml {
        store_url: Some(hookrig_config::Sourced {
            value: "postgres://me@db/hookrig".to_owned(),
            source: dir.path().join("config.toml"),
            line: 2,
        }),
        ..hookrig_config::ConfigToml::default()
    };
    let scope = |shared_store, var: &'static str| {
        Scope::resolve_with(
            ScopeArgs {
                cwd: Some(dir.path().to_owned()),
                shared_store,
                ..ScopeArgs::default()
            },
            move |name| match name {
                "HOME" => Some("/home/me".into()),
                "HOOKRIG_STORE_URL" => Some(var.into()),
                _ => None,
            },
        )
        .expect("a scope")
    };
    let options = |scope: &Scope, config: &hookrig_config::ConfigToml| {
        ServerOptions::for_scope(scope, config.clone(), dir.path().join("s.sock")).shared_store
    };
    let operator = scope(SharedStore::Operator(None), "postgres://ops@db/x");
    assert_eq!(
        options(&operator, &users).as_deref(),
        Some("postgres://ops@db/x")
    );
    // What a host's environment says never reaches a scope that is not the operator's.
    let hosted = scope(
        SharedStore::UserConfig,
        "postgres://evil@attacker.example/loot",
    );
    assert_eq!(
        options(&hosted, &users).as_deref(),
        Some("postgres://me@db/hookrig")
    );
    assert_eq!(
        options(&hosted, &hookrig_config::ConfigToml::default()),
        None
    );
}
