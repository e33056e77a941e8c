//! Loader for x-code plugin directories (`plugin.json` manifests with hooks).

use hookrig_core::Level;

use crate::loader::LoadContext;

/// Loads this dialect's sources of one level into `ctx`.
pub(crate) fn load(ctx: &mut LoadContext<'_>, level: Level) {
    let _ = (ctx, level);
}

/// What an x-code hook needs at run time beyond its command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XcodeHook {
    /// `name@marketplace`, or `name@local`.
    pub plugin_id: String,
    /// The x-code event name the hook was declared under (`PreToolUse`, ...).
    pub event: String,
}
