//! Loading every source, every dialect, for one working directory.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use hookrig_core::{EventName, Level, Payload};

use crate::definition::{CommandDef, HookDef, LoadedConfig, Settings, Shadowed};
use crate::environment::{Environment, Project, find_project};
use crate::errors::{ConfigError, Diagnostic, Severity};
use crate::native::parse_file;
use crate::package::{Package, PackageRef};
use crate::{claude, hence, hygge, trust, xcode};

/// What the caller adds to discovery.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadOptions {
    /// Extra x-code plugin directories (`emit --plugin-dir DIR`).
    pub plugin_dirs: Vec<PathBuf>,
    /// Check trust only for hooks that would run for this event and payload. `emit`
    /// runs nothing else, and hashing every project hook on each emit is wasted work;
    /// the other hooks are then left unmarked. `None` checks every hook (listings).
    pub trust_only_for: Option<(EventName, Payload)>,
    /// Registered plugin packages to load (the CLI passes those enabled for the agent),
    /// in this order, as global x-code plugins after every `plugin_dirs` entry.
    pub packages: Vec<PackageRef>,
    /// Load nothing from plugins (x-code's `--no-plugins`): no x-code plugin directory,
    /// no `plugin_dirs`, no package.
    pub no_plugins: bool,
}

/// What dialect loaders write into while one load runs.
#[derive(Debug)]
#[allow(dead_code, reason = "the dialect loaders read the rest as they land")]
pub(crate) struct LoadContext<'a> {
    pub(crate) env: &'a Environment,
    pub(crate) project: &'a Project,
    pub(crate) options: &'a LoadOptions,
    /// Hooks in load order.
    pub(crate) hooks: Vec<HookDef>,
    /// Diagnostics: a source skipped whole or in part is reported here with
    /// `Severity::Error` (`validate` fails on it, an emit warns and runs the rest).
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Files read.
    pub(crate) files: Vec<PathBuf>,
    /// What the Claude Code layers said so far (`disableAllHooks` needs every layer).
    pub(crate) claude: claude::State,
    /// Hooks left out as duplicates.
    pub(crate) shadowed: Vec<Shadowed>,
    /// The plugin packages loaded so far.
    pub(crate) packages: Vec<Package>,
}

impl LoadContext<'_> {
    /// Reads a config file; `None` when it does not exist. A file that exists but cannot
    /// be read, is not UTF-8 or is larger than [`MAX_SOURCE_BYTES`] is reported as an
    /// error and left out, so that the other sources' hooks still run.
    pub(crate) fn read(&mut self, path: &Path) -> Option<String> {
        let diagnostic = match read_source_bytes(path) {
            Ok(bytes) => match Diagnostic::utf8(path, bytes, Severity::Error) {
                Ok(text) => {
                    self.files.push(path.to_owned());
                    return Some(text);
                }
                Err(diagnostic) => diagnostic,
            },
            Err(err) if err.kind() == ErrorKind::NotFound => return None,
            Err(err) => Diagnostic::file(path, Severity::Error, format!("cannot read: {err}")),
        };
        self.diagnostics.push(diagnostic);
        None
    }
}

/// Reports every hook whose command or environment holds a NUL byte, which no process
/// can be given (arguments, environment and paths are C strings): the hook could never
/// start, so it is an error at its declaration and the hook is left out, as every broken
/// entry is (the other hooks still run). Returns the indexes of the hooks to leave out.
fn nul_bytes(ctx: &mut LoadContext<'_>) -> Vec<usize> {
    let mut left_out = Vec::new();
    for (index, def) in ctx.hooks.iter().enumerate() {
        let command_has_nul = match &def.command {
            CommandDef::Shell { line, script } => {
                line.contains('\0')
                    || script
                        .as_ref()
                        .is_some_and(|s| s.as_os_str().as_encoded_bytes().contains(&0))
            }
            CommandDef::Exec { argv } => argv.iter().any(|a| a.contains('\0')),
            CommandDef::Http { url, headers, .. } => {
                url.contains('\0')
                    || headers
                        .iter()
                        .any(|(k, v)| k.contains('\0') || v.contains('\0'))
            }
        };
        let env_has_nul = def
            .env
            .iter()
            .any(|(name, value)| name.contains('\0') || value.contains('\0'));
        let what = match (command_has_nul, env_has_nul) {
            (true, _) => "command",
            (false, true) => "environment",
            (false, false) => continue,
        };
        let diagnostic = def.diagnostic(
            Severity::Error,
            format!(
                "hook `{}`: its {what} contains a NUL byte, which no process can be given",
                def.spec.name
            ),
        );
        ctx.diagnostics.push(diagnostic);
        left_out.push(index);
    }
    left_out
}

/// The largest config source hookrig reads (a `hooks.toml`, `config.toml`, hygge or
/// Claude Code settings file): 4 MiB. A config file is written by hand; one larger than
/// this is a mistake or an attack, and reading and parsing it on every emit would stall
/// the agent.
pub const MAX_SOURCE_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a config source as text (see [`read_source_bytes`]); bytes that are not UTF-8
/// are an `InvalidData` error without a position. Callers that report a position use
/// [`read_source_bytes`] and [`Diagnostic::utf8`].
pub(crate) fn read_source(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_source_bytes(path)?)
        .map_err(|err| std::io::Error::new(ErrorKind::InvalidData, err))
}

/// Reads a config source: a regular file (a FIFO or a device such as `/dev/zero`, which
/// a repository can name with a symlink, would block or never end) of at most
/// [`MAX_SOURCE_BYTES`].
pub(crate) fn read_source_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;

    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let too_large = || {
        std::io::Error::new(
            ErrorKind::InvalidData,
            format!(
                "the file is larger than {} MiB, the most a config file may hold",
                MAX_SOURCE_BYTES / (1024 * 1024)
            ),
        )
    };
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Loads every source for `env.cwd`: global before project, and within a level in the
/// order native, hygge, x-code, Claude Code, Hence.
///
/// Missing files are fine. A source that is broken or cannot be read never keeps the
/// others' hooks from running: a native file with an error is left out whole (running
/// half of a broken file is worse than running none of it), with every error in the
/// warnings as `Severity::Error`; the other dialects keep their own tools' rules (a bad
/// hygge file is skipped, a bad x-code plugin is rejected alone, a bad Claude Code entry
/// is skipped alone). The user's guards then still decide, whatever a repository ships.
pub fn load(env: &Environment, options: &LoadOptions) -> Result<LoadedConfig, ConfigError> {
    let project = find_project(env);
    let mut ctx = LoadContext {
        env,
        project: &project,
        options,
        hooks: Vec::new(),
        diagnostics: Vec::new(),
        files: Vec::new(),
        shadowed: Vec::new(),
        claude: claude::State::default(),
        packages: Vec::new(),
    };

    // The user's settings: those of the global file.
    let mut settings = Settings::default();
    let mut native_settings = Vec::new();
    for level in [Level::Global, Level::Project] {
        let path = match level {
            Level::Global => Some(env.global_native()),
            Level::Project => project.nearest_file(".hookrig/hooks.toml"),
        };
        if let Some(path) = path
            && let Some(text) = ctx.read(&path)
        {
            match parse_file(&path, &text, level, &mut ctx.diagnostics) {
                Ok(file) => {
                    // A file's `[settings]` apply to that file's hooks only: a project
                    // file starts from the user's settings and changes nothing of the
                    // user's hooks, which have run with the global file's settings
                    // whatever repository the agent is in.
                    let mut own = settings;
                    file.settings.apply(&mut own);
                    if level == Level::Global {
                        settings = own;
                    }
                    for (mut def, own_timeout) in file.hooks {
                        if !own_timeout {
                            def.spec.timeout = own.timeout;
                        }
                        ctx.hooks.push(def);
                    }
                    native_settings.push((path, own));
                }
                Err(errors) => ctx.diagnostics.extend(errors),
            }
        }
        hygge::load(&mut ctx, level);
        xcode::load(&mut ctx, level);
        claude::load(&mut ctx, level);
        hence::load(&mut ctx, level);
    }
    let cannot_start = nul_bytes(&mut ctx);
    let mut index = 0;
    ctx.hooks.retain(|_| {
        index += 1;
        !cannot_start.contains(&(index - 1))
    });
    // A tool that made hookrig its one hook has `hookrig emit` in its own config, which
    // hookrig reads as well: running that entry would call hookrig again without end.
    ctx.hooks.retain(|def| !def.command.calls_hookrig_emit());
    // Last, so that trust sees each hook exactly as it will run.
    ctx.diagnostics.extend(trust::apply(
        &mut ctx.hooks,
        env,
        &project,
        options.trust_only_for.as_ref(),
    ));
    Ok(LoadedConfig {
        hooks: ctx.hooks,
        settings,
        native_settings,
        warnings: ctx.diagnostics,
        files: ctx.files,
        project_root: project.root.clone(),
        shadowed: ctx.shadowed,
        packages: ctx.packages,
    })
}
