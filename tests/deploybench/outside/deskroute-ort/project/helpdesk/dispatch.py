"""The desk's dispatcher: every new ticket is routed alone (batch 1) as it arrives."""
from dataclasses import dataclass, field

import numpy as np
import torch

from triage.corpus import make_tickets
from triage.vocabulary import QUEUES

from .encoding import TicketEncoder


@dataclass
class Ticket:
    ticket_id: int
    subject: str
    body: str

    def text(self):
        return f"{self.subject} {self.body}".strip()


class Inbox:
    """The tickets of one shift (synthetic, seeded)."""

    def __init__(self, seed=7, n=600):
        texts, self.labels = make_tickets(n, seed)
        self.tickets = [Ticket(i, "", t) for i, t in enumerate(texts)]


@dataclass
class Dispatcher:
    encoder: TicketEncoder = field(default_factory=TicketEncoder)

    def feed_for(self, ticket):
        return tuple(torch.from_numpy(a) for a in self.encoder.encode([ticket.text()]).as_feed())

    def route(self, run, ticket):
        logits = run(*self.feed_for(ticket))
        return QUEUES[int(np.argmax(np.asarray(logits)))]


def run_inputs():
    inbox, d = Inbox(), Dispatcher()
    return [d.feed_for(t) for t in inbox.tickets[:16]]


def app_eval():
    inbox, d = Inbox(), Dispatcher()
    return [d.feed_for(t) for t in inbox.tickets], torch.from_numpy(inbox.labels)
