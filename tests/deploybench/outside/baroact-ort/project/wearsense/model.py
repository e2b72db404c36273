"""Activity encoder: a small BERT encoder (transformers) over 32 sensor time steps."""
import os

import torch
from torch import nn
from transformers import BertConfig, BertModel

from .config import EncoderConfig

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "activity_encoder.pt")


class BaroDetrend(nn.Module):
    """Barometer channel -> pressure change over the window.

    The unit feeds station pressure in hPa (955..1035 depending on weather and altitude);
    only its change over the window says anything about the activity, so the absolute level
    is removed here and the IMU channels pass through unchanged.
    """

    def __init__(self, imu_channels, gain):
        super().__init__()
        self.imu_channels = imu_channels
        # one gain per channel: IMU as is, pressure in model units per hPa
        self.register_buffer("channel_gain", torch.tensor([1.0] * imu_channels + [gain]), persistent=False)

    def forward(self, window):
        scaled = window * self.channel_gain
        imu = scaled[..., : self.imu_channels]
        baro = scaled[..., self.imu_channels:]
        delta = baro - baro.mean(dim=1, keepdim=True)
        return torch.cat([imu, delta], dim=-1)


class ActivityEncoder(nn.Module):
    def __init__(self, cfg: EncoderConfig = EncoderConfig()):
        super().__init__()
        lay = cfg.layout
        self.features = BaroDetrend(lay.imu_channels, cfg.baro_gain)
        self.embed = nn.Linear(lay.channels, cfg.hidden)
        bert_cfg = BertConfig(
            vocab_size=8, hidden_size=cfg.hidden, num_hidden_layers=cfg.layers,
            num_attention_heads=cfg.heads, intermediate_size=cfg.ffn,
            max_position_embeddings=lay.window, type_vocab_size=1,
            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
        )
        self.encoder = BertModel(bert_cfg, add_pooling_layer=False)
        self.head = nn.Linear(cfg.hidden, cfg.num_classes)

    def forward(self, window):
        x = self.embed(self.features(window))
        h = self.encoder(inputs_embeds=x).last_hidden_state
        return self.head(h.mean(dim=1))


def load_encoder(path=WEIGHTS):
    torch.manual_seed(0)
    model = ActivityEncoder()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
