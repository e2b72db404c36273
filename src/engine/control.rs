//! Commands from the engineer as the engine sees them: a forwarder cancels running work the
//! moment `Abort` arrives (so a hung toolchain command dies at once), and the engine drains the
//! rest at its decision points — before a model turn, before a tool call, at an escalation.

use crate::protocol::Command;
use std::collections::VecDeque;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Why the engine stops what it is doing (not an error: the engineer asked).
#[derive(Debug, Clone, PartialEq)]
pub enum Interrupt {
    Abort,
    RetryStage { extra_attempts: Option<u32> },
    SkipStage,
    RollbackTo { tag: String },
}

/// The engine's side of the command channel.
pub struct Control {
    rx: mpsc::UnboundedReceiver<Command>,
    /// Commands taken off the channel while waiting for something else, kept in order.
    deferred: VecDeque<Command>,
    pub cancel: CancellationToken,
    pub paused: bool,
    pub step_mode: bool,
}

impl Control {
    /// Wrap the engineer's command channel. Spawns the forwarder (needs a tokio runtime).
    pub fn new(mut external: mpsc::UnboundedReceiver<Command>) -> Self {
        let cancel = CancellationToken::new();
        let (tx, rx) = mpsc::unbounded_channel();
        let forward_cancel = cancel.clone();
        tokio::spawn(async move {
            while let Some(command) = external.recv().await {
                if command == Command::Abort {
                    forward_cancel.cancel();
                }
                if tx.send(command).is_err() {
                    break;
                }
            }
        });
        Control {
            rx,
            deferred: VecDeque::new(),
            cancel,
            paused: false,
            step_mode: false,
        }
    }

    /// The next command without waiting, if one is there.
    pub fn try_next(&mut self) -> Option<Command> {
        if let Some(command) = self.deferred.pop_front() {
            return Some(command);
        }
        self.rx.try_recv().ok()
    }

    /// Wait for the next command. `None` when every sender is gone (no engineer can answer).
    pub async fn next(&mut self) -> Option<Command> {
        if let Some(command) = self.deferred.pop_front() {
            return Some(command);
        }
        self.rx.recv().await
    }

    /// Put a command back to be seen first next time.
    pub fn defer(&mut self, command: Command) {
        self.deferred.push_back(command);
    }

    pub fn aborted(&self) -> bool {
        self.cancel.is_cancelled()
    }
}
