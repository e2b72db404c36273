"""The helpdesk intake service: ticket text from the inbox -> token ids -> queue.

The service reads the inbox export (tickets/<name>.jsonl: one {"text": ..., "queue": ...} per
line, queue present when an agent has triaged it), tokenizes each ticket on its own and feeds
the deployed router one ticket at a time (batch 1)."""
import json
import os
from dataclasses import dataclass

import numpy as np
import torch

from triage.lexicon import QUEUES
from triage.tokenize import DeskTokenizer

INBOX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tickets")


@dataclass
class InboxExport:
    texts: list
    queues: list

    @classmethod
    def read(cls, name):
        texts, queues = [], []
        with open(os.path.join(INBOX, name)) as fh:
            for line in fh:
                rec = json.loads(line)
                texts.append(rec["text"])
                queues.append(rec.get("queue"))
        return cls(texts, queues)

    def labels(self):
        return np.asarray([QUEUES.index(q) for q in self.queues], dtype=np.int64)


class IntakeDesk:
    def __init__(self, export="eval_inbox.jsonl"):
        self.inbox = InboxExport.read(export)
        self.tokenizer = DeskTokenizer()

    def encode(self, text):
        return self.tokenizer.ids(text)[None, :]

    def feeds(self, limit=None):
        texts = self.inbox.texts if limit is None else self.inbox.texts[:limit]
        return [(self.encode(t),) for t in texts]

    def route(self, run):
        return [QUEUES[int(np.argmax(run(x)))] for (x,) in self.feeds()]


def run_inputs():
    return IntakeDesk().feeds(limit=16)


def app_eval():
    desk = IntakeDesk()
    return desk.feeds(), torch.from_numpy(desk.inbox.labels())
