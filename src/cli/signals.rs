//! The signals that end a running session — SIGINT (Ctrl-C outside the TUI), SIGTERM (a job
//! scheduler, `kill`), SIGHUP (the terminal went away) — all do the same: abort the session
//! through the engine's own `abort` command, so the model's turn stops, the running command's
//! sandbox and process group are killed, `session_finished` (aborted) is written and the exit
//! code is 4. Should the engine not have finished [`GRACE`] later, the process exits 4 anyway
//! (the log then ends without `session_finished`, which `aipc resume` handles like a crash).

use crate::engine::exit;
use crate::protocol::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;

/// How long the engine has to finish after a signal before the process exits regardless.
pub(crate) const GRACE: Duration = Duration::from_secs(5);

/// Watch for the stop signals; on the first one, tell the engine to abort and set the returned
/// flag (the TUI closes when it is set).
pub(crate) fn abort_on_signals(commands: mpsc::UnboundedSender<Command>) -> Arc<AtomicBool> {
    let stopped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stopped);
    let listeners = [
        (SignalKind::interrupt(), "SIGINT"),
        (SignalKind::terminate(), "SIGTERM"),
        (SignalKind::hangup(), "SIGHUP"),
    ]
    .map(|(kind, name)| (signal(kind), name));
    tokio::spawn(async move {
        let mut streams = Vec::new();
        for (listener, name) in listeners {
            match listener {
                Ok(stream) => streams.push((stream, name)),
                Err(e) => eprintln!("aipc: cannot watch {name}: {e}"),
            }
        }
        if streams.is_empty() {
            return;
        }
        let waits = streams.iter_mut().map(|(stream, name)| {
            let name = *name;
            Box::pin(async move {
                stream.recv().await;
                name
            })
        });
        let (name, _, _) = futures_util::future::select_all(waits).await;
        eprintln!("aipc: {name}: aborting the session");
        flag.store(true, Ordering::SeqCst);
        let _ = commands.send(Command::Abort);
        tokio::time::sleep(GRACE).await;
        eprintln!(
            "aipc: the session did not stop within {} s of {name}; exiting",
            GRACE.as_secs()
        );
        std::process::exit(exit::ABORTED);
    });
    stopped
}
