"""aipc.toml [project] entries of the ticket router."""
import torch

from desk_service import InboxExport
from triage.encoder import load_router
from triage.tokenize import DeskTokenizer

_TOK = DeskTokenizer()


def router():
    return load_router()


def _ids(texts):
    return torch.from_numpy(_TOK.batch(texts))


def one_ticket():
    return (_ids(InboxExport.read("eval_inbox.jsonl").texts[:1]),)


def triaged_tickets():
    ex = InboxExport.read("eval_inbox.jsonl")
    return (_ids(ex.texts),), torch.from_numpy(ex.labels())


def calibration_tickets():
    """Untriaged tickets from another week of the inbox, one per batch."""
    ex = InboxExport.read("calib_inbox.jsonl")
    return [(_ids([t]),) for t in ex.texts]
