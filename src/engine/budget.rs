//! The session's global budgets: tokens and wall time. Checked before every model turn; when
//! the engineer retries after one ran out, it grows by its base amount and the engine says so
//! (`budget_raised`), so no consumer has to know the rule.

use crate::contract::Budgets;
use crate::protocol::{BudgetKind, Event};
use std::time::{Duration, Instant};

/// What the session may spend, and what it has spent.
#[derive(Debug, Clone)]
pub(crate) struct GlobalBudgets {
    base: Budgets,
    pub(crate) token_limit: u64,
    pub(crate) wall_limit: Duration,
    pub(crate) tokens_used: u64,
    /// When the session's clock started (moved back on resume by the time already spent).
    pub(crate) started: Instant,
}

/// A budget that ran out, with a one-line detail for the event and the escalation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Exhausted {
    pub(crate) budget: BudgetKind,
    pub(crate) detail: String,
}

impl GlobalBudgets {
    pub(crate) fn new(base: &Budgets) -> Self {
        GlobalBudgets {
            base: base.clone(),
            token_limit: base.total_tokens,
            wall_limit: Duration::from_secs(base.wall_time_s),
            tokens_used: 0,
            started: Instant::now(),
        }
    }

    /// Tokens of one model turn.
    pub(crate) fn spend_tokens(&mut self, tokens: u64) {
        self.tokens_used += tokens;
    }

    /// The first global budget that ran out, if one did.
    pub(crate) fn check(&self) -> Result<(), Exhausted> {
        if self.tokens_used >= self.token_limit {
            return Err(Exhausted {
                budget: BudgetKind::Tokens,
                detail: format!("{} tokens used of {}", self.tokens_used, self.token_limit),
            });
        }
        let elapsed = self.started.elapsed();
        if elapsed >= self.wall_limit {
            return Err(Exhausted {
                budget: BudgetKind::WallTime,
                detail: format!(
                    "{} s of wall time used of {}",
                    elapsed.as_secs(),
                    self.wall_limit.as_secs()
                ),
            });
        }
        Ok(())
    }

    /// Retrying after a global budget ran out gives that budget as much again; the event that
    /// says so, or `None` for a budget that is not global (attempts, turns …).
    pub(crate) fn raise(&mut self, budget: BudgetKind) -> Option<Event> {
        let limit = match budget {
            BudgetKind::Tokens => {
                self.token_limit += self.base.total_tokens;
                self.token_limit
            }
            BudgetKind::WallTime => {
                self.wall_limit += Duration::from_secs(self.base.wall_time_s);
                self.wall_limit.as_secs()
            }
            BudgetKind::Attempts
            | BudgetKind::Turns
            | BudgetKind::NoProgress
            | BudgetKind::HumanNeeded => return None,
        };
        Some(Event::BudgetRaised { budget, limit })
    }

    /// Milliseconds since the session's clock started.
    pub(crate) fn elapsed_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budgets(tokens: u64, wall_s: u64) -> GlobalBudgets {
        GlobalBudgets::new(&Budgets {
            total_tokens: tokens,
            wall_time_s: wall_s,
        })
    }

    #[test]
    fn tokens_run_out_at_the_limit_and_a_raise_adds_the_base_amount() {
        let mut b = budgets(100, 3600);
        b.spend_tokens(99);
        assert_eq!(b.check(), Ok(()));
        b.spend_tokens(1);
        let exhausted = b.check().unwrap_err();
        assert_eq!(exhausted.budget, BudgetKind::Tokens);
        assert_eq!(exhausted.detail, "100 tokens used of 100");
        assert_eq!(
            b.raise(BudgetKind::Tokens),
            Some(Event::BudgetRaised {
                budget: BudgetKind::Tokens,
                limit: 200
            })
        );
        assert_eq!(b.check(), Ok(()));
    }

    #[test]
    fn wall_time_raises_in_seconds_and_local_budgets_do_not_raise() {
        let mut b = budgets(100, 0);
        assert_eq!(b.check().unwrap_err().budget, BudgetKind::WallTime);
        b.base.wall_time_s = 60;
        assert_eq!(
            b.raise(BudgetKind::WallTime),
            Some(Event::BudgetRaised {
                budget: BudgetKind::WallTime,
                limit: 60
            })
        );
        assert_eq!(b.raise(BudgetKind::Attempts), None);
        assert_eq!(b.raise(BudgetKind::NoProgress), None);
    }
}
