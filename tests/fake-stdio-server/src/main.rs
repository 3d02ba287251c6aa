//! `fake-stdio-server`: a scriptable MCP server over stdio, for the
//! `mcp-transport-stdio` integration tests (cases B05–B26 of the shared
//! catalogue). std + serde_json only.
//!
//! # Start-up flags (run before stdin is read, in this order)
//! - `--pid-file FILE`: append this process's pid and `\n` to FILE.
//! - `--record FILE`: append every raw line read from stdin (with its `\n`)
//!   to FILE, flushed per line, so a test can assert what the client sent.
//! - `--stderr-flood`: write 1 MiB to stderr with blocking writes (1000 lines
//!   of 1 KiB, then 64 KiB of `\r` progress updates without a newline) — B17.
//! - `--grandchild FILE`: spawn a grandchild (this binary again, under
//!   `sh -c "trap '' TERM; exec …"`, so it ignores SIGTERM and stdin EOF) that
//!   inherits stdout/stderr and writes its pid to FILE; waits for FILE.
//! - `--startup JSON`: run a JSON array of steps (see below) before serving.
//! - `--ignore-eof`: on stdin EOF, sleep forever instead of exiting.
//! - `--crlf`: end every built-in response with `\r\n`.
//! - `--relay HOST:PORT`: serve nothing itself: connect to a TCP listener
//!   (the test's, on 127.0.0.1) and copy stdin to it and it to stdout,
//!   byte for byte, exiting when either side ends, so a test plays the
//!   server over the socket (the transport kit's peer).
//!
//! # Requests (method → behaviour); `<ID>` is the request id's raw JSON
//! - `initialize` → `INIT(<ID>)` (protocolVersion 2025-06-18); `tools/list`
//!   → `TOOLS(<ID>)`; `ping` → `{}`; `echo` → `{"echo": params}`;
//!   `env` → `{"value": $params.name or null}`.
//! - `hold` → no answer yet; `release` → answers every held request in
//!   reverse order (`{"held": params}`), then itself (`{"released": n}`).
//! - `script` → runs `params.steps` on a thread of its own.
//! - anything else → `-32601`. Notifications and responses are ignored.
//!
//! # Steps
//! `{"write": TEXT}` (with `<ID>` and `<TOKEN>` — the request's
//! `params._meta.progressToken` raw JSON — replaced), `{"bytes": [u8…]}`,
//! `{"repeat": {"text": T, "count": N, "chunk": C}}` (T×N written in C-byte
//! flushed pieces), `{"sleep_ms": N}`, `{"stderr": TEXT}`, `{"exit": CODE}`,
//! `{"progress": {"count": N, "every_ms": MS, "total": T, "token": JSON?}}`
//! (notifications/progress with progress 1..=N; `token` overrides the
//! request's token). Consecutive writes of one script hold stdout, so other
//! output never lands inside them; `sleep_ms` and `progress` release it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::fs::OpenOptions;
use std::io::{BufRead, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

type Out = Arc<Mutex<std::io::Stdout>>;

struct Opts {
    record: Option<String>,
    ignore_eof: bool,
    crlf: bool,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    let mut opts = Opts {
        record: None,
        ignore_eof: false,
        crlf: false,
    };
    let mut i = 1;
    while i < args.len() {
        let next = |i: usize| args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--pid-file" => {
                append(&next(i), format!("{}\n", std::process::id()).as_bytes());
                i += 1;
            }
            "--record" => {
                opts.record = Some(next(i));
                i += 1;
            }
            "--stderr-flood" => stderr_flood(),
            "--grandchild" => {
                spawn_grandchild(&next(i));
                i += 1;
            }
            "--startup" => {
                let steps: Value = serde_json::from_str(&next(i)).expect("--startup JSON");
                run_steps(&out, &steps, "null", "null");
                i += 1;
            }
            "--ignore-eof" => opts.ignore_eof = true,
            "--crlf" => opts.crlf = true,
            "--relay" => relay(&next(i)),
            other => eprintln!("fake-stdio-server: unknown argument {other}"),
        }
        i += 1;
    }
    serve(&out, &opts);
}

/// Copies stdin to a TCP connection to `address` and the connection to
/// stdout; exits when either side ends.
fn relay(address: &str) -> ! {
    let socket = std::net::TcpStream::connect(address).expect("--relay: connect");
    socket.set_nodelay(true).expect("--relay: TCP_NODELAY");
    let mut to_socket = socket.try_clone().expect("--relay: clone the socket");
    thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut to_socket);
        std::process::exit(0);
    });
    let mut from_socket = socket;
    let mut buf = [0u8; 64 * 1024];
    loop {
        match std::io::Read::read(&mut from_socket, &mut buf) {
            Ok(0) | Err(_) => std::process::exit(0),
            Ok(n) => {
                let mut out = std::io::stdout().lock();
                if out.write_all(&buf[..n]).and_then(|()| out.flush()).is_err() {
                    std::process::exit(0);
                }
            }
        }
    }
}

fn append(path: &str, bytes: &[u8]) {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("open file");
    f.write_all(bytes).expect("write file");
    f.flush().expect("flush file");
}

fn stderr_flood() {
    let mut err = std::io::stderr().lock();
    let line = format!("{}\n", "e".repeat(1023));
    for _ in 0..1000 {
        err.write_all(line.as_bytes()).expect("stderr");
    }
    let mut written = 0;
    let mut k = 0u64;
    while written < 64 * 1024 {
        let piece = format!("\rprogress {k:>10} {}", "#".repeat(40));
        err.write_all(piece.as_bytes()).expect("stderr");
        written += piece.len();
        k += 1;
    }
    err.flush().expect("stderr");
}

// The grandchild is deliberately never waited for: it must outlive this
// process, as a real wrapper's server would.
#[allow(clippy::zombie_processes)]
fn spawn_grandchild(pid_file: &str) {
    let me = std::env::current_exe().expect("current_exe");
    Command::new("sh")
        .arg("-c")
        .arg("trap '' TERM; exec \"$0\" --pid-file \"$1\" --ignore-eof")
        .arg(me)
        .arg(pid_file)
        .stdin(Stdio::null())
        .spawn()
        .expect("spawn grandchild");
    for _ in 0..500 {
        if std::fs::read_to_string(pid_file).is_ok_and(|s| s.ends_with('\n')) {
            eprintln!(
                "fake-stdio-server: grandchild pid {}",
                std::fs::read_to_string(pid_file).unwrap_or_default().trim()
            );
            return;
        }
        thread::sleep(Duration::from_millis(10));
    }
    panic!("grandchild did not start");
}

fn write_out(out: &Out, bytes: &[u8]) {
    let mut o = out.lock().unwrap_or_else(|p| p.into_inner());
    // A closed stdout (the client went away) ends the fake.
    if o.write_all(bytes).and_then(|_| o.flush()).is_err() {
        std::process::exit(0);
    }
}

fn respond(out: &Out, opts: &Opts, id: &Value, result: Value) {
    let msg = json!({"jsonrpc": "2.0", "id": id, "result": result});
    send_line(out, opts, &msg);
}

fn send_line(out: &Out, opts: &Opts, msg: &Value) {
    let mut line = serde_json::to_vec(msg).expect("serialize");
    line.extend_from_slice(if opts.crlf { b"\r\n" } else { b"\n" });
    write_out(out, &line);
}

fn serve(out: &Out, opts: &Opts) {
    let mut stdin = std::io::stdin().lock();
    let mut held: Vec<(Value, Value)> = Vec::new();
    loop {
        let mut line = Vec::new();
        match stdin.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if let Some(path) = &opts.record {
            append(path, &line);
        }
        let Ok(msg) = serde_json::from_slice::<Value>(&line) else {
            eprintln!(
                "fake-stdio-server: not JSON: {}",
                String::from_utf8_lossy(&line)
            );
            continue;
        };
        let (Some(id), Some(method)) = (msg.get("id"), msg.get("method").and_then(Value::as_str))
        else {
            continue; // a notification or a response
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        match method {
            "initialize" => respond(
                out,
                opts,
                id,
                json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                       "serverInfo": {"name": "fake", "version": "0.0.1"}}),
            ),
            "tools/list" => respond(out, opts, id, json!({"tools": []})),
            "ping" => respond(out, opts, id, json!({})),
            "echo" => respond(out, opts, id, json!({"echo": params})),
            "env" => {
                let name = params.get("name").and_then(Value::as_str).unwrap_or("");
                respond(out, opts, id, json!({"value": std::env::var(name).ok()}));
            }
            "hold" => held.push((id.clone(), params)),
            "release" => {
                let n = held.len();
                while let Some((hid, hparams)) = held.pop() {
                    respond(out, opts, &hid, json!({"held": hparams}));
                }
                respond(out, opts, id, json!({"released": n}));
            }
            "script" => {
                let out = out.clone();
                let raw_id = id.to_string();
                let token = params
                    .pointer("/_meta/progressToken")
                    .map(Value::to_string)
                    .unwrap_or_else(|| "null".into());
                let steps = params.get("steps").cloned().unwrap_or(Value::Null);
                thread::spawn(move || run_steps(&out, &steps, &raw_id, &token));
            }
            other => {
                let msg = json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32601, "message": format!("Method not found: {other}")}});
                send_line(out, opts, &msg);
            }
        }
    }
    if opts.ignore_eof {
        loop {
            thread::sleep(Duration::from_secs(3600));
        }
    }
}

type Held<'a> = Option<std::sync::MutexGuard<'a, std::io::Stdout>>;

fn put_held<'a>(out: &'a Out, held: &mut Held<'a>, bytes: &[u8]) {
    let o = held.get_or_insert_with(|| out.lock().unwrap_or_else(|p| p.into_inner()));
    if o.write_all(bytes).and_then(|_| o.flush()).is_err() {
        std::process::exit(0);
    }
}

fn run_steps(out: &Out, steps: &Value, raw_id: &str, token: &str) {
    let Some(steps) = steps.as_array() else {
        return;
    };
    // Consecutive writes of one script hold stdout, so that a message written
    // in pieces is never interleaved with another thread's; a sleep releases it.
    let mut held: Held<'_> = None;
    for step in steps {
        if let Some(text) = step.get("write").and_then(Value::as_str) {
            let text = text.replace("<ID>", raw_id).replace("<TOKEN>", token);
            put_held(out, &mut held, text.as_bytes());
        } else if let Some(bytes) = step.get("bytes").and_then(Value::as_array) {
            let bytes: Vec<u8> = bytes
                .iter()
                .filter_map(Value::as_u64)
                .map(|b| b as u8)
                .collect();
            put_held(out, &mut held, &bytes);
        } else if let Some(rep) = step.get("repeat") {
            let text = rep.get("text").and_then(Value::as_str).unwrap_or("a");
            let count = rep.get("count").and_then(Value::as_u64).unwrap_or(0) as usize;
            let chunk = rep.get("chunk").and_then(Value::as_u64).unwrap_or(4096) as usize;
            let all = text.repeat(count).into_bytes();
            for piece in all.chunks(chunk.max(1)) {
                put_held(out, &mut held, piece);
            }
        } else if let Some(ms) = step.get("sleep_ms").and_then(Value::as_u64) {
            held = None;
            thread::sleep(Duration::from_millis(ms));
        } else if let Some(text) = step.get("stderr").and_then(Value::as_str) {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(text.as_bytes());
            let _ = err.flush();
        } else if let Some(code) = step.get("exit").and_then(Value::as_i64) {
            std::process::exit(code as i32);
        } else if let Some(p) = step.get("progress") {
            held = None;
            let count = p.get("count").and_then(Value::as_u64).unwrap_or(1);
            let every = p.get("every_ms").and_then(Value::as_u64).unwrap_or(100);
            let total = p.get("total").cloned().unwrap_or(Value::Null);
            let token: Value = match p.get("token") {
                Some(t) => t.clone(),
                None => serde_json::from_str(token).unwrap_or(Value::Null),
            };
            for k in 1..=count {
                thread::sleep(Duration::from_millis(every));
                let msg = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": k, "total": total}});
                let mut line = serde_json::to_vec(&msg).expect("serialize");
                line.push(b'\n');
                write_out(out, &line);
            }
        }
    }
}
