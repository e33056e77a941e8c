//! Loader for Hence lifecycle hook scripts (`.hence/hooks/<name>`).

use hookrig_core::Level;

use crate::loader::LoadContext;

/// Loads this dialect's sources of one level into `ctx`.
pub(crate) fn load(ctx: &mut LoadContext<'_>, level: Level) {
    let _ = (ctx, level);
}

/// What a Hence lifecycle hook needs at run time beyond its script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HenceHook {
    /// The hook point (`post-claim`, `post-complete`, ...).
    pub hook_point: String,
}
