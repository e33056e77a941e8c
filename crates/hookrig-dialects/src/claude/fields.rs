//! Which fields of a hook's JSON output each Claude Code event accepts, and what Claude
//! Code drops: the reference's event sections list, per event, the `hookSpecificOutput`
//! fields it reads and the common fields it discards (`systemMessage`, `continue`, or the
//! whole output). A field an event does not take is dropped here as Claude Code drops
//! it, so the host mode never passes it on. docs/dialects/claude.md gives the sources.

use super::wire::HookOutput;
use crate::wire::Shaped;

/// Claude Code's cap on a text a hook injects (`additionalContext`, `systemMessage`,
/// plain stdout read as context), in characters.
pub(crate) const TEXT_CAP: usize = 10_000;
/// How much of a longer text Claude Code keeps in place, in characters.
const PREVIEW: usize = 2_000;

/// `text` as Claude Code passes it on: as it is up to [`TEXT_CAP`] characters; past it,
/// written whole to a file and replaced with a preview of its start and the file's
/// path, as Claude Code does. The file is in the system's temporary directory, named
/// after the text; when it cannot be written, the preview says that the rest is lost.
pub(crate) fn capped(text: String) -> String {
    if text.chars().nth(TEXT_CAP).is_none() {
        return text;
    }
    let total = text.chars().count();
    let preview_end = text
        .char_indices()
        .nth(PREVIEW)
        .map_or(text.len(), |(at, _)| at);
    let preview = &text[..preview_end];
    let kept = match overflow_file(&text) {
        Ok(path) => format!("the whole text is in {}", path.display()),
        Err(err) => format!("the rest is lost: it could not be written to a file ({err})"),
    };
    format!("{preview}\n\n[output of {total} characters, longer than {TEXT_CAP}: {kept}]")
}

/// Writes a text that is over the cap to its file, named after its hash so that the
/// same text is written once.
fn overflow_file(text: &str) -> std::io::Result<std::path::PathBuf> {
    use std::hash::{Hash as _, Hasher as _};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    let dir = std::env::temp_dir().join("hookrig-claude-output");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{:016x}.txt", hasher.finish()));
    std::fs::write(&path, text)?;
    Ok(path)
}

/// The fields of `hookSpecificOutput` that hookrig does not read itself but passes on
/// as the hooks wrote them, for the events that take them.
pub(crate) fn passed_on(event: &str) -> &'static [&'static str] {
    match event {
        "SessionStart" => &[
            "initialUserMessage",
            "sessionTitle",
            "watchPaths",
            "reloadSkills",
        ],
        "UserPromptSubmit" => &["sessionTitle", "suppressOriginalPrompt"],
        "PostToolUse" => &["classifierContext"],
        "PermissionDenied" => &["retry"],
        "MessageDisplay" => &["displayContent"],
        "CwdChanged" | "FileChanged" => &["watchPaths"],
        "Elicitation" | "ElicitationResult" => &["action", "content"],
        "WorktreeCreate" => &["worktreePath"],
        _ => &[],
    }
}

/// Whether `permissionDecision` (and its reason) means anything on the event.
pub(crate) fn takes_permission_decision(event: &str) -> bool {
    matches!(event, "PreToolUse" | "PreModelSwitch")
}

/// What Claude Code discards of a hook's output on `event`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Discard {
    /// Nothing: every field the event takes is read.
    Nothing,
    /// `continue` (and so `stopReason`).
    Continue,
    /// `systemMessage` and `continue`.
    MessageAndContinue,
    /// Every field but `terminalSequence`.
    AllButTerminal,
    /// Every field.
    All,
}

fn discarded(event: &str) -> Discard {
    match event {
        "CwdChanged" | "FileChanged" | "DirectoryAdded" | "TaskCreated" => Discard::Continue,
        "Notification" | "ConfigChange" | "WorktreeCreate" | "PreCompact" | "PostCompact"
        | "Elicitation" => Discard::MessageAndContinue,
        "StopFailure" => Discard::AllButTerminal,
        "Setup" | "SessionEnd" | "WorktreeRemove" => Discard::All,
        _ => Discard::Nothing,
    }
}

/// Drops from `output` what Claude Code drops on `event`: the common fields the event
/// discards, and the `hookSpecificOutput` fields it does not take. `hookEventName` is
/// kept, since Claude Code checks it whatever the event.
pub(crate) fn drop_unread(event: &str, output: &mut HookOutput) {
    match discarded(event) {
        Discard::Nothing => {}
        Discard::Continue => {
            output.proceed = None;
            output.stop_reason = None;
        }
        Discard::MessageAndContinue => {
            output.proceed = None;
            output.stop_reason = None;
            output.system_message = None;
        }
        Discard::AllButTerminal | Discard::All => {
            let terminal = output.terminal_sequence.take();
            let name = match &output.hook_specific_output {
                Some(Shaped::Typed(specific)) => specific.hook_event_name.clone(),
                _ => None,
            };
            *output = HookOutput::default();
            if discarded(event) == Discard::AllButTerminal {
                output.terminal_sequence = terminal;
            }
            // The name is still checked: a hook that answers for another event is
            // still a non-blocking error.
            if let Some(name) = name {
                output.hook_specific_output =
                    Some(Shaped::Typed(super::wire::HookSpecificOutput {
                        hook_event_name: Some(name),
                        ..Default::default()
                    }));
            }
            return;
        }
    }
    if let Some(Shaped::Typed(specific)) = &mut output.hook_specific_output {
        let taken = passed_on(event);
        specific.rest.retain(|key, _| taken.contains(&key.as_str()));
        if !takes_permission_decision(event) {
            specific.permission_decision = None;
            specific.permission_decision_reason = None;
        }
        if event != "PermissionRequest" {
            specific.decision = None;
        }
        if event != "PreToolUse" {
            specific.updated_input = None;
        }
        if event != "PostToolUse" {
            specific.updated_tool_output = None;
            specific.updated_mcp_tool_output = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn dropped(event: &str, output: Value) -> Value {
        let mut output: HookOutput = serde_json::from_value(output).expect("an output");
        drop_unread(event, &mut output);
        serde_json::to_value(&output).expect("serializes")
    }

    #[test_case::test_case("CwdChanged", json!({"continue": false, "stopReason": "x", "systemMessage": "m"}), &json!({"systemMessage": "m"}) ; "cwd changed drops continue")]
    #[test_case::test_case("ConfigChange", json!({"continue": false, "systemMessage": "m", "decision": "block", "reason": "r"}), &json!({"decision": "block", "reason": "r"}) ; "config change drops message and continue")]
    #[test_case::test_case("StopFailure", json!({"systemMessage": "m", "terminalSequence": "\u{7}"}), &json!({"terminalSequence": "\u{7}"}) ; "stop failure keeps the terminal sequence only")]
    #[test_case::test_case("SessionEnd", json!({"systemMessage": "m", "terminalSequence": "\u{7}"}), &json!({}) ; "session end drops everything")]
    #[test_case::test_case("Stop", json!({"hookSpecificOutput": {"hookEventName": "Stop", "permissionDecision": "deny", "updatedInput": {}, "watchPaths": ["a"]}}), &json!({"hookSpecificOutput": {"hookEventName": "Stop"}}) ; "stop takes no tool fields")]
    #[test_case::test_case("FileChanged", json!({"hookSpecificOutput": {"hookEventName": "FileChanged", "watchPaths": ["a"], "retry": true}}), &json!({"hookSpecificOutput": {"hookEventName": "FileChanged", "watchPaths": ["a"]}}) ; "file changed takes watch paths")]
    #[test_case::test_case("PreModelSwitch", json!({"hookSpecificOutput": {"hookEventName": "PreModelSwitch", "permissionDecision": "ask"}}), &json!({"hookSpecificOutput": {"hookEventName": "PreModelSwitch", "permissionDecision": "ask"}}) ; "model switch takes a permission decision")]
    fn fields_an_event_does_not_take_are_dropped(event: &str, output: Value, kept: &Value) {
        assert_eq!(&dropped(event, output), kept);
    }

    #[test]
    fn text_past_the_cap_is_a_preview_and_a_file() {
        let short = "é".repeat(TEXT_CAP);
        assert_eq!(capped(short.clone()), short);
        let long = format!("{}{}", "é".repeat(PREVIEW), "x".repeat(TEXT_CAP));
        let capped = capped(long.clone());
        let (preview, note) = capped.split_once("\n\n[").expect("a note");
        assert_eq!(preview, "é".repeat(PREVIEW));
        let path = note
            .strip_prefix("output of 12000 characters, longer than 10000: the whole text is in ")
            .and_then(|rest| rest.strip_suffix(']'))
            .expect("the file's path");
        assert_eq!(std::fs::read_to_string(path).expect("the file"), long);
    }
}
