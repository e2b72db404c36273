//! The transcript's entries: one [`Cell`] per thing worth reading in order — stage and attempt
//! headers, model turns, tool calls with their arguments, policy decision and result, checks,
//! evidence, the engineer's actions and hints. Bounded: past [`MAX_CELLS`] the oldest are
//! dropped (the session log keeps everything) and the count is shown.

use super::shared::SharedVec;
use crate::protocol::{BudgetKind, Decider, Policy};

/// How many cells the transcript keeps.
pub const MAX_CELLS: usize = 20_000;

/// What became of a proposed tool call.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Proposed; waiting for the engineer (or for the engine to decide by policy).
    Proposed,
    Approved {
        by: Decider,
    },
    Rejected {
        by: Decider,
        reason: String,
    },
}

/// How a tool call ended.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    pub ok: bool,
    pub exit_code: Option<i32>,
    pub duration_ms: u64,
    /// The first line of what the model was told.
    pub summary: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CallCell {
    pub call_id: String,
    pub tool: String,
    pub args: serde_json::Value,
    pub thought: Option<String>,
    pub policy: Policy,
    pub decision: Decision,
    pub edited: bool,
    pub running: bool,
    pub result: Option<CallResult>,
    /// Files the call changed: (path, added, removed).
    pub files: Vec<(String, usize, usize)>,
}

/// How loud a note is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Success,
    Warning,
    Error,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Stage {
        index: usize,
        name: String,
        goal: String,
    },
    Attempt {
        stage: String,
        attempt: u32,
        max_attempts: u32,
    },
    Model {
        request_id: u64,
        prompt_tokens: u64,
        completion_tokens: u64,
        duration_ms: u64,
    },
    InvalidReply {
        error: String,
        text: String,
    },
    Call(Box<CallCell>),
    Check {
        name: String,
        passed: bool,
        /// Not run: the check does not apply to the project (its contract `when`); `detail`
        /// says why.
        skipped: bool,
        detail: String,
    },
    Evidence {
        signature: String,
        class: Option<String>,
    },
    Budget {
        budget: BudgetKind,
        detail: String,
    },
    Human {
        action: String,
        detail: String,
        files: Vec<(String, usize, usize)>,
    },
    Hint {
        text: String,
    },
    Note {
        level: Level,
        text: String,
    },
}

/// The cells, with stable numbers: cell `n` keeps its number when older ones are dropped.
/// Cloning is cheap (the cells are shared until changed), for the replay's snapshots.
#[derive(Debug, Default, Clone)]
pub struct Transcript {
    cells: SharedVec<Cell>,
    dropped: usize,
}

impl Transcript {
    /// Append a cell; returns its number.
    pub fn push(&mut self, cell: Cell) -> usize {
        if self.cells.len() >= MAX_CELLS {
            self.cells.pop_front();
            self.dropped += 1;
        }
        self.cells.push(cell);
        self.dropped + self.cells.len() - 1
    }

    pub fn get_mut(&mut self, number: usize) -> Option<&mut Cell> {
        number
            .checked_sub(self.dropped)
            .and_then(|i| self.cells.get_mut(i))
    }

    /// The call cell with this number, if it is still kept.
    pub fn call_mut(&mut self, number: usize) -> Option<&mut CallCell> {
        match self.get_mut(number) {
            Some(Cell::Call(call)) => Some(call),
            _ => None,
        }
    }

    /// Cells kept, oldest first.
    pub fn cells(&self) -> &SharedVec<Cell> {
        &self.cells
    }

    /// How many old cells were dropped.
    pub fn dropped(&self) -> usize {
        self.dropped
    }
}
