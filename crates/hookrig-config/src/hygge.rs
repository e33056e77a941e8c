//! Loader for hygge's `hooks.toml` (`[hooks.<name>]` tables, exec form, Go durations).

use hookrig_core::Level;

use crate::loader::LoadContext;

/// Loads this dialect's sources of one level into `ctx`.
pub(crate) fn load(ctx: &mut LoadContext<'_>, level: Level) {
    let _ = (ctx, level);
}
