//! Loader for Hence lifecycle hook scripts.
//!
//! Hence runs an executable named after a hook point (`post-complete`, ...) from
//! `.hence/hooks/` in the plan's directory and from `~/.config/hence/hooks/`. hookrig
//! reads those, and its own `.hookrig/hooks/` and `$XDG_CONFIG_HOME/hookrig/hooks/` by
//! the same rules. There is no config file to parse: a script's presence is its
//! declaration, so a missing script is silently nothing, and a script that is there but
//! not executable is reported with Hence's own warning and not registered.
//!
//! `config.toml` (see `settings_file`) sets their timeout (`[settings] hook_timeout`)
//! and, per hook point, `[hooks]`: `false` registers the scripts found as disabled (they
//! are listed, never run), a name looks for that file instead of the hook point's.

use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookrig_core::{Dialect, HookSpec, Level, Matcher, Mode, OnError, Source};

use hookrig_exec::CommandDef;

use crate::definition::HookDef;
use crate::hence::HenceProtocol;
use crate::loader::LoadContext;
use hookrig_config::{HookPoint, HookSetting, Sourced, consulted, load_config_toml_by_level};
use hookrig_core::{Diagnostic, Severity};

const DIALECT: Dialect = Dialect::Hence;

/// What a Hence lifecycle hook needs at run time beyond its script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HenceHook {
    /// The hook point the script is named after.
    pub point: HookPoint,
}

/// Loads this dialect's sources of one level into `ctx`.
///
/// Hence runs local hooks before global ones, while hookrig loads the global level
/// first. Both levels' scripts are therefore loaded during the project pass, local
/// first, each tagged with its true level: listings, `explain` and the Outcome then show
/// them in Hence's order, and since every hook point is a notify event, whose hooks run
/// concurrently, that order is also the order they are started in.
pub(crate) fn load(ctx: &mut LoadContext<'_>, level: Level) {
    if level != Level::Project {
        return;
    }
    let mut dirs: Vec<(PathBuf, Level)> = Vec::new();
    // hookrig's own directory first, then Hence's, which hookrig accepts as an alias.
    for relative in [".hookrig/hooks", ".hence/hooks"] {
        if let Some(dir) = ctx.project.nearest_dir(relative) {
            dirs.push((dir, Level::Project));
        }
    }
    for tool in ["hookrig", "hence"] {
        dirs.push((ctx.env.config_home.join(tool).join("hooks"), Level::Global));
    }
    // config.toml decides what runs (a disabled or renamed hook point) and for how long.
    // A file's settings apply to the hooks of its own level: a project's config.toml
    // never changes what the user's global hooks do. A broken file is left out (its
    // errors are in the diagnostics) and the other files still apply.
    let mut warnings = Vec::new();
    let (global, merged) = load_config_toml_by_level(ctx.env, &mut warnings);
    // What an untrusted project config.toml loses (providers, notifiers, ...) is no
    // concern of the hooks loaded here: that warning belongs to the commands that use
    // those settings, not to every emit in the repository.
    warnings.retain(|w| {
        !merged
            .untrusted
            .iter()
            .any(|u| u.path == w.path && w.line.is_none() && w.severity == Severity::Warning)
    });
    ctx.diagnostics.extend(warnings);
    for (dir, level) in dirs {
        let config = match level {
            Level::Global => &global,
            Level::Project => &merged,
        };
        let timeout = config.hook_timeout();
        for point in HookPoint::ALL {
            let setting = config.hook(point);
            let file = match setting.map(|s| &s.value) {
                Some(HookSetting::Script(name)) => name.as_str(),
                _ => point.name(),
            };
            let hook = Loaded {
                point,
                level,
                timeout,
                disabled_by: setting.filter(|s| s.value == HookSetting::Disabled),
            };
            load_script(ctx, &dir.join(file), &hook);
        }
    }
}

/// What a script found for a hook point is registered with.
struct Loaded<'a> {
    point: HookPoint,
    level: Level,
    timeout: Duration,
    /// The `[hooks] NAME = false` that disabled the hook point.
    disabled_by: Option<&'a Sourced<HookSetting>>,
}

fn load_script(ctx: &mut LoadContext<'_>, path: &Path, hook: &Loaded<'_>) {
    let (point, level) = (hook.point, hook.level);
    let name = point.name();
    let not_executable = || {
        Diagnostic::file(
            path,
            Severity::Warning,
            format!("hook '{name}' is not executable, skipping"),
        )
    };
    match consulted::metadata(path) {
        // Hence: "Hook file not found — silently skipped (not an error)". A dangling
        // symlink is a file that is not there either.
        Err(err) if err.kind() == ErrorKind::NotFound => return,
        Err(err) => {
            ctx.diagnostics.push(Diagnostic::file(
                path,
                Severity::Warning,
                format!("hook '{name}' cannot be read, skipping: {err}"),
            ));
            return;
        }
        // A directory cannot be executed, whatever its mode says.
        Ok(meta) if !meta.is_file() || meta.permissions().mode() & 0o111 == 0 => {
            ctx.diagnostics.push(not_executable());
            return;
        }
        Ok(_) => {}
    }
    // The script runs in exec form, whose argv is text; a lossy path would name another
    // file and fail at every emit, so say it once here instead.
    let Some(program) = path.to_str() else {
        ctx.diagnostics.push(Diagnostic::file(
            path,
            Severity::Warning,
            format!("hook '{name}' has a path that is not valid UTF-8, skipping"),
        ));
        return;
    };
    ctx.files.push(path.to_owned());
    ctx.hooks.push(HookDef {
        spec: HookSpec {
            name: name.to_owned(),
            events: vec![crate::events::resolve(super::events::event_of(point))],
            matcher: Matcher::Any,
            priority: HookSpec::DEFAULT_PRIORITY,
            mode: Mode::Sync,
            enabled: hook.disabled_by.is_none(),
            // Post-commit notifications: a failing hook never undoes or stops anything.
            on_error: OnError::Allow,
            source: Source {
                path: path.to_owned(),
                dialect: DIALECT,
                level,
            },
            description: Some(match hook.disabled_by {
                None => format!(
                    "Hence {name} hook script (runs after {})",
                    super::events::event_of(point)
                ),
                Some(setting) => format!(
                    "Hence {name} hook script, disabled by `{} = false` in {}:{}",
                    name.replace('-', "_"),
                    setting.source.display(),
                    setting.line
                ),
            }),
            timeout: Some(hook.timeout),
            group: None,
            matcher_field: None,
            untrusted: None,
            shadow: false,
            side_effects: true,
        },
        command: CommandDef::Exec {
            argv: vec![program.to_owned()],
        },
        env: Vec::new(),
        protocol: Arc::new(HenceProtocol(HenceHook { point })),
        // The hook is the script file itself: its path is the whole place.
        declared_at: None,
        workers: None,
    });
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use hookrig_config::Environment;

    use crate::loader::{LoadOptions, load as load_all};

    struct World {
        _dir: tempfile::TempDir,
        root: PathBuf,
    }

    impl World {
        fn new() -> Self {
            let dir = tempfile::tempdir().expect("temp dir");
            let root = dir.path().canonicalize().expect("canonical temp dir");
            fs::create_dir_all(root.join("home/.config")).expect("mkdir");
            fs::create_dir_all(root.join("project/.git")).expect("mkdir");
            fs::create_dir_all(root.join("project/sub")).expect("mkdir");
            Self { _dir: dir, root }
        }

        fn env(&self, cwd: &str) -> Environment {
            Environment {
                home: self.root.join("home"),
                config_home: self.root.join("home/.config"),
                state_home: self.root.join("home/.local/state"),
                data_home: self.root.join("home/.local/share"),
                xcode_home: self.root.join("home/.x-code"),
                cwd: self.root.join(cwd),
                trust_all: false,
            }
        }

        fn script(&self, rel: &str, mode: u32) -> PathBuf {
            let path = self.root.join(rel);
            fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            fs::write(&path, "#!/bin/sh\n").expect("write");
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("chmod");
            path
        }

        /// `(name, event, level, path relative to the root)` of every hook loaded.
        fn hooks(&self, cwd: &str) -> Vec<(String, String, Level, String)> {
            let config = load_all(&self.env(cwd), &LoadOptions::default()).expect("loads");
            config
                .hooks
                .iter()
                .map(|h| {
                    assert_eq!(
                        h.command,
                        CommandDef::Exec {
                            argv: vec![h.spec.source.path.display().to_string()]
                        }
                    );
                    (
                        h.spec.name.clone(),
                        h.spec.events[0].as_str().to_owned(),
                        h.spec.source.level,
                        h.spec
                            .source
                            .path
                            .strip_prefix(&self.root)
                            .expect("under root")
                            .display()
                            .to_string(),
                    )
                })
                .collect()
        }
    }

    fn row(name: &str, event: &str, level: Level, path: &str) -> (String, String, Level, String) {
        (name.to_owned(), event.to_owned(), level, path.to_owned())
    }

    #[test]
    fn every_location_local_first_with_true_levels() {
        let w = World::new();
        w.script("home/.config/hence/hooks/post-complete", 0o755);
        w.script("home/.config/hookrig/hooks/post-complete", 0o755);
        w.script("project/.hence/hooks/post-complete", 0o755);
        w.script("project/.hookrig/hooks/post-complete", 0o755);
        let c = "task.completed";
        assert_eq!(
            w.hooks("project/sub"),
            [
                row(
                    "post-complete",
                    c,
                    Level::Project,
                    "project/.hookrig/hooks/post-complete"
                ),
                row(
                    "post-complete",
                    c,
                    Level::Project,
                    "project/.hence/hooks/post-complete"
                ),
                row(
                    "post-complete",
                    c,
                    Level::Global,
                    "home/.config/hookrig/hooks/post-complete"
                ),
                row(
                    "post-complete",
                    c,
                    Level::Global,
                    "home/.config/hence/hooks/post-complete"
                ),
            ]
        );
    }

    #[test]
    fn every_hook_point_maps_to_its_event() {
        let w = World::new();
        for point in HookPoint::ALL {
            w.script(&format!("project/.hence/hooks/{}", point.name()), 0o700);
        }
        w.script("project/.hence/hooks/pre-claim", 0o755);
        let rows: Vec<_> = w
            .hooks("project")
            .into_iter()
            .map(|(name, event, ..)| (name, event))
            .collect();
        let expected: Vec<_> = [
            ("post-claim", "task.claimed"),
            ("post-complete", "task.completed"),
            ("post-block", "task.blocked"),
            ("post-unblock", "task.unblocked"),
            ("post-assert", "plan.asserted"),
            ("post-plan-complete", "plan.completed"),
        ]
        .into_iter()
        .map(|(n, e)| (n.to_owned(), e.to_owned()))
        .collect();
        assert_eq!(rows, expected);
    }

    #[test]
    fn the_nearest_project_directory_wins() {
        let w = World::new();
        w.script("project/.hence/hooks/post-claim", 0o755);
        w.script("project/sub/.hence/hooks/post-block", 0o755);
        assert_eq!(
            w.hooks("project/sub"),
            [row(
                "post-block",
                "task.blocked",
                Level::Project,
                "project/sub/.hence/hooks/post-block"
            )]
        );
    }

    #[test]
    fn missing_scripts_are_nothing_and_say_nothing() {
        let w = World::new();
        fs::create_dir_all(w.root.join("project/.hence/hooks")).expect("mkdir");
        let config = load_all(&w.env("project"), &LoadOptions::default()).expect("loads");
        assert!(config.hooks.is_empty());
        assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    }

    #[test]
    fn a_script_that_is_not_executable_is_warned_about_and_not_loaded() {
        let w = World::new();
        let path = w.script("project/.hence/hooks/post-complete", 0o644);
        fs::create_dir_all(w.root.join("home/.config/hence/hooks/post-claim")).expect("mkdir");
        let config = load_all(&w.env("project"), &LoadOptions::default()).expect("loads");
        assert!(config.hooks.is_empty());
        let warnings: Vec<_> = config.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            [
                format!(
                    "{}: hook 'post-complete' is not executable, skipping",
                    path.display()
                ),
                format!(
                    "{}: hook 'post-claim' is not executable, skipping",
                    w.root.join("home/.config/hence/hooks/post-claim").display()
                ),
            ]
        );
        assert!(
            config
                .warnings
                .iter()
                .all(|d| d.severity == Severity::Warning)
        );
    }

    #[test]
    fn a_script_whose_path_is_not_utf8_is_warned_about() {
        use std::os::unix::ffi::OsStrExt as _;
        let w = World::new();
        let dir = w
            .root
            .join(std::ffi::OsStr::from_bytes(b"project/odd-\xff"));
        fs::create_dir_all(dir.join(".git")).expect("mkdir");
        let hooks = dir.join(".hence/hooks");
        fs::create_dir_all(&hooks).expect("mkdir");
        fs::write(hooks.join("post-claim"), "#!/bin/sh\n").expect("write");
        fs::set_permissions(hooks.join("post-claim"), fs::Permissions::from_mode(0o755))
            .expect("chmod");
        let mut env = w.env("project");
        env.cwd = dir;
        let config = load_all(&env, &LoadOptions::default()).expect("loads");
        assert!(config.hooks.is_empty());
        assert_eq!(config.warnings.len(), 1);
        assert_eq!(
            config.warnings[0].message,
            "hook 'post-claim' has a path that is not valid UTF-8, skipping"
        );
    }

    #[test]
    fn hooks_are_sync_notifications_with_the_hence_default_timeout() {
        let w = World::new();
        w.script("project/.hence/hooks/post-complete", 0o755);
        let config = load_all(&w.env("project"), &LoadOptions::default()).expect("loads");
        let hook = &config.hooks[0];
        assert_eq!(hook.spec.timeout, Some(Duration::from_secs(30)));
        assert_eq!(hook.spec.mode, Mode::Sync);
        assert_eq!(hook.spec.on_error, OnError::Allow);
        assert_eq!(hook.spec.source.dialect, Dialect::Hence);
        assert_eq!(
            hook.protocol_as::<HenceProtocol>(),
            Some(&HenceProtocol(HenceHook {
                point: HookPoint::PostComplete
            }))
        );
    }
}
