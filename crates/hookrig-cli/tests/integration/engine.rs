//! The resident engine: `hookrig emit` handing its call to a running `hookrig serve`.
//! Every vector is emitted both ways (in-process with `HOOKRIG_ENGINE=off`, and through
//! the engine) and must answer byte for byte the same; hooks run with the client's
//! environment and directory; an engine that is gone never fails an emit.

use std::os::unix::fs::PermissionsExt as _;
use std::process::Output;

use hookrig_test_support::TestEnv;
use nix::sys::signal::{Signal, kill};

use crate::harness::{code, test_env, text};
use crate::serve::{Serve, wait_for};

/// `hookrig emit ARGS` with `payload`, through the engine when `engine` is true (a
/// serve must run), else in-process; `vars` are set for the client.
fn emit_via(
    env: &TestEnv,
    engine: bool,
    args: &[&str],
    payload: &str,
    vars: &[(&str, &str)],
) -> Output {
    let mut command = env.command(std::iter::once("emit").chain(args.iter().copied()));
    command.env("HOOKRIG_ENGINE", if engine { "on" } else { "off" });
    for (name, value) in vars {
        command.env(name, value);
    }
    hookrig_test_support::run_with_input(
        command,
        payload.as_bytes(),
        hookrig_test_support::HANG_LIMIT,
    )
}

/// stdout with what differs between two runs of one emit (its run id, durations)
/// replaced.
fn stable(stdout: &str) -> String {
    let run_id = regex_lite(stdout, "\"run_id\":\"", '"');
    let mut text = stdout.to_owned();
    for id in run_id {
        text = text.replace(&id, "RUN");
    }
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("\"duration_ms\":") {
        let (head, tail) = rest.split_at(at + "\"duration_ms\":".len());
        out.push_str(head);
        out.push('0');
        rest = tail.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    }
    out.push_str(rest);
    out
}

/// Every value after `prefix` up to `end`.
fn regex_lite(text: &str, prefix: &str, end: char) -> Vec<String> {
    text.match_indices(prefix)
        .filter_map(|(at, _)| {
            let rest = &text[at + prefix.len()..];
            rest.find(end).map(|stop| rest[..stop].to_owned())
        })
        .collect()
}

const CONFIG: &str = r#"
[[hooks]]
name = "guard"
events = ["tool.before"]
command = 'if grep -q "rm -rf"; then echo "no rm -rf" >&2; exit 2; fi'

[[hooks]]
name = "fixer"
events = ["tool.before"]
priority = 200
command = '''echo '{"decision":"modify","payload":{"tool":{"input":{"command":"ls -la"}}},"context":"fixed"}' '''

[[hooks]]
name = "parent"
events = ["tool.before", "session.start"]
priority = 300
command = 'echo "$PPID" >> "$HOOKRIG_TEST_PARENTS"; echo "{\"context\":\"var=$CLIENT_VAR cwd=$(pwd)\"}"'
"#;

const CLAUDE: &str = r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"claude says no\"}}'"}]}]}}"#;

#[test]
fn the_engine_answers_byte_for_byte_as_an_in_process_emit() {
    // guards: an emit answered by the engine that differs from the in-process answer
    // (a host would then act differently depending on whether serve runs)
    let env = test_env();
    let parents = env.root().join("parents");
    env.write_global_config(CONFIG);
    env.write_file(".claude/settings.json", CLAUDE);
    let project = env.project();
    let project = project.to_str().expect("UTF-8");
    let vectors: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["tool.before"],
            r#"{"tool":{"name":"bash","input":{"command":"ls"}}}"#.to_owned(),
        ),
        (
            vec!["PreToolUse"],
            r#"{"tool":{"name":"bash","input":{"command":"rm -rf /"}}}"#.to_owned(),
        ),
        (vec!["SessionStart"], "{}".to_owned()),
        (vec!["tool.before", "--no-hooks"], "{}".to_owned()),
        (vec!["tool.before@v2"], "{}".to_owned()),
        (vec!["tool.before"], "not json".to_owned()),
        (vec!["tool.before"], "[1]".to_owned()),
        (vec![], "{}".to_owned()),
        (
            vec!["--dialect", "claude"],
            format!(
                r#"{{"hook_event_name":"PreToolUse","session_id":"s","cwd":"{project}","tool_name":"Bash","tool_input":{{"command":"ls"}}}}"#
            ),
        ),
        (vec!["--dialect", "claude"], "garbage".to_owned()),
        (
            vec!["--dialect", "hygge", "pre_tool"],
            r#"{"tool":{"name":"bash","input":{"command":"rm -rf /"}}}"#.to_owned(),
        ),
        (vec!["--dialect", "hygge", "pre_tool"], "garbage".to_owned()),
        (
            vec!["--dialect", "xcode", "PreToolUse"],
            r#"{"tool":{"name":"bash","input":{"command":"ls"}}}"#.to_owned(),
        ),
        (
            vec!["tool.before", "--cwd", "/no/such/dir"],
            "{}".to_owned(),
        ),
    ];
    let vars = [
        ("HOOKRIG_TEST_PARENTS", parents.to_str().expect("UTF-8")),
        ("CLIENT_VAR", "from-the-client"),
    ];
    let in_process: Vec<Output> = vectors
        .iter()
        .map(|(args, payload)| emit_via(&env, false, args, payload, &vars))
        .collect();
    let serve = Serve::start(&env);
    let serve_pid = serve.pid().to_string();
    std::fs::remove_file(&parents).expect("the hooks ran in-process");
    for ((args, payload), expected) in vectors.iter().zip(&in_process) {
        let through = emit_via(&env, true, args, payload, &vars);
        assert_eq!(
            code(&through),
            code(expected),
            "{args:?} {payload}: exit code"
        );
        assert_eq!(
            stable(&text(&through.stdout)),
            stable(&text(&expected.stdout)),
            "{args:?} {payload}: stdout"
        );
        assert_eq!(
            text(&through.stderr),
            text(&expected.stderr),
            "{args:?} {payload}: stderr"
        );
    }
    // The hooks of the second round ran in the engine, not in the clients.
    let parents = std::fs::read_to_string(&parents).expect("the hooks ran");
    assert!(!parents.is_empty());
    assert!(
        parents.lines().all(|pid| pid == serve_pid),
        "hooks run by {parents:?}, the engine is {serve_pid}"
    );
    // The ledger says which emits the engine answered.
    let runs = crate::harness::hookrig(&env, &["runs", "--json", "--limit", "100"]);
    let runs: serde_json::Value = serde_json::from_slice(&runs.stdout).expect("runs JSON");
    let last = runs[0]["run_id"].as_str().expect("a run id").to_owned();
    let first = runs.as_array().expect("runs").last().expect("a run")["run_id"]
        .as_str()
        .expect("a run id")
        .to_owned();
    let why = |run: &str| text(&crate::harness::hookrig(&env, &["why", run]).stdout);
    assert!(
        why(&last).contains("answered  by the engine"),
        "{}",
        why(&last)
    );
    assert!(
        !why(&first).contains("answered  by the engine"),
        "{}",
        why(&first)
    );
    serve.stop_cleanly();
}

#[test]
fn hooks_in_the_engine_get_the_clients_environment_and_directory() {
    let env = test_env();
    let parents = env.root().join("parents");
    env.write_global_config(CONFIG);
    let serve = Serve::start(&env);
    let sub = env.project().join("sub");
    std::fs::create_dir_all(&sub).expect("sub");
    let mut command = env.command(["emit", "session.start"]);
    command
        .env("HOOKRIG_ENGINE", "on")
        .current_dir(&sub)
        .env("HOOKRIG_TEST_PARENTS", &parents)
        .env("CLIENT_VAR", "only-in-this-client");
    let output =
        hookrig_test_support::run_with_input(command, b"{}", hookrig_test_support::HANG_LIMIT);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let outcome: serde_json::Value = serde_json::from_slice(&output.stdout).expect("Outcome");
    assert_eq!(
        outcome["context"][0],
        format!("var=only-in-this-client cwd={}", sub.display())
    );
    assert_eq!(
        std::fs::read_to_string(&parents).expect("ran").trim(),
        serve.pid().to_string(),
        "the hook ran in the engine"
    );
    drop(serve);
}

#[test]
fn an_engine_that_is_gone_never_fails_an_emit() {
    let env = test_env();
    env.write_global_config(CONFIG);
    let serve = Serve::start(&env);
    let payload = r#"{"tool":{"name":"bash","input":{"command":"rm -rf /"}}}"#;
    let vars = [("HOOKRIG_TEST_PARENTS", "/dev/null")];
    let through = emit_via(&env, true, &["tool.before"], payload, &vars);
    assert_eq!(code(&through), 2);

    // SIGKILL: the socket file stays behind, with nobody listening.
    kill(serve.pid(), Signal::SIGKILL).expect("kill serve");
    wait_for("serve to die", || {
        hookrig_test_support::is_alive(serve.pid().as_raw())
            .then_some(())
            .xor(Some(()))
    });
    assert!(env.serve_socket().exists());
    let after = emit_via(&env, true, &["tool.before"], payload, &vars);
    assert_eq!(code(&after), 2, "{}", text(&after.stderr));
    assert!(text(&after.stdout).contains("no rm -rf"));
    drop(serve);
}

#[test]
fn a_config_edited_between_two_emits_is_seen_by_the_engine() {
    let env = test_env();
    env.write_global_config("");
    let serve = Serve::start(&env);
    let payload = r#"{"tool":{"name":"bash","input":{"command":"rm -rf /"}}}"#;
    let vars = [("HOOKRIG_TEST_PARENTS", "/dev/null")];
    assert_eq!(
        code(&emit_via(&env, true, &["tool.before"], payload, &vars)),
        0
    );
    env.write_global_config(CONFIG);
    assert_eq!(
        code(&emit_via(&env, true, &["tool.before"], payload, &vars)),
        2
    );
    env.write_global_config("");
    assert_eq!(
        code(&emit_via(&env, true, &["tool.before"], payload, &vars)),
        0
    );
    drop(serve);
}

#[test]
fn the_engine_keeps_a_config_until_one_of_its_sources_changes() {
    // guards: unchanged sources are not read again (the cache is used), while a file
    // that appears where the load found none, a removed one, and a same-size rewrite
    // right after the previous write are each seen by the very next emit
    let env = test_env();
    let hook = |code: u8| {
        format!("[[hooks]]\nname = \"g\"\nevents = [\"tool.before\"]\ncommand = \"exit {code}\"\n")
    };
    env.write_global_config(&hook(0));
    // Old enough to be kept (a load of files written just now is read again next time).
    std::thread::sleep(std::time::Duration::from_millis(2300));
    let serve = Serve::start(&env);
    let emit = || code(&emit_via(&env, true, &["tool.before"], "{}", &[]));
    assert_eq!(emit(), 0);
    assert_eq!(emit(), 0);
    let cache = &engine_status(&env)["cache"];
    assert_eq!(cache["hits"], 1, "{cache}");
    assert!(cache["sources"].as_u64().unwrap_or(0) > 3, "{cache}");

    env.write_project_config(&hook(2));
    assert_eq!(emit(), 2, "a project file that was missing");
    std::fs::remove_file(env.project_config_path()).expect("rm");
    assert_eq!(emit(), 0, "a removed file");

    env.write_global_config(&hook(2));
    assert_eq!(emit(), 2);
    env.write_global_config(&hook(0));
    assert_eq!(emit(), 0, "a same-size rewrite within the same instant");
    drop(serve);
}

#[test]
fn a_project_hook_changed_after_trust_is_refused_by_the_engine_too() {
    let env = test_env();
    env.write_script(".hookrig/guard.sh", "exit 2");
    env.write_project_config(
        "[[hooks]]\nname = \"guard\"\nevents = [\"tool.before\"]\ncommand = \"./guard.sh\"\n",
    );
    let trust = env.untrusted_command(["trust"]).output().expect("trust");
    assert!(trust.status.success(), "{}", text(&trust.stderr));
    let serve = Serve::start(&env);
    let untrusted = |engine: bool| {
        let mut command = env.untrusted_command(["emit", "tool.before"]);
        command.env("HOOKRIG_ENGINE", if engine { "on" } else { "off" });
        hookrig_test_support::run_with_input(command, b"{}", hookrig_test_support::HANG_LIMIT)
    };
    assert_eq!(code(&untrusted(true)), 2, "trusted: the guard runs");
    env.write_script(".hookrig/guard.sh", "exit 0 # edited");
    for engine in [true, false] {
        let output = untrusted(engine);
        assert_eq!(code(&output), 0);
        let outcome: serde_json::Value = serde_json::from_slice(&output.stdout).expect("Outcome");
        assert_eq!(
            outcome["hooks"][0]["result"], "untrusted",
            "engine {engine}"
        );
    }
    drop(serve);
}

/// `hookrig engine ARGS` with the engine mode `mode`.
fn engine_cmd(env: &TestEnv, args: &[&str]) -> Output {
    let mut command = env.command(std::iter::once("engine").chain(args.iter().copied()));
    command.stdin(std::process::Stdio::null());
    command.output().expect("run hookrig engine")
}

#[test]
fn auto_starts_an_engine_for_the_next_emits_which_exits_when_idle() {
    // guards: with the default mode the first emit answers in-process and leaves an
    // engine for the next ones; the engine goes away by itself after its idle time
    let env = test_env();
    let parents = env.root().join("parents");
    env.write_global_config(CONFIG);
    let auto = |idle: &str| {
        let mut command = env.command(["emit", "session.start"]);
        command
            .env("HOOKRIG_ENGINE", "auto")
            .env("HOOKRIG_ENGINE_IDLE", idle)
            .env("HOOKRIG_TEST_PARENTS", &parents);
        hookrig_test_support::run_with_input(command, b"{}", hookrig_test_support::HANG_LIMIT)
    };
    assert_eq!(code(&engine_cmd(&env, &["status"])), 3, "none runs yet");
    let first = auto("2s");
    assert_eq!(code(&first), 0, "{}", text(&first.stderr));
    let status = wait_for("the engine started by auto", || {
        let out = engine_cmd(&env, &["status", "--json"]);
        (code(&out) == 0)
            .then(|| serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("status JSON"))
    });
    let engine_pid = status["pid"].to_string();
    let second = auto("2s");
    assert_eq!(code(&second), 0, "{}", text(&second.stderr));
    let parents = std::fs::read_to_string(&parents).expect("ran");
    let lines: Vec<&str> = parents.lines().collect();
    assert_eq!(lines.len(), 2, "{parents}");
    assert_ne!(lines[0], engine_pid, "the first emit ran in-process");
    assert_eq!(
        lines[1], engine_pid,
        "the second was answered by the engine"
    );
    // Idle for its 2 s: it exits by itself, and removes its socket.
    wait_for("the idle engine to exit", || {
        (code(&engine_cmd(&env, &["status"])) == 3).then_some(())
    });
    assert!(!env.serve_socket().exists());
}

#[test]
fn engine_start_status_and_stop() {
    let env = test_env();
    let started = engine_cmd(&env, &["start", "--idle", "30s"]);
    assert_eq!(code(&started), 0, "{}", text(&started.stderr));
    assert!(text(&started.stdout).starts_with("engine started (pid "));
    let again = engine_cmd(&env, &["start", "--idle", "30s"]);
    assert!(text(&again.stdout).starts_with("an engine already runs"));
    let status = engine_cmd(&env, &["status"]);
    assert_eq!(code(&status), 0);
    let status = text(&status.stdout);
    assert!(status.contains("answered   0"), "{status}");
    assert!(
        status.contains("ledger     0 records waiting, 0 batches committed"),
        "{status}"
    );
    assert!(status.contains(&env.serve_socket().display().to_string()));
    let stopped = engine_cmd(&env, &["stop"]);
    assert_eq!(code(&stopped), 0, "{}", text(&stopped.stderr));
    assert_eq!(text(&stopped.stdout), "engine stopped\n");
    assert_eq!(code(&engine_cmd(&env, &["status"])), 3);
    assert_eq!(
        text(&engine_cmd(&env, &["stop"]).stdout),
        format!("no engine runs (socket {})\n", env.serve_socket().display())
    );
}

/// One HTTP/1.1 request to `port` on 127.0.0.1: status, headers and body of the answer.
pub(crate) fn http(
    port: u16,
    target: &str,
    token: Option<&str>,
    body: &[u8],
) -> (u16, String, String) {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .expect("timeout");
    let auth = token.map_or_else(String::new, |t| format!("Authorization: Bearer {t}\r\n"));
    let head = format!(
        "POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("write head");
    // A server may answer (413) before reading a large body: ignore a reset then.
    let _ = stream.write_all(body);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    (status, head.to_owned(), body.to_owned())
}

#[test]
fn hosts_emit_over_http_with_the_token_and_get_the_dialects_answer() {
    let env = test_env();
    env.write_file(".claude/settings.json", CLAUDE);
    let serve = Serve::start_with(&env, env.command(["serve", "--http", "127.0.0.1:0"]));
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
    assert_eq!(token.len(), 64);
    let token_file = env.state_home().join("hookrig").join("http.token");
    assert_eq!(
        std::fs::metadata(&token_file)
            .expect("token file")
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
    let project = env.project();
    let input = format!(
        r#"{{"hook_event_name":"PreToolUse","session_id":"s","cwd":"{}","tool_name":"Bash","tool_input":{{"command":"ls"}}}}"#,
        project.display()
    );
    let runs_before = text(&crate::harness::hookrig(&env, &["runs", "--json"]).stdout);

    // guards: an HTTP emit without the token, or with another, runs nothing and is
    // recorded nowhere
    let (status, _, _) = http(
        port,
        "/emit/PreToolUse?dialect=claude",
        None,
        input.as_bytes(),
    );
    assert_eq!(status, 401);
    let (status, _, _) = http(
        port,
        "/emit/PreToolUse?dialect=claude",
        Some(&"0".repeat(64)),
        input.as_bytes(),
    );
    assert_eq!(status, 401);
    assert_eq!(
        text(&crate::harness::hookrig(&env, &["runs", "--json"]).stdout),
        runs_before
    );

    let (status, head, body) = http(
        port,
        "/emit/PreToolUse?dialect=claude",
        Some(&token),
        input.as_bytes(),
    );
    assert_eq!(status, 200, "{head}");
    assert!(
        head.to_ascii_lowercase().contains("x-hookrig-exit: 0"),
        "{head}"
    );
    let in_process = emit_via(&env, false, &["--dialect", "claude"], &input, &[]);
    assert_eq!(
        body,
        text(&in_process.stdout),
        "the same answer as hookrig emit"
    );
    assert!(body.contains("claude says no"), "{body}");

    let (status, _, body) = http(
        port,
        "/emit/PreToolUse?dialect=claude",
        Some(&token),
        b"garbage",
    );
    assert_eq!(status, 400);
    assert!(body.contains("stdin is not valid JSON"), "{body}");
    let (status, _, _) = http(port, "/emit/tool.before?dialect=cobol", Some(&token), b"{}");
    assert_eq!(status, 400);
    let huge = vec![b' '; 17 * 1024 * 1024];
    let (status, _, _) = http(port, "/emit/tool.before", Some(&token), &huge);
    assert_eq!(status, 413);
    serve.stop_cleanly();
}

/// The example worker helpers of this repository.
fn workers_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/workers")
        .canonicalize()
        .expect("examples/workers")
}

/// `hookrig emit tool.before` of `command` through the engine; its exit code and
/// Outcome.
fn tool_call(env: &TestEnv, command: &str) -> (i32, serde_json::Value) {
    let payload = serde_json::json!({"tool": {"name": "bash", "input": {"command": command}}});
    let output = emit_via(env, true, &["tool.before"], &payload.to_string(), &[]);
    let outcome = serde_json::from_slice(&output.stdout).unwrap_or(serde_json::Value::Null);
    (code(&output), outcome)
}

/// The engine's status.
fn engine_status(env: &TestEnv) -> serde_json::Value {
    serde_json::from_slice(&engine_cmd(env, &["status", "--json"]).stdout).expect("status JSON")
}

fn example_worker_answers_through_the_engine(program: &str, script: &str) {
    let env = test_env();
    let script = workers_dir().join(script);
    env.write_global_config(&format!(
        "[[hooks]]\nname = \"guard\"\nevents = [\"tool.before\"]\nexec = [\"{program}\", \"{}\"]\nworker = true\non_error = \"deny\"\n",
        script.display()
    ));
    let serve = Serve::start(&env);
    let (denied, outcome) = tool_call(&env, "rm -rf /");
    assert_eq!(denied, 2, "{outcome}");
    assert_eq!(outcome["reason"], "recursive forced removal is not allowed");
    for _ in 0..3 {
        assert_eq!(tool_call(&env, "ls").0, 0);
    }
    // A failure the worker reports goes through on_error, and the worker stays.
    let (crashed, outcome) = tool_call(&env, "crash");
    assert_eq!(crashed, 2, "on_error = deny: {outcome}");
    assert!(
        outcome["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("asked to crash")),
        "{outcome}"
    );
    let status = engine_status(&env);
    let worker = &status["workers"][0]["workers"][0];
    assert_eq!(worker["starts"], 1, "one process for every event: {status}");
    assert_eq!(worker["answered"], 5, "{status}");
    let pid = worker["pid"].as_u64().expect("a running worker");
    let (stopped, log) = serve.stop();
    assert!(stopped.success(), "{log}");
    assert!(
        !hookrig_test_support::is_alive(i32::try_from(pid).expect("pid")),
        "the worker outlived the engine"
    );
}

#[test]
fn the_python_worker_helper_answers_every_event_from_one_process() {
    if !crate::harness::tool_available("python3") {
        return;
    }
    example_worker_answers_through_the_engine("python3", "guard.py");
}

#[test]
fn the_node_worker_helper_answers_every_event_from_one_process() {
    if !crate::harness::tool_available("node") {
        return;
    }
    example_worker_answers_through_the_engine("node", "guard.js");
}

#[test]
fn broken_workers_answer_with_on_error_in_time_and_are_restarted() {
    // guards: a worker that hangs, crashes at every event, writes garbage or floods
    // its stdout must never hold an event past its timeout nor leave a process behind
    let env = test_env();
    let marker = env.marker().to_owned();
    let hook = |name: &str, body: &str| {
        format!(
            "[[hooks]]\nname = \"{name}\"\nevents = [\"tool.before\"]\nmatcher = \"^{name}$\"\ncommand = '''{body} # {marker}'''\nworker = true\ntimeout = \"1s\"\non_error = \"deny\"\n\n"
        )
    };
    let sleep = env.marked_sleep();
    let sleep = sleep.display();
    let config = [
        hook("hang", &format!("while read line; do {sleep} 1000; done")),
        hook("crash", "read line; exit 3"),
        hook("garbage", "while read line; do echo 'this is not JSON'; done"),
        hook("flood", "while read line; do head -c 2097152 /dev/zero | tr '\\0' x; echo; done"),
        hook("echo", "while read line; do id=$(printf '%s' \"$line\" | sed 's/^{\"id\":\\([0-9]*\\).*/\\1/'); echo \"{\\\"id\\\":$id}\"; done"),
    ]
    .concat();
    env.write_global_config(&config);
    let serve = Serve::start(&env);
    let call = |tool: &str| {
        let payload = serde_json::json!({"tool": {"name": tool}});
        let started = std::time::Instant::now();
        let output = emit_via(&env, true, &["tool.before"], &payload.to_string(), &[]);
        (code(&output), text(&output.stdout), started.elapsed())
    };
    for tool in ["hang", "crash", "garbage", "flood"] {
        for round in 0..2 {
            let (exit, stdout, took) = call(tool);
            assert_eq!(exit, 2, "{tool} round {round}: on_error = deny; {stdout}");
            assert!(
                took < std::time::Duration::from_secs(20),
                "{tool} held the event for {took:?}"
            );
        }
    }
    // A worker that follows the protocol answers, and keeps its one process.
    for _ in 0..3 {
        assert_eq!(call("echo").0, 0);
    }
    let status = engine_status(&env);
    let pools = status["workers"].as_array().expect("pools");
    let of = |name: &str| {
        pools
            .iter()
            .find(|p| p["hook"] == name)
            .unwrap_or_else(|| panic!("no pool {name}: {status}"))["workers"][0]
            .clone()
    };
    for tool in ["hang", "crash", "garbage", "flood"] {
        let worker = of(tool);
        assert!(worker["failures"].as_u64() >= Some(2), "{tool}: {worker}");
        assert!(worker["last_error"].is_string(), "{tool}: {worker}");
    }
    assert_eq!(of("echo")["starts"], 1);
    assert_eq!(of("echo")["answered"], 3);
    let (stopped, log) = serve.stop();
    assert!(stopped.success(), "{log}");
    wait_for("every worker to be gone", || {
        env.leftovers().is_empty().then_some(())
    });
}

#[test]
fn a_worker_hook_answers_in_process_too() {
    if !crate::harness::tool_available("python3") {
        return;
    }
    let env = test_env();
    env.write_global_config(&format!(
        "[[hooks]]\nname = \"guard\"\nevents = [\"tool.before\"]\nexec = [\"python3\", \"{}\"]\nworker = true\n",
        workers_dir().join("guard.py").display()
    ));
    let payload = r#"{"tool":{"name":"bash","input":{"command":"rm -rf /"}}}"#;
    let output = emit_via(&env, false, &["tool.before"], payload, &[]);
    assert_eq!(code(&output), 2, "{}", text(&output.stderr));
    assert!(env.leftovers().is_empty());
}

#[test]
fn debug_says_the_engine_answered_and_shows_its_hook_lines() {
    // guards: `--debug` must say which way an emit went, and the hook-run lines of an
    // emit the engine answered must reach the client that asked for them
    let env = test_env();
    env.write_global_config(CONFIG);
    let serve = Serve::start(&env);
    let payload = r#"{"tool":{"name":"bash","input":{"command":"ls"}}}"#;
    let vars = [("HOOKRIG_TEST_PARENTS", "/dev/null")];
    let debug = emit_via(&env, true, &["--debug", "tool.before"], payload, &vars);
    let stderr = text(&debug.stderr);
    assert!(stderr.contains("emit answered by the engine"), "{stderr}");
    assert!(
        stderr.contains("hooks.exec-ran guard tool.before"),
        "{stderr}"
    );
    let hooks = emit_via(
        &env,
        true,
        &["--debug-hooks", "tool.before"],
        payload,
        &vars,
    );
    let stderr = text(&hooks.stderr);
    assert!(stderr.lines().all(|l| l.starts_with("hooks.")), "{stderr}");
    assert!(
        stderr.contains("hooks.exec-ran fixer tool.before"),
        "{stderr}"
    );
    let off = emit_via(&env, false, &["--debug", "tool.before"], payload, &vars);
    assert!(text(&off.stderr).contains("emit runs in-process: HOOKRIG_ENGINE=off"));
    drop(serve);
}

#[test]
fn hooks_of_an_engine_killed_with_sigkill_do_not_outlive_it() {
    // guards: hooks the engine starts without PR_SET_PDEATHSIG are killed by its
    // guardian when the engine is killed in a way it cannot handle
    let env = test_env();
    let sleep = env.marked_sleep();
    env.write_global_config(&format!(
        "[[hooks]]\nname = \"slow\"\nevents = [\"tool.before\"]\ncommand = \"'{}' 300\"\ntimeout = \"0s\"\n",
        sleep.display()
    ));
    let serve = Serve::start(&env);
    let mut command = env.command(["emit", "tool.before"]);
    command
        .env("HOOKRIG_ENGINE", "on")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut client = command.spawn().expect("start the client");
    wait_for("the hook to run", || {
        (!env.leftovers().is_empty()).then_some(())
    });
    // The client first: one that loses its engine mid-emit answers in-process, and
    // would run the hook again.
    let _ = client.kill();
    let _ = client.wait();
    kill(serve.pid(), Signal::SIGKILL).expect("kill the engine");
    wait_for("the hook to be killed with its engine", || {
        env.leftovers().is_empty().then_some(())
    });
    drop(serve);
}

#[test]
fn the_users_settings_choose_the_engine_mode_and_the_environment_wins() {
    // guards: `[settings] engine` of the user's own hooks.toml decides (HOOKRIG_ENGINE
    // over it), and a mistake there is reported by validate
    let env = test_env();
    let parents = env.root().join("parents");
    env.write_global_config(&format!("[settings]\nengine = \"off\"\n{CONFIG}"));
    let serve = Serve::start(&env);
    let unset = |vars: &[(&str, &str)]| {
        let mut command = env.command(["emit", "session.start"]);
        command
            .env_remove("HOOKRIG_ENGINE")
            .env("HOOKRIG_TEST_PARENTS", &parents);
        for (name, value) in vars {
            command.env(name, value);
        }
        hookrig_test_support::run_with_input(command, b"{}", hookrig_test_support::HANG_LIMIT)
    };
    assert_eq!(code(&unset(&[])), 0);
    assert_eq!(code(&unset(&[("HOOKRIG_ENGINE", "on")])), 0);
    let parents = std::fs::read_to_string(&parents).expect("ran");
    let lines: Vec<&str> = parents.lines().collect();
    let engine = serve.pid().to_string();
    assert_ne!(lines[0], engine, "engine = \"off\" answers in-process");
    assert_eq!(lines[1], engine, "HOOKRIG_ENGINE=on wins over the file");
    // The engine applies the file for a client that has no HOOKRIG_ENGINE (the client
    // reads no config on its way to the engine), and sees it change.
    env.write_global_config(&format!("[settings]\nengine = \"auto\"\n{CONFIG}"));
    assert_eq!(code(&unset(&[])), 0);
    let parents = std::fs::read_to_string(env.root().join("parents")).expect("ran");
    assert_eq!(
        parents.lines().nth(2),
        Some(engine.as_str()),
        "engine = \"auto\" lets the engine answer"
    );
    drop(serve);

    env.write_global_config("[settings]\nengine = \"sometimes\"\n");
    let validate = crate::harness::hookrig(&env, &["validate"]);
    assert_eq!(code(&validate), 1);
    assert!(
        text(&validate.stdout)
            .contains("unknown engine `sometimes`; use \"auto\", \"on\" or \"off\""),
        "{}",
        text(&validate.stdout)
    );
}

#[test]
fn another_users_emit_never_reaches_the_engine() {
    // guards: a process of another user is refused even where the socket's directory
    // lets it connect; its emit then runs in-process, and the engine answers nothing
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: needs root to run a client as another user");
        return;
    }
    let env = test_env();
    let serve = Serve::start(&env);
    // Everything on the way open to everyone, as a careless setup might leave it.
    for dir in [
        env.root().to_owned(),
        env.runtime_dir(),
        env.serve_socket().parent().expect("dir").to_owned(),
    ] {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    }
    std::fs::set_permissions(env.serve_socket(), std::fs::Permissions::from_mode(0o777))
        .expect("chmod the socket");
    let program = env!("CARGO_BIN_EXE_hookrig");
    let output = std::process::Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            program,
            "emit",
            "tool.before",
        ])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", "/nonexistent")
        .env("XDG_STATE_HOME", "/tmp")
        .env("XDG_RUNTIME_DIR", env.runtime_dir())
        .env("HOOKRIG_ENGINE", "on")
        .env("HOOKRIG_LOG", "debug")
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run a client as nobody");
    let stderr = text(&output.stderr);
    assert!(stderr.contains("emit runs in-process"), "{stderr}");
    assert_eq!(
        engine_status(&env)["answered"],
        0,
        "the engine answered another user"
    );
    drop(serve);
}

#[test]
fn an_engine_killed_during_a_thousand_emits_loses_no_answer_and_no_record() {
    // guards: with the engine killed (SIGKILL) in the middle of a run of emits, every
    // emit is still answered (in-process when the engine is gone), every one is in the
    // ledger, and a later emit starts a new engine (auto)
    let env = test_env();
    env.write_global_config(
        "[[hooks]]\nname = \"guard\"\nevents = [\"tool.before\"]\nmatcher = \"^rm$\"\ncommand = \"exit 2\"\n",
    );
    let emit = |tool: &str| {
        let mut command = env.command(["emit", "tool.before", "--tool", tool]);
        command
            .env("HOOKRIG_ENGINE", "auto")
            .env("HOOKRIG_ENGINE_IDLE", "30s");
        hookrig_test_support::run_with_input(command, b"", hookrig_test_support::HANG_LIMIT)
    };
    let mut killed = None;
    for n in 0..1000 {
        let tool = if n % 10 == 0 { "rm" } else { "ls" };
        let output = emit(tool);
        let expected = if tool == "rm" { 2 } else { 0 };
        assert_eq!(
            code(&output),
            expected,
            "emit {n}: {}",
            text(&output.stderr)
        );
        if n == 300 {
            let status = engine_status(&env);
            let pid = status["pid"].as_i64().expect("an engine runs by now");
            kill(
                nix::unistd::Pid::from_raw(i32::try_from(pid).expect("pid")),
                Signal::SIGKILL,
            )
            .expect("kill the engine");
            killed = Some(pid);
        }
    }
    let runs = crate::harness::hookrig(&env, &["runs", "--json", "--limit", "5000"]);
    let runs: serde_json::Value = serde_json::from_slice(&runs.stdout).expect("runs JSON");
    let runs = runs.as_array().expect("runs");
    let answered = runs
        .iter()
        .filter(|r| r["decision"] == "allow" || r["decision"] == "deny")
        .count();
    // One emit may be recorded twice: by the engine that was killed right after it had
    // recorded it, and by the client that then answered in-process.
    assert!(
        (1000..=1001).contains(&answered),
        "{answered} emits recorded"
    );
    let now = engine_status(&env)["pid"].as_i64();
    assert!(
        now.is_some() && now != killed,
        "a new engine answers: {now:?}"
    );
    assert_eq!(code(&engine_cmd(&env, &["stop"])), 0);
}

#[test]
fn sixteen_concurrent_clients_through_the_engine_have_every_record_committed() {
    // guards: the engine's ledger writer batches the records of concurrent emits, and
    // each emit is answered only once its record is committed: every one is counted
    // afterwards, and none is left waiting
    const CLIENTS: usize = 16;
    const EACH: usize = 25;
    let env = test_env();
    env.write_global_config(
        "[[hooks]]\nname = \"guard\"\nevents = [\"tool.before\"]\nmatcher = \"^rm$\"\ncommand = \"exit 2\"\n",
    );
    let serve = Serve::start(&env);
    std::thread::scope(|scope| {
        for client in 0..CLIENTS {
            let env = &env;
            scope.spawn(move || {
                for n in 0..EACH {
                    let tool = if (client + n) % 5 == 0 { "rm" } else { "ls" };
                    let mut command = env.command(["emit", "tool.before", "--tool", tool]);
                    command.env("HOOKRIG_ENGINE", "on");
                    let output = hookrig_test_support::run_with_input(
                        command,
                        b"",
                        hookrig_test_support::HANG_LIMIT,
                    );
                    let expected = if tool == "rm" { 2 } else { 0 };
                    assert_eq!(code(&output), expected, "{}", text(&output.stderr));
                }
            });
        }
    });
    let status = engine_status(&env);
    assert_eq!(status["answered"], CLIENTS * EACH, "{status}");
    assert_eq!(
        status["records_waiting"], 0,
        "an answered emit's records are committed: {status}"
    );
    let batches = status["batches_committed"].as_u64().expect("batches");
    assert!(
        (1..=2 * CLIENTS as u64 * EACH as u64).contains(&batches),
        "{status}"
    );
    let runs = crate::harness::hookrig(&env, &["runs", "--json", "--limit", "5000"]);
    let runs: serde_json::Value = serde_json::from_slice(&runs.stdout).expect("runs JSON");
    let runs = runs.as_array().expect("runs");
    assert_eq!(runs.len(), CLIENTS * EACH);
    let denied = runs.iter().filter(|r| r["decision"] == "deny").count();
    assert_eq!(denied, CLIENTS * EACH / 5);
    assert!(
        runs.iter()
            .all(|r| r["decision"] == "allow" || r["decision"] == "deny"),
        "every emit's row is finished"
    );
    let (stopped, log) = serve.stop();
    assert!(stopped.success(), "{log}");
}

#[test]
fn async_hooks_in_the_engine_fill_their_rows_through_the_ledger_writer() {
    // guards: the rows of async hooks that end after the answer go through the engine's
    // ledger writer too, and are committed before the engine exits
    let env = test_env();
    env.write_global_config(
        "[[hooks]]\nname = \"observer\"\nevents = [\"message.after\"]\ncommand = \"echo seen\"\nmode = \"async\"\n",
    );
    let serve = Serve::start(&env);
    let output = emit_via(&env, true, &["message.after"], "{}", &[]);
    assert_eq!(code(&output), 0, "{}", text(&output.stderr));
    let outcome: serde_json::Value = serde_json::from_slice(&output.stdout).expect("Outcome");
    let run_id = outcome["run_id"].as_str().expect("a run id").to_owned();
    let hook = wait_for("the async hook's row", || {
        let why = crate::harness::why_json(&env, &run_id);
        let hook = why["hooks"][0].clone();
        (hook["result"] != "dispatched").then_some(hook)
    });
    assert_eq!(hook["exit_code"], 0, "{hook}");
    assert_eq!(hook["is_async"], true, "{hook}");
    assert_eq!(engine_status(&env)["answered"], 1, "the engine answered");
    let (stopped, log) = serve.stop();
    assert!(stopped.success(), "{log}");
}

#[test]
fn a_ledger_that_cannot_be_opened_is_the_same_warning_through_the_engine() {
    // guards: the engine's ledger writer opens the store before the answer, so that a
    // store it cannot open is said in the Outcome exactly as an in-process emit says it
    let env = test_env();
    env.write_global_config(
        "[[hooks]]\nname = \"ok\"\nevents = [\"tool.before\"]\nexec = [\"true\"]\n",
    );
    let file = env.write_file("plain-file", "not a directory");
    let under_a_file = file.join("ledger.db");
    let args = [
        "tool.before",
        "--ledger",
        under_a_file.to_str().expect("UTF-8"),
    ];
    let serve = Serve::start(&env);
    let warnings = |engine| {
        let output = emit_via(&env, engine, &args, "{}", &[]);
        assert_eq!(code(&output), 0, "{}", text(&output.stderr));
        let outcome: serde_json::Value = serde_json::from_slice(&output.stdout).expect("Outcome");
        outcome["warnings"].clone()
    };
    let in_process = warnings(false);
    assert!(
        in_process[0]
            .as_str()
            .is_some_and(|w| w.starts_with("ledger: ") && w.ends_with("this emit is not recorded")),
        "{in_process}"
    );
    assert_eq!(warnings(true), in_process);
    assert_eq!(engine_status(&env)["answered"], 1);
    drop(serve);
}

// guards: an engine answering a user whose own config.toml names a PostgreSQL store
// records their emits there (one ledger for every node), and only then; `--no-ledger`
// still records nothing
#[test]
fn an_engine_records_the_emits_of_a_user_whose_config_names_a_database_there() {
    let Some(db) = hookrig_test_support::TestDatabase::create("engine_user_database") else {
        return;
    };
    let env = test_env();
    env.write_global_config(
        "[[hooks]]\nname = \"ok\"\nevents = [\"tool.before\"]\ncommand = \"true\"\n",
    );
    crate::serve::write_config_toml(&env, &format!("[store]\nurl = \"{}\"\n", db.url()));
    let started = engine_cmd(&env, &["start", "--idle", "1m"]);
    assert_eq!(code(&started), 0, "{}", text(&started.stderr));
    for args in [
        &["tool.before"][..],
        &["tool.before"],
        &["tool.before", "--no-ledger"],
    ] {
        let out = emit_via(&env, true, args, r#"{"tool":{"name":"Read"}}"#, &[]);
        assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    }
    let stopped = engine_cmd(&env, &["stop"]);
    assert_eq!(code(&stopped), 0, "{}", text(&stopped.stderr));
    let recorded: i64 = db
        .connect()
        .query_one(
            "SELECT count(*) FROM emits WHERE by_engine AND event = 'tool.before'",
            &[],
        )
        .expect("count")
        .get(0);
    assert_eq!(recorded, 2);
    let local =
        hookrig_store::Store::open_ledger(&hookrig_store::default_ledger_path(&env.state_home()))
            .expect("the SQLite ledger")
            .emits()
            .recent(&hookrig_store::EmitFilter {
                limit: usize::MAX,
                ..hookrig_store::EmitFilter::default()
            })
            .expect("its emits");
    assert!(local.is_empty(), "nothing in the SQLite ledger: {local:?}");
}
