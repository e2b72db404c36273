"""aipc.toml [project] entries of the ticket router."""
import torch

from helpdesk.dispatch import Inbox
from helpdesk.encoding import TicketEncoder
from triage.corpus import make_tickets
from triage.network import load_router

ENC = TicketEncoder()


def router():
    return load_router()


def _encode(texts):
    return tuple(torch.from_numpy(a) for a in ENC.encode(texts).as_feed())


def shift_tickets():
    """The labelled evaluation shift (same tickets, same order as helpdesk.dispatch.Inbox)."""
    inbox = Inbox()
    return _encode([t.text() for t in inbox.tickets]), torch.from_numpy(inbox.labels)


def one_ticket():
    inbox = Inbox()
    return _encode([inbox.tickets[0].text()])


def calibration_tickets():
    """Unlabelled tickets of another shift, one per call as the desk routes them."""
    texts, _ = make_tickets(64, seed=2024)
    return [_encode([t]) for t in texts]
