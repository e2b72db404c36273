//! The device runner for real (docs/device.md): `examples/digits-cnn` deploys on both real
//! targets with every run, accuracy and performance execution carried out over SSH on an
//! OpenSSH server started here on localhost (Debian `openssh-server`, installed by `.ci/run`; a
//! throwaway host key and user key, a free port, its own remote folder), through a TCP relay
//! the test controls:
//! - onnxruntime-cpu deploys over ssh, and the device folder is removed at the end;
//! - executorch-xnnpack deploys although the relay drops a connection in the middle of a
//!   device run (the step is retried);
//! - a device that stops answering mid-session ends the session with exit 3, naming the host
//!   and the step; one that cannot be reached at all stops the start with exit 3;
//! - adb: onnxruntime-cpu deploys through `tests/data/device/adb-standin`, a stand-in for
//!   Android's adb (push / shell / pull semantics and exit codes; tests only), and an offline
//!   device ends the session with exit 3.
//!
//! Needs `/usr/sbin/sshd` and the targets' venvs; without them the cases fail and say what to
//! install.

mod common;

use common::{data_dir, run_scripted_example};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ORT: &str = "onnxruntime-cpu";
const ET: &str = "executorch-xnnpack";

fn venv_python(target: &str) -> PathBuf {
    let python = aipc::model::store::cache_dir()
        .join("toolchains")
        .join(target)
        .join("venv/bin/python");
    assert!(
        python.exists(),
        "no toolchain venv at {} (run `aipc toolchain setup {target}`; .ci/run does)",
        python.display()
    );
    python
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn wait_for_port(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nothing listens on port {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// An OpenSSH server on localhost with throwaway keys; killed on drop.
struct Sshd {
    dir: tempfile::TempDir,
    port: u16,
    child: Child,
}

impl Sshd {
    fn start() -> Sshd {
        let sshd = Path::new("/usr/sbin/sshd");
        assert!(
            sshd.exists(),
            "/usr/sbin/sshd is missing: install the OpenSSH server (`apt-get install openssh-server`; .ci/run does)"
        );
        // sshd refuses to start without its privilege-separation folder.
        let _ = std::fs::create_dir_all("/run/sshd");
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        for key in ["host_key", "user_key"] {
            let status = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(d.join(key))
                .status()
                .expect("ssh-keygen (openssh-client)");
            assert!(status.success(), "ssh-keygen failed");
        }
        std::fs::copy(d.join("user_key.pub"), d.join("authorized_keys")).expect("authorized_keys");
        let port = free_port();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nAuthorizedKeysFile {d}/authorized_keys\n\
             PidFile {d}/sshd.pid\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n",
            d = d.display()
        );
        std::fs::write(d.join("sshd_config"), config).expect("sshd_config");
        let child = Command::new(sshd)
            .args(["-D", "-e", "-f"])
            .arg(d.join("sshd_config"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(d.join("sshd.log")).expect("sshd.log"))
            .spawn()
            .expect("start sshd");
        wait_for_port(port);
        Sshd { dir, port, child }
    }

    /// A known_hosts file for `port` (the relay's, which forwards to this server).
    fn known_hosts(&self, port: u16) -> PathBuf {
        let key = std::fs::read_to_string(self.dir.path().join("host_key.pub")).expect("host key");
        let key: Vec<&str> = key.split_whitespace().take(2).collect();
        let path = self.dir.path().join(format!("known_hosts_{port}"));
        std::fs::write(&path, format!("[127.0.0.1]:{port} {}\n", key.join(" ")))
            .expect("known_hosts");
        path
    }

    fn user_key(&self) -> PathBuf {
        self.dir.path().join("user_key")
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A TCP relay in front of the server that can drop one connection in the middle, or refuse
/// every connection from some point on.
struct Relay {
    port: u16,
    connections: Arc<AtomicU32>,
    /// Drop the connection with this number (1-based) this long after it opened.
    drop_connection: Arc<AtomicU32>,
    /// Close every new connection at once.
    refuse: Arc<AtomicBool>,
}

impl Relay {
    fn start(to: u16, drop_connection: u32, drop_after: Duration) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").expect("relay port");
        let port = listener.local_addr().expect("relay addr").port();
        let relay = Relay {
            port,
            connections: Arc::default(),
            drop_connection: Arc::new(AtomicU32::new(drop_connection)),
            refuse: Arc::default(),
        };
        let (count, drop_n, refuse) = (
            relay.connections.clone(),
            relay.drop_connection.clone(),
            relay.refuse.clone(),
        );
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let n = count.fetch_add(1, Ordering::SeqCst) + 1;
                if refuse.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(("127.0.0.1", to)) else {
                    continue;
                };
                if n == drop_n.load(Ordering::SeqCst) {
                    let (c, s) = (
                        client.try_clone().expect("clone"),
                        server.try_clone().expect("clone"),
                    );
                    std::thread::spawn(move || {
                        std::thread::sleep(drop_after);
                        let _ = c.shutdown(Shutdown::Both);
                        let _ = s.shutdown(Shutdown::Both);
                    });
                }
                pump(
                    client.try_clone().expect("clone"),
                    server.try_clone().expect("clone"),
                );
                pump(server, client);
            }
        });
        relay
    }
}

fn pump(mut from: TcpStream, mut to: TcpStream) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16384];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}

fn user() -> String {
    let out = Command::new("id").arg("-un").output().expect("id -un");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A `[device]` file for an ssh device behind `relay_port`, running `target`'s venv Python.
fn ssh_device(sshd: &Sshd, port: u16, target: &str, work_dir: &Path) -> String {
    format!(
        "[device]\nkind = \"ssh\"\nname = \"test-board\"\nhost = \"127.0.0.1\"\nuser = \"{}\"\nport = {port}\n\
         identity_file = \"{}\"\nknown_hosts = \"{}\"\nwork_dir = \"{}\"\nrunner = \"{}\"\nretries = 2\nconnect_timeout_s = 5\n",
        user(),
        sshd.user_key().display(),
        sshd.known_hosts(port).display(),
        work_dir.display(),
        venv_python(target).display()
    )
}

struct Session {
    label: String,
    exit_code: Option<i32>,
    stderr: String,
    events: Vec<Value>,
    report: Option<Value>,
    meta: Option<Value>,
    _dir: tempfile::TempDir,
}

impl Session {
    fn tail(&self) -> String {
        let lines: Vec<&str> = self.stderr.lines().collect();
        format!(
            "{}:\n{}",
            self.label,
            lines[lines.len().saturating_sub(60)..].join("\n")
        )
    }

    /// The notes the device jobs printed (`on <device>: push …, run …, pull …`).
    fn device_notes(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| e["line"].as_str())
            .filter(|l| l.starts_with("on test-board"))
            .map(String::from)
            .collect()
    }
}

/// Deploy a fresh copy of digits-cnn on `target` with the scripted model and `device` as the
/// `--device` file; `env` is added to aipc's environment.
fn deploy(target: &str, device: &str, env: &[(&str, String)]) -> Session {
    deploy_example(target, device, env)
}

/// As [`deploy`], for any target with a `digits-cnn.<target>.jsonl` script.
fn deploy_example(target: &str, device: &str, env: &[(&str, String)]) -> Session {
    let label = format!("digits-cnn on {target} (device)");
    let dir = tempfile::tempdir().expect("temp dir");
    let device_file = dir.path().join("device.toml");
    std::fs::write(&device_file, device).expect("device.toml");
    let started = Instant::now();
    let flags = ["--device".into(), device_file.into_os_string()];
    let (project, out) = run_scripted_example(dir.path(), "digits-cnn", target, &flags, env);
    eprintln!(
        "device wall time: {label}: {:.1} s (exit {:?})",
        started.elapsed().as_secs_f64(),
        out.status.code()
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let sessions = project.join(".aipc/sessions");
    let session = std::fs::read_dir(&sessions)
        .ok()
        .and_then(|mut d| d.find_map(|e| e.ok().map(|e| e.path())));
    let meta = session.as_ref().and_then(|s| {
        serde_json::from_str(&std::fs::read_to_string(s.join("meta.json")).ok()?).ok()
    });
    let (events, report) = match session {
        Some(s) => (
            std::fs::read_to_string(s.join("events.jsonl"))
                .unwrap_or_default()
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect(),
            std::fs::read_to_string(s.join("report.json"))
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok()),
        ),
        None => (Vec::new(), None),
    };
    Session {
        label,
        exit_code: out.status.code(),
        stderr,
        events,
        report,
        meta,
        _dir: dir,
    }
}

/// Deployed, with run, accuracy and performance executed on the device.
fn assert_deployed_on_device(session: &Session, min_jobs: usize) {
    assert_eq!(session.exit_code, Some(0), "{}", session.tail());
    let report = session.report.as_ref().expect("report.json");
    assert!(
        report["device"]
            .as_str()
            .unwrap_or("")
            .starts_with("test-board"),
        "{}",
        report["device"]
    );
    let notes = session.device_notes();
    assert!(notes.len() >= min_jobs, "{notes:?}\n{}", session.tail());
    assert!(
        session.stderr.contains("device test-board"),
        "{}",
        session.tail()
    );
}

/// The session's folder on the device is gone at the end.
fn assert_device_folder_empty(remote: &Path) {
    let left: Vec<_> = std::fs::read_dir(remote).expect("device folder").collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn digits_cnn_deploys_on_onnxruntime_cpu_over_ssh() {
    let sshd = Sshd::start();
    let remote = tempfile::tempdir().expect("device folder");
    let session = deploy(ORT, &ssh_device(&sshd, sshd.port, ORT, remote.path()), &[]);
    assert_deployed_on_device(&session, 6);
    assert_device_folder_empty(remote.path());
}

#[test]
fn digits_cnn_deploys_on_executorch_xnnpack_over_ssh_through_a_dropped_connection() {
    let sshd = Sshd::start();
    // Connections: 1 the probe, then per job push artifact, push job, run, pull, remove. The
    // 4th is the first device run (ExecuTorch imports for seconds): dropped in the middle.
    let relay = Relay::start(sshd.port, 4, Duration::from_millis(1500));
    let remote = tempfile::tempdir().expect("device folder");
    let session = deploy(ET, &ssh_device(&sshd, relay.port, ET, remote.path()), &[]);
    assert_deployed_on_device(&session, 6);
    let notes = session.device_notes();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("retried after a lost connection")),
        "{notes:?}"
    );
    assert!(relay.connections.load(Ordering::SeqCst) > 4);
}

#[test]
fn a_device_lost_for_good_ends_the_session_with_exit_3_naming_host_and_step() {
    let sshd = Sshd::start();
    let relay = Relay::start(sshd.port, 0, Duration::ZERO);
    let remote = tempfile::tempdir().expect("device folder");
    let device = ssh_device(&sshd, relay.port, ORT, remote.path());
    // The device answers the probe, then never again.
    let refuse = relay.refuse.clone();
    let count = relay.connections.clone();
    std::thread::spawn(move || {
        while count.load(Ordering::SeqCst) < 1 {
            std::thread::sleep(Duration::from_millis(20));
        }
        refuse.store(true, Ordering::SeqCst);
    });
    let session = deploy(ORT, &device, &[]);
    assert_eq!(session.exit_code, Some(3), "{}", session.tail());
    assert!(
        session
            .stderr
            .contains("device test-board (ssh): step `push artifact` failed after 3 attempt(s)"),
        "{}",
        session.tail()
    );
    assert!(session.stderr.contains("aipc resume"), "{}", session.tail());
    // `aipc resume` finds the device the session ran on (given by --device) in meta.json.
    let recorded = session.meta.as_ref().expect("meta.json")["extra"]["device"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(recorded.contains("\"name\":\"test-board\""), "{recorded}");
}

#[test]
fn an_unreachable_device_stops_the_start_with_exit_3() {
    let sshd = Sshd::start();
    let closed = free_port();
    let remote = tempfile::tempdir().expect("device folder");
    let session = deploy(ORT, &ssh_device(&sshd, closed, ORT, remote.path()), &[]);
    assert_eq!(session.exit_code, Some(3), "{}", session.tail());
    assert!(
        session
            .stderr
            .contains("step `probe` failed after 3 attempt(s)")
            && session.stderr.contains("[device]"),
        "{}",
        session.tail()
    );
}

#[test]
fn digits_cnn_deploys_on_qairt_qnn_and_qairt_snpe_over_ssh_against_the_stand_in_sdk() {
    let sshd = Sshd::start();
    let remote = tempfile::tempdir().expect("device folder");
    let standin = data_dir().join("tests/data/qairt-standin");
    let bin = venv_python(ORT)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    // The device has the SDK (the stand-in, tests only) and a Python with numpy for its tools.
    let device = format!(
        "{}env = {{ QAIRT_SDK_ROOT = \"{}\", PATH = \"{}:/usr/local/bin:/usr/bin:/bin\" }}\n",
        ssh_device(&sshd, sshd.port, ORT, remote.path()),
        standin.display(),
        bin.display()
    );
    // Both QAIRT flows (qnn-net-run on a library and a context; snpe-net-run on two DLCs). run:
    // the FP and INT8 artifacts; accuracy: both again; performance: the profile.
    for target in ["qairt-qnn", "qairt-snpe"] {
        let session = deploy_example(
            target,
            &device,
            &[("QAIRT_SDK_ROOT", standin.display().to_string())],
        );
        assert_deployed_on_device(&session, 5);
    }
}

fn adb_device(remote: &Path) -> String {
    format!(
        "[device]\nkind = \"adb\"\nname = \"test-board\"\nserial = \"emulator-5554\"\nprogram = \"{}\"\n\
         work_dir = \"{}\"\nrunner = \"{}\"\nretries = 1\n",
        data_dir().join("tests/data/device/adb-standin").display(),
        remote.display(),
        venv_python(ORT).display()
    )
}

#[test]
fn digits_cnn_deploys_on_onnxruntime_cpu_over_an_adb_stand_in() {
    let remote = tempfile::tempdir().expect("device folder");
    let session = deploy(ORT, &adb_device(remote.path()), &[]);
    assert_deployed_on_device(&session, 6);
    assert_device_folder_empty(remote.path());
}

#[test]
fn an_offline_adb_device_ends_the_session_with_exit_3() {
    let remote = tempfile::tempdir().expect("device folder");
    let offline = remote.path().join("offline");
    std::fs::write(&offline, "").expect("offline marker");
    let session = deploy(
        ORT,
        &adb_device(remote.path()),
        &[("ADB_STANDIN_OFFLINE", offline.display().to_string())],
    );
    assert_eq!(session.exit_code, Some(3), "{}", session.tail());
    assert!(
        session
            .stderr
            .contains("device test-board (adb): step `probe` failed after 2 attempt(s)")
            && session.stderr.contains("device offline"),
        "{}",
        session.tail()
    );
}
