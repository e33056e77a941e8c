//! `SessionEnd` hooks share one time budget in Claude Code: 1.5 s, raised to the longest
//! `timeout` a settings file gives one of them, up to 60 s (a plugin's hook does not
//! raise it). Every `SessionEnd` hook gets that budget here, so that a hook without a
//! `timeout` runs as long as Claude Code lets it beside a slower one, and none runs
//! past 60 s. docs/dialects/claude.md gives the source.

use std::time::Duration;

use super::ClaudeProtocol;
use crate::definition::HookDef;

/// The budget before any hook raises it.
const BUDGET: Duration = Duration::from_millis(1_500);
/// The most any hook can raise it to.
const MOST: Duration = Duration::from_mins(1);

/// Gives every Claude Code `SessionEnd` hook of `hooks` the shared budget.
pub(crate) fn share_budget(hooks: &mut [HookDef]) {
    let session_end = |def: &HookDef| {
        def.protocol_as::<ClaudeProtocol>()
            .filter(|p| p.0.event == "SessionEnd")
            .map(|p| p.0.plugin.is_none())
    };
    let budget = hooks
        .iter()
        .filter(|def| session_end(def) == Some(true))
        .filter_map(|def| def.spec.timeout)
        .fold(BUDGET, Duration::max)
        .min(MOST);
    for def in hooks.iter_mut().filter(|def| session_end(def).is_some()) {
        def.spec.timeout = Some(budget);
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::loader::{Layer, parse};
    use super::*;

    fn timeouts(text: &str) -> Vec<Option<Duration>> {
        let mut diagnostics = Vec::new();
        let mut file = parse(
            Path::new("/h/settings.json"),
            text,
            Layer::User,
            &mut diagnostics,
        )
        .unwrap_or_else(|d| panic!("{d}"));
        share_budget(&mut file.hooks);
        file.hooks.iter().map(|h| h.spec.timeout).collect()
    }

    #[test]
    fn session_end_hooks_share_the_longest_timeout_up_to_a_minute() {
        let secs = |s: f64| Some(Duration::from_secs_f64(s));
        assert_eq!(
            timeouts(
                r#"{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "a"},
                {"type": "command", "command": "b", "timeout": 5}]}],
                "Stop": [{"hooks": [{"type": "command", "command": "c", "timeout": 2}]}]}}"#
            ),
            [secs(5.0), secs(5.0), secs(2.0)]
        );
        assert_eq!(
            timeouts(
                r#"{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "a", "timeout": 600}]}]}}"#
            ),
            [secs(60.0)]
        );
        assert_eq!(
            timeouts(
                r#"{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "a"}]}]}}"#
            ),
            [secs(1.5)]
        );
    }
}
