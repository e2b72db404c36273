//! Running a shell command under a deadline, with its whole process group accounted for.
//!
//! The command runs as `sh -c <command>` in its own process group, stdin from `/dev/null`.
//! Output is delivered line by line (stdout and stderr each in order) through a callback and
//! also kept (bounded, keeping the tail). On timeout or cancellation the group gets SIGTERM,
//! then SIGKILL after a short grace period; when the main process exits the group gets SIGKILL
//! anyway, so no background child outlives the call. Pipes held open by a process that escaped
//! the group (e.g. via `setsid`) are drained for a bounded time only.

use crate::protocol::OutputStream;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How much of each stream [`CommandOutcome`] keeps (the tail).
pub const OUTPUT_CAP_BYTES: usize = 8 * 1024 * 1024;
/// A line longer than this is delivered in pieces.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// Time between SIGTERM and SIGKILL on timeout or cancellation.
pub const TERM_GRACE: Duration = Duration::from_millis(300);
/// How long to keep reading pipes after the process group is gone.
pub const DRAIN_LIMIT: Duration = Duration::from_millis(500);

/// What to run.
#[derive(Debug, Clone)]
pub struct CommandSpec<'a> {
    /// Run with `sh -c`.
    pub command: &'a str,
    pub cwd: &'a Path,
    /// Added to the inherited environment.
    pub env: &'a [(String, String)],
    /// Removed from the inherited environment (before `env` is added).
    pub env_remove: &'a [String],
    pub timeout: Duration,
}

/// How a command ended, with its (tail-bounded) output.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandOutcome {
    /// The exit code; `None` when the process was ended by a signal.
    pub exit_code: Option<i32>,
    /// The signal that ended the main process, if one did.
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub cancelled: bool,
    /// Full stdout, capped at [`OUTPUT_CAP_BYTES`] keeping the tail.
    pub stdout: String,
    pub stderr: String,
    pub duration: Duration,
}

impl CommandOutcome {
    /// True when the command exited with 0 on its own.
    pub fn success(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.cancelled
    }
}

/// `text` as one `sh` word (single-quoted), for building commands from paths and JSON.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Run `spec.command`; `on_line` is called for every output line (without its newline).
/// Returns an error only if the shell could not be spawned.
pub async fn run_command(
    spec: &CommandSpec<'_>,
    cancel: &CancellationToken,
    on_line: &(dyn Fn(OutputStream, &str) + Send + Sync),
) -> std::io::Result<CommandOutcome> {
    let started = Instant::now();
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c").arg(spec.command).current_dir(spec.cwd);
    for name in spec.env_remove {
        cmd.env_remove(name);
    }
    cmd.envs(spec.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn()?;
    let mut group = GroupGuard::new(child.id());

    let (tx, mut rx) = mpsc::unbounded_channel::<(OutputStream, String)>();
    let mut readers = Vec::new();
    if let Some(out) = child.stdout.take() {
        readers.push(tokio::spawn(read_lines(
            out,
            OutputStream::Stdout,
            tx.clone(),
        )));
    }
    if let Some(err) = child.stderr.take() {
        readers.push(tokio::spawn(read_lines(
            err,
            OutputStream::Stderr,
            tx.clone(),
        )));
    }
    drop(tx);

    let mut stdout = TailBuffer::default();
    let mut stderr = TailBuffer::default();
    let mut deliver = |stream: OutputStream, line: String| {
        on_line(stream, &line);
        match stream {
            OutputStream::Stdout => stdout.push_line(&line),
            OutputStream::Stderr => stderr.push_line(&line),
        }
    };

    let deadline = tokio::time::sleep(spec.timeout);
    tokio::pin!(deadline);
    let far = Instant::now() + Duration::from_secs(86_400 * 365);
    let kill_timer = tokio::time::sleep_until(far);
    tokio::pin!(kill_timer);
    let drain_timer = tokio::time::sleep_until(far);
    tokio::pin!(drain_timer);

    let (mut timed_out, mut cancelled, mut terminating) = (false, false, false);
    let mut status: Option<ExitStatus> = None;
    let mut pipes_open = true;

    loop {
        if status.is_some() && !pipes_open {
            break;
        }
        tokio::select! {
            message = rx.recv(), if pipes_open => match message {
                Some((stream, line)) => deliver(stream, line),
                None => pipes_open = false,
            },
            exited = child.wait(), if status.is_none() => {
                // No background child may survive the main process.
                group.kill(Signal::SIGKILL);
                status = Some(exited?);
                drain_timer.as_mut().reset(Instant::now() + DRAIN_LIMIT);
            },
            _ = &mut deadline, if status.is_none() && !terminating => {
                timed_out = true;
                terminating = true;
                group.kill(Signal::SIGTERM);
                kill_timer.as_mut().reset(Instant::now() + TERM_GRACE);
            },
            _ = cancel.cancelled(), if status.is_none() && !terminating => {
                cancelled = true;
                terminating = true;
                group.kill(Signal::SIGTERM);
                kill_timer.as_mut().reset(Instant::now() + TERM_GRACE);
            },
            _ = &mut kill_timer, if status.is_none() && terminating => {
                group.kill(Signal::SIGKILL);
                kill_timer.as_mut().reset(far);
            },
            _ = &mut drain_timer, if status.is_some() && pipes_open => {
                // Something outside the group still holds the pipes: stop waiting for EOF,
                // keep what was already read.
                for reader in &readers {
                    reader.abort();
                }
                while let Ok((stream, line)) = rx.try_recv() {
                    deliver(stream, line);
                }
                pipes_open = false;
            },
        }
    }
    group.disarm();

    let status = status.ok_or_else(|| std::io::Error::other("child status missing"))?;
    Ok(CommandOutcome {
        exit_code: status.code(),
        signal: std::os::unix::process::ExitStatusExt::signal(&status),
        timed_out,
        cancelled,
        stdout: stdout.into_string(),
        stderr: stderr.into_string(),
        duration: started.elapsed(),
    })
}

/// Kills the child's process group when dropped (e.g. the caller's future was dropped).
struct GroupGuard {
    pgid: Option<Pid>,
}

impl GroupGuard {
    fn new(pid: Option<u32>) -> Self {
        GroupGuard {
            pgid: pid
                .and_then(|p| i32::try_from(p).ok())
                .filter(|p| *p > 1)
                .map(Pid::from_raw),
        }
    }

    fn kill(&self, signal: Signal) {
        if let Some(pgid) = self.pgid {
            // ESRCH (the group is already gone) is fine.
            let _ = killpg(pgid, signal);
        }
    }

    fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill(Signal::SIGKILL);
    }
}

/// Read `pipe` to EOF, sending each line (without `\n` / `\r\n`; bytes that are not UTF-8 as
/// `\xNN`, see [`escape_invalid_utf8`]).
async fn read_lines<R: AsyncRead + Unpin>(
    pipe: R,
    stream: OutputStream,
    tx: mpsc::UnboundedSender<(OutputStream, String)>,
) {
    let mut reader = BufReader::with_capacity(64 * 1024, pipe);
    let mut line: Vec<u8> = Vec::new();
    let send = |line: &mut Vec<u8>| {
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        let text = escape_invalid_utf8(line);
        line.clear();
        tx.send((stream, text)).is_ok()
    };
    while let Ok(chunk) = reader.fill_buf().await {
        if chunk.is_empty() {
            if !line.is_empty() {
                send(&mut line);
            }
            return;
        }
        let (used, complete) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => {
                line.extend_from_slice(&chunk[..i]);
                (i + 1, true)
            }
            None => {
                line.extend_from_slice(chunk);
                (chunk.len(), false)
            }
        };
        reader.consume(used);
        if (complete || line.len() >= MAX_LINE_BYTES) && !send(&mut line) {
            return;
        }
    }
}

/// Output bytes as text: valid UTF-8 as it is, every other byte as `\xNN`, so binary output
/// reaches the log, the model and the TUI visibly escaped instead of as U+FFFD.
fn escape_invalid_utf8(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

/// A text buffer that keeps at most [`OUTPUT_CAP_BYTES`], dropping from the front.
#[derive(Default)]
struct TailBuffer {
    text: String,
    dropped: bool,
}

impl TailBuffer {
    fn push_line(&mut self, line: &str) {
        self.text.push_str(line);
        self.text.push('\n');
        if self.text.len() > OUTPUT_CAP_BYTES {
            // Drop down to 3/4 of the cap so trimming is amortised, at a line boundary.
            let excess = self.text.len() - OUTPUT_CAP_BYTES * 3 / 4;
            let mut cut = excess;
            while !self.text.is_char_boundary(cut) {
                cut += 1;
            }
            if let Some(nl) = self.text[cut..].find('\n') {
                cut += nl + 1;
            }
            self.text.drain(..cut);
            self.dropped = true;
        }
    }

    fn into_string(self) -> String {
        if self.dropped {
            format!("[earlier output dropped]\n{}", self.text)
        } else {
            self.text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn bytes_that_are_not_utf8_are_escaped_not_replaced() {
        assert_eq!(
            escape_invalid_utf8(b"ok \xc3\xa9 \xff\xfe\x00end"),
            "ok é \\xff\\xfe\x00end"
        );
    }

    fn spec<'a>(command: &'a str, cwd: &'a Path, timeout: Duration) -> CommandSpec<'a> {
        CommandSpec {
            command,
            cwd,
            env: &[],
            env_remove: &[],
            timeout,
        }
    }

    #[tokio::test]
    async fn captures_both_streams_and_exit_code() {
        let dir = tempfile::tempdir().unwrap();
        let lines = Mutex::new(Vec::new());
        let on_line = |s: OutputStream, l: &str| lines.lock().unwrap().push((s, l.to_string()));
        let out = run_command(
            &spec(
                "echo one; echo two >&2; printf 'tail'; exit 3",
                dir.path(),
                Duration::from_secs(10),
            ),
            &CancellationToken::new(),
            &on_line,
        )
        .await
        .unwrap();
        assert_eq!(out.exit_code, Some(3));
        assert!(!out.success());
        assert_eq!(out.stdout, "one\ntail\n");
        assert_eq!(out.stderr, "two\n");
        let lines = lines.into_inner().unwrap();
        assert!(lines.contains(&(OutputStream::Stderr, "two".into())));
        assert_eq!(lines.len(), 3);
    }

    #[tokio::test]
    async fn env_and_cwd_are_applied() {
        let dir = tempfile::tempdir().unwrap();
        let env = [("AIPC_T".to_string(), "v1".to_string())];
        let out = run_command(
            &CommandSpec {
                command: "echo $AIPC_T; pwd",
                cwd: dir.path(),
                env: &env,
                env_remove: &[],
                timeout: Duration::from_secs(10),
            },
            &CancellationToken::new(),
            &|_, _| {},
        )
        .await
        .unwrap();
        let canon = dir.path().canonicalize().unwrap();
        assert_eq!(out.stdout, format!("v1\n{}\n", canon.display()));
        assert!(out.success());
    }

    #[test]
    fn shell_quote_survives_single_quotes() {
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn tail_buffer_keeps_the_end() {
        let mut buf = TailBuffer::default();
        let line = "x".repeat(1023);
        for _ in 0..(OUTPUT_CAP_BYTES / 1024 + 10) {
            buf.push_line(&line);
        }
        buf.push_line("last");
        let text = buf.into_string();
        assert!(text.len() <= OUTPUT_CAP_BYTES + 64);
        assert!(text.starts_with("[earlier output dropped]\n"));
        assert!(text.ends_with("last\n"));
    }
}
