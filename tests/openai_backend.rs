//! The OpenAI-compatible HTTP backend against the real llama-server (built by
//! `scripts/build-llama-server.sh`) with Gemma 3 270M, and against small fake servers on the
//! loopback interface that misbehave on purpose: nothing listening, 5xx, 4xx, garbage, silence,
//! tool-call deltas split across chunks, a server that rejects native tools, and hostile ones
//! (an endless line, an endless stream, huge error and JSON bodies) that must cost neither
//! unbounded time nor memory, and must not outlast the request timeout or a cancellation.

use aipc::conversation::{call_schema, parse_reply, OfferedTool};
use aipc::model::openai::{self, CallMode, OpenAiBackend};
use aipc::model::{Message, ModelBackend, ModelOptions, ModelRequest, Role};
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

// ---------------------------------------------------------------------------------------------
// Shared request material

fn tools() -> Vec<OfferedTool> {
    vec![
        OfferedTool {
            name: "read_file".into(),
            description: "Read a file of the project.".into(),
            args_schema: json!({"type": "object",
                "properties": {"path": {"type": "string", "maxLength": 40}},
                "required": ["path"], "additionalProperties": false}),
        },
        OfferedTool {
            name: "run".into(),
            description: "Run a shell command.".into(),
            args_schema: json!({"type": "object",
                "properties": {"command": {"type": "string", "maxLength": 40}},
                "required": ["command"], "additionalProperties": false}),
        },
        OfferedTool {
            name: "finish_stage".into(),
            description: "Say the stage is done.".into(),
            args_schema: json!({"type": "object",
                "properties": {"summary": {"type": "string", "maxLength": 40}},
                "required": ["summary"], "additionalProperties": false}),
        },
    ]
}

fn allowed() -> Vec<String> {
    tools().into_iter().map(|t| t.name).collect()
}

fn request() -> ModelRequest {
    ModelRequest {
        messages: vec![
            Message::new(
                Role::System,
                "You deploy a PyTorch project. Reply with exactly one JSON tool call: \
                 read_file(path), run(command) or finish_stage(summary).",
            ),
            Message::new(Role::User, "Stage: inspect. Read the file model.py first."),
            Message::new(Role::Assistant, r#"{"tool":"run","args":{"command":"ls"}}"#),
            Message::new(Role::Tool, "model.py\ntrain.py"),
        ],
        call_schema: call_schema(&tools()),
        max_tokens: 200,
    }
}

fn options(timeout: Duration) -> ModelOptions {
    ModelOptions {
        request_timeout: timeout,
        ..ModelOptions::default()
    }
}

/// Run one request, returning the result and the concatenated deltas.
async fn ask(
    backend: &mut OpenAiBackend,
) -> (
    Result<aipc::model::ModelReply, aipc::model::ModelError>,
    String,
) {
    let mut streamed = String::new();
    let result = backend
        .complete(&request(), &mut |d: &str| streamed.push_str(d))
        .await;
    (result, streamed)
}

// ---------------------------------------------------------------------------------------------
// Fake servers

/// What the fake server does with one chat-completion request.
enum Answer {
    /// Write these pieces (each flushed, 15 ms apart), then close.
    Pieces(Vec<String>),
    /// Read the request and never answer.
    Silence,
    /// Take the connection over (the request already read).
    Raw(Box<dyn FnOnce(TcpStream) -> BoxFuture<'static, ()> + Send>),
}

fn whole(response: String) -> Answer {
    Answer::Pieces(vec![response])
}

fn http(status: &str, content_type: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    )
}

const SSE_HEAD: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";

/// An SSE answer: each chunk as one `data:` event, then `[DONE]`.
fn sse(chunks: &[Value]) -> String {
    let mut out = SSE_HEAD.to_string();
    for chunk in chunks {
        out.push_str(&format!("data: {chunk}\n\n"));
    }
    out.push_str("data: [DONE]\n\n");
    out
}

fn content_chunks(text: &str) -> Vec<Value> {
    let mut chunks: Vec<Value> = text
        .as_bytes()
        .chunks(7)
        .map(|piece| {
            json!({"choices": [{"index": 0, "delta": {"content": String::from_utf8_lossy(piece)}}]})
        })
        .collect();
    chunks.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    chunks.push(json!({"choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 9}}));
    chunks
}

struct FakeServer {
    url: String,
    /// The bodies of the chat-completion requests received, in order.
    bodies: Arc<Mutex<Vec<Value>>>,
    chat_requests: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeServer {
    /// Serve on a free loopback port; `answer(n, body)` decides the n-th (0-based) chat request.
    /// `GET /models` gets a one-model list.
    async fn start(answer: impl Fn(usize, &Value) -> Answer + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let chat_requests = Arc::new(AtomicUsize::new(0));
        let answer = Arc::new(answer);
        let (b, c) = (Arc::clone(&bodies), Arc::clone(&chat_requests));
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (answer, bodies, chat_requests) =
                    (Arc::clone(&answer), Arc::clone(&b), Arc::clone(&c));
                tokio::spawn(async move {
                    serve(stream, &*answer, &bodies, &chat_requests).await;
                });
            }
        });
        FakeServer {
            url,
            bodies,
            chat_requests,
            task,
        }
    }

    fn chat_requests(&self) -> usize {
        self.chat_requests.load(Ordering::SeqCst)
    }

    fn body(&self, n: usize) -> Value {
        self.bodies.lock().unwrap()[n].clone()
    }
}

async fn serve(
    mut stream: TcpStream,
    answer: &(dyn Fn(usize, &Value) -> Answer + Send + Sync),
    bodies: &Mutex<Vec<Value>>,
    chat_requests: &AtomicUsize,
) {
    let Some((head, body)) = read_request(&mut stream).await else {
        return;
    };
    let pieces = if head.starts_with("GET ") && head.contains("/models ") {
        vec![http(
            "200 OK",
            "application/json",
            r#"{"object":"list","data":[{"id":"fake-model","object":"model"}]}"#,
        )]
    } else if head.starts_with("POST ") && head.contains("/chat/completions ") {
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let n = chat_requests.fetch_add(1, Ordering::SeqCst);
        bodies.lock().unwrap().push(body.clone());
        match answer(n, &body) {
            Answer::Pieces(pieces) => pieces,
            Answer::Silence => {
                tokio::time::sleep(Duration::from_secs(60)).await;
                return;
            }
            Answer::Raw(run) => {
                run(stream).await;
                return;
            }
        }
    } else {
        vec![http("404 Not Found", "text/plain", "not found")]
    };
    for piece in pieces {
        if stream.write_all(piece.as_bytes()).await.is_err() {
            return;
        }
        let _ = stream.flush().await;
        tokio::time::sleep(Duration::from_millis(15)).await;
    }
    let _ = stream.shutdown().await;
}

/// Read one HTTP/1.1 request: the head (request line and headers) and the body.
async fn read_request(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    while buffer.len() < head_end + length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    Some((head, buffer[head_end..].to_vec()))
}

const GOOD_CALL: &str = r#"{"tool":"read_file","args":{"path":"model.py"}}"#;

// ---------------------------------------------------------------------------------------------
// Failure paths

#[tokio::test]
async fn nothing_listening_fails_after_retries_saying_cannot_reach() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut backend = openai::connect(
        &format!("http://127.0.0.1:{port}/v1"),
        &options(Duration::from_secs(30)),
    )
    .unwrap();
    let started = Instant::now();
    let (result, streamed) = ask(&mut backend).await;
    let err = result.unwrap_err().to_string();
    assert!(err.contains("cannot reach"), "{err}");
    assert!(err.contains("connection refused"), "{err}");
    assert!(err.contains("after 4 tries"), "{err}");
    assert!(err.contains("is the server running?"), "{err}");
    // 0.5 + 1 + 2 s of backoff.
    assert!(
        started.elapsed() >= Duration::from_millis(3400),
        "{:?}",
        started.elapsed()
    );
    assert!(streamed.is_empty());
}

#[tokio::test]
async fn server_errors_are_retried_until_a_good_answer() {
    let server = FakeServer::start(|n, _| {
        if n < 2 {
            whole(http(
                "500 Internal Server Error",
                "application/json",
                r#"{"error":{"message":"slot busy"}}"#,
            ))
        } else {
            whole(sse(&content_chunks(GOOD_CALL)))
        }
    })
    .await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(30)))
        .unwrap()
        .with_mode(CallMode::Schema);
    let (result, streamed) = ask(&mut backend).await;
    let reply = result.unwrap();
    assert_eq!(server.chat_requests(), 3);
    assert_eq!(reply.text, GOOD_CALL);
    assert_eq!(streamed, reply.text);
    assert_eq!((reply.prompt_tokens, reply.completion_tokens), (50, 9));
    let body = server.body(2);
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(body["max_tokens"], 200);
    assert_eq!(body["model"], "fake-model");
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["strict"], true);
    assert_eq!(
        body["response_format"]["json_schema"]["schema"],
        call_schema(&tools())
    );
    assert!(body.get("tools").is_none());
    // Roles: the observation goes as a user message.
    assert_eq!(body["messages"][3]["role"], "user");
    assert!(body["messages"][3]["content"]
        .as_str()
        .unwrap()
        .starts_with("Observation:"));
    assert_eq!(
        backend.info().name,
        format!("{} (fake-model, json_schema)", server.url)
    );
}

#[tokio::test]
async fn client_errors_fail_at_once_quoting_the_server() {
    let server = FakeServer::start(|_, _| {
        whole(http(
            "400 Bad Request",
            "application/json",
            r#"{"error":{"code":400,"message":"the request exceeds the available context size (5000 > 4096)","type":"exceed_context_size_error"}}"#,
        ))
    })
    .await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(30))).unwrap();
    let started = Instant::now();
    let (result, _) = ask(&mut backend).await;
    let err = result.unwrap_err().to_string();
    assert!(err.contains("HTTP 400"), "{err}");
    assert!(
        err.contains("the request exceeds the available context size (5000 > 4096)"),
        "{err}"
    );
    assert_eq!(server.chat_requests(), 1, "a 4xx is not retried");
    assert!(started.elapsed() < Duration::from_millis(450));
}

#[tokio::test]
async fn garbage_bodies_fail_quoting_their_start() {
    let server = FakeServer::start(|n, _| {
        if n == 0 {
            whole(http(
                "200 OK",
                "text/html",
                "<html><body>Welcome to nginx!</body></html>",
            ))
        } else {
            whole(http("200 OK", "application/json", "{\"status\": \"ok\"}"))
        }
    })
    .await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(30)))
        .unwrap()
        .with_mode(CallMode::Schema);
    let (result, streamed) = ask(&mut backend).await;
    let err = result.unwrap_err().to_string();
    assert!(err.contains("not a chat-completion event stream"), "{err}");
    assert!(err.contains("Welcome to nginx!"), "{err}");
    assert!(streamed.is_empty());
    let (result, _) = ask(&mut backend).await;
    let err = result.unwrap_err().to_string();
    assert!(
        err.contains("neither an event stream nor a chat completion"),
        "{err}"
    );
    assert!(err.contains("status"), "{err}");
}

#[tokio::test]
async fn a_stream_cut_before_done_without_content_is_an_error() {
    let server = FakeServer::start(|_, _| {
        Answer::Pieces(vec![format!(
            "{SSE_HEAD}: keep-alive comment\n\ndata: not json\n\n"
        )])
    })
    .await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(30)))
        .unwrap()
        .with_mode(CallMode::Schema);
    let (result, _) = ask(&mut backend).await;
    let err = result.unwrap_err().to_string();
    assert!(err.contains("it began"), "{err}");
    assert!(err.contains("not json"), "{err}");
}

#[tokio::test]
async fn a_silent_server_times_out_within_the_request_timeout() {
    let server = FakeServer::start(|_, _| Answer::Silence).await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(2))).unwrap();
    let started = Instant::now();
    let (result, _) = ask(&mut backend).await;
    let elapsed = started.elapsed();
    let err = result.unwrap_err().to_string();
    assert!(err.contains("did not answer within 2 s"), "{err}");
    assert!(err.contains(&server.url), "{err}");
    assert!(elapsed >= Duration::from_secs(2), "{elapsed:?}");
    assert!(elapsed < Duration::from_millis(3500), "{elapsed:?}");
}

// ---------------------------------------------------------------------------------------------
// Tool calls and the Auto mode

#[tokio::test]
async fn tool_call_deltas_split_across_chunks_and_without_index_are_assembled() {
    let server = FakeServer::start(|_, _| {
        let events = [
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": null}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "id": "call_1", "type": "function",
                 "function": {"name": "read_file", "arguments": ""}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"function": {"arguments": "{\"pa"}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": "th\": \"mod"}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"function": {"arguments": "el.py\"}"}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 120, "completion_tokens": 17},
                   "timings": {"cache_n": 80, "prompt_n": 40, "predicted_n": 17}}),
        ];
        let text = sse(&events);
        // Cut the bytes at awkward places: inside the head, inside events, inside JSON.
        let bytes = text.as_bytes();
        let cuts = [30, 150, 151, 300, 333, 420, 555, 700, bytes.len()];
        let mut pieces = Vec::new();
        let mut start = 0;
        for cut in cuts {
            let cut = cut.min(bytes.len());
            if cut > start {
                pieces.push(String::from_utf8_lossy(&bytes[start..cut]).to_string());
                start = cut;
            }
        }
        Answer::Pieces(pieces)
    })
    .await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(30))).unwrap();
    let (result, streamed) = ask(&mut backend).await;
    let reply = result.unwrap();
    assert_eq!(streamed, reply.text);
    let value: Value = serde_json::from_str(&reply.text).unwrap();
    assert_eq!(
        value,
        json!({"tool": "read_file", "args": {"path": "model.py"}})
    );
    let call = parse_reply(&reply.text, &allowed()).unwrap();
    assert_eq!(call.tool, "read_file");
    assert_eq!(
        (
            reply.prompt_tokens,
            reply.completion_tokens,
            reply.cached_tokens
        ),
        (120, 17, 80)
    );
    let body = server.body(0);
    assert_eq!(body["tool_choice"], "required");
    let names: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["read_file", "run", "finish_stage"]);
    assert_eq!(
        body["tools"][0]["function"]["parameters"],
        tools()[0].args_schema
    );
    assert!(body.get("response_format").is_none());
    assert!(backend.info().name.ends_with("(fake-model, auto: tools)"));
}

#[tokio::test]
async fn auto_falls_back_to_the_schema_when_tools_are_rejected_and_remembers() {
    let server = FakeServer::start(|_, body| {
        if body.get("tools").is_some() {
            whole(http(
                "400 Bad Request",
                "application/json",
                r#"{"error":{"message":"\"tool_choice\": \"required\" is not supported by this server"}}"#,
            ))
        } else {
            whole(sse(&content_chunks(GOOD_CALL)))
        }
    })
    .await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(30))).unwrap();
    assert!(backend.info().name.ends_with("(auto)"));
    let (result, streamed) = ask(&mut backend).await;
    let reply = result.unwrap();
    assert_eq!(reply.text, GOOD_CALL);
    assert_eq!(streamed, GOOD_CALL);
    assert_eq!(server.chat_requests(), 2);
    assert!(server.body(0).get("tools").is_some());
    assert!(server.body(1).get("response_format").is_some());
    assert_eq!(
        backend.info().name,
        format!("{} (fake-model, json_schema)", server.url)
    );
    assert_eq!(backend.effective_mode(), CallMode::Schema);
    // The switch is remembered: the next request goes straight to the schema.
    let (result, _) = ask(&mut backend).await;
    assert_eq!(result.unwrap().text, GOOD_CALL);
    assert_eq!(server.chat_requests(), 3);
    assert!(server.body(2).get("tools").is_none());
}

#[tokio::test]
async fn auto_falls_back_when_the_server_answers_without_a_tool_call() {
    let server = FakeServer::start(|_, body| {
        if body.get("tools").is_some() {
            whole(sse(&content_chunks("Sure! I will read model.py.")))
        } else {
            whole(sse(&content_chunks(GOOD_CALL)))
        }
    })
    .await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(30))).unwrap();
    let (result, streamed) = ask(&mut backend).await;
    let reply = result.unwrap();
    assert_eq!(reply.text, GOOD_CALL);
    assert_eq!(streamed, GOOD_CALL, "the abandoned answer is not streamed");
    // Both attempts are accounted for.
    assert_eq!((reply.prompt_tokens, reply.completion_tokens), (100, 18));
    assert_eq!(backend.effective_mode(), CallMode::Schema);
}

#[tokio::test]
async fn auto_stops_listening_to_a_server_that_talks_instead_of_calling() {
    let server = FakeServer::start(|_, body| {
        if body.get("tools").is_some() {
            // 200 pieces 15 ms apart: 3 s of chatter if read to the end.
            let mut pieces = vec![SSE_HEAD.to_string()];
            for _ in 0..200 {
                let chunk = json!({"choices": [{"index": 0, "delta": {"content": "blah blah "}}]});
                pieces.push(format!("data: {chunk}\n\n"));
            }
            pieces.push("data: [DONE]\n\n".to_string());
            Answer::Pieces(pieces)
        } else {
            whole(sse(&content_chunks(GOOD_CALL)))
        }
    })
    .await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(30))).unwrap();
    let started = Instant::now();
    let (result, streamed) = ask(&mut backend).await;
    assert_eq!(result.unwrap().text, GOOD_CALL);
    assert_eq!(streamed, GOOD_CALL);
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(backend.effective_mode(), CallMode::Schema);
}

// ---------------------------------------------------------------------------------------------
// Hostile servers: caps, the timeout while streaming, cancellation

/// What a flooding server managed to send, shared with the test.
#[derive(Default)]
struct Sent {
    /// Body bytes written (accepted by the kernel), over all connections.
    bytes: AtomicUsize,
    /// The most body bytes written on one connection before the client hung up.
    most: AtomicUsize,
    /// Connections on which the client hung up (a write failed).
    hung_up: AtomicUsize,
}

impl Sent {
    fn bytes(&self) -> usize {
        self.bytes.load(Ordering::SeqCst)
    }

    fn hung_up(&self) -> usize {
        self.hung_up.load(Ordering::SeqCst)
    }
}

/// Write `head`, then `piece` again and again (`pause` apart, or as fast as the client reads)
/// until the client hangs up, counting what was written into `sent`. After `until` body bytes
/// the server falls silent but keeps the connection open.
fn flood(
    head: String,
    piece: Vec<u8>,
    pause: Option<Duration>,
    until: Option<usize>,
    sent: &Arc<Sent>,
) -> Answer {
    let sent = Arc::clone(sent);
    Answer::Raw(Box::new(move |mut stream: TcpStream| {
        Box::pin(async move {
            let mut written = 0usize;
            let mut ok = stream.write_all(head.as_bytes()).await.is_ok();
            while ok && until.is_none_or(|until| written < until) {
                ok = stream.write_all(&piece).await.is_ok();
                if ok {
                    written += piece.len();
                    sent.bytes.fetch_add(piece.len(), Ordering::SeqCst);
                }
                if let Some(pause) = pause {
                    tokio::time::sleep(pause).await;
                }
            }
            if ok {
                // Silent, connection open, until the client hangs up (or a minute passes).
                let mut buffer = [0u8; 64];
                let _ =
                    tokio::time::timeout(Duration::from_secs(60), stream.read(&mut buffer)).await;
            }
            sent.most.fetch_max(written, Ordering::SeqCst);
            sent.hung_up.fetch_add(1, Ordering::SeqCst);
        })
    }))
}

/// Wait up to `within` for `done`; whether it came true.
async fn eventually(within: Duration, done: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + within;
    while !done() {
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}

/// One content chunk as an SSE event.
fn content_event(text: &str) -> Vec<u8> {
    let chunk = json!({"choices": [{"index": 0, "delta": {"content": text}}]});
    format!("data: {chunk}\n\n").into_bytes()
}

#[tokio::test]
async fn one_endless_event_line_fails_on_the_line_cap_long_before_the_timeout() {
    let sent = Arc::new(Sent::default());
    let s = Arc::clone(&sent);
    // `data: ` and 4 MB without a line end, then silence with the connection open.
    let server = FakeServer::start(move |_, _| {
        flood(
            format!("{SSE_HEAD}data: "),
            vec![b'x'; 64 << 10],
            None,
            Some(4_000_000),
            &s,
        )
    })
    .await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(5)))
        .unwrap()
        .with_mode(CallMode::Schema);
    let started = Instant::now();
    let (result, streamed) = ask(&mut backend).await;
    let elapsed = started.elapsed();
    let err = result.unwrap_err().to_string();
    assert!(err.contains("a line longer than 1 MiB"), "{err}");
    assert!(err.contains("the cap on one event-stream line"), "{err}");
    assert!(err.contains(&server.url), "{err}");
    assert!(err.contains("check the server"), "{err}");
    assert!(streamed.is_empty());
    assert_eq!(server.chat_requests(), 1, "a broken answer is not retried");
    // A bound with a wide margin (debug build, shared machine), not a speed claim: the old
    // parser took over a minute for this line.
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
    assert!(
        eventually(Duration::from_secs(2), || sent.hung_up() == 1).await,
        "the connection was dropped"
    );
}

#[tokio::test]
async fn an_endless_stream_ends_at_the_request_timeout() {
    let sent = Arc::new(Sent::default());
    let s = Arc::clone(&sent);
    // A model that never stops: a content event every 50 ms, forever.
    let server = FakeServer::start(move |_, _| {
        flood(
            SSE_HEAD.to_string(),
            content_event("a"),
            Some(Duration::from_millis(50)),
            None,
            &s,
        )
    })
    .await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(2)))
        .unwrap()
        .with_mode(CallMode::Schema);
    let started = Instant::now();
    let (result, streamed) = ask(&mut backend).await;
    let elapsed = started.elapsed();
    let err = result.unwrap_err().to_string();
    assert!(err.contains("did not answer within 2 s"), "{err}");
    assert!(err.contains("--request-timeout-s"), "{err}");
    assert!(err.contains(&server.url), "{err}");
    assert!(
        streamed.contains("aaaa"),
        "the answer was streaming: {streamed:?}"
    );
    assert!(elapsed >= Duration::from_secs(2), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
    assert!(
        eventually(Duration::from_secs(1), || sent.hung_up() == 1).await,
        "the connection was dropped"
    );
}

#[tokio::test]
async fn a_fast_endless_stream_fails_on_the_reply_cap() {
    let sent = Arc::new(Sent::default());
    let s = Arc::clone(&sent);
    // Keep-alive comments as fast as the client reads: only the cap on one answer stops it.
    let server = FakeServer::start(move |_, _| {
        flood(
            SSE_HEAD.to_string(),
            b": keep-alive\n\n".repeat(4096),
            None,
            None,
            &s,
        )
    })
    .await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(60)))
        .unwrap()
        .with_mode(CallMode::Schema);
    let started = Instant::now();
    let (result, _) = ask(&mut backend).await;
    let err = result.unwrap_err().to_string();
    assert!(
        err.contains("passed 16 MiB (the cap on one answer)"),
        "{err}"
    );
    assert!(err.contains(&server.url), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert!(eventually(Duration::from_secs(2), || sent.hung_up() == 1).await);
}

#[tokio::test]
async fn a_huge_error_body_is_read_only_up_to_its_cap() {
    let sent = Arc::new(Sent::default());
    let s = Arc::clone(&sent);
    // HTTP 500 announcing 300 MB, sent as fast as the client reads.
    let server = FakeServer::start(move |_, _| {
        flood(
            format!(
                "HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\n\
                 content-length: {}\r\n\r\n{{\"error\":{{\"message\":\"",
                300 << 20
            ),
            vec![b'x'; 64 << 10],
            None,
            Some(300 << 20),
            &s,
        )
    })
    .await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(60)))
        .unwrap()
        .with_mode(CallMode::Schema);
    let started = Instant::now();
    let (result, _) = ask(&mut backend).await;
    let elapsed = started.elapsed();
    let err = result.unwrap_err().to_string();
    assert!(err.contains("HTTP 500 after 4 tries"), "{err}");
    assert!(err.contains("longer than 64 KiB"), "{err}");
    assert!(err.contains(&server.url), "{err}");
    assert_eq!(server.chat_requests(), 4);
    // 3.5 s of backoff; reading 4 × 300 MB would take far longer.
    assert!(elapsed < Duration::from_secs(15), "{elapsed:?}");
    assert!(eventually(Duration::from_secs(2), || sent.hung_up() == 4).await);
    // What one connection wrote before the client hung up: the 64 KiB read plus what the
    // loopback socket buffers held — a few MB, not 300.
    let most = sent.most.load(Ordering::SeqCst);
    assert!(most < 32 << 20, "{most} bytes written on one connection");
    eprintln!(
        "huge error body: {most} bytes at most on one connection, {} in all, {elapsed:?}",
        sent.bytes()
    );
}

#[tokio::test]
async fn a_json_answer_over_its_cap_fails_without_reading_on() {
    let sent = Arc::new(Sent::default());
    let s = Arc::clone(&sent);
    // A non-streamed answer without a length that never ends.
    let server = FakeServer::start(move |_, _| {
        flood(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n\
             {\"choices\":[{\"index\":0,\"message\":{\"content\":\""
                .to_string(),
            vec![b'a'; 64 << 10],
            None,
            None,
            &s,
        )
    })
    .await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(60)))
        .unwrap()
        .with_mode(CallMode::Schema);
    let started = Instant::now();
    let (result, streamed) = ask(&mut backend).await;
    let err = result.unwrap_err().to_string();
    assert!(err.contains("larger than 8 MiB"), "{err}");
    assert!(err.contains("the cap on a whole JSON answer"), "{err}");
    assert!(err.contains(&server.url), "{err}");
    assert!(err.contains("choices"), "the error quotes the start: {err}");
    assert!(streamed.is_empty());
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert!(eventually(Duration::from_secs(2), || sent.hung_up() == 1).await);
    let most = sent.most.load(Ordering::SeqCst);
    assert!(most < (8 << 20) + (32 << 20), "{most} bytes written");
}

#[tokio::test]
async fn cancelling_an_endless_stream_ends_the_request_at_once() {
    let sent = Arc::new(Sent::default());
    let s = Arc::clone(&sent);
    let server = FakeServer::start(move |_, _| {
        flood(
            SSE_HEAD.to_string(),
            content_event("a"),
            Some(Duration::from_millis(20)),
            None,
            &s,
        )
    })
    .await;
    let mut backend = openai::connect(&server.url, &options(Duration::from_secs(60)))
        .unwrap()
        .with_mode(CallMode::Schema);
    // As the engine does: the request races the session's cancellation token.
    let cancel = tokio_util::sync::CancellationToken::new();
    let trigger = cancel.clone();
    let cancelled_at = Arc::new(Mutex::new(None::<Instant>));
    let at = Arc::clone(&cancelled_at);
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(700)).await;
        *at.lock().unwrap() = Some(Instant::now());
        trigger.cancel();
    });
    let request = request();
    let mut streamed = String::new();
    let mut on_delta = |d: &str| streamed.push_str(d);
    let finished = tokio::select! {
        reply = backend.complete(&request, &mut on_delta) => Some(reply),
        () = cancel.cancelled() => None,
    };
    let ended = Instant::now();
    assert!(
        finished.is_none(),
        "the request ended by itself: {finished:?}"
    );
    assert!(streamed.contains("aaaa"), "it was streaming: {streamed:?}");
    let cancelled_at = cancelled_at.lock().unwrap().unwrap();
    assert!(
        ended.duration_since(cancelled_at) < Duration::from_secs(1),
        "{:?}",
        ended.duration_since(cancelled_at)
    );
    // The connection is gone too: the server's next writes fail.
    assert!(
        eventually(Duration::from_secs(1), || sent.hung_up() == 1).await,
        "the server still streams after the cancellation"
    );
    assert!(cancelled_at.elapsed() < Duration::from_secs(2));
}

// ---------------------------------------------------------------------------------------------
// The real llama-server

/// Kills the server when the test ends, passing or failing.
struct ServerGuard {
    child: Child,
    log: PathBuf,
}

impl Drop for ServerGuard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Keep the server's log when the test failed.
        if !std::thread::panicking() {
            let _ = std::fs::remove_file(&self.log);
        }
    }
}

impl ServerGuard {
    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("AIPC_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"));
    base.join("aipc")
}

/// `AIPC_LLAMA_SERVER`, or where `scripts/build-llama-server.sh` installs it (built for the
/// same target CPU as this crate).
fn llama_server() -> PathBuf {
    if let Some(path) = std::env::var_os("AIPC_LLAMA_SERVER") {
        return PathBuf::from(path);
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/build-llama-server.sh");
    let text = std::fs::read_to_string(&script).unwrap();
    let version = text
        .lines()
        .find_map(|l| l.strip_prefix("LLAMA_CPP_PYTHON_VERSION="))
        .map(|v| v.trim().trim_matches('"').to_string())
        .expect("the build script pins LLAMA_CPP_PYTHON_VERSION");
    cache_root()
        .join("llama.cpp")
        .join(format!(
            "server-llama-cpp-python-{version}-{}",
            aipc::build_info::TARGET_CPU
        ))
        .join("bin/llama-server")
}

fn gemma() -> PathBuf {
    std::env::var_os("AIPC_GEMMA_GGUF")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap())
                .join(".cache/aipc/models/gemma-3-270m-q4_k_m.gguf")
        })
}

async fn start_llama_server() -> (ServerGuard, String) {
    let binary = llama_server();
    assert!(
        binary.is_file(),
        "{} is missing: run scripts/build-llama-server.sh (or set AIPC_LLAMA_SERVER)",
        binary.display()
    );
    let model = gemma();
    assert!(
        model.is_file(),
        "{} is missing: the Gemma 3 270M GGUF (see docs; or set AIPC_GEMMA_GGUF)",
        model.display()
    );
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let log = std::env::temp_dir().join(format!("aipc-llama-server-{port}.log"));
    let log_file = std::fs::File::create(&log).unwrap();
    let child = Command::new(&binary)
        .args(["-m"])
        .arg(&model)
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .args(["-c", "4096", "-t", "2", "--jinja"])
        .stdin(Stdio::null())
        .stdout(Stdio::from(log_file.try_clone().unwrap()))
        .stderr(Stdio::from(log_file))
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
    let mut guard = ServerGuard { child, log };
    let health = format!("http://127.0.0.1:{port}/health");
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = guard.child.try_wait().unwrap() {
            panic!("llama-server exited with {status}:\n{}", guard.log_tail());
        }
        let ok = client
            .get(&health)
            .timeout(Duration::from_secs(2))
            .send()
            .await
            .map(|r| r.status().is_success())
            .unwrap_or(false);
        if ok {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "llama-server was not healthy within 60 s:\n{}",
            guard.log_tail()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    (guard, format!("http://127.0.0.1:{port}/v1"))
}

#[tokio::test]
async fn the_real_llama_server_answers_with_an_allowed_tool_call() {
    let (server, url) = start_llama_server().await;
    let mut backend = openai::connect(&url, &options(Duration::from_secs(240))).unwrap();
    for round in 0..2 {
        let (result, streamed) = ask(&mut backend).await;
        let reply = result.unwrap_or_else(|e| {
            panic!(
                "round {round}: {e}\nllama-server log:\n{}",
                server.log_tail()
            )
        });
        let call = parse_reply(&reply.text, &allowed()).unwrap_or_else(|e| {
            panic!(
                "round {round} ({}): {e}\nreply: {}",
                backend.info().name,
                reply.text
            )
        });
        assert!(allowed().contains(&call.tool));
        assert!(call.args.is_object());
        assert_eq!(streamed, reply.text, "deltas concatenate to the reply");
        assert!(reply.prompt_tokens > 0, "{reply:?}");
        assert!(reply.completion_tokens > 0, "{reply:?}");
        assert!(reply.duration_ms > 0);
        eprintln!(
            "round {round}: {} -> {} ({} prompt, {} cached, {} completion tokens, {} ms)",
            backend.info().name,
            reply.text,
            reply.prompt_tokens,
            reply.cached_tokens,
            reply.completion_tokens,
            reply.duration_ms
        );
    }
    assert_ne!(backend.effective_mode(), CallMode::Auto);
    drop(server);
}
