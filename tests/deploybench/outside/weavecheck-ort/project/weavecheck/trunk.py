"""Feature trunk: timm's ResNet with BasicBlocks, narrowed for 32x32 grey patches."""
from timm.models.resnet import BasicBlock, ResNet

from .config import TrunkConfig


def build_trunk(cfg: TrunkConfig) -> ResNet:
    # num_classes=0, global_pool="": the inspector reads forward_features() and pools itself
    return ResNet(
        block=BasicBlock,
        layers=list(cfg.layers),
        channels=tuple(cfg.channels),
        in_chans=cfg.in_chans,
        stem_width=cfg.stem_width,
        output_stride=cfg.output_stride,
        num_classes=0,
        global_pool="",
    )
