//! Configuration as `emit` sees it: broken files, unknown keys, project discovery,
//! matchers and disabled hooks.

use indoc::indoc;

use crate::harness::{emit, test_env, why_text};

#[test]
fn a_syntax_error_skips_that_file_and_the_other_hooks_still_run() {
    // guards: a broken project hooks.toml must not switch off the user's guard
    let env = test_env();
    env.write_bin("mark", "touch \"ran-$HOOKRIG_HOOK\"\n");
    env.write_global_config(indoc! {r#"
        [[hooks]]
        name = "global-ok"
        events = ["tool.before"]
        command = "mark"
    "#});
    let broken = env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "broken"
        events = ["tool.before"
        command = "mark"
    "#});

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.results(), [("global-ok".into(), "allow".into())]);
    let prefix = format!("{}:", broken.display());
    let warning = out
        .warnings()
        .into_iter()
        .find(|w| w.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no error about the broken file: {}", out.stdout));
    let mut place = warning[prefix.len()..].split(':');
    let (line, col) = (place.next(), place.next());
    assert!(
        line.is_some_and(|l| l.parse::<u32>().is_ok())
            && col.is_some_and(|c| c.parse::<u32>().is_ok()),
        "expected path:line:col, got {warning}"
    );
    assert!(
        env.read_file("ran-global-ok").is_some(),
        "the good file's hook runs"
    );
    assert!(
        env.read_file("ran-broken").is_none(),
        "nothing of the broken file runs"
    );
}

#[test]
fn unknown_key_is_a_warning_and_the_emit_still_runs() {
    let env = test_env();
    env.write_script(".hookrig/mark.sh", "touch ran-typo\n");
    let path = env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "typo"
        events = ["tool.before"]
        command = "./mark.sh"
        descripton = "a typo"
    "#});

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.warnings(),
        [format!(
            "{}:5:1: unknown key `descripton` is ignored; did you mean `description`?",
            path.display()
        )]
    );
    assert!(env.read_file("ran-typo").is_some(), "the hook still ran");
    assert_eq!(out.stderr, "", "warnings go to stderr only with --debug");

    let debug = emit(&env, &["tool.before", "--debug"], "{}");
    assert!(
        debug.stderr.contains(&format!(
            "hookrig: warning: {}:5:1: unknown key `descripton`",
            path.display()
        )),
        "{}",
        debug.stderr
    );
}

#[test]
fn cwd_option_selects_the_project() {
    let env = test_env();
    env.write_script(".hookrig/here.sh", "touch ran-here\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "here"
        events = ["tool.before"]
        command = "./here.sh"
    "#});
    let other = env.root().join("other");
    std::fs::create_dir_all(other.join(".git")).expect("create another project");
    std::fs::create_dir_all(other.join(".hookrig")).expect("create its config dir");
    std::fs::write(
        other.join(".hookrig/hooks.toml"),
        indoc! {r#"
            [[hooks]]
            name = "there"
            events = ["tool.before"]
            exec = ["touch", "ran-there"]
        "#},
    )
    .expect("write its config");

    // hookrig runs in the first project; --cwd points at the other one.
    let out = emit(
        &env,
        &["tool.before", "--cwd", other.to_str().expect("UTF-8")],
        "{}",
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.results(), [("there".into(), "allow".into())]);
    assert!(other.join("ran-there").exists());
    assert!(env.read_file("ran-here").is_none());
}

#[test]
fn matcher_that_does_not_match_skips_the_hook_and_why_says_so() {
    let env = test_env();
    env.write_script(".hookrig/guard.sh", "touch \"ran-$HOOKRIG_HOOK\"\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "writes"
        events = ["tool.before"]
        matcher = "write_file|edit"
        command = "./guard.sh"

        [[hooks]]
        name = "shell"
        events = ["tool.before"]
        matcher = "^bash$"
        command = "./guard.sh"
    "#});

    let out = emit(&env, &["tool.before"], r#"{"tool":{"name":"bash"}}"#);

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("writes"), "skipped");
    assert_eq!(out.result("shell"), "allow");
    assert!(env.read_file("ran-writes").is_none());
    assert!(env.read_file("ran-shell").is_some());
    let why = why_text(&env, &out.run_id());
    assert!(
        why.contains("matcher `write_file|edit` did not match tool `bash`"),
        "{why}"
    );
}

#[test]
fn disabled_hook_is_skipped_and_why_says_so() {
    let env = test_env();
    env.write_script(".hookrig/mark.sh", "touch ran-off\n");
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "off"
        events = ["tool.before"]
        command = "./mark.sh"
        enabled = false
    "#});

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("off"), "skipped");
    assert!(env.read_file("ran-off").is_none());
    let why = why_text(&env, &out.run_id());
    assert!(why.contains("off (native, "), "{why}");
    assert!(why.contains("skipped   disabled"), "{why}");
}

/// Writes a `.hookrig/hooks.toml` in `dir` with one hook `name` that touches `ran-NAME`.
fn config_in(dir: &std::path::Path, name: &str) {
    std::fs::create_dir_all(dir.join(".hookrig")).expect("create .hookrig");
    std::fs::write(
        dir.join(".hookrig/hooks.toml"),
        format!("[[hooks]]\nname = \"{name}\"\nevents = [\"tool.before\"]\nexec = [\"touch\", \"ran-{name}\"]\n"),
    )
    .expect("write the config");
}

#[test]
fn project_walk_stops_at_the_repository_root() {
    let env = test_env();
    // Above the directory holding `.git`: not part of the project.
    config_in(env.root(), "outer");
    config_in(&env.project(), "inner");
    let deep = env.project().join("a/b");
    std::fs::create_dir_all(&deep).expect("create a subdirectory");

    let out = emit(
        &env,
        &["tool.before", "--cwd", deep.to_str().expect("UTF-8")],
        "{}",
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.results(), [("inner".into(), "allow".into())]);
}

#[test]
fn project_walk_stops_before_home() {
    let env = test_env();
    // `~/.hookrig/hooks.toml` is not a project config; a directory under HOME without a
    // repository has no project.
    config_in(&env.home(), "home-level");
    let work = env.home().join("work/notes");
    std::fs::create_dir_all(&work).expect("create a directory under HOME");

    let out = emit(
        &env,
        &["tool.before", "--cwd", work.to_str().expect("UTF-8")],
        "{}",
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.results(), Vec::<(String, String)>::new());
    assert!(!work.join("ran-home-level").exists());
}

#[test]
fn cwd_option_naming_no_directory_fails() {
    let env = test_env();
    let missing = env.root().join("missing");

    let out = emit(
        &env,
        &["tool.before", "--cwd", missing.to_str().expect("UTF-8")],
        "{}",
    );

    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        format!(
            "hookrig: error: --cwd {}: no such directory\n",
            missing.display()
        )
    );
}
