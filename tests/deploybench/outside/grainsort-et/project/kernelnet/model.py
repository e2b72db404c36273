"""The kernel grader: SNV spectrum -> encoder -> prototype distances -> grade logits."""
import os

import torch
from torch import nn

from .config import KernelNetCfg
from .encoder import SpectralEncoder
from .protohead import PrototypeHead

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "kernelnet.pt")


class KernelGrader(nn.Module):
    def __init__(self, cfg: KernelNetCfg = KernelNetCfg()):
        super().__init__()
        self.cfg = cfg
        self.encoder = SpectralEncoder(cfg.spectro.bands, cfg.encoder)
        self.head = PrototypeHead(cfg.num_grades, cfg.encoder.embed_dim, cfg.temperature)

    def forward(self, spectrum):
        return self.head(self.encoder(spectrum))


def build_grader(path: str = WEIGHTS, cfg: KernelNetCfg = KernelNetCfg()) -> KernelGrader:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py`")
    net = KernelGrader(cfg)
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
