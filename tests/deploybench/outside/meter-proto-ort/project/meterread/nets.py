"""The meter-reader architectures: a small depthwise-separable backbone (8x8 crop -> 32 x 4x4
feature map) and the prototype head. `meterproto_s` is the one the readers ship."""
from dataclasses import dataclass, field

from torch import nn

from meterread.blocks import ConvBnAct, DepthwiseSeparable
from meterread.prototypes import PrototypeHead, PrototypeSpec
from meterread.registry import register_model


@dataclass(frozen=True)
class BackboneSpec:
    in_chans: int = 1
    stem: int = 16
    stages: tuple = ((24, 2), (32, 1))   # (channels, stride) per stage


@dataclass(frozen=True)
class ReaderSpec:
    backbone: BackboneSpec = field(default_factory=BackboneSpec)
    head: PrototypeSpec = field(default_factory=PrototypeSpec)


class ProtoBackbone(nn.Module):
    def __init__(self, spec: BackboneSpec):
        super().__init__()
        self.stem = ConvBnAct(spec.in_chans, spec.stem, 3)
        blocks, cin = [], spec.stem
        for cout, stride in spec.stages:
            blocks.append(DepthwiseSeparable(cin, cout, stride))
            cin = cout
        self.stages = nn.Sequential(*blocks)
        self.num_features = cin

    def forward(self, x):
        return self.stages(self.stem(x))


class MeterProtoNet(nn.Module):
    def __init__(self, spec: ReaderSpec):
        super().__init__()
        self.backbone = ProtoBackbone(spec.backbone)
        self.head = PrototypeHead(spec.head)

    def forward(self, crops):
        return self.head(self.backbone(crops))


@register_model("meterproto_s", checkpoint="meterproto_s.pt")
def meterproto_s(**overrides):
    return MeterProtoNet(ReaderSpec(**overrides))
