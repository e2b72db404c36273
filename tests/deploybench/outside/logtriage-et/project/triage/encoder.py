"""The triage classifier: a 2-layer BERT encoder (transformers) over the line's tokens; the
[CLS] state through BERT's pooler and a linear layer gives the category logits."""
import os

import torch
from torch import nn
from transformers import BertConfig, BertForSequenceClassification

from .settings import CATEGORIES, EncoderSettings


def bert_config(vocab_size, s: EncoderSettings):
    return BertConfig(
        vocab_size=vocab_size, hidden_size=s.hidden, num_hidden_layers=s.layers,
        num_attention_heads=s.heads, intermediate_size=s.ffn, max_position_embeddings=s.max_positions,
        hidden_dropout_prob=s.dropout, attention_probs_dropout_prob=s.dropout,
        type_vocab_size=1, num_labels=len(CATEGORIES), attn_implementation="sdpa",
    )


class TriageEncoder(nn.Module):
    """(token_ids, attention_mask) int64 (batch, tokens) -> category logits (batch, 5)."""

    def __init__(self, vocab_size, settings: EncoderSettings = EncoderSettings()):
        super().__init__()
        self.settings = settings
        self.bert = BertForSequenceClassification(bert_config(vocab_size, settings))

    def forward(self, token_ids, attention_mask):
        return self.bert(input_ids=token_ids, attention_mask=self._additive_mask(attention_mask)).logits

    @staticmethod
    def _additive_mask(attention_mask):
        """(batch, tokens) 1/0 -> (batch, 1, 1, tokens) 0 / -inf-like, the form BERT adds to its
        attention scores (padding positions get no weight)."""
        keep = attention_mask[:, None, None, :].to(torch.float32)
        return (1.0 - keep) * torch.finfo(torch.float32).min


def load_encoder(vocab_size, settings: EncoderSettings = EncoderSettings()):
    if not os.path.isfile(settings.weights_file):
        raise FileNotFoundError(f"{settings.weights_file} not found: run `python train.py` first")
    torch.manual_seed(0)
    model = TriageEncoder(vocab_size, settings)
    model.load_state_dict(torch.load(settings.weights_file, map_location="cpu", weights_only=True))
    return model.eval()
