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
pub(crate) const ROUNDS: usize = 50;

/// Pause between rounds, for SIGKILL to take effect.
pub(crate) const ROUND_PAUSE: Duration = Duration::from_millis(10);

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
pub(crate) struct Proc {
    ppid: i32,
    pgrp: i32,
    pub(crate) zombie: bool,
}

/// Every process of the machine, by pid; empty without `/proc`.
pub(crate) fn scan() -> HashMap<i32, Proc> {
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

/// Whether a hook that has ended and been reaped may have left a process behind, in its
/// group `pgid` or escaped from it: when not, its [`sweep`] can be skipped, which spares
/// a read of `/proc` after every hook that started nothing that outlived it.
///
/// Every live descendant of the hook is then either in its group (`killpg` with no
/// signal finds it, a zombie too) or in the subtree of a process the kernel handed to
/// this process, the subreaper, when its parent died: a child of this process that is
/// neither the guardian nor another child it started itself. Any child but the guardian
/// counts, so with hooks running side by side the sweep is made as before; and whatever
/// cannot be read answers "maybe".
pub(crate) fn may_have_left(pgid: Option<i32>) -> bool {
    let Some(pgid) = pgid else {
        return true;
    };
    if !adopt_orphans() {
        return true;
    }
    if !matches!(
        nix::sys::signal::killpg(Pid::from_raw(pgid), None),
        Err(Errno::ESRCH)
    ) {
        return true;
    }
    has_children()
}

/// Whether this process has a child other than its guardian (a zombie counts: it may be a
/// hook's, not reaped yet); `true` when that cannot be told.
pub(crate) fn has_children() -> bool {
    children_but_guardian().is_none_or(|children| !children.is_empty())
}

/// The children of this process but its guardian (zombies included); `None` when they
/// cannot be told.
pub(crate) fn children_but_guardian() -> Option<Vec<i32>> {
    let guardian = crate::guardian::pid();
    let mut children = children()?;
    children.retain(|&pid| Some(pid) != guardian);
    Some(children)
}

/// The children of this process, from each of its threads' `children` file; `None` when
/// one cannot be read (a kernel without them).
fn children() -> Option<Vec<i32>> {
    // Most often there is none: one system call says so, where the listing takes one per
    // thread besides the directory's (this is asked after every hook).
    if childless() {
        return Some(Vec::new());
    }
    let mut children = Vec::new();
    for task in fs::read_dir("/proc/self/task").ok()? {
        let dir = task.ok()?.path();
        let list = match fs::read_to_string(dir.join("children")) {
            Ok(list) => list,
            // A thread that ended after the listing has no children left to report.
            Err(_) if !dir.exists() => continue,
            Err(_) => return None,
        };
        for pid in list.split_ascii_whitespace() {
            children.push(pid.parse().ok()?);
        }
    }
    Some(children)
}

/// Whether this process has no child at all, running or a zombie, of any of its threads:
/// `waitid` answers `ECHILD` then, and with `WNOWAIT` it reaps nothing it finds. `false`
/// when there is one or the kernel does not say.
#[cfg(target_os = "linux")]
fn childless() -> bool {
    use nix::sys::wait::{Id, waitid};
    matches!(
        waitid(
            Id::All,
            WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT
        ),
        Err(Errno::ECHILD)
    )
}

/// Elsewhere there are no `children` files to spare: the listing answers.
#[cfg(not(target_os = "linux"))]
fn childless() -> bool {
    false
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Taken by the tests that count this process's children: `cargo test` runs a
    /// crate's unit tests as threads of one process, so the children of one would be
    /// counted by another.
    static CHILDREN: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn counting_children() -> std::sync::MutexGuard<'static, ()> {
        CHILDREN
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let proc = parse_stat(b"42 (a) b (c) Z 7 42 42 0 -1").expect("parses");
        assert_eq!((proc.ppid, proc.pgrp, proc.zombie), (7, 42, true));
        let proc = parse_stat(b"43 (sleep) S 1 43 43 0").expect("parses");
        assert!(!proc.zombie);
        assert!(parse_stat(b"garbage").is_none());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn childless_counts_running_children_and_zombies_and_reaps_none() {
        // guards: the one-call answer that spares the listing of `children` files after
        // a hook must not miss a child, nor reap a zombie the sweep is to find
        let _turn = counting_children();
        assert!(childless(), "no child yet");
        let mut running = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn sleep");
        assert!(!childless(), "a running child");
        running.kill().expect("kill");
        let pid = i32::try_from(running.id()).expect("pid");
        for _ in 0..200 {
            if scan().get(&pid).is_some_and(|p| p.zombie) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!childless(), "a zombie child");
        assert!(
            scan().get(&pid).is_some_and(|p| p.zombie),
            "the zombie is not reaped by the question"
        );
        running.wait().expect("reap");
        assert!(childless(), "no child after the reap");
    }

    #[test]
    fn tags_are_unique() {
        assert_ne!(new_tag(), new_tag());
    }

    #[test]
    fn only_a_hook_that_may_have_left_something_is_swept() {
        // guards: the sweep of /proc after a hook is skipped only when neither its group
        // nor an orphan handed to this process (the subreaper) can hold what it left
        use std::os::unix::process::CommandExt as _;
        let _turn = counting_children();
        assert!(adopt_orphans());
        let run = |line: &str| {
            let mut child = std::process::Command::new("sh")
                .args(["-c", line])
                .process_group(0)
                .spawn()
                .expect("spawn sh");
            let pid = i32::try_from(child.id()).expect("pid");
            child.wait().expect("wait");
            pid
        };
        // No other test of this process has a child meanwhile (`counting_children`).
        let quiet = run("true");
        assert!(!may_have_left(Some(quiet)), "a hook that started nothing");
        assert!(may_have_left(None), "no group known");

        let escaped = run("setsid sleep 30 </dev/null >/dev/null 2>&1 &");
        let orphans = || children().expect("children files").len();
        for _ in 0..200 {
            if orphans() > 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            may_have_left(Some(escaped)),
            "an escaped process was handed over"
        );
        for pid in children().expect("children files") {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            let _ = waitpid(Pid::from_raw(pid), None);
        }
    }
}
