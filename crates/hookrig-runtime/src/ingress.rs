//! The local ingress of `hookrig serve`: a Unix socket through which `hookrig emit`
//! hands events to the automation engine and `hookrig fire` asks for a run.
//!
//! The socket is `$XDG_RUNTIME_DIR/hookrig/serve.sock`, or
//! `$XDG_STATE_HOME/hookrig/serve.sock` when `XDG_RUNTIME_DIR` is unset; its directory
//! has mode 0700, so only its user can connect. The protocol is one JSON object per line:
//!
//! | request | answer |
//! |---|---|
//! | `{"type":"event","event_type":"task.completed","id":"…","payload":{…}}` | none (the client has gone) |
//! | `{"type":"fire","id":"nightly"}` | the run record, or `{"error":"…"}` |
//! | `{"type":"ping"}` | `{"pong":true}` |
//!
//! An event's `id` is optional: a client that delivers one event to several serve nodes
//! of one shared store gives it the same id on each, so that it starts one run of each
//! automation (docs/postgres.md); at most [`MAX_EVENT_ID`] bytes. A malformed request is
//! answered `{"error":"…"}`. A connection may carry several
//! requests; each line is at most [`MAX_LINE`] bytes, and a connection idle for
//! [`IDLE_TIMEOUT`] is closed.

use std::os::unix::fs::{DirBuilderExt as _, FileTypeExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::timeout;

use crate::engine::Engine;

/// The socket's file name.
pub const SOCKET_NAME: &str = "serve.sock";
/// The longest request line accepted.
pub const MAX_LINE: u64 = 4 * 1024 * 1024;
/// The longest event id accepted.
pub const MAX_EVENT_ID: usize = 256;
/// How long a connection may stay silent before the server closes it.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long `deliver_event` may take to connect and to write: emit must not wait on a
/// serve that is stuck.
pub const DELIVER_TIMEOUT: Duration = Duration::from_millis(100);

/// A request for the engine, as the server hands it on.
#[derive(Debug)]
pub enum Request {
    /// An event happened: event triggers may fire.
    Event {
        /// The event type (canonical name), e.g. `task.completed`.
        event_type: String,
        /// The event's id, when its client gave one: the same on every node it was
        /// delivered to.
        id: Option<String>,
        /// The event's payload (a JSON object).
        payload: Value,
    },
    /// Stop serving (`hookrig engine stop`).
    Stop,
    /// Run an automation now; answer with its run record or an error message.
    Fire {
        /// The automation's id.
        id: String,
        /// Where the answer goes.
        reply: oneshot::Sender<Result<Value, String>>,
    },
}

/// The wire form of a request.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Wire<P> {
    Event {
        event_type: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        #[serde(default)]
        payload: Option<P>,
    },
    Fire {
        id: String,
    },
    Ping,
    /// A client about to hand over an emit: answered at once, so that the client knows
    /// an engine is there before it waits for an answer that may take long.
    Hello,
    Emit(Box<crate::engine::EmitRequest>),
    /// What the engine is doing (`hookrig engine status`).
    Status,
    /// Stop serving (`hookrig engine stop`).
    Stop,
}

/// What went wrong on either side of the socket.
#[derive(Debug, thiserror::Error)]
pub enum IngressError {
    /// Another serve answers on the socket.
    #[error("hookrig serve is already running (socket {})", path.display())]
    AlreadyRunning {
        /// The socket.
        path: PathBuf,
    },
    /// Something that is not a socket is where the socket should be.
    #[error("{} exists and is not a socket", path.display())]
    NotASocket {
        /// The path.
        path: PathBuf,
    },
    /// No serve listens on the socket (missing, stale, or refusing).
    #[error("no hookrig serve is listening on {}", path.display())]
    NotRunning {
        /// The socket.
        path: PathBuf,
        /// What `connect` said.
        #[source]
        source: std::io::Error,
    },
    /// A file-system or socket operation failed.
    #[error("cannot {action} {}", path.display())]
    Io {
        /// What was being done: `create`, `bind`, `remove`, `read from`, `write to`.
        action: &'static str,
        /// The socket or its directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The other side took too long.
    #[error("no answer from {} within {}", path.display(), millis(*after))]
    Timeout {
        /// The socket.
        path: PathBuf,
        /// The limit.
        after: Duration,
    },
    /// The answer was not what the protocol says.
    #[error("malformed answer from {}: {message}", path.display())]
    Protocol {
        /// The socket.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// The server answered `{"error": …}`.
    #[error("{0}")]
    Remote(String),
}

fn millis(d: Duration) -> String {
    format!("{} ms", d.as_millis())
}

/// Where the socket lives: under `runtime_dir` (`$XDG_RUNTIME_DIR`) when it is set and
/// absolute, else under `state_home` (`$XDG_STATE_HOME`).
pub fn socket_path(runtime_dir: Option<&Path>, state_home: &Path) -> PathBuf {
    runtime_dir
        .filter(|dir| dir.is_absolute())
        .unwrap_or(state_home)
        .join("hookrig")
        .join(SOCKET_NAME)
}

/// [`socket_path`] from the process environment (`XDG_RUNTIME_DIR`, `XDG_STATE_HOME`,
/// `HOME`); `None` when none of them is usable.
pub fn socket_path_from_env() -> Option<PathBuf> {
    let var = |name| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let state_home = var("XDG_STATE_HOME")
        .or_else(|| var("HOME").map(|home| home.join(".local").join("state")))?;
    Some(socket_path(var("XDG_RUNTIME_DIR").as_deref(), &state_home))
}

/// The listening side, owned by `hookrig serve`. Dropping it stops accepting and removes
/// the socket file.
#[derive(Debug)]
pub struct Ingress {
    path: PathBuf,
    task: JoinHandle<()>,
}

impl Ingress {
    /// Binds the socket at `path` (creating its directory with mode 0700) and starts
    /// accepting; requests arrive on the returned receiver. Refuses when another serve
    /// answers on `path`; a stale socket file (nobody listening) is removed first.
    pub async fn bind(path: &Path) -> Result<(Self, mpsc::Receiver<Request>), IngressError> {
        Self::bind_engine(path, None).await
    }

    /// [`Ingress::bind`], answering the emits clients hand over with `engine`; without
    /// one, such a request is refused and the client emits in-process.
    pub async fn bind_engine(
        path: &Path,
        engine: Option<Arc<Engine>>,
    ) -> Result<(Self, mpsc::Receiver<Request>), IngressError> {
        if let Some(dir) = path.parent() {
            prepare_dir(dir)?;
        }
        match std::fs::symlink_metadata(path) {
            Ok(meta) if !meta.file_type().is_socket() => {
                return Err(IngressError::NotASocket {
                    path: path.to_owned(),
                });
            }
            Ok(_) => {
                if matches!(
                    timeout(Duration::from_secs(1), UnixStream::connect(path)).await,
                    Ok(Ok(_))
                ) {
                    return Err(IngressError::AlreadyRunning {
                        path: path.to_owned(),
                    });
                }
                // Left behind by a serve that did not shut down cleanly.
                std::fs::remove_file(path).map_err(|source| IngressError::Io {
                    action: "remove",
                    path: path.to_owned(),
                    source,
                })?;
            }
            Err(_) => {}
        }
        let listener = UnixListener::bind(path).map_err(|source| IngressError::Io {
            action: "bind",
            path: path.to_owned(),
            source,
        })?;
        let (tx, rx) = mpsc::channel(256);
        if let Some(engine) = &engine {
            engine.deliver_to(tx.clone());
        }
        let task = tokio::spawn(accept(listener, tx, engine));
        Ok((
            Self {
                path: path.to_owned(),
                task,
            },
            rx,
        ))
    }

    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Ingress {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Creates the socket's directory (mode 0700) or tightens an existing one to 0700.
fn prepare_dir(dir: &Path) -> Result<(), IngressError> {
    let io = |source| IngressError::Io {
        action: "create",
        path: dir.to_owned(),
        source,
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(io)
}

async fn accept(
    listener: UnixListener,
    requests: mpsc::Sender<Request>,
    engine: Option<Arc<Engine>>,
) {
    let me = nix::unistd::geteuid().as_raw();
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                // The directory's mode keeps other users out; the peer's credentials are
                // checked too, so that a socket reached another way (a loosened
                // directory, a passed descriptor) still serves its own user only.
                match stream.peer_cred() {
                    Ok(peer) if admits(peer.uid(), me) => {
                        tokio::spawn(serve_connection(stream, requests.clone(), engine.clone()));
                    }
                    Ok(peer) => {
                        tracing::warn!(
                            "ingress: refused a connection of user {} (serving user {me})",
                            peer.uid()
                        );
                    }
                    Err(err) => tracing::warn!("ingress: cannot tell who connected: {err}"),
                }
            }
            Err(err) => {
                // EMFILE and the like: wait a little rather than spin.
                tracing::warn!("ingress: accept failed: {err}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Whether a peer of user `peer` may use the socket of a server running as `me`: only
/// the same user (root included: a root client is refused by a user's engine, whose
/// hooks would otherwise run with root's environment).
fn admits(peer: u32, me: u32) -> bool {
    peer == me
}

async fn serve_connection(
    stream: UnixStream,
    requests: mpsc::Sender<Request>,
    engine: Option<Arc<Engine>>,
) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = timeout(
            IDLE_TIMEOUT,
            (&mut reader)
                .take(MAX_LINE + 1)
                .read_until(b'\n', &mut line),
        )
        .await;
        match read {
            Ok(Ok(0) | Err(_)) | Err(_) => return,
            Ok(Ok(_)) => {}
        }
        if line.len() as u64 > MAX_LINE {
            let _ = answer(
                &mut write,
                &json!({"error": format!("request longer than {MAX_LINE} bytes")}),
            )
            .await;
            return;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let reply = match serde_json::from_slice::<Wire<Value>>(&line) {
            Err(err) => Some(json!({"error": format!("malformed request: {err}")})),
            Ok(Wire::Ping) => Some(json!({"pong": true})),
            Ok(Wire::Hello) => Some(json!({"engine": engine.is_some()})),
            Ok(Wire::Status) => Some(match &engine {
                Some(engine) => {
                    serde_json::to_value(engine.status()).expect("JSON always serializes")
                }
                None => json!({"error": "this hookrig serve does not answer emits"}),
            }),
            Ok(Wire::Stop) => {
                let stopping = requests.send(Request::Stop).await.is_ok();
                Some(json!({"stopping": stopping}))
            }
            Ok(Wire::Event { id: Some(id), .. }) if id.is_empty() || id.len() > MAX_EVENT_ID => {
                Some(json!({"error": format!(
                    "malformed request: an event's `id` must be 1 to {MAX_EVENT_ID} bytes long"
                )}))
            }
            Ok(Wire::Event {
                event_type,
                id,
                payload,
            }) => match payload.unwrap_or_else(|| json!({})) {
                payload @ Value::Object(_) => {
                    if requests
                        .send(Request::Event {
                            event_type,
                            id,
                            payload,
                        })
                        .await
                        .is_err()
                    {
                        return;
                    }
                    None
                }
                _ => Some(json!({"error": "malformed request: payload must be a JSON object"})),
            },
            Ok(Wire::Emit(request)) => Some(match &engine {
                Some(engine) => serde_json::to_value(engine.emit(*request).await)
                    .expect("JSON always serializes"),
                None => json!({"refused": "this hookrig serve does not answer emits"}),
            }),
            Ok(Wire::Fire { id }) => {
                let (reply, answer) = oneshot::channel();
                let record = if requests.send(Request::Fire { id, reply }).await.is_ok() {
                    answer.await.ok()
                } else {
                    None
                };
                Some(match record {
                    Some(Ok(record)) => record,
                    Some(Err(message)) => json!({"error": message}),
                    None => json!({"error": "hookrig serve is shutting down"}),
                })
            }
        };
        if let Some(reply) = reply
            && answer(&mut write, &reply).await.is_err()
        {
            return;
        }
    }
}

async fn answer(
    write: &mut tokio::net::unix::OwnedWriteHalf,
    reply: &Value,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(reply).expect("JSON always serializes");
    bytes.push(b'\n');
    write.write_all(&bytes).await
}

/// Connects to the socket within `limit`.
async fn connect(path: &Path, limit: Duration) -> Result<UnixStream, IngressError> {
    match timeout(limit, UnixStream::connect(path)).await {
        Ok(Ok(stream)) => Ok(stream),
        Ok(Err(source)) => Err(IngressError::NotRunning {
            path: path.to_owned(),
            source,
        }),
        Err(_) => Err(IngressError::Timeout {
            path: path.to_owned(),
            after: limit,
        }),
    }
}

async fn send_line(
    stream: &mut UnixStream,
    path: &Path,
    request: &impl Serialize,
    limit: Duration,
) -> Result<(), IngressError> {
    let mut bytes = serde_json::to_vec(request).expect("JSON always serializes");
    bytes.push(b'\n');
    match timeout(limit, stream.write_all(&bytes)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(source)) => Err(IngressError::Io {
            action: "write to",
            path: path.to_owned(),
            source,
        }),
        Err(_) => Err(IngressError::Timeout {
            path: path.to_owned(),
            after: limit,
        }),
    }
}

/// Hands an event to a running serve and returns without waiting for anything but the
/// write: at most [`DELIVER_TIMEOUT`] for the connect and as much for the write. With no
/// serve running this is one failed `connect` ([`IngressError::NotRunning`]).
pub async fn deliver_event<P: Serialize + ?Sized>(
    path: &Path,
    event_type: &str,
    payload: &P,
) -> Result<(), IngressError> {
    let mut stream = connect(path, DELIVER_TIMEOUT).await?;
    let request = Wire::Event {
        event_type: event_type.to_owned(),
        id: None,
        payload: Some(payload),
    };
    send_line(&mut stream, path, &request, DELIVER_TIMEOUT).await?;
    let _ = stream.shutdown().await;
    Ok(())
}

/// Hands an emitted event to a running serve, so that its event automations fire.
/// The emit neither waits on the automations nor fails because of the ingress: with no
/// serve running this is one failed `connect`, and any other problem is a debug line.
/// Called once the host has its answer, so the host is never held up by it.
pub(crate) fn deliver_quietly(runtime: &tokio::runtime::Runtime, event: &str, payload_json: &str) {
    let Some(path) = socket_path_from_env() else {
        return;
    };
    let Ok(payload) = serde_json::from_str::<&serde_json::value::RawValue>(payload_json) else {
        return;
    };
    match runtime.block_on(deliver_event(&path, event, payload)) {
        Ok(()) => tracing::debug!("delivered {event} to hookrig serve ({})", path.display()),
        Err(IngressError::NotRunning { .. }) => {}
        Err(err) => tracing::debug!("not delivered to hookrig serve: {err}"),
    }
}

/// Asks a running serve to fire automation `id` and waits (at most `limit`) for the run
/// record. `{"error": …}` answers are [`IngressError::Remote`] with the server's message
/// (`Hook 'x' not found`, `Hook 'x' is already running`).
pub async fn fire(path: &Path, id: &str, limit: Duration) -> Result<Value, IngressError> {
    let request: Wire<Value> = Wire::Fire { id: id.to_owned() };
    request_reply(path, &request, limit)
        .await
        .and_then(|reply| match reply.get("error").and_then(Value::as_str) {
            Some(message) if reply.as_object().is_some_and(|o| o.len() == 1) => {
                Err(IngressError::Remote(message.to_owned()))
            }
            _ => Ok(reply),
        })
}

/// Whether a serve answers on the socket (within `limit`).
pub async fn ping(path: &Path, limit: Duration) -> Result<(), IngressError> {
    let reply = request_reply(path, &Wire::<Value>::Ping, limit).await?;
    if reply == json!({"pong": true}) {
        Ok(())
    } else {
        Err(IngressError::Protocol {
            path: path.to_owned(),
            message: reply.to_string(),
        })
    }
}

async fn request_reply(
    path: &Path,
    request: &Wire<Value>,
    limit: Duration,
) -> Result<Value, IngressError> {
    let exchange = async {
        let mut stream = connect(path, limit).await?;
        send_line(&mut stream, path, request, limit).await?;
        let mut line = Vec::new();
        let mut reader = BufReader::new(&mut stream).take(MAX_LINE);
        reader
            .read_until(b'\n', &mut line)
            .await
            .map_err(|source| IngressError::Io {
                action: "read from",
                path: path.to_owned(),
                source,
            })?;
        serde_json::from_slice::<Value>(&line).map_err(|err| IngressError::Protocol {
            path: path.to_owned(),
            message: if line.is_empty() {
                "the connection closed without an answer".to_owned()
            } else {
                err.to_string()
            },
        })
    };
    timeout(limit, exchange).await.unwrap_or_else(|_| {
        Err(IngressError::Timeout {
            path: path.to_owned(),
            after: limit,
        })
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use tempfile::TempDir;

    use super::*;

    #[test]
    fn only_the_servers_own_user_is_admitted() {
        // guards: another user's process reaching the socket (a loosened directory,
        // a passed descriptor) is refused, whoever the two are
        assert!(admits(1000, 1000));
        assert!(!admits(1001, 1000));
        assert!(!admits(0, 1000), "root is another user");
        assert!(!admits(1000, 0), "a root engine serves root only");
    }

    const LIMIT: Duration = Duration::from_secs(5);

    fn socket() -> (TempDir, PathBuf) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("run").join("hookrig").join(SOCKET_NAME);
        (tmp, path)
    }

    /// A stand-in engine: answers fires of `known` with a record, others with the
    /// not-found error, and reports events on the returned channel.
    fn engine(
        mut rx: mpsc::Receiver<Request>,
    ) -> mpsc::UnboundedReceiver<(String, Option<String>, Value)> {
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(request) = rx.recv().await {
                match request {
                    Request::Event {
                        event_type,
                        id,
                        payload,
                    } => {
                        let _ = events_tx.send((event_type, id, payload));
                    }
                    Request::Fire { id, reply } => {
                        let answer = if id == "known" {
                            Ok(json!({"id": "run-1", "hook_id": id, "status": "completed"}))
                        } else {
                            Err(format!("Hook '{id}' not found"))
                        };
                        let _ = reply.send(answer);
                    }
                    Request::Stop => return,
                }
            }
        });
        events_rx
    }

    async fn raw_exchange(path: &Path, line: &str) -> String {
        let mut stream = UnixStream::connect(path).await.expect("connect");
        stream.write_all(line.as_bytes()).await.expect("write");
        let mut reply = String::new();
        BufReader::new(stream)
            .read_line(&mut reply)
            .await
            .expect("read");
        reply
    }

    #[tokio::test]
    async fn round_trips_over_a_real_socket() {
        let (_tmp, path) = socket();
        let (ingress, rx) = Ingress::bind(&path).await.expect("bind");
        assert_eq!(ingress.path(), path);
        let mut events = engine(rx);

        ping(&path, LIMIT).await.expect("pong");

        let payload = json!({"task_id": "t1", "project_id": "p", "title": "x", "status": "done"});
        deliver_event(&path, "task.completed", &payload)
            .await
            .expect("delivered");
        let (event_type, id, got) = timeout(LIMIT, events.recv())
            .await
            .expect("in time")
            .expect("event");
        assert_eq!(event_type, "task.completed");
        assert_eq!(id, None);
        assert_eq!(got, payload);

        // An event delivered to several nodes keeps the id its client gave it.
        let mut stream = UnixStream::connect(&path).await.expect("connect");
        stream
            .write_all(b"{\"type\":\"event\",\"event_type\":\"x\",\"id\":\"e-1\"}\n")
            .await
            .expect("write");
        stream.shutdown().await.expect("shut down");
        let (_, id, _) = timeout(LIMIT, events.recv())
            .await
            .expect("in time")
            .expect("event");
        assert_eq!(id.as_deref(), Some("e-1"));

        let record = fire(&path, "known", LIMIT).await.expect("record");
        assert_eq!(
            record,
            json!({"id": "run-1", "hook_id": "known", "status": "completed"})
        );
        let err = fire(&path, "nope", LIMIT).await.expect_err("unknown");
        assert_eq!(err.to_string(), "Hook 'nope' not found");

        // The socket's directory is private to its user.
        let mode = std::fs::metadata(path.parent().expect("dir"))
            .expect("stat")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700);

        // Dropping the ingress removes the socket.
        drop(ingress);
        assert!(!path.exists());
    }

    #[tokio::test]
    async fn exact_wire_lines() {
        let (_tmp, path) = socket();
        let (_ingress, rx) = Ingress::bind(&path).await.expect("bind");
        let _events = engine(rx);
        assert_eq!(
            raw_exchange(&path, "{\"type\":\"ping\"}\n").await,
            "{\"pong\":true}\n"
        );
        assert_eq!(
            raw_exchange(&path, "{\"type\":\"fire\",\"id\":\"nope\"}\n").await,
            "{\"error\":\"Hook 'nope' not found\"}\n"
        );
        assert_eq!(
            raw_exchange(&path, "{\"type\":\"fire\",\"id\":\"known\"}\n").await,
            "{\"id\":\"run-1\",\"hook_id\":\"known\",\"status\":\"completed\"}\n"
        );
        let reply = raw_exchange(&path, "not json\n").await;
        assert!(
            reply.starts_with("{\"error\":\"malformed request: "),
            "{reply}"
        );
        let reply = raw_exchange(&path, "{\"type\":\"launch\"}\n").await;
        assert!(
            reply.starts_with("{\"error\":\"malformed request: unknown variant `launch`"),
            "{reply}"
        );
        assert_eq!(
            raw_exchange(
                &path,
                "{\"type\":\"event\",\"event_type\":\"x\",\"payload\":[1]}\n"
            )
            .await,
            "{\"error\":\"malformed request: payload must be a JSON object\"}\n"
        );
        assert_eq!(
            raw_exchange(
                &path,
                "{\"type\":\"event\",\"event_type\":\"x\",\"id\":\"\"}\n"
            )
            .await,
            "{\"error\":\"malformed request: an event's `id` must be 1 to 256 bytes long\"}\n"
        );
        // Several requests on one connection, blank lines skipped.
        assert_eq!(
            raw_exchange(
                &path,
                "\n{\"type\":\"event\",\"event_type\":\"x\"}\n{\"type\":\"ping\"}\n"
            )
            .await,
            "{\"pong\":true}\n"
        );
    }

    #[tokio::test]
    async fn refuses_to_start_beside_a_running_serve() {
        let (_tmp, path) = socket();
        let (_first, _rx) = Ingress::bind(&path).await.expect("bind");
        let err = Ingress::bind(&path).await.expect_err("second serve");
        assert_eq!(
            err.to_string(),
            format!(
                "hookrig serve is already running (socket {})",
                path.display()
            )
        );
        // The first one still works.
        ping(&path, LIMIT).await.expect("pong");
    }

    #[tokio::test]
    async fn removes_a_stale_socket() {
        let (_tmp, path) = socket();
        std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
        drop(std::os::unix::net::UnixListener::bind(&path).expect("bind"));
        assert!(path.exists(), "a crashed serve leaves its socket file");
        let err = deliver_event(&path, "x", &json!({}))
            .await
            .expect_err("stale");
        assert!(matches!(err, IngressError::NotRunning { .. }), "{err:?}");

        let (_ingress, rx) = Ingress::bind(&path)
            .await
            .expect("bind over a stale socket");
        let mut events = engine(rx);
        deliver_event(&path, "x", &json!({"a": 1}))
            .await
            .expect("delivered");
        assert_eq!(events.recv().await.expect("event").2, json!({"a": 1}));
    }

    #[tokio::test]
    async fn refuses_a_file_that_is_not_a_socket() {
        let (_tmp, path) = socket();
        std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
        std::fs::write(&path, "data").expect("write");
        let err = Ingress::bind(&path).await.expect_err("not a socket");
        assert_eq!(
            err.to_string(),
            format!("{} exists and is not a socket", path.display())
        );
        assert_eq!(std::fs::read_to_string(&path).expect("kept"), "data");
    }

    #[tokio::test]
    async fn without_a_serve_clients_fail_fast() {
        let (_tmp, path) = socket();
        let err = deliver_event(&path, "x", &json!({}))
            .await
            .expect_err("no serve");
        assert_eq!(
            err.to_string(),
            format!("no hookrig serve is listening on {}", path.display())
        );
        assert!(matches!(
            fire(&path, "x", LIMIT).await,
            Err(IngressError::NotRunning { .. })
        ));
    }

    #[tokio::test]
    async fn fire_while_shutting_down() {
        let (_tmp, path) = socket();
        let (_ingress, rx) = Ingress::bind(&path).await.expect("bind");
        drop(rx);
        let err = fire(&path, "known", LIMIT).await.expect_err("no engine");
        assert_eq!(err.to_string(), "hookrig serve is shutting down");
    }

    #[tokio::test]
    async fn fire_times_out_on_a_silent_server() {
        let (_tmp, path) = socket();
        let (_ingress, _rx) = Ingress::bind(&path).await.expect("bind");
        // Nobody reads the requests: the fire is never answered.
        let err = fire(&path, "known", Duration::from_millis(200))
            .await
            .expect_err("timeout");
        assert_eq!(
            err.to_string(),
            format!("no answer from {} within 200 ms", path.display())
        );
    }

    #[test]
    fn socket_path_prefers_the_runtime_dir() {
        let state = Path::new("/home/u/.local/state");
        assert_eq!(
            socket_path(Some(Path::new("/run/user/1000")), state),
            Path::new("/run/user/1000/hookrig/serve.sock")
        );
        assert_eq!(
            socket_path(None, state),
            Path::new("/home/u/.local/state/hookrig/serve.sock")
        );
        assert_eq!(
            socket_path(Some(Path::new("relative")), state),
            Path::new("/home/u/.local/state/hookrig/serve.sock")
        );
    }
}
