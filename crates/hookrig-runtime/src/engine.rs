//! The resident engine: `hookrig serve` answering the emits that `hookrig emit` hands it
//! over its socket, so that a host's event costs a connection instead of a whole
//! hookrig process (config loaded, ledger opened, runtime started).
//!
//! Each emit is answered by the same call an in-process emit makes
//! ([`crate::answer`]), with the host's directory and environment (hooks run exactly as
//! if the host's `hookrig emit` had started them), on a thread of its own. The answer
//! goes back as soon as the synchronous hooks have decided and the emit's ledger row is
//! committed (the engine's ledger writers commit the rows of concurrent emits in
//! batches); async hooks run on in the engine to their own timeout.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use hookrig_core::HostEnv;
use hookrig_exec::ProcessGroups;
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use crate::call::{self, CallSite, EmitCall, HostReply};

/// How long an async hook may run in the engine after its emit was answered, at most,
/// whatever its own timeout says (a hook with no timeout would otherwise never end).
pub const ASYNC_LIMIT: Duration = Duration::from_hours(1);

/// What the client sends: its parsed flags, where it ran, and its stdin.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EmitRequest {
    /// The build the client is ([`build_id`]); an engine of another build refuses.
    pub build: String,
    /// Its flags.
    pub call: EmitCall,
    /// Its current directory.
    pub dir: PathBuf,
    /// Its whole environment, in order.
    pub env: Vec<(String, String)>,
    /// Its stdin (the host's input).
    pub stdin: String,
}

/// What the engine answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EmitResponse {
    /// The host's answer: write it and exit with its code.
    Reply(HostReply),
    /// The engine cannot answer (another build, shutting down): emit in-process.
    Refused {
        /// Why.
        refused: String,
    },
}

/// The identity of this build of hookrig: its version and its executable file, so that
/// an engine left running across an upgrade is not asked by the new client (their
/// answers could differ).
pub fn build_id() -> String {
    use std::os::unix::fs::MetadataExt as _;
    let exe = std::fs::metadata("/proc/self/exe")
        .map(|m| {
            format!(
                "{}:{}:{}",
                m.dev(),
                m.ino(),
                m.mtime_nsec() + m.mtime() * 1_000_000_000
            )
        })
        .unwrap_or_default();
    format!("{}/{exe}", env!("CARGO_PKG_VERSION"))
}

/// The engine's state, shared by every connection.
#[derive(Debug)]
pub struct Engine {
    build: String,
    started: Instant,
    answered: AtomicU64,
    in_flight: AtomicU64,
    /// Where emitted events go for automations: the server's request queue, when the
    /// engine is part of `hookrig serve`.
    events: OnceLock<tokio::sync::mpsc::Sender<crate::ingress::Request>>,
    /// When the last emit ended (milliseconds after `started`), for the idle timeout.
    last_active_ms: AtomicU64,
    /// The process groups of the emits under way (their hooks, sync and async), killed
    /// when the engine stops.
    running: Mutex<Vec<ProcessGroups>>,
    /// The engine settings of each user config directory clients came from, with the
    /// paths read for them.
    settings: hookrig_config::consulted::Kept<PathBuf, UserSettings>,
    /// The PostgreSQL ledger each user config directory's `config.toml` names, with the
    /// paths read for it.
    databases: hookrig_config::consulted::Kept<PathBuf, Option<String>>,
    /// The ledger writers, one per store file: the engine's emits record through them.
    ledger: crate::ledger::Writers,
}

/// What `hookrig engine status` shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    /// The engine's pid.
    pub pid: u32,
    /// Seconds since it started.
    pub uptime_s: f64,
    /// Its build ([`build_id`]).
    pub build: String,
    /// Emits answered.
    pub answered: u64,
    /// Emits under way: answering, or running async hooks after the answer.
    pub in_flight: u64,
    /// Seconds since the last emit ended (or since the engine started).
    pub idle_s: f64,
    /// The persistent workers of worker hooks, by hook.
    pub workers: Vec<hookrig_exec::worker::PoolStatus>,
    /// The loaded configs kept between emits, and the sources they watch.
    #[serde(default)]
    pub cache: crate::CacheStatus,
    /// Ledger records queued and not yet committed.
    #[serde(default)]
    pub records_waiting: u64,
    /// Ledger transactions committed, each holding the records waiting when it began.
    #[serde(default)]
    pub batches_committed: u64,
}

impl Status {
    /// `hookrig engine status` as text: one `name  value` line per figure, then a line
    /// per persistent worker. `socket` is where the engine was reached.
    pub fn text(&self, socket: &std::path::Path) -> String {
        let mut text = format!(
            "pid        {}\nuptime     {:.0} s\nsocket     {}\nbuild      {}\nanswered   {}\nin flight  {}\nidle       {:.0} s\nledger     {} records waiting, {} batches committed\n",
            self.pid,
            self.uptime_s,
            socket.display(),
            self.build,
            self.answered,
            self.in_flight,
            self.idle_s,
            self.records_waiting,
            self.batches_committed,
        );
        let cache = &self.cache;
        let _ = writeln!(
            text,
            "configs    {} kept, watching {} sources; {} emits from the cache, {} read the files",
            cache.configs, cache.sources, cache.hits, cache.loads,
        );
        for pool in &self.workers {
            for worker in &pool.workers {
                let pid = worker.pid.map_or_else(|| "-".to_owned(), |p| p.to_string());
                let last = worker
                    .last_error
                    .as_deref()
                    .map(|e| format!("; last error: {e}"))
                    .unwrap_or_default();
                let _ = writeln!(
                    text,
                    "worker     {} ({}): pid {pid}, started {}, failed {}, answered {}{last}",
                    pool.hook,
                    pool.source.display(),
                    worker.starts,
                    worker.failures,
                    worker.answered,
                );
            }
        }
        text
    }
}

impl Engine {
    /// An engine of this build.
    pub fn new() -> Arc<Engine> {
        Engine::with_ledger(crate::ledger::Writers::new())
    }

    /// An engine of this build whose emits record into the PostgreSQL ledger at
    /// `database` (the store `hookrig serve` shares with other nodes), whatever store
    /// file their scope names: one ledger for every node (docs/postgres.md, "The
    /// ledger"). Without a database, as [`Engine::new`].
    pub fn recording_into(database: Option<&str>) -> Arc<Engine> {
        let writers = crate::ledger::Writers::new();
        Engine::with_ledger(match database {
            Some(url) => writers.sharing(url),
            None => writers,
        })
    }

    fn with_ledger(ledger: crate::ledger::Writers) -> Arc<Engine> {
        crate::config_cache::keep_loads();
        Arc::new(Engine {
            build: build_id(),
            started: Instant::now(),
            answered: AtomicU64::new(0),
            in_flight: AtomicU64::new(0),
            events: OnceLock::new(),
            last_active_ms: AtomicU64::new(0),
            running: Mutex::new(Vec::new()),
            settings: hookrig_config::consulted::Kept::new(SETTINGS_KEPT),
            databases: hookrig_config::consulted::Kept::new(SETTINGS_KEPT),
            ledger,
        })
    }

    /// What it is doing.
    pub fn status(&self) -> Status {
        Status {
            pid: std::process::id(),
            uptime_s: self.started.elapsed().as_secs_f64(),
            build: self.build.clone(),
            answered: self.answered.load(Ordering::Relaxed),
            in_flight: self.in_flight.load(Ordering::Relaxed),
            idle_s: self.idle().as_secs_f64(),
            workers: hookrig_exec::worker::status(),
            cache: crate::config_cache::status(),
            records_waiting: self.ledger.waiting(),
            batches_committed: self.ledger.batches(),
        }
    }

    /// How long no emit has been under way: zero while one is.
    pub fn idle(&self) -> Duration {
        if self.in_flight.load(Ordering::Relaxed) > 0 {
            return Duration::ZERO;
        }
        let last = Duration::from_millis(self.last_active_ms.load(Ordering::Relaxed));
        self.started.elapsed().saturating_sub(last)
    }

    /// Kills the hooks of every emit under way: the engine is stopping.
    pub fn kill_all(&self) {
        for groups in self
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
        {
            groups.kill_all();
        }
    }

    /// Commits the ledger records still queued and stops the ledger writers; emits that
    /// end later write their own records. Blocking: call it once the emits under way
    /// have had their time to end.
    pub fn close_ledger(&self) {
        self.ledger.stop();
    }

    /// Sends the events this engine answers to `requests` (the server's queue).
    pub(crate) fn deliver_to(&self, requests: tokio::sync::mpsc::Sender<crate::ingress::Request>) {
        let _ = self.events.set(requests);
    }

    /// Hands an emitted event to the automations of the server this engine is part of,
    /// without waiting: an event that does not fit the queue is dropped, as one that
    /// cannot be delivered over the socket is.
    fn deliver(&self, event: &str, payload: &str) {
        let Some(requests) = self.events.get() else {
            return;
        };
        let Ok(payload) = serde_json::from_str(payload) else {
            return;
        };
        let request = crate::ingress::Request::Event {
            event_type: event.to_owned(),
            id: None,
            payload,
        };
        if let Err(err) = requests.try_send(request) {
            tracing::debug!("event not handed to the automations: {err}");
        }
    }

    /// The engine settings of the user whose environment is `env`, read again only
    /// when their file changed (or was changed just before it was last read).
    fn user_settings(&self, env: &HostEnv) -> UserSettings {
        let Some(config_home) = UserSettings::config_home(|name| env.get(name).map(Into::into))
        else {
            return UserSettings::default();
        };
        self.settings
            .get_or_load(&config_home, || UserSettings::read(&config_home))
            .0
    }

    /// The ledger writers of an emit for the user whose environment is `env`: the
    /// engine's shared store when it has one (`hookrig serve --store`), else the
    /// PostgreSQL ledger of the user's own `[store] url` (read again only when their
    /// `config.toml` changed), else the store file of the emit's scope.
    fn writers_for(&self, env: &HostEnv) -> crate::ledger::Writers {
        if self.ledger.database().is_some() {
            return self.ledger.clone();
        }
        let Some(config_home) = UserSettings::config_home(|name| env.get(name).map(Into::into))
        else {
            return self.ledger.clone();
        };
        let (database, _) = self
            .databases
            // The PostgreSQL ledger the user's own `[store] url` names (docs/postgres.md,
            // "The ledger").
            .get_or_load(&config_home, || {
                hookrig_config::user_store_url(&config_home)
            });
        match database {
            Some(url) => self.ledger.sharing(&url),
            None => self.ledger.clone(),
        }
    }

    fn track(&self, groups: &ProcessGroups) {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(groups.clone());
    }

    fn untrack(&self, groups: &ProcessGroups) {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|g| !g.same(groups));
    }

    /// Answers `request` as an in-process emit of the client would have, then finishes
    /// the emit (ledger, async hooks) after the answer is out.
    pub async fn emit(self: &Arc<Self>, request: EmitRequest) -> EmitResponse {
        if request.build != self.build {
            return EmitResponse::Refused {
                refused: format!(
                    "the engine is another build of hookrig ({}, the client is {})",
                    self.build, request.build
                ),
            };
        }
        let EmitRequest {
            call,
            dir,
            env,
            stdin,
            ..
        } = request;
        let env = HostEnv::new(env.into_iter().map(|(k, v)| (k.into(), v.into())));
        // A client whose environment chooses no mode does not read the user's settings
        // (its fast path loads no config): the engine reads them, kept between emits.
        if env.get("HOOKRIG_ENGINE").is_none() && self.user_settings(&env).mode == Some(Mode::Off) {
            return EmitResponse::Refused {
                refused: "the user's hooks.toml says [settings] engine = \"off\"".to_owned(),
            };
        }
        match self.answer(call, stdin.into_bytes(), dir, env).await {
            Some(answer) => EmitResponse::Reply(answer),
            None => EmitResponse::Refused {
                refused: "the engine failed while answering".to_owned(),
            },
        }
    }

    /// Answers `call` with `stdin` made in `dir` with `env`, on a thread of its own;
    /// the emit is recorded before the answer comes back, and its async hooks run on
    /// after it. `None` when the thread failed before answering.
    pub(crate) async fn answer(
        self: &Arc<Self>,
        call: EmitCall,
        stdin: Vec<u8>,
        dir: PathBuf,
        env: HostEnv,
    ) -> Option<HostReply> {
        let (reply_to, reply) = oneshot::channel();
        let engine = Arc::clone(self);
        engine.in_flight.fetch_add(1, Ordering::Relaxed);
        tokio::task::spawn_blocking(move || {
            let groups = ProcessGroups::new();
            engine.track(&groups);
            let ledger = engine.writers_for(&env);
            let site = CallSite::Host {
                dir,
                env,
                groups: groups.clone(),
                ledger,
                trust_all: false,
            };
            // The client's debug lines are collected as they come (this thread runs the
            // emit's hooks), in order with the notes, for the client to print.
            let lines = crate::log::Collected::default();
            let subscriber = crate::log::subscriber(call.verbosity, lines.clone());
            let run = || call::answer(&call, &stdin, site, &mut |line| lines.push(line));
            let (mut answer, decided) = match subscriber {
                Some(subscriber) => tracing::subscriber::with_default(subscriber, run),
                None => run(),
            };
            let mut stderr = lines.take();
            stderr.push_str(&answer.stderr);
            answer.stderr = stderr;
            // Recorded before the host is answered: an engine killed right after the
            // answer must not lose the emit's row.
            let recorded = decided.map(|decided| {
                decided.record_to(|_, event, payload| engine.deliver(event, payload))
            });
            if let Some(recorded) = &recorded {
                for warning in recorded.late_warnings() {
                    let _ = writeln!(answer.stderr, "hookrig: warning: {warning}");
                }
            }
            let _ = reply_to.send(answer);
            engine.answered.fetch_add(1, Ordering::Relaxed);
            if let Some(recorded) = recorded {
                recorded.drain_within(ASYNC_LIMIT);
            }
            engine.untrack(&groups);
            let now = u64::try_from(engine.started.elapsed().as_millis()).unwrap_or(u64::MAX);
            engine.last_active_ms.store(now, Ordering::Relaxed);
            engine.in_flight.fetch_sub(1, Ordering::Relaxed);
        });
        reply.await.ok()
    }
}

/// Why a resident engine stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// `hookrig engine stop`, or a full `hookrig serve` taking over.
    Asked,
    /// SIGINT, SIGTERM or SIGHUP.
    Signal,
    /// No emit for the idle time.
    Idle,
}

impl Stopped {
    /// Why, as `hookrig engine run` says it stopped.
    pub fn as_str(self) -> &'static str {
        match self {
            Stopped::Asked => "asked to stop",
            Stopped::Signal => "signalled",
            Stopped::Idle => "idle",
        }
    }
}

/// Runs a resident engine on `socket` (answering emits only: no automation runs) until
/// it is asked to stop, gets a signal, or has been idle for `idle`; then stops taking
/// connections (the socket is removed), kills the hooks still running, and returns.
pub async fn run_resident(
    socket: &std::path::Path,
    idle: Duration,
    http: Option<crate::http::HttpFront>,
) -> Result<Stopped, crate::ingress::IngressError> {
    use tokio::signal::unix::{SignalKind, signal};

    use crate::ingress::{Ingress, Request};

    let engine = Engine::new();
    let (listener, mut requests) = Ingress::bind_engine(socket, Some(Arc::clone(&engine))).await?;
    if let Some(http) = http {
        http.spawn(Arc::clone(&engine))
            .map_err(|source| crate::ingress::IngressError::Io {
                action: "serve HTTP beside",
                path: socket.to_owned(),
                source,
            })?;
    }
    let signals = |kind| {
        signal(kind).map_err(|source| crate::ingress::IngressError::Io {
            action: "watch signals for",
            path: socket.to_owned(),
            source,
        })
    };
    let (mut int, mut term, mut hup) = (
        signals(SignalKind::interrupt())?,
        signals(SignalKind::terminate())?,
        signals(SignalKind::hangup())?,
    );
    let mut check = tokio::time::interval(IDLE_CHECK.min(idle));
    let stopped = loop {
        tokio::select! {
            request = requests.recv() => match request {
                Some(Request::Stop) | None => break Stopped::Asked,
                Some(Request::Fire { reply, .. }) => {
                    let _ = reply.send(Err(
                        "this engine answers emits only; start hookrig serve for automations"
                            .to_owned(),
                    ));
                }
                Some(Request::Event { .. }) => {}
            },
            _ = int.recv() => break Stopped::Signal,
            _ = term.recv() => break Stopped::Signal,
            _ = hup.recv() => break Stopped::Signal,
            _ = check.tick() => if engine.idle() >= idle {
                break Stopped::Idle;
            },
        }
    };
    drop(listener);
    engine.kill_all();
    hookrig_exec::worker::stop_all();
    // Emits still answering get a moment to send their answers and record their rows.
    let deadline = Instant::now() + SHUTDOWN_GRACE;
    while engine.in_flight.load(Ordering::Relaxed) > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    engine.close_ledger();
    Ok(stopped)
}

/// [`run_resident`] on a runtime of its own (two worker threads: emits arrive
/// concurrently from many hosts), for a process that is only an engine.
pub fn run_resident_blocking(
    socket: &std::path::Path,
    idle: Duration,
    http: Option<crate::http::HttpFront>,
) -> Result<Stopped, crate::ingress::IngressError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|source| crate::ingress::IngressError::Io {
            action: "start the runtime for",
            path: socket.to_owned(),
            source,
        })?;
    runtime.block_on(run_resident(socket, idle, http))
}

/// How often a resident engine checks whether it has been idle long enough.
const IDLE_CHECK: Duration = Duration::from_secs(1);

/// How long a stopping engine waits for the emits under way to answer.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// Why a client emits in-process instead of through the engine.
#[derive(Debug, thiserror::Error)]
pub enum Unavailable {
    /// No engine listens on the socket.
    #[error("no engine listens on {}", .0.display())]
    NotRunning(PathBuf),
    /// The socket is served by a process of another user.
    #[error("the engine's socket {} is served by another user", .0.display())]
    OtherUser(PathBuf),
    /// The engine refused the call (another build, shutting down).
    #[error("the engine refused: {0}")]
    Refused(String),
    /// The call cannot be sent as the protocol needs (stdin or environment not UTF-8,
    /// stdin larger than a request may be).
    #[error("{0}")]
    NotSendable(&'static str),
    /// The connection failed or the answer was unreadable (the engine died meanwhile).
    #[error("the engine failed: {0}")]
    Failed(String),
}

/// How long a client waits for a live engine's first answer.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(1);

/// Hands `request` to the engine at `socket` and waits for the host's answer. Blocking
/// and without an async runtime: this is the whole of a client `hookrig emit`.
pub fn call(socket: &std::path::Path, request: &EmitRequest) -> Result<HostReply, Unavailable> {
    use std::io::{BufRead as _, BufReader, Write as _};
    use std::os::unix::net::UnixStream;

    let stream =
        UnixStream::connect(socket).map_err(|_| Unavailable::NotRunning(socket.to_owned()))?;
    let me = nix::unistd::geteuid().as_raw();
    match nix::sys::socket::getsockopt(&stream, nix::sys::socket::sockopt::PeerCredentials) {
        Ok(peer) if peer.uid() == me => {}
        _ => return Err(Unavailable::OtherUser(socket.to_owned())),
    }
    let mut lines = b"{\"type\":\"hello\"}\n".to_vec();
    if serde_json::to_writer(
        &mut lines,
        &WireEmit {
            kind: "emit",
            request,
        },
    )
    .is_err()
    {
        return Err(Unavailable::NotSendable(
            "the request cannot be written as JSON",
        ));
    }
    if lines.len() as u64 > crate::ingress::MAX_LINE {
        return Err(Unavailable::NotSendable(
            "the request is larger than the engine takes",
        ));
    }
    lines.push(b'\n');
    let failed = |err: std::io::Error| Unavailable::Failed(err.to_string());
    (&stream).write_all(&lines).map_err(failed)?;
    let mut reader = BufReader::new(&stream);
    // The hello is answered at once by a live engine; a socket whose server does not
    // answer it (hung, or not an engine) is given up on, and the emit runs in-process.
    stream
        .set_read_timeout(Some(HELLO_TIMEOUT))
        .map_err(failed)?;
    let mut hello = Vec::new();
    reader.read_until(b'\n', &mut hello).map_err(|err| {
        Unavailable::Failed(format!(
            "no answer to hello within {HELLO_TIMEOUT:?}: {err}"
        ))
    })?;
    match serde_json::from_slice::<serde_json::Value>(&hello) {
        Ok(answer) if answer["engine"] == true => {}
        _ => {
            return Err(Unavailable::Refused(
                "the socket's server does not answer emits".to_owned(),
            ));
        }
    }
    // The hooks may take as long as their timeouts allow.
    stream.set_read_timeout(None).map_err(failed)?;
    let mut answer = Vec::new();
    reader.read_until(b'\n', &mut answer).map_err(failed)?;
    match serde_json::from_slice::<EmitResponse>(&answer) {
        Ok(EmitResponse::Reply(reply)) => Ok(reply),
        Ok(EmitResponse::Refused { refused }) => Err(Unavailable::Refused(refused)),
        Err(_) if answer.is_empty() => Err(Unavailable::Failed(
            "the connection closed before the answer".to_owned(),
        )),
        Err(err) => Err(Unavailable::Failed(format!("unreadable answer: {err}"))),
    }
}

/// The request line of an emit.
#[derive(Serialize)]
struct WireEmit<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    request: &'a EmitRequest,
}

impl EmitRequest {
    /// The request for `call` with `stdin`, made in this process's directory and
    /// environment; `None` when they cannot be sent (not UTF-8), and the emit must run
    /// in-process.
    pub fn here(call: &EmitCall, stdin: &[u8]) -> Option<EmitRequest> {
        let stdin = std::str::from_utf8(stdin).ok()?.to_owned();
        let dir = std::env::current_dir().ok()?;
        let env = std::env::vars_os()
            .map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect::<Option<Vec<_>>>()?;
        Some(EmitRequest {
            build: build_id(),
            call: call.clone(),
            dir,
            env,
            stdin,
        })
    }
}

/// Sends one request line to the engine at `socket` and reads one answer line, within
/// `limit`. Blocking: for the commands that talk to an engine (`hookrig engine`).
fn exchange(
    socket: &std::path::Path,
    request: &serde_json::Value,
    limit: Duration,
) -> Result<serde_json::Value, Unavailable> {
    use std::io::{BufRead as _, BufReader, Write as _};
    use std::os::unix::net::UnixStream;

    let stream =
        UnixStream::connect(socket).map_err(|_| Unavailable::NotRunning(socket.to_owned()))?;
    let failed = |err: std::io::Error| Unavailable::Failed(err.to_string());
    stream.set_read_timeout(Some(limit)).map_err(failed)?;
    stream.set_write_timeout(Some(limit)).map_err(failed)?;
    let mut line = request.to_string();
    line.push('\n');
    (&stream).write_all(line.as_bytes()).map_err(failed)?;
    let mut answer = Vec::new();
    BufReader::new(&stream)
        .read_until(b'\n', &mut answer)
        .map_err(failed)?;
    serde_json::from_slice(&answer)
        .map_err(|err| Unavailable::Failed(format!("unreadable answer: {err}")))
}

/// What the engine at `socket` is doing.
pub fn status(socket: &std::path::Path) -> Result<Status, Unavailable> {
    let answer = exchange(
        socket,
        &serde_json::json!({"type": "status"}),
        HELLO_TIMEOUT,
    )?;
    if let Some(error) = answer.get("error").and_then(serde_json::Value::as_str) {
        return Err(Unavailable::Refused(error.to_owned()));
    }
    serde_json::from_value(answer)
        .map_err(|err| Unavailable::Failed(format!("unreadable status: {err}")))
}

/// Asks the engine at `socket` to stop, and waits (up to `limit`) until it has: its
/// socket is gone, or nobody answers on it.
pub fn stop(socket: &std::path::Path, limit: Duration) -> Result<(), Unavailable> {
    exchange(socket, &serde_json::json!({"type": "stop"}), HELLO_TIMEOUT)?;
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if std::os::unix::net::UnixStream::connect(socket).is_err() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(Unavailable::Failed(format!(
        "the engine did not stop within {limit:?}"
    )))
}

/// Waits (up to `limit`) until an engine answers on `socket`.
pub fn wait_until_ready(socket: &std::path::Path, limit: Duration) -> Result<Status, Unavailable> {
    let deadline = Instant::now() + limit;
    loop {
        match status(socket) {
            Ok(status) => return Ok(status),
            Err(err) if Instant::now() >= deadline => return Err(err),
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// When emits go through a resident engine: `HOOKRIG_ENGINE`, else the user's
/// `[settings] engine`, else [`Mode::Auto`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Through a running engine; when none runs, the emit runs in-process and starts
    /// one in the background for the next emits (it exits after its idle time).
    #[default]
    Auto,
    /// Through a running engine; none is started.
    On,
    /// Always in-process.
    Off,
}

impl Mode {
    /// The mode named `text`.
    pub fn parse(text: &str) -> Option<Mode> {
        match text {
            "auto" => Some(Mode::Auto),
            "on" => Some(Mode::On),
            "off" => Some(Mode::Off),
            _ => None,
        }
    }

    /// The mode `HOOKRIG_ENGINE` names, if it is set to one.
    pub fn from_env() -> Option<Mode> {
        std::env::var("HOOKRIG_ENGINE")
            .ok()
            .as_deref()
            .and_then(Mode::parse)
    }
}

/// The engine settings of the user's own `hooks.toml` (`[settings] engine` and
/// `engine_idle`), read without loading anything else: `hookrig emit` reads them
/// before it hands its call to an engine. A project's file has no say in which engine
/// answers the user's emits. Values that do not parse count as unset (`hookrig
/// validate` reports them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UserSettings {
    /// `engine`.
    pub mode: Option<Mode>,
    /// `engine_idle`.
    pub idle: Option<Duration>,
}

impl UserSettings {
    /// The settings of `config_home/hookrig/hooks.toml`; none when it does not exist
    /// or cannot be read.
    pub fn read(config_home: &std::path::Path) -> UserSettings {
        #[derive(Deserialize)]
        struct File {
            settings: Option<Settings>,
        }
        #[derive(Deserialize)]
        struct Settings {
            engine: Option<String>,
            engine_idle: Option<String>,
        }
        let path = config_home.join("hookrig").join("hooks.toml");
        let Ok(text) = hookrig_config::read_source(&path) else {
            return UserSettings::default();
        };
        let Some(settings) = toml::from_str::<File>(&text).ok().and_then(|f| f.settings) else {
            return UserSettings::default();
        };
        UserSettings {
            mode: settings.engine.as_deref().and_then(Mode::parse),
            idle: settings
                .engine_idle
                .as_deref()
                .and_then(|text| hookrig_config::parse_duration(text).ok()),
        }
    }

    /// The user's settings from the process environment's `XDG_CONFIG_HOME` (or
    /// `~/.config`).
    pub fn from_env() -> UserSettings {
        Self::config_home(|name| std::env::var_os(name))
            .map_or_else(UserSettings::default, |dir| UserSettings::read(&dir))
    }

    /// The user's config directory in the environment `var` reads: `XDG_CONFIG_HOME`,
    /// else `~/.config`; relative values do not count.
    fn config_home(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
        let absolute = |name| {
            var(name)
                .map(std::path::PathBuf::from)
                .filter(|p| p.is_absolute())
        };
        absolute("XDG_CONFIG_HOME").or_else(|| absolute("HOME").map(|home| home.join(".config")))
    }
}

/// How many users' engine settings an engine keeps (one per config directory its
/// clients come from).
const SETTINGS_KEPT: usize = 32;

/// How long a resident engine started by `auto` waits for an emit before it exits.
pub const DEFAULT_IDLE: Duration = Duration::from_mins(10);

/// Who answers an emit ([`route`]).
#[derive(Debug)]
pub enum Route {
    /// A running engine did: its answer.
    Engine(HostReply),
    /// The caller answers it in-process; with `start_engine`, it then starts an engine
    /// in the background for the next emits ([`start_for_next_emits`]).
    InProcess {
        /// Whether to start an engine once the emit is answered.
        start_engine: bool,
    },
}

/// Hands the call to a running engine when there is one; else says that the emit runs
/// in the calling process: the engine is switched off (`HOOKRIG_ENGINE=off`), none
/// runs, it is another build, it failed, or the call cannot be sent.
///
/// With no `HOOKRIG_ENGINE`, a running engine is asked first and applies the user's
/// `[settings] engine` itself: the way to an engine reads no config file. The file is
/// read here only when no engine runs, to know whether to start one.
pub fn route(call: &EmitCall, stdin: &[u8]) -> Route {
    let from_env = Mode::from_env();
    let here = |why: &str, start_engine: bool| {
        tracing::debug!("emit runs in-process: {why}");
        Route::InProcess { start_engine }
    };
    if from_env == Some(Mode::Off) {
        return here("HOOKRIG_ENGINE=off", false);
    }
    let Some(socket) = crate::ingress::socket_path_from_env() else {
        return here("no directory for the engine's socket", false);
    };
    let Some(request) = EmitRequest::here(call, stdin) else {
        return here("its stdin or environment is not UTF-8", false);
    };
    match self::call(&socket, &request) {
        Ok(reply) => {
            tracing::debug!("emit answered by the engine at {}", socket.display());
            Route::Engine(reply)
        }
        Err(why @ Unavailable::NotRunning(_)) => {
            let mode = from_env
                .or_else(|| UserSettings::from_env().mode)
                .unwrap_or_default();
            here(&why.to_string(), mode == Mode::Auto)
        }
        Err(why) => here(&why.to_string(), false),
    }
}

/// Starts an engine in the background for the next emits (`HOOKRIG_ENGINE=auto`, the
/// default), with the idle time of `HOOKRIG_ENGINE_IDLE`, else the user's `[settings]
/// engine_idle`, else [`DEFAULT_IDLE`]; a failure to start is a debug line, never an
/// error of the emit that asked.
pub fn start_for_next_emits() {
    let Some(socket) = crate::ingress::socket_path_from_env() else {
        return;
    };
    let idle = std::env::var("HOOKRIG_ENGINE_IDLE")
        .ok()
        .and_then(|text| humantime::parse_duration(&text).ok())
        .or_else(|| UserSettings::from_env().idle)
        .unwrap_or(DEFAULT_IDLE);
    match start_in_background(&socket, idle) {
        Ok(()) => tracing::debug!("started an engine for the next emits"),
        Err(err) => tracing::debug!("cannot start an engine: {err}"),
    }
}

/// Starts `hookrig engine run` (this process's own program) in a session of its own,
/// its output appended to [`log_path`], and returns at once; `idle` of
/// [`Duration::MAX`] is never.
pub fn start_in_background(socket: &std::path::Path, idle: Duration) -> Result<(), String> {
    let program = std::env::current_exe().map_err(|err| format!("cannot find hookrig: {err}"))?;
    let log = log_path(socket);
    if let Some(dir) = log.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let stream = || {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .map_or(hookrig_exec::Stream::Null, hookrig_exec::Stream::File)
    };
    let idle = if idle == Duration::MAX {
        "0s".to_owned()
    } else {
        format!("{}s", idle.as_secs())
    };
    let cwd = std::env::temp_dir();
    hookrig_exec::Command::exec(program, ["engine", "run", "--idle", &idle], cwd)
        .spawn_detached(hookrig_exec::Detached {
            stdout: stream(),
            stderr: stream(),
            grouping: hookrig_exec::Grouping::Session,
        })
        .map(drop)
        .map_err(|err| err.to_string())
}

/// Where a background engine whose socket is `socket` writes what it says.
pub fn log_path(socket: &std::path::Path) -> PathBuf {
    socket.with_file_name("engine.log")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_text_has_a_line_per_figure_and_per_worker() {
        let status = Status {
            pid: 42,
            uptime_s: 61.4,
            build: "b1".to_owned(),
            answered: 7,
            in_flight: 1,
            idle_s: 2.0,
            workers: vec![hookrig_exec::worker::PoolStatus {
                hook: "gate".to_owned(),
                source: PathBuf::from("/p/hooks.toml"),
                agent: None,
                workers: vec![hookrig_exec::worker::WorkerState {
                    pid: None,
                    starts: 2,
                    failures: 1,
                    last_error: Some("timed out".to_owned()),
                    answered: 5,
                    busy: false,
                }],
            }],
            cache: crate::CacheStatus::default(),
            records_waiting: 0,
            batches_committed: 3,
        };
        let text = status.text(std::path::Path::new("/run/e.sock"));
        assert!(text.starts_with("pid        42\nuptime     61 s\nsocket     /run/e.sock\n"));
        assert!(text.contains("ledger     0 records waiting, 3 batches committed\n"));
        assert!(text.ends_with(
            "worker     gate (/p/hooks.toml): pid -, started 2, failed 1, answered 5; last error: timed out\n"
        ));
    }
}
