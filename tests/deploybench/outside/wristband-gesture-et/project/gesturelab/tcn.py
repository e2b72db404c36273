"""GestureTCN: a small temporal conv net over a 1.28 s window of standardised IMU channels."""
from torch import nn

from .imu import CHANNELS, WINDOW
from .synth import GESTURES


def _block(cin, cout, k, stride):
    return nn.Sequential(nn.Conv1d(cin, cout, k, stride=stride, padding=k // 2), nn.BatchNorm1d(cout), nn.ReLU())


class GestureTCN(nn.Module):
    def __init__(self, channels=len(CHANNELS), classes=len(GESTURES)):
        super().__init__()
        self.body = nn.Sequential(
            _block(channels, 16, 5, 1),
            _block(16, 32, 5, 2),
            _block(32, 32, 3, 2),
        )
        # the whole (downsampled) window feeds the classifier: where in the window a motion
        # happens matters less than its shape, but a dense read-out keeps every op on XNNPACK
        self.classify = nn.Linear(32 * (WINDOW // 4), classes)

    def forward(self, imu):
        return self.classify(self.body(imu).flatten(1))
