//! `hookrig providers list`: the agent providers of `config.toml` and the built-in ones
//! they do not replace, whether each CLI can be found, and the first line of its version.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::future::join_all;
use hookrig_config::Provider;
use hookrig_exec::{
    EnvPolicy, ProcessGroups, ProcessOutput, ProcessSpec, Termination, run_process,
};
use serde_json::{Value, json};

use crate::agents::provider::{self, Origin};
use crate::commands::config::provider_json;
use crate::engine;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::print;
use hookrig_exec::{Probe, probe};

/// How long a version check may run: a `--version` answers at once, and a listing must
/// not wait on a CLI that starts an interactive session instead.
const VERSION_TIMEOUT: Duration = Duration::from_secs(2);

/// Between SIGTERM and SIGKILL for a version check that ran out of time.
const KILL_GRACE: Duration = Duration::from_millis(500);

/// Enough for any version banner; the rest is read and dropped.
const OUTPUT_CAP: usize = 16 * 1024;

/// Where a provider's CLI is.
pub(crate) enum Found {
    /// An executable file.
    At(PathBuf),
    /// A file that is not executable.
    NotExecutable(PathBuf),
    /// Nothing.
    Missing,
}

/// What the version check said.
enum Version {
    /// No `version_args`: nothing was run.
    NotChecked,
    /// The first line of its output.
    Line(String),
    /// It did not answer properly.
    Failed(String),
}

struct Row {
    provider: Provider,
    origin: Origin,
    found: Found,
    version: Option<Version>,
}

pub(crate) fn list(cwd: Option<&Path>, json: bool) -> Result<u8, ExpectedError> {
    let dir = engine::working_dir(cwd)?;
    let config = crate::commands::config::load(Some(&dir))?;
    let mut rows: Vec<Row> = provider::all(&config)
        .into_iter()
        .map(|(provider, origin)| Row {
            found: find(&provider.cli, &dir),
            provider,
            origin,
            version: None,
        })
        .collect();
    let versions = check_versions(&rows, &dir)?;
    for (row, version) in rows.iter_mut().zip(versions) {
        row.version = version;
    }
    if json {
        let list: Vec<Value> = rows.iter().map(row_json).collect();
        let mut text = serde_json::to_string_pretty(&list).unwrap_or_default();
        text.push('\n');
        print(&text)?;
    } else {
        print(&text(&rows))?;
    }
    // A missing CLI is part of the answer, as in `hookrig list`; it stops only the
    // command that would run the provider.
    Ok(exit_codes::PROCEED)
}

/// A name with a `/` is a path (relative to `dir`); any other name is searched in
/// `PATH`, as `execvp` would.
pub(crate) fn find(cli: &str, dir: &Path) -> Found {
    if cli.contains('/') {
        let path = dir.join(cli);
        return match probe(&path) {
            Probe::Executable => Found::At(path),
            Probe::NotExecutable => Found::NotExecutable(path),
            Probe::Missing => Found::Missing,
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut not_executable = None;
    for entry in std::env::split_paths(&path).filter(|d| !d.as_os_str().is_empty()) {
        let candidate = entry.join(cli);
        match probe(&candidate) {
            Probe::Executable => return Found::At(candidate),
            Probe::NotExecutable => {
                not_executable.get_or_insert(candidate);
            }
            Probe::Missing => {}
        }
    }
    not_executable.map_or(Found::Missing, Found::NotExecutable)
}

/// Runs the version check of every found CLI, all at once, each under
/// [`VERSION_TIMEOUT`]; `None` for a CLI that was not found.
fn check_versions(rows: &[Row], dir: &Path) -> Result<Vec<Option<Version>>, ExpectedError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ExpectedError::Runtime)?;
    let groups = ProcessGroups::new();
    let checks = rows.iter().map(|row| {
        let groups = &groups;
        async move {
            let Found::At(path) = &row.found else {
                return None;
            };
            let args = &row.provider.version_args;
            if args.is_empty() {
                return Some(Version::NotChecked);
            }
            let spec = ProcessSpec {
                program: path.clone().into_os_string(),
                args: args.iter().map(OsString::from).collect(),
                cwd: dir.to_owned(),
                env: EnvPolicy::Inherit { set: Vec::new() },
                stdin: Vec::new(),
                timeout: Some(VERSION_TIMEOUT),
                kill_grace: KILL_GRACE,
                stdout_cap: OUTPUT_CAP,
                stderr_cap: OUTPUT_CAP,
            };
            Some(version_of(&run_process(spec, groups).await))
        }
    });
    Ok(runtime.block_on(join_all(checks)))
}

/// The first non-empty line of stdout, else of stderr (some CLIs print their version
/// there), when the check exited 0.
fn version_of(output: &ProcessOutput) -> Version {
    let first_line = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes)
            .lines()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .map(str::to_owned)
    };
    match &output.termination {
        Termination::Exited(0) => first_line(&output.stdout)
            .or_else(|| first_line(&output.stderr))
            .map_or_else(
                || Version::Failed("version check printed nothing".to_owned()),
                Version::Line,
            ),
        Termination::Exited(code) => Version::Failed(format!("version check failed (exit {code})")),
        Termination::TimedOut { .. } => Version::Failed(format!(
            "version check timed out after {}s and was killed",
            VERSION_TIMEOUT.as_secs()
        )),
        Termination::Signaled(signal) => {
            Version::Failed(format!("version check killed by signal {signal}"))
        }
        Termination::SpawnFailed(err) => Version::Failed(format!("version check: {err}")),
        Termination::Interrupted => Version::Failed("version check interrupted".to_owned()),
    }
}

/// Hence's own wording, which it prints before exiting 1 when it needs the CLI.
fn not_found(provider: &Provider) -> String {
    format!(
        "provider '{}' CLI '{}' not found",
        provider.id, provider.cli
    )
}

fn text(rows: &[Row]) -> String {
    let mut out = String::new();
    for row in rows {
        let p = &row.provider;
        let _ = match &row.origin {
            Origin::Config { source, line } => {
                writeln!(out, "{} ({})  # {}:{line}", p.id, p.name, source.display())
            }
            Origin::BuiltIn => writeln!(out, "{} ({})  # built-in", p.id, p.name),
        };
        match &row.found {
            Found::At(path) => {
                let _ = writeln!(out, "  cli: {} ({})", p.cli, path.display());
            }
            Found::NotExecutable(path) => {
                let _ = writeln!(
                    out,
                    "  {} ({} is not executable)",
                    not_found(p),
                    path.display()
                );
            }
            Found::Missing => {
                let _ = writeln!(out, "  {}", not_found(p));
            }
        }
        match &row.version {
            Some(Version::Line(line)) => {
                let _ = writeln!(out, "  version: {line}");
            }
            Some(Version::Failed(why)) => {
                let _ = writeln!(out, "  version: unknown ({why})");
            }
            Some(Version::NotChecked) => {
                out.push_str("  version: not checked (no version_args)\n");
            }
            None => {}
        }
    }
    out
}

fn row_json(row: &Row) -> Value {
    let (path, found, problem) = match &row.found {
        Found::At(path) => (Some(path), true, None),
        Found::NotExecutable(path) => (
            Some(path),
            false,
            Some(format!(
                "{} ({} is not executable)",
                not_found(&row.provider),
                path.display()
            )),
        ),
        Found::Missing => (None, false, Some(not_found(&row.provider))),
    };
    let (source, line) = match &row.origin {
        Origin::Config { source, line } => (Some(source), Some(*line)),
        Origin::BuiltIn => (None, None),
    };
    let (version, version_error) = match &row.version {
        Some(Version::Line(line)) => (Some(line.as_str()), None),
        Some(Version::Failed(why)) => (None, Some(why.as_str())),
        Some(Version::NotChecked) | None => (None, None),
    };
    json!({
        "provider": provider_json(&row.provider),
        "source": source,
        "line": line,
        "built_in": row.origin == Origin::BuiltIn,
        "found": found,
        "path": path,
        "error": problem,
        "version": version,
        "version_error": version_error,
    })
}
