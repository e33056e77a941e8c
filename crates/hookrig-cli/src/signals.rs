//! SIGINT, SIGTERM and SIGHUP while hooks run: kill every hook's process group, then
//! exit.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use hookrig_exec::ProcessGroups;
use tokio::signal::unix::{SignalKind, signal};

use crate::exit_codes;

/// Remembers which signal arrived, if any.
#[derive(Debug, Clone, Default)]
pub(crate) struct Interrupt(Arc<AtomicU8>);

impl Interrupt {
    /// The exit code to leave with, when a signal arrived.
    pub(crate) fn exit_code(&self) -> Option<u8> {
        match self.0.load(Ordering::Acquire) {
            0 => None,
            code => Some(code),
        }
    }
}

/// Starts watching for SIGINT, SIGTERM and SIGHUP (a closed terminal or a host that
/// hangs up is a request to stop, not a crash) on the current runtime. When one arrives,
/// every running hook's process group is killed; the dispatch then finishes with those
/// hooks marked interrupted, so the run is still answered and recorded.
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
        let code = tokio::select! {
            _ = int.recv() => exit_codes::INTERRUPTED,
            _ = term.recv() => exit_codes::TERMINATED,
            _ = hup.recv() => exit_codes::HUNG_UP,
        };
        flag.store(code, Ordering::Release);
        groups.kill_all();
    });
    interrupt
}
