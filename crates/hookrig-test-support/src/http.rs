//! A loopback HTTP/1.1 server for tests of HTTP hooks, webhooks, notifiers, LLM
//! providers and `http` steps.
//!
//! [`HttpStub`] listens on `127.0.0.1:0` (a free port the kernel picks), reads each
//! request (request line, headers, a body of `Content-Length` bytes), records it, and
//! answers with the [`Reply`] its handler returns, after the reply's delay. Every answer
//! closes the connection. Each connection is served on its own thread, so the stub works
//! the same from plain tests and from any Tokio runtime, and a slow reply does not hold up
//! the next request. Nothing leaves loopback.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// One request as the stub received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `POST`, and so on.
    pub method: String,
    /// The request target as sent: the path with its query string.
    pub path: String,
    /// Header names lowercased; of a repeated header, the last value.
    pub headers: HashMap<String, String>,
    /// The `Content-Length` bytes after the headers.
    pub body: Vec<u8>,
}

impl Request {
    /// The value of the header `name` (lowercase).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    /// The body as UTF-8 text.
    ///
    /// # Panics
    ///
    /// When the body is not UTF-8.
    #[must_use]
    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).expect("a UTF-8 request body")
    }

    /// The body parsed as JSON.
    ///
    /// # Panics
    ///
    /// When the body is not JSON.
    #[must_use]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("a JSON request body")
    }
}

/// What the stub answers to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The status code; the reason phrase is the usual one for it.
    pub status: u16,
    /// Sent with a `content-length`.
    pub body: Vec<u8>,
    /// How long to wait after reading the request before answering.
    pub delay: Duration,
    /// The `content-type` header, when there is one.
    pub content_type: Option<String>,
}

impl Reply {
    /// `status` with `body`, at once, without a `content-type`.
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            body: body.into(),
            delay: Duration::ZERO,
            content_type: None,
        }
    }

    /// `status` with `body` as `application/json`.
    pub fn json(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self {
            content_type: Some("application/json".to_owned()),
            ..Self::new(status, body)
        }
    }

    /// This reply, sent only after `delay`.
    #[must_use]
    pub fn after(self, delay: Duration) -> Self {
        Self { delay, ..self }
    }

    /// `404 Not Found` with an empty body: what [`HttpStub::routes`] answers on a path it
    /// does not know.
    #[must_use]
    pub fn not_found() -> Self {
        Self::new(404, Vec::new())
    }
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// A loopback HTTP server that records what it receives; it stops when dropped.
pub struct HttpStub {
    url: String,
    address: SocketAddr,
    received: Arc<Mutex<Vec<Request>>>,
    stopped: Arc<AtomicBool>,
}

impl HttpStub {
    /// A stub answering each request with `answer(request)`.
    ///
    /// # Panics
    ///
    /// When no port of 127.0.0.1 can be bound.
    pub fn start(answer: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let address = listener.local_addr().expect("the stub's address");
        let received = Arc::new(Mutex::new(Vec::new()));
        let stopped = Arc::new(AtomicBool::new(false));
        let answer: Arc<Handler> = Arc::new(answer);
        {
            let received = Arc::clone(&received);
            let stopped = Arc::clone(&stopped);
            thread::spawn(move || {
                for stream in listener.incoming() {
                    if stopped.load(Ordering::SeqCst) {
                        return;
                    }
                    let Ok(stream) = stream else { continue };
                    let received = Arc::clone(&received);
                    let answer = Arc::clone(&answer);
                    thread::spawn(move || serve(stream, &*answer, &received));
                }
            });
        }
        Self {
            url: format!("http://{address}"),
            address,
            received,
            stopped,
        }
    }

    /// A stub answering every request with `reply`.
    #[must_use]
    pub fn replying(reply: Reply) -> Self {
        Self::start(move |_| reply.clone())
    }

    /// A stub answering on each path (with its query string) the reply given for it, and
    /// [`Reply::not_found`] elsewhere.
    pub fn routes<'a>(routes: impl IntoIterator<Item = (&'a str, Reply)>) -> Self {
        let routes: HashMap<String, Reply> = routes
            .into_iter()
            .map(|(path, reply)| (path.to_owned(), reply))
            .collect();
        Self::start(move |request| {
            routes
                .get(&request.path)
                .cloned()
                .unwrap_or_else(Reply::not_found)
        })
    }

    /// The base URL, `http://127.0.0.1:PORT`, without a trailing slash.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The requests received so far, in the order they were read.
    #[must_use]
    pub fn requests(&self) -> Vec<Request> {
        self.received
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How many requests were received so far.
    #[must_use]
    pub fn count(&self) -> usize {
        self.received
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Waits up to `within` for `n` requests to have arrived and returns those received
    /// then. This blocks the thread: from a single-threaded async test, poll
    /// [`count`](Self::count) between the runtime's own sleeps instead.
    #[must_use]
    pub fn wait_for(&self, n: usize, within: Duration) -> Vec<Request> {
        let deadline = Instant::now() + within;
        while self.count() < n && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(10));
        }
        self.requests()
    }
}

impl Drop for HttpStub {
    /// Stops accepting: the flag is set, then one connection wakes the accepting thread.
    fn drop(&mut self) {
        self.stopped.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.address);
    }
}

/// An `http://127.0.0.1:PORT` URL on which nothing listens: the port was free a moment
/// ago, so connecting to it is refused.
///
/// # Panics
///
/// When no port of 127.0.0.1 can be bound.
#[must_use]
pub fn refused_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("an address");
    drop(listener);
    format!("http://{address}")
}

fn serve(stream: TcpStream, answer: &Handler, received: &Mutex<Vec<Request>>) {
    let Some(request) = read_request(&stream) else {
        return;
    };
    let reply = answer(&request);
    received
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(request);
    thread::sleep(reply.delay);
    let mut head = format!(
        "HTTP/1.1 {} {}\r\ncontent-length: {}\r\nconnection: close\r\n",
        reply.status,
        reason(reply.status),
        reply.body.len()
    );
    if let Some(content_type) = &reply.content_type {
        let _ = write!(head, "content-type: {content_type}\r\n");
    }
    head.push_str("\r\n");
    let mut stream = stream;
    // The client may have given up (a timeout test): nothing to do then.
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&reply.body);
    let _ = stream.flush();
}

/// Reads one request; `None` when the client closed the connection before sending all
/// of it.
fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut words = line.split_whitespace();
    let method = words.next().unwrap_or_default().to_owned();
    let path = words.next().unwrap_or_default().to_owned();
    let mut headers = HashMap::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
        }
    }
    let length = headers
        .get("content-length")
        .and_then(|length| length.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Stub",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send(url: &str, raw: &str) -> String {
        let address = url.strip_prefix("http://").expect("an http URL");
        let mut stream = TcpStream::connect(address).expect("connect");
        stream.write_all(raw.as_bytes()).expect("send");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("read the answer");
        answer
    }

    #[test]
    fn records_the_request_and_answers_the_route() {
        let stub = HttpStub::routes([("/hook?x=1", Reply::json(201, "{}"))]);
        let answer = send(
            stub.url(),
            "POST /hook?x=1 HTTP/1.1\r\nHost: a\r\nX-Token: t\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
        );
        assert!(answer.starts_with("HTTP/1.1 201 Created\r\n"), "{answer}");
        assert!(
            answer.contains("content-type: application/json\r\n"),
            "{answer}"
        );
        assert!(answer.ends_with("\r\n\r\n{}"), "{answer}");
        let [request] = stub
            .wait_for(1, Duration::from_secs(5))
            .try_into()
            .expect("one");
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, "/hook?x=1");
        assert_eq!(request.header("x-token"), Some("t"));
        assert_eq!(request.json(), serde_json::json!({"a": 1}));
    }

    #[test]
    fn unknown_paths_are_not_found() {
        let stub = HttpStub::routes([]);
        let answer = send(stub.url(), "GET /nope HTTP/1.1\r\n\r\n");
        assert!(answer.starts_with("HTTP/1.1 404 Not Found\r\n"), "{answer}");
        assert_eq!(stub.count(), 1);
    }

    #[test]
    fn refused_url_refuses() {
        let url = refused_url();
        let address = url.strip_prefix("http://").expect("an http URL");
        assert!(TcpStream::connect(address).is_err());
    }
}
