"""A timm-style model registry: architectures register a builder under a name, `create_model`
builds one by name and optionally loads its checkpoint."""
import os
from typing import Callable, Dict

import torch

_BUILDERS: Dict[str, Callable] = {}
_CHECKPOINTS: Dict[str, str] = {}
CHECKPOINT_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "checkpoints")


def register_model(name: str, checkpoint: str = None):
    def wrap(builder: Callable) -> Callable:
        _BUILDERS[name] = builder
        if checkpoint:
            _CHECKPOINTS[name] = os.path.join(CHECKPOINT_DIR, checkpoint)
        return builder
    return wrap


def list_models():
    return sorted(_BUILDERS)


def checkpoint_path(name: str) -> str:
    return _CHECKPOINTS[name]


def create_model(name: str, pretrained: bool = False, **kwargs) -> torch.nn.Module:
    if name not in _BUILDERS:
        raise KeyError(f"unknown model {name!r}; registered: {', '.join(list_models())}")
    model = _BUILDERS[name](**kwargs)
    if pretrained:
        path = checkpoint_path(name)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{path} not found: run `python train.py` (seconds)")
        model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model
