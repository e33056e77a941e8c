//! The validated, resolved configuration: what the rest of hookrig sees.

use std::any::Any;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hookrig_core::{Diagnostic, Severity};
use hookrig_core::{Dialect, HookSpec};
use hookrig_exec::CommandDef;

use crate::protocol::DialectProtocol;

/// One configured command hook.
#[derive(Debug, Clone)]
pub struct HookDef {
    /// Everything the dispatcher needs.
    pub spec: HookSpec,
    /// What it runs.
    pub command: CommandDef,
    /// Variables added to its environment, in file order.
    pub env: Vec<(String, String)>,
    /// The protocol of the dialect it was written for: how its event is presented and
    /// its reply read.
    pub protocol: Arc<dyn DialectProtocol>,
    /// Byte offset in `spec.source.path` where the hook is declared (its `[[hooks]]`
    /// table, its `[hooks.NAME]` key, its JSON entry); `None` when the hook is a file
    /// of its own (Hence hooks) or has no entry of its own. An offset rather than a line:
    /// every emit loads every hook, and lines are only needed by `validate` and `show`,
    /// which work them out with [`HookDef::declared_line_col`].
    pub declared_at: Option<usize>,
    /// For a persistent worker hook (native `worker = true`): how many workers answer
    /// its events at once. `None` for a hook that runs a process per event.
    pub workers: Option<usize>,
}

impl HookDef {
    /// The 1-based line and column (in characters) of [`HookDef::declared_at`], read
    /// from the file as it is now; `None` without an offset or when the file cannot be
    /// read.
    pub fn declared_line_col(&self) -> Option<(usize, usize)> {
        let offset = self.declared_at?;
        let text = std::fs::read_to_string(&self.spec.source.path).ok()?;
        Some(hookrig_core::line_col(&text, offset))
    }

    /// A diagnostic about this hook, at its declaration when that is known.
    pub fn diagnostic(&self, severity: Severity, message: String) -> Diagnostic {
        let mut diagnostic = Diagnostic::file(&self.spec.source.path, severity, message);
        if let Some((line, col)) = self.declared_line_col() {
            diagnostic.line = Some(line);
            diagnostic.col = Some(col);
        }
        diagnostic
    }

    /// The dialect the hook was written for.
    pub fn dialect(&self) -> Dialect {
        self.protocol.dialect()
    }

    /// The hook's protocol as the dialect's own type, `None` for a hook of another
    /// dialect: how a dialect's loader finds its own hooks among those loaded.
    pub(crate) fn protocol_as<T: DialectProtocol>(&self) -> Option<&T> {
        let any: &dyn Any = self.protocol.as_ref();
        any.downcast_ref()
    }
}

/// Settings that apply to the whole run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Timeout of hooks that set none. `None` = no timeout.
    pub timeout: Option<Duration>,
    /// Between SIGTERM and SIGKILL.
    pub kill_grace: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            timeout: Some(Duration::from_secs(30)),
            kill_grace: Duration::from_secs(5),
        }
    }
}

/// Everything loaded for one working directory.
#[derive(Debug, Clone, Default)]
pub struct LoadedConfig {
    /// Hooks in load order: global before project, file order within a file.
    pub hooks: Vec<HookDef>,
    /// The user's settings (those of the global `hooks.toml`): the `kill_grace` of every
    /// hook that comes from no native file.
    pub settings: Settings,
    /// Each native file read and the settings its own hooks run with: its `[settings]`
    /// over the user's (a project file's settings never reach the user's hooks).
    pub native_settings: Vec<(PathBuf, Settings)>,
    /// Non-fatal diagnostics.
    pub warnings: Vec<Diagnostic>,
    /// Files that were read.
    pub files: Vec<PathBuf>,
    /// The project root, when the working directory is in a project.
    pub project_root: Option<PathBuf>,
    /// Hooks left out because an identical one was loaded first (Claude Code runs an
    /// identical handler once), for `hookrig explain`.
    pub shadowed: Vec<Shadowed>,
    /// The plugin packages loaded (those in `LoadOptions::packages` whose manifest is
    /// valid): their commands, validators, formatters and webhooks.
    pub packages: Vec<crate::xcode::Package>,
}

impl LoadedConfig {
    /// The time between SIGTERM and SIGKILL for `def`: its native file's `kill_grace`,
    /// else the user's.
    pub fn kill_grace(&self, def: &HookDef) -> Duration {
        self.native_settings
            .iter()
            .find(|(path, _)| def.dialect() == Dialect::Native && *path == def.spec.source.path)
            .map_or(self.settings.kill_grace, |(_, settings)| {
                settings.kill_grace
            })
    }
}

/// A hook left out as a duplicate of one already loaded.
#[derive(Debug, Clone)]
pub struct Shadowed {
    /// The duplicate.
    pub hook: HookDef,
    /// The name of the hook it duplicates, which runs in its place.
    pub by: String,
}
