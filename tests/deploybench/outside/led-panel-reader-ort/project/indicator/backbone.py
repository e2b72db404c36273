"""The reader network: timm's ConvNeXt family at a tiny width (4 stages of one block, 16-48
channels, a 2x2 patchify stem for 32x32 crops), trained from scratch on the LED crops."""
from pathlib import Path

import timm
import torch

from indicator.labels import LED_STATES

CHECKPOINT = Path(__file__).resolve().parent.parent / "checkpoints" / "led_convnext.pt"
ARCH = dict(depths=(1, 1, 1, 1), dims=(16, 24, 32, 48), patch_size=2)


def create_reader_net():
    return timm.create_model("convnext_atto", pretrained=False, num_classes=len(LED_STATES), **ARCH)


def load_reader_net(checkpoint: Path = CHECKPOINT):
    if not Path(checkpoint).is_file():
        raise FileNotFoundError(f"{checkpoint} missing: run `python train.py`")
    net = create_reader_net()
    net.load_state_dict(torch.load(checkpoint, map_location="cpu", weights_only=True))
    return net.eval()
