"""The motion-levels network: a 1D CNN over a 3-axis motion window, with a level check in front.

Worn sensors misbehave in two ways the deployed model has to survive: a saturated axis (a peak
far above the 3 g a healthy window reaches) is clipped and halved back into range, and a dead sensor (peak
below 0.05) is treated as no motion at all. Healthy windows pass unchanged.
"""
import os

import torch

from nets.blocks import WindowClassifier

PARAMS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "motion_params.pt")
SATURATED, DEAD = 8.0, 0.05


class MotionNet(WindowClassifier):
    def __init__(self):
        super().__init__(axes=3, length=64, widths=(16, 32), classes=4)

    def forward(self, motion):
        peak = motion.abs().max()
        if peak > SATURATED:
            motion = motion.clamp(-SATURATED, SATURATED)
            motion = motion * 0.5
        elif peak < DEAD:
            motion = torch.zeros_like(motion)
        return self.readout(self.embed(motion))


def motion_net(params=PARAMS):
    if not os.path.isfile(params):
        raise FileNotFoundError(f"{params} missing: run `python train.py` first (seconds)")
    net = MotionNet()
    net.load_state_dict(torch.load(params, map_location="cpu", weights_only=True))
    return net.eval()
