//! `POST /emit` against a running engine's HTTP front, from one warm process: the round
//! trip of one keep-alive client, and the throughput of many.
//!
//! Not a divan bench: it needs an engine started outside it (`scripts/bench-emit.sh`
//! starts one, with the hooks of each scenario, and passes its address here), and it
//! reports percentiles and rates rather than one time per call. Run without arguments
//! (as `cargo bench` does) it prints its usage and exits 0.
//!
//! ```text
//! http_emit latency    ADDR TOKEN_FILE BODY_FILE SAMPLES
//! http_emit throughput ADDR TOKEN_FILE BODY_FILE CLIENTS SECONDS
//! ```
//!
//! `ADDR` is `host:port` (or `baseline`: a minimal keep-alive HTTP server on a thread of
//! this process, which answers every request with a fixed 200 at once: the floor of a
//! loopback round trip through the same client code). Each request is
//! `POST /emit/tool.before` with the body of `BODY_FILE` and `Authorization: Bearer`
//! the first line of `TOKEN_FILE`; a request counts when it is answered 200 with
//! `X-Hookrig-Exit: 0`. One line of `key=value` pairs goes to stdout.
//!
//! The client is a few lines over `std::net::TcpStream` (`TCP_NODELAY`, one connection
//! per client, kept alive): no HTTP library, so that what is measured is the engine.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Requests sent before timing starts: the connection, the engine's caches and workers
/// warm up.
const WARMUP: usize = 200;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["latency", addr, token, body, samples] => {
            with_setup(addr, token, body, |target| latency(target, samples))
        }
        ["throughput", addr, token, body, clients, seconds] => {
            with_setup(addr, token, body, |target| {
                throughput(target, clients, seconds)
            })
        }
        _ => {
            eprintln!(
                "http_emit: needs an engine; scripts/bench-emit.sh runs it.\n  \
                 http_emit latency ADDR TOKEN_FILE BODY_FILE SAMPLES\n  \
                 http_emit throughput ADDR TOKEN_FILE BODY_FILE CLIENTS SECONDS"
            );
            Ok(())
        }
    };
    if let Err(err) = code {
        eprintln!("http_emit: {err}");
        std::process::exit(1);
    }
}

/// Where requests go and what they carry.
#[derive(Clone)]
struct Target {
    addr: String,
    request: Arc<Vec<u8>>,
}

fn with_setup(
    addr: &str,
    token: &str,
    body: &str,
    run: impl FnOnce(&Target) -> Result<(), String>,
) -> Result<(), String> {
    let read = |path: &str| std::fs::read(path).map_err(|err| format!("{path}: {err}"));
    let token = String::from_utf8_lossy(&read(token)?)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    let body = read(body)?;
    let addr = if addr == "baseline" {
        baseline_server()?
    } else {
        addr.to_owned()
    };
    let mut request = format!(
        "POST /emit/tool.before?dialect=native HTTP/1.1\r\nHost: {addr}\r\n\
         Authorization: Bearer {token}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(&body);
    run(&Target {
        addr,
        request: Arc::new(request),
    })
}

/// One keep-alive connection.
struct Client {
    stream: BufReader<TcpStream>,
    request: Arc<Vec<u8>>,
    body: Vec<u8>,
}

impl Client {
    fn connect(target: &Target) -> Result<Client, String> {
        let stream = TcpStream::connect(&target.addr)
            .map_err(|err| format!("connect {}: {err}", target.addr))?;
        stream.set_nodelay(true).map_err(|err| err.to_string())?;
        Ok(Client {
            stream: BufReader::new(stream),
            request: Arc::clone(&target.request),
            body: Vec::new(),
        })
    }

    /// Sends the request and reads the whole answer; `Ok(true)` for 200 with exit 0.
    fn emit(&mut self) -> Result<bool, String> {
        let io = |err: std::io::Error| err.to_string();
        self.stream.get_mut().write_all(&self.request).map_err(io)?;
        let mut line = String::new();
        self.stream.read_line(&mut line).map_err(io)?;
        let ok_status = line.split(' ').nth(1) == Some("200");
        let mut length = None;
        let mut exit_zero = false;
        loop {
            line.clear();
            if self.stream.read_line(&mut line).map_err(io)? == 0 {
                return Err("the connection closed mid-answer".to_owned());
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let Some((name, value)) = header.split_once(':') else {
                continue;
            };
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = value.parse::<usize>().ok();
            } else if name.eq_ignore_ascii_case("x-hookrig-exit") {
                exit_zero = value == "0";
            }
        }
        let length = length.ok_or("an answer without Content-Length")?;
        self.body.resize(length, 0);
        self.stream.read_exact(&mut self.body).map_err(io)?;
        Ok(ok_status && exit_zero)
    }
}

#[expect(
    clippy::cast_precision_loss,
    reason = "counts of requests stay far below 2^52"
)]
fn as_f64(count: usize) -> f64 {
    count as f64
}

fn parse<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{what}: not a number: {text}"))
}

/// Round trips of one client, one after another.
fn latency(target: &Target, samples: &str) -> Result<(), String> {
    let samples: usize = parse(samples, "SAMPLES")?;
    let mut client = Client::connect(target)?;
    let mut failed = 0_usize;
    for _ in 0..WARMUP {
        failed += usize::from(!client.emit()?);
    }
    let mut times = Vec::with_capacity(samples);
    let started = Instant::now();
    for _ in 0..samples {
        let at = Instant::now();
        failed += usize::from(!client.emit()?);
        times.push(at.elapsed());
    }
    let wall = started.elapsed();
    times.sort();
    let pick = |percent: usize| {
        // Nearest-rank percentile.
        let rank = (percent * times.len()).div_ceil(100);
        times[rank.clamp(1, times.len()) - 1].as_secs_f64() * 1e6
    };
    let mean = wall.as_secs_f64() * 1e6 / as_f64(samples.max(1));
    println!(
        "requests={} samples={samples} failed={failed} median_us={:.1} p95_us={:.1} \
         p99_us={:.1} mean_us={mean:.1} min_us={:.1}",
        samples + WARMUP,
        pick(50),
        pick(95),
        pick(99),
        pick(0),
    );
    Ok(())
}

/// Requests per second from `clients` keep-alive clients on threads of their own, each
/// sending its next request as soon as it has the answer to the last, for `seconds`.
fn throughput(target: &Target, clients: &str, seconds: &str) -> Result<(), String> {
    let clients: usize = parse(clients, "CLIENTS")?;
    let seconds: f64 = parse(seconds, "SECONDS")?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut connected = Vec::with_capacity(clients);
    for _ in 0..clients {
        let mut client = Client::connect(target)?;
        // One request each before timing: every connection is accepted and warm.
        client.emit()?;
        connected.push(client);
    }
    let started = Instant::now();
    let threads: Vec<_> = connected
        .into_iter()
        .map(|mut client| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || -> Result<(usize, usize), String> {
                let (mut ok, mut failed) = (0, 0);
                while !stop.load(Ordering::Relaxed) {
                    if client.emit()? {
                        ok += 1;
                    } else {
                        failed += 1;
                    }
                }
                Ok((ok, failed))
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs_f64(seconds));
    stop.store(true, Ordering::Relaxed);
    let (mut ok, mut failed) = (0, 0);
    for thread in threads {
        let (o, f) = thread.join().map_err(|_| "a client panicked")??;
        ok += o;
        failed += f;
    }
    // Every client finishes the request it had in flight: those count, over the time
    // until the last one came back.
    let wall = started.elapsed().as_secs_f64();
    println!(
        "clients={clients} requests={} ok={ok} failed={failed} seconds={wall:.3} per_s={:.0}",
        ok + failed + clients,
        as_f64(ok + failed) / wall,
    );
    Ok(())
}

/// Starts a keep-alive HTTP server on a loopback port that answers every request with
/// an empty 200 and `X-Hookrig-Exit: 0`, at once; returns its address.
fn baseline_server() -> Result<String, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|err| err.to_string())?;
    let addr = listener.local_addr().map_err(|err| err.to_string())?;
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let _ = answer_fixed(stream);
            });
        }
    });
    Ok(addr.to_string())
}

fn answer_fixed(stream: TcpStream) -> std::io::Result<()> {
    const ANSWER: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
        x-hookrig-exit: 0\r\ncontent-length: 0\r\n\r\n";
    stream.set_nodelay(true)?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    let mut body = Vec::new();
    loop {
        let mut length = 0;
        loop {
            line.clear();
            if reader.read_line(&mut line)? == 0 {
                return Ok(());
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
        writer.write_all(ANSWER)?;
    }
}
