//! Loading every source, every dialect, for one working directory.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use hookrig_core::{EventName, Level, Payload};

use crate::definition::{CommandDef, HookDef, LoadedConfig, ProtocolDef, Settings, Shadowed};
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
    /// Diagnostics that do not stop the load (a dialect that skips a bad entry, as its
    /// own tool would, reports it here, with `Severity::Error` when `validate` should
    /// fail on it).
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Errors that stop the load: nothing runs.
    pub(crate) errors: Vec<Diagnostic>,
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
    /// be read is reported (fatally when `fatal`).
    pub(crate) fn read(&mut self, path: &Path, fatal: bool) -> Option<String> {
        let diagnostic = match std::fs::read(path) {
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
        if fatal {
            self.errors.push(diagnostic);
        } else {
            self.diagnostics.push(diagnostic);
        }
        None
    }
}

/// Reports every hook whose command or environment holds a NUL byte, which no process
/// can be given (arguments, environment and paths are C strings): the hook could never
/// start, so it is an error at its declaration. In a native file it fails the load, as
/// every native error does; in the other dialects the hook is left out, as they leave
/// out their other broken entries. Returns the indexes of the hooks to leave out.
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
        if matches!(def.protocol, ProtocolDef::Native) {
            ctx.errors.push(diagnostic);
        } else {
            ctx.diagnostics.push(diagnostic);
            left_out.push(index);
        }
    }
    left_out
}

/// Loads every source for `env.cwd`: global before project, and within a level in the
/// order native, hygge, x-code, Claude Code, Hence.
///
/// Missing files are fine. An error in a native file fails the whole load, listing every
/// error: running half of a broken config is worse than running none. The other
/// dialects keep their own tools' rules (a bad hygge file is skipped with a warning, a
/// bad x-code plugin is rejected alone).
pub fn load(env: &Environment, options: &LoadOptions) -> Result<LoadedConfig, ConfigError> {
    let project = find_project(env);
    let mut ctx = LoadContext {
        env,
        project: &project,
        options,
        hooks: Vec::new(),
        diagnostics: Vec::new(),
        errors: Vec::new(),
        files: Vec::new(),
        shadowed: Vec::new(),
        claude: claude::State::default(),
        packages: Vec::new(),
    };

    let mut settings = Settings::default();
    let mut native = Vec::new();
    for level in [Level::Global, Level::Project] {
        let path = match level {
            Level::Global => Some(env.global_native()),
            Level::Project => project.nearest_file(".hookrig/hooks.toml"),
        };
        if let Some(path) = path
            && let Some(text) = ctx.read(&path, true)
        {
            match parse_file(&path, &text, level, &mut ctx.diagnostics) {
                Ok(file) => {
                    file.settings.apply(&mut settings);
                    for (def, own_timeout) in file.hooks {
                        native.push((ctx.hooks.len(), own_timeout));
                        ctx.hooks.push(def);
                    }
                }
                Err(errors) => ctx.errors.extend(errors),
            }
        }
        hygge::load(&mut ctx, level);
        xcode::load(&mut ctx, level);
        claude::load(&mut ctx, level);
        hence::load(&mut ctx, level);
    }
    let cannot_start = nul_bytes(&mut ctx);
    if !ctx.errors.is_empty() {
        return Err(ConfigError::Invalid {
            errors: ctx.errors,
            other: ctx.diagnostics,
        });
    }

    // Native settings merge key by key, later layers winning; native hooks without their
    // own timeout take the merged default.
    for (index, own_timeout) in native {
        if !own_timeout {
            ctx.hooks[index].spec.timeout = settings.timeout;
        }
    }
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
        warnings: ctx.diagnostics,
        files: ctx.files,
        project_root: project.root.clone(),
        shadowed: ctx.shadowed,
        packages: ctx.packages,
    })
}
