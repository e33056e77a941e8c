//! The debug lines of an emit, in one format wherever they are written: the binary
//! writes them to its stderr as they come, and a resident engine collects those of the
//! emit it answers for the client to print, so that `--debug` reads the same both ways.

use std::fmt;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// Which debug lines are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verbosity {
    /// None (the default: a logger nobody reads costs every emit).
    #[default]
    Quiet,
    /// The hook-run lines only (`hooks.exec-ran ...`), as x-code's `--plugin-debug`
    /// mirrors its tagged lines.
    Hooks,
    /// Every debug line.
    Debug,
}

/// The subscriber writing `verbosity`'s lines to `writer`; `None` when quiet.
pub fn subscriber<W>(
    verbosity: Verbosity,
    writer: W,
) -> Option<Box<dyn Subscriber + Send + Sync + 'static>>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    match verbosity {
        Verbosity::Quiet => None,
        Verbosity::Debug => Some(Box::new(
            tracing_subscriber::fmt()
                .with_writer(writer)
                .with_max_level(Level::DEBUG)
                .with_target(false)
                .without_time()
                .with_ansi(false)
                .finish(),
        )),
        Verbosity::Hooks => Some(Box::new(
            tracing_subscriber::registry().with(HookLines { writer }),
        )),
    }
}

/// Lines collected in memory, shared with the subscriber writing them.
#[derive(Debug, Clone, Default)]
pub struct Collected(Arc<Mutex<Vec<u8>>>);

impl Collected {
    /// Appends `text` (a line written outside tracing, in order with the others).
    pub fn push(&self, text: &str) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(text.as_bytes());
    }

    /// Everything collected so far, taken out.
    pub fn take(&self) -> String {
        let bytes = std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner));
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl Write for Collected {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'w> MakeWriter<'w> for Collected {
    type Writer = Collected;

    fn make_writer(&'w self) -> Self::Writer {
        self.clone()
    }
}

/// Writes the debug lines tagged `hooks.` (one per hook run, and the matcher and
/// failure lines of the x-code dialect), each as it is logged, and nothing else.
struct HookLines<W> {
    writer: W,
}

impl<S: Subscriber, W> Layer<S> for HookLines<W>
where
    W: for<'w> MakeWriter<'w> + 'static,
{
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        if *event.metadata().level() > Level::DEBUG {
            return;
        }
        let mut message = Message(None);
        event.record(&mut message);
        if let Some(line) = message.0
            && line.starts_with("hooks.")
        {
            let _ = writeln!(self.writer.make_writer(), "{line}");
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
