//! External commands: `hookrig foo ARGS` runs `hookrig-foo ARGS` from PATH, then from
//! `[settings] plugin_path` of `config.toml`.

use std::os::unix::fs::PermissionsExt as _;
use std::process::{Command, Output};

use hookrig_test_support::{HANG_LIMIT, TestEnv, run_with_input};

use crate::harness::{code, test_env, text};

/// A script that prints its arguments one per line in brackets, and the variables an
/// external command is given (`-` when unset).
const ECHO: &str = r#"
printf '%s\n' "argc=$#"
for arg in "$@"; do printf '[%s]\n' "$arg"; done
printf 'HOOKRIG_AGENT=%s HENCE_AGENT=%s\n' "${HOOKRIG_AGENT--}" "${HENCE_AGENT--}"
printf 'HOOKRIG_PLAN=%s HENCE_PLAN=%s\n' "${HOOKRIG_PLAN--}" "${HENCE_PLAN--}"
"#;

/// `hookrig ARGS` with only the test's `bin` and the system directories in PATH, so that
/// a `hookrig-*` program of the machine cannot change a listing or a suggestion.
fn command(env: &TestEnv, args: &[&str]) -> Command {
    let mut command = env.command(args);
    command.env("PATH", format!("{}:/usr/bin:/bin", env.bin().display()));
    command
}

fn run(env: &TestEnv, args: &[&str]) -> Output {
    run_with_input(command(env, args), b"", HANG_LIMIT)
}

#[test]
fn arguments_pass_verbatim() {
    let env = test_env();
    env.write_bin("hookrig-echo", ECHO);
    let output = run(
        &env,
        &[
            "echo",
            "two words",
            "--flag",
            "-x",
            "",
            "--debug",
            "*",
            "$HOME",
        ],
    );
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "argc=7\n[two words]\n[--flag]\n[-x]\n[]\n[--debug]\n[*]\n[$HOME]\n\
         HOOKRIG_AGENT=- HENCE_AGENT=-\nHOOKRIG_PLAN=- HENCE_PLAN=-\n"
    );
}

#[test]
fn stdin_passes_through_and_stderr_is_inherited() {
    let env = test_env();
    env.write_bin("hookrig-cat", "cat; echo oops >&2");
    let input = b"line one\n\x00binary\xff\nlast";
    let output = run_with_input(command(&env, &["cat"]), input, HANG_LIMIT);
    assert_eq!(code(&output), 0);
    assert_eq!(output.stdout, input);
    assert_eq!(text(&output.stderr), "oops\n");
}

#[test]
fn the_exit_code_becomes_hookrigs() {
    let env = test_env();
    env.write_bin("hookrig-exit", r#"exit "$1""#);
    for expected in [0, 3, 255] {
        let output = run(&env, &["exit", &expected.to_string()]);
        assert_eq!(code(&output), expected);
    }
}

#[test]
fn a_signal_death_exits_128_plus_the_signal() {
    let env = test_env();
    env.write_bin("hookrig-die", "kill -TERM $$");
    assert_eq!(code(&run(&env, &["die"])), 128 + 15);
    env.write_bin("hookrig-abort", "kill -KILL $$");
    assert_eq!(code(&run(&env, &["abort"])), 128 + 9);
}

#[test]
fn agent_and_plan_come_from_flags_then_hookrig_then_hence_variables() {
    let env = test_env();
    env.write_bin("hookrig-echo", ECHO);
    let tail = |output: &Output| {
        let stdout = text(&output.stdout);
        stdout.lines().skip(1).collect::<Vec<_>>().join("\n")
    };
    let plan = env.project().join("plan.spl");
    let plan = plan.display();

    let output = run(&env, &["--agent", "bob", "--plan", "plan.spl", "echo"]);
    assert_eq!(
        tail(&output),
        format!("HOOKRIG_AGENT=bob HENCE_AGENT=bob\nHOOKRIG_PLAN={plan} HENCE_PLAN={plan}")
    );

    let mut cmd = command(&env, &["echo"]);
    cmd.env("HENCE_AGENT", "hence-agent")
        .env("HENCE_PLAN", "/plans/p.spl");
    let output = run_with_input(cmd, b"", HANG_LIMIT);
    assert_eq!(
        tail(&output),
        "HOOKRIG_AGENT=hence-agent HENCE_AGENT=hence-agent\n\
         HOOKRIG_PLAN=/plans/p.spl HENCE_PLAN=/plans/p.spl"
    );

    let mut cmd = command(&env, &["echo"]);
    cmd.env("HOOKRIG_AGENT", "ours")
        .env("HENCE_AGENT", "theirs")
        .env("HOOKRIG_PLAN", "/plans/ours.spl");
    let output = run_with_input(cmd, b"", HANG_LIMIT);
    assert_eq!(
        tail(&output),
        "HOOKRIG_AGENT=ours HENCE_AGENT=ours\n\
         HOOKRIG_PLAN=/plans/ours.spl HENCE_PLAN=/plans/ours.spl"
    );

    // A flag beats the environment.
    let mut cmd = command(&env, &["--agent", "flag", "echo"]);
    cmd.env("HOOKRIG_AGENT", "ours");
    let output = run_with_input(cmd, b"", HANG_LIMIT);
    assert!(tail(&output).starts_with("HOOKRIG_AGENT=flag HENCE_AGENT=flag\n"));
}

#[test]
fn built_in_commands_win() {
    let env = test_env();
    env.write_bin("hookrig-events", "echo external; exit 7");
    let output = run(&env, &["events"]);
    assert_eq!(code(&output), 0);
    assert!(!text(&output.stdout).contains("external"));
    assert!(text(&output.stdout).contains("tool.before"));
    // A shadowed external is not offered in the help either.
    let help = text(&run(&env, &["--help"]).stdout);
    assert!(!help.contains("hookrig-events"), "{help}");
}

#[test]
fn path_comes_before_plugin_path() {
    let env = test_env();
    let plugins = env.root().join("plugins");
    env.write_global_config(""); // the hooks file: keeps the directory around
    std::fs::write(
        env.config_home().join("hookrig").join("config.toml"),
        format!("[settings]\nplugin_path = [\"{}\"]\n", plugins.display()),
    )
    .expect("write config.toml");
    for (dir, body) in [
        (env.bin(), "echo from-path"),
        (plugins.clone(), "echo from-plugin-path"),
    ] {
        let path = dir.join("hookrig-dup");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    std::fs::write(
        plugins.join("hookrig-only"),
        "#!/bin/sh\necho only-in-plugin-path\n",
    )
    .expect("write");
    std::fs::set_permissions(
        plugins.join("hookrig-only"),
        std::fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");

    assert_eq!(text(&run(&env, &["dup"]).stdout), "from-path\n");
    assert_eq!(text(&run(&env, &["only"]).stdout), "only-in-plugin-path\n");
    let help = text(&run(&env, &["help"]).stdout);
    assert!(
        help.contains(&format!(
            "  only  {} (plugin_path)\n",
            plugins.join("hookrig-only").display()
        )),
        "{help}"
    );
}

#[test]
fn a_project_plugin_path_is_relative_to_the_project() {
    let env = test_env();
    env.write_file(
        ".hookrig/config.toml",
        "[settings]\nplugin_path = [\"tools\"]\n",
    );
    env.write_script("tools/hookrig-local", "echo local tool");
    let output = run(&env, &["local"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "local tool\n");
}

#[test]
fn a_broken_config_toml_stops_a_command_it_is_needed_for() {
    let env = test_env();
    let path = env.write_file(".hence/config.toml", "[settings]\nplugin_path = [\n");
    env.write_bin("hookrig-inpath", "echo fine");
    // Found in PATH: config.toml is not read.
    assert_eq!(text(&run(&env, &["inpath"]).stdout), "fine\n");
    let output = run(&env, &["elsewhere"]);
    assert_eq!(code(&output), 1);
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with(&format!(
            "hookrig: error: {}:2:16: unclosed array, expected `]`",
            path.display()
        )),
        "{stderr}"
    );
}

#[test]
fn unknown_commands_suggest_close_names() {
    let env = test_env();
    env.write_bin("hookrig-deploy", "exit 0");
    let cases = [
        ("lsit", "unknown command: lsit. Did you mean list?"),
        ("deplyo", "unknown command: deplyo. Did you mean deploy?"),
        ("evnts", "unknown command: evnts. Did you mean events?"),
        ("wy", "unknown command: wy. Did you mean why?"),
        (
            "frobnicate",
            "unknown command: frobnicate. Run `hookrig help` for the list of commands",
        ),
    ];
    for (name, message) in cases {
        let output = run(&env, &[name, "arg"]);
        assert_eq!(code(&output), 1, "{name}");
        assert_eq!(text(&output.stderr), format!("hookrig: error: {message}\n"));
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn several_close_names_are_listed_closest_first() {
    let env = test_env();
    env.write_bin("hookrig-lisp", "exit 0");
    let output = run(&env, &["lis"]);
    assert_eq!(
        text(&output.stderr),
        "hookrig: error: unknown command: lis. Did you mean lisp or list?\n"
    );
}

#[test]
fn a_command_that_is_not_executable_gets_a_chmod_hint() {
    let env = test_env();
    let path = env.bin().join("hookrig-todo");
    std::fs::write(&path, "#!/bin/sh\necho never\n").expect("write");
    let output = run(&env, &["todo"]);
    assert_eq!(code(&output), 1);
    let path = path.display();
    assert_eq!(
        text(&output.stderr),
        format!(
            "hookrig: error: permission denied: {path} is not executable; make it executable with `chmod +x {path}`\n"
        )
    );
}

#[test]
fn an_executable_later_in_the_search_wins_over_one_that_is_not() {
    let env = test_env();
    std::fs::write(env.bin().join("hookrig-todo"), "#!/bin/sh\necho never\n").expect("write");
    env.write_file(
        ".hookrig/config.toml",
        "[settings]\nplugin_path = [\"tools\"]\n",
    );
    env.write_script("tools/hookrig-todo", "echo runs");
    assert_eq!(text(&run(&env, &["todo"]).stdout), "runs\n");
}

#[test]
fn help_lists_external_commands() {
    let env = test_env();
    let deploy = env.write_bin("hookrig-deploy", "exit 0");
    let todo = env.write_bin("hookrig-todo-list", "exit 0");
    std::fs::write(env.bin().join("hookrig-notexec"), "x").expect("write");
    let section = format!(
        "External commands:\n  deploy     {}\n  todo-list  {}\n",
        deploy.display(),
        todo.display()
    );
    for args in [&["--help"][..], &["-h"], &["help"], &["--debug", "help"]] {
        let output = run(&env, args);
        assert_eq!(code(&output), 0, "{args:?}");
        let stdout = text(&output.stdout);
        assert!(stdout.ends_with(&section), "{args:?}: {stdout}");
        assert!(stdout.contains("Commands:\n  emit"), "{stdout}");
    }
    // The help of a built-in is its own.
    let emit_help = text(&run(&env, &["emit", "--help"]).stdout);
    assert!(!emit_help.contains("External commands"), "{emit_help}");
}

#[test]
fn help_without_external_commands_says_how_to_add_one() {
    let env = test_env();
    let stdout = text(&run(&env, &["--help"]).stdout);
    assert!(
        stdout.ends_with(
            "External commands:\n  (none found: put an executable named hookrig-NAME in PATH)\n"
        ),
        "{stdout}"
    );
}

#[test]
fn help_of_an_external_command_is_its_own() {
    let env = test_env();
    env.write_bin(
        "hookrig-todo",
        r#"[ "$1" = --help ] && { echo "usage: hookrig todo PLAN"; exit 0; }; exit 9"#,
    );
    for args in [&["todo", "--help"][..], &["help", "todo"]] {
        let output = run(&env, args);
        assert_eq!(code(&output), 0, "{args:?}: {}", text(&output.stderr));
        assert_eq!(text(&output.stdout), "usage: hookrig todo PLAN\n");
    }
}

#[test]
fn sigterm_to_hookrig_reaches_the_command() {
    let env = test_env();
    let ready = env.root().join("ready");
    env.write_bin(
        "hookrig-wait",
        &format!(
            "trap 'echo terminated; exit 5' TERM\ntouch {}\nwhile :; do {} 0.05; done\n",
            crate::harness::quoted(&ready),
            crate::harness::quoted(&env.marked_sleep()),
        ),
    );
    let mut cmd = command(&env, &["wait"]);
    cmd.stdout(std::process::Stdio::piped());
    let child = cmd.spawn().expect("start hookrig");
    assert!(
        hookrig_test_support::wait_for_file(&ready, HANG_LIMIT),
        "the command never started"
    );
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("a pid"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("signal hookrig");
    let output = child.wait_with_output().expect("wait for hookrig");
    assert_eq!(code(&output), 5);
    assert_eq!(text(&output.stdout), "terminated\n");
    assert!(env.leftovers().is_empty());
}

/// Writes an executable script at `path` (creating parents).
fn executable(path: &std::path::Path, body: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// A plugin package `tools` shipping `deploy` and `todo` (which runs [`ECHO`]),
/// registered and enabled for `coder`.
fn tools_package(env: &TestEnv) -> std::path::PathBuf {
    let dir = env.root().join("packages/tools");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join("plugin.json"),
        r#"{"name": "tools", "commands": {"deploy": "bin/deploy", "todo": "bin/todo.sh"}}"#,
    )
    .expect("write");
    executable(&dir.join("bin/deploy"), "echo package deploy");
    executable(
        &dir.join("bin/todo.sh"),
        &format!("echo package todo\n{ECHO}"),
    );
    for args in [
        &[
            "plugins",
            "register",
            "tools",
            "--path",
            dir.to_str().expect("utf-8"),
        ][..],
        &["plugins", "enable", "tools", "--agent", "coder"],
    ] {
        let output = run(env, args);
        assert_eq!(code(&output), 0, "{args:?}: {}", text(&output.stderr));
    }
    dir
}

#[test]
fn package_commands_run_for_enabled_agents_after_path() {
    let env = test_env();
    tools_package(&env);
    env.write_bin("hookrig-deploy", "echo path deploy");

    // PATH wins over the package.
    let output = run(&env, &["--agent", "coder", "deploy"]);
    assert_eq!(
        text(&output.stdout),
        "path deploy\n",
        "{}",
        text(&output.stderr)
    );

    // The package's command, named as in the manifest, with its arguments and agent.
    let output = run(&env, &["--agent", "coder", "todo", "a b"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "package todo\nargc=1\n[a b]\nHOOKRIG_AGENT=coder HENCE_AGENT=coder\nHOOKRIG_PLAN=- HENCE_PLAN=-\n"
    );
    // The agent from HOOKRIG_AGENT too.
    let mut with_env = command(&env, &["todo"]);
    with_env.env("HOOKRIG_AGENT", "coder");
    let output = run_with_input(with_env, b"", HANG_LIMIT);
    assert!(
        text(&output.stdout).starts_with("package todo\n"),
        "{}",
        text(&output.stderr)
    );

    // plugin_path wins over the package too.
    env.write_file(
        ".hookrig/config.toml",
        "[settings]\nplugin_path = [\"tools\"]\n",
    );
    env.write_script("tools/hookrig-todo", "echo plugin_path todo");
    let output = run(&env, &["--agent", "coder", "todo"]);
    assert_eq!(text(&output.stdout), "plugin_path todo\n");
}

#[test]
fn a_disabled_package_command_is_unknown_but_suggestions_still_work() {
    let env = test_env();
    tools_package(&env);
    env.write_bin("hookrig-deploy", "exit 0");
    for args in [&["--agent", "reviewer", "todo"][..], &["todo"]] {
        let output = run(&env, args);
        assert_eq!(code(&output), 1, "{args:?}");
        assert_eq!(
            text(&output.stderr),
            "hookrig: error: unknown command: todo. Run `hookrig help` for the list of commands\n",
            "{args:?}"
        );
    }
    // Suggestions: from PATH for anyone, from the package for the agents it runs for.
    let output = run(&env, &["--agent", "reviewer", "deplyo"]);
    assert_eq!(
        text(&output.stderr),
        "hookrig: error: unknown command: deplyo. Did you mean deploy?\n"
    );
    let output = run(&env, &["--agent", "coder", "tood"]);
    assert_eq!(
        text(&output.stderr),
        "hookrig: error: unknown command: tood. Did you mean todo?\n"
    );

    // Enabled for everyone: runs with no agent at all.
    let output = run(&env, &["plugins", "enable", "tools", "--all"]);
    assert_eq!(code(&output), 0);
    assert_eq!(
        text(&run(&env, &["todo"]).stdout).lines().next(),
        Some("package todo")
    );
}

#[test]
fn help_marks_package_commands() {
    let env = test_env();
    let dir = tools_package(&env);
    let deploy = env.write_bin("hookrig-deploy", "exit 0");
    let coder = text(&run(&env, &["--agent", "coder", "--help"]).stdout);
    assert!(
        coder.ends_with(&format!(
            "External commands:\n  deploy  {}\n  todo    {} (plugin package tools)\n",
            deploy.display(),
            dir.join("bin/todo.sh").display()
        )),
        "{coder}"
    );
    let reviewer = text(&run(&env, &["--agent", "reviewer", "help"]).stdout);
    assert!(
        reviewer.ends_with(&format!(
            "External commands:\n  deploy  {}\n",
            deploy.display()
        )),
        "{reviewer}"
    );
    // `hookrig help todo` runs the package's command with --help.
    let output = run(&env, &["--agent", "coder", "help", "todo"]);
    assert!(
        text(&output.stdout).contains("[--help]"),
        "{}",
        text(&output.stderr)
    );
}

/// `hence ARGS`: hookrig run through a symlink named `hence`, as [`command`] sets it up.
fn run_as_hence(env: &TestEnv, args: &[&str]) -> Output {
    let link = env.root().join("alias").join("hence");
    if link.symlink_metadata().is_err() {
        std::fs::create_dir_all(link.parent().expect("parent")).expect("mkdir");
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hookrig"), &link).expect("ln -s");
    }
    let base = command(env, args);
    let mut hence = Command::new(&link);
    hence.args(base.get_args());
    for (name, value) in base.get_envs() {
        match value {
            Some(value) => hence.env(name, value),
            None => hence.env_remove(name),
        };
    }
    hence.current_dir(base.get_current_dir().expect("a directory"));
    run_with_input(hence, b"", HANG_LIMIT)
}

#[test]
fn invoked_as_hence_runs_hence_commands() {
    // guards: a `hence-NAME` command (Hence users' scripts) did not run as `hence NAME`
    // when hookrig was installed as `hence`
    let env = test_env();
    env.write_bin("hence-todo", ECHO);
    env.write_bin("hence-dup", "echo hence-dup");
    env.write_bin("hookrig-dup", "echo hookrig-dup");
    env.write_bin("hookrig-own", "echo hookrig-own");
    env.write_file(
        ".hence/config.toml",
        "[settings]\nplugin_path = [\"tools\"]\n",
    );
    env.write_script("tools/hence-local", "echo local hence tool");
    let output = run_as_hence(&env, &["--agent", "coder", "todo", "a b"]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "argc=1\n[a b]\nHOOKRIG_AGENT=coder HENCE_AGENT=coder\nHOOKRIG_PLAN=- HENCE_PLAN=-\n"
    );
    for (name, out) in [
        ("dup", "hence-dup\n"),
        ("own", "hookrig-own\n"),
        ("local", "local hence tool\n"),
    ] {
        let output = run_as_hence(&env, &[name]);
        assert_eq!(code(&output), 0, "{name}: {}", text(&output.stderr));
        assert_eq!(text(&output.stdout), out, "{name}");
    }
    // Built-ins still win, and the help lists the hence- commands.
    assert_eq!(code(&run_as_hence(&env, &["events"])), 0);
    let help = text(&run_as_hence(&env, &["--help"]).stdout);
    assert!(
        help.contains(&format!(
            "  todo   {}\n",
            env.bin().join("hence-todo").display()
        )),
        "{help}"
    );
}

#[test]
fn a_hence_command_run_as_hookrig_gets_a_hint() {
    // guards: `hookrig todo` with only `hence-todo` installed said "unknown command" and
    // nothing about the Hence command it had found
    let env = test_env();
    let path = env.write_bin("hence-todo", "echo never");
    let output = run(&env, &["todo"]);
    assert_eq!(code(&output), 1);
    assert!(output.stdout.is_empty());
    assert_eq!(
        text(&output.stderr),
        format!(
            "hookrig: error: unknown command: todo. {0} is a Hence command, which hookrig runs only when started as `hence`: symlink it as hookrig-todo (`ln -s {0} DIR/hookrig-todo`), rename it, or run `hence todo` through a link named hence to hookrig\n",
            path.display()
        )
    );
}
