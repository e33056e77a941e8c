//! Loading every source, every dialect, for one working directory.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use hookrig_config::{ConfigError, Environment, Project, find_project, read_source_bytes};

use hookrig_core::{Diagnostic, Severity};
use hookrig_core::{EventName, Level, Payload};
use hookrig_exec::CommandDef;

use crate::definition::{HookDef, LoadedConfig, Settings, Shadowed};
use crate::xcode::{Package, PackageRef};
use crate::{claude, codex, cursor, gemini, hence, hygge, native, trust, xcode};

/// A dialect's loader: reads its sources of one level into the load.
type Loader = fn(&mut LoadContext<'_>, Level);

/// Every dialect's loader, in discovery order within a level: native, hygge, x-code,
/// Claude Code, Hence.
const LOADERS: &[Loader] = &[
    native::load,
    hygge::load,
    xcode::load,
    claude::load,
    gemini::load,
    codex::load,
    hence::load,
    cursor::load,
];

/// The most diagnostics one settings or hooks file of a host reports; the rest are
/// counted in one more. Finding a diagnostic's line costs a pass over the text before
/// it, so a file of thousands of bad entries would otherwise cost time quadratic in its
/// size.
pub(crate) const MAX_DIAGNOSTICS: usize = 50;

/// Keeps the first [`MAX_DIAGNOSTICS`] of the diagnostics from `first` on, and says how
/// many more there were (as an error when one of them was).
pub(crate) fn limit_diagnostics(path: &Path, diagnostics: &mut Vec<Diagnostic>, first: usize) {
    if diagnostics.len() - first <= MAX_DIAGNOSTICS {
        return;
    }
    let dropped = diagnostics.split_off(first + MAX_DIAGNOSTICS);
    let severity = dropped
        .iter()
        .map(|d| d.severity)
        .max()
        .unwrap_or(Severity::Warning);
    diagnostics.push(Diagnostic::file(
        path,
        severity,
        format!(
            "{} more problems in this file are not shown; fix the ones above first",
            dropped.len()
        ),
    ));
}

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
    /// The agent host hookrig answers as that host's own hook (`emit --dialect HOST`).
    /// That host runs the hooks of its own plugins and extensions itself, beside hookrig's
    /// entry, so they are not loaded: each runs once. Claude Code's installed plugins,
    /// Codex's plugins and Gemini CLI's extensions; `None` (a native emit, `list`)
    /// loads them all.
    pub host: Option<hookrig_core::Dialect>,
}

impl LoadOptions {
    /// Whether `host` is the host being answered, whose add-ons run without hookrig.
    pub(crate) fn answering(&self, host: hookrig_core::Dialect) -> bool {
        self.host == Some(host)
    }
}

/// What dialect loaders write into while one load runs.
#[derive(Debug)]
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
    /// What the Gemini CLI layers said so far (`disabled` and `sequential` need every layer).
    pub(crate) gemini: gemini::State,
    /// Hooks left out as duplicates.
    pub(crate) shadowed: Vec<Shadowed>,
    /// The plugin packages loaded so far.
    pub(crate) packages: Vec<Package>,
    /// The user's settings: those of the global native file.
    pub(crate) settings: Settings,
    /// Each native file read and the settings its own hooks run with.
    pub(crate) native_settings: Vec<(PathBuf, Settings)>,
}

impl<'a> LoadContext<'a> {
    /// An empty load of `project`.
    pub(crate) fn new(
        env: &'a Environment,
        project: &'a Project,
        options: &'a LoadOptions,
    ) -> Self {
        Self {
            env,
            project,
            options,
            hooks: Vec::new(),
            diagnostics: Vec::new(),
            files: Vec::new(),
            shadowed: Vec::new(),
            claude: claude::State::default(),
            gemini: gemini::State::default(),
            packages: Vec::new(),
            settings: Settings::default(),
            native_settings: Vec::new(),
        }
    }

    /// Reads a config file; `None` when it does not exist. A file that exists but cannot
    /// be read, is not UTF-8 or is larger than [`hookrig_config::MAX_SOURCE_BYTES`] is reported as an
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
    // One look at each path for the reading and the trust check together.
    hookrig_config::consulted::looking(|| {
        Ok(read_sources(env, options).into_trusted(env, options.trust_only_for.as_ref()))
    })
}

/// Every source of one working directory read and lowered, before the project hooks'
/// trust is checked: what [`load`] reads from files, and what a resident engine keeps
/// between emits while the files it came from stay as they were (see
/// [`hookrig_config::consulted`]). Trust is checked on each use, against the trust store
/// and the scripts as they are then.
#[derive(Debug, Clone)]
pub struct Sources {
    config: LoadedConfig,
    project: Project,
}

/// Reads every source for `env.cwd` as [`load`] does, leaving trust to
/// [`Sources::trusted`]. `options.trust_only_for` is not used.
///
/// Each path is examined once ([`hookrig_config::consulted::looking`]): the dialects
/// look for the same files and walk the same directories.
pub fn read_sources(env: &Environment, options: &LoadOptions) -> Sources {
    hookrig_config::consulted::looking(|| read_sources_once(env, options))
}

fn read_sources_once(env: &Environment, options: &LoadOptions) -> Sources {
    let project = find_project(env);
    let mut ctx = LoadContext::new(env, &project, options);

    for level in [Level::Global, Level::Project] {
        for load in LOADERS {
            load(&mut ctx, level);
        }
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
    let config = LoadedConfig {
        hooks: ctx.hooks,
        settings: ctx.settings,
        native_settings: ctx.native_settings,
        warnings: ctx.diagnostics,
        files: ctx.files,
        project_root: project.root.clone(),
        shadowed: ctx.shadowed,
        packages: ctx.packages,
    };
    Sources { config, project }
}

impl Sources {
    /// How many hooks were loaded.
    pub fn hook_count(&self) -> usize {
        self.config.hooks.len()
    }

    /// The loaded config with the project hooks the trust store does not trust as they
    /// are now marked untrusted: every project hook, or only those that would run for
    /// `only_for` (an emit runs nothing else, and hashing every project hook on each
    /// emit is wasted work; the others are then left unmarked).
    pub fn trusted(
        &self,
        env: &Environment,
        only_for: Option<&(EventName, Payload)>,
    ) -> LoadedConfig {
        self.clone().into_trusted(env, only_for)
    }

    /// [`Sources::trusted`] for sources used once: a one-shot emit copies nothing.
    pub fn into_trusted(
        self,
        env: &Environment,
        only_for: Option<&(EventName, Payload)>,
    ) -> LoadedConfig {
        let Sources {
            mut config,
            project,
        } = self;
        // Last, so that trust sees each hook exactly as it will run.
        config
            .warnings
            .extend(trust::apply(&mut config.hooks, env, &project, only_for));
        config
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use hookrig_config::consulted;

    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    /// A home and a project with a source of every dialect at each level.
    fn every_dialect(root: &Path) -> (Environment, Vec<PathBuf>) {
        let home = root.join("home");
        let project = root.join("project");
        std::fs::create_dir_all(project.join(".git")).expect("mkdir");
        let native = "[[hooks]]\nname = \"n\"\nevents = [\"tool.before\"]\ncommand = \"true\"\n";
        let hygge = "[hooks.h]\nevents = [\"pre_tool\"]\ncommand = \"true\"\n";
        let claude =
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#;
        let plugin = r#"{"name": "p", "hooks": {"PreToolUse": [{"command": "true"}]}}"#;
        let cursor = r#"{"version": 1, "hooks": {"stop": [{"command": "true"}]}}"#;
        let plugin_g = r#"{"name": "g", "hooks": {"PreToolUse": [{"command": "true"}]}}"#;
        let mut sources = Vec::new();
        for (base, config) in [
            (home.clone(), home.join(".config")),
            (project.clone(), project.clone()),
        ] {
            let global = base == home;
            let files = [
                (
                    if global {
                        config.join("hookrig/hooks.toml")
                    } else {
                        base.join(".hookrig/hooks.toml")
                    },
                    native,
                ),
                (base.join(".agents/hooks.toml"), hygge),
                (base.join(".claude/settings.json"), claude),
                (base.join(".cursor/hooks.json"), cursor),
                (
                    if global {
                        home.join(".local/share/hookrig/plugins/g/plugin.json")
                    } else {
                        base.join(".hookrig/plugins/p/plugin.json")
                    },
                    if global { plugin_g } else { plugin },
                ),
            ];
            for (path, text) in files {
                write(&path, text);
                sources.push(path);
            }
            let hence = if global {
                config.join("hence/hooks/post-claim")
            } else {
                base.join(".hence/hooks/post-claim")
            };
            write(&hence, "#!/bin/sh\n");
            std::fs::set_permissions(&hence, std::fs::Permissions::from_mode(0o755))
                .expect("chmod");
            sources.push(hence);
        }
        let vars = |name: &str| (name == "HOME").then(|| home.clone().into_os_string());
        let env = Environment::from_vars(project.join("sub"), vars).expect("env");
        std::fs::create_dir_all(&env.cwd).expect("mkdir");
        (env, sources)
    }

    #[test]
    fn every_source_of_every_dialect_is_consulted() {
        // guards: a resident engine keeps a load only as long as what it consulted is
        // unchanged, so every file a dialect reads, and every place a source could
        // appear, must be noted: removing any one source is a change, and so is adding
        // one where a dialect looked and found none
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().canonicalize().expect("canonical");
        let (env, sources) = every_dialect(&root);
        let (loaded, consulted) = consulted::record(|| read_sources(&env, &LoadOptions::default()));
        assert!(
            loaded.config.warnings.is_empty(),
            "{:#?}",
            loaded.config.warnings
        );
        // One hook per source, but the project's Claude Code hook: the same handler as
        // the user's, which Claude Code runs once.
        assert_eq!(loaded.hook_count(), 11);
        let noted: Vec<&Path> = consulted.paths().map(|(path, _)| path).collect();
        for file in &loaded.config.files {
            assert!(
                noted.contains(&file.as_path()),
                "read but not noted: {file:?}"
            );
        }
        for source in &sources {
            let text = std::fs::read(source).expect("read");
            std::fs::remove_file(source).expect("rm");
            assert!(!consulted.unchanged(), "removing {source:?} is not seen");
            std::fs::write(source, text).expect("write back");
        }
        // Nearer than every source above: where each dialect would look first.
        for nearer in [
            ".hookrig/hooks.toml",
            ".agents/hooks.toml",
            ".hygge/hooks.toml",
            ".claude/settings.local.json",
            ".cursor/hooks.json",
            // The sidecars `hookrig install` writes: a resident engine must see one
            // appear, or the hooks moved into it would not run until it restarts.
            ".claude/settings.hookrig.json",
            ".gemini/settings.hookrig.json",
            ".codex/hooks.hookrig.json",
            ".codex/config.hookrig.toml",
        ] {
            let (_, consulted) = consulted::record(|| read_sources(&env, &LoadOptions::default()));
            let path = env.cwd.join(nearer);
            write(&path, "");
            assert!(!consulted.unchanged(), "a new {nearer} is not seen");
            std::fs::remove_file(&path).expect("rm");
        }
    }
}
