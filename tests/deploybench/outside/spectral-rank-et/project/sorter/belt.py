"""The sorting line: the spectrometer reports raw counts (uint16, scans x bins) for every flake;
the line turns them into reflectance against its dark and white references and lets SpectrumNet
pick the bin the air jet blows the flake into.

`network_feed()` is what the line hands the network for a short recorded run (aipc.toml run_inputs).

    python -m sorter.belt          # sorting accuracy of the line with the eager network
"""
from dataclasses import dataclass

import numpy as np
import torch

from nirsort import spectra
from nirsort.model import restore
from nirsort.settings import CONFIG


@dataclass
class References:
    """Dark frame and white tile counts per bin, recorded at the start of a shift."""
    dark: np.ndarray
    white: np.ndarray

    @classmethod
    def of_shift(cls, seed=77):
        rng = np.random.default_rng(seed)
        bins = np.arange(CONFIG["bins"])
        lamp = 0.65 + 0.35 * np.exp(-0.5 * ((bins - 20) / 14.0) ** 2)   # halogen lamp profile
        dark = 800 + rng.normal(0, 5, CONFIG["bins"])
        return cls(dark=dark.astype(np.float32), white=(dark + 30000 * lamp).astype(np.float32))


class Spectrometer:
    """Replays recorded flakes as the instrument reports them: raw counts."""

    def __init__(self, refs: References):
        self.refs = refs

    def counts(self, reflectance):
        span = self.refs.white - self.refs.dark
        raw = self.refs.dark + np.asarray(reflectance) * span
        return np.clip(np.rint(raw), 0, 65535).astype(np.uint16)


class Sorter:
    def __init__(self, refs: References, net=None):
        self.refs = refs
        self.net = net

    def to_reflectance(self, counts):
        """(scans, bins) uint16 counts -> (1, scans, bins) float32 reflectance."""
        span = self.refs.white - self.refs.dark
        return ((counts.astype(np.float32) - self.refs.dark) / span)[None]

    def polymer(self, counts):
        with torch.no_grad():
            logits = self.net(torch.from_numpy(self.to_reflectance(counts)))
        return CONFIG["polymers"][int(logits.argmax(1))]


def recorded_run(count, seed=2002):
    refs = References.of_shift()
    reflectance, labels = spectra.scan_flakes(count, seed)
    meter = Spectrometer(refs)
    return refs, [meter.counts(r) for r in reflectance], labels


def network_feed(count=8):
    refs, flakes, _ = recorded_run(count)
    sorter = Sorter(refs)
    return [(sorter.to_reflectance(c),) for c in flakes]


if __name__ == "__main__":
    refs, flakes, labels = recorded_run(600)
    sorter = Sorter(refs, restore())
    hits = sum(sorter.polymer(c) == CONFIG["polymers"][t] for c, t in zip(flakes, labels))
    print(f"line accuracy with the eager network: {hits / len(labels):.4f} on {len(labels)} flakes")
