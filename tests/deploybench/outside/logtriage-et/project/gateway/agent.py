"""The gateway's triage agent: follows the syslog tail and tags each new line with a category
so that only auth / storage / network / power lines are forwarded to the operations centre.

Lines arrive one at a time; each is encoded at its own length (no padding: a typical line is
15-30 tokens and the gateway's CPU is small), then handed to the deployed encoder.
"""
import json
from dataclasses import dataclass

import numpy as np
import torch

from triage.settings import CATEGORIES, HarnessSettings
from triage.tokenizer import LineTokenizer


@dataclass
class EncodedLine:
    token_ids: np.ndarray        # (1, n) int64
    attention_mask: np.ndarray   # (1, n) int64, all ones

    def as_inputs(self):
        return (torch.from_numpy(self.token_ids), torch.from_numpy(self.attention_mask))


class LineEncoder:
    def __init__(self, tokenizer: LineTokenizer):
        self.tokenizer = tokenizer

    def __call__(self, line: str) -> EncodedLine:
        ids = np.asarray(self.tokenizer.ids(line), dtype=np.int64)[None, :]
        return EncodedLine(ids, np.ones_like(ids))


class LogTail:
    """Reads the lines the agent has not processed yet (here: a captured tail of the gateway log)."""

    def __init__(self, path):
        self.path = path

    def lines(self, limit=None):
        with open(self.path) as f:
            out = [ln.rstrip("\n") for ln in f if ln.strip()]
        return out if limit is None else out[:limit]


class TriageAgent:
    def __init__(self, harness: HarnessSettings = HarnessSettings()):
        self.harness = harness
        self.encode = LineEncoder(LineTokenizer.load())

    def feed(self, lines):
        return [self.encode(line).as_inputs() for line in lines]

    def classify(self, run, line):
        logits = run(*self.encode(line).as_inputs())
        return CATEGORIES[int(torch.as_tensor(logits).argmax())]

    def forwardable(self, run, lines):
        return [ln for ln in lines if self.classify(run, ln) != "routine"]


def run_inputs():
    """What the agent feeds the deployed encoder: the next lines of the live tail."""
    agent = TriageAgent()
    return agent.feed(LogTail(agent.harness.live_file).lines(limit=16))


def app_eval():
    """The agent's own encoding of the evaluation lines (eval_data's samples, same order)."""
    agent = TriageAgent()
    with open(agent.harness.eval_file) as f:
        rows = [json.loads(ln) for ln in f]
    return agent.feed([r["line"] for r in rows]), torch.tensor([r["label"] for r in rows])
