//! Debug logging to stderr, in the runtime's format ([`hookrig_runtime::log`]).

use std::sync::atomic::{AtomicU8, Ordering};

use hookrig_runtime::log::{self, Verbosity};

/// The verbosity set by [`init`]: 0 quiet, 1 hook lines, 2 every line.
static LEVEL: AtomicU8 = AtomicU8::new(0);

/// Turns on debug lines when `--debug` is given or `HOOKRIG_LOG=debug`, and only the
/// hook-run lines (`hooks.exec-ran ...`) with `--debug-hooks` or `HOOKRIG_LOG=hooks`, as
/// x-code's `--plugin-debug` mirrors only its tagged lines. `--debug` wins over both.
///
/// Nothing is set up otherwise: emit is started once per agent event and must not pay
/// for a logger it does not use.
pub(crate) fn init(debug_flag: bool, hooks_flag: bool) {
    let from_env = std::env::var("HOOKRIG_LOG").unwrap_or_default();
    let verbosity = if debug_flag || from_env.eq_ignore_ascii_case("debug") {
        Verbosity::Debug
    } else if hooks_flag || from_env.eq_ignore_ascii_case("hooks") {
        Verbosity::Hooks
    } else {
        Verbosity::Quiet
    };
    LEVEL.store(
        match verbosity {
            Verbosity::Quiet => 0,
            Verbosity::Hooks => 1,
            Verbosity::Debug => 2,
        },
        Ordering::Relaxed,
    );
    if let Some(subscriber) = log::subscriber(verbosity, std::io::stderr) {
        let _ = tracing::subscriber::set_global_default(subscriber);
    }
}

/// The verbosity [`init`] set.
pub(crate) fn verbosity() -> Verbosity {
    match LEVEL.load(Ordering::Relaxed) {
        2 => Verbosity::Debug,
        1 => Verbosity::Hooks,
        _ => Verbosity::Quiet,
    }
}
