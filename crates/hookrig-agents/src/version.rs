//! `hookrig providers list`: every provider, whether its CLI can be found, and the first
//! line of its version.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use futures_util::future::join_all;
use hookrig_config::Provider;
use hookrig_exec::{Capture, Command, ProcessGroups, ProcessOutput, Stderr, Termination};
use serde::{Serialize, Serializer};

use crate::errors::AgentError;
use crate::provider::{self, Found, Origin};

/// How long a version check may run: a `--version` answers at once, and a listing must
/// not wait on a CLI that starts an interactive session instead.
const VERSION_TIMEOUT: Duration = Duration::from_secs(2);

/// Between SIGTERM and SIGKILL for a version check that ran out of time.
const KILL_GRACE: Duration = Duration::from_millis(500);

/// Enough for any version banner; the rest is read and dropped.
const OUTPUT_CAP: usize = 16 * 1024;

/// What the version check said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Version {
    /// No `version_args`: nothing was run.
    NotChecked,
    /// The first line of its output.
    Line(String),
    /// It did not answer properly: why.
    Failed(String),
}

/// One provider as `hookrig providers list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderStatus {
    /// The definition.
    pub provider: Provider,
    /// Where it comes from.
    pub origin: Origin,
    /// Where its CLI is.
    pub found: Found,
    /// What its version check said; `None` when its CLI was not found.
    pub version: Option<Version>,
}

impl ProviderStatus {
    /// Why the provider cannot be started: its CLI is missing or not executable, in
    /// Hence's wording.
    pub fn problem(&self) -> Option<String> {
        let not_found = || AgentError::CliNotFound {
            id: self.provider.id.clone(),
            cli: self.provider.cli.clone(),
        };
        match &self.found {
            Found::At(_) => None,
            Found::NotExecutable(path) => Some(format!(
                "{} ({} is not executable)",
                not_found(),
                path.display()
            )),
            Found::Missing => Some(not_found().to_string()),
        }
    }
}

/// A row of `hookrig providers list --json`: the provider, where it comes from, its CLI
/// and its version, flat.
impl Serialize for ProviderStatus {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Row<'a> {
            provider: &'a Provider,
            source: Option<&'a Path>,
            line: Option<usize>,
            built_in: bool,
            found: bool,
            path: Option<&'a Path>,
            error: Option<String>,
            version: Option<&'a str>,
            version_error: Option<&'a str>,
        }
        let (source, line) = match &self.origin {
            Origin::Config { source, line } => (Some(source.as_path()), Some(*line)),
            Origin::BuiltIn => (None, None),
        };
        let path = match &self.found {
            Found::At(path) | Found::NotExecutable(path) => Some(path.as_path()),
            Found::Missing => None,
        };
        let (version, version_error) = match &self.version {
            Some(Version::Line(line)) => (Some(line.as_str()), None),
            Some(Version::Failed(why)) => (None, Some(why.as_str())),
            Some(Version::NotChecked) | None => (None, None),
        };
        Row {
            provider: &self.provider,
            source,
            line,
            built_in: self.origin == Origin::BuiltIn,
            found: matches!(self.found, Found::At(_)),
            path,
            error: self.problem(),
            version,
            version_error,
        }
        .serialize(serializer)
    }
}

/// Every provider of the config.toml files seen from `dir` (the configured ones in merge
/// order, then the built-ins they do not replace), each CLI looked up and its version
/// checked, all at once. Warnings about config.toml go to `warn`.
pub fn list_providers(
    dir: &Path,
    warn: &mut dyn FnMut(String),
) -> Result<Vec<ProviderStatus>, AgentError> {
    let config = crate::config::load(dir, warn)?;
    let mut rows: Vec<ProviderStatus> = provider::all(&config)
        .into_iter()
        .map(|(provider, origin)| ProviderStatus {
            found: provider::find(&provider.cli, dir),
            provider,
            origin,
            version: None,
        })
        .collect();
    let runtime = runtime()?;
    let groups = ProcessGroups::new();
    let checks = rows.iter().map(|row| check(row, dir, &groups));
    let versions = runtime.block_on(join_all(checks));
    for (row, version) in rows.iter_mut().zip(versions) {
        row.version = version;
    }
    Ok(rows)
}

/// A current-thread runtime for the version checks, which run all at once.
fn runtime() -> Result<tokio::runtime::Runtime, AgentError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(AgentError::Runtime)
}

/// The version check of one provider, under [`VERSION_TIMEOUT`]; `None` for a CLI that
/// was not found.
async fn check(row: &ProviderStatus, dir: &Path, groups: &ProcessGroups) -> Option<Version> {
    let Found::At(path) = &row.found else {
        return None;
    };
    let args = &row.provider.version_args;
    if args.is_empty() {
        return Some(Version::NotChecked);
    }
    let command = Command::exec(path, args.iter().map(OsString::from), dir);
    let capture = Capture {
        stdin: Vec::new(),
        stdout_cap: OUTPUT_CAP,
        stderr: Stderr::Capture(OUTPUT_CAP),
        timeout: Some(VERSION_TIMEOUT),
        kill_grace: KILL_GRACE,
    };
    Some(version_of(&command.capture(capture, groups).await))
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
        Termination::TimedOut { after, .. } => Version::Failed(format!(
            "version check timed out after {}s and was killed",
            after.as_secs()
        )),
        Termination::Signaled(signal) => {
            Version::Failed(format!("version check killed by signal {signal}"))
        }
        Termination::SpawnFailed(err) => Version::Failed(format!("version check: {err}")),
        Termination::Interrupted => Version::Failed("version check interrupted".to_owned()),
    }
}
