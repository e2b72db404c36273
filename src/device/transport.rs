//! How files and commands reach a device: [`Ssh`] (the OpenSSH client, so the user's keys,
//! `~/.ssh/config` and known hosts apply) and [`Adb`] (Android's `adb`), behind one
//! [`Transport`] interface: push files into a folder, run a shell command, pull a folder back,
//! remove a folder. Each step is one program run under a deadline with its output bounded; a
//! step that failed because the connection did (ssh's exit 255, adb's "device offline") is
//! marked transient, so the job runner can try it again.

use super::{DeviceConfig, DeviceKind};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The tail of a stream a step keeps.
const TAIL_BYTES: usize = 64 * 1024;
/// The most a pull may bring back (outputs of one job).
pub(crate) const PULL_CAP_BYTES: u64 = 4 << 30;

/// A step that failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct StepError {
    /// The connection failed (worth another try); otherwise the step itself did.
    pub transient: bool,
    pub message: String,
}

impl StepError {
    fn transient(message: impl Into<String>) -> Self {
        StepError {
            transient: true,
            message: message.into(),
        }
    }
    fn fatal(message: impl Into<String>) -> Self {
        StepError {
            transient: false,
            message: message.into(),
        }
    }
}

/// A command's end on the device.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ExecOutput {
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Files in, commands run, files out.
pub(crate) trait Transport: Send {
    /// Copy `files` (local path, name) into the device folder `remote` (created).
    fn push(
        &self,
        files: &[(PathBuf, String)],
        remote: &str,
        timeout: Duration,
    ) -> Result<(), StepError>;
    /// Run `command` with the device's `sh`.
    fn exec(&self, command: &str, timeout: Duration) -> Result<ExecOutput, StepError>;
    /// Copy the device folder `remote`'s contents into `local` (created; must not exist).
    fn pull(&self, remote: &str, local: &Path, timeout: Duration) -> Result<(), StepError>;
}

/// The transport of a (non-local) device.
pub(crate) fn open(config: &DeviceConfig) -> Box<dyn Transport> {
    match config.kind {
        DeviceKind::Adb => Box::new(Adb::new(config)),
        _ => Box::new(Ssh::new(config)),
    }
}

/// `text` as one `sh` word.
pub(crate) fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A finished program.
struct Finished {
    code: Option<i32>,
    timed_out: bool,
    stdout: String,
    stderr: String,
    /// What the stdin writer or stdout reader reported, if it failed.
    io_error: Option<String>,
}

type Writer = Box<dyn FnOnce(&mut dyn Write) -> std::io::Result<()> + Send>;
type Reader = Box<dyn FnOnce(&mut dyn Read) -> std::io::Result<()> + Send>;

/// Run `cmd` until it ends or `timeout` passes (then it is killed): `writer` feeds its stdin,
/// `reader` consumes its stdout (else the tail is kept); stderr's tail is kept.
fn run(
    mut cmd: Command,
    timeout: Duration,
    writer: Option<Writer>,
    reader: Option<Reader>,
) -> Result<Finished, String> {
    cmd.stdin(if writer.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let program = format!("{:?}", cmd.get_program());
    let mut child: Child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let feed = std::thread::spawn(move || -> Option<String> {
        let (Some(mut stdin), Some(writer)) = (stdin, writer) else {
            return None;
        };
        writer(&mut stdin).err().map(|e| e.to_string())
    });
    let out = std::thread::spawn(move || -> (String, Option<String>) {
        let Some(mut stdout) = stdout else {
            return (String::new(), None);
        };
        match reader {
            Some(reader) => {
                let result = reader(&mut stdout).err().map(|e| e.to_string());
                // Drain what is left so the program is not blocked on a full pipe.
                let _ = std::io::copy(&mut stdout, &mut std::io::sink());
                (String::new(), result)
            }
            None => (tail(&mut stdout), None),
        }
    });
    let err = std::thread::spawn(move || stderr.map(|mut s| tail(&mut s)).unwrap_or_default());
    let deadline = Instant::now() + timeout;
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("waiting for {program}: {e}")),
        }
    };
    let feed_error = feed
        .join()
        .unwrap_or(Some("the stdin writer panicked".into()));
    let (stdout, read_error) = out
        .join()
        .unwrap_or((String::new(), Some("the stdout reader panicked".into())));
    let stderr = err.join().unwrap_or_default();
    Ok(Finished {
        code: status.and_then(|s| s.code()),
        timed_out,
        stdout,
        stderr,
        io_error: read_error.or(feed_error),
    })
}

/// Read `r` to its end, keeping the last [`TAIL_BYTES`].
fn tail(r: &mut dyn Read) -> String {
    let mut kept: Vec<u8> = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > 2 * TAIL_BYTES {
                    kept.drain(..kept.len() - TAIL_BYTES);
                }
            }
        }
    }
    if kept.len() > TAIL_BYTES {
        kept.drain(..kept.len() - TAIL_BYTES);
    }
    String::from_utf8_lossy(&kept).into_owned()
}

/// The last line of `text` that says something, for one-line messages.
fn last_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
}

/// A tar stream of `files` written to `w`.
fn write_tar(files: Vec<(PathBuf, String)>, w: &mut dyn Write) -> std::io::Result<()> {
    let mut builder = tar::Builder::new(w);
    builder.follow_symlinks(true);
    for (path, name) in &files {
        builder.append_path_with_name(path, name)?;
    }
    builder.finish()
}

/// Unpack a tar stream from `r` into `local`, at most [`PULL_CAP_BYTES`] (the tar crate refuses
/// entries that would land outside `local`).
fn unpack_tar(r: &mut dyn Read, local: &Path) -> std::io::Result<()> {
    let limited = r.take(PULL_CAP_BYTES);
    let mut archive = tar::Archive::new(limited);
    archive.set_preserve_permissions(false);
    archive.set_overwrite(true);
    archive.unpack(local)
}

/// The OpenSSH client.
pub(crate) struct Ssh {
    program: String,
    destination: String,
    options: Vec<String>,
}

impl Ssh {
    pub(crate) fn new(config: &DeviceConfig) -> Ssh {
        let mut options: Vec<String> = [
            "BatchMode=yes",
            "StrictHostKeyChecking=yes",
            "ServerAliveInterval=5",
            "ServerAliveCountMax=3",
            "LogLevel=ERROR",
        ]
        .iter()
        .flat_map(|o| ["-o".to_string(), o.to_string()])
        .collect();
        options.extend([
            "-o".into(),
            format!("ConnectTimeout={}", config.connect_timeout_s),
        ]);
        if let Some(known) = config.known_hosts_path() {
            options.extend([
                "-o".into(),
                format!("UserKnownHostsFile={}", known.display()),
            ]);
        }
        if let Some(identity) = config.identity_path() {
            options.extend(["-i".into(), identity.display().to_string()]);
            options.extend(["-o".into(), "IdentitiesOnly=yes".into()]);
        }
        if let Some(port) = config.port {
            options.extend(["-p".into(), port.to_string()]);
        }
        let host = config.host.clone().unwrap_or_default();
        Ssh {
            program: config.program.clone().unwrap_or_else(|| "ssh".into()),
            destination: match &config.user {
                Some(user) => format!("{user}@{host}"),
                None => host,
            },
            options,
        }
    }

    fn command(&self, remote: &str) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.options)
            .arg("--")
            .arg(&self.destination)
            .arg(remote);
        cmd
    }

    /// ssh exits 255 for its own errors (connection refused or lost, authentication, host key).
    fn judge(&self, what: &str, f: Finished) -> Result<Finished, StepError> {
        if f.timed_out {
            return Err(StepError::transient(format!(
                "{what}: no answer within the deadline"
            )));
        }
        match f.code {
            Some(255) => Err(StepError::transient(format!(
                "{what}: ssh failed (exit 255): {}",
                last_line(&f.stderr)
            ))),
            None => Err(StepError::transient(format!(
                "{what}: ssh was ended by a signal"
            ))),
            _ => Ok(f),
        }
    }
}

impl Ssh {
    /// The end of a tar stream through ssh: a broken stream is a lost connection; the device's
    /// tar failing is not.
    fn streamed(&self, what: &str, remote: &str, f: Finished) -> Result<(), StepError> {
        let f = self.judge(what, f)?;
        match (f.code, &f.io_error) {
            (Some(0), None) => Ok(()),
            (Some(0), Some(e)) => Err(StepError::transient(format!(
                "{what} {remote}: the stream broke: {e}"
            ))),
            (code, _) => Err(StepError::fatal(format!(
                "{what} {remote}: the device's tar exited {code:?}: {}",
                last_line(&f.stderr)
            ))),
        }
    }
}

impl Transport for Ssh {
    fn push(
        &self,
        files: &[(PathBuf, String)],
        remote: &str,
        timeout: Duration,
    ) -> Result<(), StepError> {
        let r = quote(remote);
        let cmd = self.command(&format!("mkdir -p {r} && tar -xf - -C {r}"));
        let files = files.to_vec();
        let f = run(
            cmd,
            timeout,
            Some(Box::new(move |w| write_tar(files, w))),
            None,
        )
        .map_err(StepError::fatal)?;
        self.streamed("push into", remote, f)
    }

    fn exec(&self, command: &str, timeout: Duration) -> Result<ExecOutput, StepError> {
        let f = run(self.command(command), timeout, None, None).map_err(StepError::fatal)?;
        let f = self.judge("run", f)?;
        Ok(ExecOutput {
            exit_code: f.code.unwrap_or(-1),
            stdout: f.stdout,
            stderr: f.stderr,
        })
    }

    fn pull(&self, remote: &str, local: &Path, timeout: Duration) -> Result<(), StepError> {
        std::fs::create_dir_all(local).map_err(|e| {
            StepError::fatal(format!("pull: cannot create {}: {e}", local.display()))
        })?;
        let cmd = self.command(&format!("tar -cf - -C {} .", quote(remote)));
        let into = local.to_path_buf();
        let f = run(
            cmd,
            timeout,
            None,
            Some(Box::new(move |r| unpack_tar(r, &into))),
        )
        .map_err(StepError::fatal)?;
        self.streamed("pull from", remote, f)
    }
}

/// Android's adb (push / shell / pull).
pub(crate) struct Adb {
    program: String,
    serial: Option<String>,
}

/// adb's own words for a connection that is gone (its exit code is 1 either way).
const ADB_CONNECTION_LOST: &[&str] = &[
    "device offline",
    "no devices/emulators found",
    "device not found",
    "error: closed",
    "protocol fault",
    "cannot connect",
    "connection reset",
];

impl Adb {
    pub(crate) fn new(config: &DeviceConfig) -> Adb {
        Adb {
            program: config.program.clone().unwrap_or_else(|| "adb".into()),
            serial: config.serial.clone(),
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.program);
        if let Some(serial) = &self.serial {
            cmd.args(["-s", serial]);
        }
        cmd.args(args);
        cmd
    }

    fn lost(f: &Finished) -> bool {
        let text = f.stderr.to_lowercase();
        f.code != Some(0) && ADB_CONNECTION_LOST.iter().any(|m| text.contains(m))
    }

    fn simple(&self, what: &str, args: &[&str], timeout: Duration) -> Result<Finished, StepError> {
        let f = run(self.command(args), timeout, None, None).map_err(StepError::fatal)?;
        if f.timed_out {
            return Err(StepError::transient(format!(
                "{what}: no answer within the deadline"
            )));
        }
        if Adb::lost(&f) {
            return Err(StepError::transient(format!(
                "{what}: adb lost the device: {}",
                last_line(&f.stderr)
            )));
        }
        Ok(f)
    }
}

impl Transport for Adb {
    fn push(
        &self,
        files: &[(PathBuf, String)],
        remote: &str,
        timeout: Duration,
    ) -> Result<(), StepError> {
        let f = self.simple(
            "push",
            &["shell", &format!("mkdir -p {}", quote(remote))],
            timeout,
        )?;
        if f.code != Some(0) {
            return Err(StepError::fatal(format!(
                "push: cannot create {remote}: {}",
                last_line(&f.stderr)
            )));
        }
        for (path, name) in files {
            let local = path.display().to_string();
            let to = format!("{remote}/{name}");
            let f = self.simple("push", &["push", &local, &to], timeout)?;
            if f.code != Some(0) {
                return Err(StepError::fatal(format!(
                    "push {local} -> {to}: {}",
                    last_line(&f.stderr)
                )));
            }
        }
        Ok(())
    }

    fn exec(&self, command: &str, timeout: Duration) -> Result<ExecOutput, StepError> {
        let f = self.simple("run", &["shell", command], timeout)?;
        Ok(ExecOutput {
            exit_code: f.code.unwrap_or(-1),
            stdout: f.stdout,
            stderr: f.stderr,
        })
    }

    fn pull(&self, remote: &str, local: &Path, timeout: Duration) -> Result<(), StepError> {
        // `adb pull <dir> <new path>` creates the path with the folder's contents.
        if local.exists() {
            std::fs::remove_dir_all(local).map_err(|e| {
                StepError::fatal(format!("pull: cannot clear {}: {e}", local.display()))
            })?;
        }
        let target = local.display().to_string();
        let f = self.simple("pull", &["pull", remote, &target], timeout)?;
        if f.code != Some(0) {
            return Err(StepError::fatal(format!(
                "pull {remote}: {}",
                last_line(&f.stderr)
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_quotes() {
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn a_program_past_its_deadline_is_killed_and_output_is_kept() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo start; echo oops >&2; sleep 30"]);
        let f = run(cmd, Duration::from_millis(300), None, None).unwrap();
        assert!(f.timed_out);
        assert_eq!(f.stdout.trim(), "start");
        assert_eq!(f.stderr.trim(), "oops");
    }

    #[test]
    fn a_tar_stream_round_trips_and_stays_inside_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.bin");
        std::fs::write(&a, b"payload").unwrap();
        let mut bytes = Vec::new();
        write_tar(vec![(a, "model.onnx".into())], &mut bytes).unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        unpack_tar(&mut bytes.as_slice(), &out).unwrap();
        assert_eq!(std::fs::read(out.join("model.onnx")).unwrap(), b"payload");
    }

    #[test]
    fn ssh_options_check_host_keys_and_use_the_given_key() {
        let config = DeviceConfig::from_toml(
            "[device]\nkind = \"ssh\"\nhost = \"h\"\nuser = \"u\"\nport = 2200\nidentity_file = \"/k\"\nknown_hosts = \"/kh\"\n",
            "aipc.toml",
        )
        .unwrap()
        .unwrap();
        let ssh = Ssh::new(&config);
        let words = ssh.options.join(" ");
        assert!(words.contains("StrictHostKeyChecking=yes"), "{words}");
        assert!(words.contains("BatchMode=yes"), "{words}");
        assert!(words.contains("UserKnownHostsFile=/kh"), "{words}");
        assert!(words.contains("-i /k"), "{words}");
        assert!(words.contains("-p 2200"), "{words}");
        assert_eq!(ssh.destination, "u@h");
    }
}
