//! Loading every layer for one working directory.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use hookrig_core::Level;

use crate::definition::{LoadedConfig, Settings};
use crate::environment::{Environment, find_project};
use crate::errors::{ConfigError, Diagnostic, Severity};
use crate::native::parse_file;

/// Loads the global then the project native config for `env.cwd`.
///
/// Missing files are fine. Any error in any file fails the whole load, listing every
/// error: running half of a broken config is worse than running none.
pub fn load(env: &Environment) -> Result<LoadedConfig, ConfigError> {
    let project = find_project(env);
    let mut files: Vec<(PathBuf, Level)> = vec![(env.global_native(), Level::Global)];
    if let Some(native) = project.as_ref().and_then(|p| p.native.clone()) {
        files.push((native, Level::Project));
    }

    let mut config = LoadedConfig {
        project_root: project.map(|p| p.root),
        ..LoadedConfig::default()
    };
    let mut errors = Vec::new();
    let mut parsed = Vec::new();
    for (path, level) in files {
        let Some(text) = read(&path, &mut errors) else {
            continue;
        };
        match parse_file(&path, &text, level, &mut config.warnings) {
            Ok(file) => parsed.push(file),
            Err(file_errors) => errors.extend(file_errors),
        }
        config.files.push(path);
    }
    if !errors.is_empty() {
        return Err(ConfigError::Invalid(errors));
    }

    // Settings merge key by key, later layers winning; hooks without their own timeout
    // take the merged default.
    let mut settings = Settings::default();
    for file in &parsed {
        file.settings.apply(&mut settings);
    }
    for file in parsed {
        for (mut def, own_timeout) in file.hooks {
            if !own_timeout {
                def.spec.timeout = settings.timeout;
            }
            config.hooks.push(def);
        }
    }
    config.settings = settings;
    Ok(config)
}

/// Reads a config file; `None` when it does not exist (or could not be read, which is
/// recorded as an error).
fn read(path: &Path, errors: &mut Vec<Diagnostic>) -> Option<String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(err) if err.kind() == ErrorKind::NotFound => None,
        Err(err) => {
            errors.push(Diagnostic::file(
                path,
                Severity::Error,
                format!("cannot read: {err}"),
            ));
            None
        }
    }
}
