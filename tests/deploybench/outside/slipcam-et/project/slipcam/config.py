"""Configuration objects shared by training, the dataset code and the kiosk app."""
from dataclasses import dataclass, field
from typing import Tuple


@dataclass(frozen=True)
class BackboneConfig:
    """A tiny timm ResNet (one BasicBlock per stage), built from this config, no hub weights."""
    layers: Tuple[int, ...] = (1, 1, 1, 1)
    channels: Tuple[int, ...] = (16, 32, 48, 64)
    stem_width: int = 16
    num_classes: int = 10
    in_chans: int = 3


@dataclass(frozen=True)
class FrameSpec:
    """What the dock camera's crop stage delivers, and how the network wants it.

    Crops arrive as uint8 RGB, height x width x 3 (the camera SDK's layout). The network takes
    float32 (N, 3, H, W), each channel standardised with the statistics of the training crops.
    """
    height: int = 32
    width: int = 32
    channel_mean: Tuple[float, float, float] = (0.5967, 0.5969, 0.5969)
    channel_std: Tuple[float, float, float] = (0.2177, 0.2166, 0.2158)


@dataclass(frozen=True)
class TrainConfig:
    seed: int = 11
    epochs: int = 12
    batch: int = 64
    lr: float = 3e-3
    weight_decay: float = 5e-4


BACKBONE = BackboneConfig()
FRAME = FrameSpec()
TRAIN = TrainConfig()
WEIGHTS = "weights/slipnet_r4.pt"
