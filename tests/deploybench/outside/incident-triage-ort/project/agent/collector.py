"""The log collector's side of the triage agent: open sessions, delivered in poll cycles."""
from dataclasses import dataclass
from typing import Iterator, List

from triage.sessions import Session


@dataclass
class PollCycle:
    tick: int
    sessions: List[Session]


class ReplayCollector:
    """Replays recorded sessions the way the live collector hands them out: every poll returns
    the sessions closed since the last one (1 to 4 of them)."""

    PATTERN = (1, 3, 2, 4, 1, 2)

    def __init__(self, sessions):
        self.sessions = list(sessions)

    def polls(self) -> Iterator[PollCycle]:
        i = tick = 0
        while i < len(self.sessions):
            k = self.PATTERN[tick % len(self.PATTERN)]
            yield PollCycle(tick, self.sessions[i:i + k])
            i += k
            tick += 1
