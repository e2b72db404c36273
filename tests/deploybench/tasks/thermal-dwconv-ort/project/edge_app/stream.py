"""The edge app: frames come off the thermal camera as uint8 (height, width, band) arrays;
`FrameStream` standardises each one and asks the model for the scene class.

`frames_sent_to_model()` is what the app feeds the deployed model during one recorded stream
(aipc.toml names it as run_inputs).

    python -m edge_app.stream      # accuracy of the app's pipeline with the eager model
"""
import numpy as np
import torch

import frames as sensor
from thermal_net import load_trained

STREAM_LENGTH = 5


class FrameStream:
    def __init__(self):
        self.mean = sensor.BAND_MEAN
        self.std = sensor.BAND_STD

    def _standardise(self, frame):
        """Per-band standardisation of one uint8 frame, as the sensor's datasheet gives it."""
        return (frame / 255.0 - self.mean) / self.std

    def batch_of_one(self, frame):
        return self._standardise(frame)[None]

    def predict(self, net, frame):
        x = torch.from_numpy(self.batch_of_one(frame)).permute(0, 3, 1, 2).float()
        with torch.no_grad():
            return int(net(x).argmax(1))


def frames_sent_to_model():
    stream = FrameStream()
    recorded, _ = sensor.camera_frames(STREAM_LENGTH, seed=12)
    return [(stream.batch_of_one(frame),) for frame in recorded]


if __name__ == "__main__":
    net, stream = load_trained(), FrameStream()
    recorded, labels = sensor.camera_frames(400, seed=12)
    hits = sum(stream.predict(net, f) == int(t) for f, t in zip(recorded, labels))
    print(f"app accuracy with the eager model: {hits / len(labels):.4f} on {len(labels)} frames")
