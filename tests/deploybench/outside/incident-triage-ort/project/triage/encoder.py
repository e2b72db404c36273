"""The triage encoder: a 2-layer BERT (transformers) over event tokens, [CLS] pooled."""
import os

import torch
from torch import nn
from transformers import BertConfig, BertForSequenceClassification

from triage.events import INCIDENTS, VOCAB

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "triage_bert.pt")


def encoder_config():
    return BertConfig(
        vocab_size=len(VOCAB), hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=128, max_position_embeddings=128, type_vocab_size=1,
        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
        pad_token_id=VOCAB.pad_id, num_labels=len(INCIDENTS),
    )


class TriageEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.bert = BertForSequenceClassification(encoder_config())

    def forward(self, input_ids, attention_mask):
        return self.bert(input_ids=input_ids, attention_mask=attention_mask).logits


def load_encoder(path=WEIGHTS):
    m = TriageEncoder()
    m.load_state_dict(torch.load(path, map_location="cpu"))
    return m.eval()
