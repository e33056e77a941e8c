//! The x-code protocol: how its plugin hooks read an event and how their replies are
//! read.
//!
//! Command: a shell line whose variables (`${pluginDir} ${pluginDataDir} ${cwd}
//! ${homedir} ${sep} ${env:NAME}`) are expanded when the hook runs, each value quoted for
//! the place it lands in (bare, inside `'...'` or inside `"..."`), so a value with spaces
//! or `;` stays one word and never runs as code. Unknown variables are left as written.
//!
//! Stdin: `{"event", "session": {"cwd", "modelId"}, "plugin": {"id", "dir"}, ...extras}`
//! as compact JSON without a newline; the environment is inherited unchanged.
//!
//! Reply: exit 0 and the whole trimmed stdout one JSON object whose `decision` is
//! `allow`, `deny` or `modify`, else allow. A timeout, a non-zero exit or a crash is a
//! failure (`hook timed out after <ms>ms`, `hook exited <code>`, `hook crashed: <msg>`)
//! that `failurePolicy` turns into allow or deny.

use hookrig_config::{CommandDef, XcodeHook};
use hookrig_core::{Action, Failure, FailureKind, Invocation, Reply, Verdict};
use serde_json::{Map, Value, json};

use crate::command::Limits;
use crate::process::{EnvPolicy, ProcessOutput, Termination};

/// The shell line with its variables expanded for this run.
pub(crate) fn command_line(def: &XcodeHook, template: &str, invocation: &Invocation) -> String {
    if let Some(pattern) = &def.invalid_matcher {
        tracing::debug!(
            "hooks.matcher-invalid {} {}: matcher {pattern:?} is not a valid regex; matching every tool",
            def.plugin_id,
            def.event
        );
    }
    expand(template, |name| match name {
        "pluginDir" => Some(def.plugin_dir.to_string_lossy().into_owned()),
        "pluginDataDir" => Some(def.data_dir.to_string_lossy().into_owned()),
        "cwd" => Some(invocation.context.cwd.to_string_lossy().into_owned()),
        "homedir" => Some(def.home.to_string_lossy().into_owned()),
        "sep" => Some(std::path::MAIN_SEPARATOR_STR.to_owned()),
        _ => {
            let var = name.strip_prefix("env:").filter(|v| !v.is_empty())?;
            Some(
                std::env::var_os(var)
                    .map(|v| v.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            )
        }
    })
}

/// Creates `${pluginDataDir}` when the command uses it (x-code's "mkdir -p on first
/// substitution"), so the hook can write there at once.
pub(crate) fn prepare(def: &XcodeHook, command: &CommandDef) -> Result<(), String> {
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

/// Where a variable lands in the shell line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    Double,
}

/// Expands `${NAME}` wherever `lookup` knows NAME, quoting the value for the shell.
fn expand(template: &str, lookup: impl Fn(&str) -> Option<String>) -> String {
    let bytes = template.as_bytes();
    let mut out = String::with_capacity(template.len());
    let mut quote = Quote::None;
    // `start` is the first byte not yet copied; only ASCII bytes are looked at, so every
    // slice taken ends on a char boundary.
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], quote) {
            (b'$', _) if bytes.get(i + 1) == Some(&b'{') => {
                if let Some(len) = template[i + 2..].find('}')
                    && let Some(value) = lookup(&template[i + 2..i + 2 + len])
                {
                    out.push_str(&template[start..i]);
                    push_quoted(&mut out, &value, quote);
                    i += 2 + len + 1;
                    start = i;
                    continue;
                }
            }
            (b'\\', Quote::None | Quote::Double) => {
                // The escaped character is copied as it is (an escaped quote does not
                // open or close anything).
                i += 2;
                continue;
            }
            (b'\'', Quote::None) => quote = Quote::Single,
            (b'"', Quote::None) => quote = Quote::Double,
            (b'\'', Quote::Single) | (b'"', Quote::Double) => quote = Quote::None,
            _ => {}
        }
        i += 1;
    }
    out.push_str(&template[start.min(template.len())..]);
    out
}

fn push_quoted(out: &mut String, value: &str, quote: Quote) {
    match quote {
        Quote::None => {
            let plain = !value.is_empty()
                && value
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b));
            if plain {
                out.push_str(value);
            } else {
                out.push('\'');
                out.push_str(&value.replace('\'', r"'\''"));
                out.push('\'');
            }
        }
        // Close the quotes, add an escaped quote, reopen.
        Quote::Single => out.push_str(&value.replace('\'', r"'\''")),
        Quote::Double => {
            for c in value.chars() {
                if matches!(c, '\\' | '"' | '$' | '`') {
                    out.push('\\');
                }
                out.push(c);
            }
        }
    }
}

/// The payload in x-code's shape.
pub(crate) fn stdin(def: &XcodeHook, _hook: &str, invocation: &Invocation) -> Vec<u8> {
    let context = &invocation.context;
    let payload = invocation.payload.as_map();
    let mut map = Map::new();
    map.insert("event".to_owned(), Value::String(def.event.clone()));
    let mut session = Map::new();
    session.insert(
        "cwd".to_owned(),
        Value::String(context.cwd.to_string_lossy().into_owned()),
    );
    if let Some(model) = payload.get("session").and_then(|s| s.get("model")) {
        session.insert("modelId".to_owned(), model.clone());
    }
    map.insert("session".to_owned(), Value::Object(session));
    map.insert(
        "plugin".to_owned(),
        json!({"id": def.plugin_id, "dir": def.plugin_dir.to_string_lossy()}),
    );
    let post_tool = def.event == "PostToolUse";
    for (key, value) in payload {
        match key.as_str() {
            "event" | "session" | "plugin" => {}
            "tool" => {
                map.insert(key.clone(), tool(value, post_tool));
            }
            _ => {
                map.insert(key.clone(), value.clone());
            }
        }
    }
    serde_json::to_vec(&Value::Object(map)).expect("a JSON value always serializes")
}

/// The canonical `tool` section in x-code's names: `name`, `args`, `callId`, and on
/// `PostToolUse` `output` and `isError`.
fn tool(value: &Value, post_tool: bool) -> Value {
    let Some(fields) = value.as_object() else {
        return value.clone();
    };
    let mut out = Map::new();
    for (canonical, xcode) in [
        ("name", "name"),
        ("input", "args"),
        ("call_id", "callId"),
        ("output", "output"),
        ("is_error", "isError"),
    ] {
        if !post_tool && matches!(canonical, "output" | "is_error") {
            continue;
        }
        if let Some(v) = fields.get(canonical) {
            out.insert(xcode.to_owned(), v.clone());
        }
    }
    for (key, v) in fields {
        if !matches!(
            key.as_str(),
            "name" | "input" | "call_id" | "output" | "is_error"
        ) {
            out.insert(key.clone(), v.clone());
        }
    }
    Value::Object(out)
}

/// x-code hooks inherit the environment as it is.
pub(crate) fn env(
    _def: &XcodeHook,
    _hook: &str,
    _invocation: &Invocation,
    configured: &[(String, String)],
) -> EnvPolicy {
    EnvPolicy::Inherit {
        set: configured.to_vec(),
    }
}

pub(crate) fn reply(
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
        // A reply cut at the cap is a failure, not an empty or unreadable reply: what was
        // cut off (after a megabyte of whitespace, say) may have been a deny.
        Termination::Exited(0) if output.stdout_truncated && reads_stdout(def) => failure(
            FailureKind::Malformed,
            "hook reply is larger than the 1 MiB stdout cap".to_owned(),
        ),
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

/// Whether the hook's event reads stdout: only the three decision events do.
fn reads_stdout(def: &XcodeHook) -> bool {
    matches!(
        def.event.as_str(),
        "PreToolUse" | "PostToolUse" | "UserPromptSubmit"
    )
}

/// Reads stdout by the rules of the hook's event.
fn verdict(def: &XcodeHook, hook: &str, output: &ProcessOutput) -> Verdict {
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
        .and_then(|v| match v {
            Value::Object(map) => Some(map),
            _ => None,
        });
    let decision = reply
        .as_ref()
        .and_then(|r| r.get("decision"))
        .and_then(Value::as_str)
        .filter(|d| matches!(*d, "allow" | "deny" | "modify"));
    let (Some(reply), Some(decision)) = (reply.as_ref(), decision) else {
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
    let reason = reply
        .get("reason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let context = reply
        .get("context")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut verdict = Verdict::allow();
    match (def.event.as_str(), decision) {
        ("PostToolUse", "deny") => verdict.warnings.push(format!(
            "hook {hook}: deny ignored on PostToolUse: the tool already ran"
        )),
        (_, "deny") => {
            verdict.action = Action::Deny;
            verdict.reason = reason;
        }
        ("PreToolUse", "modify") => match reply.get("args") {
            Some(Value::Object(args)) => {
                verdict.action = Action::Modify;
                verdict.patch = Some(patch("input", Value::Object(args.clone())));
            }
            Some(_) => verdict.warnings.push(format!(
                "hook {hook}: `args` ignored: it must be a JSON object"
            )),
            None => {}
        },
        ("PostToolUse", "modify") => match reply.get("output") {
            Some(Value::String(text)) => {
                verdict.action = Action::Modify;
                verdict.patch = Some(patch("output", Value::String(text.clone())));
            }
            Some(_) => verdict.warnings.push(format!(
                "hook {hook}: `output` ignored: it must be a string"
            )),
            None => {}
        },
        // UserPromptSubmit takes context from allow and modify alike; a modify changes
        // nothing else there.
        ("UserPromptSubmit", _) => verdict.context = context,
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

    fn lookup(name: &str) -> Option<String> {
        match name {
            "a" => Some("/p q/x;y".to_owned()),
            "it" => Some("it's".to_owned()),
            "plain" => Some("/usr/lib".to_owned()),
            "empty" => Some(String::new()),
            "dq" => Some(r#"a"b$c`d\e"#.to_owned()),
            _ => None,
        }
    }

    #[test]
    fn bare_values_are_single_quoted_when_needed() {
        assert_eq!(expand("run ${a}/bin", lookup), "run '/p q/x;y'/bin");
        assert_eq!(expand("run ${plain}", lookup), "run /usr/lib");
        assert_eq!(expand("run ${it}", lookup), r"run 'it'\''s'");
        assert_eq!(expand("run ${empty} x", lookup), "run '' x");
    }

    #[test]
    fn quoted_contexts_escape_for_their_quotes() {
        assert_eq!(expand(r#"run "${dq}""#, lookup), r#"run "a\"b\$c\`d\\e""#);
        assert_eq!(expand("run '${it}'", lookup), r"run 'it'\''s'");
        assert_eq!(expand(r#"run "x's ${a}""#, lookup), r#"run "x's /p q/x;y""#);
        assert_eq!(expand(r"run \'${a}", lookup), r"run \''/p q/x;y'");
    }

    #[test]
    fn unknown_and_unclosed_stay_verbatim() {
        assert_eq!(expand("a ${nope} ${a", lookup), "a ${nope} ${a");
        assert_eq!(expand("é ${plain} ü", lookup), "é /usr/lib ü");
        assert_eq!(expand("x\\", lookup), "x\\");
    }

    #[test]
    fn expanded_lines_stay_one_word_in_sh() {
        for template in ["printf %s ${a}", "printf %s \"${a}\"", "printf %s '${a}'"] {
            let line = expand(template, lookup);
            let out = std::process::Command::new("/bin/sh")
                .args(["-c", &line])
                .output()
                .expect("sh runs");
            assert_eq!(String::from_utf8_lossy(&out.stdout), "/p q/x;y", "{line}");
        }
    }
}
