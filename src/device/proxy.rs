//! The engine's side of device execution: a Unix socket that sandboxed commands reach (the
//! socket's folder is the only thing about the device they see: no keys, no network), served
//! by one thread that carries out each job ([`super::job`]) and answers with one JSON line.
//!
//! A device failure (the connection still lost after the retries) is kept in [`DeviceLink`]
//! for the engine to end the session with exit 3 once the command that met it returns.

use super::job::{JobError, JobReply, JobRequest, JobRunner};
use super::{transport, DeviceConfig};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The longest request line read from the socket.
const REQUEST_CAP_BYTES: u64 = 1 << 20;

/// A live link to the session's device: the socket, its serving thread, the device failure
/// if one happened.
pub(crate) struct DeviceLink {
    socket: PathBuf,
    /// Holds the socket's folder (removed on drop).
    _dir: tempfile::TempDir,
    stop: Arc<AtomicBool>,
    failure: Arc<Mutex<Option<String>>>,
    thread: Option<JoinHandle<()>>,
    describe: String,
    runner_version: String,
}

impl DeviceLink {
    /// Reach the device (its runner must start), then serve jobs for the commands of a session
    /// whose worktree is `workspace`.
    pub(crate) fn start(
        config: &DeviceConfig,
        session: &str,
        workspace: &Path,
    ) -> Result<DeviceLink, String> {
        let workspace = workspace
            .canonicalize()
            .map_err(|e| format!("worktree {}: {e}", workspace.display()))?;
        let runner = JobRunner::new(transport::open(config), config.clone(), session, workspace);
        let runner_version = runner.probe().map_err(|e| {
            format!("{e}; check the [device] table of aipc.toml (docs/device.md), or `aipc doctor`")
        })?;
        let dir = tempfile::Builder::new()
            .prefix("aipc-device-")
            .tempdir()
            .map_err(|e| format!("cannot make the device socket's folder: {e}"))?;
        let socket = dir.path().join("s");
        let listener = UnixListener::bind(&socket)
            .map_err(|e| format!("cannot listen on {}: {e}", socket.display()))?;
        let stop = Arc::new(AtomicBool::new(false));
        let failure = Arc::new(Mutex::new(None));
        let thread = {
            let (stop, failure) = (stop.clone(), failure.clone());
            std::thread::Builder::new()
                .name("aipc-device".into())
                .spawn(move || serve(listener, runner, &stop, &failure))
                .map_err(|e| format!("cannot start the device thread: {e}"))?
        };
        Ok(DeviceLink {
            socket,
            _dir: dir,
            stop,
            failure,
            thread: Some(thread),
            describe: config.describe(),
            runner_version,
        })
    }

    /// The socket's folder (bound read-only into the sandbox).
    pub(crate) fn socket_dir(&self) -> PathBuf {
        self.socket
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// The variables a command needs to reach the device.
    pub(crate) fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AIPC_DEVICE_SOCKET", self.socket.display().to_string()),
            ("AIPC_DEVICE", self.describe.clone()),
        ]
    }

    pub(crate) fn describe(&self) -> &str {
        &self.describe
    }

    /// The device runner's Python version, as the probe read it.
    pub(crate) fn runner_version(&self) -> &str {
        &self.runner_version
    }

    /// The device failure that should end the session, if one happened (taken once).
    pub(crate) fn take_failure(&self) -> Option<String> {
        self.failure.lock().ok().and_then(|mut f| f.take())
    }
}

impl Drop for DeviceLink {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the stop flag.
        let _ = UnixStream::connect(&self.socket);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(
    listener: UnixListener,
    mut runner: JobRunner,
    stop: &AtomicBool,
    failure: &Mutex<Option<String>>,
) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        let (reply, device_failed) = handle(&stream, &mut runner);
        if device_failed {
            if let Ok(mut slot) = failure.lock() {
                slot.get_or_insert(reply.error.clone());
            }
        }
        let mut writer = &stream;
        if let Ok(line) = serde_json::to_string(&reply) {
            let _ = writer.write_all(line.as_bytes());
            let _ = writer.write_all(b"\n");
        }
    }
    runner.clean_up();
}

/// The reply to one request, and whether the device itself failed.
fn handle(stream: &UnixStream, runner: &mut JobRunner) -> (JobReply, bool) {
    let device = runner.device();
    let refuse = |error: String| JobReply {
        ok: false,
        exit_code: 0,
        stdout: String::new(),
        stderr: String::new(),
        push_s: 0.0,
        run_s: 0.0,
        pull_s: 0.0,
        retries: 0,
        pushed_bundle: false,
        device: device.clone(),
        error,
    };
    let mut line = String::new();
    if let Err(e) = BufReader::new(stream.take(REQUEST_CAP_BYTES)).read_line(&mut line) {
        return (refuse(format!("request: {e}")), false);
    }
    let request: JobRequest = match serde_json::from_str(&line) {
        Ok(r) => r,
        Err(e) => return (refuse(format!("request is not a job: {e}")), false),
    };
    match runner.run(&request) {
        Ok(reply) => (reply, false),
        Err(e @ JobError::Device { .. }) => (refuse(e.to_string()), true),
        Err(JobError::Request(m)) => (refuse(format!("job refused: {m}")), false),
    }
}
