"""The shore-side monitor: takes the PCM clips the buoy uploads and classifies each with the
deployed network (build/model_int8.onnx when it exists, else build/model.onnx).

    python buoy_monitor.py [recordings/buoy_dump.npz]
"""
import os
import sys

import numpy as np

from hydro.scene import CLASSES, COUNTS_PER_UNIT

HERE = os.path.dirname(os.path.abspath(__file__))
DUMP = os.path.join(HERE, "recordings", "buoy_dump.npz")


def pcm_to_input(pcm):
    """One int16 clip (2048,) -> the network's input (1, 1, 2048) float32 in recorder units."""
    return (np.asarray(pcm, dtype=np.float32) / np.float32(COUNTS_PER_UNIT)).reshape(1, 1, -1)


def run_inputs(path=DUMP):
    with np.load(path) as z:
        return [(pcm_to_input(c),) for c in z["pcm"]]


def main(path=DUMP):
    import onnxruntime as ort

    artifact = os.path.join(HERE, "build", "model_int8.onnx")
    if not os.path.exists(artifact):
        artifact = os.path.join(HERE, "build", "model.onnx")
    sess = ort.InferenceSession(artifact, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    for k, (x,) in enumerate(run_inputs(path)):
        print(f"clip {k}: {CLASSES[int(sess.run(None, {name: x})[0].argmax())]}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
