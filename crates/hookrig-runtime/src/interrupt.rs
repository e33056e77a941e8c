//! SIGINT, SIGTERM and SIGHUP while hooks run: every hook's process group is killed, and
//! the dispatch finishes with those hooks marked interrupted, so the run is still
//! answered and recorded.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use hookrig_exec::ProcessGroups;
use tokio::signal::unix::{SignalKind, signal};

/// A signal that asked hookrig to stop while hooks ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopSignal {
    /// SIGHUP: the terminal or the host hung up.
    HangUp,
    /// SIGINT.
    Interrupt,
    /// SIGTERM.
    Terminate,
}

impl StopSignal {
    /// The signal's number (a process ended by it exits with 128 + this).
    pub fn number(self) -> u8 {
        match self {
            StopSignal::HangUp => 1,
            StopSignal::Interrupt => 2,
            StopSignal::Terminate => 15,
        }
    }

    fn from_number(number: u8) -> Option<StopSignal> {
        [
            StopSignal::HangUp,
            StopSignal::Interrupt,
            StopSignal::Terminate,
        ]
        .into_iter()
        .find(|signal| signal.number() == number)
    }
}

/// Remembers which signal arrived, if any.
#[derive(Debug, Clone, Default)]
pub(crate) struct Interrupt(Arc<AtomicU8>);

impl Interrupt {
    /// The signal that arrived, if one did.
    pub(crate) fn signal(&self) -> Option<StopSignal> {
        StopSignal::from_number(self.0.load(Ordering::Acquire))
    }
}

/// Starts watching for SIGINT, SIGTERM and SIGHUP (a closed terminal or a host that
/// hangs up is a request to stop, not a crash) on the current runtime. When one arrives,
/// every running hook's process group is killed.
pub(crate) fn watch(groups: ProcessGroups) -> Interrupt {
    let interrupt = Interrupt::default();
    let flag = Arc::clone(&interrupt.0);
    let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        // Without signal handlers the default action still ends hookrig; the kernel
        // does not kill the hooks' groups then, so say so in the debug log.
        tracing::debug!("cannot install signal handlers; hooks may outlive an interrupted hookrig");
        return interrupt;
    };
    tokio::spawn(async move {
        let stop = tokio::select! {
            _ = int.recv() => StopSignal::Interrupt,
            _ = term.recv() => StopSignal::Terminate,
            _ = hup.recv() => StopSignal::HangUp,
        };
        flag.store(stop.number(), Ordering::Release);
        groups.kill_all();
    });
    interrupt
}
