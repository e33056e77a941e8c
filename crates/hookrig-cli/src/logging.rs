//! Debug logging to stderr.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// Whether every debug line is on (`--debug`), not only the hook-run lines.
static FULL: AtomicBool = AtomicBool::new(false);

/// Turns on debug lines when `--debug` is given or `HOOKRIG_LOG=debug`, and only the
/// hook-run lines (`hooks.exec-ran ...`) with `--debug-hooks` or `HOOKRIG_LOG=hooks`, as
/// x-code's `--plugin-debug` mirrors only its tagged lines. `--debug` wins over both.
///
/// Nothing is set up otherwise: emit is started once per agent event and must not pay
/// for a logger it does not use.
pub(crate) fn init(debug_flag: bool, hooks_flag: bool) {
    let from_env = std::env::var("HOOKRIG_LOG").unwrap_or_default();
    if debug_flag || from_env.eq_ignore_ascii_case("debug") {
        FULL.store(true, Ordering::Relaxed);
        tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_max_level(tracing::Level::DEBUG)
            .with_target(false)
            .without_time()
            .with_ansi(false)
            .init();
    } else if hooks_flag || from_env.eq_ignore_ascii_case("hooks") {
        let subscriber = tracing_subscriber::registry().with(HookLines);
        let _ = tracing::subscriber::set_global_default(subscriber);
    }
}

/// Whether every debug line is on (config warnings are printed too).
pub(crate) fn enabled() -> bool {
    FULL.load(Ordering::Relaxed)
}

/// Prints the debug lines tagged `hooks.` (one per hook run, and the matcher and
/// failure lines of the x-code dialect), each as it is logged, and nothing else.
struct HookLines;

impl<S: Subscriber> Layer<S> for HookLines {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        if *event.metadata().level() > Level::DEBUG {
            return;
        }
        let mut message = Message(None);
        event.record(&mut message);
        if let Some(line) = message.0
            && line.starts_with("hooks.")
        {
            eprintln!("{line}");
        }
    }
}

/// The `message` field of an event.
struct Message(Option<String>);

impl Visit for Message {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0 = Some(value.to_owned());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            self.0 = Some(format!("{value:?}"));
        }
    }
}
