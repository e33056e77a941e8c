//! Running `hookrig` in a [`TestEnv`] and reading what it answered.

use std::process::Output;

use hookrig_test_support::TestEnv;
use serde_json::Value;

/// A fresh test world for the `hookrig` binary of this crate.
pub(crate) fn test_env() -> TestEnv {
    TestEnv::new(env!("CARGO_BIN_EXE_hookrig"))
}

/// The exit code; a test fails when hookrig was killed by a signal instead.
/// Whether `program` (a tool that an example or documented script needs, such as jq)
/// can be run. When it cannot, the test says so on stderr and the caller returns early,
/// so that `cargo test` works on a machine with only the Rust toolchain. `.ci/run`
/// installs the tools and sets `HOOKRIG_TEST_REQUIRE_TOOLS=1`, so that in CI a missing
/// tool fails the test instead of skipping it.
pub(crate) fn tool_available(program: &str) -> bool {
    let found = std::process::Command::new(program)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !found {
        assert!(
            std::env::var_os("HOOKRIG_TEST_REQUIRE_TOOLS").is_none(),
            "{program} cannot be run, and HOOKRIG_TEST_REQUIRE_TOOLS is set"
        );
        eprintln!("skipped: {program} is not installed");
    }
    found
}

pub(crate) fn code(output: &Output) -> i32 {
    output
        .status
        .code()
        .unwrap_or_else(|| panic!("hookrig was killed: {:?}", output.status))
}

/// stdout and stderr as text.
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("hookrig writes UTF-8")
}

/// What one `hookrig emit` did.
#[derive(Debug)]
pub(crate) struct Emitted {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    /// The Outcome, or `Null` when hookrig failed (exit 1) and printed none.
    pub(crate) outcome: Value,
}

impl Emitted {
    /// The Outcome record of the hook `name`.
    pub(crate) fn hook(&self, name: &str) -> &Value {
        self.outcome["hooks"]
            .as_array()
            .expect("`hooks` is an array")
            .iter()
            .find(|hook| hook["name"] == name)
            .unwrap_or_else(|| panic!("no hook `{name}` in {:#}", self.outcome))
    }

    /// The `result` of the hook `name`.
    pub(crate) fn result(&self, name: &str) -> &str {
        self.hook(name)["result"]
            .as_str()
            .expect("`result` is a string")
    }

    /// `(name, result)` of every hook, in Outcome order.
    pub(crate) fn results(&self) -> Vec<(String, String)> {
        self.outcome["hooks"]
            .as_array()
            .expect("`hooks` is an array")
            .iter()
            .map(|hook| (string(&hook["name"]), string(&hook["result"])))
            .collect()
    }

    /// The Outcome's warnings.
    pub(crate) fn warnings(&self) -> Vec<String> {
        self.outcome["warnings"]
            .as_array()
            .expect("`warnings` is an array")
            .iter()
            .map(string)
            .collect()
    }

    /// Whether some warning contains `needle`.
    pub(crate) fn has_warning(&self, needle: &str) -> bool {
        self.warnings().iter().any(|w| w.contains(needle))
    }

    /// The Outcome's run id.
    pub(crate) fn run_id(&self) -> String {
        string(&self.outcome["run_id"])
    }
}

fn string(value: &Value) -> String {
    value
        .as_str()
        .unwrap_or_else(|| panic!("expected a string, got {value}"))
        .to_owned()
}

/// `hookrig emit ARGS...` with `payload` on stdin.
///
/// When hookrig answers (exit 0 or 2), checks the contract of stdout: exactly one line
/// holding one JSON object.
pub(crate) fn emit(env: &TestEnv, args: &[&str], payload: &str) -> Emitted {
    let output = env.run(
        std::iter::once("emit").chain(args.iter().copied()),
        payload.as_bytes(),
    );
    emitted(&output)
}

/// Like [`emit`], but project hooks run only when trusted (the trust store's `any_project` switch off).
pub(crate) fn emit_untrusted(env: &TestEnv, args: &[&str], payload: &str) -> Emitted {
    let output = env.run_untrusted(
        std::iter::once("emit").chain(args.iter().copied()),
        payload.as_bytes(),
    );
    emitted(&output)
}

/// Reads what one `hookrig emit` answered; see [`emit`] for the checks.
pub(crate) fn emitted(output: &Output) -> Emitted {
    let (code, stdout, stderr) = (code(output), text(&output.stdout), text(&output.stderr));
    let outcome = if code == 1 {
        Value::Null
    } else {
        assert!(
            stdout.ends_with('\n') && stdout.lines().count() == 1,
            "stdout must be one line; got {stdout:?} (stderr: {stderr})"
        );
        let outcome: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|err| panic!("stdout is not JSON ({err}): {stdout:?}"));
        assert!(outcome.is_object(), "the Outcome is an object: {outcome}");
        outcome
    };
    Emitted {
        code,
        stdout,
        stderr,
        outcome,
    }
}

/// `hookrig ARGS...` with nothing on stdin.
pub(crate) fn hookrig(env: &TestEnv, args: &[&str]) -> Output {
    env.run(args, b"")
}

/// `hookrig why RUN --json`, parsed.
pub(crate) fn why_json(env: &TestEnv, run_id: &str) -> Value {
    let output = hookrig(env, &["why", run_id, "--json"]);
    assert_eq!(code(&output), 0, "why failed: {}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("why --json prints JSON")
}

/// `hookrig why RUN --json` once no hook row of the run is `dispatched` any more: a
/// one-shot emit hands its async hooks to a keeper that completes their rows after the
/// emit exited. The deadline only turns a hang into a failure.
pub(crate) fn why_when_async_done(env: &TestEnv, run_id: &str) -> Value {
    crate::serve::wait_for("the async hooks' ledger rows", || {
        let why = why_json(env, run_id);
        let pending = why["hooks"]
            .as_array()
            .expect("`hooks` is an array")
            .iter()
            .any(|row| row["result"] == "dispatched");
        (!pending).then_some(why)
    })
}

/// `hookrig why RUN` as text.
pub(crate) fn why_text(env: &TestEnv, run_id: &str) -> String {
    let output = hookrig(env, &["why", run_id]);
    assert_eq!(code(&output), 0, "why failed: {}", text(&output.stderr));
    text(&output.stdout)
}

/// The ledger rows of the hook `name` in a `why --json` answer.
pub(crate) fn ledger_rows<'a>(why: &'a Value, name: &str) -> Vec<&'a Value> {
    why["hooks"]
        .as_array()
        .expect("`hooks` is an array")
        .iter()
        .filter(|row| row["name"] == name)
        .collect()
}

/// `text` with the value of every `HOOKRIG_PROCESS_TAG=` line (unique to each hook run)
/// replaced by `[TAG]`, for snapshots of a hook's environment.
pub(crate) fn redact_process_tag(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| match line.strip_prefix("HOOKRIG_PROCESS_TAG=") {
            Some(_) if line.ends_with('\n') => "HOOKRIG_PROCESS_TAG=[TAG]\n",
            Some(_) => "HOOKRIG_PROCESS_TAG=[TAG]",
            None => line,
        })
        .collect()
}

/// A shell word for `path`, for scripts that run or write it.
pub(crate) fn quoted(path: &std::path::Path) -> String {
    format!("'{}'", path.display())
}

/// Copies `from` into `to`, keeping executable bits.
pub(crate) fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("readable") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
