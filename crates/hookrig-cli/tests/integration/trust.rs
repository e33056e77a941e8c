//! Trust: project hooks run only once `hookrig trust` has approved them as they are,
//! and stop running when their definition or script changes.
//!
//! These tests run hookrig without `HOOKRIG_TRUST_ALL` (the default of
//! [`TestEnv::command`]) unless they test that variable.

use std::path::Path;
use std::process::Output;

use hookrig_test_support::{HANG_LIMIT, TestEnv, run_with_input};
use indoc::indoc;

use crate::harness::{Emitted, code, emit, emit_untrusted, test_env, text};

/// A project hook `mark` that runs `.hookrig/mark.sh`, which writes the file `marker`.
fn project_with_marking_hook(env: &TestEnv) {
    env.write_script(".hookrig/mark.sh", "touch marker\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "mark"
        events = ["tool.before"]
        command = "./mark.sh"
        timeout = "5s"
    "#});
}

/// `hookrig ARGS...` run in the project without `HOOKRIG_TRUST_ALL`; fails the test
/// unless it exits 0.
fn untrusted_ok(env: &TestEnv, args: &[&str]) -> String {
    let output = env.run_untrusted(args, b"");
    assert_eq!(
        code(&output),
        0,
        "hookrig {args:?} failed: {}",
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// `hookrig trust` in the project.
fn trust(env: &TestEnv) -> String {
    untrusted_ok(env, &["trust"])
}

/// Emits `tool.before` without `HOOKRIG_TRUST_ALL`, and whether the marker appeared
/// (removing it for the next emit).
fn emit_and_mark(env: &TestEnv) -> (Emitted, bool) {
    let out = emit_untrusted(env, &["tool.before"], "{}");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let marker = env.project().join("marker");
    let ran = marker.exists();
    if ran {
        std::fs::remove_file(&marker).expect("remove the marker");
    }
    (out, ran)
}

/// Checks that `mark` was reported untrusted, not run, with a warning that names
/// `hookrig trust <project>` and contains `why`.
fn assert_untrusted(env: &TestEnv, out: &Emitted, ran: bool, why: &str) {
    assert!(!ran, "an untrusted hook must not run");
    assert_eq!(out.result("mark"), "untrusted");
    assert_eq!(out.outcome["decision"], "allow");
    let command = format!("`hookrig trust {}`", env.project().display());
    let warning = out
        .warnings()
        .into_iter()
        .find(|w| w.starts_with("hook mark was not run: "))
        .unwrap_or_else(|| panic!("no warning about `mark`: {:?}", out.warnings()));
    assert!(warning.contains(&command), "{warning}");
    assert!(warning.contains(why), "expected {why:?} in {warning}");
}

fn assert_ran(out: &Emitted, ran: bool) {
    assert!(ran, "a trusted hook runs: {:#}", out.outcome);
    assert_eq!(out.result("mark"), "allow");
    assert!(
        !out.has_warning("hookrig trust"),
        "no trust warning: {:?}",
        out.warnings()
    );
}

#[test]
fn a_project_hook_runs_only_after_trust() {
    let env = test_env();
    project_with_marking_hook(&env);

    let (out, ran) = emit_and_mark(&env);
    assert_untrusted(&env, &out, ran, "not trusted yet");
    assert_eq!(
        out.outcome["hooks"].as_array().map(Vec::len),
        Some(1),
        "listed, never silently dropped"
    );

    let trusted = trust(&env);
    assert!(trusted.contains("trusted mark (native, "), "{trusted}");
    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);

    // Trusting again changes nothing and says so.
    assert!(trust(&env).contains("already trusted mark"));
    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);
}

#[test]
fn a_changed_script_is_untrusted_again() {
    let env = test_env();
    project_with_marking_hook(&env);
    trust(&env);

    env.write_script(".hookrig/mark.sh", "touch marker\necho changed >&2\n");
    let (out, ran) = emit_and_mark(&env);
    assert_untrusted(&env, &out, ran, "its script changed since it was trusted");

    trust(&env);
    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);
}

#[test]
fn a_changed_definition_is_untrusted_again() {
    let env = test_env();
    project_with_marking_hook(&env);
    trust(&env);

    let config = env.project_config_path();
    let toml = std::fs::read_to_string(&config).expect("read the config");
    env.write_project_config(&toml.replace("timeout = \"5s\"", "timeout = \"6s\""));
    let (out, ran) = emit_and_mark(&env);
    assert_untrusted(
        &env,
        &out,
        ran,
        "its definition changed since it was trusted",
    );

    trust(&env);
    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);
}

#[test]
fn trust_list_shows_trusted_hooks_and_revoke_forgets_them() {
    let env = test_env();
    project_with_marking_hook(&env);
    assert_eq!(
        untrusted_ok(&env, &["trust", "--list"]),
        "(no trusted project hooks)\n"
    );
    trust(&env);

    let list = untrusted_ok(&env, &["trust", "--list"]);
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["NAME", "DIALECT", "SOURCE"]
    );
    assert_eq!(
        lines[1].split_whitespace().collect::<Vec<_>>(),
        [
            "mark",
            "native",
            env.project_config_path().to_str().expect("UTF-8")
        ]
    );
    assert_eq!(lines.len(), 2, "{list}");

    let revoked = untrusted_ok(&env, &["trust", "--revoke"]);
    assert_eq!(
        revoked,
        format!(
            "revoked trust in 1 hook under {}\n",
            env.project().display()
        )
    );
    let (out, ran) = emit_and_mark(&env);
    assert_untrusted(&env, &out, ran, "not trusted yet");
    assert_eq!(
        untrusted_ok(&env, &["trust", "--list"]),
        "(no trusted project hooks)\n"
    );
}

/// Runs `command` (made by the `TestEnv`) in `dir` instead of the project.
fn run_in(dir: &Path, mut command: std::process::Command) -> Output {
    command.current_dir(dir);
    run_with_input(command, b"", HANG_LIMIT)
}

#[test]
fn trust_dir_from_another_working_directory() {
    let env = test_env();
    project_with_marking_hook(&env);
    let project = env.project();
    let elsewhere = env.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("create another directory");

    let project_arg = project.to_str().expect("UTF-8");
    let output = run_in(&elsewhere, env.untrusted_command(["trust", project_arg]));
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("trusted mark"));

    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);

    let output = run_in(
        &elsewhere,
        env.untrusted_command(["trust", "--revoke", project_arg]),
    );
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let (out, ran) = emit_and_mark(&env);
    assert_untrusted(&env, &out, ran, "not trusted yet");
}

// guards: `trust --revoke` in a directory outside any repository revoked the trust of
// every project (it revoked everything under the top of the walk, which is `/`).
#[test]
fn revoke_outside_a_repository_keeps_other_projects_trusted() {
    let env = test_env();
    project_with_marking_hook(&env);
    trust(&env);
    // A project without `.git`: its walk goes up to `/`.
    let loose = env.root().join("loose");
    std::fs::create_dir_all(loose.join(".hookrig")).expect("create a loose project");
    std::fs::write(
        loose.join(".hookrig/hooks.toml"),
        indoc! {r#"
            [[hooks]]
            name = "loose"
            events = ["tool.before"]
            exec = ["true"]
        "#},
    )
    .expect("write its config");
    let output = run_in(&loose, env.untrusted_command(["trust"]));
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));

    let output = run_in(&loose, env.untrusted_command(["trust", "--revoke"]));
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        format!("revoked trust in 1 hook under {}\n", loose.display())
    );

    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);
}

#[test]
fn trust_all_runs_project_hooks_without_trust() {
    let env = test_env();
    project_with_marking_hook(&env);

    // `emit` runs with HOOKRIG_TRUST_ALL=1.
    let out = emit(&env, &["tool.before"], "{}");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("mark"), "allow");
    assert!(env.read_file("marker").is_some());
    assert!(out.warnings().is_empty(), "{:?}", out.warnings());
    assert!(
        !env.state_home().join("hookrig/trust.json").exists(),
        "trusting all records nothing"
    );
}

#[test]
fn global_hooks_run_without_trust() {
    let env = test_env();
    env.write_bin("global-mark", "touch global-marker\n");
    env.write_global_config(indoc! {r#"
        [[hooks]]
        name = "global"
        events = ["tool.before"]
        command = "global-mark"
    "#});

    let out = emit_untrusted(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("global"), "allow");
    assert!(env.read_file("global-marker").is_some());
    assert!(out.warnings().is_empty(), "{:?}", out.warnings());
}

#[test]
fn a_corrupt_trust_store_trusts_no_project_hook_and_keeps_global_hooks() {
    let env = test_env();
    project_with_marking_hook(&env);
    trust(&env);
    env.write_bin("global-mark", "touch global-marker\n");
    env.write_global_config(indoc! {r#"
        [[hooks]]
        name = "global"
        events = ["tool.before"]
        command = "global-mark"
    "#});
    let store = env.state_home().join("hookrig/trust.json");
    std::fs::write(&store, "{ not json \u{0} at all").expect("corrupt the store");

    let (out, ran) = emit_and_mark(&env);

    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert_untrusted(&env, &out, ran, "not trusted yet");
    assert_eq!(out.result("global"), "allow");
    assert!(env.read_file("global-marker").is_some());
    let warning = out
        .warnings()
        .into_iter()
        .find(|w| w.contains("trust.json"))
        .unwrap_or_else(|| panic!("no warning about the store: {:?}", out.warnings()));
    assert!(
        warning.starts_with(&format!("{}: ", store.display()))
            && warning.contains("not valid")
            && warning.contains("no project hook is trusted"),
        "{warning}"
    );

    // `trust` refuses to overwrite a store it cannot read, without panicking.
    let output = env.run_untrusted(["trust"], b"");
    assert_eq!(code(&output), 1, "{}", text(&output.stdout));
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with("hookrig: error: ") && stderr.contains("trust.json"),
        "{stderr}"
    );
}

/// Documented behaviour: only scripts inside the project are hashed; a script elsewhere
/// is not the repository's to change, so changing it does not untrust the hook.
#[test]
fn a_script_outside_the_project_is_not_hashed() {
    let env = test_env();
    let outside = env.write_bin("outside.sh", "touch marker\n");
    env.write_project_config(&format!(
        indoc! {r#"
            [[hooks]]
            name = "mark"
            events = ["tool.before"]
            command = "{}"
        "#},
        outside.display()
    ));
    trust(&env);
    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);

    env.write_bin("outside.sh", "touch marker\necho changed >&2\n");
    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);
}

/// A project script run through an interpreter (`sh x.sh`, `python3 hook.py`) is the
/// file the hook runs too: changing it must untrust the hook. Today only a command's
/// first word is hashed, so the changed script runs without a new `hookrig trust`.
#[test]

fn a_changed_script_run_through_an_interpreter_is_untrusted_again() {
    let env = test_env();
    env.write_file(".hookrig/mark.sh", "touch marker\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "mark"
        events = ["tool.before"]
        command = "sh .hookrig/mark.sh"
    "#});
    trust(&env);
    let (out, ran) = emit_and_mark(&env);
    assert_ran(&out, ran);

    env.write_file(".hookrig/mark.sh", "touch marker\ntouch changed\n");
    let (out, ran) = emit_and_mark(&env);
    assert_untrusted(&env, &out, ran, "its script changed since it was trusted");
}

#[test]
fn explain_says_an_untrusted_hook_does_not_run() {
    let env = test_env();
    project_with_marking_hook(&env);

    let output = env.run_untrusted(["explain", "tool.before"], b"");

    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("   - mark (native, ")
            && stdout.contains("     does not run: not trusted\n")
            && stdout.contains(&format!("`hookrig trust {}`", env.project().display())),
        "{stdout}"
    );
    assert!(env.read_file("marker").is_none(), "explain runs nothing");

    trust(&env);
    let stdout = untrusted_ok(&env, &["explain", "tool.before"]);
    assert!(stdout.contains("  1. mark (native, "), "{stdout}");
    assert!(!stdout.contains("not trusted"), "{stdout}");
}
