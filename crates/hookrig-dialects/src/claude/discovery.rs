//! Everything Claude Code reads for its hooks, in its order: the settings files of a
//! level, then (once every file is read) the hooks of the plugins they turn on, and the
//! HTTP hook allowlists over all of them.

use hookrig_core::Level;

use crate::loader::LoadContext;

/// Loads this dialect's sources of one level into `ctx`.
pub(crate) fn load(ctx: &mut LoadContext<'_>, level: Level) {
    super::loader::load_settings(ctx, level);
    // Which plugins run, and the allowlists, are settled by every file together.
    if level == Level::Project {
        if !ctx.options.answering(hookrig_core::Dialect::Claude) {
            super::plugins::load(ctx);
        }
        super::session_end::share_budget(&mut ctx.hooks);
        super::policy::apply(ctx);
    }
}
