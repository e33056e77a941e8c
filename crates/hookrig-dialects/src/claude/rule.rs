//! Claude Code's permission rules (`Bash(git push *)`, `Edit(*.env)`, `WebFetch(domain:x)`,
//! `mcp__server__tool`), as a hook's `if` filter reads them: the hook runs only for a tool
//! call the rule matches. The syntax is that of Claude Code's permission settings; see
//! docs/dialects/claude.md for what is read and the source.

use std::path::{Path, PathBuf};

use regex::Regex;
use serde_json::Value;

/// One permission rule: a tool (or family of tools) and what its argument must be.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    /// The tool name as written (`Bash`, `Edit`, `mcp__github`).
    tool: String,
    /// What the call must be, `None` for every call of the tool.
    argument: Option<Argument>,
}

/// The part of a rule between its parentheses.
#[derive(Debug, Clone)]
enum Argument {
    /// A shell command pattern (`Bash(npm run *)`, `Bash(npm:*)`), anchored.
    Command(Regex),
    /// A path pattern of a file tool, gitignore-style, anchored; applied to the
    /// absolute path of the file.
    Path(PathPattern),
    /// `WebFetch(domain:example.com)`.
    Domain(String),
    /// An argument hookrig does not read (a tool it knows nothing of): the rule
    /// matches every call of the tool, so the hook runs rather than being skipped.
    Unread,
}

/// A file path pattern and where it is anchored.
#[derive(Debug, Clone)]
struct PathPattern {
    /// How the pattern is anchored.
    anchor: Anchor,
    /// The glob as written after the anchor.
    glob: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Anchor {
    /// `//path`: the filesystem root.
    Root,
    /// `~/path`: the home directory.
    Home,
    /// `/path`: the project directory.
    Project,
    /// `./path` or `a/b`: the working directory.
    Cwd,
    /// `name` with no slash: any directory.
    Anywhere,
}

/// What a rule is tested against: the tool call and the places paths are relative to.
#[derive(Debug)]
pub(crate) struct Call<'a> {
    pub(crate) tool: &'a str,
    pub(crate) input: Option<&'a Value>,
    pub(crate) cwd: &'a Path,
    pub(crate) project_dir: Option<&'a Path>,
    pub(crate) home: Option<PathBuf>,
}

/// The tools whose argument is a file path, and the rule names that cover them: an
/// `Edit(...)` rule is about every tool that edits a file.
fn file_tools(rule: &str) -> Option<&'static [&'static str]> {
    match rule {
        "Edit" => Some(&["Edit", "Write", "MultiEdit", "NotebookEdit"]),
        "Write" => Some(&["Write"]),
        "MultiEdit" => Some(&["MultiEdit"]),
        "NotebookEdit" => Some(&["NotebookEdit"]),
        "Read" => Some(&["Read"]),
        _ => None,
    }
}

impl Rule {
    /// Parses a rule; the error says what is wrong with it.
    pub(crate) fn parse(text: &str) -> Result<Rule, String> {
        let text = text.trim();
        let (tool, argument) = match text.find('(') {
            None => (text, None),
            Some(open) => {
                let Some(inner) = text[open + 1..].strip_suffix(')') else {
                    return Err(format!(
                        "permission rule `{text}` has no closing `)` at its end"
                    ));
                };
                (&text[..open], Some(inner))
            }
        };
        let valid_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*');
        if tool.is_empty() || !tool.chars().all(valid_name) {
            return Err(format!(
                "permission rule `{text}` does not start with a tool name"
            ));
        }
        let argument = match argument.map(str::trim) {
            None | Some("" | "*") => None,
            Some(argument) if tool == "Bash" => Some(Argument::Command(command(argument)?)),
            Some(argument) if file_tools(tool).is_some() => {
                Some(Argument::Path(PathPattern::parse(argument)))
            }
            Some(argument) if tool == "WebFetch" => match argument.strip_prefix("domain:") {
                Some(domain) => Some(Argument::Domain(domain.to_owned())),
                None => Some(Argument::Unread),
            },
            Some(_) => Some(Argument::Unread),
        };
        Ok(Rule {
            tool: tool.to_owned(),
            argument,
        })
    }

    /// Whether hookrig reads the rule's argument (else the rule matches every call of
    /// its tool).
    pub(crate) fn is_read(&self) -> bool {
        !matches!(self.argument, Some(Argument::Unread))
    }

    /// Whether the tool call matches the rule.
    pub(crate) fn matches(&self, call: &Call<'_>) -> bool {
        if !self.names(call.tool) {
            return false;
        }
        let field = |key: &str| call.input.and_then(|i| i.get(key)).and_then(Value::as_str);
        match &self.argument {
            None | Some(Argument::Unread) => true,
            Some(Argument::Command(pattern)) => {
                field("command").is_some_and(|command| pattern.is_match(command.trim()))
            }
            Some(Argument::Path(pattern)) => ["file_path", "notebook_path", "path"]
                .iter()
                .find_map(|key| field(key))
                .is_some_and(|path| pattern.matches(path, call)),
            Some(Argument::Domain(domain)) => field("url")
                .and_then(host_of)
                .is_some_and(|host| host.eq_ignore_ascii_case(domain)),
        }
    }

    /// Whether the rule is about the tool named `tool`.
    fn names(&self, tool: &str) -> bool {
        if let Some(tools) = file_tools(&self.tool) {
            return tools.contains(&tool);
        }
        if self.tool == tool {
            return true;
        }
        // `mcp__server` and `mcp__server__*` are about every tool of that server.
        if self.tool.starts_with("mcp__") {
            let server = self.tool.strip_suffix("__*").unwrap_or(&self.tool);
            if server.matches("__").count() == 1 {
                return tool
                    .strip_prefix(server)
                    .is_some_and(|rest| rest.starts_with("__"));
            }
        }
        false
    }
}

/// A `Bash(...)` argument as an anchored regex: `*` is any text; a trailing ` *` also
/// matches the command alone (`git push *` matches `git push`); the old `prefix:*`
/// form is a prefix.
fn command(argument: &str) -> Result<Regex, String> {
    let mut pattern = String::from("^");
    let (body, tail) = if let Some(prefix) = argument.strip_suffix(":*") {
        (prefix, "(\\s.*)?")
    } else if let Some(prefix) = argument.strip_suffix(" *") {
        (prefix, "(\\s.*)?")
    } else {
        (argument, "")
    };
    let parts: Vec<String> = body.split('*').map(regex::escape).collect();
    pattern.push_str(&parts.join(".*"));
    pattern.push_str(tail);
    pattern.push('$');
    Regex::new(&pattern).map_err(|err| format!("permission rule `Bash({argument})`: {err}"))
}

impl PathPattern {
    fn parse(argument: &str) -> PathPattern {
        let (anchor, glob) = if let Some(rest) = argument.strip_prefix("//") {
            (Anchor::Root, rest)
        } else if let Some(rest) = argument.strip_prefix("~/") {
            (Anchor::Home, rest)
        } else if let Some(rest) = argument.strip_prefix('/') {
            (Anchor::Project, rest)
        } else if let Some(rest) = argument.strip_prefix("./") {
            (Anchor::Cwd, rest)
        } else if argument.contains('/') {
            (Anchor::Cwd, argument)
        } else {
            (Anchor::Anywhere, argument)
        };
        PathPattern {
            anchor,
            glob: glob.to_owned(),
        }
    }

    fn matches(&self, path: &str, call: &Call<'_>) -> bool {
        let path = call.cwd.join(path);
        let base = match self.anchor {
            Anchor::Root => Some(PathBuf::from("/")),
            Anchor::Home => call.home.clone(),
            Anchor::Project => Some(call.project_dir.unwrap_or(call.cwd).to_path_buf()),
            Anchor::Cwd => Some(call.cwd.to_path_buf()),
            Anchor::Anywhere => {
                // A pattern with no slash matches a file of that name in any directory.
                return path
                    .file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| glob(&self.glob).is_some_and(|g| g.is_match(name)));
            }
        };
        let Some(base) = base else {
            return false;
        };
        let Ok(relative) = path.strip_prefix(&base) else {
            return false;
        };
        relative
            .to_str()
            .is_some_and(|relative| glob(&self.glob).is_some_and(|g| g.is_match(relative)))
    }
}

/// A gitignore-style glob as an anchored regex: `**` crosses directories, `*` and `?` do
/// not. `None` for a glob that cannot be one (never, as every character is escaped).
fn glob(glob: &str) -> Option<Regex> {
    let mut pattern = String::from("^");
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                if chars.peek() == Some(&'/') {
                    chars.next();
                    pattern.push_str("(.*/)?");
                } else {
                    pattern.push_str(".*");
                }
            }
            '*' => pattern.push_str("[^/]*"),
            '?' => pattern.push_str("[^/]"),
            c => pattern.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
        }
    }
    pattern.push('$');
    Regex::new(&pattern).ok()
}

/// The host of an http(s) URL.
fn host_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = host.split(':').next()?;
    (!host.is_empty()).then_some(host)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use test_case::test_case;

    use super::*;

    fn call<'a>(tool: &'a str, input: &'a Value) -> Call<'a> {
        Call {
            tool,
            input: Some(input),
            cwd: Path::new("/w/sub"),
            project_dir: Some(Path::new("/w")),
            home: Some(PathBuf::from("/home/u")),
        }
    }

    #[test_case("Bash", "Bash", &json!({"command": "ls"}), true ; "bare tool")]
    #[test_case("Bash(*)", "Bash", &json!({"command": "ls"}), true ; "star")]
    #[test_case("Bash", "Edit", &json!({}), false ; "other tool")]
    #[test_case("Bash(git push *)", "Bash", &json!({"command": "git push origin main"}), true ; "wildcard")]
    #[test_case("Bash(git push *)", "Bash", &json!({"command": "git push"}), true ; "wildcard alone")]
    #[test_case("Bash(git push *)", "Bash", &json!({"command": "git pushx"}), false ; "word boundary")]
    #[test_case("Bash(git push *)", "Bash", &json!({"command": "echo git push x"}), false ; "anchored")]
    #[test_case("Bash(npm:*)", "Bash", &json!({"command": "npm test"}), true ; "legacy prefix")]
    #[test_case("Bash(rm -rf /)", "Bash", &json!({"command": "rm -rf /"}), true ; "exact")]
    #[test_case("Bash(rm -rf /)", "Bash", &json!({"command": "rm -rf /tmp"}), false ; "exact only")]
    #[test_case("Edit(*.env)", "Edit", &json!({"file_path": "/w/a/.env"}), true ; "basename anywhere")]
    #[test_case("Edit(*.env)", "Write", &json!({"file_path": "/w/prod.env"}), true ; "edit covers write")]
    #[test_case("Edit(*.env)", "Edit", &json!({"file_path": "/w/a.txt"}), false ; "other file")]
    #[test_case("Edit(*.env)", "Read", &json!({"file_path": "/w/.env"}), false ; "read is not edit")]
    #[test_case("Edit(/src/**)", "Edit", &json!({"file_path": "/w/src/a/b.rs"}), true ; "project anchored")]
    #[test_case("Edit(/src/**)", "Edit", &json!({"file_path": "/w/sub/src/b.rs"}), false ; "project anchored only")]
    #[test_case("Edit(./x.rs)", "Edit", &json!({"file_path": "x.rs"}), true ; "cwd relative")]
    #[test_case("Read(//etc/*)", "Read", &json!({"file_path": "/etc/passwd"}), true ; "absolute")]
    #[test_case("Read(~/.ssh/**)", "Read", &json!({"file_path": "/home/u/.ssh/id"}), true ; "home")]
    #[test_case("WebFetch(domain:example.com)", "WebFetch", &json!({"url": "https://example.com/a"}), true ; "domain")]
    #[test_case("WebFetch(domain:example.com)", "WebFetch", &json!({"url": "https://evil.com/example.com"}), false ; "other domain")]
    #[test_case("mcp__github", "mcp__github__create_issue", &json!({}), true ; "mcp server")]
    #[test_case("mcp__github__*", "mcp__github__create_issue", &json!({}), true ; "mcp server star")]
    #[test_case("mcp__github", "mcp__githubx__a", &json!({}), false ; "mcp other server")]
    #[test_case("Agent(reviewer)", "Agent", &json!({}), true ; "unread argument runs")]
    fn rules(rule: &str, tool: &str, input: &Value, expected: bool) {
        let rule = Rule::parse(rule).expect("parses");
        assert_eq!(rule.matches(&call(tool, input)), expected);
    }

    #[test_case("Bash(ls" ; "unclosed")]
    #[test_case("(ls)" ; "no tool")]
    fn bad_rules(rule: &str) {
        assert!(Rule::parse(rule).is_err());
    }
}
