//! The shapes plain-text reports share: a table of left-aligned columns and a counted
//! noun. Each library renders its own reports (`hookrig doctor`, `hookrig runs`, ...)
//! so that every caller prints the same text; these keep their tables and counts
//! alike.

use std::fmt::Write as _;

/// Left-aligned columns two spaces apart, under a header; the last column is not
/// padded, and no line ends in spaces.
pub fn table<const N: usize>(header: &[&str; N], rows: &[[String; N]]) -> String {
    let mut widths = header.map(str::len);
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    let header = header.map(str::to_owned);
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == N {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<width$}  ", width = widths[i]);
            }
        }
        let _ = writeln!(text, "{}", line.trim_end());
    }
    text
}

/// `1 error`, `2 errors`.
pub fn count(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// `a`, `a or b`, `a, b or c`.
pub fn or_list(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Each line of `text` after `[label] `; a last line without a newline stays without
/// one, so text that arrives in pieces is labelled line by line.
pub fn labelled(label: &str, text: &str) -> String {
    text.split_inclusive('\n')
        .fold(String::new(), |mut out, line| {
            let _ = write!(out, "[{label}] {line}");
            out
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_pads_every_column_but_the_last() {
        let rows = [
            ["api".to_owned(), "running".to_owned(), String::new()],
            [
                "documentation".to_owned(),
                "ok".to_owned(),
                "last".to_owned(),
            ],
        ];
        assert_eq!(
            table(&["TASK", "STATE", "NOTE"], &rows),
            "TASK           STATE    NOTE\n\
             api            running\n\
             documentation  ok       last\n"
        );
    }

    #[test]
    fn a_count_says_one_without_a_plural() {
        assert_eq!(count(0, "hook"), "0 hooks");
        assert_eq!(count(1, "hook"), "1 hook");
        assert_eq!(count(2, "error"), "2 errors");
    }

    #[test]
    fn or_lists_read_as_english() {
        let words = |w: &[&str]| w.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        assert_eq!(or_list(&words(&[])), "");
        assert_eq!(or_list(&words(&["a"])), "a");
        assert_eq!(or_list(&words(&["a", "b"])), "a or b");
        assert_eq!(or_list(&words(&["a", "b", "c"])), "a, b or c");
    }

    #[test]
    fn labels_go_before_every_line() {
        assert_eq!(
            labelled("api", "a\nb\npartial"),
            "[api] a\n[api] b\n[api] partial"
        );
        assert_eq!(labelled("api", ""), "");
    }
}
