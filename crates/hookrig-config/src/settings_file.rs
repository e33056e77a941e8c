//! `config.toml`: hookrig's (and Hence's) settings file, beside the hook files.
//!
//! Four files are read, global before project, and within a level Hence's alias before
//! hookrig's own name, so that hookrig's file wins where both set a value:
//! `$XDG_CONFIG_HOME/hence/config.toml`, `$XDG_CONFIG_HOME/hookrig/config.toml`, then
//! the nearest `.hence/config.toml` and `.hookrig/config.toml` walking up from the
//! working directory. Each file is parsed into a raw layer with positions, then merged
//! keeping the file every value came from.

use std::fmt::Write as _;
use std::io::ErrorKind;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hookrig_core::Level;
use serde::Deserialize;
use toml::Spanned;
use toml::de::DeTable;

use crate::environment::{Environment, find_project};
use crate::errors::{ConfigError, Diagnostic, Severity};
use crate::native::{did_you_mean, segments, span_of, toml_message};

// Raw layer: exactly what one file says, with positions.

#[derive(Debug, Default, Deserialize)]
struct RawFile {
    settings: Option<RawSettings>,
}

#[derive(Debug, Default, Deserialize)]
struct RawSettings {
    hook_timeout: Option<Spanned<i64>>,
    plugin_path: Option<Spanned<Vec<Spanned<String>>>>,
}

const KNOWN_KEYS: &[&str] = &["settings", "hook_timeout", "plugin_path"];

/// A value and the file it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sourced<T> {
    /// The value, resolved.
    pub value: T,
    /// The file that set it.
    pub source: PathBuf,
    /// 1-based line of the value in that file.
    pub line: usize,
}

/// The merged `config.toml` of one working directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigToml {
    /// The files read, in merge order (later wins).
    pub files: Vec<PathBuf>,
    /// `[settings] hook_timeout`: how long a Hence lifecycle hook may run.
    pub hook_timeout: Option<Sourced<Duration>>,
    /// `[settings] plugin_path`: extra directories searched for external commands, as
    /// absolute paths. The value of the file merged last that sets it, as for every
    /// other setting.
    pub plugin_path: Option<Sourced<Vec<PathBuf>>>,
}

impl ConfigToml {
    /// `hook_timeout`, or Hence's default of 30 s.
    pub fn hook_timeout(&self) -> Duration {
        self.hook_timeout
            .as_ref()
            .map_or(DEFAULT_HOOK_TIMEOUT, |t| t.value)
    }
}

/// Hence's default hook timeout.
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(30);

/// The `config.toml` files of `env`, in merge order, each with its level and the
/// directory its relative paths are resolved against: the directory that holds
/// `.hookrig/` or `.hence/` for a project file, the file's own directory for a global
/// one.
pub fn config_toml_paths(env: &Environment) -> Vec<(PathBuf, Level, PathBuf)> {
    let mut paths = Vec::new();
    for tool in ["hence", "hookrig"] {
        let dir = env.config_home.join(tool);
        paths.push((dir.join("config.toml"), Level::Global, dir));
    }
    let project = find_project(env);
    for tool in [".hence", ".hookrig"] {
        if let Some(path) = project.nearest_file(&format!("{tool}/config.toml")) {
            let base = path
                .parent()
                .and_then(Path::parent)
                .unwrap_or(Path::new("/"))
                .to_owned();
            paths.push((path, Level::Project, base));
        }
    }
    paths
}

/// Reads and merges every `config.toml` of `env`. Missing files are fine; warnings
/// (unknown keys) go to `warnings`; any error fails the whole load, listing every error.
pub fn load_config_toml(
    env: &Environment,
    warnings: &mut Vec<Diagnostic>,
) -> Result<ConfigToml, ConfigError> {
    let mut merged = ConfigToml::default();
    let mut errors = Vec::new();
    for (path, _level, base) in config_toml_paths(env) {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) if err.kind() == ErrorKind::NotFound => continue,
            Err(err) => {
                errors.push(Diagnostic::file(
                    &path,
                    Severity::Error,
                    format!("cannot read: {err}"),
                ));
                continue;
            }
        };
        merged.files.push(path.clone());
        match parse_layer(&path, &text, &base, &env.home, warnings) {
            Ok(layer) => layer.merge_into(&mut merged),
            Err(found) => errors.extend(found),
        }
    }
    if errors.is_empty() {
        Ok(merged)
    } else {
        Err(ConfigError::Invalid(errors))
    }
}

/// One file, lowered: every value resolved and tagged with its place.
#[derive(Debug, Default)]
struct Layer {
    hook_timeout: Option<Sourced<Duration>>,
    plugin_path: Option<Sourced<Vec<PathBuf>>>,
}

impl Layer {
    fn merge_into(self, merged: &mut ConfigToml) {
        if self.hook_timeout.is_some() {
            merged.hook_timeout = self.hook_timeout;
        }
        if self.plugin_path.is_some() {
            merged.plugin_path = self.plugin_path;
        }
    }
}

/// Parses one `config.toml`; `base` resolves relative paths, `home` expands `~/`.
fn parse_layer(
    path: &Path,
    text: &str,
    base: &Path,
    home: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Layer, Vec<Diagnostic>> {
    let mut lower = Lower {
        path,
        text,
        errors: Vec::new(),
    };
    let document = toml::de::Deserializer::parse(text)
        .map_err(|err| vec![lower.diagnostic(err.span(), toml_message(&err))])?;
    let mut ignored = Vec::new();
    let raw: RawFile = serde_ignored::deserialize(document, |p| ignored.push(segments(&p)))
        .map_err(|err| vec![lower.diagnostic(err.span(), toml_message(&err))])?;
    if !ignored.is_empty() {
        let root = DeTable::parse(text).ok();
        for keys in ignored {
            let span = root
                .as_ref()
                .and_then(|root| span_of(root.get_ref(), &keys));
            let key = keys.last().cloned().unwrap_or_default();
            let mut message = format!("unknown key `{key}` is ignored");
            if let Some(known) = did_you_mean(&key, KNOWN_KEYS.iter().copied()) {
                let _ = write!(message, "; did you mean `{known}`?");
            }
            warnings.push(Diagnostic::at(
                path,
                text,
                span.map(|s| s.start),
                Severity::Warning,
                message,
            ));
        }
    }
    let mut layer = Layer::default();
    if let Some(settings) = raw.settings {
        if let Some(timeout) = settings.hook_timeout {
            match u64::try_from(*timeout.get_ref()) {
                Ok(seconds) if seconds > 0 => {
                    layer.hook_timeout =
                        Some(lower.sourced(Duration::from_secs(seconds), &timeout.span()));
                }
                _ => lower.error(
                    timeout.span(),
                    format!(
                        "`hook_timeout` must be a positive number of seconds, got {}",
                        timeout.get_ref()
                    ),
                ),
            }
        }
        if let Some(dirs) = settings.plugin_path {
            let span = dirs.span();
            let mut resolved = Vec::new();
            for dir in dirs.into_inner() {
                if dir.get_ref().is_empty() {
                    lower.error(dir.span(), "`plugin_path` entries must not be empty".into());
                    continue;
                }
                resolved.push(resolve_path(dir.get_ref(), base, home));
            }
            layer.plugin_path = Some(lower.sourced(resolved, &span));
        }
    }
    if lower.errors.is_empty() {
        Ok(layer)
    } else {
        Err(lower.errors)
    }
}

/// `~/x` is under `home`; a relative path is under `base`.
fn resolve_path(text: &str, base: &Path, home: &Path) -> PathBuf {
    if text == "~" {
        home.to_owned()
    } else if let Some(rest) = text.strip_prefix("~/") {
        home.join(rest)
    } else {
        base.join(text)
    }
}

struct Lower<'a> {
    path: &'a Path,
    text: &'a str,
    errors: Vec<Diagnostic>,
}

impl Lower<'_> {
    fn diagnostic(&self, span: Option<Range<usize>>, message: String) -> Diagnostic {
        Diagnostic::at(
            self.path,
            self.text,
            span.map(|s| s.start),
            Severity::Error,
            message,
        )
    }

    fn error(&mut self, span: Range<usize>, message: String) {
        let diagnostic = self.diagnostic(Some(span), message);
        self.errors.push(diagnostic);
    }

    fn sourced<T>(&self, value: T, span: &Range<usize>) -> Sourced<T> {
        Sourced {
            value,
            source: self.path.to_owned(),
            line: crate::errors::line_col(self.text, span.start).0,
        }
    }
}

#[cfg(test)]
mod tests {
    use indoc::indoc;

    use super::*;

    fn env(root: &Path) -> Environment {
        Environment {
            home: root.join("home"),
            config_home: root.join("home/.config"),
            state_home: root.join("home/.local/state"),
            data_home: root.join("home/.local/share"),
            xcode_home: root.join("home/.x-code"),
            cwd: root.join("project/sub"),
            trust_all: false,
        }
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    fn world() -> (tempfile::TempDir, Environment) {
        let dir = tempfile::tempdir().expect("tempdir");
        let env = env(dir.path());
        std::fs::create_dir_all(dir.path().join("project/.git")).expect("mkdir");
        std::fs::create_dir_all(&env.cwd).expect("mkdir");
        (dir, env)
    }

    #[test]
    fn plugin_path_resolves_against_its_level_and_the_local_file_wins() {
        let (dir, env) = world();
        let root = dir.path();
        write(
            &root.join("home/.config/hookrig/config.toml"),
            "[settings]\nplugin_path = [\"plugins\", \"~/bin\", \"/opt/x\"]\nhook_timeout = 10\n",
        );
        let mut warnings = Vec::new();
        let merged = load_config_toml(&env, &mut warnings).expect("loads");
        let plugin_path = merged.plugin_path.clone().expect("set");
        assert_eq!(
            plugin_path.value,
            [
                root.join("home/.config/hookrig/plugins"),
                root.join("home/bin"),
                PathBuf::from("/opt/x"),
            ]
        );
        assert_eq!(plugin_path.line, 2);
        assert_eq!(merged.hook_timeout(), Duration::from_secs(10));

        write(
            &root.join("project/.hence/config.toml"),
            "[settings]\nplugin_path = [\"tools\"]\n",
        );
        let merged = load_config_toml(&env, &mut warnings).expect("loads");
        let plugin_path = merged.plugin_path.clone().expect("set");
        assert_eq!(plugin_path.value, [root.join("project/tools")]);
        assert_eq!(plugin_path.source, root.join("project/.hence/config.toml"));
        // Not set locally: the global value stays.
        assert_eq!(merged.hook_timeout(), Duration::from_secs(10));
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn syntax_errors_have_a_position() {
        let (dir, env) = world();
        let path = dir.path().join("project/.hookrig/config.toml");
        write(
            &path,
            indoc! {"
            [settings]
            hook_timeout = = 3
        "},
        );
        let Err(ConfigError::Invalid(errors)) = load_config_toml(&env, &mut Vec::new()) else {
            panic!("a syntax error fails the load");
        };
        assert_eq!(errors.len(), 1);
        assert_eq!((errors[0].line, errors[0].col), (Some(2), Some(16)));
        assert_eq!(errors[0].path, path);
    }

    #[test]
    fn unknown_keys_warn_and_the_load_goes_on() {
        let (dir, env) = world();
        write(
            &dir.path().join("home/.config/hence/config.toml"),
            "[settings]\nplugin_pth = []\nhook_timeout = 5\n",
        );
        let mut warnings = Vec::new();
        let merged = load_config_toml(&env, &mut warnings).expect("loads");
        assert_eq!(merged.hook_timeout(), Duration::from_secs(5));
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].line, Some(2));
        assert_eq!(
            warnings[0].message,
            "unknown key `plugin_pth` is ignored; did you mean `plugin_path`?"
        );
    }
}
