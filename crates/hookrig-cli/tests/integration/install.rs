//! `hookrig install|uninstall HOST` and `hookrig doctor`: the host's file gets hookrig's
//! one entry per event, the host's own hooks move into the sidecar and run exactly once
//! through `hookrig emit --dialect HOST`, and uninstall puts everything back. The rules
//! are in docs/install.md.

use std::path::{Path, PathBuf};

use hookrig_test_support::TestEnv;
use serde_json::{Value, json};

use crate::harness::{code, emit, emit_untrusted, quoted, test_env, text};

/// One host, as the tests install into it.
struct Host {
    /// Its name on the command line.
    name: &'static str,
    /// Its user file, under HOME.
    user_file: &'static str,
    /// Its project file, under the project.
    project_file: &'static str,
    /// The sidecar's name.
    sidecar: &'static str,
    /// A settings file holding `hook` (a command line) on the host's tool event, with
    /// other settings around it.
    settings: fn(hook: &str) -> String,
    /// The host's input of its tool event for a `Bash`/shell tool call in `cwd`.
    input: fn(cwd: &Path) -> Value,
}

const CLAUDE: Host = Host {
    name: "claude",
    user_file: ".claude/settings.json",
    project_file: ".claude/settings.json",
    sidecar: "settings.hookrig.json",
    settings: |hook| {
        format!(
            "{{\n  \"model\": \"opus\",\n  \"hooks\": {{\n    \"PreToolUse\": [\n      {{\n        \"matcher\": \"Bash\",\n        \"hooks\": [{{ \"type\": \"command\", \"command\": {} }}]\n      }}\n    ]\n  }},\n  \"permissions\": {{ \"allow\": [\"Bash(ls)\"] }}\n}}\n",
            json!(hook)
        )
    },
    input: |cwd| {
        json!({
            "session_id": "s1",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": cwd,
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "t1"
        })
    },
};

const CURSOR: Host = Host {
    name: "cursor",
    user_file: ".cursor/hooks.json",
    project_file: ".cursor/hooks.json",
    sidecar: "hooks.hookrig.json",
    settings: |hook| {
        format!(
            "{{\n  \"version\": 1,\n  \"hooks\": {{\n    \"beforeShellExecution\": [{{ \"command\": {}, \"timeout\": 10 }}]\n  }}\n}}\n",
            json!(hook)
        )
    },
    input: |cwd| {
        json!({
            "conversation_id": "c1",
            "generation_id": "g1",
            "model": "claude-sonnet-4",
            "hook_event_name": "beforeShellExecution",
            "cursor_version": "2.1.0",
            "workspace_roots": [cwd],
            "user_email": null,
            "transcript_path": null,
            "command": "ls",
            "cwd": cwd
        })
    },
};

const GEMINI: Host = Host {
    name: "gemini",
    user_file: ".gemini/settings.json",
    project_file: ".gemini/settings.json",
    sidecar: "settings.hookrig.json",
    settings: |hook| {
        format!(
            "// Gemini CLI settings, with comments.\n{{\n  \"theme\": \"GitHub\", /* the theme */\n  \"tools\": {{ \"enableHooks\": true }},\n  \"hooks\": {{\n    // the guard\n    \"BeforeTool\": [\n      {{\n        \"matcher\": \"run_shell_command\",\n        \"hooks\": [{{ \"name\": \"guard\", \"type\": \"command\", \"command\": {}, \"timeout\": 5000 }}]\n      }}\n    ]\n  }}\n}}\n",
            json!(hook)
        )
    },
    input: |cwd| {
        json!({
            "session_id": "s1",
            "transcript_path": "",
            "cwd": cwd,
            "hook_event_name": "BeforeTool",
            "timestamp": "2026-11-25T12:00:00.000Z",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "ls", "dir": "."}
        })
    },
};

const CODEX: Host = Host {
    name: "codex",
    user_file: ".codex/hooks.json",
    project_file: ".codex/hooks.json",
    sidecar: "hooks.hookrig.json",
    settings: |hook| {
        format!(
            "{{\n  \"hooks\": {{\n    \"PreToolUse\": [\n      {{ \"matcher\": \"Bash\", \"hooks\": [{{ \"type\": \"command\", \"command\": {}, \"timeout\": 30 }}] }}\n    ]\n  }}\n}}\n",
            json!(hook)
        )
    },
    input: |cwd| {
        json!({
            "session_id": "s1",
            "turn_id": "t1",
            "transcript_path": null,
            "cwd": cwd,
            "hook_event_name": "PreToolUse",
            "model": "gpt-5",
            "permission_mode": "default",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "call_1"
        })
    },
};

/// A test's world with `hookrig` on PATH as the binary under test, so that entries are
/// written as `hookrig emit ...`.
fn world() -> TestEnv {
    let env = test_env();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hookrig"), env.bin().join("hookrig"))
        .expect("link hookrig into PATH");
    env
}

/// A hook script that appends a line to `counter` each time it runs; its command line.
fn counter_hook(env: &TestEnv, name: &str) -> String {
    let counter = env.root().join(format!("{name}.count"));
    let script = env.write_script(
        format!("hooks/{name}.sh"),
        &format!("cat > /dev/null\necho ran >> {}\n", quoted(&counter)),
    );
    quoted(&script)
}

/// How many times the counter hook `name` ran.
fn runs(env: &TestEnv, name: &str) -> usize {
    std::fs::read_to_string(env.root().join(format!("{name}.count")))
        .map_or(0, |t| t.lines().count())
}

fn user_path(env: &TestEnv, host: &Host) -> PathBuf {
    env.home().join(host.user_file)
}

fn project_path(env: &TestEnv, host: &Host) -> PathBuf {
    env.project().join(host.project_file)
}

fn sidecar(path: &Path, host: &Host) -> PathBuf {
    path.with_file_name(host.sidecar)
}

fn backup(path: &Path) -> PathBuf {
    let mut name = path.file_name().expect("a name").to_os_string();
    name.push(".hookrig-backup");
    path.with_file_name(name)
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// Runs hookrig with `args`; asserts it succeeded and returns its stdout.
fn ok(env: &TestEnv, args: &[&str]) -> String {
    let output = env.run(args, b"");
    assert_eq!(code(&output), 0, "{args:?}: {}", text(&output.stderr));
    env.redact(&text(&output.stdout))
}

/// The host's tool event through `hookrig emit --dialect HOST`.
fn fire(env: &TestEnv, host: &Host) {
    let input = (host.input)(&env.project()).to_string();
    let emitted = emit(env, &["--dialect", host.name], &input);
    assert_eq!(emitted.code, 0, "{}", emitted.stderr);
}

/// Install into a user file with hooks and other settings, run the event, install again,
/// uninstall: the whole life of an install, checked at each step.
fn user_install_round_trip(host: &Host) {
    let env = world();
    let path = user_path(&env, host);
    let original = (host.settings)(&counter_hook(&env, "guard"));
    write(&path, &original);

    let said = ok(&env, &["install", host.name]);
    let file = read(&path).expect("the file");
    let side = read(&sidecar(&path, host)).expect("the sidecar");
    insta::assert_snapshot!(
        format!("{}_user_install", host.name),
        format!(
            "--- output\n{said}--- {}\n{}--- {}\n{}",
            host.user_file,
            env.redact(&file),
            host.sidecar,
            env.redact(&side)
        )
    );
    assert_eq!(read(&backup(&path)).as_deref(), Some(original.as_str()));

    // The host now runs hookrig alone, and hookrig runs the host's hook once.
    fire(&env, host);
    assert_eq!(runs(&env, "guard"), 1);

    // A second install with nothing new changes no byte and writes no backup.
    std::fs::remove_file(backup(&path)).expect("rm backup");
    let said = ok(&env, &["install", host.name]);
    assert!(said.contains("unchanged"), "{said}");
    assert_eq!(read(&path).as_deref(), Some(file.as_str()));
    assert_eq!(read(&sidecar(&path, host)).as_deref(), Some(side.as_str()));
    assert!(!backup(&path).exists());
    write(&backup(&path), &original);

    // Uninstall: the original, byte for byte; no sidecar, no backup.
    ok(&env, &["uninstall", host.name]);
    assert_eq!(read(&path).as_deref(), Some(original.as_str()));
    assert!(!sidecar(&path, host).exists());
    assert!(!backup(&path).exists());
    // Idempotent too.
    let said = ok(&env, &["uninstall", host.name]);
    assert!(said.contains("nothing changed"), "{said}");
    assert_eq!(read(&path).as_deref(), Some(original.as_str()));
    fire(&env, host);
    // The host runs its hook again itself; hookrig reads it once as well (it runs when
    // asked), so the count goes on from where it was.
    assert_eq!(runs(&env, "guard"), 2);
}

/// Hooks the user adds to the file after install are moved by the next install, and put
/// back by uninstall beside the others.
fn hooks_added_after_install(host: &Host, add: fn(&str, &str) -> String) {
    let env = world();
    let path = user_path(&env, host);
    write(&path, &(host.settings)(&counter_hook(&env, "guard")));
    ok(&env, &["install", host.name]);
    let installed = read(&path).expect("file");
    write(&path, &add(&installed, &counter_hook(&env, "later")));

    let said = ok(&env, &["install", host.name]);
    assert!(said.contains("1 hook moved"), "{said}");
    // The file is as it was, but for the timeout of the entry that now runs one hook more.
    let now = read(&path).expect("file");
    assert_eq!(without_timeouts(&now), without_timeouts(&installed));
    assert_ne!(now, installed);
    fire(&env, host);
    assert_eq!((runs(&env, "guard"), runs(&env, "later")), (1, 1));

    ok(&env, &["uninstall", host.name]);
    let restored = read(&path).expect("file");
    assert!(
        restored.contains("guard.sh") && restored.contains("later.sh"),
        "{restored}"
    );
    assert!(!restored.contains("emit --dialect"), "{restored}");
    assert!(!sidecar(&path, host).exists());
}

/// A file that does not parse is refused with its position and left untouched.
fn unparsable_file_is_refused(host: &Host) {
    let env = world();
    let path = user_path(&env, host);
    let broken = "{\n  \"hooks\": {\n    \"x\": [,]\n  }\n}\n";
    write(&path, broken);
    let output = env.run(["install", host.name], b"");
    assert_eq!(code(&output), 1);
    let stderr = env.redact(&text(&output.stderr));
    assert!(
        stderr.contains(&format!("[TMP]/home/{}:3:11: ", host.user_file)),
        "{stderr}"
    );
    assert_eq!(read(&path).as_deref(), Some(broken));
    assert!(!sidecar(&path, host).exists());
    assert!(!backup(&path).exists());
}

/// A project install moves the project's hooks into a project sidecar, which runs only
/// once trusted; it never touches the user's hooks files.
fn project_install_is_untrusted_until_trust(host: &Host) {
    let env = world();
    let path = project_path(&env, host);
    write(&path, &(host.settings)(&counter_hook(&env, "guard")));
    let said = ok(&env, &["install", host.name, "--project"]);
    assert!(said.contains("hookrig trust"), "{said}");
    assert!(!env.home().join(host.user_file).exists());
    assert!(sidecar(&path, host).exists());

    let input = (host.input)(&env.project()).to_string();
    emit_untrusted(&env, &["--dialect", host.name], &input);
    assert_eq!(runs(&env, "guard"), 0);
    let output = env.run_untrusted(["trust"], b"");
    assert_eq!(code(&output), 0);
    assert!(
        text(&output.stdout).contains(host.sidecar),
        "{}",
        text(&output.stdout)
    );
    emit_untrusted(&env, &["--dialect", host.name], &input);
    assert_eq!(runs(&env, "guard"), 1);
}

/// A project file trusted as it was before install stays trusted in its sidecar.
fn trust_carries_over(host: &Host) {
    let env = world();
    let path = project_path(&env, host);
    write(&path, &(host.settings)(&counter_hook(&env, "guard")));
    assert_eq!(code(&env.run_untrusted(["trust"], b"")), 0);
    let output = env.run_untrusted(["install", host.name, "--project"], b"");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("stay trusted"),
        "{}",
        text(&output.stdout)
    );
    let input = (host.input)(&env.project()).to_string();
    emit_untrusted(&env, &["--dialect", host.name], &input);
    assert_eq!(runs(&env, "guard"), 1);
}

/// A repository that ships its own sidecar runs nothing from it before `hookrig trust`.
fn a_shipped_sidecar_is_untrusted(host: &Host) {
    let env = world();
    let path = project_path(&env, host);
    write(
        &sidecar(&path, host),
        &(host.settings)(&counter_hook(&env, "shipped")),
    );
    let input = (host.input)(&env.project()).to_string();
    let emitted = emit_untrusted(&env, &["--dialect", host.name], &input);
    assert_eq!(runs(&env, "shipped"), 0, "{}", emitted.stderr);
    assert_eq!(code(&env.run_untrusted(["trust"], b"")), 0);
    emit_untrusted(&env, &["--dialect", host.name], &input);
    assert_eq!(runs(&env, "shipped"), 1);
}

/// A sidecar that arrives with the repository after the user trusted the project file
/// is not trusted by install's carry-over: its hooks still wait for `hookrig trust`.
fn a_shipped_sidecar_is_not_carried_over(host: &Host) {
    let env = world();
    let path = project_path(&env, host);
    write(&path, &(host.settings)(&counter_hook(&env, "guard")));
    assert_eq!(code(&env.run_untrusted(["trust"], b"")), 0);
    write(
        &sidecar(&path, host),
        &(host.settings)(&counter_hook(&env, "shipped")),
    );
    let said = ok(&env, &["install", host.name, "--project"]);
    assert!(said.contains("hookrig trust"), "{said}");
    let input = (host.input)(&env.project()).to_string();
    emit_untrusted(&env, &["--dialect", host.name], &input);
    assert_eq!(runs(&env, "shipped"), 0);
}

#[test]
fn shipped_sidecars_are_not_carried_over() {
    for host in [&CLAUDE, &CURSOR, &GEMINI, &CODEX] {
        a_shipped_sidecar_is_not_carried_over(host);
    }
}

#[test]
fn claude_user_install_round_trip() {
    user_install_round_trip(&CLAUDE);
}

#[test]
fn claude_hooks_added_after_install() {
    hooks_added_after_install(&CLAUDE, |installed, hook| {
        installed.replacen(
            "\"PreToolUse\": [",
            &format!(
                "\"PreToolUse\": [{{\"matcher\": \"Bash\", \"hooks\": [{{\"type\": \"command\", \"command\": {}}}]}}, ",
                json!(hook)
            ),
            1,
        )
    });
}

#[test]
fn claude_unparsable_file_is_refused() {
    unparsable_file_is_refused(&CLAUDE);
}

#[test]
fn claude_project_install_is_untrusted_until_trust() {
    project_install_is_untrusted_until_trust(&CLAUDE);
}

#[test]
fn claude_trust_carries_over() {
    trust_carries_over(&CLAUDE);
}

#[test]
fn claude_shipped_sidecar_is_untrusted() {
    a_shipped_sidecar_is_untrusted(&CLAUDE);
}

#[test]
fn the_entry_names_hookrig_by_path_when_path_does_not_find_it() {
    let env = test_env();
    ok(&env, &["install", "claude"]);
    let file = read(&env.home().join(".claude/settings.json")).expect("file");
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_hookrig")).expect("exe");
    assert!(
        file.contains(&format!("{} emit --dialect claude", exe.display())),
        "{file}"
    );
}

/// `hookrig doctor` with `PATH` holding only the test's programs and the system's.
fn doctor(env: &TestEnv, json: bool) -> String {
    let mut command = env.untrusted_command(if json {
        vec!["doctor", "--json"]
    } else {
        vec!["doctor"]
    });
    command.env("PATH", format!("{}:/usr/bin:/bin", env.bin().display()));
    let output =
        hookrig_test_support::run_with_input(command, b"", hookrig_test_support::HANG_LIMIT);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    env.redact(&text(&output.stdout))
}

#[test]
fn doctor_shows_what_is_installed_what_runs_and_what_waits() {
    let env = world();
    let user = user_path(&env, &CLAUDE);
    write(&user, &(CLAUDE.settings)(&counter_hook(&env, "guard")));
    ok(&env, &["install", "claude"]);
    // A feature hookrig cannot honour, in the user's file after install.
    let installed = read(&user).expect("file");
    write(
        &user,
        &installed.replacen(
            "\"Stop\": [",
            "\"Stop\": [{\"hooks\": [{\"type\": \"prompt\", \"prompt\": \"done?\"}]}, ",
            1,
        ),
    );
    // A project hook not trusted yet.
    write(
        &project_path(&env, &CLAUDE),
        &(CLAUDE.settings)(&counter_hook(&env, "project")),
    );
    // A file install does not edit, whose hooks Claude Code runs beside hookrig.
    write(
        &env.project().join(".claude/settings.local.json"),
        &(CLAUDE.settings)(&counter_hook(&env, "local")),
    );
    // A host found by its program alone.
    env.write_bin("cursor-agent", "exit 0\n");
    insta::assert_snapshot!("doctor_text", doctor(&env, false));
    insta::assert_snapshot!("doctor_json", doctor(&env, true));
}

#[test]
fn doctor_says_when_the_installed_program_is_gone() {
    let env = test_env();
    let copy = env.root().join("old/hookrig");
    std::fs::create_dir_all(copy.parent().expect("parent")).expect("mkdir");
    std::fs::copy(env!("CARGO_BIN_EXE_hookrig"), &copy).expect("copy");
    let output = hookrig_test_support::run_with_input(
        {
            let mut command = std::process::Command::new(&copy);
            command.args(["install", "claude"]);
            for (name, value) in env.command(["x"]).get_envs() {
                match value {
                    Some(value) => command.env(name, value),
                    None => command.env_remove(name),
                };
            }
            command.current_dir(env.project());
            command
        },
        b"",
        hookrig_test_support::HANG_LIMIT,
    );
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    std::fs::remove_file(&copy).expect("rm");
    let said = doctor(&env, false);
    assert!(said.contains("its program is gone"), "{said}");
}

// guards: a user who installed hookrig in both Claude Code and Cursor is told that
// Cursor's third-party hooks would call both of hookrig's entries
#[test]
fn cursor_doctor_names_the_claude_files_cursor_can_run_beside_hookrig() {
    let env = world();
    // Before hookrig is Cursor's hook, Claude Code's files are none of Cursor's business.
    write(
        &project_path(&env, &CLAUDE),
        &(CLAUDE.settings)(&counter_hook(&env, "project")),
    );
    ok(&env, &["install", "claude"]);
    let said = doctor(&env, false);
    assert!(!said.contains("third-party"), "{said}");

    ok(&env, &["install", "cursor"]);
    let said = doctor(&env, false);
    let cursor = said.split("Cursor (found").nth(1).expect("Cursor's part");
    // hookrig's own Claude Code entry, which Cursor would call beside hookrig's Cursor
    // entry.
    assert!(
        cursor.contains(
            "[TMP]/home/.claude/settings.json: hookrig is Claude Code's hook here too, and with \
             Cursor's third-party hooks turned on (Cursor Settings → Rules, Skills, Subagents → \
             Include third-party Plugins, Skills, and other configs) Cursor calls this entry \
             beside hookrig's Cursor entry, so that every hook would run twice; turn that \
             setting off, or run `hookrig uninstall claude` if you do not use Claude Code"
        ),
        "{cursor}"
    );
    // A Claude Code file Cursor would run itself, whose hooks hookrig runs too.
    assert!(
        cursor.contains(
            "[TMP]/project/.claude/settings.json: with Cursor's third-party hooks turned on"
        ),
        "{cursor}"
    );
    // The sidecar install moved the user's hooks into is read by hookrig alone.
    assert!(!cursor.contains("settings.hookrig.json"), "{cursor}");
}

#[test]
fn cursor_user_install_round_trip() {
    user_install_round_trip(&CURSOR);
}

#[test]
fn cursor_hooks_added_after_install() {
    hooks_added_after_install(&CURSOR, |installed, hook| {
        installed.replacen(
            "\"beforeShellExecution\": [",
            &format!(
                "\"beforeShellExecution\": [{{\"command\": {}}}, ",
                json!(hook)
            ),
            1,
        )
    });
}

#[test]
fn cursor_unparsable_file_is_refused() {
    unparsable_file_is_refused(&CURSOR);
}

#[test]
fn cursor_project_install_is_untrusted_until_trust() {
    project_install_is_untrusted_until_trust(&CURSOR);
}

#[test]
fn cursor_trust_carries_over() {
    trust_carries_over(&CURSOR);
}

#[test]
fn cursor_shipped_sidecar_is_untrusted() {
    a_shipped_sidecar_is_untrusted(&CURSOR);
}

#[test]
fn http_is_refused_for_hosts_whose_hooks_are_commands() {
    let env = world();
    let hosts: &[&str] = &["codex", "gemini", "cursor"];
    for host in hosts {
        let output = env.run(["install", host, "--http"], b"");
        assert_eq!(code(&output), 1);
        assert!(
            text(&output.stderr).contains("--http is for Claude Code only"),
            "{}",
            text(&output.stderr)
        );
        assert!(!env.home().join(format!(".{host}")).exists());
    }
}

#[test]
fn gemini_user_install_round_trip() {
    user_install_round_trip(&GEMINI);
}

#[test]
fn gemini_hooks_added_after_install() {
    hooks_added_after_install(&GEMINI, |installed, hook| {
        installed.replacen(
            "\"BeforeTool\": [",
            &format!(
                "\"BeforeTool\": [{{\"matcher\": \"run_shell_command\", \"hooks\": [{{\"type\": \"command\", \"command\": {}}}]}}, ",
                json!(hook)
            ),
            1,
        )
    });
}

#[test]
fn gemini_unparsable_file_is_refused() {
    unparsable_file_is_refused(&GEMINI);
}

#[test]
fn gemini_project_install_is_untrusted_until_trust() {
    project_install_is_untrusted_until_trust(&GEMINI);
}

#[test]
fn gemini_trust_carries_over() {
    trust_carries_over(&GEMINI);
}

#[test]
fn gemini_shipped_sidecar_is_untrusted() {
    a_shipped_sidecar_is_untrusted(&GEMINI);
}

#[test]
fn codex_user_install_round_trip() {
    user_install_round_trip(&CODEX);
}

#[test]
fn codex_hooks_added_after_install() {
    hooks_added_after_install(&CODEX, |installed, hook| {
        installed.replacen(
            "\"PreToolUse\": [",
            &format!(
                "\"PreToolUse\": [{{\"matcher\": \"Bash\", \"hooks\": [{{\"type\": \"command\", \"command\": {}}}]}}, ",
                json!(hook)
            ),
            1,
        )
    });
}

#[test]
fn codex_unparsable_file_is_refused() {
    unparsable_file_is_refused(&CODEX);
}

#[test]
fn codex_project_install_is_untrusted_until_trust() {
    project_install_is_untrusted_until_trust(&CODEX);
}

#[test]
fn codex_trust_carries_over() {
    trust_carries_over(&CODEX);
}

#[test]
fn codex_shipped_sidecar_is_untrusted() {
    a_shipped_sidecar_is_untrusted(&CODEX);
}

#[test]
fn codex_config_toml_hooks_move_and_the_rest_stays() {
    let env = world();
    let path = env.home().join(".codex/config.toml");
    let original = format!(
        "# Codex settings\nmodel = \"o3\" # the model\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = {}\n\n[hooks.state.\"x:pre_tool_use:0:0\"]\nenabled = true\n\n[features]\nhooks = true\n",
        json!(counter_hook(&env, "toml"))
    );
    write(&path, &original);

    let said = ok(&env, &["install", "codex"]);
    let file = read(&path).expect("config.toml");
    let side = read(&path.with_file_name("config.hookrig.toml")).expect("sidecar");
    let hooks = read(&env.home().join(".codex/hooks.json")).expect("hooks.json");
    assert!(
        hooks.contains("\"hookrig emit --dialect codex\""),
        "{hooks}"
    );
    insta::assert_snapshot!(
        "codex_config_toml",
        format!(
            "--- output\n{said}--- config.toml\n{file}--- config.hookrig.toml\n{}",
            env.redact(&side)
        )
    );
    fire(&env, &CODEX);
    assert_eq!(runs(&env, "toml"), 1);

    // Idempotent: nothing new, nothing written.
    let again = ok(&env, &["install", "codex"]);
    assert_eq!(read(&path).as_deref(), Some(file.as_str()), "{again}");

    ok(&env, &["uninstall", "codex"]);
    assert_eq!(read(&path).as_deref(), Some(original.as_str()));
    assert!(!path.with_file_name("config.hookrig.toml").exists());
    assert!(
        !env.home().join(".codex/hooks.json").exists() || {
            let left = read(&env.home().join(".codex/hooks.json")).expect("hooks.json");
            !left.contains("emit --dialect")
        }
    );

    // A config.toml that does not parse is refused with its place, and nothing changes.
    write(&path, "model = \"o3\"\n[hooks\n");
    let output = env.run(["install", "codex"], b"");
    assert_eq!(code(&output), 1);
    let stderr = env.redact(&text(&output.stderr));
    assert!(
        stderr.contains("[TMP]/home/.codex/config.toml:2:"),
        "{stderr}"
    );
    assert!(!path.with_file_name("config.hookrig.toml").exists());
}

#[test]
fn http_entries_post_to_the_engine_with_the_token_from_the_environment() {
    let env = world();
    let path = user_path(&env, &CLAUDE);
    write(&path, &(CLAUDE.settings)(&counter_hook(&env, "guard")));
    let said = ok(&env, &["install", "claude", "--http"]);
    assert!(said.contains("HOOKRIG_TOKEN"), "{said}");
    let file: Value = serde_json::from_str(&read(&path).expect("file")).expect("json");
    insta::assert_json_snapshot!("claude_http_entry", file["hooks"]["PreToolUse"]);
    let text = read(&path).expect("file");
    // Every Claude Code event but `WorktreeCreate` and `WorktreeRemove`, which have no
    // hook to run here.
    assert_eq!(text.matches("127.0.0.1:7700/emit/").count(), 31, "{text}");

    // hookrig never posts to itself: the HTTP entry is not a hook it runs, and the
    // moved hook runs once.
    fire(&env, &CLAUDE);
    assert_eq!(runs(&env, "guard"), 1);

    // Another address, and back to a command: the entries are replaced, nothing moves.
    let said = ok(&env, &["install", "claude", "--http", "127.0.0.1:9999"]);
    assert!(!said.contains("moved"), "{said}");
    assert!(
        read(&path)
            .expect("file")
            .contains("127.0.0.1:9999/emit/PreToolUse?dialect=claude")
    );
    ok(&env, &["install", "claude"]);
    let text = read(&path).expect("file");
    assert!(!text.contains("http://"), "{text}");
    assert!(text.contains("hookrig emit --dialect claude"), "{text}");
    assert_eq!(runs(&env, "guard"), 1);
}

/// A hooks file as JSON, its comments (Gemini CLI's: whole lines, and `/* */` blocks
/// that hold no quote) left out.
fn parsed(text: &str) -> Value {
    let mut text = text.to_owned();
    while let Some(start) = text.find("/*") {
        let Some(end) = text[start..].find("*/") else {
            break;
        };
        text.replace_range(start..start + end + 2, "");
    }
    let json: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::from_str(&json).expect("json")
}

/// A hooks file as JSON with every `timeout` taken out.
fn without_timeouts(text: &str) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.remove("timeout");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut value = parsed(text);
    strip(&mut value);
    value
}

/// The `timeout` of hookrig's entry of `event` in a grouped hooks file.
fn installed_timeout(path: &Path, event: &str) -> Option<Value> {
    let value = parsed(&read(path).expect("the file"));
    let handler = &value["hooks"][event][0]["hooks"][0];
    assert!(
        handler["command"]
            .as_str()
            .is_some_and(|c| c.contains("emit")),
        "{handler}"
    );
    handler.get("timeout").cloned()
}

#[test]
fn gemini_entry_outlasts_a_moved_hook_with_a_long_timeout() {
    let env = world();
    let path = user_path(&env, &GEMINI);
    let original = (GEMINI.settings)(&counter_hook(&env, "guard")).replace("5000", "120000");
    write(&path, &original);

    ok(&env, &["install", "gemini"]);
    // Gemini CLI would stop hookrig at its 60000 ms default, before the hook's 120000 ms.
    assert_eq!(installed_timeout(&path, "BeforeTool"), Some(json!(125_000)));
    // Events with no hook of their own keep Gemini CLI's default.
    assert_eq!(installed_timeout(&path, "AfterTool"), None);
    fire(&env, &GEMINI);
    assert_eq!(runs(&env, "guard"), 1);

    let installed = read(&path).expect("file");
    let said = ok(&env, &["install", "gemini"]);
    assert!(said.contains("unchanged"), "{said}");
    assert_eq!(read(&path).as_deref(), Some(installed.as_str()));

    ok(&env, &["uninstall", "gemini"]);
    assert_eq!(read(&path).as_deref(), Some(original.as_str()));
}

#[test]
fn codex_entry_counts_the_hooks_of_config_toml() {
    let env = world();
    let dir = env.home().join(".codex");
    let config = dir.join("config.toml");
    let original = "model = \"gpt-5\"\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"true\"\ntimeout = 900\n";
    write(&config, original);

    ok(&env, &["install", "codex"]);
    let hooks = dir.join("hooks.json");
    // The entry in hooks.json runs config.toml's hook too: 900 s and a 5 s margin.
    assert_eq!(installed_timeout(&hooks, "Stop"), Some(json!(905)));
    assert_eq!(installed_timeout(&hooks, "PreToolUse"), None);
    let installed = read(&hooks).expect("file");
    let said = ok(&env, &["install", "codex"]);
    assert!(said.contains("unchanged"), "{said}");
    assert_eq!(read(&hooks).as_deref(), Some(installed.as_str()));

    ok(&env, &["uninstall", "codex"]);
    assert_eq!(read(&config).as_deref(), Some(original));
}

#[test]
fn a_hook_turned_off_in_codex_stays_off_once_moved() {
    let env = world();
    let path = user_path(&env, &CODEX);
    let dir = path.parent().expect("a parent").to_owned();
    let original = (CODEX.settings)(&counter_hook(&env, "guard"));
    write(&path, &original);
    // The guard turned off in Codex (`/hooks`), by its place in hooks.json, and a hook of
    // config.toml turned off the same way.
    let config = dir.join("config.toml");
    let config_text = format!(
        "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = {}\n\n[hooks.state.\"{}:pre_tool_use:0:0\"]\nenabled = false\n\n[hooks.state.\"{}:pre_tool_use:0:0\"]\nenabled = false\n",
        json!(counter_hook(&env, "other")),
        path.display(),
        config.display()
    );
    write(&config, &config_text);
    fire(&env, &CODEX);
    assert_eq!((runs(&env, "guard"), runs(&env, "other")), (0, 0));

    ok(&env, &["install", "codex"]);
    let side: Value =
        serde_json::from_str(&read(&sidecar(&path, &CODEX)).expect("sidecar")).expect("json");
    assert_eq!(
        side["hooks"]["PreToolUse"][0]["hooks"][0]["enabled"],
        json!(false)
    );
    let side_toml = read(&dir.join("config.hookrig.toml")).expect("toml sidecar");
    assert!(side_toml.contains("enabled = false"), "{side_toml}");
    // Still off: hookrig lists them and runs neither.
    fire(&env, &CODEX);
    assert_eq!((runs(&env, "guard"), runs(&env, "other")), (0, 0));
    // Installing again changes nothing.
    let said = ok(&env, &["install", "codex"]);
    assert!(said.contains("unchanged"), "{said}");

    // Uninstall: both files as they were, the state in Codex's keys again.
    ok(&env, &["uninstall", "codex"]);
    assert_eq!(read(&path).as_deref(), Some(original.as_str()));
    assert_eq!(read(&config).as_deref(), Some(config_text.as_str()));
}

#[test]
fn claude_project_install_moves_the_hooks_of_settings_local_json() {
    let env = world();
    let settings = project_path(&env, &CLAUDE);
    let local = settings.with_file_name("settings.local.json");
    let local_sidecar = settings.with_file_name("settings.local.hookrig.json");
    let shared = (CLAUDE.settings)(&counter_hook(&env, "guard"));
    let mine = (CLAUDE.settings)(&counter_hook(&env, "mine"));
    write(&settings, &shared);
    write(&local, &mine);
    // Both files trusted as they are: their moved hooks stay trusted.
    assert_eq!(code(&env.run_untrusted(["trust"], b"")), 0);

    let output = env.run_untrusted(["install", "claude", "--project"], b"");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let said = text(&output.stdout);
    assert!(said.contains("stay trusted"), "{said}");
    // The local file's hooks moved out; it gets no entry of hookrig (settings.json has
    // them), and its other settings stay.
    let local_now = read(&local).expect("local file");
    assert!(!local_now.contains("emit --dialect"), "{local_now}");
    assert!(!local_now.contains("mine.sh"), "{local_now}");
    assert!(local_now.contains("\"model\": \"opus\""), "{local_now}");
    assert!(
        read(&local_sidecar).is_some_and(|s| s.contains("mine.sh")),
        "the sidecar"
    );
    // hookrig runs each once, the local one at the local layer.
    let input = (CLAUDE.input)(&env.project()).to_string();
    emit_untrusted(&env, &["--dialect", "claude"], &input);
    assert_eq!((runs(&env, "guard"), runs(&env, "mine")), (1, 1));
    let list = text(&env.run_untrusted(["list"], b"").stdout);
    assert!(list.contains("claude:local:PreToolUse:1"), "{list}");
    // Installing again changes nothing.
    let output = env.run_untrusted(["install", "claude", "--project"], b"");
    assert!(
        text(&output.stdout).contains("unchanged"),
        "{}",
        text(&output.stdout)
    );

    let output = env.run_untrusted(["uninstall", "claude", "--project"], b"");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(read(&settings).as_deref(), Some(shared.as_str()));
    assert_eq!(read(&local).as_deref(), Some(mine.as_str()));
    assert!(!local_sidecar.exists());
}

#[test]
fn a_shipped_settings_local_sidecar_is_untrusted() {
    let env = world();
    let settings = project_path(&env, &CLAUDE);
    write(
        &settings.with_file_name("settings.local.hookrig.json"),
        &(CLAUDE.settings)(&counter_hook(&env, "shipped")),
    );
    let input = (CLAUDE.input)(&env.project()).to_string();
    emit_untrusted(&env, &["--dialect", "claude"], &input);
    assert_eq!(runs(&env, "shipped"), 0);
    assert_eq!(code(&env.run_untrusted(["trust"], b"")), 0);
    emit_untrusted(&env, &["--dialect", "claude"], &input);
    assert_eq!(runs(&env, "shipped"), 1);
}

#[test]
fn hookrigs_codex_entry_is_under_no_state_key_of_the_hook_that_was_there() {
    // guards: Codex keys `[hooks.state]` by file and place; the first hook of
    // PreToolUse, turned off in Codex, must not turn off hookrig's entry that takes its
    // place, and uninstall gives Codex's keys back byte for byte
    let env = world();
    let path = user_path(&env, &CODEX);
    let dir = path.parent().expect("a parent").to_owned();
    let original = format!(
        "{{\"hooks\": {{\"PreToolUse\": [\n  {{\"matcher\": \"Bash\", \"hooks\": [{{\"type\": \"command\", \"command\": {}}}]}},\n  {{\"hooks\": [{{\"type\": \"command\", \"command\": {}}}]}}\n]}}}}\n",
        json!(counter_hook(&env, "guard")),
        json!(counter_hook(&env, "other")),
    );
    write(&path, &original);
    let config = dir.join("config.toml");
    let config_text = format!(
        "# my Codex settings\nmodel = \"gpt-5\"\n\n[features]\nhooks = true\n\n[hooks.state.\"{}:pre_tool_use:0:0\"]\nenabled = false\ntrusted_hash = \"sha256:guard\"\n\n[hooks.state.\"{}:pre_tool_use:1:0\"]\ntrusted_hash = \"sha256:other\"\n",
        path.display(),
        path.display(),
    );
    write(&config, &config_text);
    fire(&env, &CODEX);
    assert_eq!((runs(&env, "guard"), runs(&env, "other")), (0, 1));

    let said = ok(&env, &["install", "codex"]);
    assert!(said.contains("config.toml: updated"), "{said}");
    let now = read(&config).expect("config.toml");
    let places: Vec<String> = [
        "pre_tool_use",
        "permission_request",
        "post_tool_use",
        "stop",
    ]
    .iter()
    .map(|event| format!("{}:{event}:0:0", path.display()))
    .collect();
    for place in &places {
        assert!(!now.contains(place.as_str()), "{place} in {now}");
    }
    assert!(now.contains(":pre_tool_use:1:0"), "{now}");
    assert!(now.starts_with("# my Codex settings\n"), "{now}");
    let kept = read(&dir.join("config.hookrig.toml")).expect("kept in the sidecar");
    assert!(kept.contains(&places[0]), "{kept}");
    // The turned-off guard stays off through hookrig; the other hook runs.
    fire(&env, &CODEX);
    assert_eq!((runs(&env, "guard"), runs(&env, "other")), (0, 2));

    let said = ok(&env, &["install", "codex"]);
    assert!(!said.contains("updated"), "{said}");
    assert_eq!(read(&config).as_deref(), Some(now.as_str()));

    ok(&env, &["uninstall", "codex"]);
    assert_eq!(read(&config).as_deref(), Some(config_text.as_str()));
    assert_eq!(read(&path).as_deref(), Some(original.as_str()));
    assert!(!dir.join("config.hookrig.toml").exists());
    assert!(!backup(&config).exists());
    fire(&env, &CODEX);
    assert_eq!((runs(&env, "guard"), runs(&env, "other")), (0, 3));
}

#[test]
fn a_codex_config_toml_that_does_not_parse_is_refused_with_its_place() {
    let env = world();
    let path = user_path(&env, &CODEX);
    let original = (CODEX.settings)(&counter_hook(&env, "guard"));
    write(&path, &original);
    let config = path.with_file_name("config.toml");
    let broken = "model = \"gpt-5\"\n[hooks.state.\"x\"\nenabled = false\n";
    write(&config, broken);
    for args in [
        ["install", "codex", "--user"],
        ["install", "codex", "--project"],
    ] {
        let output = env.run(args, b"");
        assert_eq!(code(&output), 1, "{args:?}");
        let stderr = env.redact(&text(&output.stderr));
        assert!(
            stderr.contains("[TMP]/home/.codex/config.toml:2:"),
            "{args:?}: {stderr}"
        );
    }
    assert_eq!(read(&config).as_deref(), Some(broken));
    assert_eq!(read(&path).as_deref(), Some(original.as_str()));
    assert!(!project_path(&env, &CODEX).exists(), "nothing written");
}

/// Runs hookrig with `args` and `stdin` in `dir`, project hooks trusted.
fn run_in(env: &TestEnv, dir: &Path, args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut command = env.command(args);
    command.current_dir(dir);
    hookrig_test_support::run_with_input(command, stdin, hookrig_test_support::HANG_LIMIT)
}

/// A project install run from `sub/` edits the project file `at/HOST_FILE` (the one the
/// host reads, and hookrig's loader with it), and an emit from `sub/` runs the moved hook
/// once; uninstall from there puts it back.
fn project_install_from_a_subdirectory(host: &Host, at: &str) {
    let env = world();
    let sub = env.project().join("sub");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let path = env.project().join(at).join(host.project_file);
    let original = (host.settings)(&counter_hook(&env, "guard"));
    write(&path, &original);

    let output = run_in(&env, &sub, &["install", host.name, "--project"], b"");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let file = read(&path).expect("the file");
    assert!(file.contains("emit --dialect"), "{file}");
    assert!(sidecar(&path, host).exists());
    for other in [env.project(), sub.clone()] {
        let elsewhere = other.join(host.project_file);
        assert!(
            elsewhere == path || !elsewhere.exists(),
            "{} written",
            elsewhere.display()
        );
    }

    let input = (host.input)(&sub).to_string();
    let output = run_in(
        &env,
        &sub,
        &["emit", "--dialect", host.name],
        input.as_bytes(),
    );
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(runs(&env, "guard"), 1, "{}", text(&output.stderr));

    let output = run_in(&env, &sub, &["uninstall", host.name, "--project"], b"");
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    assert_eq!(read(&path).as_deref(), Some(original.as_str()));
}

#[test]
fn claude_project_install_from_a_subdirectory_edits_the_settings_the_loader_reads() {
    // guards: the nearest `.claude/` with settings, as the loader finds it
    project_install_from_a_subdirectory(&CLAUDE, "sub");
}

#[test]
fn claude_project_install_from_a_subdirectory_finds_the_roots_settings() {
    project_install_from_a_subdirectory(&CLAUDE, "");
}

#[test]
fn cursor_project_install_from_a_subdirectory_edits_the_hooks_the_loader_reads() {
    project_install_from_a_subdirectory(&CURSOR, "sub");
    project_install_from_a_subdirectory(&CURSOR, "");
}

#[test]
fn gemini_project_install_edits_the_working_directorys_settings() {
    // guards: Gemini CLI reads `.gemini/settings.json` of the directory it runs in, not
    // of the repository root
    project_install_from_a_subdirectory(&GEMINI, "sub");
}

#[test]
fn codex_project_install_from_a_subdirectory_edits_the_repository_roots_files() {
    // guards: Codex reads the `.codex/` of every directory from the repository root
    // down; install writes the root's, which an emit from a subdirectory reads
    project_install_from_a_subdirectory(&CODEX, "");
}
