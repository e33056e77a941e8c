//! One module per subcommand.

pub(crate) mod agent;
pub(crate) mod agent_watch;
pub(crate) mod auto;
pub(crate) mod completions;
pub(crate) mod config;
pub(crate) mod emit;
pub(crate) mod engine;
pub(crate) mod events;
pub(crate) mod explain;
pub(crate) mod install;
pub(crate) mod list;
pub(crate) mod plan;
pub(crate) mod plan_validate;
pub(crate) mod plugins;
pub(crate) mod providers;
pub(crate) mod runs;
pub(crate) mod schema;
pub(crate) mod serve;
pub(crate) mod store;
pub(crate) mod task;
pub(crate) mod test;
pub(crate) mod trust;
pub(crate) mod ui;
pub(crate) mod validate;
