//! One execution on the device: push the artifact bundle (once per content), push the job
//! folder, run the target's device runner there, pull its `out/` folder back, remove the job's
//! device folder. A step whose connection failed is tried again up to `retries` times (with a
//! growing pause); when it still fails the job fails with the device, the step and the reason,
//! and the session ends (exit 3): a device that is gone is not something the model can repair.
//! The runner's own failure (an exception on the device, a non-zero exit) is not a transport
//! failure: its exit code and output go back to the script, which reports it as it would
//! locally.

use super::transport::{quote, StepError, Transport};
use super::DeviceConfig;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// The device runner's file name in a job folder.
pub(crate) const RUNNER_FILE: &str = "device_runner.py";
/// The job description's file name in a job folder.
pub(crate) const JOB_FILE: &str = "job.json";

/// What a script asks for (one JSON line on the socket).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub(crate) struct JobRequest {
    /// The local job folder (inside the worktree): `job.json`, `device_runner.py`, inputs.
    pub job_dir: PathBuf,
    /// The artifact's files (inside the worktree), pushed side by side into one device folder
    /// that the runner gets as its argument (e.g. `model.onnx` and `model.onnx.data`).
    #[serde(default)]
    pub bundle: Vec<PathBuf>,
    /// Seconds the run may take (default: the device's `job_timeout_s`).
    pub timeout_s: Option<u64>,
}

/// What the job did (one JSON line back).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub(crate) struct JobReply {
    pub ok: bool,
    /// The device runner's exit code (`ok`).
    #[serde(default)]
    pub exit_code: i32,
    #[serde(default)]
    pub stdout: String,
    #[serde(default)]
    pub stderr: String,
    /// Seconds spent pushing (bundle and job), running and pulling.
    #[serde(default)]
    pub push_s: f64,
    #[serde(default)]
    pub run_s: f64,
    #[serde(default)]
    pub pull_s: f64,
    /// Steps tried again after a lost connection.
    #[serde(default)]
    pub retries: u32,
    /// Whether the artifact bundle was pushed by this job (else it was there already).
    #[serde(default)]
    pub pushed_bundle: bool,
    pub device: String,
    /// Why the job failed (`!ok`): device, step and reason.
    #[serde(default)]
    pub error: String,
}

/// A job that could not be carried out.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum JobError {
    /// The request itself is wrong (a path outside the worktree, no runner): the script's bug.
    #[error("{0}")]
    Request(String),
    /// The device or the connection failed: the session ends.
    #[error("device {device}: step `{step}` failed after {attempts} attempt(s): {message}")]
    Device {
        device: String,
        step: String,
        attempts: u32,
        message: String,
    },
}

/// Runs jobs on one device for one session.
pub(crate) struct JobRunner {
    transport: Box<dyn Transport>,
    config: DeviceConfig,
    /// The session's folder on the device.
    root: String,
    /// The local folder every job and bundle file must be inside.
    workspace: PathBuf,
    /// Bundles already on the device (by content key).
    pushed: HashSet<String>,
    /// Content keys of files already hashed: (path, length, mtime) -> sha256.
    hashes: BTreeMap<(PathBuf, u64, Option<SystemTime>), String>,
    next_job: u64,
    /// Pause before the first retry (doubled for each next one).
    backoff: Duration,
}

impl JobRunner {
    pub(crate) fn new(
        transport: Box<dyn Transport>,
        config: DeviceConfig,
        session: &str,
        workspace: PathBuf,
    ) -> JobRunner {
        let root = format!("{}/{}", config.work_dir(), session);
        JobRunner {
            transport,
            config,
            root,
            workspace,
            pushed: HashSet::new(),
            hashes: BTreeMap::new(),
            next_job: 0,
            backoff: Duration::from_secs(1),
        }
    }

    #[cfg(test)]
    pub(crate) fn with_backoff(mut self, backoff: Duration) -> JobRunner {
        self.backoff = backoff;
        self
    }

    pub(crate) fn device(&self) -> String {
        self.config.describe()
    }

    fn job_timeout(&self) -> Duration {
        Duration::from_secs(self.config.job_timeout_s)
    }

    /// `f` until it succeeds, fails for good, or `retries` retries were spent.
    fn step<T>(
        &self,
        name: &str,
        retries: &mut u32,
        mut f: impl FnMut() -> Result<T, StepError>,
    ) -> Result<T, JobError> {
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            match f() {
                Ok(v) => return Ok(v),
                Err(e) if e.transient && attempt <= self.config.retries => {
                    *retries += 1;
                    std::thread::sleep(self.backoff * 2u32.pow(attempt - 1));
                }
                Err(e) => {
                    return Err(JobError::Device {
                        device: self.device(),
                        step: name.to_string(),
                        attempts: attempt,
                        message: e.message,
                    })
                }
            }
        }
    }

    /// Check the device answers and its runner starts; creates the session's folder there.
    pub(crate) fn probe(&self) -> Result<String, JobError> {
        let command = format!(
            "mkdir -p {} && {} -c 'import sys; print(sys.version.split()[0])'",
            quote(&self.root),
            self.config.runner()
        );
        let timeout = Duration::from_secs(self.config.connect_timeout_s + 30);
        let mut retries = 0;
        let out = self.step("probe", &mut retries, || {
            self.transport.exec(&command, timeout)
        })?;
        if out.exit_code != 0 {
            return Err(JobError::Device {
                device: self.device(),
                step: "probe".into(),
                attempts: 1,
                message: format!(
                    "`{}` on the device exited {}: {} (set [device] runner to a Python with the target's runtime)",
                    self.config.runner(),
                    out.exit_code,
                    out.stderr.trim().lines().last().unwrap_or("")
                ),
            });
        }
        Ok(out.stdout.trim().to_string())
    }

    /// Which runtimes the device's runner imports: `numpy 1.26.4, onnxruntime 1.23.2,
    /// executorch.runtime missing` (for `aipc doctor`).
    pub(crate) fn runtimes(&self) -> Result<String, JobError> {
        let script = "import importlib\nfor m in ('numpy', 'onnxruntime', 'executorch.runtime'):\n    try:\n        x = importlib.import_module(m)\n        print(m, getattr(x, '__version__', 'present'))\n    except Exception as e:\n        print(m, 'missing')\n";
        let command = format!("{} -c {}", self.config.runner(), quote(script));
        let timeout = Duration::from_secs(self.config.connect_timeout_s + 120);
        let mut retries = 0;
        let out = self.step("probe runtimes", &mut retries, || {
            self.transport.exec(&command, timeout)
        })?;
        Ok(out
            .stdout
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(", "))
    }

    /// Remove the session's folder on the device (best effort, at the session's end).
    pub(crate) fn clean_up(&self) {
        let _ = self.transport.exec(
            &format!("rm -rf {}", quote(&self.root)),
            Duration::from_secs(self.config.connect_timeout_s + 30),
        );
    }

    fn inside(&self, path: &Path, what: &str) -> Result<PathBuf, JobError> {
        let real = path
            .canonicalize()
            .map_err(|e| JobError::Request(format!("{what} {}: {e}", path.display())))?;
        if !real.starts_with(&self.workspace) {
            return Err(JobError::Request(format!(
                "{what} {} is outside the session worktree {}",
                path.display(),
                self.workspace.display()
            )));
        }
        Ok(real)
    }

    fn content_key(&mut self, files: &[PathBuf]) -> Result<String, JobError> {
        let mut all = Sha256::new();
        for file in files {
            let meta = std::fs::metadata(file)
                .map_err(|e| JobError::Request(format!("{}: {e}", file.display())))?;
            let id = (file.clone(), meta.len(), meta.modified().ok());
            let digest = match self.hashes.get(&id) {
                Some(d) => d.clone(),
                None => {
                    let d = sha256_file(file)
                        .map_err(|e| JobError::Request(format!("{}: {e}", file.display())))?;
                    self.hashes.insert(id, d.clone());
                    d
                }
            };
            all.update(file_name(file).as_bytes());
            all.update(digest.as_bytes());
        }
        Ok(format!("{:x}", all.finalize())[..16].to_string())
    }

    /// Carry out one job.
    pub(crate) fn run(&mut self, request: &JobRequest) -> Result<JobReply, JobError> {
        let job_dir = self.inside(&request.job_dir, "job folder")?;
        let mut bundle = Vec::new();
        for file in &request.bundle {
            bundle.push(self.inside(file, "artifact file")?);
        }
        for needed in [RUNNER_FILE, JOB_FILE] {
            if !job_dir.join(needed).is_file() {
                return Err(JobError::Request(format!(
                    "job folder {} has no {needed}",
                    job_dir.display()
                )));
            }
        }
        let mut job_files = Vec::new();
        let entries = std::fs::read_dir(&job_dir)
            .map_err(|e| JobError::Request(format!("{}: {e}", job_dir.display())))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_file() {
                job_files.push((path.clone(), file_name(&path)));
            }
        }
        job_files.sort();
        let local_out = job_dir.join("out");
        if local_out.exists() {
            std::fs::remove_dir_all(&local_out)
                .map_err(|e| JobError::Request(format!("{}: {e}", local_out.display())))?;
        }
        let key = self.content_key(&bundle)?;
        let bundle_dir = format!("{}/a-{key}", self.root);
        self.next_job += 1;
        let remote_job = format!("{}/j-{}", self.root, self.next_job);
        let timeout = request
            .timeout_s
            .map(Duration::from_secs)
            .unwrap_or(self.job_timeout());
        let mut retries = 0;

        let started = Instant::now();
        let pushed_bundle = !self.pushed.contains(&key);
        if pushed_bundle {
            let files: Vec<(PathBuf, String)> =
                bundle.iter().map(|p| (p.clone(), file_name(p))).collect();
            self.step("push artifact", &mut retries, || {
                self.transport.push(&files, &bundle_dir, timeout)
            })?;
            self.pushed.insert(key);
        }
        self.step("push job", &mut retries, || {
            self.transport.push(&job_files, &remote_job, timeout)
        })?;
        let push_s = started.elapsed().as_secs_f64();

        let env: Vec<String> = self
            .config
            .env
            .iter()
            .map(|(k, v)| format!("{k}={}", quote(v)))
            .collect();
        let command = format!(
            "cd {} && {}{} {RUNNER_FILE} {JOB_FILE} {}",
            quote(&remote_job),
            if env.is_empty() {
                String::new()
            } else {
                format!("env {} ", env.join(" "))
            },
            self.config.runner(),
            quote(&bundle_dir)
        );
        let started = Instant::now();
        let out = self.step("run", &mut retries, || {
            self.transport.exec(&command, timeout)
        })?;
        let run_s = started.elapsed().as_secs_f64();

        let started = Instant::now();
        if out.exit_code == 0 {
            let remote_out = format!("{remote_job}/out");
            self.step("pull", &mut retries, || {
                self.transport.pull(&remote_out, &local_out, timeout)
            })?;
        }
        let pull_s = started.elapsed().as_secs_f64();
        let _ = self.transport.exec(
            &format!("rm -rf {}", quote(&remote_job)),
            Duration::from_secs(self.config.connect_timeout_s + 30),
        );
        Ok(JobReply {
            ok: true,
            exit_code: out.exit_code,
            stdout: out.stdout,
            stderr: out.stderr,
            push_s,
            run_s,
            pull_s,
            retries,
            pushed_bundle,
            device: self.device(),
            error: String::new(),
        })
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(format!("{:x}", hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::super::transport::ExecOutput;
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A device in a local folder: push copies, exec runs `sh` with the device root mapped,
    /// pull copies back; `fail` makes the next N steps lose their connection.
    #[derive(Clone)]
    struct FolderDevice {
        log: Arc<Mutex<Vec<String>>>,
        fail: Arc<Mutex<u32>>,
    }

    impl FolderDevice {
        fn lose(&self) -> Result<(), StepError> {
            let mut fail = self.fail.lock().unwrap();
            if *fail > 0 {
                *fail -= 1;
                return Err(StepError {
                    transient: true,
                    message: "ssh failed (exit 255): Connection reset by peer".into(),
                });
            }
            Ok(())
        }
    }

    impl Transport for FolderDevice {
        fn push(
            &self,
            files: &[(PathBuf, String)],
            remote: &str,
            _: Duration,
        ) -> Result<(), StepError> {
            self.lose()?;
            self.log.lock().unwrap().push(format!("push {remote}"));
            std::fs::create_dir_all(remote).unwrap();
            for (p, n) in files {
                std::fs::copy(p, Path::new(remote).join(n)).unwrap();
            }
            Ok(())
        }
        fn exec(&self, command: &str, _: Duration) -> Result<ExecOutput, StepError> {
            self.lose()?;
            self.log.lock().unwrap().push(format!(
                "exec {}",
                command.split_whitespace().next().unwrap()
            ));
            let out = std::process::Command::new("sh")
                .args(["-c", command])
                .output()
                .unwrap();
            Ok(ExecOutput {
                exit_code: out.status.code().unwrap_or(-1),
                stdout: String::from_utf8_lossy(&out.stdout).into(),
                stderr: String::from_utf8_lossy(&out.stderr).into(),
            })
        }
        fn pull(&self, remote: &str, local: &Path, _: Duration) -> Result<(), StepError> {
            self.lose()?;
            self.log.lock().unwrap().push(format!("pull {remote}"));
            std::fs::create_dir_all(local).unwrap();
            for e in std::fs::read_dir(remote).unwrap().flatten() {
                std::fs::copy(e.path(), local.join(e.file_name())).unwrap();
            }
            Ok(())
        }
    }

    fn setup(fail: u32) -> (tempfile::TempDir, FolderDevice, JobRunner, JobRequest) {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws").canonicalize().unwrap_or_else(|_| {
            std::fs::create_dir_all(dir.path().join("ws")).unwrap();
            dir.path().join("ws").canonicalize().unwrap()
        });
        let job = ws.join("build/.device/1");
        std::fs::create_dir_all(&job).unwrap();
        // The "runner" is a shell script here: it reads the bundle folder given as its argument.
        std::fs::write(
            job.join(RUNNER_FILE),
            "mkdir -p out && cat \"$2/model.bin\" > out/result.txt && echo ran\n",
        )
        .unwrap();
        std::fs::write(job.join(JOB_FILE), "{}").unwrap();
        std::fs::write(ws.join("build/model.bin"), "weights").unwrap();
        let device_root = dir.path().join("device");
        let config = DeviceConfig::from_toml(
            &format!(
                "[device]\nkind = \"ssh\"\nhost = \"h\"\nrunner = \"sh\"\nwork_dir = \"{}\"\n",
                device_root.display()
            ),
            "aipc.toml",
        )
        .unwrap()
        .unwrap();
        let device = FolderDevice {
            log: Arc::default(),
            fail: Arc::new(Mutex::new(fail)),
        };
        let runner = JobRunner::new(Box::new(device.clone()), config, "s1", ws.clone())
            .with_backoff(Duration::ZERO);
        let request = JobRequest {
            job_dir: job,
            bundle: vec![ws.join("build/model.bin")],
            timeout_s: None,
        };
        (dir, device, runner, request)
    }

    #[test]
    fn a_job_pushes_runs_pulls_and_pushes_the_bundle_once() {
        let (_dir, device, mut runner, request) = setup(0);
        let reply = runner.run(&request).unwrap();
        assert_eq!(reply.exit_code, 0, "{reply:?}");
        assert_eq!(reply.stdout.trim(), "ran");
        assert!(reply.pushed_bundle);
        let out = request.job_dir.join("out/result.txt");
        assert_eq!(std::fs::read_to_string(out).unwrap(), "weights");
        let again = runner.run(&request).unwrap();
        assert!(!again.pushed_bundle);
        let log = device.log.lock().unwrap().clone();
        assert_eq!(
            log.iter().filter(|l| l.contains("/a-")).count(),
            1,
            "{log:?}"
        );
    }

    #[test]
    fn a_lost_connection_is_retried_then_ends_with_the_step() {
        let (_dir, _device, mut runner, request) = setup(2);
        let reply = runner.run(&request).unwrap();
        assert_eq!(reply.retries, 2);
        let (_dir, _device, mut runner, request) = setup(3);
        match runner.run(&request) {
            Err(JobError::Device {
                step,
                attempts,
                message,
                ..
            }) => {
                assert_eq!(step, "push artifact");
                assert_eq!(attempts, 3);
                assert!(message.contains("exit 255"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn paths_outside_the_worktree_are_refused() {
        let (dir, _device, mut runner, mut request) = setup(0);
        let outside = dir.path().join("secret");
        std::fs::write(&outside, "x").unwrap();
        request.bundle = vec![outside];
        let e = runner.run(&request).unwrap_err();
        assert!(
            matches!(e, JobError::Request(ref m) if m.contains("outside the session worktree")),
            "{e}"
        );
    }

    #[test]
    fn a_failing_runner_is_a_reply_not_a_device_error() {
        let (_dir, _device, mut runner, request) = setup(0);
        std::fs::write(
            request.job_dir.join(RUNNER_FILE),
            "echo 'Traceback: INVALID_ARGUMENT' >&2; exit 1\n",
        )
        .unwrap();
        let reply = runner.run(&request).unwrap();
        assert_eq!(reply.exit_code, 1);
        assert!(reply.stderr.contains("INVALID_ARGUMENT"));
        assert!(!request.job_dir.join("out").exists());
    }
}
