"""Inspection-station app: grabs 8-bit frames from the backlit conveyor camera and sorts parts
with the ONNX Runtime model.

The camera driver hands over one 20x20 uint8 frame per trigger; the app scales grey levels to
[0, 1] and feeds a (1, 1, 20, 20) float32 tensor. The backlight exposure varies from frame to
frame (that is what the model's automatic threshold is for), so the app does no normalisation
of its own.

aipc.toml names:
- run_inputs(): the frames of one recorded trigger burst (the first 12 of the recorded shift)
- app_eval():   every recorded, hand-labelled frame through the app's own path
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDING = os.path.join(HERE, "frames", "eval_frames.npz")  # a recorded shift, hand-labelled
PART_NAMES = ("washer", "hex_nut", "bolt", "l_bracket")


class FrameSource:
    """Replays a recorded shift the way the camera driver delivers it (uint8, one frame per trigger)."""

    def __init__(self, path=RECORDING):
        with np.load(path) as f:
            self.frames = f["frames"]
            self.labels = f["part"] if "part" in f else None

    def __iter__(self):
        for frame in self.frames:
            yield frame


def prepare(frame):
    return (frame.astype(np.float32) / 255.0).reshape(1, 1, *frame.shape)


def run_inputs(count=12):
    src = FrameSource()
    return [(prepare(f),) for f, _ in zip(src, range(count))]


def app_eval():
    src = FrameSource()
    return [(prepare(f),) for f in src], src.labels.astype(np.int64)


def main(model_path=os.path.join(HERE, "build", "model.onnx")):
    import onnxruntime as ort

    sess = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    for i, frame in enumerate(FrameSource()):
        logits = sess.run(None, {name: prepare(frame)})[0]
        print(f"trigger {i}: {PART_NAMES[int(logits.argmax())]}")


if __name__ == "__main__":
    main(*sys.argv[1:])
