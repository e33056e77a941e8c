//! `hookrig agent` on the PostgreSQL store the user's own `config.toml` names: the agents
//! of every machine are listed with their machine, this machine's are recorded there by
//! `spawn` and its host, and another machine's agent is not acted on from here.

use std::time::Duration;

use hookrig_store::{AgentRow, AgentStore as _, PgStore};
use hookrig_test_support::TestDatabase;
use serde_json::Value;

use crate::agents::{FAKE, agents_json, fake_provider, ok, recorded, repo, run, spawn};
use crate::harness::{code, test_env, text};

/// An agent of `task` that another machine started, still running there.
fn elsewhere(task: &str) -> AgentRow {
    AgentRow {
        host: "node-b".to_owned(),
        worktree: format!("/srv/repo/.hookrig/worktrees/{task}"),
        repo: "/srv/repo".to_owned(),
        task: task.to_owned(),
        plan: "/srv/repo/plan.spl".to_owned(),
        agent: "coder".to_owned(),
        provider: "fake".to_owned(),
        branch: format!("task/{task}"),
        log: format!("/srv/repo/.hookrig/worktrees/{task}.log"),
        pid: Some(4242),
        proc_start: Some(1),
        started_at_ms: 1_000,
        exit_code: None,
        exit_signal: None,
        ended_at_ms: None,
        stopped_at_ms: None,
    }
}

fn row<'a>(rows: &'a [Value], task: &str) -> &'a Value {
    rows.iter()
        .find(|row| row["task"] == task)
        .unwrap_or_else(|| panic!("no agent of {task} in {rows:?}"))
}

// guards: with a shared store, `agent list` shows every machine's agents with their
// machine; `spawn` and the agent's host record this machine's there (its pid, then its
// end); `stop` refuses another machine's agent and stops this machine's
#[test]
fn agents_on_a_shared_store_are_every_machines_and_this_machines_are_acted_on() {
    let Some(db) = TestDatabase::create("shared_agents") else {
        return;
    };
    let env = test_env();
    repo(&env);
    env.write_file(".hookrig/config.toml", FAKE);
    crate::serve::write_config_toml(&env, &format!("[store]\nurl = \"{}\"\n", db.url()));
    let sleep = env.marked_sleep();
    fake_provider(&env, "fake-agent", &format!("'{}' 300", sleep.display()));
    let database = PgStore::open(db.url()).expect("the database");
    database
        .agents()
        .record(&elsewhere("docs"))
        .expect("another machine's agent");

    ok(&spawn(&env, "api", &[]));
    recorded(&env, "fake-agent");
    let mut rows = agents_json(&env);
    for _ in 0..200 {
        if row(&rows, "api")["running"] == true {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        rows = agents_json(&env);
    }
    let (api, docs) = (row(&rows, "api"), row(&rows, "docs"));
    assert_eq!(api["host"], hookrig_store::host_name().as_str(), "{api}");
    assert_eq!(
        api["running"], true,
        "its host recorded its pid there: {api}"
    );
    assert_eq!(
        (&docs["host"], &docs["state"], &docs["running"]),
        (
            &Value::from("node-b"),
            &Value::from("on its machine"),
            &Value::from(false)
        ),
        "not looked up here: {docs}"
    );
    let table = ok(&run(&env, &["agent", "list"]));
    assert!(
        table.starts_with("MACHINE ") && table.contains("\nnode-b "),
        "{table}"
    );

    let refused = run(&env, &["agent", "stop", "docs"]);
    assert_eq!(code(&refused), 1, "{}", text(&refused.stderr));
    assert!(
        text(&refused.stderr)
            .contains("the agent of task 'docs' runs on the machine node-b, not this one"),
        "{}",
        text(&refused.stderr)
    );
    let out = ok(&run(&env, &["agent", "stop", "api", "--grace", "3"]));
    assert!(out.starts_with("stopped the agent of task 'api'"), "{out}");
    assert!(env.leftovers().is_empty(), "a process of the group is left");
    let mut api = row(&agents_json(&env), "api").clone();
    for _ in 0..200 {
        if !api["exit_signal"].is_null() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        api = row(&agents_json(&env), "api").clone();
    }
    assert_eq!(
        api["exit_signal"], 15,
        "its host recorded its end there: {api}"
    );
    assert_eq!(
        database.agents().list().expect("agents").len(),
        2,
        "both agents are in the database"
    );
}
