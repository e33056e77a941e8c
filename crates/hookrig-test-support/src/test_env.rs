//! [`TestEnv`]: a temporary home, XDG directories, fixture `PATH` and project per test.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use tempfile::TempDir;

use crate::processes::{kill_all_with, no_leftover};
use crate::runner::{HANG_LIMIT, run_with_input};

/// A temporary world for one test.
///
/// Layout under [`root`](Self::root):
///
/// ```text
/// home/                   HOME
/// home/.config/           XDG_CONFIG_HOME (global config: hookrig/hooks.toml)
/// home/.local/state/      XDG_STATE_HOME (default ledger: hookrig/ledger.db)
/// home/.local/share/      XDG_DATA_HOME (x-code plugins: hookrig/plugins/)
/// bin/                    first in PATH; holds fixture programs and a marked `sleep`
/// project/                the project: holds `.git/`, config in `.hookrig/hooks.toml`
/// ```
///
/// The root path is unique to the test and serves as its [marker](Self::marker): every
/// script written here carries it in its command line, so [`leftovers`](Self::leftovers)
/// finds any process a test left running. Dropping the `TestEnv` kills those processes
/// and removes the directory.
#[derive(Debug)]
pub struct TestEnv {
    /// Kept for its `Drop`, which removes the directory.
    _dir: TempDir,
    /// The canonical path of the directory: what the program under test sees as its
    /// working directory, so it is the path to compare output against.
    root: PathBuf,
    /// The root as text: see [`marker`](Self::marker).
    marker: String,
    program: PathBuf,
}

impl TestEnv {
    /// Creates the directories for a test that runs `program` (for the CLI crate's
    /// tests, `env!("CARGO_BIN_EXE_hookrig")`).
    ///
    /// # Panics
    ///
    /// When the temporary directory cannot be created, or its path is not UTF-8.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        let dir = tempfile::Builder::new()
            .prefix("hookrig-test-")
            .tempdir()
            .expect("create a temporary directory");
        // Canonical, so that paths the program prints (from `getcwd`) compare equal.
        let root = dir
            .path()
            .canonicalize()
            .expect("canonicalize the temporary directory");
        let marker = root.to_str().expect("temporary paths are UTF-8").to_owned();
        let env = Self {
            _dir: dir,
            root,
            marker,
            program: program.into(),
        };
        for dir in [
            env.home(),
            env.config_home(),
            env.state_home(),
            env.bin(),
            env.project().join(".git"),
        ] {
            fs::create_dir_all(&dir).expect("create a test directory");
        }
        std::os::unix::fs::symlink(find_in_path("sleep"), env.marked_sleep())
            .expect("link the marked sleep");
        env
    }

    /// The temporary directory that holds everything.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A string unique to this test that appears in the command line of every script
    /// it writes (the root path).
    pub fn marker(&self) -> &str {
        &self.marker
    }

    /// `HOME` of the program under test.
    pub fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    /// `XDG_CONFIG_HOME`: `home/.config`.
    pub fn config_home(&self) -> PathBuf {
        self.home().join(".config")
    }

    /// `XDG_RUNTIME_DIR`: `run` (not created: `hookrig serve` creates its directory).
    pub fn runtime_dir(&self) -> PathBuf {
        self.root.join("run")
    }

    /// The socket of `hookrig serve` in this environment.
    pub fn serve_socket(&self) -> PathBuf {
        self.runtime_dir().join("hookrig").join("serve.sock")
    }

    /// `XDG_STATE_HOME`: `home/.local/state`.
    pub fn state_home(&self) -> PathBuf {
        self.home().join(".local").join("state")
    }

    /// `XDG_DATA_HOME`: `home/.local/share` (hookrig's x-code plugins and their data).
    pub fn data_home(&self) -> PathBuf {
        self.home().join(".local").join("share")
    }

    /// The fixture directory, first in `PATH`.
    pub fn bin(&self) -> PathBuf {
        self.root.join("bin")
    }

    /// The project directory (it holds `.git/`); the working directory of
    /// [`command`](Self::command).
    pub fn project(&self) -> PathBuf {
        self.root.join("project")
    }

    /// `sleep` under a path that carries the [marker](Self::marker), for hooks whose
    /// leftovers must be found: a plain `sleep 30` has no marker in its command line.
    pub fn marked_sleep(&self) -> PathBuf {
        self.bin().join("sleep")
    }

    /// The global native config file: `$XDG_CONFIG_HOME/hookrig/hooks.toml`.
    pub fn global_config_path(&self) -> PathBuf {
        self.config_home().join("hookrig").join("hooks.toml")
    }

    /// The project's native config file: `project/.hookrig/hooks.toml`.
    pub fn project_config_path(&self) -> PathBuf {
        self.project().join(".hookrig").join("hooks.toml")
    }

    /// Where the program under test looks for Claude Code's managed settings
    /// (`HOOKRIG_CLAUDE_MANAGED_SETTINGS`): inside the test's directory, so that a managed
    /// file of the machine never leaks into a test.
    pub fn claude_managed_settings_path(&self) -> PathBuf {
        self.root
            .join("etc")
            .join("claude-code")
            .join("managed-settings.json")
    }

    /// Where Cursor's enterprise hooks file is read from in tests
    /// (`HOOKRIG_CURSOR_ENTERPRISE_HOOKS`): inside the test's directory, so that a
    /// machine's own enterprise file never reaches a test.
    pub fn cursor_enterprise_hooks_path(&self) -> PathBuf {
        self.root.join("etc").join("cursor").join("hooks.json")
    }

    /// Where Codex's system layer (`/etc/codex`: its `config.toml` and `hooks.json`) is
    /// read from in tests (`HOOKRIG_CODEX_SYSTEM_DIR`): inside the test's directory, so
    /// that a machine's own never reaches a test.
    pub fn codex_system_dir(&self) -> PathBuf {
        self.root.join("etc").join("codex")
    }

    /// Writes the global config and returns its path.
    pub fn write_global_config(&self, toml: &str) -> PathBuf {
        let path = self.global_config_path();
        write(&path, toml.as_bytes());
        path
    }

    /// Writes the project config and returns its path.
    pub fn write_project_config(&self, toml: &str) -> PathBuf {
        let path = self.project_config_path();
        write(&path, toml.as_bytes());
        path
    }

    /// Writes an executable script (mode 755) at `rel_path` under the project and returns
    /// its absolute path. A body without a `#!` line gets `#!/bin/sh`.
    pub fn write_script(&self, rel_path: impl AsRef<Path>, body: &str) -> PathBuf {
        let path = self.project().join(rel_path);
        write_executable(&path, body);
        path
    }

    /// Writes an executable program named `name` into [`bin`](Self::bin), which is
    /// first in `PATH`, and returns its path. A body without a `#!` line gets `#!/bin/sh`.
    pub fn write_bin(&self, name: &str, body: &str) -> PathBuf {
        let path = self.bin().join(name);
        write_executable(&path, body);
        path
    }

    /// Writes a plain (not executable) file at `rel_path` under the project.
    pub fn write_file(&self, rel_path: impl AsRef<Path>, contents: &str) -> PathBuf {
        let path = self.project().join(rel_path);
        write(&path, contents.as_bytes());
        path
    }

    /// The contents of `rel_path` under the project, or `None` when it does not exist.
    ///
    /// # Panics
    ///
    /// When the file exists but cannot be read as UTF-8 text.
    pub fn read_file(&self, rel_path: impl AsRef<Path>) -> Option<String> {
        let path = self.project().join(rel_path);
        match fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => panic!("cannot read {}: {err}", path.display()),
        }
    }

    /// Where the program keeps its ledger by default:
    /// `$XDG_STATE_HOME/hookrig/ledger.db`.
    pub fn ledger_path(&self) -> PathBuf {
        self.state_home().join("hookrig").join("ledger.db")
    }

    /// A command for the program under test with `args`, run in [`project`](Self::project),
    /// with `HOOKRIG_ENGINE=off` (emits run in-process and start no resident engine), with
    /// every other `HOOKRIG_*` variable removed (so `HOOKRIG_LEDGER` and `HOOKRIG_LOG` of
    /// the developer's shell do not leak in), `HOME` and the XDG directories pointing
    /// into the test's directory, and [`bin`](Self::bin) first in `PATH`.
    ///
    /// Project hooks are trusted (the test's trust store says `any_project`, as `hookrig
    /// trust --any-project` writes it) so that tests of other behaviour need no
    /// `hookrig trust` step; [`untrusted_command`](Self::untrusted_command) is the
    /// command with the switch off. The switch is set as the command is made: a test
    /// that mixes both kinds runs each command before making the next.
    ///
    /// # Panics
    ///
    /// When the trust store cannot be written.
    pub fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.trust_any_project(true);
        self.command_as_trusted_now(args)
    }

    /// [`command`](Self::command) without touching the trust store's switch: as `hookrig
    /// trust` last left it.
    ///
    /// # Panics
    ///
    /// When an entry of the inherited `PATH` contains the path separator, which
    /// `split_paths` never yields.
    pub fn command_as_trusted_now<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = Command::new(&self.program);
        command.args(args).current_dir(self.project());
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("HOOKRIG_") {
                command.env_remove(&name);
            }
        }
        let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
        let path =
            std::env::join_paths(std::iter::once(self.bin()).chain(std::env::split_paths(&path)))
                .expect("PATH entries hold no separator");
        command
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.config_home())
            .env("XDG_STATE_HOME", self.state_home())
            .env("XDG_DATA_HOME", self.data_home())
            // `hookrig serve`'s socket: a serve of the machine's user must not see tests.
            .env("XDG_RUNTIME_DIR", self.runtime_dir())
            // x-code's own plugins default to `~/.x-code`, and Codex's home to `~/.codex`,
            // inside the test's HOME.
            .env_remove("X_CODE_HOME")
            .env_remove("CODEX_HOME")
            .env("PATH", path)
            .env(
                "HOOKRIG_CLAUDE_MANAGED_SETTINGS",
                self.claude_managed_settings_path(),
            )
            // Gemini CLI's system settings file, inside the test's directory too.
            .env(
                "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
                self.root
                    .join("etc")
                    .join("gemini-cli")
                    .join("settings.json"),
            )
            // And its system defaults file.
            .env(
                "GEMINI_CLI_SYSTEM_DEFAULTS_PATH",
                self.root
                    .join("etc")
                    .join("gemini-cli")
                    .join("system-defaults.json"),
            )
            // Cursor's enterprise file, inside the test's directory too.
            .env(
                "HOOKRIG_CURSOR_ENTERPRISE_HOOKS",
                self.cursor_enterprise_hooks_path(),
            )
            // Codex's system layer (`/etc/codex`), inside the test's directory too.
            .env("HOOKRIG_CODEX_SYSTEM_DIR", self.codex_system_dir())
            // No emit starts a resident engine that would outlive the test; the tests of
            // the engine switch it on themselves, and stop what they start.
            .env("HOOKRIG_ENGINE", "off");
        command
    }

    /// Like [`command`](Self::command), but project hooks run only when trusted.
    pub fn untrusted_command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.trust_any_project(false);
        self.command_as_trusted_now(args)
    }

    /// Turns the test's `hookrig trust --any-project` switch on or off, keeping what
    /// else the trust store holds. A store that is not JSON (a test of a corrupt store)
    /// is left as it is.
    ///
    /// # Panics
    ///
    /// When the trust store cannot be read or written.
    pub fn trust_any_project(&self, on: bool) {
        let path = self.state_home().join("hookrig").join("trust.json");
        let mut store: serde_json::Value = match std::fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice(&bytes) {
                Ok(store) => store,
                Err(_) => return,
            },
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                serde_json::json!({"version": 1, "hooks": {}})
            }
            Err(err) => panic!("cannot read {}: {err}", path.display()),
        };
        if store["any_project"].as_bool().unwrap_or(false) == on {
            return;
        }
        store["any_project"] = serde_json::Value::Bool(on);
        std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(
            &path,
            serde_json::to_vec_pretty(&store).expect("serializes"),
        )
        .expect("write the trust store");
    }

    /// Runs [`untrusted_command`](Self::untrusted_command) with `args` and `stdin`.
    pub fn run_untrusted<I, S>(&self, args: I, stdin: &[u8]) -> Output
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        run_with_input(self.untrusted_command(args), stdin, HANG_LIMIT)
    }

    /// Runs the program with `args` and `stdin`, and returns what it did.
    ///
    /// # Panics
    ///
    /// When it cannot start, or still runs after [`HANG_LIMIT`].
    pub fn run<I, S>(&self, args: I, stdin: &[u8]) -> Output
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        run_with_input(self.command(args), stdin, HANG_LIMIT)
    }

    /// `text` with this test's temporary directory (its [marker](Self::marker)) written
    /// as `[TMP]`, for snapshots and messages that name paths.
    #[must_use]
    pub fn redact(&self, text: &str) -> String {
        text.replace(self.marker(), "[TMP]")
    }

    /// Pids of processes carrying this test's [marker](Self::marker) that are still
    /// alive after waiting up to 10 s for them to go (empty when none is left).
    pub fn leftovers(&self) -> Vec<i32> {
        no_leftover(self.marker(), Duration::from_secs(10))
    }
}

impl Drop for TestEnv {
    /// Kills what the test left running, whether it passed or failed.
    fn drop(&mut self) {
        kill_all_with(self.marker());
    }
}

fn write(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("create the parent directory");
    }
    fs::write(path, bytes).unwrap_or_else(|err| panic!("cannot write {}: {err}", path.display()));
}

/// Writes `body` to `path` (creating its directory) as an executable script: `body`
/// gets a `#!/bin/sh` line unless it starts with its own `#!`.
///
/// # Panics
///
/// When the file cannot be written or made executable.
pub fn write_executable(path: &Path, body: &str) {
    let text = if body.starts_with("#!") {
        body.to_owned()
    } else {
        format!("#!/bin/sh\n{body}")
    };
    write(path, text.as_bytes());
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|err| panic!("cannot chmod {}: {err}", path.display()));
}

fn find_in_path(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| PathBuf::from("/bin").join(name))
}
