//! Debug logging to stderr.

/// Turns on debug lines when `--debug` is given or `HOOKRIG_LOG=debug`.
///
/// Nothing is set up otherwise: emit is started once per agent event and must not pay
/// for a logger it does not use.
pub(crate) fn init(debug_flag: bool) {
    let from_env = std::env::var("HOOKRIG_LOG").is_ok_and(|v| v.eq_ignore_ascii_case("debug"));
    if !(debug_flag || from_env) {
        return;
    }
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::DEBUG)
        .with_target(false)
        .without_time()
        .with_ansi(false)
        .init();
}

/// Whether debug lines are on.
pub(crate) fn enabled() -> bool {
    tracing::enabled!(tracing::Level::DEBUG)
}
