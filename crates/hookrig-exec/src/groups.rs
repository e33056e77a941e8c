//! The registry of the process groups of running hooks, so that hookrig can kill them all
//! when it is itself asked to stop.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;

use crate::unix::ProcessGroup;

/// Live process groups of running hooks, shared (cloning shares the same registry) by all
/// handlers of a hookrig process, so that when hookrig itself receives SIGINT/SIGTERM it
/// can kill them all before exiting.
///
/// [`run_process`](crate::process::run_process) registers the group of each hook for as
/// long as it runs. [`kill_all`](Self::kill_all) is final: hooks that are started after it
/// are not spawned at all and end as [`Termination::Interrupted`], so a handler racing
/// with shutdown cannot leave a process behind.
///
/// [`Termination::Interrupted`]: crate::process::Termination::Interrupted
#[derive(Clone, Default)]
pub struct ProcessGroups {
    inner: Arc<Inner>,
}

struct Inner {
    live: Mutex<Live>,
    /// Becomes `true` once, when `kill_all` is called; runs watch it to return promptly.
    interrupted: watch::Sender<bool>,
}

#[derive(Default)]
struct Live {
    next_id: u64,
    /// Keyed by a registration id rather than by pgid: once a leader is reaped its pid may
    /// be reused by the next hook while the first run still holds its registration.
    groups: HashMap<u64, ProcessGroup>,
}

impl Default for Inner {
    fn default() -> Self {
        Self {
            live: Mutex::default(),
            interrupted: watch::Sender::new(false),
        }
    }
}

impl ProcessGroups {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `other` is this registry (a clone of it), not merely an equal one.
    pub fn same(&self, other: &ProcessGroups) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Sends SIGKILL to every registered process group and marks the registry interrupted,
    /// so that every running [`run_process`](crate::process::run_process) returns
    /// [`Termination::Interrupted`](crate::process::Termination::Interrupted) promptly and
    /// later ones do not spawn anything.
    pub fn kill_all(&self) {
        // The flag is raised before the groups are signalled: a run that registers after
        // the loop below sees it and kills its own group.
        self.inner.interrupted.send_replace(true);
        let live = self.lock();
        tracing::debug!(
            groups = live.groups.len(),
            "killing all hook process groups"
        );
        for group in live.groups.values() {
            group.kill();
        }
    }

    /// The number of registered (running) process groups.
    pub fn len(&self) -> usize {
        self.lock().groups.len()
    }

    /// Whether no process group is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Registers `group` until the returned guard is dropped.
    pub(crate) fn register(&self, group: ProcessGroup) -> Registration {
        let mut live = self.lock();
        let id = live.next_id;
        live.next_id += 1;
        live.groups.insert(id, group);
        Registration {
            groups: self.clone(),
            id,
        }
    }

    /// A receiver whose value becomes `true` when [`kill_all`](Self::kill_all) is called.
    pub(crate) fn interruptions(&self) -> watch::Receiver<bool> {
        self.inner.interrupted.subscribe()
    }

    fn lock(&self) -> MutexGuard<'_, Live> {
        // The map stays consistent even if a holder panicked: every critical section is a
        // single insert, remove or read.
        self.inner
            .live
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for ProcessGroups {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let live = self.lock();
        f.debug_struct("ProcessGroups")
            .field("groups", &live.groups.values().collect::<Vec<_>>())
            .field("interrupted", &*self.inner.interrupted.borrow())
            .finish()
    }
}

/// Keeps a process group registered; dropping it deregisters the group.
#[derive(Debug)]
pub(crate) struct Registration {
    groups: ProcessGroups,
    id: u64,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.groups.lock().groups.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registrations_are_counted_until_dropped() {
        let groups = ProcessGroups::new();
        assert!(groups.is_empty());
        let first = groups.register(ProcessGroup::led_by(1_000_000).expect("valid pid"));
        // The same pgid twice: a reused pid must not collapse two registrations.
        let second = groups.register(ProcessGroup::led_by(1_000_000).expect("valid pid"));
        assert_eq!(groups.clone().len(), 2);
        drop(first);
        assert_eq!(groups.len(), 1);
        drop(second);
        assert!(groups.is_empty());
    }

    #[test]
    fn kill_all_is_seen_by_existing_and_later_receivers() {
        let groups = ProcessGroups::new();
        let before = groups.interruptions();
        assert!(!*before.borrow());
        groups.kill_all();
        assert!(*before.borrow());
        assert!(*groups.interruptions().borrow());
    }

    #[test]
    fn no_group_for_pids_that_would_signal_the_wrong_processes() {
        assert!(ProcessGroup::led_by(0).is_none());
        assert!(ProcessGroup::led_by(1).is_none());
        assert!(ProcessGroup::led_by(u32::MAX).is_none());
        assert!(ProcessGroup::led_by(2).is_some());
    }
}
