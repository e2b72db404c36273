"""The queue classifier: a small BERT encoder (transformers) with mean pooling and a linear head."""
import os

import torch
from torch import nn
from transformers import BertConfig, BertModel

from triage.lexicon import QUEUES
from triage.tokenize import SEQ_LEN, DeskTokenizer

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "router_fp16.pt")


def encoder_config():
    return BertConfig(
        vocab_size=DeskTokenizer().size, hidden_size=192, num_hidden_layers=3, num_attention_heads=4,
        intermediate_size=768, max_position_embeddings=SEQ_LEN, type_vocab_size=1,
        hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1,
    )


class QueueRouter(nn.Module):
    def __init__(self, config=None):
        super().__init__()
        self.encoder = BertModel(config or encoder_config(), add_pooling_layer=False)
        self.head = nn.Linear(self.encoder.config.hidden_size, len(QUEUES))

    def forward(self, token_ids):
        hidden = self.encoder(input_ids=token_ids).last_hidden_state
        return self.head(hidden.mean(dim=1))


def load_router(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` first")
    model = QueueRouter()
    state = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict({k: v.float() for k, v in state.items()})
    return model.eval()
