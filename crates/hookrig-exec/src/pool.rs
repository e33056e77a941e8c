//! The async pool: where `mode = "async"` hooks run without being awaited.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hookrig_core::{AsyncCompletion, AsyncSink, BoxFuture};
use tokio::sync::Notify;

/// Runs async hooks on the current tokio runtime, at most `cap` at a time.
///
/// Hooks past the cap are refused (the dispatcher records them as dropped, with a
/// warning): an agent that fires events faster than its observers finish must not pile
/// up processes without bound.
#[derive(Debug, Clone)]
pub struct AsyncPool {
    inner: Arc<PoolInner>,
}

#[derive(Debug)]
struct PoolInner {
    cap: usize,
    in_flight: AtomicUsize,
    done: Mutex<Vec<AsyncCompletion>>,
    changed: Notify,
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
        Self {
            inner: Arc::new(PoolInner {
                cap,
                in_flight: AtomicUsize::new(0),
                done: Mutex::new(Vec::new()),
                changed: Notify::new(),
            }),
        }
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
        let completions = std::mem::take(&mut *self.inner.done.lock().expect("never poisoned"));
        Drained {
            completions,
            still_running: self.in_flight(),
        }
    }
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
        let inner = Arc::clone(inner);
        tokio::spawn(async move {
            let completion = job.await;
            inner.done.lock().expect("never poisoned").push(completion);
            inner.in_flight.fetch_sub(1, Ordering::AcqRel);
            inner.changed.notify_waiters();
        });
        true
    }
}
