//! Running a shell command under a deadline, inside the session's [`Sandbox`], with its whole
//! process group accounted for and its output bounded.
//!
//! The command runs as `sh -c <command>` (wrapped by the sandbox) in its own process group,
//! stdin from `/dev/null`, with the sandbox's environment and per-command resource limits.
//! Output is delivered line by line (stdout and stderr each in order) through a callback — but
//! only the first [`HEAD_LINES`] lines ([`HEAD_BYTES`]) and, at the end, the last
//! [`TAIL_LINES`] ([`TAIL_BYTES`]): what lies between is counted, written to the spill file
//! when the caller gives one (up to [`SPILL_CAP_BYTES`]), and announced in one line. Lines
//! travel through a bounded channel, so a command that floods its output is slowed to what the
//! log can take instead of filling memory, and the deadline still holds. On timeout or
//! cancellation the group gets SIGTERM, then SIGKILL after a short grace period; when the main
//! process exits the group gets SIGKILL anyway. A child that left the group (`setsid`, double
//! fork) dies with the command too: in the sandbox's PID namespace, and — sandbox or not —
//! through the command's pids cgroup where one can be made ([`crate::sandbox::cgroup`], which
//! also bounds a fork bomb); otherwise pipes held open by such a child are drained for a
//! bounded time only.

use crate::protocol::OutputStream;
use crate::sandbox::cgroup::{self, CommandCgroup};
use crate::sandbox::Sandbox;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
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
/// Lines delivered as they arrive, before the rest is held back.
pub const HEAD_LINES: u64 = 2_000;
/// Bytes delivered as they arrive, before the rest is held back.
pub const HEAD_BYTES: u64 = 512 * 1024;
/// Lines delivered at the end from what was held back (the last ones).
pub const TAIL_LINES: usize = 200;
/// Bytes delivered at the end from what was held back (a tail of long lines is cut to this).
pub const TAIL_BYTES: u64 = 256 * 1024;
/// Largest spill file; output beyond it is only counted.
pub const SPILL_CAP_BYTES: u64 = 256 * 1024 * 1024;
/// Lines in flight between the pipe readers and the consumer.
const CHANNEL_LINES: usize = 1024;
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
    /// Added to the inherited environment (the sandbox then filters it).
    pub env: &'a [(String, String)],
    /// Removed from the inherited environment (before `env` is added).
    pub env_remove: &'a [String],
    pub timeout: Duration,
    /// Where and how confined the command runs.
    pub sandbox: &'a Sandbox,
    /// The whole output beyond the delivered head goes here (created on demand).
    pub spill: Option<PathBuf>,
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
    /// Lines (and their bytes) that were not delivered through the callback.
    pub held_back_lines: u64,
    pub held_back_bytes: u64,
    /// The spill file, when output was held back and a spill path was given.
    pub spill: Option<PathBuf>,
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

/// The environment of a command: the inherited one, `remove` removed, `set` applied, then
/// the sandbox's allow-list.
fn environment(spec: &CommandSpec<'_>) -> Vec<(String, String)> {
    let mut vars: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| !spec.env_remove.contains(k))
        .collect();
    for (k, v) in spec.env {
        vars.retain(|(name, _)| name != k);
        vars.push((k.clone(), v.clone()));
    }
    spec.sandbox.environment(vars)
}

/// Run `spec.command`; `on_line` is called for every delivered output line (without its
/// newline). Returns an error only if the command could not be spawned.
pub async fn run_command(
    spec: &CommandSpec<'_>,
    cancel: &CancellationToken,
    on_line: &(dyn Fn(OutputStream, &str) + Send + Sync),
) -> std::io::Result<CommandOutcome> {
    let started = Instant::now();
    let (program, args) = spec.sandbox.argv(spec.command, spec.cwd);
    let mut cmd = tokio::process::Command::new(&program);
    cmd.args(&args)
        .current_dir(spec.cwd)
        .env_clear()
        .envs(environment(spec))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let limits = spec.sandbox.limits().clone();
    let (timeout, cores) = (spec.timeout, cores());
    // Everything the command starts is counted and killed together, where a cgroup can be
    // made (with or without the sandbox).
    let cgroup = CommandCgroup::create(limits.max_pids);
    let join_fd = cgroup.as_ref().map(CommandCgroup::procs_fd);
    // SAFETY: the closure only calls `write` (joining the cgroup) and `getrlimit`/`setrlimit`,
    // which are async-signal-safe, and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if let Some(fd) = join_fd {
                cgroup::join(fd)?;
            }
            limits.apply(timeout, cores)
        });
    }
    let mut child = cmd.spawn()?;
    let mut group = GroupGuard::new(child.id());

    let (tx, mut rx) = mpsc::channel::<(OutputStream, String)>(CHANNEL_LINES);
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
    let mut gate = OutputGate::new(spec.spill.clone());
    let mut deliver = |stream: OutputStream, line: String| {
        match stream {
            OutputStream::Stdout => stdout.push_line(&line),
            OutputStream::Stderr => stderr.push_line(&line),
        }
        if let Some(line) = gate.admit(stream, line) {
            on_line(stream, &line);
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
            // Timers and the exit come first: a flood of lines must not starve them.
            biased;
            exited = child.wait(), if status.is_none() => {
                // No background child may survive the main process.
                group.kill(Signal::SIGKILL);
                if let Some(cgroup) = &cgroup {
                    cgroup.kill_all();
                }
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
            message = rx.recv(), if pipes_open => match message {
                Some((stream, line)) => deliver(stream, line),
                None => pipes_open = false,
            },
        }
    }
    group.disarm();
    // Kill what is left in the cgroup and remove it.
    drop(cgroup);
    let held_back = gate.finish();
    for (stream, line) in &held_back.lines {
        on_line(*stream, line);
    }

    let status = status.ok_or_else(|| std::io::Error::other("child status missing"))?;
    Ok(CommandOutcome {
        exit_code: status.code(),
        signal: std::os::unix::process::ExitStatusExt::signal(&status),
        timed_out,
        cancelled,
        stdout: stdout.into_string(),
        stderr: stderr.into_string(),
        duration: started.elapsed(),
        held_back_lines: held_back.count,
        held_back_bytes: held_back.bytes,
        spill: held_back.spill,
    })
}

/// CPU cores available to this process (for the CPU-time limit).
fn cores() -> u64 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u64)
}

/// Decides which lines are delivered as they arrive: the head, then nothing until the end,
/// when the tail of what was held back is delivered after one line that says how much was
/// held back and where it is.
struct OutputGate {
    delivered_lines: u64,
    delivered_bytes: u64,
    tail: VecDeque<(OutputStream, String)>,
    tail_bytes: u64,
    count: u64,
    bytes: u64,
    spill_path: Option<PathBuf>,
    spill: Option<std::io::BufWriter<std::fs::File>>,
    spilled_bytes: u64,
    spill_failed: bool,
}

/// What [`OutputGate::finish`] hands back.
struct HeldBack {
    /// The announcement and the tail, to deliver now.
    lines: Vec<(OutputStream, String)>,
    count: u64,
    bytes: u64,
    spill: Option<PathBuf>,
}

impl OutputGate {
    fn new(spill_path: Option<PathBuf>) -> Self {
        OutputGate {
            delivered_lines: 0,
            delivered_bytes: 0,
            tail: VecDeque::new(),
            tail_bytes: 0,
            count: 0,
            bytes: 0,
            spill_path,
            spill: None,
            spilled_bytes: 0,
            spill_failed: false,
        }
    }

    /// `Some(line)` when the line is delivered now.
    fn admit(&mut self, stream: OutputStream, line: String) -> Option<String> {
        let len = line.len() as u64 + 1;
        if self.count == 0
            && self.delivered_lines < HEAD_LINES
            && self.delivered_bytes + len <= HEAD_BYTES
        {
            self.delivered_lines += 1;
            self.delivered_bytes += len;
            return Some(line);
        }
        self.count += 1;
        self.bytes += len;
        self.spill_line(stream, &line);
        self.tail_bytes += len;
        self.tail.push_back((stream, line));
        while self.tail.len() > TAIL_LINES || (self.tail_bytes > TAIL_BYTES && self.tail.len() > 1)
        {
            if let Some((_, dropped)) = self.tail.pop_front() {
                self.tail_bytes -= dropped.len() as u64 + 1;
            }
        }
        None
    }

    fn spill_line(&mut self, stream: OutputStream, line: &str) {
        if self.spill_failed || self.spilled_bytes >= SPILL_CAP_BYTES {
            return;
        }
        let Some(path) = &self.spill_path else {
            return;
        };
        if self.spill.is_none() {
            let opened = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::File::create(path));
            match opened {
                Ok(file) => self.spill = Some(std::io::BufWriter::new(file)),
                Err(_) => {
                    self.spill_failed = true;
                    return;
                }
            }
        }
        if let Some(file) = &mut self.spill {
            let tag = match stream {
                OutputStream::Stdout => "",
                OutputStream::Stderr => "[stderr] ",
            };
            if writeln!(file, "{tag}{line}").is_err() {
                self.spill_failed = true;
            }
            self.spilled_bytes += line.len() as u64 + 1;
        }
    }

    fn finish(mut self) -> HeldBack {
        if let Some(file) = &mut self.spill {
            if file.flush().is_err() {
                self.spill_failed = true;
            }
        }
        let spill = (self.spill.is_some() && !self.spill_failed)
            .then(|| self.spill_path.clone())
            .flatten();
        let mut lines = Vec::new();
        if self.count > 0 {
            let shown = self.tail.len() as u64;
            let where_ = match &spill {
                Some(path) if self.spilled_bytes >= SPILL_CAP_BYTES => format!(
                    "; the first {} MiB of it are in {}",
                    SPILL_CAP_BYTES >> 20,
                    path.display()
                ),
                Some(path) => format!("; all of it is in {}", path.display()),
                None => String::new(),
            };
            lines.push((
                OutputStream::Stderr,
                format!(
                    "[aipc: {} more lines ({} bytes) of output were not streamed; the last {shown} \
                     follow{where_}]",
                    self.count, self.bytes
                ),
            ));
            lines.extend(self.tail.drain(..));
        }
        HeldBack {
            lines,
            count: self.count,
            bytes: self.bytes,
            spill,
        }
    }
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
    tx: mpsc::Sender<(OutputStream, String)>,
) {
    let mut reader = BufReader::with_capacity(64 * 1024, pipe);
    let mut line: Vec<u8> = Vec::new();
    let take = |line: &mut Vec<u8>| {
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        let text = escape_invalid_utf8(line);
        line.clear();
        text
    };
    while let Ok(chunk) = reader.fill_buf().await {
        if chunk.is_empty() {
            if !line.is_empty() {
                let _ = tx.send((stream, take(&mut line))).await;
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
        if (complete || line.len() >= MAX_LINE_BYTES)
            && tx.send((stream, take(&mut line))).await.is_err()
        {
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
            sandbox: off(),
            spill: None,
        }
    }

    fn off() -> &'static Sandbox {
        static OFF: std::sync::OnceLock<Sandbox> = std::sync::OnceLock::new();
        OFF.get_or_init(|| Sandbox::off(Path::new("/")))
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
                sandbox: off(),
                spill: None,
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
