"""ReadBinner: a tiny BERT (transformers BertForSequenceClassification built from a config,
random init, trained by train.py) over the read's base tokens; the [CLS] token's pooled state
scores the four taxa. It reads one unpadded read per call, any length up to 63 bases."""
from dataclasses import dataclass

import torch
from torch import nn
from transformers import BertConfig, BertForSequenceClassification

from readbin.alphabet import VOCAB
from readbin.taxa import TAXA


@dataclass(frozen=True)
class EncoderShape:
    width: int = 48
    layers: int = 2
    heads: int = 4
    ffn: int = 96
    max_tokens: int = 64          # [CLS] + up to 63 bases

    def to_bert(self) -> BertConfig:
        return BertConfig(
            vocab_size=VOCAB.size, hidden_size=self.width, num_hidden_layers=self.layers,
            num_attention_heads=self.heads, intermediate_size=self.ffn,
            max_position_embeddings=self.max_tokens, type_vocab_size=1, num_labels=len(TAXA),
            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, pad_token_id=0,
            attn_implementation="eager",
        )


class ReadBinner(nn.Module):
    def __init__(self, shape: EncoderShape = EncoderShape()):
        super().__init__()
        self.shape = shape
        self.bert = BertForSequenceClassification(shape.to_bert())

    def forward(self, token_ids: torch.Tensor) -> torch.Tensor:
        return self.bert(input_ids=token_ids).logits
