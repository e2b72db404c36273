"""The intent encoder: a 2-layer BERT (Hugging Face transformers) sized for the speaker's SoC,
with a thin wrapper that takes (input_ids, attention_mask) and returns the intent logits."""
from pathlib import Path

import torch
from torch import nn
from transformers import BertConfig, BertForSequenceClassification

from homehub.intents import INTENTS

CHECKPOINT = Path(__file__).resolve().parent.parent / "intent_bert.pt"


def encoder_config(vocab_size):
    return BertConfig(
        vocab_size=vocab_size, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=128, max_position_embeddings=64, num_labels=len(INTENTS),
        hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.0,
    )


class IntentEncoder(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.bert = BertForSequenceClassification(encoder_config(vocab_size))

    def forward(self, input_ids, attention_mask):
        return self.bert(input_ids=input_ids, attention_mask=attention_mask).logits


def restore(vocab_size, path=CHECKPOINT):
    if not Path(path).is_file():
        raise FileNotFoundError(f"{path} missing: run `python train.py` first")
    torch.manual_seed(0)
    model = IntentEncoder(vocab_size)
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
