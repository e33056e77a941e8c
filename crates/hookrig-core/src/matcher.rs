//! Matchers: which tool names a hook applies to.

use regex::Regex;

use crate::errors::MatcherError;

/// Decides whether a hook applies to a tool name.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Every tool, and events without a tool.
    Any,
    /// An unanchored alternation of plain names (`write_file|edit`): true when any of
    /// them occurs in the tool name. This is exactly what the regex would match, without
    /// compiling one: config files list hundreds of such matchers and emit only needs
    /// the few on its event.
    Literals(Vec<String>),
    /// A list of names, each compared for exact equality with the tool name (Claude Code's
    /// `Edit|Write`, which does not match `MultiEdit`).
    Exact(Vec<String>),
    /// One plain name with anchors (`^mcp__fs__.*$`, `^bash$`, `_write$`): what the regex
    /// would match, tested with `starts_with`/`ends_with`/`==` instead of compiling it.
    Anchored {
        /// The pattern as written.
        pattern: String,
        /// The plain name between the anchors.
        literal: String,
        /// The name must start the tool name.
        start: bool,
        /// The name must end the tool name.
        end: bool,
    },
    /// Any other pattern, tested unanchored.
    Regex(Regex),
}

impl Matcher {
    /// Parses an unanchored regex, using the literal fast path when the pattern has no
    /// regex syntax but `|`.
    pub fn regex(pattern: &str) -> Result<Matcher, MatcherError> {
        if pattern.is_empty() {
            return Ok(Matcher::Any);
        }
        let plain = pattern
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'|');
        if plain {
            // An empty alternative (`a||b`, `a|`) matches the empty string, so it matches
            // every tool name, as the regex would.
            if pattern.split('|').any(str::is_empty) {
                return Ok(Matcher::Any);
            }
            return Ok(Matcher::Literals(
                pattern.split('|').map(str::to_owned).collect(),
            ));
        }
        if let Some(anchored) = anchored_literal(pattern) {
            return Ok(anchored);
        }
        Regex::new(pattern)
            .map(Matcher::Regex)
            .map_err(|source| MatcherError {
                pattern: pattern.to_owned(),
                source: Box::new(source),
            })
    }

    /// Whether the hook applies to `tool`. An event without a tool is tested as the empty
    /// name, so only matchers that accept anything apply to it.
    pub fn matches(&self, tool: Option<&str>) -> bool {
        let tool = tool.unwrap_or("");
        match self {
            Matcher::Any => true,
            Matcher::Literals(names) => names.iter().any(|n| tool.contains(n.as_str())),
            Matcher::Exact(names) => names.iter().any(|n| n == tool),
            Matcher::Anchored {
                literal,
                start,
                end,
                ..
            } => match (start, end) {
                (true, true) => tool == literal,
                (true, false) => tool.starts_with(literal.as_str()),
                (false, true) => tool.ends_with(literal.as_str()),
                (false, false) => tool.contains(literal.as_str()),
            },
            Matcher::Regex(re) => re.is_match(tool),
        }
    }

    /// The pattern as written (empty for [`Matcher::Any`]).
    pub fn pattern(&self) -> String {
        match self {
            Matcher::Any => String::new(),
            Matcher::Literals(names) | Matcher::Exact(names) => names.join("|"),
            Matcher::Anchored { pattern, .. } => pattern.clone(),
            Matcher::Regex(re) => re.as_str().to_owned(),
        }
    }
}

/// `^name`, `name$`, `^name$`, with `.*` next to an anchor meaning no anchor there; `None`
/// for anything else. Compiling a regex costs tens of microseconds, and configs name
/// tool prefixes like `^mcp__server__` by the hundred.
fn anchored_literal(pattern: &str) -> Option<Matcher> {
    let (mut body, mut start) = match pattern.strip_prefix('^') {
        Some(rest) => (rest, true),
        None => (pattern, false),
    };
    let mut end = false;
    if let Some(rest) = body.strip_suffix('$') {
        body = rest;
        end = true;
    }
    if let Some(rest) = body.strip_prefix(".*") {
        body = rest;
        start = false;
    }
    if let Some(rest) = body.strip_suffix(".*") {
        body = rest;
        end = false;
    }
    let plain = !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    plain.then(|| Matcher::Anchored {
        pattern: pattern.to_owned(),
        literal: body.to_owned(),
        start,
        end,
    })
}

#[cfg(test)]
mod tests {
    use test_case::test_case;

    use super::*;

    #[test_case("write_file|edit", Some("write_file"), true; "first literal")]
    #[test_case("write_file|edit", Some("multi_edit"), true; "unanchored literal")]
    #[test_case("write_file|edit", Some("bash"), false; "no literal")]
    #[test_case("write_file|edit", None, false; "no tool")]
    #[test_case("^bash$", Some("bash"), true; "anchored regex")]
    #[test_case("^bash$", Some("bash2"), false; "anchored regex rejects")]
    #[test_case("mcp__.*__write", Some("mcp__fs__write"), true; "regex")]
    #[test_case("^mcp__fs__.*$", Some("mcp__fs__write"), true; "prefix")]
    #[test_case("^mcp__fs__.*$", Some("x_mcp__fs__write"), false; "prefix anchored")]
    #[test_case("^bash$", Some("bash"), true; "exact anchors")]
    #[test_case("_write$", Some("fs_write"), true; "suffix")]
    #[test_case("_write$", Some("fs_write2"), false; "suffix anchored")]
    #[test_case(".*edit.*", Some("multi_edit_x"), true; "dot star both sides")]
    #[test_case("^.*edit$", Some("multi_edit"), true; "dot star after caret")]
    #[test_case("^$", Some(""), true; "empty anchored goes to regex")]
    #[test_case("", None, true; "empty matches all")]
    #[test_case("a|", Some("zzz"), true; "empty alternative matches all")]
    fn matching(pattern: &str, tool: Option<&str>, expected: bool) {
        let matcher = Matcher::regex(pattern).expect("valid");
        assert_eq!(matcher.matches(tool), expected);
        // The fast path must agree with the regex engine.
        if !pattern.is_empty() {
            let re = Regex::new(pattern).expect("valid");
            assert_eq!(re.is_match(tool.unwrap_or("")), expected);
        }
    }

    #[test_case(&["Edit", "Write"], Some("Write"), true; "listed name")]
    #[test_case(&["Edit", "Write"], Some("MultiEdit"), false; "no substring match")]
    #[test_case(&["Edit"], None, false; "no tool")]
    fn exact(names: &[&str], tool: Option<&str>, expected: bool) {
        let matcher = Matcher::Exact(names.iter().map(|n| (*n).to_owned()).collect());
        assert_eq!(matcher.matches(tool), expected);
        assert_eq!(matcher.pattern(), names.join("|"));
    }

    #[test]
    fn invalid_regex_is_an_error() {
        let err = Matcher::regex("(unclosed").expect_err("invalid");
        assert!(err.to_string().contains("(unclosed"), "{err}");
    }
}
