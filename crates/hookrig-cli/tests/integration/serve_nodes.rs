//! `hookrig serve` processes on one PostgreSQL store (`HOOKRIG_STORE_URL`). Three nodes
//! and an automation every 2 s: each period is fired by one node, and when the node
//! running a run is killed (SIGKILL), the others mark its run `interrupted` once its
//! lease has expired and go on firing; that test lasts about a minute, the lease of a
//! run being 30 s, the least a node may hold one. Events: one emitted on a node reaches
//! the automations another node runs, and one delivered to every node starts one run.
//! Ten nodes answering emits record every one into the one ledger. A task or a memory
//! made on one node is in the store another node reads, and one change of a file two
//! nodes watch starts one run. Skipped where `HOOKRIG_TEST_POSTGRES` is unset.

use std::io::Write as _;
use std::os::unix::net::UnixStream;

use hookrig_test_support::{TestDatabase, TestEnv};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::engine::http;
use crate::harness::{emit, test_env, text};
use crate::serve::{Serve, wait_for, write_config_toml};

const EVERY_TWO: &str = r#"
name = "Every Two"
cooldown_seconds = 0
context_steps = [{ type = "shell", command = "sleep 1" }]
[trigger]
type = "periodic"
interval_seconds = 2
skip_llm = true
"#;

/// The lease of a run in flight: `MIN_LEASE` of the server, as three ticks are less.
const LEASE_SECONDS: f64 = 30.0;

// guards: serve nodes on one database fire each period once, and a killed node's run
// is marked interrupted by the others, not left `running`
#[test]
fn three_serve_nodes_fire_each_period_once_and_take_over_a_killed_nodes_run() {
    let Some(db) = TestDatabase::create("three_serve_nodes") else {
        return;
    };
    let envs: Vec<TestEnv> = (0..3)
        .map(|_| {
            let env = test_env();
            write_config_toml(&env, "[automation]\ntick = \"500ms\"\n");
            env.write_file(".hookrig/automations/every.toml", EVERY_TWO);
            env
        })
        .collect();
    let mut nodes: Vec<Option<Serve>> = envs
        .iter()
        .map(|env| Some(Serve::node(env, db.url())))
        .collect();
    let mut client = db.connect();
    let count = |client: &mut postgres::Client, sql: &str| -> i64 {
        client.query_one(sql, &[]).expect("count").get(0)
    };

    // Let some periods go by, then kill the node that runs the automation now.
    wait_for("ten runs", || {
        (count(&mut client, "SELECT count(*) FROM automation_runs") >= 10).then_some(())
    });
    let (holder, victim_run): (String, String) = wait_for("a run in flight", || {
        client
            .query_opt("SELECT node, run_id FROM automation_leases", &[])
            .expect("read the leases")
            .map(|row| (row.get(0), row.get(1)))
    });
    let pid: i32 = holder
        .split(':')
        .nth(1)
        .and_then(|pid| pid.parse().ok())
        .expect("a node is named host:pid:start");
    let victim = nodes
        .iter()
        .position(|node| node.as_ref().is_some_and(|n| n.pid() == Pid::from_raw(pid)))
        .expect("the holder is one of the nodes");
    kill(Pid::from_raw(pid), Signal::SIGKILL).expect("kill the node");
    drop(nodes[victim].take());

    // The others mark its run interrupted once its lease expired, then fire again.
    let ended: f64 = wait_for("the killed node's run to be marked interrupted", || {
        client
            .query_opt(
                "SELECT completed_at FROM automation_runs WHERE id = $1 AND status = 'interrupted'",
                &[&victim_run],
            )
            .expect("read the run")
            .map(|row| row.get(0))
    });
    wait_for("two runs after the takeover", || {
        let after: i64 = client
            .query_one(
                "SELECT count(*) FROM automation_runs WHERE started_at > $1",
                &[&ended],
            )
            .expect("count")
            .get(0);
        (after >= 2).then_some(())
    });
    for node in nodes.iter_mut().filter_map(Option::take) {
        node.stop_cleanly();
    }

    // Its lease was last renewed by its last heartbeat; it was not taken over before.
    let last_beat: f64 = client
        .query_one("SELECT heartbeat_at FROM nodes WHERE id = $1", &[&holder])
        .expect("the killed node's heartbeat")
        .get(0);
    assert!(
        ended >= last_beat + LEASE_SECONDS,
        "ended {ended}, last beat {last_beat}"
    );

    // No period fired twice; every period from the first run to the kill was fired.
    let runs = count(&mut client, "SELECT count(*) FROM automation_runs");
    let periods = count(
        &mut client,
        "SELECT count(DISTINCT period) FROM automation_periods",
    );
    assert_eq!(runs, periods, "a period fired twice");
    assert_eq!(
        count(&mut client, "SELECT count(*) FROM automation_periods"),
        runs
    );
    every_period_fired_or_passed_over(&mut client, &victim_run);
    assert_eq!(
        count(
            &mut client,
            "SELECT count(*) FROM automation_runs WHERE status = 'running'"
        ),
        0,
        "no run is left running"
    );
}

/// Every period from the first run to the kill of `victim_run` was fired, or passed over
/// while a run was in flight in it (an automation never runs twice at once, and on a
/// loaded machine a run of `sleep 1` can reach into the next period). The periods are
/// read as the nodes claimed them: a run's start may fall just past the end of its
/// period. That each period fires when nothing is in flight is shown on a clock the test
/// sets, in hookrig-automation's `three_nodes_fire_each_period_once_and_take_over_a_dead_nodes_run`.
fn every_period_fired_or_passed_over(client: &mut postgres::Client, victim_run: &str) {
    let victim_period: i64 = client
        .query_one(
            "SELECT period FROM automation_periods WHERE run_id = $1",
            &[&victim_run],
        )
        .expect("the killed run's period")
        .get(0);
    let fired: Vec<(i64, f64, f64)> = client
        .query(
            "SELECT p.period, r.started_at, coalesce(r.completed_at, 'Infinity')
             FROM automation_periods p JOIN automation_runs r ON r.id = p.run_id
             ORDER BY p.period",
            &[],
        )
        .expect("read the periods")
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2)))
        .collect();
    let in_flight_during = |period: i64| {
        #[expect(clippy::cast_precision_loss, reason = "Unix seconds")]
        let (from, to) = (period as f64, (period + 2) as f64);
        fired
            .iter()
            .any(|(_, started, ended)| *started < to && *ended > from)
    };
    let unexplained: Vec<i64> = (fired[0].0..=victim_period)
        .step_by(2)
        .filter(|period| !fired.iter().any(|(p, _, _)| p == period))
        .filter(|period| !in_flight_during(*period))
        .collect();
    assert!(
        unexplained.is_empty(),
        "periods before the kill neither fired nor passed over for a run in flight: \
         {unexplained:?}; fired (period, started, ended): {fired:?}"
    );
}

const ON_DONE: &str = r#"
name = "On Done"
cooldown_seconds = 0
context_steps = [{ type = "shell", command = "true" }]
[trigger]
type = "event"
event_type = "task.completed"
skip_llm = true
"#;

/// A node's environment, with the automation files `files` (name, text).
fn node_env(files: &[(&str, &str)]) -> TestEnv {
    let env = test_env();
    for (name, text) in files {
        env.write_file(format!(".hookrig/automations/{name}"), text);
    }
    env
}

/// The runs of the automation `id` in the shared store: status and event data.
fn runs_of(client: &mut postgres::Client, id: &str) -> Vec<(String, serde_json::Value)> {
    client
        .query(
            "SELECT status, event_data FROM automation_runs WHERE automation_id = $1",
            &[&id],
        )
        .expect("read the runs")
        .iter()
        .map(|row| {
            let data: Option<String> = row.get(1);
            let data = data.map_or(serde_json::Value::Null, |d| {
                serde_json::from_str(&d).expect("JSON event data")
            });
            (row.get(0), data)
        })
        .collect()
}

// guards: an event emitted on one node fires the automation that only another node runs
#[test]
fn an_event_emitted_on_one_node_fires_an_automation_of_another() {
    let Some(db) = TestDatabase::create("event_across_nodes") else {
        return;
    };
    let a = node_env(&[]);
    let b = node_env(&[("on-done.toml", ON_DONE)]);
    let nodes = [Serve::node(&a, db.url()), Serve::node(&b, db.url())];

    let out = emit(&a, &["task.completed"], r#"{"task_id":"t1"}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut client = db.connect();
    let runs = wait_for("the run on the other node", || {
        let runs = runs_of(&mut client, "on-done");
        runs.iter()
            .any(|(status, _)| status == "completed")
            .then_some(runs)
    });
    assert_eq!(runs.len(), 1, "{runs:?}");
    let event = &runs[0].1;
    assert_eq!(event["task_id"], "t1");
    assert_eq!(event["_event_type"], "task.completed");
    assert!(event["_event_id"].is_string(), "{event}");
    for node in nodes {
        node.stop_cleanly();
    }
}

// guards: one event delivered to every node (one id) starts one run, and no node
// records it as not run
#[test]
fn one_event_delivered_to_three_nodes_starts_one_run() {
    let Some(db) = TestDatabase::create("event_three_nodes") else {
        return;
    };
    // Each node has a sentinel automation of its own: once its run of the second event
    // is recorded, that node has handled the first (a node handles its socket's
    // requests in order).
    let envs: Vec<TestEnv> = (0..3)
        .map(|n| {
            let sentinel = format!(
                "id = \"sentinel-{n}\"\n{}",
                ON_DONE.replace("task.completed", "test.sentinel")
            );
            let env = node_env(&[
                ("on-done.toml", ON_DONE),
                (&format!("sentinel-{n}.toml"), &sentinel),
            ]);
            // The runs of the three nodes together stay under the cap, which counts
            // every node's.
            write_config_toml(&env, "[automation]\nmax_concurrent = 8\n");
            env
        })
        .collect();
    let nodes: Vec<Serve> = envs.iter().map(|env| Serve::node(env, db.url())).collect();
    for env in &envs {
        let mut socket = UnixStream::connect(env.serve_socket()).expect("connect");
        socket
            .write_all(
                b"{\"type\":\"event\",\"event_type\":\"task.completed\",\"id\":\"shared-1\",\"payload\":{\"task_id\":\"t1\"}}\n\
                  {\"type\":\"event\",\"event_type\":\"test.sentinel\",\"id\":\"sentinel-1\"}\n",
            )
            .expect("deliver");
    }
    let mut client = db.connect();
    wait_for("every node's sentinel run", || {
        (0..3)
            .all(|n| {
                runs_of(&mut client, &format!("sentinel-{n}"))
                    .iter()
                    .any(|(status, _)| status == "completed")
            })
            .then_some(())
    });
    let runs = runs_of(&mut client, "on-done");
    assert_eq!(runs.len(), 1, "one run, no record of it not run: {runs:?}");
    assert_eq!(runs[0].1["_event_id"], "shared-1");
    for node in nodes {
        node.stop_cleanly();
    }
}

/// A user hook that listens to `tool.before` and never matches: every emit considers it
/// (its start and its end are written, with one hook row) and no process is started.
const NEVER_MATCHES: &str = r#"
[[hooks]]
name = "never"
events = ["tool.before"]
matcher = "^never$"
command = "exit 2"
"#;

/// The ledger test of the issue: ten `hookrig serve` nodes on one database, each
/// answering a thousand emits over HTTP while the others do: every emit answered is one
/// row of the shared ledger (none lost, none twice), and it is there as soon as it is
/// answered, before any node stops.
// guards: the emits a serve node with a shared store answers are recorded in that store,
// committed before the answer, whatever the other nodes write at the same time
#[test]
fn ten_serve_nodes_record_ten_thousand_emits_into_one_ledger() {
    const NODES: usize = 10;
    const EACH: usize = 1_000;
    let Some(db) = TestDatabase::create("ten_serve_nodes") else {
        return;
    };
    let envs: Vec<TestEnv> = (0..NODES)
        .map(|_| {
            let env = test_env();
            env.write_global_config(NEVER_MATCHES);
            env
        })
        .collect();
    let nodes: Vec<(Serve, u16, String)> = envs
        .iter()
        .map(|env| {
            let mut command = env.command(["serve", "--http", "127.0.0.1:0"]);
            command.env("HOOKRIG_STORE_URL", db.url());
            let serve = Serve::start_with(env, command);
            let port: u16 = wait_for("the HTTP address", || {
                let log = serve.stderr();
                let at = log.find("answering emits on http://127.0.0.1:")?;
                log[at + "answering emits on http://127.0.0.1:".len()..]
                    .split('/')
                    .next()?
                    .parse()
                    .ok()
            });
            let token = text(&crate::harness::hookrig(env, &["serve", "--print-token"]).stdout)
                .trim()
                .to_owned();
            (serve, port, token)
        })
        .collect();

    std::thread::scope(|scope| {
        for (node, (_, port, token)) in nodes.iter().enumerate() {
            scope.spawn(move || {
                for i in 0..EACH {
                    let body = format!(r#"{{"tool":{{"name":"Write"}},"node":{node},"i":{i}}}"#);
                    let (status, head, _) =
                        http(*port, "/emit/tool.before", Some(token), body.as_bytes());
                    assert_eq!(status, 200, "node {node}, emit {i}: {head}");
                }
            });
        }
    });

    let mut client = db.connect();
    let count = |client: &mut postgres::Client, sql: &str| -> i64 {
        client.query_one(sql, &[]).expect("count").get(0)
    };
    let total = i64::try_from(NODES * EACH).expect("small");
    // Answered is recorded: counted while every node still runs.
    assert_eq!(count(&mut client, "SELECT count(*) FROM emits"), total);
    assert_eq!(
        count(&mut client, "SELECT count(DISTINCT payload_in) FROM emits"),
        total,
        "every emit once"
    );
    assert_eq!(
        count(
            &mut client,
            "SELECT count(*) FROM emits WHERE decision = 'allow' AND by_engine"
        ),
        total,
        "every emit finished"
    );
    assert_eq!(
        count(
            &mut client,
            "SELECT count(*) FROM hook_runs WHERE name = 'never' AND NOT matched"
        ),
        total
    );
    // Nothing went to the nodes' own SQLite ledgers.
    for env in &envs {
        let runs = text(&crate::harness::hookrig(env, &["runs", "--json"]).stdout);
        assert_eq!(runs.trim(), "[]");
    }
    for (serve, _, _) in nodes {
        serve.stop_cleanly();
    }
    assert_eq!(count(&mut client, "SELECT count(*) FROM emits"), total);
}

/// The finished runs of the automation `id` in the shared store: their step results.
fn results_of(client: &mut postgres::Client, id: &str) -> Vec<serde_json::Value> {
    client
        .query(
            "SELECT context_results FROM automation_runs
             WHERE automation_id = $1 AND status <> 'running' ORDER BY seq",
            &[&id],
        )
        .expect("read the runs")
        .iter()
        .map(|row| {
            let results: Option<String> = row.get(0);
            results.map_or(serde_json::Value::Null, |r| {
                serde_json::from_str(&r).expect("JSON step results")
            })
        })
        .collect()
}

const MAKE_TASK: &str = r#"
name = "Make Task"
cooldown_seconds = 0
context_steps = [{ type = "create_task", title_template = "Follow up", priority = 7 }]
[trigger]
type = "event"
event_type = "task.completed"
skip_llm = true
"#;

// guards: a serve node with a shared store creates its automations' tasks there, not in
// its own SQLite file, so that every node and whatever reads the database sees them
#[test]
fn a_task_an_automation_creates_on_one_node_is_in_the_shared_store() {
    let Some(db) = TestDatabase::create("task_across_nodes") else {
        return;
    };
    let a = node_env(&[]);
    let b = node_env(&[("make-task.toml", MAKE_TASK)]);
    let nodes = [Serve::node(&a, db.url()), Serve::node(&b, db.url())];

    let out = emit(&a, &["task.completed"], r#"{"task_id":"t1"}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut client = db.connect();
    let results = wait_for("the run on the other node", || {
        Some(results_of(&mut client, "make-task")).filter(|runs| !runs.is_empty())
    });
    let task_id = results[0][0]["task_id"]
        .as_str()
        .unwrap_or_else(|| panic!("a task id: {results:?}"))
        .to_owned();
    let row = client
        .query_one(
            "SELECT title, priority, status, created_by FROM tasks WHERE id = $1",
            &[&task_id],
        )
        .expect("the task is in the shared store");
    let (title, priority, status, by): (String, i64, String, Option<String>) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    assert_eq!(
        (title.as_str(), priority, status.as_str(), by.as_deref()),
        ("Follow up", 7, "pending", Some("automation"))
    );
    // The store a node's `hookrig` reads for the operator finds it too.
    let store = hookrig_store::PgStore::open(db.url()).expect("open the store");
    let task = hookrig_store::TaskStore::get(&store.tasks(), &task_id).expect("read the task");
    assert_eq!(task.map(|t| t.title).as_deref(), Some("Follow up"));
    for node in nodes {
        node.stop_cleanly();
    }
}

const SEARCH_MEMORY: &str = r#"
name = "Search Memory"
cooldown_seconds = 0
context_steps = [{ type = "memory_search", query = "zebra", top_k = 5 }]
[trigger]
type = "event"
event_type = "task.completed"
skip_llm = true
"#;

// guards: what `memory.upsert` stores on one node and the notes of another node's
// checkout are one shared index that a node's `memory_search` reads
#[test]
fn a_memory_stored_on_one_node_is_found_by_another_nodes_search() {
    let Some(db) = TestDatabase::create("memory_across_nodes") else {
        return;
    };
    let a = node_env(&[]);
    let b = node_env(&[("search-memory.toml", SEARCH_MEMORY)]);
    b.write_file("notes/ops.md", "# Ops\nthe zebra checklist\n");
    let nodes = [Serve::node(&a, db.url()), Serve::node(&b, db.url())];

    let out = emit(
        &a,
        &["memory.upsert"],
        r#"{"source":"runbook","heading":"Zebra","content":"restart the zebra service"}"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Node A handles its socket's requests in order: the memory is stored before this
    // event reaches node B.
    let out = emit(&a, &["task.completed"], r#"{"task_id":"t1"}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut client = db.connect();
    let results = wait_for("the search on the other node", || {
        Some(results_of(&mut client, "search-memory")).filter(|runs| !runs.is_empty())
    });
    let search = &results[0][0];
    assert_eq!(search["count"], 2, "{search:#}");
    let content = search["content"].as_str().expect("content");
    assert!(content.contains("restart the zebra service"), "{content}");
    // Node B's note, under its path in the notes directory rather than B's checkout's.
    assert!(content.contains("### ops.md — Ops"), "{content}");
    assert!(content.contains("the zebra checklist"), "{content}");
    for node in nodes {
        node.stop_cleanly();
    }
}

/// A file watch on a directory given by its absolute path: written literally in every
/// node's automation file, as the one shared directory every node watches.
fn on_shared_change(dir: &std::path::Path) -> String {
    format!(
        r#"
name = "On Change"
cooldown_seconds = 0
context_steps = [{{ type = "shell", command = "true" }}]
[trigger]
type = "event"
event_type = "file.changed"
skip_llm = true
[trigger.watch]
paths = ["{}/app.toml"]
"#,
        dir.display()
    )
}

// guards: two nodes watching one directory start one run for one change of a file
// (that the next change is another event is `one_change_has_one_id_whoever_watches_it`
// of hookrig-automation: a change made while the first run is in flight is not run, by
// design, whichever node sees it)
#[test]
fn one_file_change_seen_by_two_nodes_starts_one_run() {
    let Some(db) = TestDatabase::create("watch_across_nodes") else {
        return;
    };
    let shared = tempfile::tempdir().expect("a shared directory");
    let automation = on_shared_change(shared.path());
    // Each node has a sentinel watch of its own on another file, written last: once a
    // node's sentinel run is recorded, that node has handled the changes before it (its
    // watcher sends them in order).
    let envs: Vec<TestEnv> = (0..2)
        .map(|n| {
            let sentinel =
                format!("id = \"sentinel-{n}\"\n{automation}").replace("/app.toml", "/sentinel");
            let env = node_env(&[
                ("on-change.toml", &automation),
                (&format!("sentinel-{n}.toml"), &sentinel),
            ]);
            write_config_toml(&env, "[automation]\nmax_concurrent = 8\n");
            env
        })
        .collect();
    let nodes: Vec<Serve> = envs.iter().map(|env| Serve::node(env, db.url())).collect();
    for node in &nodes {
        wait_for("the watches to be set up", || {
            node.stderr()
                .contains("watching 2 path(s) for 2 automation(s)")
                .then_some(())
        });
    }
    let mut client = db.connect();
    let finished = |client: &mut postgres::Client, id: &str| {
        runs_of(client, id)
            .iter()
            .filter(|(status, _)| status == "completed")
            .count()
    };
    // Each write renames a complete file into place, as editors and git do: one event
    // of the kernel, so that a busy machine cannot make one node see the file created
    // empty and written later, and the other see both at once.
    let put = |name: &str, text: &str| {
        let partial = shared.path().join(format!(".{name}.partial"));
        std::fs::write(&partial, text).expect("write");
        std::fs::rename(&partial, shared.path().join(name)).expect("rename");
    };
    put("app.toml", "port = 1\n");
    wait_for("the change's run", || {
        (finished(&mut client, "on-change") >= 1).then_some(())
    });
    put("sentinel", "done\n");
    wait_for("every node's sentinel run", || {
        (0..2)
            .all(|n| finished(&mut client, &format!("sentinel-{n}")) >= 1)
            .then_some(())
    });
    let runs = runs_of(&mut client, "on-change");
    assert_eq!(runs.len(), 1, "one run, no record of it not run: {runs:?}");
    assert_eq!(runs[0].0, "completed", "{runs:?}");
    let id = runs[0].1["_event_id"].as_str().unwrap_or_default();
    assert!(id.starts_with("change-"), "{runs:?}");
    for node in nodes {
        node.stop_cleanly();
    }
}

/// A JavaScript plugin that denies a command when hookrig's memory has something on it.
const RECALLING: &str = r#"
export function register(ctx) {
  ctx.bus.on("tool.before@v1", async (p) => {
    const hits = await ctx.memory.search(String(p.tool.input.command), { limit: 2 });
    return hits.length > 0
      ? { allow: false, reason: `remembered: ${hits[0].content}` }
      : { allow: true };
  });
}
"#;

// guards: a plugin that an emit of a serve node with a shared store runs reads the
// memory the nodes share (`ctx.memory`), not the node's own SQLite memory
#[test]
fn a_plugin_run_by_a_serve_nodes_emit_reads_the_shared_memory() {
    if !crate::harness::tool_available("node") {
        return;
    }
    let Some(db) = TestDatabase::create("plugin_memory") else {
        return;
    };
    let env = test_env();
    let dir = env.root().join("plugins/recalling");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("manifest.json"), "{}").expect("write");
    std::fs::write(dir.join("index.mjs"), RECALLING).expect("write");
    let dir = dir.to_str().expect("utf-8");
    for args in [
        vec!["plugins", "register", "recalling", "--path", dir],
        vec!["plugins", "enable", "recalling", "--all"],
    ] {
        let output = crate::harness::hookrig(&env, &args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
    // Stored in the shared store only, as another node's `memory.upsert` would.
    let store = hookrig_store::PgStore::open(db.url()).expect("open the store");
    hookrig_store::MemoryIndex::upsert(
        &store.memory(),
        "project",
        "runbook",
        "Deploys",
        "never deploy on a friday",
    )
    .expect("remember");

    let mut command = env.command(["serve", "--http", "127.0.0.1:0"]);
    command.env("HOOKRIG_STORE_URL", db.url());
    let serve = Serve::start_with(&env, command);
    let port: u16 = wait_for("the HTTP address", || {
        let log = serve.stderr();
        let at = log.find("answering emits on http://127.0.0.1:")?;
        log[at + "answering emits on http://127.0.0.1:".len()..]
            .split('/')
            .next()?
            .parse()
            .ok()
    });
    let token = text(&crate::harness::hookrig(&env, &["serve", "--print-token"]).stdout)
        .trim()
        .to_owned();
    let body = r#"{"tool":{"name":"bash","input":{"command":"deploy"}}}"#;
    let (status, head, answer) = http(port, "/emit/tool.before", Some(&token), body.as_bytes());
    assert_eq!(status, 200, "{head}");
    let outcome: serde_json::Value = serde_json::from_str(&answer).expect("an Outcome");
    assert_eq!(outcome["decision"], "deny", "{outcome:#}");
    assert_eq!(outcome["reason"], "remembered: never deploy on a friday");
    serve.stop_cleanly();
}
