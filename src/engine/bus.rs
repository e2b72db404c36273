//! The event bus: stamps each [`Event`] with a sequence number and time, appends it to the
//! session log (one flushed line, so a crash loses at most the line being written), then
//! broadcasts it to live consumers.
//!
//! The recorder is written inline because it must never lose an event; live consumers (TUI,
//! batch printer) read a bounded broadcast channel, so a slow one lags and is told how many
//! events it missed (it can re-read them from the log) — it never slows the engine down.

use crate::protocol::{Event, EventEnvelope};
use crate::session::EventLog;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

/// Which event trips a [`EventBus::trip_when`] wire.
pub type TripPredicate = Box<dyn Fn(&EventEnvelope) -> bool + Send + Sync>;

/// How many events a live consumer may fall behind before it starts missing them.
pub const BROADCAST_CAPACITY: usize = 16 * 1024;

struct Inner {
    next_seq: u64,
    log: Option<EventLog>,
    /// The first failure to write the log; the engine stops with an error when it sees one.
    log_error: Option<String>,
    /// Cancel this token right after recording the first event the predicate matches.
    trip: Option<(TripPredicate, CancellationToken)>,
}

pub struct EventBus {
    inner: Mutex<Inner>,
    sender: broadcast::Sender<EventEnvelope>,
}

impl EventBus {
    /// A bus recording to `log` (if any), numbering from `next_seq`.
    pub fn new(log: Option<EventLog>, next_seq: u64) -> Self {
        let (sender, _) = broadcast::channel(BROADCAST_CAPACITY);
        EventBus {
            inner: Mutex::new(Inner {
                next_seq,
                log,
                log_error: None,
                trip: None,
            }),
            sender,
        }
    }

    /// A new live consumer; it sees events emitted from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<EventEnvelope> {
        self.sender.subscribe()
    }

    pub fn sender(&self) -> broadcast::Sender<EventEnvelope> {
        self.sender.clone()
    }

    /// Record and broadcast one event.
    pub fn emit(&self, event: Event) {
        let ts_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or_default();
        let envelope = {
            let mut inner = match self.inner.lock() {
                Ok(guard) => guard,
                Err(poisoned) => poisoned.into_inner(),
            };
            let envelope = EventEnvelope {
                seq: inner.next_seq,
                ts_ms,
                event,
            };
            inner.next_seq += 1;
            if let Some(log) = inner.log.as_mut() {
                if let Err(e) = log.append(&envelope) {
                    if inner.log_error.is_none() {
                        inner.log_error = Some(e.to_string());
                    }
                }
            }
            if inner.trip.as_ref().is_some_and(|(hit, _)| hit(&envelope)) {
                if let Some((_, token)) = inner.trip.take() {
                    token.cancel();
                }
            }
            envelope
        };
        // No live consumer is fine: the log has it.
        let _ = self.sender.send(envelope);
    }

    /// Cancel `token` as soon as an event matching `hit` has been recorded (once): the engine
    /// then stops at its next decision point, as on an abort (`aipc rerun --until`).
    pub fn trip_when(&self, hit: TripPredicate, token: CancellationToken) {
        let mut inner = match self.inner.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        inner.trip = Some((hit, token));
    }

    /// The first error writing the session log, if any.
    pub fn log_error(&self) -> Option<String> {
        match self.inner.lock() {
            Ok(inner) => inner.log_error.clone(),
            Err(poisoned) => poisoned.into_inner().log_error.clone(),
        }
    }
}
