//! Where test files are: the project's `.hookrig/tests/*.toml` (the nearest along the
//! walk up from the working directory, as the project's hooks are found) and the
//! user's `$XDG_CONFIG_HOME/hookrig/tests/*.toml`.

use std::path::{Path, PathBuf};

use hookrig_config::Environment;
use hookrig_core::{Diagnostic, Severity};

use crate::case::{self, Case};
use crate::errors::TestingError;

/// The project's test directory, relative to a directory of the walk.
pub const PROJECT_TESTS: &str = ".hookrig/tests";

/// Every test case found, with the problems that left cases out.
#[derive(Debug, Default)]
pub struct Suite {
    /// The cases, project files first, each directory's files by name.
    pub cases: Vec<Case>,
    /// Cases (or files) left out, each at its place.
    pub errors: Vec<Diagnostic>,
    /// Unknown keys and the like.
    pub warnings: Vec<Diagnostic>,
    /// The test files read.
    pub files: Vec<PathBuf>,
}

/// The project's test directory (`.hookrig/tests` of the nearest project directory) and
/// the directory its cases run in (the one holding `.hookrig`).
pub fn project_tests(env: &Environment) -> Option<(PathBuf, PathBuf)> {
    let dir = hookrig_config::find_project(env).nearest_dir(PROJECT_TESTS)?;
    let base = dir.parent()?.parent()?.to_owned();
    Some((dir, base))
}

/// The user's test directory.
pub fn user_tests(env: &Environment) -> PathBuf {
    env.config_home.join("hookrig").join("tests")
}

/// Reads every test file of the project and of the user. Project cases run in the
/// project's directory by default, the user's in the working directory.
pub fn discover(env: &Environment) -> Result<Suite, TestingError> {
    let mut suite = Suite::default();
    if let Some((dir, base)) = project_tests(env) {
        read_dir(&mut suite, &dir, &base)?;
    }
    let user = user_tests(env);
    if user.is_dir() {
        read_dir(&mut suite, &user, &env.cwd)?;
    }
    Ok(suite)
}

fn read_dir(suite: &mut Suite, dir: &Path, base: &Path) -> Result<(), TestingError> {
    let entries =
        std::fs::read_dir(dir).map_err(|err| TestingError::ListDir(dir.to_owned(), err))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml") && path.is_file())
        .collect();
    files.sort();
    for path in files {
        read_file(suite, &path, base);
    }
    Ok(())
}

/// Reads the test file at `path` into `suite`.
pub fn read_file(suite: &mut Suite, path: &Path, base: &Path) {
    suite.files.push(path.to_owned());
    let text = match std::fs::read(path) {
        Ok(bytes) => match Diagnostic::utf8(path, bytes, Severity::Error) {
            Ok(text) => text,
            Err(diagnostic) => {
                suite.errors.push(diagnostic);
                return;
            }
        },
        Err(err) => {
            suite.errors.push(Diagnostic::file(
                path,
                Severity::Error,
                format!("cannot read the test file: {err}"),
            ));
            return;
        }
    };
    let parsed = case::parse(path, &text, base, &mut suite.warnings);
    suite.cases.extend(parsed.cases);
    suite.errors.extend(parsed.errors);
}
