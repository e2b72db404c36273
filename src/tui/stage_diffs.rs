//! Stage diffs (a stage's changes against its checkpoint, from git) computed on a worker
//! thread, so a big diff never freezes a frame: the UI asks for a commit range, shows
//! "computing…", and picks the result up on a later frame.

use crate::protocol::FileDiff;
use std::collections::{HashMap, HashSet};
use std::sync::mpsc;

/// A commit range: (from, to).
pub type Range = (String, String);

/// What a stage diff comes out as: the files, or why there are none.
pub type DiffResult = Result<Vec<FileDiff>, String>;

/// Computes a stage's diff between two commits (git in a live session).
pub type StageDiffs = Box<dyn Fn(&str, &str) -> DiffResult + Send>;

/// The worker and what it has answered.
pub struct StageDiffWorker {
    requests: mpsc::Sender<Range>,
    results: mpsc::Receiver<(Range, DiffResult)>,
    pending: HashSet<Range>,
    done: HashMap<Range, DiffResult>,
}

impl StageDiffWorker {
    /// Start the worker thread over `source`. When the thread cannot start, every request is
    /// answered with an error.
    pub fn spawn(source: StageDiffs) -> StageDiffWorker {
        let (requests, request_rx) = mpsc::channel::<Range>();
        let (result_tx, results) = mpsc::channel();
        let started = std::thread::Builder::new()
            .name("aipc-tui-diffs".to_string())
            .spawn(move || {
                while let Ok((from, to)) = request_rx.recv() {
                    let result = source(&from, &to);
                    if result_tx.send(((from, to), result)).is_err() {
                        return;
                    }
                }
            });
        // Without its thread the requests channel has no receiver: every request is answered
        // at once with "not running" (see `get_or_request`).
        drop(started);
        StageDiffWorker {
            requests,
            results,
            pending: HashSet::new(),
            done: HashMap::new(),
        }
    }

    /// The diff of `range`, when it is known; asks the worker for it otherwise.
    pub fn get_or_request(&mut self, range: &Range) -> Option<&DiffResult> {
        if !self.done.contains_key(range) && !self.pending.contains(range) {
            if self.requests.send(range.clone()).is_ok() {
                self.pending.insert(range.clone());
            } else {
                self.done.insert(
                    range.clone(),
                    Err("the diff thread is not running".to_string()),
                );
            }
        }
        self.done.get(range)
    }

    /// The diff of `range` if it is known (never asks).
    pub fn get(&self, range: &Range) -> Option<&DiffResult> {
        self.done.get(range)
    }

    /// Take the worker's answers; the ranges that got one.
    pub fn collect(&mut self) -> Vec<Range> {
        let mut arrived = Vec::new();
        while let Ok((range, result)) = self.results.try_recv() {
            self.pending.remove(&range);
            self.done.insert(range.clone(), result);
            arrived.push(range);
        }
        arrived
    }

    /// Wait up to `limit` until nothing is pending (tests).
    #[cfg(test)]
    pub fn settle(&mut self, limit: std::time::Duration) {
        let until = std::time::Instant::now() + limit;
        while !self.pending.is_empty() {
            let left = until.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return;
            }
            match self.results.recv_timeout(left) {
                Ok((range, result)) => {
                    self.pending.remove(&range);
                    self.done.insert(range, result);
                }
                Err(_) => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_is_computed_once_off_the_calling_thread() {
        let caller = std::thread::current().id();
        let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = calls.clone();
        let mut worker = StageDiffWorker::spawn(Box::new(move |from, to| {
            assert_ne!(std::thread::current().id(), caller);
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Err(format!("{from}..{to}"))
        }));
        let range = ("a".to_string(), "b".to_string());
        assert!(worker.get_or_request(&range).is_none(), "not computed yet");
        assert!(worker.get_or_request(&range).is_none(), "asked once");
        worker.settle(std::time::Duration::from_secs(10));
        assert_eq!(worker.get(&range), Some(&Err("a..b".to_string())));
        assert!(worker.get_or_request(&range).is_some());
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    }
}
