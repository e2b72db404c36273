"""aipc.toml [project] entries of the station classifier."""
import torch

from seismo.network import load_eventnet
from station.digitizer import Digitizer, Recording

DIGITIZER = Digitizer()
REFERENCE_WINDOW = 1      # the felt local event of the commissioning report (reviewed window 1)


def eventnet():
    return load_eventnet()


def _velocity(name):
    rec = Recording.load(name)
    return torch.from_numpy(DIGITIZER.to_velocity(rec.counts)), rec.labels


def one_window():
    v, _ = _velocity("reviewed_events.npz")
    return (v[REFERENCE_WINDOW:REFERENCE_WINDOW + 1].clone(),)


def reviewed_events():
    v, labels = _velocity("reviewed_events.npz")
    return (v,), torch.from_numpy(labels)


def calibration_windows():
    """Unreviewed triggers of the previous month, same station and digitizer."""
    v, _ = _velocity("triggers_prev_month.npz")
    return [(v[i:i + 1].clone(),) for i in range(len(v))]
