"""Triage agent: every poll cycle's sessions -> one encoder call -> incident kind per session.

Sessions of a poll are tokenised and padded to the longest of them (no fixed width: most
sessions are short and the encoder's cost grows with the width).
"""
import torch

from agent.collector import ReplayCollector
from triage.batching import PaddedBatcher
from triage.events import INCIDENTS
from triage.sessions import load_review_set


class TriageAgent:
    def __init__(self, runner=None):
        self.runner = runner

    @staticmethod
    def encode_poll(poll):
        width = 1 + max(len(s.events) for s in poll.sessions)
        return PaddedBatcher(width)(poll.sessions)

    def requests(self, collector):
        return [self.encode_poll(p) for p in collector.polls()]

    def triage(self, collector):
        verdicts = []
        for ids, mask in self.requests(collector):
            logits = torch.as_tensor(self.runner(ids, mask))
            verdicts += [INCIDENTS[int(k)] for k in logits.argmax(-1)]
        return verdicts


def run_inputs():
    return TriageAgent().requests(ReplayCollector(load_review_set()[:24]))


def app_eval():
    sessions = load_review_set()
    feeds = TriageAgent().requests(ReplayCollector(sessions))
    return feeds, torch.tensor([s.incident for s in sessions])
