//! The native reply protocol and how a hook is started: replies, failures and
//! `on_error`, exit codes, environment, working directory, command resolution.

use indoc::indoc;

use crate::harness::{emit, test_env};

fn one_hook(name: &str, command: &str, extra: &str) -> String {
    format!(
        "[[hooks]]\nname = \"{name}\"\nevents = [\"tool.before\"]\ncommand = \"{command}\"\n{extra}\n"
    )
}

#[test]
fn malformed_reply_with_on_error_allow_allows_with_a_warning() {
    let env = test_env();
    env.write_script(".hookrig/sloppy.sh", "echo 'this is not json'\n");
    env.write_project_config(&one_hook("sloppy", "./sloppy.sh", "on_error = \"allow\""));

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow");
    assert_eq!(out.outcome["decided_by"], serde_json::Value::Null);
    assert_eq!(out.result("sloppy"), "error");
    assert_eq!(out.warnings(), ["hook sloppy: reply is not a JSON object"]);
}

#[test]
fn malformed_reply_with_on_error_deny_denies() {
    let env = test_env();
    env.write_script(".hookrig/sloppy.sh", "echo '[1, 2]'\n");
    env.write_project_config(&one_hook("sloppy", "./sloppy.sh", "on_error = \"deny\""));

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "deny");
    assert_eq!(out.outcome["decided_by"], "sloppy");
    assert_eq!(
        out.outcome["reason"],
        "hook sloppy: reply is not a JSON object"
    );
    assert_eq!(out.result("sloppy"), "error");
    assert!(out.has_warning("hook sloppy: reply is not a JSON object"));
}

#[test]
fn missing_script_is_a_failure_naming_the_absolute_path() {
    let env = test_env();
    env.write_project_config(&one_hook("nope", "./nope.sh", ""));

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("nope"), "error");
    let path = env.project().join(".hookrig/nope.sh");
    assert_eq!(
        out.warnings(),
        [format!(
            "hook nope: cannot run {}: no such file or directory",
            path.display()
        )]
    );
}

#[test]
fn missing_exec_program_is_a_failure_naming_the_absolute_path() {
    let env = test_env();
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "gone"
        events = ["tool.before"]
        exec = ["./gone-tool", "arg"]
        on_error = "deny"
    "#});

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 2, "{}", out.stderr);
    let path = env.project().join(".hookrig/gone-tool");
    assert_eq!(
        out.outcome["reason"],
        format!(
            "hook gone: cannot run {}: no such file or directory",
            path.display()
        )
    );
}

#[test]
fn non_executable_script_suggests_chmod() {
    let env = test_env();
    let path = env.write_file(".hookrig/plain.sh", "#!/bin/sh\ntouch ran-plain\n");
    env.write_project_config(&one_hook("plain", "./plain.sh", ""));

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result("plain"), "error");
    let hint = format!("chmod +x {}", path.display());
    assert!(out.has_warning(&hint), "{:?} lacks {hint}", out.warnings());
    assert!(env.read_file("ran-plain").is_none());
}

#[test]
fn exit_two_denies_with_stderr_as_the_reason() {
    let env = test_env();
    env.write_script(
        ".hookrig/guard.sh",
        "echo 'no writes to .env files' >&2\nexit 2\n",
    );
    env.write_project_config(&one_hook("guard", "./guard.sh", ""));

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 2);
    assert_eq!(out.outcome["reason"], "no writes to .env files");
    assert_eq!(out.outcome["decided_by"], "guard");
    assert_eq!(out.hook("guard")["exit_code"], 2);
    assert_eq!(out.warnings(), Vec::<String>::new());
}

#[test]
fn exit_two_reason_is_trimmed_and_cut_to_one_kib() {
    let env = test_env();
    env.write_script(
        ".hookrig/verbose.sh",
        "printf '  \\n' >&2\nhead -c 3000 /dev/zero | tr '\\0' x >&2\necho >&2\nexit 2\n",
    );
    env.write_project_config(&one_hook("verbose", "./verbose.sh", ""));

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 2);
    assert_eq!(
        out.outcome["reason"].as_str().expect("a reason"),
        "x".repeat(1024)
    );
}

#[test]
fn exit_three_is_a_failure_turned_into_allow() {
    let env = test_env();
    env.write_script(".hookrig/crashy.sh", "echo 'boom' >&2\nexit 3\n");
    env.write_project_config(&one_hook("crashy", "./crashy.sh", ""));

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "allow");
    assert_eq!(out.result("crashy"), "error");
    assert_eq!(out.hook("crashy")["exit_code"], 3);
    assert_eq!(out.warnings(), ["hook crashy exited 3"]);
}

#[test]
fn environment_reaches_the_hook() {
    let env = test_env();
    env.write_script(
        ".hookrig/env.sh",
        indoc! {r#"
            {
                echo "event=$HOOKRIG_EVENT"
                echo "hook=$HOOKRIG_HOOK"
                echo "session=$HOOKRIG_SESSION"
                echo "greeting=$GREETING"
                echo "home=$HOME"
            } > env.txt
        "#},
    );
    env.write_project_config(&one_hook(
        "envy",
        "./env.sh",
        "env = { GREETING = \"hello world\" }",
    ));

    let out = emit(&env, &["PreToolUse", "--session", "s-42"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        env.read_file("env.txt").expect("the hook ran"),
        format!(
            "event=tool.before\nhook=envy\nsession=s-42\ngreeting=hello world\nhome={}\n",
            env.home().display()
        )
    );
}

#[test]
fn hook_runs_in_the_event_cwd() {
    let env = test_env();
    let sub = env.project().join("src/deep");
    std::fs::create_dir_all(&sub).expect("create a subdirectory");
    env.write_script(".hookrig/where.sh", "pwd > where.txt\n");
    env.write_project_config(&one_hook("where", "./where.sh", ""));

    let out = emit(
        &env,
        &["tool.before", "--cwd", sub.to_str().expect("UTF-8")],
        "{}",
    );

    assert_eq!(out.code, 0, "{}", out.stderr);
    let written = std::fs::read_to_string(sub.join("where.txt")).expect("the hook ran in --cwd");
    assert_eq!(written.trim_end(), sub.to_str().expect("UTF-8"));
}

#[test]
fn relative_command_resolves_against_the_config_directory() {
    let env = test_env();
    // A decoy next to the working directory: `./guard.sh` must not mean this one.
    env.write_script("guard.sh", "echo decoy >> who.txt\n");
    env.write_script(".hookrig/guard.sh", "echo config-dir >> who.txt\n");
    env.write_project_config(&one_hook("guard", "./guard.sh", ""));

    let from_root = emit(&env, &["tool.before"], "{}");
    assert_eq!(from_root.code, 0, "{}", from_root.stderr);
    let sub = env.project().join("sub");
    std::fs::create_dir_all(&sub).expect("create a subdirectory");
    std::fs::write(sub.join("guard.sh"), "echo decoy").expect("write a decoy");
    let from_sub = emit(
        &env,
        &["tool.before", "--cwd", sub.to_str().expect("UTF-8")],
        "{}",
    );
    assert_eq!(from_sub.code, 0, "{}", from_sub.stderr);

    assert_eq!(
        env.read_file("who.txt").as_deref(),
        Some("config-dir\n"),
        "the run from the project root"
    );
    assert_eq!(
        std::fs::read_to_string(sub.join("who.txt")).ok().as_deref(),
        Some("config-dir\n"),
        "the run from a subdirectory"
    );
}

#[test]
fn exec_form_passes_arguments_without_a_shell() {
    let env = test_env();
    env.write_script(
        ".hookrig/args.sh",
        "for arg in \"$@\"; do echo \"[$arg]\"; done > args.txt\n",
    );
    env.write_project_config(indoc! {r#"
        [[hooks]]
        name = "args"
        events = ["tool.before"]
        exec = ["./args.sh", "two words", "$HOME", "*"]

        [[hooks]]
        name = "inline"
        events = ["tool.before"]
        exec = ["sh", "-c", "echo \"$0\" > inline.txt", "from-exec"]
    "#});

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        env.read_file("args.txt").as_deref(),
        Some("[two words]\n[$HOME]\n[*]\n")
    );
    assert_eq!(env.read_file("inline.txt").as_deref(), Some("from-exec\n"));
    assert_eq!(out.result("args"), "allow");
    assert_eq!(out.result("inline"), "allow");
}

// guards: a reply over the 1 MiB stdout cap that starts with whitespace counted as an
// empty reply (allow) even with `on_error = "deny"`; a truncated reply is a failure.
#[test]
fn a_reply_of_spaces_over_the_cap_then_a_deny_goes_through_on_error() {
    let env = test_env();
    env.write_script(
        ".hookrig/spaces.sh",
        "head -c 2097152 /dev/zero | tr '\\0' ' '\necho '{\"decision\":\"deny\"}'\n",
    );
    env.write_project_config(&one_hook("spaces", "./spaces.sh", "on_error = \"deny\""));

    let out = emit(&env, &["tool.before"], "{}");

    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.outcome["decision"], "deny");
    assert_eq!(out.result("spaces"), "error");
    assert_eq!(
        out.outcome["reason"],
        "hook spaces: reply is larger than the 1 MiB stdout cap"
    );
}
