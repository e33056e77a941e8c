//! Latency of the watcher and cost of the ingress, printed as median and p95.
//!
//! `cargo bench -p hookrig-automation --bench watch_latency` (release build). Measures:
//!
//! - a file write until its `file.changed` arrives on the channel, with the file settle
//!   window at 0 and at its default (50 ms);
//! - a file write in a watched folder until `folder.changed` arrives, debounce 0;
//! - `deliver_event` (what `hookrig emit` adds) when no serve runs: no socket file, and a
//!   stale socket file; and when a serve listens.
//!
//! Not a divan bench: divan reports no percentiles, and each sample here is one awaited
//! round trip through the kernel.

use std::path::Path;
use std::time::{Duration, Instant};

use hookrig_automation::watch::{WatchKind, WatchOptions, WatchRule, Watcher};
use hookrig_runtime::ingress::{self, Ingress};
use serde_json::json;
use tokio::sync::mpsc;

const SAMPLES: usize = 200;

fn summary(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let pick = |percent: usize| {
        // Nearest-rank percentile.
        let rank = (percent * samples.len()).div_ceil(100);
        samples[rank.clamp(1, samples.len()) - 1]
    };
    println!(
        "{name:<48} n={:<6} median {:>10.3} ms   p95 {:>10.3} ms   max {:>10.3} ms",
        samples.len(),
        pick(50).as_secs_f64() * 1e3,
        pick(95).as_secs_f64() * 1e3,
        samples[samples.len() - 1].as_secs_f64() * 1e3,
    );
}

async fn watch_latency(kind: WatchKind, options: WatchOptions) -> Vec<Duration> {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    let file = root.join("watched.txt");
    std::fs::write(&file, "start").expect("write");
    let (tx, mut rx) = mpsc::channel(16);
    let watcher = Watcher::new(tx, options).expect("watcher");
    let paths = match kind {
        WatchKind::File => vec![file.clone()],
        WatchKind::Folder => vec![root.clone()],
    };
    let errors = watcher.set_rules(vec![WatchRule {
        watch_id: "bench".to_owned(),
        kind,
        paths,
        base_dir: root.clone(),
        project_id: "bench".to_owned(),
        recursive: false,
        extensions: Vec::new(),
    }]);
    assert!(errors.is_empty(), "{errors:?}");
    let mut samples = Vec::with_capacity(SAMPLES);
    for i in 0..SAMPLES {
        let started = Instant::now();
        std::fs::write(&file, format!("sample {i}")).expect("write");
        tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .expect("event within 5 s")
            .expect("channel open");
        samples.push(started.elapsed());
        // Let the burst settle so every sample starts from a quiet watcher.
        tokio::time::sleep(Duration::from_millis(20)).await;
        while rx.try_recv().is_ok() {}
    }
    samples
}

async fn deliver_latency(path: &Path, count: usize) -> Vec<Duration> {
    let payload = json!({"tool": {"name": "bash"}, "project_id": "bench"});
    let mut samples = Vec::with_capacity(count);
    for _ in 0..count {
        let started = Instant::now();
        let _ = ingress::deliver_event(path, "tool.before", &payload).await;
        samples.push(started.elapsed());
    }
    samples
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let zero = WatchOptions {
            debounce: Duration::ZERO,
            file_debounce: Duration::ZERO,
        };
        summary(
            "file.changed, settle 0",
            watch_latency(WatchKind::File, zero).await,
        );
        summary(
            "file.changed, settle 50 ms (default)",
            watch_latency(WatchKind::File, WatchOptions::default()).await,
        );
        summary(
            "folder.changed, debounce 0",
            watch_latency(WatchKind::Folder, zero).await,
        );

        let tmp = tempfile::tempdir().expect("tempdir");
        let missing = tmp.path().join("missing").join("serve.sock");
        summary(
            "deliver_event, no socket file",
            deliver_latency(&missing, 10_000).await,
        );
        let stale = tmp.path().join("stale.sock");
        drop(std::os::unix::net::UnixListener::bind(&stale).expect("bind"));
        summary(
            "deliver_event, stale socket file",
            deliver_latency(&stale, 10_000).await,
        );
        let live = tmp.path().join("live").join("serve.sock");
        let (_ingress, mut requests) = Ingress::bind(&live).await.expect("bind");
        tokio::spawn(async move { while requests.recv().await.is_some() {} });
        summary(
            "deliver_event, serve listening",
            deliver_latency(&live, 2_000).await,
        );
    });
}
