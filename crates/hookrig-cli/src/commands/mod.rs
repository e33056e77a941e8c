//! One module per subcommand.

pub(crate) mod emit;
pub(crate) mod events;
pub(crate) mod runs;
