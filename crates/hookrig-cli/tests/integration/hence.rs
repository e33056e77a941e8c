//! The hence dialect end to end: its hooks run unchanged, presented and read by its own rules.
//!
//! Hence lifecycle hooks are executables named after a hook point in `.hence/hooks/`
//! (or hookrig's `.hookrig/hooks/`) of the project and in `$XDG_CONFIG_HOME/hence/hooks/`
//! (or `$XDG_CONFIG_HOME/hookrig/hooks/`). The timeout and the SIGTERM/SIGKILL sequence
//! are covered in `hookrig-exec` (`hence::tests`); `config.toml`'s `hook_timeout` and
//! `[hooks]` at the end of this file.

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use hookrig_test_support::{HANG_LIMIT, TestEnv, run_with_input};
use indoc::indoc;

use crate::harness::{Emitted, code, emit, quoted, test_env, text, tool_available};

/// Writes `body` (after `#!/bin/sh`) at `path` with `mode`.
fn script(path: &Path, body: &str, mode: u32) -> PathBuf {
    fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    fs::write(path, format!("#!/bin/sh\n{body}")).expect("write the script");
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
    path.to_owned()
}

/// An executable hook at `rel` under the project.
fn project_hook(env: &TestEnv, rel: &str, body: &str) -> PathBuf {
    script(&env.project().join(rel), body, 0o755)
}

/// An executable hook at `rel` under `$XDG_CONFIG_HOME`.
fn global_hook(env: &TestEnv, rel: &str, body: &str) -> PathBuf {
    script(&env.config_home().join(rel), body, 0o755)
}

/// A hook body that appends `tag` to `log` in the project.
fn appends(env: &TestEnv, log: &str, tag: &str) -> String {
    format!("echo {tag} >> {}\n", quoted(&env.project().join(log)))
}

/// `(name, source relative to the test root, result)` of every hook in the Outcome.
fn hooks(env: &TestEnv, out: &Emitted) -> Vec<(String, String, String)> {
    out.outcome["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .map(|h| {
            let source = h["source"].as_str().expect("source");
            (
                h["name"].as_str().expect("name").to_owned(),
                env.redact(source),
                h["result"].as_str().expect("result").to_owned(),
            )
        })
        .collect()
}

fn lines(text: Option<String>) -> Vec<String> {
    text.unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

const PAYLOAD: &str = r#"{"plan":"plan.spl","task":"auth","agent":"coder"}"#;

#[test]
fn every_location_runs_local_first_then_global() {
    let env = test_env();
    project_hook(
        &env,
        ".hence/hooks/post-complete",
        &appends(&env, "log", "local-hence"),
    );
    project_hook(
        &env,
        ".hookrig/hooks/post-complete",
        &appends(&env, "log", "local-hookrig"),
    );
    global_hook(
        &env,
        "hence/hooks/post-complete",
        &appends(&env, "log", "global-hence"),
    );
    global_hook(
        &env,
        "hookrig/hooks/post-complete",
        &appends(&env, "log", "global-hookrig"),
    );

    let out = emit(&env, &["task.completed"], PAYLOAD);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow");
    let ok = |path: &str| {
        (
            "post-complete".to_owned(),
            format!("[TMP]/{path}"),
            "allow".to_owned(),
        )
    };
    assert_eq!(
        hooks(&env, &out),
        [
            ok("project/.hookrig/hooks/post-complete"),
            ok("project/.hence/hooks/post-complete"),
            ok("home/.config/hookrig/hooks/post-complete"),
            ok("home/.config/hence/hooks/post-complete"),
        ]
    );
    assert!(
        out.outcome["hooks"]
            .as_array()
            .expect("hooks")
            .iter()
            .all(|h| h["dialect"] == "hence")
    );
    let mut ran = lines(env.read_file("log"));
    ran.sort();
    assert_eq!(
        ran,
        [
            "global-hence",
            "global-hookrig",
            "local-hence",
            "local-hookrig"
        ]
    );
    assert!(out.warnings().is_empty(), "{:?}", out.warnings());
}

#[test]
fn the_global_directory_follows_xdg_config_home() {
    let env = test_env();
    // `~/.config/hence/hooks` is Hence's default spelling of `$XDG_CONFIG_HOME/hence/hooks`.
    script(
        &env.home().join(".config/hence/hooks/post-claim"),
        &appends(&env, "log", "home-dot-config"),
        0o755,
    );
    let xdg = env.root().join("xdg");
    script(
        &xdg.join("hence/hooks/post-claim"),
        &appends(&env, "log", "xdg"),
        0o755,
    );
    let mut command = env.command(["emit", "task.claimed"]);
    command.env("XDG_CONFIG_HOME", &xdg);
    let output = run_with_input(command, PAYLOAD.as_bytes(), HANG_LIMIT);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(lines(env.read_file("log")), ["xdg"]);
}

#[test]
fn the_nearest_hooks_directory_along_the_walk_is_used() {
    let env = test_env();
    project_hook(
        &env,
        ".hence/hooks/post-block",
        &appends(&env, "log", "root"),
    );
    project_hook(
        &env,
        "pkg/.hence/hooks/post-block",
        &appends(&env, "log", "pkg"),
    );
    let out = emit(&env, &["task.blocked", "--cwd", "pkg"], PAYLOAD);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(lines(env.read_file("log")), ["pkg"]);
}

#[test]
fn each_hook_point_runs_on_its_event_and_under_its_alias() {
    let points = [
        ("post-claim", "task.claimed", "claim"),
        ("post-complete", "task.completed", "complete"),
        ("post-block", "task.blocked", "block"),
        ("post-unblock", "task.unblocked", "unblock"),
        ("post-assert", "plan.asserted", "assert"),
        ("post-plan-complete", "plan.completed", "plan-complete"),
    ];
    let env = test_env();
    let log = quoted(&env.project().join("log"));
    for (point, ..) in points {
        project_hook(
            &env,
            &format!(".hence/hooks/{point}"),
            &format!("echo \"$HENCE_HOOK $HENCE_EVENT $HOOKRIG_EVENT\" >> {log}\n"),
        );
    }
    for (point, event, hence_event) in points {
        for emitted in [event, point] {
            fs::remove_file(env.project().join("log")).ok();
            let out = emit(&env, &[emitted], PAYLOAD);
            assert_eq!(out.code, 0, "{}", out.stderr);
            assert_eq!(out.outcome["event"], event, "`emit {emitted}`");
            assert_eq!(out.results(), [(point.to_owned(), "allow".to_owned())]);
            assert_eq!(
                lines(env.read_file("log")),
                [format!("{point} {hence_event} {event}")],
                "`emit {emitted}`"
            );
        }
    }
}

#[test]
fn a_missing_hook_file_is_silently_skipped() {
    let env = test_env();
    fs::create_dir_all(env.project().join(".hence/hooks")).expect("mkdir");
    fs::create_dir_all(env.config_home().join("hence/hooks")).expect("mkdir");
    project_hook(&env, ".hence/hooks/post-claim", "exit 0\n");
    let out = emit(&env, &["task.completed"], PAYLOAD);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["hooks"], serde_json::json!([]));
    assert!(out.warnings().is_empty(), "{:?}", out.warnings());
    assert_eq!(out.stderr, "");
}

#[test]
fn a_hook_that_is_not_executable_is_skipped_with_hences_warning() {
    let env = test_env();
    let path = script(
        &env.project().join(".hence/hooks/post-complete"),
        &appends(&env, "ran", "yes"),
        0o644,
    );
    let out = emit(&env, &["task.completed"], PAYLOAD);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow");
    assert_eq!(out.outcome["hooks"], serde_json::json!([]));
    // Like every warning about a config source, it names the file, which tells a local
    // hook from a global one of the same name.
    assert_eq!(
        out.warnings(),
        [format!(
            "{}: hook 'post-complete' is not executable, skipping",
            path.display()
        )]
    );
    assert_eq!(env.read_file("ran"), None, "the hook did not run");
}

/// A hook body that writes its argv, its `HENCE_*`/`HOOKRIG_*` environment (sorted), its
/// stdin and its working directory to `out` in the project (less the variables the test
/// harness itself sets for hookrig, which every hook inherits).
fn recorder(env: &TestEnv) -> String {
    let out = quoted(&env.project().join("out"));
    format!(
        indoc! {r#"
            {{
              printf 'argc=%s\n$1=%s\n$2=%s\n$3=%s\n' "$#" "$1" "$2" "$3"
              env | grep -E '^(HENCE|HOOKRIG)_' \
                | grep -v -E '^HOOKRIG_(TRUST_ALL|CLAUDE_MANAGED_SETTINGS|ENGINE)=' | LC_ALL=C sort
              printf 'stdin=[%s]\n' "$(cat)"
              printf 'pwd=%s\n' "$(pwd)"
            }} > {}
        "#},
        out
    )
}

#[test]
fn arguments_and_environment_of_a_hook() {
    let env = test_env();
    project_hook(&env, ".hence/hooks/post-complete", &recorder(&env));
    fs::create_dir_all(env.project().join("plans")).expect("mkdir");
    let out = emit(
        &env,
        &["task.completed", "--cwd", "plans", "--session", "sess-1"],
        r#"{"plan":"./q3.spl","task":"auth","agent":"coder","extra":1}"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let seen = env.read_file("out").expect("the hook ran");
    insta::assert_snapshot!(crate::harness::redact_process_tag(&env.redact(&seen)), @r"
    argc=3
    $1=./q3.spl
    $2=auth
    $3=coder
    HENCE_AGENT=coder
    HENCE_EVENT=complete
    HENCE_HOOK=post-complete
    HENCE_PLAN=[TMP]/project/plans/q3.spl
    HENCE_TASK=auth
    HOOKRIG_AGENT=coder
    HOOKRIG_CODEX_SYSTEM_DIR=[TMP]/etc/codex
    HOOKRIG_CURSOR_ENTERPRISE_HOOKS=[TMP]/etc/cursor/hooks.json
    HOOKRIG_EVENT=task.completed
    HOOKRIG_HOOK=post-complete
    HOOKRIG_PLAN=[TMP]/project/plans/q3.spl
    HOOKRIG_PROCESS_TAG=[TAG]
    HOOKRIG_SESSION=sess-1
    HOOKRIG_TASK=auth
    stdin=[]
    pwd=[TMP]/project/plans
    ");
}

#[test]
fn post_assert_passes_the_expression_and_an_empty_task() {
    let env = test_env();
    global_hook(&env, "hence/hooks/post-assert", &recorder(&env));
    let plan = env.project().join("plan.spl");
    let payload = serde_json::json!({
        "plan": plan,
        "expression": "(given done-auth)",
        "agent": "reviewer",
    });
    let out = emit(&env, &["post-assert"], &payload.to_string());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let seen = env.read_file("out").expect("the hook ran");
    insta::assert_snapshot!(crate::harness::redact_process_tag(&env.redact(&seen)), @r"
    argc=3
    $1=[TMP]/project/plan.spl
    $2=(given done-auth)
    $3=reviewer
    HENCE_AGENT=reviewer
    HENCE_EVENT=assert
    HENCE_HOOK=post-assert
    HENCE_PLAN=[TMP]/project/plan.spl
    HENCE_TASK=
    HOOKRIG_AGENT=reviewer
    HOOKRIG_CODEX_SYSTEM_DIR=[TMP]/etc/codex
    HOOKRIG_CURSOR_ENTERPRISE_HOOKS=[TMP]/etc/cursor/hooks.json
    HOOKRIG_EVENT=plan.asserted
    HOOKRIG_HOOK=post-assert
    HOOKRIG_PLAN=[TMP]/project/plan.spl
    HOOKRIG_PROCESS_TAG=[TAG]
    HOOKRIG_SESSION=
    HOOKRIG_TASK=
    stdin=[]
    pwd=[TMP]/project
    ");
}

#[test]
fn a_failing_hook_warns_and_changes_nothing() {
    let env = test_env();
    project_hook(
        &env,
        ".hence/hooks/post-complete",
        indoc! {r#"
            echo '{"decision":"deny","reason":"no"}'
            echo 'oops' >&2
            exit 7
        "#},
    );
    project_hook(&env, ".hence/hooks/post-claim", "exit 0\n");
    let out = emit(&env, &["task.completed"], PAYLOAD);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow");
    assert_eq!(out.outcome["reason"], serde_json::Value::Null);
    assert_eq!(out.warnings(), ["hook 'post-complete' failed (exit 7)"]);
    let hook = out.hook("post-complete");
    assert_eq!(hook["result"], "error");
    assert_eq!(hook["exit_code"], 7);
    assert_eq!(
        out.outcome["payload"],
        serde_json::from_str::<serde_json::Value>(PAYLOAD).expect("JSON")
    );
}

#[test]
fn a_successful_hooks_stdout_is_ignored() {
    let env = test_env();
    project_hook(
        &env,
        ".hence/hooks/post-complete",
        r#"echo '{"decision":"modify","payload":{"task":"other"},"context":"c"}'"#,
    );
    let out = emit(&env, &["task.completed"], PAYLOAD);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("post-complete"), "allow");
    assert_eq!(out.outcome["payload"]["task"], "auth");
    assert_eq!(out.outcome["context"], serde_json::json!([]));
    assert!(out.warnings().is_empty(), "{:?}", out.warnings());
}

#[test]
fn a_hooks_output_is_recorded_and_shown_in_why_and_debug() {
    // guards: a Hence hook's stdout and stderr (the quick setup's `echo`) were shown
    // nowhere, neither by `why` nor with `--debug`
    let env = test_env();
    env.write_file("plan.spl", "(given task-auth)\n(given ready-auth)\n");
    project_hook(
        &env,
        ".hence/hooks/post-claim",
        indoc! {r#"
            echo "[$HENCE_EVENT] task=$HENCE_TASK agent=$HENCE_AGENT"
            echo 'a note on stderr' >&2
        "#},
    );
    project_hook(
        &env,
        ".hence/hooks/post-complete",
        "i=0; while [ $i -lt 2000 ]; do echo \"line $i\"; i=$((i+1)); done; echo 'why it broke' >&2; exit 3\n",
    );
    let output = crate::harness::hookrig(
        &env,
        &[
            "--debug", "task", "claim", "auth", "-f", "plan.spl", "--agent", "coder",
        ],
    );
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let debug = text(&output.stderr);
    assert!(
        debug
            .contains("hooks.exec-stdout post-claim task.claimed: [claim] task=auth agent=coder\n"),
        "{debug}"
    );
    assert!(
        debug.contains("hooks.exec-stderr post-claim task.claimed: a note on stderr\n"),
        "{debug}"
    );
    let runs = crate::harness::hookrig(&env, &["runs", "--json"]);
    let runs: serde_json::Value = serde_json::from_slice(&runs.stdout).expect("JSON");
    let run_id = runs[0]["run_id"].as_str().expect("run id").to_owned();
    let why = crate::harness::why_text(&env, &run_id);
    assert!(
        why.contains("  stdout    [claim] task=auth agent=coder\n  stderr    a note on stderr\n"),
        "{why}"
    );

    // A failing hook's output is kept too, capped, and `why` says what it left out.
    let output = crate::harness::hookrig(
        &env,
        &[
            "task", "complete", "auth", "-f", "plan.spl", "--agent", "coder",
        ],
    );
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let runs = crate::harness::hookrig(&env, &["runs", "--json", "--event", "task.completed"]);
    let runs: serde_json::Value = serde_json::from_slice(&runs.stdout).expect("JSON");
    let run_id = runs[0]["run_id"].as_str().expect("run id").to_owned();
    let json = crate::harness::why_json(&env, &run_id);
    let hook = &crate::harness::ledger_rows(&json, "post-complete")[0];
    assert_eq!(hook["stderr"], "why it broke\n");
    let stdout = hook["stdout"].as_str().expect("stdout kept");
    assert!(
        stdout.starts_with("line 0\nline 1\n") && stdout.len() <= 4096,
        "{stdout}"
    );
    assert_eq!(hook["truncated"], true);
    let why = crate::harness::why_text(&env, &run_id);
    assert!(
        why.contains("  stdout    line 0\n            line 1\n"),
        "{why}"
    );
    assert!(
        why.contains(" more lines (--json shows all that was kept)\n"),
        "{why}"
    );
    assert!(why.contains("  stderr    why it broke\n"), "{why}");
}

#[test]
fn a_hence_hook_and_a_native_hook_on_one_event() {
    let env = test_env();
    project_hook(
        &env,
        ".hence/hooks/post-complete",
        &format!(
            "echo \"hence $2 by $3\" >> {}\n",
            quoted(&env.project().join("log"))
        ),
    );
    env.write_script(
        ".hookrig/notify.sh",
        &format!(
            "echo \"native $(cat)\" >> {}\n",
            quoted(&env.project().join("log"))
        ),
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "notify"
        events = ["post-complete"]
        command = "./notify.sh"
    "#});
    let out = emit(&env, &["task.completed", "--session", "s"], PAYLOAD);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut results = out.results();
    results.sort();
    assert_eq!(
        results,
        [
            ("notify".to_owned(), "allow".to_owned()),
            ("post-complete".to_owned(), "allow".to_owned())
        ]
    );
    assert_eq!(out.hook("notify")["dialect"], "native");
    assert_eq!(out.hook("post-complete")["dialect"], "hence");
    let mut log = lines(env.read_file("log"));
    log.sort();
    assert_eq!(log.len(), 2, "{log:?}");
    assert_eq!(log[0], "hence auth by coder");
    assert!(
        log[1].starts_with(r#"native {"event":"task.completed","#)
            && log[1].contains(r#""task":"auth""#),
        "{}",
        log[1]
    );
}

/// The forwarder `docs/dialects/hence.md` gives for making hookrig Hence's one hook.
const FORWARDER: &str = indoc! {r#"
    #!/bin/sh
    # hookrig-forward: hands a Hence lifecycle event to hookrig.
    # hookrig reads .hence/hooks/ too and would run this script again: when hookrig
    # runs it (HOOKRIG_EVENT is set), it does nothing.
    [ -n "$HOOKRIG_EVENT" ] && exit 0
    point=$(basename "$0")
    key=task
    [ "$point" = post-assert ] && key=expression
    jq -n --arg plan "$1" --arg second "$2" --arg agent "$3" --arg key "$key" \
      '{plan: $plan, agent: $agent} + {($key): $second}' |
      hookrig emit "$point" > /dev/null
"#};

// guards: the documented forwarder does not loop when hookrig runs `.hence/hooks/` too
#[test]
fn the_documented_forwarder_hands_hences_event_to_hookrig_once() {
    if !tool_available("jq") {
        return;
    }
    let env = test_env();
    env.write_bin(
        "hookrig",
        &format!("exec '{}' \"$@\"\n", env!("CARGO_BIN_EXE_hookrig")),
    );
    let hooks = env.project().join(".hence/hooks");
    fs::create_dir_all(&hooks).expect("mkdir");
    fs::write(hooks.join("hookrig-forward"), FORWARDER).expect("write");
    fs::set_permissions(
        hooks.join("hookrig-forward"),
        fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");
    for point in ["post-complete", "post-assert"] {
        std::os::unix::fs::symlink("hookrig-forward", hooks.join(point)).expect("symlink");
    }
    let log = quoted(&env.project().join("log"));
    for point in ["post-complete", "post-assert"] {
        project_hook(
            &env,
            &format!(".hookrig/hooks/{point}"),
            &format!("echo \"$HENCE_HOOK|$1|$2|$3|$HENCE_TASK\" >> {log}\n"),
        );
    }

    // What Hence does after `hence task complete` and `hence task assert`.
    let path = std::env::join_paths(std::iter::once(env.bin()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    for (point, second) in [
        ("post-complete", "auth"),
        ("post-assert", "(given x \"y\")"),
    ] {
        env.trust_any_project(true);
        let mut command = std::process::Command::new(hooks.join(point));
        command
            .args(["plan.spl", second, "coder"])
            .current_dir(env.project())
            .env("HOME", env.home())
            .env("XDG_CONFIG_HOME", env.config_home())
            .env("XDG_STATE_HOME", env.state_home())
            .env("PATH", &path)
            // the suite leaves no engine running: this emit runs in-process
            .env("HOOKRIG_ENGINE", "off")
            .env_remove("HOOKRIG_EVENT");
        let output = run_with_input(command, b"", HANG_LIMIT);
        assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    }
    assert_eq!(
        lines(env.read_file("log")),
        [
            "post-complete|plan.spl|auth|coder|auth",
            "post-assert|plan.spl|(given x \"y\")|coder|",
        ]
    );
}

// config.toml: `[settings] hook_timeout` and `[hooks]`.

#[test]
fn hook_timeout_from_config_toml_kills_a_slow_hook() {
    let env = test_env();
    env.write_file(".hence/config.toml", "[settings]\nhook_timeout = 1\n");
    project_hook(
        &env,
        ".hence/hooks/post-complete",
        &format!("exec {} 5\n", quoted(&env.marked_sleep())),
    );
    let started = std::time::Instant::now();
    let out = emit(&env, &["task.completed"], PAYLOAD);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow");
    assert_eq!(out.warnings(), ["hook 'post-complete' timed out after 1s"]);
    assert_eq!(out.hook("post-complete")["result"], "timeout");
    assert!(env.leftovers().is_empty(), "the slow hook is left running");
}

#[test]
fn a_hook_point_set_to_false_is_listed_as_disabled_and_not_run() {
    let env = test_env();
    env.write_file(
        env.config_home().join("hence/config.toml"),
        "[hooks]\npost_complete = false\n",
    );
    project_hook(
        &env,
        ".hence/hooks/post-complete",
        &appends(&env, "ran", "complete"),
    );
    project_hook(
        &env,
        ".hence/hooks/post-claim",
        &appends(&env, "ran", "claim"),
    );
    let out = emit(&env, &["task.completed"], PAYLOAD);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(env.read_file("ran"), None, "the disabled hook did not run");
    let out = emit(&env, &["task.claimed"], PAYLOAD);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        lines(env.read_file("ran")),
        ["claim"],
        "other hook points run"
    );
    let listed = crate::harness::hookrig(&env, &["list", "--json"]);
    assert_eq!(code(&listed), 0, "{}", text(&listed.stderr));
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    let enabled: Vec<_> = listed
        .as_array()
        .expect("a list")
        .iter()
        .map(|h| {
            (
                h["name"].as_str().unwrap_or_default().to_owned(),
                h["enabled"].clone(),
            )
        })
        .collect();
    assert_eq!(
        enabled,
        [
            ("post-claim".to_owned(), serde_json::json!(true)),
            ("post-complete".to_owned(), serde_json::json!(false)),
        ]
    );
}

#[test]
fn a_hook_point_set_to_a_name_runs_that_script_instead() {
    let env = test_env();
    env.write_file(
        ".hookrig/config.toml",
        "[hooks]\npost_complete = \"notify.sh\"\n",
    );
    project_hook(
        &env,
        ".hence/hooks/post-complete",
        &appends(&env, "ran", "default"),
    );
    project_hook(
        &env,
        ".hence/hooks/notify.sh",
        &format!(
            "echo \"notify $HENCE_HOOK $2\" >> {}\n",
            quoted(&env.project().join("ran"))
        ),
    );
    global_hook(
        &env,
        "hence/hooks/notify.sh",
        &appends(&env, "ran", "global-notify"),
    );
    let out = emit(&env, &["task.completed"], PAYLOAD);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The project's setting names the project's script; the hook keeps its hook
    // point's name. The user's global hooks keep the user's settings: their directory
    // has no post-complete, so nothing runs there.
    assert_eq!(lines(env.read_file("ran")), ["notify post-complete auth"]);
    assert_eq!(
        hooks(&env, &out),
        [(
            "post-complete".to_owned(),
            "[TMP]/project/.hence/hooks/notify.sh".to_owned(),
            "allow".to_owned()
        )]
    );
}

#[test]
fn a_broken_config_toml_is_skipped_and_the_hooks_still_run() {
    // guards: a broken project config.toml must not switch off the hooks
    let env = test_env();
    let path = env.write_file(".hence/config.toml", "[settings]\nhook_timeout = -2\n");
    env.write_file(
        env.config_home().join("hence/config.toml"),
        "[settings]\nhook_timeout = 7\n",
    );
    project_hook(
        &env,
        ".hence/hooks/post-complete",
        &appends(&env, "ran", "yes"),
    );
    let out = emit(&env, &["task.completed"], PAYLOAD);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.has_warning(&format!("{}:2:16: ", path.display())),
        "{}",
        out.stdout
    );
    assert_eq!(lines(env.read_file("ran")), ["yes"]);
    // The good file still applies.
    let listed = crate::harness::hookrig(&env, &["list", "--json"]);
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    assert_eq!(listed[0]["timeout"], "7s", "{listed}");
}
