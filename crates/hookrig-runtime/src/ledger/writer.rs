//! The resident engine's ledger writers: one thread per ledger (a store file, or the
//! PostgreSQL database the engine shares with other nodes) owns the connection and
//! writes every record waiting in one transaction.
//!
//! A one-shot `hookrig emit` writes its own rows (two short transactions). An engine
//! answers many emits at once, each on a thread of its own; if each of them wrote its
//! own rows, they would queue for SQLite's one write lock, each paying a commit. Here
//! they queue in a channel instead: the writer takes every job waiting (up to
//! [`MAX_BATCH`]), applies them in order in one transaction, commits, and only then
//! acknowledges each job. A job that is acknowledged is therefore committed, and an
//! engine killed at any moment loses no record it acknowledged. On PostgreSQL a batch is
//! one statement (`hookrig_ledger_apply`), so an emit waits for at most one round trip
//! to the database, shared with every emit of its batch.
//!
//! Nothing here may keep a host from its answer: a write that fails is reported to its
//! job (a commit that fails, to every job of the batch), and a writer that has stopped
//! says so at once, so that the caller writes the record itself.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use hookrig_store::{EmitWrite, Ledger, LedgerAt, StoreError};

/// The most jobs one transaction takes: enough that a burst of emits is one commit,
/// few enough that the first job of a batch is not kept waiting long by the last.
pub(crate) const MAX_BATCH: usize = 256;

/// The ledger writers of an engine, one per ledger, started on first use.
///
/// Clones share the writers: the engine keeps one and hands a clone to each emit.
#[derive(Debug, Clone, Default)]
pub struct Writers {
    shared: Arc<WritersShared>,
    /// The PostgreSQL ledger every emit records into, whatever store file its scope
    /// names ([`Writers::sharing`]); `None` records into the scope's file.
    database: Option<String>,
}

#[derive(Debug, Default)]
struct WritersShared {
    by_ledger: Mutex<HashMap<LedgerAt, Writer>>,
    /// Set by [`Writers::stop`]: no writer starts after it, and emits still under way
    /// write their own records.
    stopped: AtomicBool,
    /// Batches committed by writers that were stopped, so that the count
    /// [`Writers::batches`] reports never goes down.
    batches_of_stopped: AtomicU64,
}

// A scope that carries writers is the same scope as another only with the same writers
// (a `Scope` compares equal field by field).
impl PartialEq for Writers {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared) && self.database == other.database
    }
}

impl Eq for Writers {}

impl Writers {
    /// No writer yet.
    pub fn new() -> Writers {
        Writers::default()
    }

    /// The same writers, recording every emit into the PostgreSQL ledger at `url`
    /// instead of the store file of its scope (docs/postgres.md, "The ledger").
    #[must_use]
    pub fn sharing(&self, url: &str) -> Writers {
        Writers {
            shared: Arc::clone(&self.shared),
            database: Some(url.to_owned()),
        }
    }

    /// The PostgreSQL ledger these writers record into, if any.
    pub fn database(&self) -> Option<&str> {
        self.database.as_deref()
    }

    /// The writer of the ledger an emit whose store file is `path` records into (the
    /// database these writers share, else that file), started now (the ledger opened on
    /// this thread, so that one that cannot be opened is said in the emit's Outcome, as
    /// an in-process emit says it) when none runs for it.
    pub(crate) fn for_path(&self, path: &Path) -> Result<Writer, StoreError> {
        let at = match &self.database {
            Some(url) => LedgerAt::Postgres(url.clone()),
            None => LedgerAt::Sqlite(path.to_owned()),
        };
        let mut by_ledger = self
            .shared
            .by_ledger
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(writer) = by_ledger.get(&at) {
            return Ok(writer.clone());
        }
        if self.shared.stopped.load(Ordering::Acquire) {
            return Ok(Writer::stopped(at));
        }
        let ledger = at.open()?;
        if let LedgerAt::Postgres(_) = at {
            // No `hookrig runs` marks the shared ledger's abandoned emits (it reads the
            // SQLite file): an engine that starts recording there marks those of this
            // machine's processes that died, an engine killed before it, say.
            if let Err(err) = ledger.interrupt_abandoned() {
                tracing::debug!("{}", super::warning(&err));
            }
        }
        let writer = Writer::start(at.clone(), ledger, None);
        by_ledger.insert(at, writer.clone());
        Ok(writer)
    }

    /// Records queued and not yet committed, in all files.
    pub fn waiting(&self) -> u64 {
        self.each(|writer| writer.shared.waiting.load(Ordering::Relaxed))
    }

    /// Batches committed so far, in all files.
    pub fn batches(&self) -> u64 {
        self.shared.batches_of_stopped.load(Ordering::Relaxed)
            + self.each(|writer| writer.shared.batches.load(Ordering::Relaxed))
    }

    fn each(&self, count: impl Fn(&Writer) -> u64) -> u64 {
        self.shared
            .by_ledger
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .map(count)
            .sum()
    }

    /// Stops every writer once it has committed every job queued so far, and waits for
    /// them. Blocking. Writes asked for afterwards are refused at once, so that their
    /// emits write their own records.
    pub fn stop(&self) {
        self.shared.stopped.store(true, Ordering::Release);
        let writers: Vec<Writer> = self
            .shared
            .by_ledger
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain()
            .map(|(_, writer)| writer)
            .collect();
        for writer in writers {
            writer.stop();
            self.shared.batches_of_stopped.fetch_add(
                writer.shared.batches.load(Ordering::Relaxed),
                Ordering::Relaxed,
            );
        }
    }
}

/// The writer of one ledger: a queue to its thread.
#[derive(Debug, Clone)]
pub(crate) struct Writer {
    queue: Sender<Message>,
    shared: Arc<WriterShared>,
}

#[derive(Debug)]
struct WriterShared {
    at: LedgerAt,
    /// Jobs queued and not yet committed (or failed).
    waiting: AtomicU64,
    /// Transactions committed.
    batches: AtomicU64,
    /// Set when the writer stops taking jobs.
    closed: AtomicBool,
    thread: Mutex<Option<JoinHandle<()>>>,
}

#[derive(Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "every message but the last is a job: boxing it would only add an allocation"
)]
enum Message {
    Job(Job),
    /// Commit what is queued, then end.
    Stop,
}

/// One write and, when its caller waits for it, where to say how it went.
#[derive(Debug)]
struct Job {
    write: EmitWrite,
    ack: Option<Sender<Result<(), Arc<StoreError>>>>,
}

/// Why a write was not acknowledged as recorded.
#[derive(Debug, Clone)]
pub(crate) enum WriteError {
    /// The writer stopped (the engine is stopping) before it took the write: nothing was
    /// written, and the caller writes it itself.
    Stopped,
    /// The write, or the commit of its batch, failed.
    Failed(Arc<StoreError>),
}

impl From<StoreError> for WriteError {
    fn from(err: StoreError) -> Self {
        WriteError::Failed(Arc::new(err))
    }
}

impl Writer {
    /// The ledger it writes.
    pub(crate) fn at(&self) -> &LedgerAt {
        &self.shared.at
    }

    /// A writer owning `ledger`, opened at `at`, its thread started. With a `gate`, the
    /// thread waits for it before taking its first job (tests queue jobs first, to see
    /// them batched).
    fn start(at: LedgerAt, ledger: Box<dyn Ledger + Send>, gate: Option<Receiver<()>>) -> Writer {
        let (queue, jobs) = mpsc::channel();
        // The file's identity is taken now, with the connection just opened.
        let open = Open::new(&at, ledger);
        let shared = Arc::new(WriterShared {
            at,
            waiting: AtomicU64::new(0),
            batches: AtomicU64::new(0),
            closed: AtomicBool::new(false),
            thread: Mutex::new(None),
        });
        let thread_shared = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("hookrig-ledger".to_owned())
            .spawn(move || {
                if let Some(gate) = gate {
                    let _ = gate.recv();
                }
                run(open, &jobs, &thread_shared);
            });
        match thread {
            Ok(thread) => {
                *shared.thread.lock().unwrap_or_else(PoisonError::into_inner) = Some(thread);
            }
            Err(err) => {
                // No thread, no writer: every emit writes its own records, as a
                // one-shot emit does.
                tracing::debug!("ledger: no writer thread for {}: {err}", shared.at);
                shared.closed.store(true, Ordering::Release);
            }
        }
        Writer { queue, shared }
    }

    /// A writer that takes nothing: its writes are [`WriteError::Stopped`].
    fn stopped(at: LedgerAt) -> Writer {
        let (queue, _) = mpsc::channel();
        Writer {
            queue,
            shared: Arc::new(WriterShared {
                at,
                waiting: AtomicU64::new(0),
                batches: AtomicU64::new(0),
                closed: AtomicBool::new(true),
                thread: Mutex::new(None),
            }),
        }
    }

    /// Queues `write` without waiting for it: its order in the queue places it before
    /// every write queued after it. A failure is only logged.
    pub(crate) fn queue(&self, write: EmitWrite) -> Result<(), WriteError> {
        self.send(write, None)
    }

    /// Queues `write` and waits until its batch is committed.
    pub(crate) fn write(&self, write: EmitWrite) -> Result<(), WriteError> {
        let (ack, acknowledged) = mpsc::channel();
        self.send(write, Some(ack))?;
        match acknowledged.recv() {
            Ok(Ok(())) => Ok(()),
            Ok(Err(err)) => Err(WriteError::Failed(err)),
            // A job dropped unacknowledged was never applied: the thread ended first.
            Err(_) => Err(WriteError::Stopped),
        }
    }

    fn send(
        &self,
        write: EmitWrite,
        ack: Option<Sender<Result<(), Arc<StoreError>>>>,
    ) -> Result<(), WriteError> {
        if self.shared.closed.load(Ordering::Acquire) {
            return Err(WriteError::Stopped);
        }
        self.shared.waiting.fetch_add(1, Ordering::Relaxed);
        if self.queue.send(Message::Job(Job { write, ack })).is_err() {
            self.shared.waiting.fetch_sub(1, Ordering::Relaxed);
            return Err(WriteError::Stopped);
        }
        Ok(())
    }

    /// Stops the thread once it has committed what is queued, and waits for it.
    fn stop(&self) {
        self.shared.closed.store(true, Ordering::Release);
        let _ = self.queue.send(Message::Stop);
        let thread = self
            .shared
            .thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(thread) = thread
            && thread.join().is_err()
        {
            tracing::debug!("ledger: the writer of {} panicked", self.shared.at);
        }
    }
}

/// The writer's thread: takes every job waiting, commits them in one transaction,
/// acknowledges each; until asked to stop (then what is queued is committed first) or
/// until no emit can queue anything more.
fn run(open: Open, jobs: &Receiver<Message>, shared: &WriterShared) {
    let mut open = Some(open);
    let mut stopping = false;
    loop {
        let mut batch = Vec::new();
        if !stopping {
            match jobs.recv() {
                Ok(Message::Job(job)) => batch.push(job),
                Ok(Message::Stop) => stopping = true,
                Err(_) => return,
            }
        }
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(Message::Job(job)) => batch.push(job),
                Ok(Message::Stop) => stopping = true,
                Err(_) => break,
            }
        }
        if batch.is_empty() {
            if stopping {
                return;
            }
            continue;
        }
        commit(&mut open, batch, shared);
    }
}

/// Applies `batch` in one transaction and acknowledges each job with its own result, or
/// with the error of the transaction when it failed as a whole.
fn commit(open: &mut Option<Open>, batch: Vec<Job>, shared: &WriterShared) {
    let writes: Vec<&EmitWrite> = batch.iter().map(|job| &job.write).collect();
    let outcome = Open::current(open, &shared.at).and_then(|ledger| ledger.apply(&writes));
    drop(writes);
    // Counted before any job hears of it: a status read by a client that has its answer
    // does not count that answer's record as waiting.
    if outcome.is_ok() {
        shared.batches.fetch_add(1, Ordering::Relaxed);
    }
    shared
        .waiting
        .fetch_sub(batch.len() as u64, Ordering::Relaxed);
    match outcome {
        Ok(results) => {
            for (job, result) in batch.into_iter().zip(results) {
                job.acknowledge(result.map_err(Arc::new));
            }
        }
        Err(err) => {
            // The connection may be what failed (the disk full, the file damaged, the
            // database gone): the next batch opens the ledger again.
            *open = None;
            let err = Arc::new(err);
            for job in batch {
                job.acknowledge(Err(Arc::clone(&err)));
            }
        }
    }
}

/// The writer's connection, with the identity (device, inode) of the file it opened
/// when the ledger is a SQLite file.
struct Open {
    ledger: Box<dyn Ledger + Send>,
    file: Option<(u64, u64)>,
}

impl Open {
    fn new(at: &LedgerAt, ledger: Box<dyn Ledger + Send>) -> Open {
        let file = match at {
            LedgerAt::Sqlite(path) => file_id(path),
            LedgerAt::Postgres(_) => None,
        };
        Open { ledger, file }
    }

    /// The ledger to write into: the one open, unless its file at `path` is no longer
    /// the one it has open (removed or replaced: its records would go to a file nobody
    /// reads) or the last batch failed; then the ledger is opened again. A database has
    /// no file: its connection is opened again by the store when the server closed it.
    fn current<'o>(
        open: &'o mut Option<Open>,
        at: &LedgerAt,
    ) -> Result<&'o dyn Ledger, StoreError> {
        if let LedgerAt::Sqlite(path) = at
            && open
                .as_ref()
                .is_some_and(|open| open.file.is_none() || open.file != file_id(path))
        {
            *open = None;
        }
        let open = match open {
            Some(open) => open,
            None => open.insert(Open::new(at, at.open()?)),
        };
        Ok(&*open.ledger)
    }
}

/// The device and inode of the file at `path`, if there is one.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

impl Job {
    fn acknowledge(self, result: Result<(), Arc<StoreError>>) {
        match self.ack {
            // The caller may have gone (a thread that failed): nobody to tell.
            Some(ack) => {
                let _ = ack.send(result);
            }
            None => {
                if let Err(err) = result {
                    tracing::debug!("{} (emit {})", super::warning(&err), self.write.run_id());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
