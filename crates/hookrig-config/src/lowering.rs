//! The lowering toolkit: what every config loader uses to turn a parsed file into
//! validated values, with errors and warnings placed in the file (`path:line:col`).
//!
//! A loader makes one [`Lowering`] per file. It parses the file through it ([`Lowering::toml`],
//! [`Lowering::json`]: unknown keys become warnings with a did-you-mean, a syntax error is
//! placed), lowers each raw value with its helpers (durations, regex matchers, names from
//! a list, required strings), and places every problem at a span, a byte offset or a key
//! path. Problems are of two kinds, as loaders leave out either a whole file or one
//! entry:
//!
//! - [`Lowering::error`]: the file is taken whole or not at all (hookrig's own
//!   `hooks.toml`, `config.toml`). Errors are collected, and [`Lowering::finish`] returns
//!   them in file order, since they are found section by section and people read them
//!   top to bottom.
//! - [`Lowering::report`] and [`Lowering::warning`]: the diagnostic goes to the warnings
//!   sink at once, in the order found. Warnings always go there; so do the errors of a
//!   loader that leaves out one entry and keeps the others (hygge, Claude Code, x-code).
//!
//! Nothing here prints: the sink is the caller's.

use std::fmt::Write;
use std::ops::Range;
use std::path::Path;
use std::time::Duration;

use hookrig_core::{Diagnostic, Matcher, Severity};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::settings_file::Sourced;

/// Parses a duration such as `5s`, `250ms` or `1m30s`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text.trim()).map_err(|err| err.to_string())
}

/// toml's messages end with a newline and sometimes a period; ours do neither.
pub fn toml_message(err: &toml::de::Error) -> String {
    err.message().trim().trim_end_matches('.').to_owned()
}

/// `serde_json`'s message without the ` at line L column C` it appends, which a placed
/// diagnostic already says.
pub fn json_message(err: &serde_json::Error) -> String {
    let message = err.to_string();
    message
        .rfind(" at line ")
        .map_or(message.as_str(), |end| &message[..end])
        .to_owned()
}

/// The keys of a path reported by `serde_ignored`, without the wrappers serde adds.
pub fn segments(path: &serde_ignored::Path<'_>) -> Vec<String> {
    let mut out = match path {
        serde_ignored::Path::Root => return Vec::new(),
        serde_ignored::Path::Seq { parent, .. }
        | serde_ignored::Path::Map { parent, .. }
        | serde_ignored::Path::Some { parent }
        | serde_ignored::Path::NewtypeStruct { parent }
        | serde_ignored::Path::NewtypeVariant { parent } => segments(parent),
    };
    match path {
        serde_ignored::Path::Seq { index, .. } => out.push(index.to_string()),
        serde_ignored::Path::Map { key, .. } if !key.starts_with("$__") => out.push(key.clone()),
        _ => {}
    }
    out
}

/// The span of the key at `keys` in the document.
pub fn span_of(root: &DeTable<'_>, keys: &[String]) -> Option<Range<usize>> {
    let (first, rest) = keys.split_first()?;
    let (key, value) = root.get_key_value(first.as_str())?;
    if rest.is_empty() {
        return Some(key.span());
    }
    span_in(value, rest)
}

fn span_in(value: &Spanned<DeValue<'_>>, keys: &[String]) -> Option<Range<usize>> {
    match value.get_ref() {
        DeValue::Table(table) => span_of(table, keys),
        DeValue::Array(array) => {
            let (index, rest) = keys.split_first()?;
            let item = array.get(index.parse::<usize>().ok()?)?;
            if rest.is_empty() {
                Some(item.span())
            } else {
                span_in(item, rest)
            }
        }
        _ => None,
    }
}

/// The candidate closest to `word`, when one is close enough to be a likely typo.
pub fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score > 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// One step of a key path into a JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKey<'a> {
    /// A key of an object.
    Key(&'a str),
    /// An index of an array.
    Index(usize),
}

/// One file being lowered: its path and text, the warnings sink, and the errors found
/// so far. See the module's docs for the two kinds of problems.
#[derive(Debug)]
pub struct Lowering<'a> {
    path: &'a Path,
    text: &'a str,
    sink: &'a mut Vec<Diagnostic>,
    errors: Vec<Diagnostic>,
    /// How many diagnostics were given a place so far.
    placed: usize,
    /// Past this many, a diagnostic is not given a place: finding its line costs a pass
    /// over the text before it, and a loader that shows only so many drops the rest.
    place_limit: usize,
}

impl<'a> Lowering<'a> {
    /// Lowers the file at `path` whose text is `text`; warnings (and reported problems)
    /// go to `sink`.
    pub fn new(path: &'a Path, text: &'a str, sink: &'a mut Vec<Diagnostic>) -> Self {
        Self {
            path,
            text,
            sink,
            errors: Vec::new(),
            placed: 0,
            place_limit: usize::MAX,
        }
    }

    /// Places at most `limit` diagnostics; later ones name the file only.
    #[must_use]
    pub fn with_place_limit(mut self, limit: usize) -> Self {
        self.place_limit = limit;
        self
    }

    /// The file's path.
    pub fn path(&self) -> &'a Path {
        self.path
    }

    /// The file's text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// A diagnostic at byte `at` of the file, or on the file itself when `None`.
    pub fn at(
        &mut self,
        at: Option<usize>,
        severity: Severity,
        message: impl Into<String>,
    ) -> Diagnostic {
        self.placed += 1;
        let at = at.filter(|_| self.placed <= self.place_limit);
        Diagnostic::at(self.path, self.text, at, severity, message.into())
    }

    /// An error that leaves the file out, at `span`.
    pub fn error(&mut self, span: Range<usize>, message: impl Into<String>) {
        self.error_at(Some(span.start), message);
    }

    /// An error that leaves the file out, at byte `at` (the file itself when `None`).
    pub fn error_at(&mut self, at: Option<usize>, message: impl Into<String>) {
        let diagnostic = self.at(at, Severity::Error, message);
        self.errors.push(diagnostic);
    }

    /// A warning at `span`, to the sink.
    pub fn warning(&mut self, span: Range<usize>, message: impl Into<String>) {
        self.report(Some(span.start), Severity::Warning, message);
    }

    /// A diagnostic to the sink at once: a warning, or the error of an entry left out
    /// alone.
    pub fn report(&mut self, at: Option<usize>, severity: Severity, message: impl Into<String>) {
        let diagnostic = self.at(at, severity, message);
        self.sink.push(diagnostic);
    }

    /// Sends `diagnostic`, made with [`Lowering::at`] or [`Lowering::toml_error`], to the
    /// sink.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.sink.push(diagnostic);
    }

    /// How many errors that leave the file out were found so far.
    pub fn error_count(&self) -> usize {
        self.errors.len()
    }

    /// How many diagnostics the sink holds (its own earlier ones included).
    pub fn reported(&self) -> usize {
        self.sink.len()
    }

    /// The errors that leave the file out, in file order; `Ok` when there are none.
    pub fn finish(mut self) -> Result<(), Vec<Diagnostic>> {
        if self.errors.is_empty() {
            return Ok(());
        }
        self.errors.sort_by_key(|d| (d.line, d.col));
        Err(self.errors)
    }

    /// The byte offset of `part`, a slice of the file's text (0 when it is not one).
    pub fn offset_of(&self, part: &str) -> usize {
        (part.as_ptr() as usize)
            .checked_sub(self.text.as_ptr() as usize)
            .filter(|offset| *offset <= self.text.len())
            .unwrap_or(0)
    }

    /// Deserializes the file as TOML into a raw layer, warning about every key `T` does
    /// not know, at its place, with the closest of `known` as a did-you-mean. The error
    /// is toml's, for the caller to place with [`Lowering::toml_error`] as it reports it.
    pub fn toml<T: DeserializeOwned>(&mut self, known: &[&str]) -> Result<T, toml::de::Error> {
        let document = toml::de::Deserializer::parse(self.text)?;
        let mut ignored = Vec::new();
        let raw = serde_ignored::deserialize(document, |p| ignored.push(segments(&p)))?;
        if !ignored.is_empty() {
            // The spanned document is only needed to place unknown keys, which are rare:
            // it is parsed again then rather than kept for every file.
            let root = DeTable::parse(self.text).ok();
            self.unknown_keys(ignored, root.as_ref().map(Spanned::get_ref), known);
        }
        Ok(raw)
    }

    /// Deserializes `root`, the file already parsed as a TOML table, as
    /// [`Lowering::toml`] does.
    pub fn toml_table<T: DeserializeOwned>(
        &mut self,
        root: &Spanned<DeTable<'_>>,
        known: &[&str],
    ) -> Result<T, toml::de::Error> {
        let mut ignored = Vec::new();
        let raw = serde_ignored::deserialize(toml::de::Deserializer::from(root.clone()), |p| {
            ignored.push(segments(&p));
        })?;
        self.unknown_keys(ignored, Some(root.get_ref()), known);
        Ok(raw)
    }

    /// Warns about each key path of `ignored` (as `serde_ignored` reports them), at its
    /// place in `root`, with the closest of `known` as a did-you-mean.
    pub fn unknown_keys(
        &mut self,
        ignored: Vec<Vec<String>>,
        root: Option<&DeTable<'_>>,
        known: &[&str],
    ) {
        for keys in ignored {
            let span = root.and_then(|root| span_of(root, &keys));
            let key = keys.last().cloned().unwrap_or_default();
            let mut message = format!("unknown key `{key}` is ignored");
            if let Some(known) = did_you_mean(&key, known.iter().copied()) {
                let _ = write!(message, "; did you mean `{known}`?");
            }
            self.report(span.map(|s| s.start), Severity::Warning, message);
        }
    }

    /// toml's error placed in the file, with `prefix` before its message.
    pub fn toml_error(
        &mut self,
        err: &toml::de::Error,
        severity: Severity,
        prefix: &str,
    ) -> Diagnostic {
        let message = format!("{prefix}{}", toml_message(err));
        self.at(err.span().map(|s| s.start), severity, message)
    }

    /// Deserializes `part` (the file's text or a slice of it) as JSON; the error is
    /// placed in the file, with `prefix` before `serde_json`'s message.
    pub fn json<'de, T: Deserialize<'de>>(
        &mut self,
        part: &'de str,
        prefix: &str,
    ) -> Result<T, Diagnostic> {
        serde_json::from_str(part).map_err(|err| {
            let base = self.offset_of(part);
            let at = hookrig_core::json_offset(part, err.line(), err.column()).map(|o| base + o);
            let message = format!("{prefix}{}", json_message(&err));
            // A parse error is given its place whatever the limit: it is the one problem.
            Diagnostic::at(self.path, self.text, at, Severity::Error, message)
        })
    }

    /// The byte offset of the value at `path` in the file, a JSON document that
    /// `serde_json` has already parsed (it keeps no positions, so this walks the text);
    /// `None` when the path is not there.
    pub fn json_key(&self, path: &[JsonKey<'_>]) -> Option<usize> {
        json_key_offset(self.text, path)
    }

    /// The duration `raw` gives (`5s`, `500ms`); an error at it made by `message` from
    /// the parser's explanation when it is not one.
    pub fn duration(
        &mut self,
        raw: &Spanned<String>,
        message: impl FnOnce(&str) -> String,
    ) -> Option<Duration> {
        match parse_duration(raw.get_ref()) {
            Ok(duration) => Some(duration),
            Err(err) => {
                self.error(raw.span(), message(&err));
                None
            }
        }
    }

    /// The regex matcher `raw` gives; an error at it (prefixed with `prefix`) saying
    /// what is wrong with the pattern when it is not one.
    pub fn regex(&mut self, raw: &Spanned<String>, prefix: &str) -> Option<Matcher> {
        match Matcher::regex(raw.get_ref()) {
            Ok(matcher) => Some(matcher),
            Err(err) => {
                // The regex engine explains on its last line, after the pattern.
                let detail = std::error::Error::source(&err)
                    .map(ToString::to_string)
                    .unwrap_or_default();
                let detail = detail.lines().last().unwrap_or_default().trim();
                let detail = detail.strip_prefix("error: ").unwrap_or(detail);
                self.error(raw.span(), format!("{prefix}{err}: {detail}"));
                None
            }
        }
    }

    /// One of `choices` by its name: `default` when `raw` is unset, `None` when it names
    /// none of them, reported with `severity` (an error leaves the file out) and the
    /// message `message` makes from the name and the closest choice.
    pub fn choice<T: Copy>(
        &mut self,
        raw: Option<&Spanned<String>>,
        default: T,
        choices: &[(&str, T)],
        severity: Severity,
        message: impl FnOnce(&str, Option<&str>) -> String,
    ) -> Option<T> {
        let Some(raw) = raw else {
            return Some(default);
        };
        let word = raw.get_ref().as_str();
        if let Some((_, value)) = choices.iter().find(|(name, _)| *name == word) {
            return Some(*value);
        }
        let closest = did_you_mean(word, choices.iter().map(|(name, _)| *name));
        let message = message(word, closest);
        match severity {
            Severity::Error => self.error(raw.span(), message),
            Severity::Warning => self.warning(raw.span(), message),
        }
        None
    }

    /// A required, non-blank string: an error at the value when it is blank, at `span`
    /// (the entry) when it is missing.
    pub fn required(
        &mut self,
        field: Option<Spanned<String>>,
        span: &Range<usize>,
        blank: impl FnOnce() -> String,
        missing: impl FnOnce() -> String,
    ) -> Option<String> {
        match field {
            Some(value) if !value.get_ref().trim().is_empty() => Some(value.into_inner()),
            Some(value) => {
                self.error(value.span(), blank());
                None
            }
            None => {
                self.error(span.clone(), missing());
                None
            }
        }
    }

    /// `value` with the file and line of `span`, for a setting that says where it was
    /// set.
    pub fn sourced<T>(&self, value: T, span: &Range<usize>) -> Sourced<T> {
        Sourced {
            value,
            source: self.path.to_owned(),
            line: hookrig_core::line_col(self.text, span.start).0,
        }
    }
}

/// The byte offset of the value at `path` in `text`, a JSON document `serde_json` has
/// already parsed; `None` when the path is not there. [`Lowering::json_key`] is the
/// same for the file being lowered; this is for a loader that gathers a file's problems
/// first and reports them as one diagnostic.
pub fn json_key_offset(text: &str, path: &[JsonKey<'_>]) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = skip_ws(bytes, 0);
    for step in path {
        match *step {
            JsonKey::Key(wanted) => {
                if bytes.get(i) != Some(&b'{') {
                    return None;
                }
                i += 1;
                loop {
                    i = skip_ws(bytes, i);
                    if bytes.get(i) != Some(&b'"') {
                        return None;
                    }
                    let end = skip_string(bytes, i)?;
                    let key: String = serde_json::from_str(text.get(i..end)?).ok()?;
                    i = skip_ws(bytes, end);
                    if bytes.get(i) != Some(&b':') {
                        return None;
                    }
                    i = skip_ws(bytes, i + 1);
                    if key == wanted {
                        break;
                    }
                    i = skip_ws(bytes, skip_value(bytes, i)?);
                    if bytes.get(i) != Some(&b',') {
                        return None;
                    }
                    i += 1;
                }
            }
            JsonKey::Index(wanted) => {
                if bytes.get(i) != Some(&b'[') {
                    return None;
                }
                i = skip_ws(bytes, i + 1);
                for _ in 0..wanted {
                    i = skip_ws(bytes, skip_value(bytes, i)?);
                    if bytes.get(i) != Some(&b',') {
                        return None;
                    }
                    i = skip_ws(bytes, i + 1);
                }
                if matches!(bytes.get(i), None | Some(b']')) {
                    return None;
                }
            }
        }
    }
    Some(i)
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// The end (exclusive) of the string starting at `i`.
fn skip_string(bytes: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        match bytes.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// The end (exclusive) of the value starting at `i`.
fn skip_value(bytes: &[u8], i: usize) -> Option<usize> {
    match bytes.get(i)? {
        b'"' => skip_string(bytes, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match bytes.get(j)? {
                    b'"' => {
                        j = skip_string(bytes, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while bytes
                .get(j)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
            {
                j += 1;
            }
            Some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    struct Raw {
        timeout: Option<Spanned<String>>,
        mode: Option<Spanned<String>>,
    }

    fn rendered(diagnostics: &[Diagnostic]) -> Vec<String> {
        diagnostics.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn errors_come_back_in_file_order_and_warnings_go_to_the_sink() {
        let path = PathBuf::from("/c/x.toml");
        let text = "timeout = \"soon\"\nmode = \"fast\"\ntimout = 1\n";
        let mut sink = Vec::new();
        let mut lowering = Lowering::new(&path, text, &mut sink);
        let raw: Raw = lowering.toml(&["timeout", "mode"]).expect("parses");
        let mode = lowering.choice(
            raw.mode.as_ref(),
            1,
            &[("slow", 1), ("safe", 2)],
            Severity::Error,
            |other, closest| format!("unknown mode `{other}` (closest: {closest:?})"),
        );
        assert_eq!(mode, None);
        let timeout = raw.timeout.as_ref().expect("set");
        assert_eq!(
            lowering.duration(timeout, |err| format!("bad timeout: {err}")),
            None
        );
        let errors = lowering.finish().expect_err("two errors");
        assert_eq!(
            rendered(&errors),
            [
                "/c/x.toml:1:11: bad timeout: expected number at 0",
                "/c/x.toml:2:8: unknown mode `fast` (closest: None)"
            ]
        );
        assert_eq!(
            rendered(&sink),
            ["/c/x.toml:3:1: unknown key `timout` is ignored; did you mean `timeout`?"]
        );
    }

    #[test]
    fn json_errors_and_key_paths_are_placed() {
        let path = PathBuf::from("/c/x.json");
        let text = "{\"a\": [1, {\"b\": true}],\n \"c\": nope}";
        let mut sink = Vec::new();
        let mut lowering = Lowering::new(&path, text, &mut sink);
        let err = lowering
            .json::<serde_json::Value>(text, "invalid: ")
            .expect_err("not JSON");
        assert_eq!(err.to_string(), "/c/x.json:2:8: invalid: expected ident");
        let at = lowering.json_key(&[JsonKey::Key("a"), JsonKey::Index(1), JsonKey::Key("b")]);
        assert_eq!(at.map(|at| &text[at..at + 4]), Some("true"));
        assert_eq!(lowering.json_key(&[JsonKey::Key("z")]), None);
    }

    #[test]
    fn locates_values() {
        let text = "{\"a\": [1, {\"b\\\"\": \"x]\"}, {\"c\": {\"d\": 3}}], \"e\": true}";
        let at = |path: &[JsonKey<'_>]| json_key_offset(text, path).map(|i| &text[i..]);
        assert_eq!(at(&[JsonKey::Key("e")]), Some("true}"));
        assert!(
            at(&[
                JsonKey::Key("a"),
                JsonKey::Index(2),
                JsonKey::Key("c"),
                JsonKey::Key("d")
            ])
            .is_some_and(|s| s.starts_with("3}"))
        );
        assert!(
            at(&[JsonKey::Key("a"), JsonKey::Index(1), JsonKey::Key("b\"")])
                .is_some_and(|s| s.starts_with("\"x]\""))
        );
        assert_eq!(at(&[JsonKey::Key("a"), JsonKey::Index(3)]), None);
        assert_eq!(at(&[JsonKey::Key("zz")]), None);
    }

    #[test]
    fn past_the_place_limit_diagnostics_name_the_file() {
        let path = PathBuf::from("/c/x.json");
        let mut sink = Vec::new();
        let mut lowering = Lowering::new(&path, "{}\n{}", &mut sink).with_place_limit(1);
        lowering.report(Some(3), Severity::Warning, "first");
        lowering.report(Some(3), Severity::Warning, "second");
        assert_eq!(
            rendered(&sink),
            ["/c/x.json:2:1: first", "/c/x.json: second"]
        );
    }
}
