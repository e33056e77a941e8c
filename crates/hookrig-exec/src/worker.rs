//! Persistent workers: a hook whose process is started once and kept, answering one
//! event per JSON line instead of one process per event.
//!
//! Each event goes to a free worker of the hook's pool as one line on its stdin,
//! `{"id": N, "event": NAME, "payload": {...}}`, and the worker answers one line on its
//! stdout, `{"id": N, ...the native reply...}` (`{"id": N, "error": "..."}` for a
//! failure it reports itself). One event is in flight per worker at a time.
//!
//! While it answers, a worker may ask hookrig questions (a JavaScript plugin reading
//! `ctx.memory`): a line `{"id": N, "ask": K, "question": {...}}` before its reply is
//! answered on its stdin with `{"id": N, "answer": K, "result": ...}` (or `"error"`) by
//! the event's [`Services`]; a hook without services gets an error for each question.
//!
//! A worker that does not answer within the hook's timeout is killed (its whole process
//! group) and the event gets the hook's failure policy; one that exits, answers with
//! something else than its reply line, or floods its stdout is killed too. A killed or
//! crashed worker is started again for the next event, after a backoff that doubles
//! with each consecutive failure (100 ms up to 30 s) and resets after an answer. A
//! worker idle for [`IDLE`] is stopped (its stdin closed, then killed after the grace).
//!
//! The workers run on a runtime of their own, shared by the whole process: an emit's
//! runtime lives for one emit, a worker for many. Pools are kept in one table keyed by
//! the hook's identity and definition ([`WorkerKey`]); a changed definition or script
//! makes a new key, so the old pool is idle from then on and goes away.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use hookrig_core::{
    BoxFuture, Failure, FailureKind, Handler, Invocation, Reply, Report, display_duration,
};
use serde::Serialize;
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::{mpsc, oneshot};

use crate::command::Limits;
use crate::process::{EnvPolicy, ProcessOutput, Termination, apply_env, resolve_program};
use crate::protocol::{Protocol, read_reply};
use crate::reaper::Leftovers;
use crate::unix::ProcessGroup;

/// How long a worker may wait for an event before it is stopped.
pub const IDLE: Duration = Duration::from_mins(5);

/// The first backoff after a failure; it doubles with each consecutive one.
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// The longest backoff.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// What tells one pool from another: the hook (its file and name) and a digest of its
/// definition and script, so that an edited hook gets fresh workers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WorkerKey {
    /// The file that declares the hook.
    pub source: PathBuf,
    /// The hook's name.
    pub name: String,
    /// A digest of everything that makes the hook what it is (its trust hash).
    pub definition: String,
    /// The agent whose events the pool answers (`None`: emits that name no agent). A
    /// warm worker keeps state between events, and one agent's state must never reach
    /// another agent's events, so each agent gets workers of its own.
    pub agent: Option<String>,
}

/// How a pool's workers are started.
#[derive(Debug, Clone)]
pub struct WorkerSpec {
    /// The program, or `/bin/sh` for a shell line.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Variables the hook's configuration adds.
    pub env: Vec<(String, String)>,
    /// How many workers run at once (at least one).
    pub count: usize,
    /// Timeout, kill grace and caps of the hook.
    pub limits: Limits,
}

/// What hookrig answers a worker that asks while it answers an event: read-only views
/// of hookrig's state (its memory), so that a worker's code never opens hookrig's store
/// itself. Called on a blocking thread.
pub trait Services: Send + Sync + std::fmt::Debug {
    /// The answer to `question`, or why there is none (given to the worker).
    fn answer(&self, question: &serde_json::Value) -> Result<serde_json::Value, String>;
}

/// The most questions a worker may ask while it answers one event: a loop of questions
/// is a runaway worker, not a reason to hold the event until its timeout.
const MAX_QUESTIONS: usize = 1000;

/// A hook answered by a pool of persistent workers.
#[derive(Debug, Clone)]
pub struct WorkerHandler {
    name: String,
    key: WorkerKey,
    spec: Arc<WorkerSpec>,
    protocol: Arc<dyn Protocol>,
    services: Option<Arc<dyn Services>>,
    /// Fields added to each event's request line (`{"subscription": N}`).
    fields: serde_json::Map<String, serde_json::Value>,
}

impl WorkerHandler {
    /// The handler of the hook `name`, whose workers are those of `key` (started with
    /// `spec` when the pool does not exist yet) and whose replies `protocol` reads.
    pub fn new(
        name: impl Into<String>,
        key: WorkerKey,
        spec: WorkerSpec,
        protocol: Arc<dyn Protocol>,
    ) -> Self {
        Self {
            name: name.into(),
            key,
            spec: Arc::new(spec),
            protocol,
            services: None,
            fields: serde_json::Map::new(),
        }
    }

    /// Adds `fields` to the request line of each event this handler sends: several
    /// handlers sharing one pool (the chain entries of one JavaScript plugin, one per
    /// subscription) tell the worker which of its handlers answers.
    #[must_use]
    pub fn with_request_fields(
        mut self,
        fields: serde_json::Map<String, serde_json::Value>,
    ) -> Self {
        self.fields = fields;
        self
    }

    /// Answers the questions its workers ask while they answer an event with
    /// `services` (the emit's own: its store, its project).
    #[must_use]
    pub fn with_services(mut self, services: Option<Arc<dyn Services>>) -> Self {
        self.services = services;
        self
    }
}

impl Handler for WorkerHandler {
    fn run(&self, invocation: Invocation) -> BoxFuture<Report> {
        let handler = self.clone();
        Box::pin(async move { handler.answer(invocation).await })
    }
}

/// What a worker answered a [`WorkerHandler::request`].
#[derive(Debug, Clone, PartialEq)]
pub struct Answered {
    /// Its reply line without its `id` and `log`; `Err` when it reported a failure
    /// (`{"error": "..."}`) or gave no reply (timed out, crashed, garbled: then it was
    /// killed, and the next request starts a new one).
    pub reply: Result<serde_json::Map<String, serde_json::Value>, String>,
    /// What it logged while it answered: its stderr and its reply's `log`.
    pub log: String,
}

impl WorkerHandler {
    /// Sends `request` (a JSON object; the pool adds its `id`) to a worker of this
    /// hook's pool, as an event is sent, and answers its reply line as it is. This is
    /// how a question other than an event reaches the same warm worker: a JavaScript
    /// plugin's tool, called by an automation. The pool is started in `cwd` with this
    /// process's environment when it does not exist yet; the worker's questions go to
    /// this handler's services; the hook's timeout applies.
    pub async fn request(&self, request: serde_json::Value, cwd: &std::path::Path) -> Answered {
        let pool = pool(&self.key, &self.spec, cwd, None);
        let answer = self.send(&pool, request).await;
        let reply = match answer.outcome {
            Outcome::Line(bytes) => match serde_json::from_slice(&bytes) {
                Ok(serde_json::Value::Object(map)) => Ok(map),
                _ => Err(format!(
                    "hook {}: its reply is not a JSON object",
                    self.name
                )),
            },
            Outcome::Reported(why) => Err(why),
            Outcome::Failed(_, why) => Err(format!("hook {}: {why}", self.name)),
        };
        Answered {
            reply,
            log: answer.stderr,
        }
    }

    /// Sends `line` to a worker of `pool` with this handler's services, and waits for
    /// its answer; a pool that stopped is a failed answer.
    async fn send(&self, pool: &Pool, line: serde_json::Value) -> Answer {
        let (reply_to, reply) = oneshot::channel();
        let job = Job {
            event: line,
            reply: reply_to,
            services: self.services.clone(),
        };
        if pool.jobs.send(job).await.is_ok() {
            reply
                .await
                .unwrap_or_else(|_| Answer::failed(FailureKind::Crash, "the worker pool stopped"))
        } else {
            Answer::failed(FailureKind::Spawn, "the worker pool stopped")
        }
    }

    async fn answer(&self, invocation: Invocation) -> Report {
        let started = Instant::now();
        let pool = pool(
            &self.key,
            &self.spec,
            &invocation.context.cwd,
            invocation.context.env.as_ref(),
        );
        let mut line = serde_json::json!({
            "event": invocation.context.name.as_str(),
            "payload": serde_json::from_slice::<serde_json::Value>(
                &self.protocol.stdin(&self.name, &invocation)
            ).unwrap_or(serde_json::Value::Null),
        });
        if let Some(line) = line.as_object_mut() {
            line.extend(self.fields.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let answer = self.send(&pool, line).await;
        let duration = started.elapsed();
        let stderr = (!answer.stderr.is_empty()).then(|| answer.stderr.clone());
        let reply = match answer.outcome {
            Outcome::Line(bytes) => {
                let output = ProcessOutput {
                    termination: Termination::Exited(0),
                    stdout: bytes,
                    stderr: answer.stderr.into_bytes(),
                    stdout_truncated: false,
                    stderr_truncated: false,
                    leaked: false,
                    leftovers: Leftovers::default(),
                    duration,
                };
                read_reply(
                    self.protocol.as_ref(),
                    &self.name,
                    &self.spec.limits,
                    &invocation,
                    &output,
                )
            }
            Outcome::Reported(why) => Reply::Failure(Failure {
                kind: FailureKind::Exit,
                message: format!("hook {}: its worker failed: {why}", self.name),
            }),
            Outcome::Failed(kind, why) => Reply::Failure(Failure {
                kind,
                message: format!("hook {}: {why}", self.name),
            }),
        };
        tracing::debug!(
            "hooks.worker {} {}: {}",
            self.name,
            invocation.context.name,
            match &reply {
                Reply::Failure(failure) => failure.message.clone(),
                Reply::Verdict(_) => "answered".to_owned(),
            }
        );
        Report {
            reply,
            exit_code: None,
            duration,
            stdout: None,
            stderr,
            truncated: false,
        }
    }
}

/// One event for a worker.
#[derive(Debug)]
struct Job {
    event: serde_json::Value,
    reply: oneshot::Sender<Answer>,
    /// Who answers the worker's questions for this event.
    services: Option<Arc<dyn Services>>,
}

/// What became of a job.
#[derive(Debug)]
struct Answer {
    outcome: Outcome,
    /// What the worker wrote on stderr while the job was in flight.
    stderr: String,
}

#[derive(Debug)]
enum Outcome {
    /// The reply line, without its `id`.
    Line(Vec<u8>),
    /// The worker answered that it failed (`{"id": N, "error": "..."}`); it stays.
    Reported(String),
    /// No reply: why.
    Failed(FailureKind, String),
}

impl Answer {
    fn failed(kind: FailureKind, why: impl Into<String>) -> Answer {
        Answer {
            outcome: Outcome::Failed(kind, why.into()),
            stderr: String::new(),
        }
    }
}

/// A pool: the queue its workers take jobs from, and what they report.
#[derive(Debug)]
struct Pool {
    key: WorkerKey,
    jobs: mpsc::Sender<Job>,
    workers: Vec<Arc<Mutex<WorkerState>>>,
}

/// What `hookrig engine status` shows of one worker.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct WorkerState {
    /// Its pid while it runs.
    pub pid: Option<u32>,
    /// How many times it was started.
    pub starts: u64,
    /// How many times it failed (crashed, timed out, garbled, flooded).
    pub failures: u64,
    /// The last failure.
    pub last_error: Option<String>,
    /// Events answered.
    pub answered: u64,
    /// Whether an event is in flight.
    pub busy: bool,
}

/// One pool as `hookrig engine status` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct PoolStatus {
    /// The hook.
    pub hook: String,
    /// The file that declares it.
    pub source: PathBuf,
    /// The agent whose events it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Its workers.
    pub workers: Vec<WorkerState>,
}

/// The pools of this process.
fn pools() -> &'static Mutex<HashMap<WorkerKey, Arc<Pool>>> {
    static POOLS: OnceLock<Mutex<HashMap<WorkerKey, Arc<Pool>>>> = OnceLock::new();
    POOLS.get_or_init(Mutex::default)
}

/// The runtime the workers' I/O runs on: one thread, for the life of the process.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("hookrig-workers")
            .enable_all()
            .build()
            .expect("the workers' runtime starts (it needs a thread and an epoll instance)")
    })
}

/// The pool of `key`, started with `spec` in `cwd` and the environment `host` (this
/// process's own when `None`) when it does not exist yet.
fn pool(
    key: &WorkerKey,
    spec: &Arc<WorkerSpec>,
    cwd: &std::path::Path,
    host: Option<&hookrig_core::HostEnv>,
) -> Arc<Pool> {
    let mut pools = pools().lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(pool) = pools.get(key) {
        return Arc::clone(pool);
    }
    let count = spec.count.max(1);
    let (jobs, queue) = mpsc::channel(count * 4);
    let queue = Arc::new(tokio::sync::Mutex::new(queue));
    let mut env = EnvPolicy::Inherit {
        set: spec.env.clone(),
    };
    if let Some(host) = host {
        env = env.for_host(host);
    }
    let start = Arc::new(Start {
        spec: Arc::clone(spec),
        cwd: cwd.to_owned(),
        env,
    });
    let workers: Vec<Arc<Mutex<WorkerState>>> = (0..count)
        .map(|_| Arc::new(Mutex::new(WorkerState::default())))
        .collect();
    for state in &workers {
        runtime().spawn(work(
            Arc::clone(&start),
            Arc::clone(&queue),
            Arc::clone(state),
        ));
    }
    let pool = Arc::new(Pool {
        key: key.clone(),
        jobs,
        workers,
    });
    pools.insert(key.clone(), Arc::clone(&pool));
    pool
}

/// Every pool of this process and its workers.
pub fn status() -> Vec<PoolStatus> {
    let pools = pools().lock().unwrap_or_else(PoisonError::into_inner);
    let mut status: Vec<PoolStatus> = pools
        .values()
        .map(|pool| PoolStatus {
            hook: pool.key.name.clone(),
            source: pool.key.source.clone(),
            agent: pool.key.agent.clone(),
            workers: pool
                .workers
                .iter()
                .map(|w| w.lock().unwrap_or_else(PoisonError::into_inner).clone())
                .collect(),
        })
        .collect();
    status.sort_by(|a, b| (&a.source, &a.hook, &a.agent).cmp(&(&b.source, &b.hook, &b.agent)));
    status
}

/// Stops every worker of this process (the engine is stopping): each pool's queue is
/// closed, so its workers close their stdin and are killed after their grace.
pub fn stop_all() {
    let pools: Vec<Arc<Pool>> = pools()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .drain()
        .map(|(_, pool)| pool)
        .collect();
    let pids: Vec<u32> = pools
        .iter()
        .flat_map(|pool| &pool.workers)
        .filter_map(|w| w.lock().unwrap_or_else(PoisonError::into_inner).pid)
        .collect();
    drop(pools);
    for pid in pids {
        if let Some(group) = ProcessGroup::led_by(pid) {
            group.kill();
        }
    }
}

/// What every worker of a pool is started with.
#[derive(Debug)]
struct Start {
    spec: Arc<WorkerSpec>,
    cwd: PathBuf,
    env: EnvPolicy,
}

/// A running worker process.
#[derive(Debug)]
struct Running {
    child: Child,
    group: Option<ProcessGroup>,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<String>>,
}

impl Running {
    fn kill(mut self) {
        if let Some(group) = self.group {
            group.kill();
        }
        let _ = self.child.start_kill();
        // Reaped in the background: a killed worker exits at once.
        runtime().spawn(async move {
            let _ = self.child.wait().await;
        });
    }
}

/// One worker: takes jobs from the pool's queue one at a time, starting (or restarting)
/// its process as needed.
async fn work(
    start: Arc<Start>,
    queue: Arc<tokio::sync::Mutex<mpsc::Receiver<Job>>>,
    state: Arc<Mutex<WorkerState>>,
) {
    static NEXT_ID: AtomicU64 = AtomicU64::new(1);
    let mut running: Option<Running> = None;
    let mut failures_in_a_row: u32 = 0;
    let mut not_before = Instant::now();
    let set = |change: &dyn Fn(&mut WorkerState)| {
        change(&mut state.lock().unwrap_or_else(PoisonError::into_inner));
    };
    loop {
        let next = {
            let mut queue = queue.lock().await;
            tokio::time::timeout(IDLE, queue.recv()).await
        };
        let job = match next {
            Ok(Some(job)) => job,
            Ok(None) => {
                // The pool is gone: stop for good.
                if let Some(worker) = running.take() {
                    stop_gracefully(worker, start.spec.limits.kill_grace).await;
                }
                set(&|s| s.pid = None);
                return;
            }
            Err(_) => {
                // Idle: the process goes, the worker waits for the next event.
                if let Some(worker) = running.take() {
                    stop_gracefully(worker, start.spec.limits.kill_grace).await;
                    set(&|s| s.pid = None);
                }
                continue;
            }
        };
        set(&|s| s.busy = true);
        let deadline = start.spec.limits.timeout.map(|t| Instant::now() + t);
        if running.is_none() {
            // Backoff after failures, within the event's timeout.
            let wait = not_before.saturating_duration_since(Instant::now());
            if deadline.is_some_and(|d| Instant::now() + wait > d) {
                let _ = job.reply.send(Answer::failed(
                    FailureKind::Spawn,
                    format!(
                        "its worker failed {failures_in_a_row} times in a row and restarts in {}",
                        display_duration(wait)
                    ),
                ));
                set(&|s| s.busy = false);
                continue;
            }
            tokio::time::sleep(wait).await;
            match spawn(&start) {
                Ok(worker) => {
                    let pid = worker.child.id();
                    set(&|s| {
                        s.pid = pid;
                        s.starts += 1;
                    });
                    running = Some(worker);
                }
                Err(why) => {
                    failures_in_a_row += 1;
                    not_before = Instant::now() + backoff(failures_in_a_row);
                    set(&|s| {
                        s.failures += 1;
                        s.last_error = Some(why.clone());
                        s.busy = false;
                    });
                    let _ = job.reply.send(Answer::failed(FailureKind::Spawn, why));
                    continue;
                }
            }
        }
        let worker = running.as_mut().expect("started above");
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let answer = exchange(worker, id, &job, deadline, &start.spec.limits).await;
        match &answer.outcome {
            Outcome::Line(_) | Outcome::Reported(_) => {
                failures_in_a_row = 0;
                set(&|s| {
                    s.answered += 1;
                    s.busy = false;
                });
            }
            Outcome::Failed(_, why) => {
                // The worker is out of step with its events (or gone): start afresh.
                if let Some(worker) = running.take() {
                    worker.kill();
                }
                failures_in_a_row += 1;
                not_before = Instant::now() + backoff(failures_in_a_row);
                set(&|s| {
                    s.pid = None;
                    s.failures += 1;
                    s.last_error = Some(why.clone());
                    s.busy = false;
                });
            }
        }
        let _ = job.reply.send(answer);
    }
}

/// The backoff before start number `failures + 1`.
fn backoff(failures: u32) -> Duration {
    FIRST_BACKOFF
        .saturating_mul(2u32.saturating_pow(failures.saturating_sub(1)))
        .min(MAX_BACKOFF)
}

/// Starts a worker process: in a process group of its own, killed with the process
/// that started it, stdin and stdout piped, stderr read line by line.
fn spawn(start: &Start) -> Result<Running, String> {
    let spec = &start.spec;
    let resolved = resolve_program(&spec.program, &start.cwd, &start.env)
        .map_err(|err| format!("its worker cannot start: {err}"))?;
    let mut command = tokio::process::Command::new(&resolved);
    crate::unix::configure_command(&mut command, &spec.program);
    command
        .args(&spec.args)
        .current_dir(&start.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    apply_env(command.as_std_mut(), &start.env);
    let mut child = command
        .spawn()
        .map_err(|err| format!("its worker cannot start: {err}"))?;
    let group = child.id().and_then(ProcessGroup::led_by);
    let stdin = child.stdin.take().ok_or("its worker has no stdin")?;
    let stdout = child.stdout.take().ok_or("its worker has no stdout")?;
    let stderr = Arc::new(Mutex::new(String::new()));
    if let Some(pipe) = child.stderr.take() {
        let sink = Arc::clone(&stderr);
        let cap = spec.limits.stderr_cap;
        tokio::spawn(async move {
            let mut lines = BufReader::new(pipe).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let mut text = sink.lock().unwrap_or_else(PoisonError::into_inner);
                if text.len() + line.len() < cap {
                    text.push_str(&line);
                    text.push('\n');
                }
            }
        });
    }
    Ok(Running {
        child,
        group,
        stdin,
        stdout: BufReader::new(stdout),
        stderr,
    })
}

/// Sends one event to `worker` and reads its reply line, by `deadline`.
async fn exchange(
    worker: &mut Running,
    id: u64,
    job: &Job,
    deadline: Option<Instant>,
    limits: &Limits,
) -> Answer {
    let (event, services) = (&job.event, job.services.as_ref());
    worker
        .stderr
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clear();
    let mut line = serde_json::json!({"id": id});
    if let (Some(line), Some(event)) = (line.as_object_mut(), event.as_object()) {
        line.extend(event.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    // The reply's `log`: what the worker logged for this event, carried in the reply
    // itself, so that it is recorded with the event however the stderr reader is
    // scheduled.
    let mut logged = String::new();
    let talk = async {
        if let Err(failed) = write_line(worker, &line).await {
            return failed;
        }
        let mut asked = 0;
        let mut reply = Vec::new();
        loop {
            reply.clear();
            if let Err(failed) = read_line(worker, limits, &mut reply).await {
                return failed;
            }
            let Some((ask, question)) = question_of(&reply, id) else {
                break;
            };
            asked += 1;
            let answer = ask_services(services, question, asked).await;
            let mut line = serde_json::json!({"id": id, "answer": ask});
            match answer {
                Ok(result) => line["result"] = result,
                Err(error) => line["error"] = error.into(),
            }
            if let Err(failed) = write_line(worker, &line).await {
                return failed;
            }
        }
        match serde_json::from_slice::<serde_json::Value>(&reply) {
            Ok(serde_json::Value::Object(mut map)) if map.get("id") == Some(&id.into()) => {
                map.remove("id");
                if let Some(serde_json::Value::String(text)) = map.remove("log") {
                    logged = text;
                }
                if let Some(error) = map.get("error") {
                    Outcome::Reported(
                        error
                            .as_str()
                            .map_or_else(|| error.to_string(), str::to_owned),
                    )
                } else {
                    Outcome::Line(serde_json::Value::Object(map).to_string().into_bytes())
                }
            }
            _ => Outcome::Failed(
                FailureKind::Malformed,
                format!(
                    "its worker answered something else than its reply line: {}",
                    String::from_utf8_lossy(&reply[..reply.len().min(200)]).trim_end()
                ),
            ),
        }
    };
    let outcome = match deadline {
        None => talk.await,
        Some(deadline) => match tokio::time::timeout_at(deadline.into(), talk).await {
            Ok(outcome) => outcome,
            Err(_) => Outcome::Failed(
                FailureKind::Timeout,
                format!(
                    "timed out after {}; its worker was killed",
                    display_duration(limits.timeout.unwrap_or_default())
                ),
            ),
        },
    };
    let mut stderr =
        std::mem::take(&mut *worker.stderr.lock().unwrap_or_else(PoisonError::into_inner));
    if stderr.len() + logged.len() < limits.stderr_cap {
        stderr.push_str(&logged);
    }
    Answer { outcome, stderr }
}

/// Writes `line` and a newline to the worker's stdin.
async fn write_line(worker: &mut Running, line: &serde_json::Value) -> Result<(), Outcome> {
    let mut bytes = line.to_string().into_bytes();
    bytes.push(b'\n');
    if let Err(err) = worker.stdin.write_all(&bytes).await {
        return Err(Outcome::Failed(
            FailureKind::Crash,
            format!("its worker does not read its stdin ({err})"),
        ));
    }
    let _ = worker.stdin.flush().await;
    Ok(())
}

/// Reads one line of the worker's stdout into `line`, up to the stdout cap.
async fn read_line(
    worker: &mut Running,
    limits: &Limits,
    line: &mut Vec<u8>,
) -> Result<(), Outcome> {
    let read = (&mut worker.stdout)
        .take(limits.stdout_cap as u64 + 1)
        .read_until(b'\n', line)
        .await;
    match read {
        Ok(0) => {
            let status = worker.child.try_wait().ok().flatten();
            return Err(Outcome::Failed(
                FailureKind::Crash,
                match status {
                    Some(status) => format!("its worker exited ({status}) while answering"),
                    None => "its worker closed its stdout while answering".to_owned(),
                },
            ));
        }
        Ok(_) if line.len() > limits.stdout_cap => {
            return Err(Outcome::Failed(
                FailureKind::Malformed,
                format!(
                    "its worker's reply is larger than the {} byte stdout cap",
                    limits.stdout_cap
                ),
            ));
        }
        Ok(_) => {}
        Err(err) => {
            return Err(Outcome::Failed(
                FailureKind::Crash,
                format!("cannot read its worker's stdout ({err})"),
            ));
        }
    }
    Ok(())
}

/// The `ask` key and the question of a line that asks rather than replies:
/// `{"id": N, "ask": K, "question": {...}}` of the event in flight.
fn question_of(line: &[u8], id: u64) -> Option<(serde_json::Value, serde_json::Value)> {
    let serde_json::Value::Object(mut map) = serde_json::from_slice(line).ok()? else {
        return None;
    };
    if map.get("id") != Some(&id.into()) {
        return None;
    }
    let ask = map.remove("ask")?;
    Some((ask, map.remove("question").unwrap_or_default()))
}

/// The answer of `services` to the `asked`-th question of an event, on a blocking
/// thread (services read hookrig's store).
async fn ask_services(
    services: Option<&Arc<dyn Services>>,
    question: serde_json::Value,
    asked: usize,
) -> Result<serde_json::Value, String> {
    let Some(services) = services else {
        return Err("hookrig answers no questions of this worker".to_owned());
    };
    if asked > MAX_QUESTIONS {
        return Err(format!(
            "more than {MAX_QUESTIONS} questions while answering one event"
        ));
    }
    let services = Arc::clone(services);
    tokio::task::spawn_blocking(move || services.answer(&question))
        .await
        .unwrap_or_else(|_| Err("hookrig failed while answering".to_owned()))
}

/// Closes the worker's stdin (a worker reading to end of input then exits by itself),
/// and kills its group when it is still there after `grace`.
async fn stop_gracefully(mut worker: Running, grace: Duration) {
    drop(worker.stdin);
    if tokio::time::timeout(grace, worker.child.wait())
        .await
        .is_err()
    {
        if let Some(group) = worker.group {
            group.kill();
        }
        let _ = worker.child.start_kill();
        let _ = worker.child.wait().await;
    }
}
