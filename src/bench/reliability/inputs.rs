//! Broken input from disk: fuzzed contracts (the target's `contract.toml` and a project's
//! `aipc.toml`, mutated), mutated GGUF headers, corrupt session logs (from a shipped
//! recording) and non-regular files where a log is expected. A case holds when the reader
//! returns — a value or an error — without panicking and within its bound.

use super::{no_panic, Options, Rng, Tally};
use crate::contract::Contract;
use crate::model::gguf;
use crate::model::gguf_builder::GgufBuilder;
use crate::model::openai::limits::MAX_SSE_LINE;
use crate::model::openai::sse::SseDecoder;
use std::path::Path;
use std::time::{Duration, Instant};

const CONTRACTS: usize = 500;
const CONTRACTS_QUICK: usize = 500;
const GGUFS: usize = 300;
const GGUFS_QUICK: usize = 200;
const LOGS: usize = 300;
const LOGS_QUICK: usize = 200;
const STREAMS: usize = 300;
const STREAMS_QUICK: usize = 200;

/// The longest one parse may take.
const PARSE_BOUND: Duration = Duration::from_secs(2);

/// Text a fuzzer inserts into a contract.
const SNIPPETS: &[&str] = &[
    "attempts = -1",
    "attempts = 18446744073709551615",
    "run_timeout_s = 0",
    "[sandbox]\nmode = \"off\"",
    "[sandbox]\nmode = 3",
    "[[stage]]",
    "[[stage]]\nname = \"\"",
    "[[stage.check]]\ngates = [\"cosine >>= 1\"]",
    "gates = [\"\"]",
    "gates = [\"x == nan\"]",
    "files = [\"../../**\"]",
    "[defaults.tools]\nrun = \"maybe\"",
    "target = 42",
    "x = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    "name = \"\u{0}\"",
    "\u{feff}",
    "\"unterminated",
    "[project",
    "=",
];

fn mutate_text(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        lines.push(String::new());
    }
    match rng.below(7) {
        0 => {
            let mut bytes = text.as_bytes().to_vec();
            if !bytes.is_empty() {
                let at = rng.below(bytes.len());
                bytes[at] = rng.next() as u8;
            }
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        1 => {
            let at = rng.below(lines.len());
            lines.remove(at);
        }
        2 => {
            let at = rng.below(lines.len());
            let line = lines[at].clone();
            lines.insert(at, line);
        }
        3 => {
            let at = rng.below(lines.len() + 1);
            lines.insert(at, SNIPPETS[rng.below(SNIPPETS.len())].to_string());
        }
        4 => {
            let cut = rng.below(text.len().max(1));
            let cut = (0..=cut)
                .rev()
                .find(|c| text.is_char_boundary(*c))
                .unwrap_or(0);
            return text[..cut].to_string();
        }
        5 => {
            let at = rng.below(lines.len());
            let value = [
                "-1",
                "0",
                "1e400",
                "99999999999999999999",
                "\"3\"",
                "[]",
                "{}",
            ][rng.below(7)];
            if let Some(eq) = lines[at].find('=') {
                lines[at] = format!("{}= {value}", &lines[at][..eq]);
            }
        }
        _ => {
            let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
            lines.swap(a, b);
        }
    }
    lines.join("\n")
}

/// Mutated target contracts and project files through the contract loader.
pub(crate) fn contracts(options: &Options) -> Tally {
    let mut tally = Tally::new("fuzzed contracts");
    let target_path = options
        .data_dir
        .join("toolbox/targets/onnxruntime-cpu/contract.toml");
    let project_path = options.data_dir.join("examples/digits-cnn/aipc.toml");
    let (Ok(target), Ok(project)) = (
        std::fs::read_to_string(&target_path),
        std::fs::read_to_string(&project_path),
    ) else {
        tally.case(
            "read the base contracts",
            Err("missing in the data dir".into()),
        );
        return tally;
    };
    let n = if options.quick {
        CONTRACTS_QUICK
    } else {
        CONTRACTS
    };
    let mut rng = Rng::new(options.seed ^ 0xc0de);
    let mut accepted = 0;
    for case in 0..n {
        let (t, p) = if case % 2 == 0 {
            (mutate_text(&target, &mut rng), project.clone())
        } else {
            (target.clone(), mutate_text(&project, &mut rng))
        };
        let started = Instant::now();
        let verdict = no_panic(|| {
            Contract::from_strs(
                ("contract.toml", t.as_str()),
                Some(("aipc.toml", p.as_str())),
            )
            .is_ok()
        })
        .and_then(|ok| {
            accepted += usize::from(ok);
            if started.elapsed() > PARSE_BOUND {
                Err(format!("took {:?}", started.elapsed()))
            } else {
                Ok(())
            }
        });
        tally.case(&format!("contract mutation {case}"), verdict);
    }
    tally.note(format!("{accepted} of {n} mutations still valid"));
    tally
}

/// A GGUF header like a real model's: strings, numbers, arrays, tensors.
fn sample_gguf() -> Vec<u8> {
    let mut tokens = Vec::new();
    for t in ["<pad>", "<eos>", "hello", "world"] {
        tokens.extend(crate::model::gguf_builder::s(t));
    }
    let mut array = 8u32.to_le_bytes().to_vec();
    array.extend(4u64.to_le_bytes());
    array.extend(tokens);
    let mut builder = GgufBuilder::new()
        .string("general.architecture", "gemma3")
        .string("general.name", "reliability sample")
        .u32("general.file_type", 15)
        .u32("gemma3.context_length", 32768)
        .kv("tokenizer.ggml.tokens", 9, &array)
        .tensor("token_embd.weight", &[640, 4], 12, 0)
        .tensor("blk.0.attn_q.weight", &[640, 640], 14, 4096);
    builder.version = 3;
    builder.file(32, 1024)
}

/// Mutated GGUF bytes through the header reader.
pub(crate) fn gguf(options: &Options) -> Tally {
    let mut tally = Tally::new("mutated GGUF headers");
    let good = sample_gguf();
    let n = if options.quick { GGUFS_QUICK } else { GGUFS };
    let mut rng = Rng::new(options.seed ^ 0x9u64);
    for case in 0..n {
        let mut bytes = good.clone();
        match case % 4 {
            0 => {
                for _ in 0..(1 + rng.below(6)) {
                    let at = rng.below(bytes.len());
                    bytes[at] = rng.next() as u8;
                }
            }
            1 => bytes.truncate(rng.below(bytes.len())),
            2 => {
                // A count or a length field set to something huge.
                let at = 8 + rng.below(bytes.len().saturating_sub(16).max(1));
                let huge = [u64::MAX, u64::MAX / 2, 1 << 40, 1 << 32][rng.below(4)];
                let end = (at + 8).min(bytes.len());
                bytes[at..end].copy_from_slice(&huge.to_le_bytes()[..end - at]);
            }
            _ => {
                let len = rng.below(400);
                bytes = (0..len).map(|_| rng.next() as u8).collect();
                if len >= 8 {
                    bytes[..4].copy_from_slice(b"GGUF");
                    bytes[4..8].copy_from_slice(&3u32.to_le_bytes());
                }
            }
        }
        let started = Instant::now();
        let verdict = no_panic(|| {
            let _ = gguf::read_from(
                std::io::Cursor::new(&bytes),
                bytes.len() as u64,
                Path::new("mutated.gguf"),
            );
        })
        .and_then(|()| {
            if started.elapsed() > PARSE_BOUND {
                Err(format!("took {:?}", started.elapsed()))
            } else {
                Ok(())
            }
        });
        tally.case(&format!("gguf mutation {case}"), verdict);
    }
    tally
}

/// Read `path` as a session log on a thread, with a bound; a hang fails the case (the thread
/// is left behind, unblocked by `unblock` when given).
fn read_log_bounded(path: &Path, unblock: Option<&Path>) -> Result<(), String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let owned = path.to_path_buf();
    std::thread::spawn(move || {
        let result = no_panic(|| crate::session::read_events(&owned).map(|_| ()));
        let _ = tx.send(result);
    });
    match rx.recv_timeout(Duration::from_secs(5)) {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(panic)) => Err(panic),
        Err(_) => {
            if let Some(fifo) = unblock {
                // Open the other end so the blocked reader can finish.
                let _ = std::fs::OpenOptions::new().write(true).open(fifo);
            }
            Err("the reader hung (over 5 s)".into())
        }
    }
}

/// Corrupt session logs, and non-regular files in a log's place.
pub(crate) fn logs(options: &Options) -> Tally {
    let mut tally = Tally::new("corrupt session logs");
    let source = options
        .data_dir
        .join("sessions/digits-cnn-onnxruntime/events.jsonl");
    let Ok(text) = std::fs::read_to_string(&source) else {
        tally.case(
            "read a shipped log",
            Err(format!("{} missing", source.display())),
        );
        return tally;
    };
    let base: Vec<&str> = text.lines().take(400).collect();
    let Ok(dir) = tempfile::tempdir() else {
        tally.case("temp folder", Err("cannot create one".into()));
        return tally;
    };
    let n = if options.quick { LOGS_QUICK } else { LOGS };
    let mut rng = Rng::new(options.seed ^ 0x10c);
    for case in 0..n {
        let mut lines: Vec<Vec<u8>> = base.iter().map(|l| l.as_bytes().to_vec()).collect();
        match case % 6 {
            0 => {
                let line = rng.below(lines.len());
                let len = lines[line].len();
                if len > 0 {
                    let at = rng.below(len);
                    lines[line][at] = rng.next() as u8;
                }
            }
            1 => {
                let keep = rng.below(lines.len());
                lines.truncate(keep);
                if let Some(last) = lines.last_mut() {
                    let cut = rng.below(last.len().max(1));
                    last.truncate(cut);
                }
            }
            2 => {
                let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
                lines.swap(a, b);
            }
            3 => {
                let at = rng.below(lines.len());
                lines.insert(at, vec![0xff, 0xfe, 0, b'{', b'"']);
            }
            4 => {
                let at = rng.below(lines.len());
                let line = lines[at].clone();
                lines.insert(at, line);
            }
            _ => {
                let at = rng.below(lines.len());
                lines.insert(at, vec![b'x'; 4 << 20]);
            }
        }
        let path = dir.path().join(format!("events-{case}.jsonl"));
        let joined = lines.join(&b"\n"[..]);
        if std::fs::write(&path, joined).is_err() {
            tally.case(&format!("log mutation {case}"), Err("cannot write".into()));
            continue;
        }
        tally.case(
            &format!("log mutation {case}"),
            read_log_bounded(&path, None),
        );
        let _ = std::fs::remove_file(&path);
    }
    // Not files at all.
    let fifo = dir.path().join("fifo.jsonl");
    let made = nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600));
    tally.case(
        "a FIFO as the log",
        made.map_err(|e| e.to_string())
            .and_then(|()| read_log_bounded(&fifo, Some(&fifo))),
    );
    let zero = dir.path().join("zero.jsonl");
    tally.case(
        "/dev/zero as the log",
        std::os::unix::fs::symlink("/dev/zero", &zero)
            .map_err(|e| e.to_string())
            .and_then(|()| read_log_bounded(&zero, None)),
    );
    tally.case("a folder as the log", read_log_bounded(dir.path(), None));
    tally
}

/// A hostile event stream: `data:` lines, garbage, NULs, invalid UTF-8, every kind of line
/// end, and (every tenth case) one line past the cap without an end.
fn garbage_stream(case: usize, rng: &mut Rng) -> Vec<u8> {
    let mut body = Vec::new();
    if case % 10 == 9 {
        body.extend_from_slice(b"data: ");
        body.extend(std::iter::repeat_n(
            b'x',
            MAX_SSE_LINE + 1 + rng.below(1 << 20),
        ));
        return body;
    }
    for _ in 0..(1 + rng.below(200)) {
        match rng.below(6) {
            0 => {
                body.extend_from_slice(b"data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n")
            }
            1 => body.extend_from_slice(b"data: [DONE]\n\n"),
            2 => body.extend((0..rng.below(300)).map(|_| rng.next() as u8)),
            3 => body.extend_from_slice(
                [&b"\r"[..], b"\n", b"\r\n", b"\n\n", b"\0", b":"][rng.below(6)],
            ),
            4 => body.extend_from_slice(b"data:"),
            _ => body.extend_from_slice(b"event: error\nid: 1\nretry: 99999999999999999999\n"),
        }
    }
    body
}

/// Garbage event streams through the HTTP backend's decoder, split at random points.
pub(crate) fn sse(options: &Options) -> Tally {
    let mut tally = Tally::new("SSE garbage");
    let n = if options.quick {
        STREAMS_QUICK
    } else {
        STREAMS
    };
    let mut rng = Rng::new(options.seed ^ 0x55e);
    for case in 0..n {
        let body = garbage_stream(case, &mut rng);
        let started = Instant::now();
        let verdict = no_panic(|| {
            let mut decoder = SseDecoder::new(MAX_SSE_LINE);
            let mut events = Vec::new();
            let mut rest = &body[..];
            let mut result = Ok(());
            while !rest.is_empty() && result.is_ok() {
                let take = (1 + rng.below(64 * 1024)).min(rest.len());
                result = decoder.feed(&rest[..take], &mut events);
                rest = &rest[take..];
            }
            if result.is_ok() {
                result = decoder.finish(&mut events);
            }
            (
                result.is_ok(),
                events.iter().map(String::len).sum::<usize>(),
            )
        })
        .and_then(|(ok, decoded)| {
            if case % 10 == 9 && ok {
                return Err("a line past the cap was accepted".into());
            }
            if decoded > body.len() * 4 {
                return Err(format!("{decoded} bytes decoded from {}", body.len()));
            }
            if started.elapsed() > PARSE_BOUND {
                return Err(format!("took {:?}", started.elapsed()));
            }
            Ok(())
        });
        tally.case(&format!("stream {case}"), verdict);
    }
    tally
}
