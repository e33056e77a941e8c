//! The x-code protocol: how its plugin hooks read an event and how their replies are
//! read.
//!
//! Command: a shell line whose variables (`${pluginDir} ${pluginDataDir} ${cwd}
//! ${homedir} ${sep} ${env:NAME}`) become references to environment variables holding
//! their values when the hook runs, shaped for the place they land in, so a value with
//! spaces, `;`, `$( )` or a newline stays one word and never runs as code. Unknown
//! variables are left as written.
//!
//! Stdin: `{"event", "session": {"cwd", "modelId"}, "plugin": {"id", "dir"}, ...extras}`
//! as compact JSON without a newline; the environment is inherited unchanged.
//!
//! Reply: exit 0 and the whole trimmed stdout one JSON object whose `decision` is
//! `allow`, `deny` or `modify`, else allow. A timeout, a non-zero exit or a crash is a
//! failure (`hook timed out after <ms>ms`, `hook exited <code>`, `hook crashed: <msg>`)
//! that `failurePolicy` turns into allow or deny.

use std::fmt::Write;

use std::borrow::Cow;
use std::path::Path;

use hookrig_core::{Action, Dialect, Failure, FailureKind, Invocation, Reply, Verdict};
use hookrig_exec::process::{EnvPolicy, ProcessOutput, Termination};
use hookrig_exec::{CommandDef, Limits, Protocol};
use serde_json::{Map, Value};

use super::loader::XcodeHook;
use super::wire::{HookPayload, HookReply, Plugin, Session, Tool};
use crate::protocol::DialectProtocol;
use crate::wire::Shaped;

/// x-code's protocol for one plugin hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XcodeProtocol(pub XcodeHook);

impl Protocol for XcodeProtocol {
    fn stdin(&self, hook: &str, invocation: &Invocation) -> Vec<u8> {
        stdin(&self.0, hook, invocation)
    }

    fn command_line<'a>(
        &self,
        line: &'a str,
        invocation: &Invocation,
    ) -> (Cow<'a, str>, Vec<(String, String)>) {
        let (line, vars) = command_line(&self.0, line, invocation);
        (Cow::Owned(line), vars)
    }

    /// The plugin id and x-code's event name, as x-code's own log has them.
    fn log_names<'a>(&'a self, _hook: &'a str, _event: &'a str) -> (&'a str, &'a str) {
        (&self.0.plugin_id, &self.0.event)
    }

    fn env(
        &self,
        hook: &str,
        invocation: &Invocation,
        configured: &[(String, String)],
    ) -> EnvPolicy {
        env(&self.0, hook, invocation, configured)
    }

    fn prepare(&self, command: &CommandDef) -> Result<(), String> {
        prepare(&self.0, command)
    }

    fn reads_stdout(&self) -> bool {
        reads_stdout(&self.0)
    }

    fn reply(
        &self,
        hook: &str,
        limits: &Limits,
        invocation: &Invocation,
        output: &ProcessOutput,
    ) -> Reply {
        reply(&self.0, hook, limits, invocation, output)
    }
}

impl DialectProtocol for XcodeProtocol {
    fn dialect(&self) -> Dialect {
        Dialect::Xcode
    }

    fn definition(&self) -> String {
        format!("Xcode({:?})", self.0)
    }

    /// `${pluginDir}`, `${pluginDataDir}`, `${homedir}`, `${cwd}` when `cwd` is known,
    /// and `${sep}`.
    fn line_variables(&self, cwd: Option<&Path>) -> Option<Vec<(&'static str, String)>> {
        let lossy = |path: &Path| path.to_string_lossy().into_owned();
        let mut variables = vec![
            ("${pluginDir}", lossy(&self.0.plugin_dir)),
            ("${pluginDataDir}", lossy(&self.0.data_dir)),
            ("${homedir}", lossy(&self.0.home)),
        ];
        if let Some(cwd) = cwd {
            variables.push(("${cwd}", lossy(cwd)));
        }
        variables.push(("${sep}", std::path::MAIN_SEPARATOR_STR.to_owned()));
        Some(variables)
    }
}

/// The shell line for this run, and the environment variables it reads.
///
/// Each variable is replaced by a reference to an environment variable that holds its
/// value (`${cwd}` becomes `"${HOOKRIG_XCODE_CWD}"`), never by the value itself: the
/// shell expands a parameter without parsing its value as code, so a working directory
/// named `$(touch PWNED)` or a `${env:EVIL}` holding `;touch PWNED;` or a newline stays
/// data wherever the variable sits (here-documents, `"$( ... )"`, after a comment with a
/// quote...).
fn command_line(
    def: &XcodeHook,
    template: &str,
    invocation: &Invocation,
) -> (String, Vec<(String, String)>) {
    if let Some(pattern) = &def.invalid_matcher {
        tracing::debug!(
            "hooks.matcher-invalid {} {}: matcher {pattern:?} is not a valid regex; matching every tool",
            def.plugin_id,
            def.event
        );
    }
    expand(template, |name| {
        let lossy = |path: &std::path::Path| path.to_string_lossy().into_owned();
        let (variable, value) = match name {
            "pluginDir" => ("PLUGIN_DIR".to_owned(), lossy(&def.plugin_dir)),
            "pluginDataDir" => ("PLUGIN_DATA_DIR".to_owned(), lossy(&def.data_dir)),
            "cwd" => ("CWD".to_owned(), lossy(&invocation.context.cwd)),
            "homedir" => ("HOMEDIR".to_owned(), lossy(&def.home)),
            "sep" => ("SEP".to_owned(), std::path::MAIN_SEPARATOR_STR.to_owned()),
            _ => {
                let var = name.strip_prefix("env:").filter(|v| !v.is_empty())?;
                let value = invocation
                    .context
                    .var(var)
                    .map(|v| v.to_string_lossy().into_owned())
                    .unwrap_or_default();
                (format!("ENV_{}", env_suffix(var)), value)
            }
        };
        Some((format!("HOOKRIG_XCODE_{variable}"), value))
    })
}

/// `NAME` as the end of a shell variable name: ASCII letters and digits kept, any other
/// byte (`_` included, so that two names never meet) as `_` and two hex digits.
fn env_suffix(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "_{byte:02X}");
        }
    }
    out
}

/// Creates `${pluginDataDir}` when the command uses it (x-code's "mkdir -p on first
/// substitution"), so the hook can write there at once.
fn prepare(def: &XcodeHook, command: &CommandDef) -> Result<(), String> {
    let uses_data_dir =
        matches!(command, CommandDef::Shell { line, .. } if line.contains("${pluginDataDir}"));
    if !uses_data_dir {
        return Ok(());
    }
    std::fs::create_dir_all(&def.data_dir).map_err(|err| {
        format!(
            "cannot create the plugin data directory {}: {err}",
            def.data_dir.display()
        )
    })
}

/// What the shell makes of the text at a point of the line, as far as a variable
/// reference placed there is concerned.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// Commands: the top level, or inside `$( ... )` (with its open parentheses) or
    /// backquotes.
    Code(Close),
    /// Inside `'...'`.
    Single,
    /// Inside `"..."`.
    Double,
}

/// What ends a `Code` frame.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Close {
    /// Nothing: the top level.
    End,
    /// `)`, once the parentheses opened inside are closed.
    Paren(u32),
    /// `` ` ``.
    Backquote,
}

/// A here-document announced on the current line, read from the next one.
struct HereDoc {
    delimiter: String,
    strip_tabs: bool,
}

/// Replaces each `${NAME}` that `lookup` knows by a reference to the environment
/// variable `lookup` names, shaped for where it lands (`"${V}"` among commands, `${V}`
/// inside double quotes and here-documents, `'"${V}"'` inside single quotes); returns
/// the line and each variable with its value. Unknown variables are left as written.
fn expand(
    template: &str,
    lookup: impl Fn(&str) -> Option<(String, String)>,
) -> (String, Vec<(String, String)>) {
    let mut line = Line {
        template,
        lookup,
        out: String::with_capacity(template.len()),
        copied: 0,
        vars: Vec::new(),
    };
    let bytes = template.as_bytes();
    let mut stack = vec![Frame::Code(Close::End)];
    let mut pending: Vec<HereDoc> = Vec::new();
    // Only ASCII bytes are looked at, so every slice taken ends on a char boundary.
    let mut i = 0;
    while i < bytes.len() {
        let frame = *stack.last().expect("the top level is never popped");
        let byte = bytes[i];
        if byte == b'$' && bytes.get(i + 1) == Some(&b'{') {
            // An unknown variable is left as written, and not read as quotes or commands.
            i = line.replace(i, Some(frame)).unwrap_or_else(|| {
                template[i..]
                    .find('}')
                    .map_or(bytes.len(), |len| i + len + 1)
            });
            continue;
        }
        match (frame, byte) {
            (Frame::Single, b'\'')
            | (Frame::Double, b'"')
            | (Frame::Code(Close::Backquote), b'`') => {
                stack.pop();
            }
            (Frame::Code(_) | Frame::Double, b'\\') => {
                // The escaped character is copied as it is (an escaped quote does not
                // open or close anything).
                i += 2;
                continue;
            }
            (Frame::Code(_) | Frame::Double, b'$') if bytes.get(i + 1) == Some(&b'(') => {
                stack.push(Frame::Code(Close::Paren(0)));
                i += 2;
                continue;
            }
            (Frame::Code(_) | Frame::Double, b'`') => stack.push(Frame::Code(Close::Backquote)),
            (Frame::Code(_), b'\'') => stack.push(Frame::Single),
            (Frame::Code(_), b'"') => stack.push(Frame::Double),
            (Frame::Code(Close::Paren(open)), b'(') => {
                stack.pop();
                stack.push(Frame::Code(Close::Paren(open + 1)));
            }
            (Frame::Code(Close::Paren(open)), b')') => {
                stack.pop();
                if open > 0 {
                    stack.push(Frame::Code(Close::Paren(open - 1)));
                }
            }
            (Frame::Code(_), b'#') if i == 0 || b" \t\n;&|()".contains(&bytes[i - 1]) => {
                // A comment: nothing in it opens a quote, and a variable in it is data.
                i = template[i..].find('\n').map_or(bytes.len(), |len| i + len);
                continue;
            }
            (Frame::Code(_), b'<')
                if bytes.get(i + 1) == Some(&b'<') && bytes.get(i + 2) != Some(&b'<') =>
            {
                let (heredoc, next) = here_doc(template, i + 2);
                pending.extend(heredoc);
                i = next;
                continue;
            }
            (Frame::Code(_), b'\n') if !pending.is_empty() => {
                i = line.here_doc_bodies(i + 1, pending.drain(..));
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    line.finish()
}

/// A shell line being expanded.
struct Line<'a, F> {
    template: &'a str,
    lookup: F,
    out: String,
    /// The first byte of `template` not yet copied to `out`.
    copied: usize,
    vars: Vec<(String, String)>,
}

impl<F: Fn(&str) -> Option<(String, String)>> Line<'_, F> {
    /// Replaces the variable at `at` (`${`) when it is known, shaped for `frame` (`None`:
    /// a here-document's body); returns the byte after it.
    fn replace(&mut self, at: usize, frame: Option<Frame>) -> Option<usize> {
        let len = self.template[at + 2..].find('}')?;
        let (variable, value) = (self.lookup)(&self.template[at + 2..at + 2 + len])?;
        self.out.push_str(&self.template[self.copied..at]);
        let (before, after) = match frame {
            Some(Frame::Code(_)) => ("\"", "\""),
            Some(Frame::Single) => ("'\"", "\"'"),
            Some(Frame::Double) | None => ("", ""),
        };
        for part in [before, "${", variable.as_str(), "}", after] {
            self.out.push_str(part);
        }
        if !self.vars.iter().any(|(name, _)| *name == variable) {
            self.vars.push((variable, value));
        }
        self.copied = at + 2 + len + 1;
        Some(self.copied)
    }

    /// Reads the bodies of `heredocs`, one after the other, from `at` (the start of the
    /// line after the one that announced them); returns where the line goes on. Their
    /// variables become plain references: quotes there are text, and a quoted delimiter
    /// leaves the reference for a shell reading the body to expand.
    fn here_doc_bodies(&mut self, mut at: usize, heredocs: impl Iterator<Item = HereDoc>) -> usize {
        let template = self.template;
        let bytes = template.as_bytes();
        for heredoc in heredocs {
            while at < bytes.len() {
                let end = template[at..]
                    .find('\n')
                    .map_or(bytes.len(), |len| at + len);
                let text = &template[at..end];
                let text = if heredoc.strip_tabs {
                    text.trim_start_matches('\t')
                } else {
                    text
                };
                if text == heredoc.delimiter {
                    at = end;
                    break;
                }
                let mut j = at;
                while j < end {
                    j = match (bytes[j], bytes.get(j + 1)) {
                        (b'$', Some(b'{')) => self.replace(j, None).unwrap_or(j + 1),
                        _ => j + 1,
                    };
                }
                at = (end + 1).min(bytes.len());
            }
        }
        at
    }

    fn finish(mut self) -> (String, Vec<(String, String)>) {
        self.out
            .push_str(&self.template[self.copied.min(self.template.len())..]);
        (self.out, self.vars)
    }
}

/// The here-document whose `<<` ends just before `at`: its delimiter (quotes removed)
/// and whether `<<-` strips tabs; and where the line goes on after the delimiter word.
fn here_doc(template: &str, at: usize) -> (Option<HereDoc>, usize) {
    let bytes = template.as_bytes();
    let mut i = at;
    let strip_tabs = bytes.get(i) == Some(&b'-');
    if strip_tabs {
        i += 1;
    }
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    let mut delimiter = String::new();
    let mut quote = None;
    let word_start = i;
    while let Some(&byte) = bytes.get(i) {
        match (quote, byte) {
            (None, b'\'' | b'"') => quote = Some(byte),
            (Some(open), _) if byte == open => quote = None,
            (None, b'\\') => {
                if let Some(next) = template[i + 1..].chars().next() {
                    delimiter.push(next);
                    i += 1 + next.len_utf8();
                } else {
                    i += 1;
                }
                continue;
            }
            (None, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')') => break,
            _ => {
                // Copies whole characters: a delimiter may be any text.
                let c = template[i..]
                    .chars()
                    .next()
                    .expect("i is on a char boundary");
                delimiter.push(c);
                i += c.len_utf8();
                continue;
            }
        }
        i += 1;
    }
    if i == word_start {
        return (None, i);
    }
    (
        Some(HereDoc {
            delimiter,
            strip_tabs,
        }),
        i,
    )
}

/// The payload in x-code's shape.
fn stdin(def: &XcodeHook, _hook: &str, invocation: &Invocation) -> Vec<u8> {
    let context = &invocation.context;
    let payload = invocation.payload.as_map();
    let post_tool = def.event == "PostToolUse";
    let mut extras = Map::new();
    for (key, value) in payload {
        match key.as_str() {
            "event" | "session" | "plugin" => {}
            "tool" => {
                extras.insert(key.clone(), tool(value, post_tool));
            }
            _ => {
                extras.insert(key.clone(), value.clone());
            }
        }
    }
    let wire = HookPayload {
        event: Some(def.event.clone()),
        session: Some(Shaped::Typed(Session {
            cwd: Some(Value::String(context.cwd.to_string_lossy().into_owned())),
            model_id: payload.get("session").and_then(|s| s.get("model")).cloned(),
            rest: Map::new(),
        })),
        plugin: Some(Shaped::Typed(Plugin {
            id: Some(Value::String(def.plugin_id.clone())),
            dir: Some(Value::String(def.plugin_dir.to_string_lossy().into_owned())),
        })),
        extras,
    };
    serde_json::to_vec(&wire).expect("the payload always serializes")
}

/// The canonical `tool` section in x-code's names: `name`, `args`, `callId`, and on
/// `PostToolUse` `output` and `isError`.
fn tool(value: &Value, post_tool: bool) -> Value {
    let Some(fields) = value.as_object() else {
        return value.clone();
    };
    let field = |key: &str| fields.get(key).cloned();
    let on_post_tool = |key: &str| field(key).filter(|_| post_tool);
    let tool = Tool {
        name: field("name"),
        args: field("input"),
        call_id: field("call_id"),
        output: on_post_tool("output"),
        is_error: on_post_tool("is_error"),
        rest: fields
            .iter()
            .filter(|(key, _)| {
                !matches!(
                    key.as_str(),
                    "name" | "input" | "call_id" | "output" | "is_error"
                )
            })
            .map(|(key, v)| (key.clone(), v.clone()))
            .collect(),
    };
    serde_json::to_value(tool).expect("a tool always serializes")
}

/// x-code hooks inherit the environment as it is.
fn env(
    _def: &XcodeHook,
    _hook: &str,
    _invocation: &Invocation,
    configured: &[(String, String)],
) -> EnvPolicy {
    EnvPolicy::Inherit {
        set: configured.to_vec(),
    }
}

fn reply(
    def: &XcodeHook,
    hook: &str,
    limits: &Limits,
    _invocation: &Invocation,
    output: &ProcessOutput,
) -> Reply {
    let failure = |kind, message: String| Reply::Failure(Failure { kind, message });
    let reply = match &output.termination {
        Termination::TimedOut { after, .. } => {
            let limit = limits.timeout.unwrap_or(*after);
            failure(
                FailureKind::Timeout,
                format!("hook timed out after {}ms", limit.as_millis()),
            )
        }
        Termination::Exited(0) => Reply::Verdict(verdict(def, hook, output)),
        Termination::Exited(code) => failure(FailureKind::Exit, format!("hook exited {code}")),
        Termination::Signaled(signal) => failure(
            FailureKind::Crash,
            format!("hook crashed: killed by signal {signal}"),
        ),
        Termination::SpawnFailed(err) => {
            failure(FailureKind::Spawn, format!("hook crashed: {err}"))
        }
        Termination::Interrupted => failure(
            FailureKind::Interrupted,
            "hook crashed: killed because hookrig was interrupted".to_owned(),
        ),
    };
    match (reply, output.leftover_warning(&format!("hook {hook}"))) {
        (Reply::Verdict(mut verdict), Some(warning)) => {
            verdict.warnings.push(warning);
            Reply::Verdict(verdict)
        }
        (reply, _) => reply,
    }
}

/// Whether the hook's event reads its stdout as a decision.
fn reads_stdout(def: &XcodeHook) -> bool {
    matches!(
        def.event.as_str(),
        "PreToolUse" | "PostToolUse" | "UserPromptSubmit"
    )
}

/// Reads stdout by the rules of the hook's event.
fn verdict(def: &XcodeHook, hook: &str, output: &ProcessOutput) -> Verdict {
    // Only the three decision events read stdout; the others ignore it.
    if !reads_stdout(def) {
        return Verdict::allow();
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let text = text.trim();
    if text.is_empty() {
        return Verdict::allow();
    }
    let reply = serde_json::from_str::<Value>(text)
        .ok()
        .filter(|_| !output.stdout_truncated)
        .filter(Value::is_object)
        .and_then(|v| serde_json::from_value::<HookReply>(v).ok());
    let decision = reply
        .as_ref()
        .and_then(|r| r.decision.clone())
        .filter(|d| matches!(d.as_str(), "allow" | "deny" | "modify"));
    let (Some(reply), Some(decision)) = (reply, decision) else {
        tracing::debug!(
            "hooks.exec-ran {} {}: stdout is not a JSON object with decision allow|deny|modify; treated as allow",
            def.plugin_id,
            def.event
        );
        let mut verdict = Verdict::allow();
        verdict.warnings.push(format!(
            "hook {hook}: reply is not a JSON object with decision allow, deny or modify; treated as allow"
        ));
        return verdict;
    };
    let mut verdict = Verdict::allow();
    match (def.event.as_str(), decision.as_str()) {
        ("PostToolUse", "deny") => verdict.warnings.push(format!(
            "hook {hook}: deny ignored on PostToolUse: the tool already ran"
        )),
        (_, "deny") => {
            verdict.action = Action::Deny;
            verdict.reason = reply.reason;
        }
        ("PreToolUse", "modify") => match reply.args {
            Some(Value::Object(args)) => {
                verdict.action = Action::Modify;
                verdict.patch = Some(patch("input", Value::Object(args)));
            }
            Some(_) => verdict.warnings.push(format!(
                "hook {hook}: `args` ignored: it must be a JSON object"
            )),
            None => {}
        },
        ("PostToolUse", "modify") => match reply.output {
            Some(Value::String(text)) => {
                verdict.action = Action::Modify;
                verdict.patch = Some(patch("output", Value::String(text)));
            }
            Some(_) => verdict.warnings.push(format!(
                "hook {hook}: `output` ignored: it must be a string"
            )),
            None => {}
        },
        // UserPromptSubmit takes context from allow and modify alike; a modify changes
        // nothing else there.
        ("UserPromptSubmit", _) => verdict.context = reply.context,
        _ => {}
    }
    verdict
}

fn patch(field: &str, value: Value) -> Map<String, Value> {
    let mut tool = Map::new();
    tool.insert(field.to_owned(), value);
    let mut patch = Map::new();
    patch.insert("tool".to_owned(), Value::Object(tool));
    patch
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(name: &str) -> Option<(String, String)> {
        let value = match name {
            "a" => "/p q/x;y",
            "it" => "it's",
            "empty" => "",
            _ => return None,
        };
        Some((format!("V_{}", name.to_uppercase()), value.to_owned()))
    }

    fn line(template: &str) -> String {
        expand(template, lookup).0
    }

    #[test]
    fn each_variable_becomes_a_reference_shaped_for_where_it_lands() {
        assert_eq!(line("run ${a}/bin"), r#"run "${V_A}"/bin"#);
        assert_eq!(line(r#"run "x ${a}""#), r#"run "x ${V_A}""#);
        assert_eq!(line("run '${it}'"), r#"run ''"${V_IT}"''"#);
        assert_eq!(line(r#"run "x's ${a}""#), r#"run "x's ${V_A}""#);
        assert_eq!(line(r"run \'${a}"), r#"run \'"${V_A}""#);
        assert_eq!(
            line("cat <<'E'\n'${a}'\nE\n${a}"),
            "cat <<'E'\n'${V_A}'\nE\n\"${V_A}\""
        );
        let (_, vars) = expand("${a} ${a} ${empty}", lookup);
        assert_eq!(
            vars,
            [
                ("V_A".to_owned(), "/p q/x;y".to_owned()),
                ("V_EMPTY".to_owned(), String::new())
            ]
        );
    }

    #[test]
    fn unknown_and_unclosed_stay_verbatim() {
        assert_eq!(line("a ${nope} ${a"), "a ${nope} ${a");
        assert_eq!(line("é ${a} ü"), "é \"${V_A}\" ü");
        assert_eq!(line("x\\"), "x\\");
    }

    #[test]
    fn env_names_map_to_distinct_shell_names() {
        assert_eq!(env_suffix("EVIL"), "EVIL");
        assert_eq!(env_suffix("A_B"), "A_5FB");
        assert_eq!(env_suffix("A-B"), "A_2DB");
        assert_ne!(env_suffix("A_2DB"), env_suffix("A-B"));
    }

    /// Runs `template` expanded with `${v}` = `value` under `/bin/sh` in a fresh
    /// directory; what it printed, and whether `PWNED` appeared there.
    fn run(template: &str, value: &str) -> (String, bool) {
        let dir = tempfile::tempdir().expect("temp dir");
        let (line, vars) = expand(template, |name| {
            (name == "v").then(|| ("HOOKRIG_XCODE_V".to_owned(), value.to_owned()))
        });
        let out = std::process::Command::new("/bin/sh")
            .args(["-c", &line])
            .envs(vars)
            .current_dir(dir.path())
            .output()
            .expect("sh runs");
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            dir.path().join("PWNED").exists(),
        )
    }

    // guards: x-code variable values (`${env:EVIL}`, `${cwd}`) ran as code when the
    // variable sat in a here-document, inside `"$( ... )"`, in backquotes, or after a
    // `#` comment holding a quote; they are passed as environment variables instead.
    #[test]
    fn values_never_run_as_code_in_any_context() {
        let values = [
            "$(touch PWNED)",
            ";touch PWNED;",
            "\ntouch PWNED\n",
            "`touch PWNED`",
            "'; touch PWNED; '",
            "\"; touch PWNED; \"",
            "a b\\ c",
        ];
        // Each context, and whether it prints the value exactly.
        let contexts = [
            ("printf %s ${v}", true),
            ("printf %s \"${v}\"", true),
            ("printf %s '${v}'", true),
            ("printf %s \"$(printf %s \"${v}\")\"", true),
            ("printf %s \"$(printf %s ${v})\"", true),
            ("printf %s $(printf %s \"${v}\")x", false),
            ("printf %s \"`printf %s ${v}`\"", false),
            ("cat <<EOF\n${v}\nEOF", false),
            ("cat <<-EOF\n\t${v}\n\tEOF", false),
            ("sh <<'EOF'\nprintf %s ${v}\nEOF", false),
            ("# it's a comment\nprintf %s ${v}", true),
            ("# say \"hi\nprintf %s ${v}", true),
            ("printf %s ${v} # it's ${v}\nprintf %s '${v}'", false),
            ("f() { printf %s ${v}; }; f", true),
            ("case x in x) printf %s ${v};; esac", true),
        ];
        for value in values {
            for (template, exact) in contexts {
                let (printed, pwned) = run(template, value);
                assert!(!pwned, "{value:?} ran as code in {template:?}");
                if exact {
                    // `$( ... )` drops trailing newlines, as it does for any value.
                    assert_eq!(
                        printed.trim_end_matches('\n'),
                        value.trim_end_matches('\n'),
                        "{template:?}"
                    );
                }
            }
        }
        // Here-documents get the value as text.
        let (printed, _) = run("cat <<EOF\n${v}\nEOF", "$(touch PWNED)");
        assert_eq!(printed, "$(touch PWNED)\n");
    }
}
