"""Building blocks in the timm style: conv + BN + activation, squeeze-excite, and a
depthwise-separable block with an optional stride."""
from torch import nn


class ConvBnAct(nn.Sequential):
    def __init__(self, cin, cout, kernel=3, stride=1, groups=1, act=nn.ReLU):
        super().__init__(
            nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False),
            nn.BatchNorm2d(cout),
            act() if act is not None else nn.Identity(),
        )


class SqueezeExcite(nn.Module):
    def __init__(self, channels, rd_ratio=0.25):
        super().__init__()
        rd = max(4, int(channels * rd_ratio))
        self.reduce = nn.Conv2d(channels, rd, 1)
        self.expand = nn.Conv2d(rd, channels, 1)
        self.act = nn.ReLU()
        self.gate = nn.Sigmoid()

    def forward(self, x):
        s = x.mean((2, 3), keepdim=True)
        return x * self.gate(self.expand(self.act(self.reduce(s))))


class DepthwiseSeparable(nn.Module):
    def __init__(self, cin, cout, stride=1, se=True):
        super().__init__()
        self.dw = ConvBnAct(cin, cin, 3, stride, groups=cin)
        self.se = SqueezeExcite(cin) if se else nn.Identity()
        self.pw = ConvBnAct(cin, cout, 1, act=None)
        self.skip = stride == 1 and cin == cout

    def forward(self, x):
        y = self.pw(self.se(self.dw(x)))
        return x + y if self.skip else y
