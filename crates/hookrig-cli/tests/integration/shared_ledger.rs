//! `hookrig runs` and `hookrig why` on the shared PostgreSQL ledger the user's own
//! `config.toml` names, with this machine's SQLite file beside it (docs/postgres.md,
//! "Reading the ledger").

use hookrig_test_support::{TestDatabase, TestEnv};
use serde_json::Value;

use crate::harness::{code, emitted, hookrig, test_env, text};

const HOOK: &str = "[[hooks]]\nname = \"ok\"\nevents = [\"tool.before\"]\ncommand = \"true\"\n";

/// One `hookrig emit tool.before`, answered by the running engine when `engine`, else
/// in-process; its run id.
fn emit(env: &TestEnv, engine: bool) -> String {
    let mut command = env.command(["emit", "tool.before"]);
    command.env("HOOKRIG_ENGINE", if engine { "on" } else { "off" });
    let output =
        hookrig_test_support::run_with_input(command, b"{}", hookrig_test_support::HANG_LIMIT);
    let emitted = emitted(&output);
    assert_eq!(emitted.code, 0, "{}", emitted.stderr);
    emitted.run_id()
}

fn succeed(env: &TestEnv, args: &[&str]) -> (String, String) {
    let output = hookrig(env, args);
    assert_eq!(code(&output), 0, "{args:?}: {}", text(&output.stderr));
    (text(&output.stdout), text(&output.stderr))
}

fn run_ids(env: &TestEnv) -> Vec<String> {
    let (stdout, _) = succeed(env, &["runs", "--json"]);
    let runs: Vec<Value> = serde_json::from_str(&stdout).expect("runs --json is an array");
    runs.iter()
        .map(|run| run["run_id"].as_str().expect("a run id").to_owned())
        .collect()
}

// guards: with a shared store, `runs` lists the engine's emits from the database and the
// emits answered with no engine from this machine's file, as one ledger; `why` finds
// both; once `store migrate` copied the file's emits, each is listed once and no note is
// left
#[test]
fn runs_and_why_read_the_shared_ledger_with_this_machines_file_beside_it() {
    let Some(db) = TestDatabase::create("runs_shared_ledger") else {
        return;
    };
    let env = test_env();
    env.write_global_config(HOOK);
    crate::serve::write_config_toml(&env, &format!("[store]\nurl = \"{}\"\n", db.url()));
    succeed(&env, &["engine", "start", "--idle", "1m"]);
    let shared = emit(&env, true);
    succeed(&env, &["engine", "stop"]);
    let local = emit(&env, false);

    assert_eq!(run_ids(&env), [local.as_str(), &shared], "newest first");
    let (table, note) = succeed(&env, &["runs"]);
    assert!(
        table.contains(&shared[..8]) && table.contains(&local[..8]),
        "{table}"
    );
    assert!(
        note.contains("1 of these runs are only in this machine's ledger")
            && note.contains("hookrig store migrate --to URL"),
        "{note}"
    );
    for id in [&shared, &local] {
        let (why, _) = succeed(&env, &["why", &id[..12], "--json"]);
        let why: Value = serde_json::from_str(&why).expect("why --json");
        assert_eq!(why["run_id"], id.as_str());
    }

    succeed(&env, &["store", "migrate", "--to", db.url()]);
    assert_eq!(run_ids(&env), [local.as_str(), &shared], "each once");
    let (_, note) = succeed(&env, &["runs"]);
    assert!(!note.contains("only in this machine's ledger"), "{note}");
}

// guards: `runs` and `why` are commands a host's hooks may start, so neither a project's
// `[store] url` nor HOOKRIG_STORE_URL points them at a database
#[test]
fn runs_reads_no_database_a_project_or_a_variable_names() {
    let env = test_env();
    env.write_global_config(HOOK);
    let nowhere = "postgres://intruder@127.0.0.1:1/hookrig";
    env.write_file(
        ".hookrig/config.toml",
        &format!("[store]\nurl = \"{nowhere}\"\n"),
    );
    let local = emit(&env, false);
    let mut command = env.command(["runs", "--json"]);
    command.env("HOOKRIG_STORE_URL", nowhere);
    let output = command.output().expect("run hookrig runs");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains(&local));
}

// guards: a database that cannot be reached is an error naming it without its password,
// and saying what to do; never a hang
#[test]
fn a_shared_ledger_that_cannot_be_reached_is_a_clear_error() {
    let env = test_env();
    crate::serve::write_config_toml(
        &env,
        "[store]\nurl = \"postgres://app:s3cret@127.0.0.1:1/hookrig\"\n",
    );
    for args in [&["runs"][..], &["why", "0196f1c2"]] {
        let output = hookrig(&env, args);
        let stderr = text(&output.stderr);
        assert_eq!(code(&output), 1, "{stderr}");
        assert!(
            stderr.contains("postgres://app:***@127.0.0.1:1/hookrig")
                && !stderr.contains("s3cret")
                && stderr.contains("config.toml")
                && stderr.contains("check that the database is running"),
            "{stderr}"
        );
    }
}
