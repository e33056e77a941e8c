//! Plugin webhooks: the events a plugin package's webhook may listen to.

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
    let name = crate::events::resolve(event);
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
}
