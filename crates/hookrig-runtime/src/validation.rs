//! `hookrig validate`: every config source checked, and every script a hook names that
//! is missing or cannot be executed, reported at the hook's declaration.

use std::path::{Path, PathBuf};

use hookrig_config::ConfigError;
use hookrig_core::{Diagnostic, Severity};
use hookrig_dialects::{HookDef, LoadOptions};
use hookrig_exec::CommandDef;

use crate::errors::RuntimeError;
use crate::scope::Scope;

/// What checking every source of a scope found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validation {
    /// Every error and warning, sorted by file, line and column.
    pub diagnostics: Vec<Diagnostic>,
}

impl Validation {
    /// How many of the diagnostics are errors.
    pub fn errors(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// How many of the diagnostics are warnings.
    pub fn warnings(&self) -> usize {
        self.diagnostics.len() - self.errors()
    }

    /// Whether the config passes: no error, and with `strict` no warning either.
    pub fn passes(&self, strict: bool) -> bool {
        self.errors() == 0 && !(strict && self.warnings() > 0)
    }
}

/// Checks every source seen from the scope's working directory (with `options`'
/// plugin packages): what the loaders report, and every script a loaded hook names that
/// is missing or cannot be executed, as an error at the hook's declaration.
pub fn validate(scope: &Scope, options: &LoadOptions) -> Result<Validation, RuntimeError> {
    let mut diagnostics = match hookrig_dialects::load(&scope.env, options) {
        Ok(config) => {
            let mut found = config.warnings;
            found.extend(placed(
                config
                    .hooks
                    .iter()
                    .filter_map(|def| script_problem(def).map(|problem| (def, problem)))
                    .collect(),
            ));
            found
        }
        Err(ConfigError::Invalid { mut errors, other }) => {
            errors.extend(other);
            errors
        }
        Err(err) => return Err(err.into()),
    };
    diagnostics.sort_by(|a, b| (&a.path, a.line, a.col).cmp(&(&b.path, b.line, b.col)));
    Ok(Validation { diagnostics })
}

/// A script a hook names that is missing or cannot be executed: the hook would fail
/// every time it runs.
fn script_problem(def: &HookDef) -> Option<String> {
    let script = script_of(def)?;
    let problem = hookrig_exec::script_problem(&script)?;
    Some(format!("hook `{}`: {problem}", def.spec.name))
}

/// The problems as errors at each hook's declaration, when the loader kept its place.
///
/// Each file is read once and walked once, in the order of the places in it: a file of
/// thousands of such hooks (a repository's settings file, say) must not be read and
/// counted from its start for every one of them.
fn placed(mut problems: Vec<(&HookDef, String)>) -> Vec<Diagnostic> {
    problems.sort_by(|(a, _), (b, _)| {
        (&a.spec.source.path, a.declared_at).cmp(&(&b.spec.source.path, b.declared_at))
    });
    let mut diagnostics = Vec::with_capacity(problems.len());
    // The file being walked: its path, its text, and the place reached so far
    // (byte offset, 1-based line and column in characters).
    let mut walk: Option<(&Path, Option<String>, usize, usize, usize)> = None;
    for (def, message) in problems {
        let path = def.spec.source.path.as_path();
        let mut diagnostic = Diagnostic::file(path, Severity::Error, message);
        if let Some(offset) = def.declared_at {
            if walk.as_ref().is_none_or(|(walked, ..)| *walked != path) {
                walk = Some((path, std::fs::read_to_string(path).ok(), 0, 1, 1));
            }
            if let Some((_, Some(text), at, line, col)) = walk.as_mut() {
                let mut offset = offset.min(text.len());
                while !text.is_char_boundary(offset) {
                    offset -= 1;
                }
                for c in text[*at..offset].chars() {
                    if c == '\n' {
                        *line += 1;
                        *col = 1;
                    } else {
                        *col += 1;
                    }
                }
                *at = offset;
                diagnostic.line = Some(*line);
                diagnostic.col = Some(*col);
            }
        }
        diagnostics.push(diagnostic);
    }
    diagnostics
}

/// The file a hook's command starts, when it names one by path.
///
/// Native and hygge loaders resolve it at load time. Other dialects' command lines
/// (x-code's, Claude Code's) are run by the shell as written, so their first word is
/// read here the way the hook will expand it, with the variables its dialect knows
/// before the hook runs (x-code's `${pluginDir}`, Claude Code's `$CLAUDE_PROJECT_DIR`).
/// A first word that still holds anything the shell would expand, or that is not an
/// absolute path, is left alone: only the shell knows what it runs.
fn script_of(def: &HookDef) -> Option<PathBuf> {
    match &def.command {
        CommandDef::Shell {
            script: Some(script),
            ..
        } => Some(script.clone()),
        CommandDef::Exec { argv } if argv.first().is_some_and(|a| a.contains('/')) => {
            Some(argv[0].clone().into())
        }
        CommandDef::Shell { line, .. } => {
            let variables = def.protocol.line_variables(None)?;
            let word = variables
                .iter()
                .fold(first_word(line)?, |word, (name, value)| {
                    word.replace(name, value)
                });
            absolute_plain(word)
        }
        CommandDef::Exec { .. } | CommandDef::Http { .. } => None,
    }
}

/// The first word of a shell line with its quotes removed; `None` when it holds a
/// backslash (an escape whose meaning is the shell's to decide).
fn first_word(line: &str) -> Option<String> {
    let mut word = String::new();
    let mut quote = None;
    for c in line.trim_start().chars() {
        match (quote, c) {
            (_, '\\') => return None,
            (None, '"' | '\'') => quote = Some(c),
            (Some(open), c) if c == open => quote = None,
            (None, c) if c.is_whitespace() => break,
            (_, c) => word.push(c),
        }
    }
    Some(word)
}

/// `word` as a path when it is absolute and nothing in it is left for the shell.
fn absolute_plain(word: String) -> Option<PathBuf> {
    let plain = word.starts_with('/')
        && !word.contains(['$', '`', '*', '?', '[', ';', '&', '|', '<', '>', '(', ')']);
    plain.then(|| PathBuf::from(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_words_lose_their_quotes_and_stop_at_unquoted_space() {
        assert_eq!(first_word("  /a/b.sh --x").as_deref(), Some("/a/b.sh"));
        assert_eq!(
            first_word(r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh arg"#).as_deref(),
            Some("$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh")
        );
        assert_eq!(
            first_word("'/dir with space/x.sh' y").as_deref(),
            Some("/dir with space/x.sh")
        );
        assert_eq!(first_word(r"/a\ b.sh"), None);
    }

    #[test]
    fn only_absolute_words_with_nothing_left_to_expand_are_scripts() {
        assert_eq!(
            absolute_plain("/a/b.sh".into()),
            Some(PathBuf::from("/a/b.sh"))
        );
        for word in [
            "b.sh",
            "./b.sh",
            "$HOME/b.sh",
            "/a/${env:X}/b.sh",
            "/a/*.sh",
            "jq",
        ] {
            assert_eq!(absolute_plain(word.into()), None, "{word}");
        }
    }

    #[test]
    fn strict_fails_on_warnings_and_errors_always_fail() {
        let at = |severity| Diagnostic::file(Path::new("/a/hooks.toml"), severity, "m".to_owned());
        let warned = Validation {
            diagnostics: vec![at(Severity::Warning)],
        };
        assert_eq!((warned.errors(), warned.warnings()), (0, 1));
        assert!(warned.passes(false));
        assert!(!warned.passes(true));
        let failed = Validation {
            diagnostics: vec![at(Severity::Error), at(Severity::Warning)],
        };
        assert!(!failed.passes(false));
    }
}
