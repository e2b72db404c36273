"""The routing network: a small BERT encoder (transformers) with a sequence-classification head."""
import os

import torch
from torch import nn
from transformers import BertConfig, BertForSequenceClassification

from .vocabulary import QUEUES, Vocabulary

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "ticket_router.pt")


def router_config():
    return BertConfig(
        vocab_size=len(Vocabulary()),
        hidden_size=192,
        num_hidden_layers=4,
        num_attention_heads=4,
        intermediate_size=768,
        hidden_act="gelu",
        max_position_embeddings=64,
        type_vocab_size=1,
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1,
        num_labels=len(QUEUES),
    )


class TicketRouter(nn.Module):
    """input_ids, attention_mask (int64, (batch, 48)) -> queue logits (batch, 6)."""

    def __init__(self):
        super().__init__()
        self.bert = BertForSequenceClassification(router_config())

    def forward(self, input_ids, attention_mask):
        return self.bert(input_ids=input_ids, attention_mask=attention_mask).logits


def load_router(path=WEIGHTS):
    torch.manual_seed(0)
    model = TicketRouter()
    state = torch.load(path, map_location="cpu")
    model.load_state_dict({k: v.float() for k, v in state.items()})
    return model.eval()
