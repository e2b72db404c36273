"""What the reader services load: the registered `meterproto_s` with its trained checkpoint."""
import torch

from meterread.registry import create_model

SHIPPED = "meterproto_s"


def load_reader(name: str = SHIPPED) -> torch.nn.Module:
    return create_model(name, pretrained=True).eval()
