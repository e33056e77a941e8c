use std::sync::mpsc;
use std::thread;

use hookrig_core::Dialect;
use hookrig_store::{EmitDecision, EmitFilter, EmitRecord, Store};

use super::*;

fn record(run_id: &str) -> EmitRecord {
    EmitRecord {
        cwd: "/repo".to_owned(),
        by_engine: true,
        ..EmitRecord::running(run_id, 1, "PreToolUse", Dialect::Native)
    }
}

fn finished(run_id: &str) -> EmitRecord {
    EmitRecord {
        decision: EmitDecision::Allow,
        payload_out: "{}".to_owned(),
        ..record(run_id)
    }
}

/// Every emit in the store at `path`, read on a connection of its own.
fn rows(path: &Path) -> Vec<hookrig_store::EmitSummary> {
    Store::open_read_only(path)
        .expect("open for reading")
        .emits()
        .recent(&EmitFilter {
            limit: usize::MAX,
            ..EmitFilter::default()
        })
        .expect("list")
}

/// Whether the emit `run_id` is committed as finished, read on a connection of its own
/// (a row not yet committed is invisible to it).
fn committed(path: &Path, run_id: &str) -> bool {
    Store::open_read_only(path)
        .expect("open for reading")
        .emits()
        .detail(run_id)
        .expect("read")
        .is_some_and(|detail| detail.emit.decision == EmitDecision::Allow)
}

/// Removes the files named `path` followed by each of `suffixes`.
fn remove_beside(path: &Path, suffixes: &[&str]) {
    for suffix in suffixes {
        let mut file = path.to_owned().into_os_string();
        file.push(suffix);
        let _ = std::fs::remove_file(file);
    }
}

/// A writer whose thread waits for the returned gate before taking any job.
fn gated(path: &Path) -> (Writer, mpsc::Sender<()>) {
    let (open, gate) = mpsc::channel();
    let store = Store::open(path).expect("open the store");
    (
        Writer::start(
            LedgerAt::Sqlite(path.to_owned()),
            Box::new(store),
            Some(gate),
        ),
        open,
    )
}

/// Waits until `count` jobs are queued: the threads submitting them run at their own
/// pace, and the test must not open the gate before they all have.
fn wait_for_queued(writer: &Writer, count: u64) {
    while writer.shared.waiting.load(Ordering::Relaxed) < count {
        thread::yield_now();
    }
}

// guards: the engine's emits record in batches: records queued concurrently by many
// emits are all committed, in fewer transactions than records, the start of each
// before its end, and each end acknowledged only once it is committed
#[test]
fn concurrent_records_are_batched_and_each_acknowledged_after_its_commit() {
    const EMITS: usize = 32;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("ledger.db");
    let (writer, gate) = gated(&path);
    let emits: Vec<_> = (0..EMITS)
        .map(|n| {
            let writer = writer.clone();
            let path = path.clone();
            thread::spawn(move || {
                let run_id = format!("emit-{n}");
                writer
                    .queue(EmitWrite::Begin(record(&run_id)))
                    .expect("the start is queued");
                writer
                    .write(EmitWrite::Finish(finished(&run_id)))
                    .expect("the end is recorded");
                // Acknowledged: another connection must see it committed now.
                assert!(
                    committed(&path, &run_id),
                    "{run_id} acknowledged before its commit"
                );
            })
        })
        .collect();
    wait_for_queued(&writer, 2 * EMITS as u64);
    gate.send(()).expect("open the gate");
    for emit in emits {
        emit.join().expect("an emit's thread");
    }
    let batches = writer.shared.batches.load(Ordering::Relaxed);
    assert_eq!(batches, 1, "every record waiting went into one transaction");
    assert_eq!(writer.shared.waiting.load(Ordering::Relaxed), 0);
    let rows = rows(&path);
    assert_eq!(rows.len(), EMITS);
    assert!(rows.iter().all(|row| row.decision == EmitDecision::Allow));
    writer.stop();
}

// guards: one write that fails is reported to its own job only; the others of its
// batch are committed
#[test]
fn a_write_that_fails_is_reported_to_its_job_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("ledger.db");
    let (writer, gate) = gated(&path);
    Store::open(&path)
        .expect("open")
        .emits()
        .record(&finished("taken"))
        .expect("record");
    let jobs: Vec<_> = ["first", "taken", "last"]
        .into_iter()
        .map(|run_id| {
            let writer = writer.clone();
            thread::spawn(move || writer.write(EmitWrite::Record(finished(run_id))))
        })
        .collect();
    wait_for_queued(&writer, 3);
    gate.send(()).expect("open the gate");
    let results: Vec<bool> = jobs
        .into_iter()
        .map(|job| job.join().expect("a job's thread").is_ok())
        .collect();
    assert_eq!(results, [true, false, true]);
    assert!(committed(&path, "first") && committed(&path, "last"));
    writer.stop();
}

// guards: a store that cannot be written (its file replaced by one that is not a
// database) fails every job of the batch, and none waits forever
#[test]
fn a_store_that_cannot_be_written_fails_every_job_and_none_hangs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("ledger.db");
    let (writer, gate) = gated(&path);
    let garbage = dir.path().join("garbage");
    std::fs::write(&garbage, vec![0x5a; 8192]).expect("write garbage");
    std::fs::rename(&garbage, &path).expect("replace the store");
    // Its write-ahead log would still hold the old file's first page, header and all.
    remove_beside(&path, &["-wal", "-shm"]);
    let jobs: Vec<_> = (0..8)
        .map(|n| {
            let writer = writer.clone();
            thread::spawn(move || writer.write(EmitWrite::Record(finished(&format!("e{n}")))))
        })
        .collect();
    wait_for_queued(&writer, 8);
    gate.send(()).expect("open the gate");
    for job in jobs {
        let result = job.join().expect("a job's thread");
        assert!(
            matches!(result, Err(WriteError::Failed(_))),
            "each job hears of the failure: {result:?}"
        );
    }
    assert_eq!(writer.shared.batches.load(Ordering::Relaxed), 0);
    assert_eq!(writer.shared.waiting.load(Ordering::Relaxed), 0);
    writer.stop();
}

// guards: an engine that stops commits every record queued first, and a record asked
// for afterwards is refused at once (its emit writes it itself) instead of waiting
#[test]
fn stopping_commits_everything_queued_then_refuses() {
    const QUEUED: usize = 600;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("ledger.db");
    let writers = Writers::new();
    let writer = writers.for_path(&path).expect("a writer");
    for n in 0..QUEUED {
        writer
            .queue(EmitWrite::Record(finished(&format!("e{n}"))))
            .expect("queued");
    }
    writers.stop();
    assert_eq!(rows(&path).len(), QUEUED);
    assert_eq!(writers.waiting(), 0);
    assert!(writers.batches() >= QUEUED.div_ceil(MAX_BATCH) as u64);
    assert!(matches!(
        writer.write(EmitWrite::Record(finished("late"))),
        Err(WriteError::Stopped)
    ));
    let after = writers.for_path(&path).expect("a stopped writer");
    assert!(matches!(
        after.write(EmitWrite::Record(finished("later"))),
        Err(WriteError::Stopped)
    ));
}

// guards: a store file removed while the engine runs is created again, instead of the
// records going to the removed file
#[test]
fn a_store_removed_while_the_writer_runs_is_created_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("ledger.db");
    let writers = Writers::new();
    let writer = writers.for_path(&path).expect("a writer");
    writer
        .write(EmitWrite::Record(finished("before")))
        .expect("recorded");
    remove_beside(&path, &["", "-wal", "-shm"]);
    writer
        .write(EmitWrite::Record(finished("after")))
        .expect("recorded");
    assert!(committed(&path, "after"));
    writers.stop();
}
