"""The meter's acquisition loop: the three line voltages are sampled by one ADC (int16 counts,
25 mV per count after the resistive divider) and classified together every 8 cycles. Each
phase's window is converted to per-unit of the nominal peak (230 V rms) and the three are fed
to the model as one batch.

`phase_batches()` is what the meter feeds the deployed model over a logged session (aipc.toml
run_inputs); `labelled_phases()` the same path over the holdout windows, with their labels
(app_eval_data).

    python -m meter.phases     # accuracy of the meter's path with the eager model
"""
import math
from dataclasses import dataclass

import numpy as np
import torch

from powerq.waveforms import EVENTS, LENGTH, substation_holdout

VOLTS_PER_COUNT = 0.025
NOMINAL_RMS = 230.0


@dataclass(frozen=True)
class PhaseFrontEnd:
    volts_per_count: float = VOLTS_PER_COUNT
    nominal_peak: float = NOMINAL_RMS * math.sqrt(2.0)

    def to_counts(self, per_unit: np.ndarray) -> np.ndarray:
        """What the ADC would have delivered for a per-unit waveform (used to replay logs)."""
        return np.clip(np.rint(per_unit * self.nominal_peak / self.volts_per_count), -32768, 32767).astype(np.int16)

    def to_per_unit(self, counts: np.ndarray) -> np.ndarray:
        return counts.astype(np.float32) * np.float32(self.volts_per_count / self.nominal_peak)

    def batch(self, l1: np.ndarray, l2: np.ndarray, l3: np.ndarray) -> np.ndarray:
        """Three phases' ADC windows -> the model's (3, 1, 512) float32 input."""
        return np.stack([self.to_per_unit(p) for p in (l1, l2, l3)])[:, None, :]


def _logged_counts(limit=None):
    (x,), y = substation_holdout()
    fe = PhaseFrontEnd()
    counts = fe.to_counts(x.numpy()[:, 0, :])
    return (counts, y) if limit is None else (counts[:limit], y[:limit])


def phase_batches(cycles: int = 4) -> list:
    """Inputs the meter feeds the deployed model: one (3, 1, 512) batch per 8-cycle window."""
    fe = PhaseFrontEnd()
    counts, _ = _logged_counts(3 * cycles)
    return [(fe.batch(*counts[3 * i:3 * i + 3]),) for i in range(cycles)]


def labelled_phases():
    """The meter's path over the holdout windows (three phases per batch), and their labels."""
    fe = PhaseFrontEnd()
    counts, labels = _logged_counts()
    return [(fe.batch(*counts[i:i + 3]),) for i in range(0, len(counts), 3)], labels


if __name__ == "__main__":
    from powerq.classifier import load_pqnet

    net = load_pqnet()
    feeds, labels = labelled_phases()
    with torch.no_grad():
        pred = torch.cat([net(torch.from_numpy(f[0])).argmax(1) for f in feeds])
    print(f"meter path accuracy with the eager model: {(pred == labels).float().mean():.4f} on {len(labels)} windows "
          f"({', '.join(EVENTS)})")
