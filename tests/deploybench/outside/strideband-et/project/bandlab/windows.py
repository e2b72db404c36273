"""Stream -> network windows: (T, 3) -> (T // 64, 3, 64), channels first."""
import numpy as np

from bandlab.synth import WINDOW


def frame(stream):
    n = len(stream) // WINDOW
    return np.ascontiguousarray(stream[: n * WINDOW].reshape(n, WINDOW, 3).transpose(0, 2, 1))
