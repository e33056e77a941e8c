//! Webhooks: the checks of a hook that POSTs the event to a URL, shared by the native
//! `hooks.toml` loader and the plugin-manifest loader.

use hookrig_core::EventName;

/// The events a plugin's webhook may listen to: those off the hot path, which do not
/// happen on every agent step (a `task.` event of any name counts).
pub const WEBHOOK_EVENTS: &[&str] = &[
    "tool.after",
    "schedule.fired",
    "session.end",
    "memory.upsert",
    "task.*",
    "file.changed",
    "folder.changed",
];

/// Whether a plugin's webhook may listen to `event` (a canonical name, an alias or a
/// versioned name such as `tool.after@v1`); the error says why not.
///
/// Plugin webhooks are held to events off the hot path: every hook on a hot-path event
/// (`tool.before`, `prompt.submit`, `model.before`, ...) runs on every agent step, and a
/// webhook there would add a network round trip to each one. A native hook with a `url`
/// in `hooks.toml` may listen to any event: the user who writes it chooses that cost.
pub fn webhook_event_allowed(event: &str) -> Result<(), String> {
    let name = EventName::resolve(event);
    let canonical = name.as_str();
    let allowed = WEBHOOK_EVENTS
        .iter()
        .any(|allowed| match allowed.strip_suffix('*') {
            Some(prefix) => canonical.starts_with(prefix) && canonical.len() > prefix.len(),
            None => canonical == *allowed,
        });
    if allowed {
        return Ok(());
    }
    let shown = if canonical == event {
        format!("`{event}`")
    } else {
        format!("`{event}` ({canonical})")
    };
    Err(format!(
        "a plugin webhook cannot listen to {shown}: webhooks on hot-path events would add a network round trip to every agent step; plugin webhooks may listen only to {}; a hook in hooks.toml with `url` may listen to any event",
        WEBHOOK_EVENTS.join(", ")
    ))
}

/// An absolute `http://` or `https://` URL with a host.
pub(crate) fn check_url(text: &str) -> Result<(), String> {
    let url =
        url::Url::parse(text).map_err(|err| format!("{err}; write url = \"http://host/path\""))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "scheme `{}` is not http or https; write url = \"http://host/path\"",
            url.scheme()
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("the URL has no host".to_owned());
    }
    Ok(())
}

/// A name the environment can hold.
pub(crate) fn check_env_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the variable name is empty".to_owned());
    }
    if name.contains(['=', '\0']) {
        return Err("a variable name cannot contain `=` or NUL".to_owned());
    }
    Ok(())
}

/// Headers hookrig sets itself; a hook may not replace them.
const RESERVED_HEADERS: &[&str] = &[
    "content-type",
    "content-length",
    "x-hookrig-event",
    "x-hookrig-signature",
];

/// An HTTP header a hook may add.
pub(crate) fn check_header(name: &str, value: &str) -> Result<(), String> {
    // RFC 9110 `token`.
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Err("not a valid header name".to_owned());
    }
    if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
        return Err("hookrig sets this header itself".to_owned());
    }
    // Visible ASCII, spaces and tabs, and non-ASCII (obs-text): no control characters,
    // which would split the request.
    if value
        .chars()
        .any(|c| (c.is_ascii_control() && c != '\t') || c == '\u{7f}')
    {
        return Err("the value contains a control character".to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use test_case::test_case;

    use super::*;

    #[test_case("tool.after"; "tool after")]
    #[test_case("PostToolUse"; "claude alias")]
    #[test_case("tool.after@v1"; "versioned")]
    #[test_case("schedule.fired"; "schedule")]
    #[test_case("session.end"; "session end")]
    #[test_case("session.closed"; "openhermit alias of session end")]
    #[test_case("memory.upsert"; "memory")]
    #[test_case("task.completed"; "task completed")]
    #[test_case("post-claim"; "hence alias of task claimed")]
    #[test_case("task.custom"; "any task event")]
    #[test_case("file.changed"; "file")]
    #[test_case("folder.changed"; "folder")]
    fn events_off_the_hot_path_are_allowed(event: &str) {
        assert_eq!(webhook_event_allowed(event), Ok(()));
    }

    #[test_case("tool.before"; "tool before")]
    #[test_case("prompt.submit"; "prompt")]
    #[test_case("prompt.assemble"; "assemble")]
    #[test_case("model.before"; "model")]
    #[test_case("session.start"; "session start")]
    #[test_case("task."; "bare task prefix")]
    #[test_case("tasks.done"; "look-alike prefix")]
    #[test_case("deploy.done"; "custom")]
    fn other_events_are_refused(event: &str) {
        assert!(webhook_event_allowed(event).is_err(), "{event}");
    }

    #[test]
    fn the_refusal_says_why() {
        assert_eq!(
            webhook_event_allowed("PreToolUse"),
            Err("a plugin webhook cannot listen to `PreToolUse` (tool.before): webhooks on hot-path events would add a network round trip to every agent step; plugin webhooks may listen only to tool.after, schedule.fired, session.end, memory.upsert, task.*, file.changed, folder.changed; a hook in hooks.toml with `url` may listen to any event".to_owned())
        );
        assert!(
            webhook_event_allowed("tool.before")
                .expect_err("tool.before is on the hot path")
                .starts_with("a plugin webhook cannot listen to `tool.before`: ")
        );
    }

    #[test]
    fn urls() {
        assert_eq!(check_url("http://127.0.0.1:8080/h?x=1"), Ok(()));
        assert_eq!(check_url("https://example.com"), Ok(()));
        assert_eq!(
            check_url("example.com/hook"),
            Err("relative URL without a base; write url = \"http://host/path\"".to_owned())
        );
        assert_eq!(
            check_url("ftp://example.com/"),
            Err("scheme `ftp` is not http or https; write url = \"http://host/path\"".to_owned())
        );
        assert_eq!(
            check_url("http://:80/"),
            Err("empty host; write url = \"http://host/path\"".to_owned())
        );
    }

    #[test]
    fn headers_and_variable_names() {
        assert_eq!(check_header("Authorization", "Bearer x"), Ok(()));
        assert_eq!(check_header("X-Trace", "a\tb é"), Ok(()));
        assert!(check_header("Bad Name", "x").is_err());
        assert!(check_header("", "x").is_err());
        assert!(check_header("X-A", "a\r\nInjected: 1").is_err());
        assert_eq!(
            check_header("x-hookrig-signature", "forged"),
            Err("hookrig sets this header itself".to_owned())
        );
        assert_eq!(check_env_name("HOOK_SECRET"), Ok(()));
        assert!(check_env_name("").is_err());
        assert!(check_env_name("A=B").is_err());
    }
}
