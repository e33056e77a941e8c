//! Stopping a process group: the one SIGTERM → grace → SIGKILL path of hookrig.
//!
//! A hook that runs past its timeout and an agent that `hookrig agent stop` ends are
//! stopped the same way: SIGTERM to every process of the group, up to a grace period for
//! the group to empty, then SIGKILL to whatever is left. A [`Job`] is the handle for a
//! group that hookrig does not wait for itself: one it started detached a moment ago, or
//! one an earlier hookrig started and recorded (an agent outlives the hookrig that
//! started it, so a later one re-creates the handle from the recorded group id).

use std::future::Future;
use std::time::Duration;

use crate::unix::ProcessGroup;

/// How often the group is checked for members while its kill grace runs.
const GROUP_POLL: Duration = Duration::from_millis(20);

/// How long [`Job::stop`] waits for the group to disappear once SIGKILL was sent: the
/// kernel takes a moment to end a killed process, and one stuck in the kernel may take
/// longer, which must not keep `stop` from returning.
const KILL_SETTLE: Duration = Duration::from_secs(2);

/// What [`stop_group`] did.
pub(crate) struct GroupStop<T> {
    /// What `leader` resolved to, when it resolved within the grace period.
    pub(crate) leader: Option<T>,
    /// Whether SIGKILL was needed: the grace period was zero, or a process of the group
    /// outlived it.
    pub(crate) killed: bool,
}

/// Stops `group`: SIGTERM to every member, up to `grace` for the group to empty, SIGKILL
/// to what is left (always sent last: members that ignore SIGTERM must not outlive a
/// leader that did not). A zero `grace` sends SIGKILL alone: sent first, SIGTERM would
/// only let a trap start and be cut off by the SIGKILL right behind it.
///
/// `leader` resolves when the group's leader has ended; for a leader that is hookrig's
/// own child it is the wait that reaps it.
pub(crate) async fn stop_group<F: Future>(
    group: ProcessGroup,
    grace: Duration,
    leader: F,
) -> GroupStop<F::Output> {
    if grace.is_zero() {
        tracing::debug!(?group, "killing a process group");
        group.kill();
        return GroupStop {
            leader: None,
            killed: true,
        };
    }
    tracing::debug!(?group, ?grace, "terminating a process group");
    group.terminate();
    let grace_ends = tokio::time::Instant::now() + grace;
    let stopped = match tokio::time::timeout_at(grace_ends, leader).await {
        Ok(ended) => {
            // `sh -c script` forks the script rather than replacing itself with it, so
            // the leader may die on SIGTERM at once while the script it started is still
            // cleaning up. The grace period is for the whole group: wait for it to empty,
            // up to the end.
            while group.is_alive() && tokio::time::Instant::now() < grace_ends {
                tokio::time::sleep(GROUP_POLL).await;
            }
            GroupStop {
                leader: Some(ended),
                killed: group.is_alive(),
            }
        }
        Err(_elapsed) => {
            tracing::debug!(
                ?group,
                "a process group outlived its kill grace: killing it"
            );
            GroupStop {
                leader: None,
                killed: true,
            }
        }
    };
    group.kill();
    stopped
}

/// Resolves once no process of `group` is left.
async fn emptied(group: ProcessGroup) {
    while group.is_alive() {
        tokio::time::sleep(GROUP_POLL).await;
    }
}

/// A process group that hookrig started and does not wait for itself: the handle through
/// which it is stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    group: ProcessGroup,
}

/// What [`Job::stop`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// No process of the group was left to stop.
    NotRunning,
    /// The group emptied within the grace period after SIGTERM.
    Terminated,
    /// SIGKILL was sent because a process of the group outlived the grace period (or the
    /// grace period was zero).
    Killed,
}

impl Job {
    /// The group whose id is `pgid`, as recorded when its leader was started with a group
    /// of its own; `None` for an id no such group can have (0, 1, negative, too large),
    /// which would signal hookrig's own group, `init` or every process.
    ///
    /// The kernel does not give a pid that is still some group's id to a new process, so
    /// while any process of the group lives, the id names that group and no stranger.
    pub fn from_pgid(pgid: i64) -> Option<Self> {
        u32::try_from(pgid)
            .ok()
            .and_then(ProcessGroup::led_by)
            .map(|group| Self { group })
    }

    /// The process group id, which is the pid of the process that leads it.
    pub fn pgid(self) -> i32 {
        self.group.id()
    }

    /// Whether any process of the group is left; zombies do not count.
    pub fn is_alive(self) -> bool {
        self.group.is_alive()
    }

    /// Whether the process that leads the group (its pid is the group id) still exists,
    /// as `kill(pid, 0)` tells: a zombie that its parent has not reaped yet exists too,
    /// and so does a process hookrig may not signal.
    pub fn leader_exists(self) -> bool {
        self.group.leader_exists()
    }

    /// SIGTERM to the group, SIGKILL to what is left after `grace`; then up to 2 s for
    /// the killed processes to disappear.
    pub async fn stop(self, grace: Duration) -> Stopped {
        if !self.group.is_alive() {
            return Stopped::NotRunning;
        }
        let stopped = stop_group(self.group, grace, emptied(self.group)).await;
        if !stopped.killed {
            return Stopped::Terminated;
        }
        // SIGKILL cannot be caught; give the kernel a moment to take the group down.
        let _ = tokio::time::timeout(KILL_SETTLE, emptied(self.group)).await;
        Stopped::Killed
    }

    /// [`stop`](Self::stop) for a caller without an async runtime: it runs on a runtime
    /// of its own, built for this call.
    ///
    /// # Panics
    ///
    /// When called from within a tokio runtime, as every blocking wait there does.
    pub fn stop_blocking(self, grace: Duration) -> std::io::Result<Stopped> {
        Ok(crate::unix::runtime()?.block_on(self.stop(grace)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_job_for_ids_that_would_signal_the_wrong_processes() {
        for pgid in [-1, 0, 1, i64::from(u32::MAX) + 1] {
            assert!(Job::from_pgid(pgid).is_none(), "{pgid}");
        }
        assert_eq!(Job::from_pgid(4242).map(Job::pgid), Some(4242));
    }
}
