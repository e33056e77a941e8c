//! Descendants of a hook that left its process group: found and killed when the hook
//! ends.
//!
//! A hook's process group catches what it starts in the background, but not a process
//! that calls `setsid` (or a double fork through one): it leaves the group, and once its
//! parent exits the kernel hands it to the nearest *child subreaper* above it. hookrig
//! makes itself that subreaper (`PR_SET_CHILD_SUBREAPER`, Linux), so every escaped
//! descendant of every hook stays a descendant of hookrig rather than of `init`. Which
//! hook each one belongs to is told by a tag in its environment
//! ([`TAG_VARIABLE`]), set on the hook and inherited by everything it starts; when the
//! hook ends, every descendant of hookrig that carries its tag is killed, and killed
//! children of hookrig are reaped (a subreaper inherits their zombies too).
//!
//! A cgroup would catch even a process that clears its environment, but needs a
//! delegated, writable cgroup v2 tree that a user's shell, a container or CI rarely
//! gives; the subreaper needs no privilege and works wherever hookrig runs on Linux.
//! Elsewhere this module finds nothing and the process group is all there is.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::Pid;

/// The environment variable that tags a hook and everything it starts.
pub(crate) const TAG_VARIABLE: &str = "HOOKRIG_PROCESS_TAG";

/// How many scan-and-kill rounds a sweep makes at most: a process that forks as fast as
/// it is killed is outrun after a few.
const ROUNDS: usize = 50;

/// Pause between rounds, for SIGKILL to take effect.
const ROUND_PAUSE: Duration = Duration::from_millis(10);

/// What became of the processes a hook left behind when it ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Leftovers {
    /// Processes that were still running and were killed (zombies count as gone).
    pub killed: usize,
    /// Processes still running after the sweep: they could not be killed.
    pub alive: usize,
}

/// Makes this process the child subreaper of its descendants, once; whether it is one.
pub(crate) fn adopt_orphans() -> bool {
    static SUBREAPER: OnceLock<bool> = OnceLock::new();
    *SUBREAPER.get_or_init(|| match set_subreaper() {
        Ok(()) => true,
        Err(error) => {
            tracing::debug!(%error, "cannot become a child subreaper: escaped hook processes go to init");
            false
        }
    })
}

#[cfg(target_os = "linux")]
fn set_subreaper() -> nix::Result<()> {
    nix::sys::prctl::set_child_subreaper(true)
}

#[cfg(not(target_os = "linux"))]
fn set_subreaper() -> nix::Result<()> {
    Err(Errno::ENOSYS)
}

/// A tag unique to one hook run in this process (and, with the pid, on the machine).
pub(crate) fn new_tag() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}.{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// One process as `/proc/PID/stat` describes it.
struct Proc {
    ppid: i32,
    pgrp: i32,
    zombie: bool,
}

/// Every process of the machine, by pid; empty without `/proc`.
fn scan() -> HashMap<i32, Proc> {
    scan_from(None)
}

/// The processes of the machine whose pid is at least `first` (every process with
/// `None`), by pid; empty without `/proc`.
///
/// A hook's descendants were all started after the hook, so their pids come after its
/// own, unless pids wrapped around meanwhile: then (or when the kernel does not say
/// which pid it gave last) every process is read. On a busy machine this reads a
/// handful of `stat` files where a full scan reads hundreds, after every hook.
fn scan_from(first: Option<i32>) -> HashMap<i32, Proc> {
    let first = first.filter(|&first| last_pid().is_some_and(|last| last >= first));
    let mut procs = HashMap::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return procs;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        if first.is_some_and(|first| pid < first) {
            continue;
        }
        // Gone meanwhile, or not readable: either way nothing to do with it.
        if let Ok(stat) = fs::read(entry.path().join("stat"))
            && let Some(proc) = parse_stat(&stat)
        {
            procs.insert(pid, proc);
        }
    }
    procs
}

/// Reads state, ppid and pgrp from a `stat` line: `pid (comm) S ppid pgrp ...`. The
/// command name may hold spaces and parentheses, so fields are counted from its last `)`.
fn parse_stat(stat: &[u8]) -> Option<Proc> {
    let close = stat.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(&stat[close + 1..]).ok()?;
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some(Proc {
        ppid,
        pgrp,
        // `X` (dead) is only ever seen for an instant; it is as gone as a zombie.
        zombie: matches!(state, "Z" | "X"),
    })
}

/// The pid the kernel gave last in this pid namespace.
fn last_pid() -> Option<i32> {
    fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The pids below `root` in `procs`.
fn descendants(root: i32, procs: &HashMap<i32, Proc>) -> Vec<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for (&pid, proc) in procs {
        children.entry(proc.ppid).or_default().push(pid);
    }
    let mut found = Vec::new();
    let mut queue = vec![root];
    while let Some(parent) = queue.pop() {
        for &child in children.get(&parent).map_or(&[][..], Vec::as_slice) {
            found.push(child);
            queue.push(child);
        }
    }
    found
}

/// Whether the environment `pid` started with holds `needle` (`NAME=value\0`).
fn carries(pid: i32, needle: &[u8]) -> bool {
    let Ok(environ) = fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    environ.starts_with(needle)
        || environ
            .windows(needle.len() + 1)
            .any(|window| window[0] == 0 && &window[1..] == needle)
}

fn me() -> i32 {
    nix::unistd::getpid().as_raw()
}

/// Reaps `pid`, a zombie child of this process that no one else waits for.
fn reap(pid: i32) {
    match waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG)) {
        Ok(_) | Err(Errno::ECHILD) => {}
        Err(error) => tracing::debug!(pid, %error, "cannot reap a process a hook left"),
    }
}

/// Zombie children of this process that belong to the group `pgid`, other than its
/// leader (whom the process runner waits for itself): orphans of a hook that died after
/// their parent, and that only a subreaper can reap.
fn reap_group_zombies(pgid: i32, procs: &HashMap<i32, Proc>) {
    let me = me();
    for (&pid, proc) in procs {
        if proc.zombie && proc.ppid == me && proc.pgrp == pgid && pid != pgid {
            reap(pid);
        }
    }
}

/// Whether the group `pgid` has a member that is not a zombie; `None` without `/proc`.
///
/// Zombie members are gone for every purpose but the kernel's: a SIGKILL does nothing
/// to them. Those this process inherited as subreaper are reaped on the way.
pub(crate) fn group_has_live_members(pgid: i32) -> Option<bool> {
    if fs::metadata("/proc/self").is_err() {
        return None;
    }
    // Every member of the group was started after its leader.
    let procs = scan_from(Some(pgid));
    reap_group_zombies(pgid, &procs);
    Some(
        procs
            .iter()
            .any(|(&pid, proc)| proc.pgrp == pgid && !proc.zombie && pid != me()),
    )
}

/// The live descendants of this process that carry `tag`.
///
/// A scan reads one process after another, so a parent that exits meanwhile can be
/// missing from it while its child still names it as parent: the kernel hands that
/// child to this process (the subreaper) an instant later. Such a child cannot be
/// reached from this process in the scan, so processes whose parent is not in the scan
/// are candidates too; the tag says whether they are the hook's.
fn tagged(needle: &[u8], procs: &HashMap<i32, Proc>) -> Vec<i32> {
    let mut candidates = descendants(me(), procs);
    candidates.extend(
        procs
            .iter()
            .filter(|(_, proc)| proc.ppid > 1 && !procs.contains_key(&proc.ppid))
            .map(|(&pid, _)| pid),
    );
    candidates.sort_unstable();
    candidates.dedup();
    candidates
        .into_iter()
        .filter(|pid| !procs[pid].zombie && carries(*pid, needle))
        .collect()
}

fn needle(tag: &str) -> Vec<u8> {
    format!("{TAG_VARIABLE}={tag}\0").into_bytes()
}

/// Kills every descendant of this process that carries `tag`, the hook's group `pgid`
/// reaped of its zombies, until none is left or [`ROUNDS`] have passed.
pub(crate) async fn sweep(tag: &str, pgid: Option<i32>) -> Leftovers {
    if !adopt_orphans() {
        return Leftovers::default();
    }
    let needle = needle(tag);
    let mut killed = HashSet::new();
    for _ in 0..ROUNDS {
        let procs = scan_from(pgid);
        reap_killed(&killed, pgid, &procs);
        let live = tagged(&needle, &procs);
        if live.is_empty() {
            return Leftovers {
                killed: killed.len(),
                alive: 0,
            };
        }
        for pid in live {
            match kill(Pid::from_raw(pid), Signal::SIGKILL) {
                Ok(()) => {
                    killed.insert(pid);
                }
                Err(error) => tracing::debug!(pid, %error, "cannot kill a process a hook left"),
            }
        }
        tokio::time::sleep(ROUND_PAUSE).await;
    }
    let procs = scan();
    reap_killed(&killed, pgid, &procs);
    let alive = tagged(&needle, &procs);
    tracing::debug!(?alive, "processes a hook left survived SIGKILL");
    killed.retain(|pid| !alive.contains(pid));
    Leftovers {
        killed: killed.len(),
        alive: alive.len(),
    }
}

/// One round of [`sweep`] without waiting: for a run torn down from `Drop`.
pub(crate) fn kill_tagged(tag: &str) {
    if !adopt_orphans() {
        return;
    }
    for pid in tagged(&needle(tag), &scan()) {
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

/// Reaps the zombies this process inherited from a sweep: those it killed and the
/// members of the hook's group.
fn reap_killed(killed: &HashSet<i32>, pgid: Option<i32>, procs: &HashMap<i32, Proc>) {
    let me = me();
    for &pid in killed {
        if procs.get(&pid).is_some_and(|p| p.zombie && p.ppid == me) {
            reap(pid);
        }
    }
    if let Some(pgid) = pgid {
        reap_group_zombies(pgid, procs);
    }
}

/// A process that outlives a hookrig killed with SIGKILL only to kill what its hooks
/// left running.
///
/// `PR_SET_PDEATHSIG` reaches a hook's own process, not what it forked (`sh -c
/// ./script.sh` runs the script in a child of `sh`), and a hookrig killed with SIGKILL cannot
/// sweep. The guardian, forked at start-up, sleeps until the kernel tells it that hookrig
/// died, then kills every process tagged by that hookrig (`HOOKRIG_PROCESS_TAG` starts with
/// its pid). A hookrig that ends normally has swept already and dismisses it.
#[derive(Debug)]
pub struct Guardian {
    pid: Pid,
}

impl Guardian {
    /// Forks the guardian; `None` where it cannot work (no `/proc`, not Linux) or the
    /// fork failed. Must be called while the process has a single thread: before any
    /// runtime is built.
    pub fn start() -> Option<Guardian> {
        if !cfg!(target_os = "linux") || !std::path::Path::new("/proc/self/environ").exists() {
            return None;
        }
        let hookrig = nix::unistd::getpid();
        // SAFETY: the process has one thread (the caller's promise), so the child may run
        // any code; it never returns into the caller's code.
        #[expect(
            unsafe_code,
            reason = "forking is the only way to get a watcher that outlives a SIGKILLed hookrig without shipping a second binary"
        )]
        match unsafe { nix::unistd::fork() } {
            Ok(nix::unistd::ForkResult::Parent { child }) => Some(Guardian { pid: child }),
            Ok(nix::unistd::ForkResult::Child) => guard(hookrig),
            Err(error) => {
                tracing::debug!(%error, "cannot fork the guardian of hook processes");
                None
            }
        }
    }

    /// hookrig is ending normally, its hooks swept: the guardian is not needed.
    pub fn dismiss(self) {
        let _ = kill(self.pid, Signal::SIGKILL);
        let _ = waitpid(self.pid, None);
    }
}

/// The guardian's life: let go of every file hookrig had open (a host reading
/// hookrig's stdout to its end must not wait for the guardian), wait for hookrig's
/// death, sweep, exit.
fn guard(hookrig: Pid) -> ! {
    use nix::sys::signal::{SigSet, SigmaskHow, sigprocmask};

    if let Ok(null) = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        let _ = nix::unistd::dup2_stdin(&null);
        let _ = nix::unistd::dup2_stdout(&null);
        let _ = nix::unistd::dup2_stderr(&null);
    }
    close_other_files();
    // Ctrl-C and a hang-up reach the whole foreground group, the guardian too: it must
    // outlive them to do its job, so they stay pending, unhandled.
    let mut mask = SigSet::empty();
    for signal in [
        Signal::SIGINT,
        Signal::SIGTERM,
        Signal::SIGHUP,
        Signal::SIGQUIT,
        Signal::SIGUSR1,
    ] {
        mask.add(signal);
    }
    let _ = sigprocmask(SigmaskHow::SIG_BLOCK, Some(&mask), None);
    #[cfg(target_os = "linux")]
    let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGUSR1);
    // hookrig may have died before the prctl: then no signal comes.
    if nix::unistd::getppid() == hookrig {
        let mut death = SigSet::empty();
        death.add(Signal::SIGUSR1);
        let _ = death.wait();
    }
    let needle = format!("{TAG_VARIABLE}={hookrig}.").into_bytes();
    for _ in 0..ROUNDS {
        let live: Vec<i32> = scan()
            .into_iter()
            .filter(|(pid, proc)| !proc.zombie && carries_prefix(*pid, &needle))
            .map(|(pid, _)| pid)
            .collect();
        if live.is_empty() {
            break;
        }
        for pid in live {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
        std::thread::sleep(ROUND_PAUSE);
    }
    std::process::exit(0)
}

/// Closes every file descriptor above stderr.
fn close_other_files() {
    use std::os::fd::{FromRawFd as _, OwnedFd};

    let open: Vec<i32> = fs::read_dir("/proc/self/fd")
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
                .filter(|&fd| fd > 2)
                .collect()
        })
        .unwrap_or_default();
    // The descriptor `read_dir` used is in the list and closed already: closing it
    // again through an `OwnedFd` would be an I/O safety violation.
    for fd in open
        .into_iter()
        .filter(|fd| fs::symlink_metadata(format!("/proc/self/fd/{fd}")).is_ok())
    {
        // SAFETY: the guardian owns its copies of the descriptors it inherited, and no
        // other code of this process runs that could use them.
        #[expect(
            unsafe_code,
            reason = "descriptors inherited by the fork have no owner to close them"
        )]
        drop(unsafe { OwnedFd::from_raw_fd(fd) });
    }
}

/// Whether the environment `pid` started with holds a variable starting with `needle`.
fn carries_prefix(pid: i32, needle: &[u8]) -> bool {
    let Ok(environ) = fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    environ
        .split(|&b| b == 0)
        .any(|variable| variable.starts_with(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let proc = parse_stat(b"42 (a) b (c) Z 7 42 42 0 -1").expect("parses");
        assert_eq!((proc.ppid, proc.pgrp, proc.zombie), (7, 42, true));
        let proc = parse_stat(b"43 (sleep) S 1 43 43 0").expect("parses");
        assert!(!proc.zombie);
        assert!(parse_stat(b"garbage").is_none());
    }

    #[test]
    fn tags_are_unique() {
        assert_ne!(new_tag(), new_tag());
    }
}
