"""aipc.toml [project] entries of the polymer identifier."""
import numpy as np
import torch

from nirsort.archive import ScanArchive
from nirsort.calibration import CalibrationPool
from nirsort.network import load_polymernet
from nirsort.radiometry import Radiometry

RADIOMETRY = Radiometry()


def polymer_net():
    return load_polymernet()


def _handsorted():
    arch = ScanArchive("line_handsorted.npz")
    spectra = np.stack([RADIOMETRY.reflectance(arch[i]) for i in range(len(arch))])
    return torch.from_numpy(spectra).reshape(len(arch), 1, -1), torch.from_numpy(arch.labels.astype(np.int64))


def example_flake():
    x, _ = _handsorted()
    return (x[:1].clone(),)


def handsorted_flakes():
    x, y = _handsorted()
    return (x,), y


def calibration_flakes():
    pool = CalibrationPool()
    return [(pool[i],) for i in range(len(pool))]
