//! The async pool: where `mode = "async"` hooks run without being awaited.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hookrig_core::{AsyncCompletion, AsyncSink, BoxFuture};
use tokio::sync::Notify;

/// An async hook's run, not started yet.
type Job = BoxFuture<AsyncCompletion>;

/// Runs async hooks on the current tokio runtime, at most `cap` at a time.
///
/// Hooks past the cap are refused (the dispatcher records them as dropped, with a
/// warning): an agent that fires events faster than its observers finish must not pile
/// up processes without bound.
#[derive(Debug, Clone)]
pub struct AsyncPool {
    inner: Arc<PoolInner>,
}

struct PoolInner {
    cap: usize,
    in_flight: AtomicUsize,
    done: Mutex<Vec<AsyncCompletion>>,
    changed: Notify,
    /// `Some` for a pool that holds the jobs it accepts instead of starting them
    /// ([`AsyncPool::holding`]): they count as in flight until released or discarded.
    held: Mutex<Option<Vec<Job>>>,
}

impl std::fmt::Debug for PoolInner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoolInner")
            .field("cap", &self.cap)
            .field("in_flight", &self.in_flight)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// What [`AsyncPool::drain`] collected.
#[derive(Debug, Default)]
pub struct Drained {
    /// Async hooks that finished since the last drain.
    pub completions: Vec<AsyncCompletion>,
    /// Async hooks still running when the time ran out.
    pub still_running: usize,
}

impl AsyncPool {
    /// The number of async hooks allowed in flight at once.
    pub const DEFAULT_CAP: usize = 32;
    /// How long shutdown waits for async hooks.
    pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

    /// A pool that allows `cap` hooks in flight.
    pub fn new(cap: usize) -> Self {
        Self::with_held(cap, None)
    }

    /// A pool that accepts up to `cap` hooks, as [`AsyncPool::new`] does, and starts
    /// none of them until [`AsyncPool::release`]: a process that may hand its async hooks
    /// to another process (the async keeper) decides where they run only once the host
    /// has its answer. [`AsyncPool::discard`] drops them unstarted.
    pub fn holding(cap: usize) -> Self {
        Self::with_held(cap, Some(Vec::new()))
    }

    fn with_held(cap: usize, held: Option<Vec<Job>>) -> Self {
        Self {
            inner: Arc::new(PoolInner {
                cap,
                in_flight: AtomicUsize::new(0),
                done: Mutex::new(Vec::new()),
                changed: Notify::new(),
                held: Mutex::new(held),
            }),
        }
    }

    /// Async hooks accepted and held, not started.
    ///
    /// # Panics
    ///
    /// Never in practice: the lock is only held to push or take jobs.
    pub fn held(&self) -> usize {
        self.inner
            .held
            .lock()
            .expect("never poisoned")
            .as_ref()
            .map_or(0, Vec::len)
    }

    /// Starts the held hooks on the current tokio runtime, and every hook accepted from
    /// now on at once. Must be called within a runtime.
    ///
    /// # Panics
    ///
    /// Never in practice: the lock is only held to push or take jobs.
    pub fn release(&self) {
        let held = self.inner.held.lock().expect("never poisoned").take();
        for job in held.unwrap_or_default() {
            spawn(&self.inner, job);
        }
    }

    /// Drops the held hooks without starting them (another process runs them), and
    /// returns how many there were. Hooks accepted from now on are held too.
    ///
    /// # Panics
    ///
    /// Never in practice: the lock is only held to push or take jobs.
    pub fn discard(&self) -> usize {
        let dropped = self
            .inner
            .held
            .lock()
            .expect("never poisoned")
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        let count = dropped.len();
        drop(dropped);
        self.inner.in_flight.fetch_sub(count, Ordering::AcqRel);
        count
    }

    /// Async hooks running now.
    pub fn in_flight(&self) -> usize {
        self.inner.in_flight.load(Ordering::Acquire)
    }

    /// Waits until every async hook has finished or `limit` has passed, and returns what
    /// finished.
    ///
    /// # Panics
    ///
    /// Never in practice: the lock is only held to push or take completions.
    pub async fn drain(&self, limit: Duration) -> Drained {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            // Register interest before checking, so a completion between the check and
            // the wait is not missed.
            let changed = self.inner.changed.notified();
            if self.in_flight() == 0 {
                break;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                break;
            }
        }
        self.take_done()
    }

    /// Waits until at least one async hook has finished since the last call (or every
    /// one has, or `limit` has passed), and returns what finished: a process that
    /// records each hook as it ends calls this in a loop.
    ///
    /// # Panics
    ///
    /// Never in practice: the lock is only held to push or take completions.
    pub async fn next_done(&self, limit: Duration) -> Drained {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let changed = self.inner.changed.notified();
            if self.in_flight() == 0 || !self.inner.done.lock().expect("never poisoned").is_empty()
            {
                break;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                break;
            }
        }
        self.take_done()
    }

    fn take_done(&self) -> Drained {
        let completions = std::mem::take(&mut *self.inner.done.lock().expect("never poisoned"));
        Drained {
            completions,
            still_running: self.in_flight(),
        }
    }
}

/// Runs `job` on the current runtime; its completion is kept for the next drain. Its
/// place in flight was reserved when it was accepted.
fn spawn(inner: &Arc<PoolInner>, job: Job) {
    let inner = Arc::clone(inner);
    tokio::spawn(async move {
        let completion = job.await;
        inner.done.lock().expect("never poisoned").push(completion);
        inner.in_flight.fetch_sub(1, Ordering::AcqRel);
        inner.changed.notify_waiters();
    });
}

impl Default for AsyncPool {
    fn default() -> Self {
        Self::new(Self::DEFAULT_CAP)
    }
}

impl AsyncSink for AsyncPool {
    fn submit(&self, job: BoxFuture<AsyncCompletion>) -> bool {
        let inner = &self.inner;
        let reserved = inner
            .in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < inner.cap).then_some(n + 1)
            });
        if reserved.is_err() {
            return false;
        }
        if let Some(held) = inner.held.lock().expect("never poisoned").as_mut() {
            held.push(job);
            return true;
        }
        spawn(inner, job);
        true
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::atomic::AtomicBool;

    use hookrig_core::{Dialect, HookRecord, HookResult};

    use super::*;

    fn record(name: &str) -> HookRecord {
        HookRecord {
            name: name.to_owned(),
            source: PathBuf::from("hooks.toml"),
            dialect: Dialect::Native,
            result: HookResult::Allow,
            skip: None,
            exit_code: Some(0),
            duration: None,
            reason: None,
            stdout: None,
            stderr: None,
            truncated: false,
            is_async: true,
            answer: None,
            shadow: false,
        }
    }

    /// A job that says it ran through `ran`, then completes as `name`.
    fn job(name: &'static str, ran: &Arc<AtomicBool>) -> Job {
        let ran = Arc::clone(ran);
        Box::pin(async move {
            ran.store(true, Ordering::Release);
            AsyncCompletion {
                record: record(name),
                warnings: Vec::new(),
            }
        })
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
    }

    #[test]
    fn a_holding_pool_starts_nothing_until_released() {
        let runtime = runtime();
        let pool = AsyncPool::holding(2);
        let ran = Arc::new(AtomicBool::new(false));
        assert!(pool.submit(job("a", &ran)));
        assert!(pool.submit(job("b", &ran)));
        // The cap counts held jobs: a third is refused, as it would be if they ran.
        assert!(!pool.submit(job("c", &ran)));
        assert_eq!((pool.held(), pool.in_flight()), (2, 2));

        runtime.block_on(tokio::task::yield_now());
        assert!(!ran.load(Ordering::Acquire), "a held job ran");

        let drained = runtime.block_on(async {
            pool.release();
            pool.drain(Duration::from_mins(1)).await
        });
        assert!(ran.load(Ordering::Acquire));
        let mut names: Vec<String> = drained
            .completions
            .into_iter()
            .map(|c| c.record.name)
            .collect();
        names.sort();
        assert_eq!(names, ["a", "b"]);
        assert_eq!((pool.held(), pool.in_flight()), (0, 0));
    }

    #[test]
    fn discarded_jobs_never_run_and_free_their_places() {
        let runtime = runtime();
        let pool = AsyncPool::holding(1);
        let ran = Arc::new(AtomicBool::new(false));
        assert!(pool.submit(job("a", &ran)));

        assert_eq!(pool.discard(), 1);

        assert_eq!((pool.held(), pool.in_flight()), (0, 0));
        let drained = runtime.block_on(pool.drain(Duration::from_mins(1)));
        assert!(drained.completions.is_empty());
        assert!(!ran.load(Ordering::Acquire), "a discarded job ran");
        // Its place is free again, and the pool still holds what it accepts.
        assert!(pool.submit(job("b", &ran)));
        assert_eq!(pool.held(), 1);
    }

    #[test]
    fn next_done_returns_each_job_as_it_ends() {
        let runtime = runtime();
        let pool = AsyncPool::default();
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let (fast, slow) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
        );
        runtime.block_on(async {
            assert!(pool.submit(job("fast", &fast)));
            let slow_job = job("slow", &slow);
            assert!(pool.submit(Box::pin(async move {
                let _ = released.await;
                slow_job.await
            })));

            let first = pool.next_done(Duration::from_mins(1)).await;
            let names: Vec<&str> = first
                .completions
                .iter()
                .map(|c| c.record.name.as_str())
                .collect();
            assert_eq!(names, ["fast"]);
            assert_eq!(first.still_running, 1);

            let _ = release.send(());
            let second = pool.next_done(Duration::from_mins(1)).await;
            let names: Vec<&str> = second
                .completions
                .iter()
                .map(|c| c.record.name.as_str())
                .collect();
            assert_eq!(names, ["slow"]);
            assert_eq!(second.still_running, 0);
        });
    }
}
