//! Diagnostics with spans: a message about a place in a file, `path:line:col: message`,
//! and the line and column of a byte offset. Every loader and parser of hookrig reports
//! through these.

use std::fmt;
use std::path::{Path, PathBuf};

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The config still loads; something was ignored or assumed.
    Warning,
    /// The config cannot be used.
    Error,
}

/// A message about a place in a config file: `path:line:col: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file.
    pub path: PathBuf,
    /// 1-based line, when the place is known.
    pub line: Option<usize>,
    /// 1-based column (in characters), when the place is known.
    pub col: Option<usize>,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong and what to do, lowercase, no trailing period.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic at byte offset `offset` of `text`, the contents of `path`.
    pub fn at(
        path: &Path,
        text: &str,
        offset: Option<usize>,
        severity: Severity,
        message: String,
    ) -> Self {
        let (line, col) = match offset {
            Some(offset) => {
                let (line, col) = line_col(text, offset);
                (Some(line), Some(col))
            }
            None => (None, None),
        };
        Self {
            path: path.to_owned(),
            line,
            col,
            severity,
            message,
        }
    }

    /// `path:line:col: error|warning: message`, as `hookrig validate` prints it.
    pub fn render_with_severity(&self) -> String {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let place = match (self.line, self.col) {
            (Some(line), Some(col)) => format!("{}:{line}:{col}", self.path.display()),
            _ => self.path.display().to_string(),
        };
        format!("{place}: {severity}: {}", self.message)
    }

    /// The contents of the file `path` as text, or a diagnostic at the line and column of
    /// the first byte that is not UTF-8.
    pub fn utf8(path: &Path, bytes: Vec<u8>, severity: Severity) -> Result<String, Self> {
        String::from_utf8(bytes).map_err(|err| {
            let valid = err.utf8_error().valid_up_to();
            let bytes = err.as_bytes();
            // Valid up to there, by the error's own account.
            let before = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
            Diagnostic::at(
                path,
                before,
                Some(valid),
                severity,
                format!(
                    "not valid UTF-8 (byte 0x{:02x}); the file must be UTF-8 text",
                    bytes.get(valid).copied().unwrap_or_default()
                ),
            )
        })
    }

    /// A diagnostic about a whole file.
    pub fn file(path: &Path, severity: Severity, message: String) -> Self {
        Self {
            path: path.to_owned(),
            line: None,
            col: None,
            severity,
            message,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let (Some(line), Some(col)) = (self.line, self.col) {
            write!(f, ":{line}:{col}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The byte offset in `text` of a `serde_json` error's 1-based `line` and `column` (a
/// column counts bytes, and points just past the offending character), clamped to the
/// text; `None` when `serde_json` knows no position (line 0).
pub fn json_offset(text: &str, line: usize, column: usize) -> Option<usize> {
    if line == 0 {
        return None;
    }
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    Some((line_start + column.saturating_sub(1)).min(text.len()))
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.bytes().filter(|b| *b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

/// Line and column of many offsets in one text, each in time independent of the text's
/// size: [`line_col`] scans from the start, which made a report of thousands of
/// findings quadratic.
pub struct LineIndex<'a> {
    text: &'a str,
    /// Byte offset, 1-based line and column of each line start, and of a point every
    /// [`LineIndex::STRIDE`] bytes within long lines.
    marks: Vec<(usize, usize, usize)>,
}

impl<'a> LineIndex<'a> {
    const STRIDE: usize = 4096;

    /// The index of `text`.
    pub fn new(text: &'a str) -> Self {
        let mut marks = vec![(0, 1, 1)];
        let (mut line, mut col, mut last) = (1, 1, 0);
        for (i, c) in text.char_indices() {
            if i - last >= Self::STRIDE {
                marks.push((i, line, col));
                last = i;
            }
            if c == '\n' {
                line += 1;
                col = 1;
                last = i + 1;
                marks.push((last, line, col));
            } else {
                col += 1;
            }
        }
        Self { text, marks }
    }

    /// 1-based line and column (in characters) of byte `offset`, as [`line_col`].
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let at = self.marks.partition_point(|m| m.0 <= offset) - 1;
        let (start, line, col) = self.marks[at];
        (line, col + self.text[start..offset].chars().count())
    }
}

/// An error and its causes on one line, `a: b: c`, leaving out a cause whose text the
/// line already holds (an error that quotes its source's message): for warnings and
/// notices that report an error as text.
pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_characters() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 6), (2, 1));
        assert_eq!(line_col(text, 9), (2, 3));
        assert_eq!(line_col(text, 999), (3, 1));
    }

    #[test]
    fn the_line_index_agrees_with_line_col() {
        let long = "é".repeat(5000);
        let text = format!("ab\n\ncé d\n{long}x\n{long}");
        let index = LineIndex::new(&text);
        // Every 7th offset: both sides of each two-byte character, and every stride.
        for offset in (0..=text.len() + 2).step_by(7) {
            assert_eq!(index.line_col(offset), line_col(&text, offset), "{offset}");
        }
    }
}
