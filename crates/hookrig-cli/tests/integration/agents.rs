//! `hookrig agent spawn|list|watch|log|stop|clean` in real temporary git repositories, with
//! fake provider scripts that record the argv, environment and input they received.

use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

use hookrig_test_support::{TestEnv, git, wait_for_file};
use indoc::{formatdoc, indoc};
use serde_json::Value;

use crate::harness::{code, test_env, text};

/// A plan with three ready tasks; `api` names the provider `fake` in its meta.
const PLAN: &str = indoc! {r#"
    (meta plan (title "Agents") (status "active"))
    (given agent-coder-available)
    (given task-api)
    (meta task-api
      (description "Add the login endpoint")
      (acceptance "the tests pass")
      (provider "fake"))
    (given ready-api)
    (given task-docs)
    (meta task-docs (description "Write the docs"))
    (given ready-docs)
    (given task-ui)
    (given ready-ui)
"#};

/// The project as a real git repository on branch `main` with the plan committed.
pub(crate) fn repo(env: &TestEnv) -> PathBuf {
    let project = env.project();
    std::fs::remove_dir_all(project.join(".git")).expect("remove the fake .git");
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["config", "user.email", "t@example.com"]);
    git(&project, &["config", "user.name", "T"]);
    env.write_file("plan.spl", PLAN);
    env.write_file("README", "hello\n");
    git(&project, &["add", "plan.spl", "README"]);
    git(&project, &["commit", "-q", "-m", "start"]);
    project
}

/// A fake provider that records its argv, working directory and agent variables to
/// `record/NAME.txt`, then runs `then` (shell).
pub(crate) fn fake_provider(env: &TestEnv, name: &str, then: &str) {
    let record = env.root().join("record");
    env.write_bin(
        name,
        &formatdoc! {r#"
            mkdir -p '{record}'
            {{
              printf 'argv:'; for a in "$@"; do printf ' [%s]' "$a"; done; printf '\n'
              echo "pwd: $(pwd)"
              env | grep -E '^(HOOKRIG|HENCE)_(AGENT|PLAN|TASK)=' | sort
            }} > '{record}/{name}.tmp'
            mv '{record}/{name}.tmp' '{record}/{name}.txt'
            {then}
        "#,
            record = record.display(),
        },
    );
}

pub(crate) fn recorded(env: &TestEnv, name: &str) -> String {
    let path = env.root().join("record").join(format!("{name}.txt"));
    assert!(
        wait_for_file(&path, Duration::from_secs(10)),
        "{name} never ran"
    );
    env.redact(&std::fs::read_to_string(&path).expect("read the record"))
}

/// `hookrig ARGS` with only the test's bin and the system directories in `PATH`, so
/// that a real `claude` of the machine is never auto-detected.
pub(crate) fn run(env: &TestEnv, args: &[&str]) -> Output {
    let mut command = env.command(args);
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", env.bin().display());
    command.env("PATH", path);
    hookrig_test_support::run_with_input(command, b"", hookrig_test_support::HANG_LIMIT)
}

pub(crate) fn spawn(env: &TestEnv, task: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "agent", "spawn", task, "--plan", "plan.spl", "--agent", "coder",
    ];
    args.extend_from_slice(extra);
    run(env, &args)
}

pub(crate) fn ok(output: &Output) -> String {
    assert_eq!(
        code(output),
        0,
        "stdout: {}\nstderr: {}",
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stdout)
}

pub(crate) const FAKE: &str = indoc! {r#"
    [[providers]]
    id = "fake"
    name = "Fake"
    cli = "fake-agent"
    default_args = ["--quiet"]
    auto_approve_flag = "-y"
    initial_prompt_flag = "--prompt"
    resume_flag = "--resume"
"#};

pub(crate) fn agents_json(env: &TestEnv) -> Vec<Value> {
    let out = ok(&run(env, &["agent", "list", "--json"]));
    match serde_json::from_str(&out).expect("JSON") {
        Value::Array(rows) => rows,
        other => panic!("expected an array, got {other}"),
    }
}

/// Waits until `agent list` says the agent of `task` no longer runs.
fn wait_exited(env: &TestEnv, task: &str) -> Value {
    for _ in 0..200 {
        let row = agents_json(env)
            .into_iter()
            .find(|r| r["task"] == task)
            .expect("the agent is listed");
        if row["running"] == false && !row["exit_code"].is_null() {
            return row;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the agent of {task} did not exit");
}

#[test]
fn spawn_passes_the_prompt_by_flag_with_the_agent_environment() {
    let env = test_env();
    let project = repo(&env);
    env.write_file(".hookrig/config.toml", FAKE);
    fake_provider(&env, "fake-agent", "echo working on it; echo oops >&2");
    // guards: the claim goes through the task lifecycle, so post-claim hooks fire.
    let claimed = env.root().join("claimed.txt");
    env.write_script(
        ".hookrig/hooks/post-claim",
        &format!("echo \"$1 $2 $3 $HENCE_EVENT\" > '{}'", claimed.display()),
    );

    let out = ok(&spawn(&env, "api", &[]));
    // The claim's own report comes first, then what spawn did.
    assert!(
        out.starts_with("claimed api: ready → in_progress\n"),
        "{out}"
    );
    assert!(
        out.contains("\nspawned fake (task meta) for agent 'coder' on task 'api', pid "),
        "{out}"
    );
    insta::assert_snapshot!(recorded(&env, "fake-agent"));
    assert!(wait_for_file(&claimed, Duration::from_secs(10)));
    assert_eq!(
        std::fs::read_to_string(&claimed).expect("read"),
        format!("{} api coder claim\n", project.join("plan.spl").display())
    );
    // The claim is in the plan.
    assert!(
        std::fs::read_to_string(project.join("plan.spl"))
            .expect("read")
            .contains("claimed-api")
    );

    let worktree = project.join(".hookrig/worktrees/api");
    assert_eq!(
        git(&worktree, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        "task/api"
    );
    // The worktrees do not show up as untracked files of the main checkout.
    assert!(!git(&project, &["status", "--porcelain"]).contains(".hookrig/worktrees"));

    let row = wait_exited(&env, "api");
    assert_eq!(row["exit_code"], 0);
    assert_eq!(row["provider"], "fake");
    assert_eq!(row["agent"], "coder");
    assert_eq!(row["worktree"], worktree.display().to_string());
    assert_eq!(row["state"], "exited (0)");

    // log prints the whole log, then how the agent ended; `watch TASK` still does.
    let logged = ok(&run(&env, &["agent", "log", "api"]));
    assert_eq!(
        logged,
        "working on it\noops\nhookrig: the agent of task 'api' exited (0)\n"
    );
    assert_eq!(ok(&run(&env, &["agent", "watch", "api"])), logged);
}

#[test]
fn selection_order_is_flag_task_meta_agent_config_then_auto_detection() {
    let env = test_env();
    let project = repo(&env);
    fake_provider(&env, "fake-agent", "");
    fake_provider(&env, "claude", "");
    fake_provider(&env, "aider", "");
    env.write_file(
        ".hookrig/config.toml",
        &format!("{FAKE}\n[[agents]]\nname = \"qa\"\nprovider = \"aider\"\n"),
    );
    // config show has the [[agents]] entry with its place.
    let shown = ok(&run(&env, &["config", "show"]));
    assert!(
        shown.contains(&format!(
            "[[agents]]  # {}:10\nname = \"qa\"\nprovider = \"aider\"\n",
            project.join(".hookrig/config.toml").display()
        )),
        "{shown}"
    );
    // Nothing names one: the first known CLI on PATH, claude before aider.
    let out = ok(&spawn(&env, "docs", &[]));
    assert!(
        out.contains("spawned claude (auto-detected on PATH)"),
        "{out}"
    );
    let argv = recorded(&env, "claude");
    assert!(
        argv.starts_with(
            "argv: [--dangerously-skip-permissions] [-p] [You are working on task `docs`"
        ),
        "{argv}"
    );
    // The agent's [[agents]] entry wins over auto-detection.
    let out = ok(&run(
        &env,
        &[
            "agent", "spawn", "ui", "--plan", "plan.spl", "--agent", "qa",
        ],
    ));
    assert!(
        out.contains("spawned aider ([[agents]] in config.toml)"),
        "{out}"
    );
    assert!(recorded(&env, "aider").starts_with("argv: [--yes-always] [--message] [You are"));
    // The task's meta wins over the agent's entry.
    let out = ok(&run(
        &env,
        &[
            "agent", "spawn", "api", "--plan", "plan.spl", "--agent", "qa",
        ],
    ));
    assert!(out.contains("spawned fake (task meta)"), "{out}");
    for task in ["docs", "ui", "api"] {
        wait_exited(&env, task);
    }
    // --provider wins over everything (qa holds api: coder may not spawn on it).
    std::fs::remove_file(env.root().join("record/claude.txt")).expect("rm");
    let out = ok(&run(
        &env,
        &[
            "agent",
            "spawn",
            "api",
            "--plan",
            "plan.spl",
            "--agent",
            "qa",
            "--provider",
            "claude",
        ],
    ));
    assert!(out.contains("spawned claude (--provider)"), "{out}");
    recorded(&env, "claude");
    wait_exited(&env, "api");
    assert!(project.join(".hookrig/worktrees/ui").is_dir());
}

#[test]
fn a_missing_cli_is_hences_message_and_exit_1() {
    let env = test_env();
    repo(&env);
    env.write_file(
        ".hookrig/config.toml",
        "[[providers]]\nid = \"fake\"\nname = \"Fake\"\ncli = \"/opt/nowhere/fake\"\n",
    );
    let output = spawn(&env, "api", &[]);
    assert_eq!(code(&output), 1);
    assert_eq!(
        text(&output.stderr),
        "hookrig: error: provider 'fake' CLI '/opt/nowhere/fake' not found\n"
    );
    // Nothing was claimed or created.
    assert!(!env.project().join(".hookrig/worktrees/api").exists());
    assert!(
        !env.read_file("plan.spl")
            .expect("plan")
            .contains("claimed-api")
    );

    // No agent, an unknown task: errors that say what to do.
    let output = run(&env, &["agent", "spawn", "api", "--plan", "plan.spl"]);
    assert_eq!(
        (code(&output), text(&output.stderr)),
        (
            1,
            "hookrig: error: no agent: give --agent NAME or set HOOKRIG_AGENT\n".to_owned()
        )
    );
    let output = spawn(&env, "nope", &[]);
    assert_eq!(code(&output), 1);
    assert!(
        text(&output.stderr).ends_with("has no task 'nope'; its tasks: api, docs, ui\n"),
        "{}",
        text(&output.stderr)
    );

    // No provider at all: none configured for the task or agent, none on PATH.
    let output = spawn(&env, "docs", &[]);
    assert_eq!(code(&output), 1);
    assert!(
        text(&output.stderr).contains("none of claude, codex, gemini, aider is on PATH"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn worktrees_are_reused_when_clean_and_refused_when_not_worktrees_or_dirty() {
    let env = test_env();
    let project = repo(&env);
    env.write_file(".hookrig/config.toml", FAKE);
    fake_provider(&env, "fake-agent", "");
    let out = ok(&spawn(&env, "api", &[]));
    assert!(out.contains("(created, new branch task/api)"), "{out}");
    wait_exited(&env, "api");
    let out = ok(&spawn(&env, "api", &[]));
    assert!(out.contains("(reused task/api)"), "{out}");
    wait_exited(&env, "api");

    // Uncommitted work stops a plain spawn; --resume continues in it, with resume_flag.
    env.write_file(".hookrig/worktrees/api/notes.txt", "half done\n");
    let output = spawn(&env, "api", &[]);
    assert_eq!(code(&output), 1);
    assert!(
        text(&output.stderr).contains("has uncommitted changes: notes.txt; commit them"),
        "{}",
        text(&output.stderr)
    );
    std::fs::remove_file(env.root().join("record/fake-agent.txt")).expect("rm");
    ok(&spawn(&env, "api", &["--resume"]));
    assert!(recorded(&env, "fake-agent").starts_with("argv: [--quiet] [-y] [--resume] [--prompt]"));
    wait_exited(&env, "api");

    // A directory that git does not know as a worktree is left alone.
    env.write_file(".hookrig/worktrees/docs/mine.txt", "not a worktree\n");
    let output = spawn(&env, "docs", &["--provider", "fake"]);
    assert_eq!(code(&output), 1);
    assert_eq!(
        text(&output.stderr),
        format!(
            "hookrig: error: {} exists but is not a git worktree of {}; move it away or remove it\n",
            project.join(".hookrig/worktrees/docs").display(),
            project.display()
        )
    );
}

#[test]
fn spawn_refuses_a_task_another_agent_holds() {
    // guards: `agent spawn` started a second agent on a task another agent had claimed
    let env = test_env();
    let project = repo(&env);
    env.write_file(".hookrig/config.toml", FAKE);
    fake_provider(&env, "fake-agent", "");
    ok(&run(
        &env,
        &[
            "task", "claim", "api", "--plan", "plan.spl", "--agent", "writer",
        ],
    ));
    for extra in [&[][..], &["--force"]] {
        let output = spawn(&env, "api", extra);
        assert_eq!(code(&output), 1, "{}", text(&output.stdout));
        assert_eq!(
            text(&output.stderr),
            "hookrig: error: cannot claim task 'api': agent 'writer' holds it (it is in progress); `hookrig task unclaim api` releases it\n"
        );
    }
    // Refused before anything was created.
    assert!(!project.join(".hookrig/worktrees/api").exists());
    assert!(!env.root().join("record/fake-agent.txt").exists());
    assert!(agents_json(&env).is_empty());
    // The holder itself may spawn on it: its claim is a no-op.
    let out = ok(&run(
        &env,
        &[
            "agent", "spawn", "api", "--plan", "plan.spl", "--agent", "writer",
        ],
    ));
    assert!(out.contains("for agent 'writer' on task 'api'"), "{out}");
    wait_exited(&env, "api");
}

#[test]
fn a_claim_refused_under_the_lock_stops_spawn_with_the_lifecycles_own_message() {
    // guards: spawn claims in-process through the plan lifecycle, so a refused claim
    // reads as `task claim` says it (not scraped from a child's stderr and repeated)
    let env = test_env();
    repo(&env);
    env.write_file(".hookrig/config.toml", FAKE);
    fake_provider(&env, "fake-agent", "");
    ok(&run(
        &env,
        &[
            "task", "complete", "api", "--plan", "plan.spl", "--agent", "coder",
        ],
    ));
    let before = env.read_file("plan.spl").expect("plan");
    let output = spawn(&env, "api", &[]);
    assert_eq!(
        (code(&output), text(&output.stderr)),
        (
            1,
            "hookrig: error: cannot claim task 'api': it is done\n".to_owned()
        ),
        "{}",
        text(&output.stdout)
    );
    assert_eq!(env.read_file("plan.spl").expect("plan"), before);
    assert!(!env.root().join("record/fake-agent.txt").exists());
    assert!(agents_json(&env).is_empty());
}

#[test]
fn provisioned_files_are_linked_or_copied_and_missing_ones_warned_about() {
    let env = test_env();
    let project = repo(&env);
    env.write_file(".env", "SECRET=1\n");
    env.write_file("config/shared.toml", "shared = true\n");
    let config = env.write_file(
        ".hookrig/config.toml",
        &format!(
            "{FAKE}\n[worktree.provision]\nfiles = [\n  {{ from = \".env\", mode = \"copy\" }},\n  {{ from = \"config/shared.toml\", to = \"conf/shared.toml\" }},\n  {{ from = \"missing.txt\" }},\n]\n"
        ),
    );
    fake_provider(&env, "fake-agent", "");
    let output = spawn(&env, "api", &[]);
    ok(&output);
    assert_eq!(
        text(&output.stderr),
        format!(
            "hookrig: warning: {}:14: worktree provision file {} not found, skipped\n",
            config.display(),
            project.join("missing.txt").display()
        )
    );
    let worktree = project.join(".hookrig/worktrees/api");
    let copied = worktree.join(".env");
    assert!(!copied.symlink_metadata().expect("copied").is_symlink());
    assert_eq!(
        std::fs::read_to_string(&copied).expect("read"),
        "SECRET=1\n"
    );
    let linked = worktree.join("conf/shared.toml");
    assert_eq!(
        std::fs::read_link(&linked).expect("a symlink"),
        project.join("config/shared.toml")
    );
    wait_exited(&env, "api");
    // Provisioned files do not count as uncommitted changes.
    ok(&spawn(&env, "api", &[]));
    wait_exited(&env, "api");

    // A `to` outside the worktree is refused before anything is written.
    env.write_file(
        ".hookrig/config.toml",
        &format!("{FAKE}\n[worktree.provision]\nfiles = [{{ from = \".env\", to = \"../../escaped\" }}]\n"),
    );
    let output = spawn(&env, "docs", &["--provider", "fake"]);
    assert_eq!(code(&output), 1);
    assert!(
        text(&output.stderr)
            .contains(":11: worktree provision file `../../escaped` is outside the worktree"),
        "{}",
        text(&output.stderr)
    );
    assert!(!project.join(".hookrig/escaped").exists());
}

#[test]
fn provisioning_never_carries_files_from_outside_the_repository() {
    // guards: a committed symlink (`from = "secretlink"`, `secretlink -> ~/.ssh/id_rsa`,
    // or a symlinked directory on the way) copied a file from outside the repository
    // into the worktree, with no warning
    let env = test_env();
    let project = repo(&env);
    let outside = env.root().join("outside");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(outside.join("id_rsa"), "PRIVATE KEY\n").expect("write");
    std::os::unix::fs::symlink(outside.join("id_rsa"), project.join("secretlink")).expect("ln");
    std::os::unix::fs::symlink(&outside, project.join("linkdir")).expect("ln");
    env.write_file("real.env", "OK=1\n");
    std::os::unix::fs::symlink("real.env", project.join("inside-link")).expect("ln");
    git(
        &project,
        &["add", "secretlink", "linkdir", "real.env", "inside-link"],
    );
    git(&project, &["commit", "-q", "-m", "links"]);
    fake_provider(&env, "fake-agent", "");
    for (from, mode) in [
        ("secretlink", "copy"),
        ("secretlink", "symlink"),
        ("linkdir/id_rsa", "copy"),
    ] {
        let config = env.write_file(
            ".hookrig/config.toml",
            &format!(
                "{FAKE}\n[worktree.provision]\nfiles = [{{ from = \"{from}\", to = \"key\", mode = \"{mode}\" }}]\n"
            ),
        );
        let output = spawn(&env, "api", &[]);
        assert_eq!(code(&output), 1, "{from}: {}", text(&output.stdout));
        assert_eq!(
            text(&output.stderr),
            format!(
                "hookrig: error: {}:11: worktree provision file `{from}` resolves to {}, outside the repository {}; only files of the repository are provisioned\n",
                config.display(),
                outside.join("id_rsa").display(),
                project.display()
            ),
            "{from}"
        );
        // Refused before the worktree or the claim.
        assert!(!project.join(".hookrig/worktrees/api").exists(), "{from}");
    }
    assert!(
        !env.read_file("plan.spl")
            .expect("plan")
            .contains("claim-v1-api")
    );
    // A symlink to a file of the repository is provisioned as that file.
    env.write_file(
        ".hookrig/config.toml",
        &format!(
            "{FAKE}\n[worktree.provision]\nfiles = [{{ from = \"inside-link\", to = \".env\", mode = \"copy\" }}]\n"
        ),
    );
    ok(&spawn(&env, "api", &[]));
    let copied = project.join(".hookrig/worktrees/api/.env");
    assert_eq!(std::fs::read_to_string(copied).expect("copied"), "OK=1\n");
    wait_exited(&env, "api");
}

#[test]
fn keystroke_injection_types_the_prompt_into_a_terminal() {
    let env = test_env();
    let project = repo(&env);
    let typed = env.root().join("typed.txt");
    env.write_file(
        ".hookrig/config.toml",
        indoc! {r#"
            [[providers]]
            id = "fake"
            name = "Fake"
            cli = "fake-agent"
            auto_approve_flag = "-y"
            initial_prompt_flag = "--prompt"
            use_keystroke_injection = true
            keystroke_delay_ms = 1
        "#},
    );
    // Reads what is typed, line by line, until the prompt's last line.
    fake_provider(
        &env,
        "fake-agent",
        &format!(
            r#"[ -t 0 ] && echo "stdin is a terminal" >> '{typed}'
while IFS= read -r line; do
  printf '%s\n' "$line" >> '{typed}'
  case "$line" in *"task complete api"*) break;; esac
done"#,
            typed = typed.display()
        ),
    );
    ok(&spawn(&env, "api", &[]));
    // With keystrokes, the prompt is not an argument.
    assert!(recorded(&env, "fake-agent").starts_with("argv: [-y]\n"));
    let row = wait_exited(&env, "api");
    assert_eq!(row["exit_code"], 0);
    let got = env.redact(&std::fs::read_to_string(&typed).expect("the provider read its input"));
    insta::assert_snapshot!(got);
    // The terminal's output (its echo of what was typed) is in the log.
    let log = std::fs::read_to_string(project.join(".hookrig/worktrees/api.log")).expect("log");
    assert!(log.contains("Add the login endpoint"), "{log}");
}

#[test]
fn stop_ends_the_whole_process_group() {
    let env = test_env();
    repo(&env);
    env.write_file(".hookrig/config.toml", FAKE);
    let sleep = env.marked_sleep();
    // A grandchild in the background, and the provider waiting on it.
    fake_provider(
        &env,
        "fake-agent",
        &format!("'{0}' 300 &\n'{0}' 301 &\nwait", sleep.display()),
    );
    ok(&spawn(&env, "api", &[]));
    recorded(&env, "fake-agent");
    let row = agents_json(&env).remove(0);
    assert_eq!(row["running"], true, "{row}");
    let out = ok(&run(&env, &["agent", "stop", "api", "--grace", "3"]));
    assert!(out.starts_with("stopped the agent of task 'api'"), "{out}");
    assert!(env.leftovers().is_empty(), "a process of the group is left");
    let row = wait_exited_or_signalled(&env);
    assert_eq!(row["exit_signal"], 15, "{row}");
    assert!(!row["stopped_at_ms"].is_null());
    // Stopping again says so.
    let out = ok(&run(&env, &["agent", "stop", "api"]));
    assert!(out.contains("is not running (killed (signal 15))"), "{out}");
}

#[test]
fn stop_kills_a_group_that_ignores_sigterm_after_the_grace_period() {
    let env = test_env();
    repo(&env);
    env.write_file(".hookrig/config.toml", FAKE);
    let sleep = env.marked_sleep();
    // An ignored signal stays ignored across exec: the sleeps ignore SIGTERM too.
    fake_provider(
        &env,
        "fake-agent",
        &format!("trap '' TERM\n'{0}' 300 &\n'{0}' 301", sleep.display()),
    );
    ok(&spawn(&env, "api", &[]));
    recorded(&env, "fake-agent");
    // Both sleeps run only once the provider's `trap` has run: a SIGTERM sent before
    // that (a loaded machine) would end the provider at once and prove nothing.
    for _ in 0..1000 {
        if hookrig_test_support::processes_with(env.marker()).len() >= 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = ok(&run(&env, &["agent", "stop", "api", "--grace", "1"]));
    assert_eq!(
        out.split(" (process group").next(),
        Some("killed the agent of task 'api'"),
        "{out}"
    );
    assert!(out.ends_with(": SIGKILL after 1s)\n"), "{out}");
    assert!(env.leftovers().is_empty(), "a process of the group is left");
    assert_eq!(wait_exited_or_signalled(&env)["exit_signal"], 9);
}

#[test]
fn stop_reaches_what_an_exited_provider_left_behind() {
    let env = test_env();
    repo(&env);
    env.write_file(".hookrig/config.toml", FAKE);
    let sleep = env.marked_sleep();
    fake_provider(
        &env,
        "fake-agent",
        &format!("'{}' 300 >/dev/null 2>&1 &", sleep.display()),
    );
    ok(&spawn(&env, "api", &[]));
    assert_eq!(wait_exited(&env, "api")["exit_code"], 0);
    let out = ok(&run(&env, &["agent", "stop", "api", "--grace", "2"]));
    assert!(out.starts_with("stopped the agent of task 'api'"), "{out}");
    assert!(env.leftovers().is_empty(), "the background sleep is left");
}

fn wait_exited_or_signalled(env: &TestEnv) -> Value {
    for _ in 0..200 {
        let row = agents_json(env).remove(0);
        if !row["exit_signal"].is_null() || !row["exit_code"].is_null() {
            return row;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no exit recorded");
}

#[test]
fn clean_refuses_uncommitted_changes_and_deletes_merged_branches() {
    let env = test_env();
    let project = repo(&env);
    env.write_file(".hookrig/config.toml", FAKE);
    fake_provider(&env, "fake-agent", "");
    ok(&spawn(&env, "api", &[]));
    ok(&spawn(&env, "docs", &["--provider", "fake"]));
    wait_exited(&env, "api");
    wait_exited(&env, "docs");

    // Dirty: refused, naming the file; --force removes it anyway.
    env.write_file(".hookrig/worktrees/api/wip.rs", "fn main() {}\n");
    let output = run(&env, &["agent", "clean", "api"]);
    assert_eq!(code(&output), 1);
    assert!(
        text(&output.stderr).contains("has uncommitted changes: wip.rs;"),
        "{}",
        text(&output.stderr)
    );
    assert!(project.join(".hookrig/worktrees/api").is_dir());
    let out = ok(&run(&env, &["agent", "clean", "api", "--force"]));
    // Nothing was committed on task/api: it is merged into main, so it goes.
    assert_eq!(
        env.redact(&out),
        "removed worktree [TMP]/project/.hookrig/worktrees/api\ndeleted branch task/api (merged)\nremoved log [TMP]/project/.hookrig/worktrees/api.log\n"
    );
    assert!(!project.join(".hookrig/worktrees/api").exists());

    // A commit on the task's branch that main does not have keeps the branch.
    let worktree = project.join(".hookrig/worktrees/docs");
    std::fs::write(worktree.join("docs.md"), "# docs\n").expect("write");
    git(&worktree, &["add", "docs.md"]);
    git(&worktree, &["commit", "-q", "-m", "docs"]);
    let out = ok(&run(&env, &["agent", "clean", "docs"]));
    assert!(
        out.contains("kept branch task/docs: not merged into main"),
        "{out}"
    );
    assert!(git(&project, &["branch", "--list", "task/docs"]).contains("task/docs"));
    let listed = agents_json(&env);
    assert!(listed.is_empty(), "{listed:?}");
}

/// Three ready, unassigned tasks.
const THREE_READY: &str = indoc! {"
    (given task-api)
    (given ready-api)
    (given task-docs)
    (given ready-docs)
    (given task-ui)
    (given ready-ui)
"};

/// A `claude` on PATH (auto-detected, as `agent spawn` does) that records its task in
/// `record/TASK.started` and runs until `release/TASK` exists.
fn waiting_provider(env: &TestEnv) {
    let root = env.root().display().to_string();
    env.write_bin(
        "claude",
        &formatdoc! {r#"
            mkdir -p '{root}/record'
            touch "{root}/record/$HOOKRIG_TASK.started"
            while [ ! -e "{root}/release/$HOOKRIG_TASK" ]; do sleep 0.05; done
        "#},
    );
    std::fs::create_dir_all(env.root().join("release")).expect("mkdir release");
}

fn started(env: &TestEnv, task: &str) -> bool {
    env.root().join(format!("record/{task}.started")).exists()
}

fn release(env: &TestEnv, task: &str) {
    std::fs::write(env.root().join("release").join(task), "").expect("release");
}

/// A running `hookrig agent watch`, its stdout and stderr in files.
struct Watching {
    child: std::process::Child,
    out: PathBuf,
    err: PathBuf,
}

impl Watching {
    fn start(env: &TestEnv, extra: &[&str]) -> Watching {
        let mut args = vec!["agent", "watch", "--plan", "plan.spl", "--max", "2"];
        args.extend_from_slice(extra);
        let mut command = env.command(&args);
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", env.bin().display());
        let out = env.root().join("watch.out");
        let err = env.root().join("watch.err");
        command
            .env("PATH", path)
            .stdin(std::process::Stdio::null())
            .stdout(std::fs::File::create(&out).expect("out"))
            .stderr(std::fs::File::create(&err).expect("err"));
        let child = command.spawn().expect("start agent watch");
        Watching { child, out, err }
    }

    fn stdout(&self) -> String {
        std::fs::read_to_string(&self.out).unwrap_or_default()
    }

    fn signal(&self, signal: nix::sys::signal::Signal) {
        let pid = i32::try_from(self.child.id()).expect("pid");
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal).expect("kill");
    }

    /// Waits for the watch to end; its exit code and stdout.
    fn wait(mut self) -> (Option<i32>, String) {
        let status = crate::serve::wait_for("agent watch to end", || {
            self.child.try_wait().expect("try_wait")
        });
        let stderr = std::fs::read_to_string(&self.err).unwrap_or_default();
        assert!(
            !stderr.contains("warning") && !stderr.contains("error"),
            "{stderr}"
        );
        (status.code(), self.stdout())
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A repository whose plan has three ready tasks, with the waiting provider.
fn three_ready_tasks(env: &TestEnv) -> PathBuf {
    let project = repo(env);
    env.write_file("plan.spl", THREE_READY);
    git(&project, &["commit", "-q", "-am", "three tasks"]);
    waiting_provider(env);
    project
}

#[test]
fn watch_keeps_at_most_max_agents_and_starts_the_next_when_one_ends() {
    let env = test_env();
    three_ready_tasks(&env);
    let watch = Watching::start(&env, &["--agents", "coder"]);
    crate::serve::wait_for("api and docs to start", || {
        (started(&env, "api") && started(&env, "docs")).then_some(())
    });
    crate::serve::wait_for("the watch to report both", || {
        watch.stdout().contains("on task 'docs'").then_some(())
    });
    // Two run: the third waits for a slot.
    assert!(!started(&env, "ui"), "{}", watch.stdout());

    ok(&run(
        &env,
        &[
            "task", "complete", "api", "--plan", "plan.spl", "--agent", "coder",
        ],
    ));
    release(&env, "api");
    crate::serve::wait_for("ui to start", || started(&env, "ui").then_some(()));
    for task in ["docs", "ui"] {
        ok(&run(
            &env,
            &[
                "task", "complete", task, "--plan", "plan.spl", "--agent", "coder",
            ],
        ));
        release(&env, task);
    }
    let (code, out) = watch.wait();
    assert_eq!(code, Some(0), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let at = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle:?} in\n{out}"))
    };
    assert!(
        lines[at("on task 'api'")].starts_with(
            "started claude (auto-detected on PATH) for agent 'coder' on task 'api', pid "
        ),
        "{out}"
    );
    assert!(at("on task 'api'") < at("on task 'docs'"), "{out}");
    // The third started only once the first agent had ended.
    assert!(
        at("the agent of task 'api' exited") < at("on task 'ui'"),
        "{out}"
    );
    assert_eq!(lines.last(), Some(&"the plan is complete"), "{out}");
    assert!(env.leftovers().is_empty());
}

#[test]
fn ctrl_c_leaves_the_agents_running_and_blocked_tasks_are_noticed() {
    let env = test_env();
    three_ready_tasks(&env);
    let watch = Watching::start(&env, &["--agents", "coder"]);
    crate::serve::wait_for("two agents", || {
        watch.stdout().contains("on task 'docs'").then_some(())
    });
    // A task blocked meanwhile is noticed.
    ok(&run(
        &env,
        &[
            "task",
            "block",
            "ui",
            "--reason",
            "waiting for review",
            "--plan",
            "plan.spl",
            "--agent",
            "coder",
        ],
    ));
    crate::serve::wait_for("the block to be noticed", || {
        watch
            .stdout()
            .contains("task 'ui' is blocked: waiting for review\n")
            .then_some(())
    });
    watch.signal(nix::sys::signal::Signal::SIGINT);
    let (code, out) = watch.wait();
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("left the agent of task 'api' running (process group "),
        "{out}"
    );
    assert!(
        out.contains("left the agent of task 'docs' running"),
        "{out}"
    );
    assert!(out.ends_with("stopped watching\n"), "{out}");
    let running: Vec<Value> = agents_json(&env)
        .into_iter()
        .filter(|r| r["running"] == true)
        .collect();
    assert_eq!(running.len(), 2, "{running:?}");
    release(&env, "api");
    release(&env, "docs");
}

#[test]
fn stop_on_exit_stops_the_agents_it_started() {
    let env = test_env();
    three_ready_tasks(&env);
    let watch = Watching::start(&env, &["--agents", "coder", "--stop-on-exit"]);
    crate::serve::wait_for("two agents", || {
        watch.stdout().contains("on task 'docs'").then_some(())
    });
    watch.signal(nix::sys::signal::Signal::SIGTERM);
    let (code, out) = watch.wait();
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("stopped the agent of task 'api' (SIGTERM)"),
        "{out}"
    );
    assert!(
        out.contains("stopped the agent of task 'docs' (SIGTERM)"),
        "{out}"
    );
    assert!(env.leftovers().is_empty(), "an agent's process is left");
    assert!(agents_json(&env).iter().all(|r| r["running"] == false));
}

#[test]
fn watch_takes_only_assigned_tasks_without_agents_and_reports_a_failed_agent() {
    let env = test_env();
    let project = repo(&env);
    // `ui` is assigned to coder; the others are not, and nobody takes them.
    env.write_file(
        "plan.spl",
        indoc! {"
            (given task-api)
            (given ready-api)
            (given task-ui)
            (given ready-ui)
            (given assign-ui-coder)
        "},
    );
    git(&project, &["commit", "-q", "-am", "assigned"]);
    // guards: a provider that fails its task delivers the orchestrator's `task.failed`
    let failed = env.root().join("failed.json");
    env.write_project_config(&formatdoc! {r#"
        [[hooks]]
        name = "on-failure"
        events = ["task.failed"]
        command = "cat > '{}'"
    "#, failed.display()});
    env.write_bin("claude", "exit 3");
    let watch = Watching::start(&env, &[]);
    crate::serve::wait_for("the agent's end", || {
        watch
            .stdout()
            .contains("the agent of task 'ui' exited (3)")
            .then_some(())
    });
    let out = watch.stdout();
    assert!(
        out.contains("the agent of task 'ui' exited (3); the task is in_progress\n"),
        "{out}"
    );
    assert!(!out.contains("task 'api'"), "{out}");
    assert!(wait_for_file(&failed, Duration::from_secs(30)));
    let payload: Value = crate::serve::wait_for("the task.failed payload", || {
        serde_json::from_str(&std::fs::read_to_string(&failed).ok()?).ok()
    });
    assert_eq!(payload["task_id"], "ui", "{payload}");
    assert_eq!(payload["project_id"], "project", "{payload}");
    assert_eq!(
        payload["error"], "the agent's provider exited with code 3",
        "{payload}"
    );
    // Ctrl-C only once the delivery has ended: one that comes during it stops the hooks.
    crate::serve::wait_for("the task.failed emit to end", || {
        let runs = ok(&run(&env, &["runs", "--json", "--event", "task.failed"]));
        let runs: Value = serde_json::from_str(&runs).expect("JSON");
        (runs[0]["decision"].as_str()? != "running").then_some(())
    });
    watch.signal(nix::sys::signal::Signal::SIGINT);
    let (code, _) = watch.wait();
    assert_eq!(code, Some(0));
}

#[test]
fn watch_without_a_plan_says_how_to_give_one() {
    let env = test_env();
    repo(&env);
    let out = run(&env, &["agent", "watch"]);
    assert_eq!(code(&out), 1, "{}", text(&out.stdout));
    assert_eq!(
        text(&out.stderr),
        "hookrig: error: no plan: give --plan FILE or set HOOKRIG_PLAN\n"
    );
}
