"""The gateway on the bike's display unit: it reads the BMS CAN log, cuts 64 s windows and asks
the deployed health model (build/model.onnx) for the pack's state.

    python bms_gateway.py [logs/ride_0412.npz]
"""
import os
import sys

import numpy as np

from telemetry.codec import decode
from telemetry.simulate import CLASSES

HERE = os.path.dirname(os.path.abspath(__file__))
RIDE = os.path.join(HERE, "logs", "ride_0412.npz")


def read_ride(path=RIDE):
    with np.load(path) as z:
        return z["frames"]


def to_model_input(frames_raw):
    """One window of CAN frames (3, 128) int16 -> (1, 3, 128) float32 in V, A, degC."""
    return np.ascontiguousarray(decode(frames_raw)[None], dtype=np.float32)


def run_inputs():
    """The windows the gateway feeds the deployed model during one ride."""
    return [(to_model_input(w),) for w in read_ride()]


def main(path=RIDE, artifact=os.path.join(HERE, "build", "model.onnx")):
    import onnxruntime as ort

    sess = ort.InferenceSession(artifact, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    for k, w in enumerate(read_ride(path)):
        logits = sess.run(None, {name: to_model_input(w)})[0]
        print(f"window {k:2d} ({64 * k:4d} s): {CLASSES[int(logits.argmax())]}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
