"""The inspector network: a small ViT (transformers ViTForImageClassification) on one-channel
32x32 cell crops; the wrapper returns the logits tensor."""
import os

import torch
from torch import nn
from transformers import ViTConfig, ViTForImageClassification

from .config import DEFECTS, InspectorCfg

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "el_vit.pt")


def vit_config(cfg: InspectorCfg) -> ViTConfig:
    v = cfg.vit
    return ViTConfig(
        image_size=cfg.camera.cell_px, patch_size=v.patch, num_channels=1,
        hidden_size=v.hidden, num_hidden_layers=v.layers, num_attention_heads=v.heads,
        intermediate_size=v.mlp, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
        num_labels=cfg.num_classes, id2label=dict(enumerate(DEFECTS)), label2id={d: i for i, d in enumerate(DEFECTS)},
    )


class CellInspector(nn.Module):
    def __init__(self, cfg: InspectorCfg = InspectorCfg()):
        super().__init__()
        self.cfg = cfg
        self.vit = ViTForImageClassification(vit_config(cfg))

    def forward(self, cell):
        return self.vit(pixel_values=cell).logits


def load_inspector(path: str = WEIGHTS) -> CellInspector:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py`")
    net = CellInspector()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
