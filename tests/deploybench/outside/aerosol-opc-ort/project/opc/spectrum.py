"""Count spectra -> the classifier's input.

The classifier reads log10(counts + 1) of each bin, standardised per bin with the mean and
standard deviation of the 2023 archive (opc/bin_stats.json, written by train.py):

    x = (log10(counts + 1) - mean) / std          shape (N, 16), float32
"""
import json
from functools import lru_cache
from pathlib import Path

import numpy as np

STATS = Path(__file__).resolve().parent / "bin_stats.json"


def log_counts(counts):
    """Counts per litre -> log10(counts + 1), float32."""
    return np.log10(np.asarray(counts, dtype=np.float64) + 1.0).astype(np.float32)


class BinScaler:
    def __init__(self, mean, std):
        self.mean = np.asarray(mean, dtype=np.float32)
        self.std = np.asarray(std, dtype=np.float32)

    @classmethod
    def fit(cls, log_spectra):
        return cls(log_spectra.mean(0), log_spectra.std(0) + 1e-3)

    def save(self, path=STATS):
        Path(path).write_text(json.dumps({"mean": self.mean.tolist(), "std": self.std.tolist()}, indent=1) + "\n")

    def standardise(self, log_spectra):
        """log10 spectra -> model input."""
        return ((np.asarray(log_spectra, dtype=np.float32) - self.mean) / self.std).astype(np.float32)

    def from_counts(self, counts):
        """Counts per litre -> model input."""
        return self.standardise(log_counts(counts))


@lru_cache(maxsize=1)
def bin_scaler(path=STATS):
    if not Path(path).is_file():
        raise FileNotFoundError(f"{path} not found: run `python train.py` first")
    d = json.loads(Path(path).read_text())
    return BinScaler(d["mean"], d["std"])
