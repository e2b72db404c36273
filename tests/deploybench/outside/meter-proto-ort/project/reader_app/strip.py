"""The meter-reading service. A camera frame of the meter's counter is rectified into a strip
(8 rows x 8*n columns of 0..16 grey levels, one 8x8 cell per digit wheel); `CounterStrip` cuts it
into cells and the whole counter goes to the deployed model as one batch (n, 1, 8, 8) float32.
Gas meters have 5 wheels, water meters 6, electricity meters 7 or 8.

`run_inputs()` (aipc.toml) returns what the service feeds the deployed model for a recorded set
of counters; `python -m reader_app.strip` prints the service's digit accuracy with the eager model.
"""
from dataclasses import dataclass

import numpy as np
import torch

from meterread.digits import LEVELS, raw_crops

RECORDED_WHEELS = (5, 6, 7, 8, 5, 6)


@dataclass
class CounterStrip:
    pixels: np.ndarray          # (8, 8 * wheels), grey levels 0..16
    serial: str = ""

    @property
    def wheels(self) -> int:
        return self.pixels.shape[1] // 8

    def cells(self) -> np.ndarray:
        return self.pixels.reshape(8, self.wheels, 8).transpose(1, 0, 2)   # (wheels, 8, 8)

    def batch(self) -> np.ndarray:
        return (self.cells() / LEVELS).astype(np.float32)[:, None, :, :]


def recorded_counters(wheels=RECORDED_WHEELS, offset=0):
    """Counters assembled from held-out crops: (strips, digit labels per strip)."""
    images, labels = raw_crops("test")
    strips, truth, at = [], [], offset
    for i, n in enumerate(wheels):
        cells = images[at:at + n]
        strips.append(CounterStrip(np.concatenate(list(cells), axis=1), serial=f"M{i:05d}"))
        truth.append(labels[at:at + n])
        at += n
    return strips, truth


def run_inputs():
    strips, _ = recorded_counters()
    return [(s.batch(),) for s in strips]


def read_counter(model, strip: CounterStrip) -> str:
    with torch.no_grad():
        digits = model(torch.from_numpy(strip.batch())).argmax(1).tolist()
    return "".join(str(d) for d in digits)


if __name__ == "__main__":
    from meterread.hub import load_reader

    model = load_reader()
    strips, truth = recorded_counters(wheels=(6,) * 60)
    hits = sum(int(a == b) for s, t in zip(strips, truth) for a, b in zip(read_counter(model, s), "".join(map(str, t))))
    total = sum(len(t) for t in truth)
    print(f"service digit accuracy with the eager model: {hits / total:.4f} over {total} wheels")
