//! Loader for Claude Code `settings.json` hooks.

use hookrig_core::Level;

use crate::loader::LoadContext;

/// Loads this dialect's sources of one level into `ctx`.
pub(crate) fn load(ctx: &mut LoadContext<'_>, level: Level) {
    let _ = (ctx, level);
}

/// What a Claude Code hook needs at run time beyond its command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeHook {
    /// The Claude Code event name the hook was declared under (`PreToolUse`, ...).
    pub event: String,
}
