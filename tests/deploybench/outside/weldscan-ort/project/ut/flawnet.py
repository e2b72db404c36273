"""The flaw classifier: timm's ConvNeXt at a small width, one input channel (the envelope)."""
import os

import timm
import torch

from .geometry import FlawNetConfig

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "flawnet.pt")


def make_flawnet(cfg: FlawNetConfig = FlawNetConfig()) -> torch.nn.Module:
    return timm.create_model(cfg.arch, pretrained=False, in_chans=1, num_classes=len(cfg.classes),
                             dims=cfg.dims, depths=cfg.depths, drop_path_rate=cfg.drop_path_rate)


def load_flawnet(path: str = WEIGHTS, cfg: FlawNetConfig = FlawNetConfig()) -> torch.nn.Module:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` first")
    net = make_flawnet(cfg)
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
