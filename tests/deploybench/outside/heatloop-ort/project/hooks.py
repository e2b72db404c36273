"""aipc.toml [project] entries of the substation fault detector."""
import torch

from substation.channels import CHANNELS
from substation.detector import load_detector
from substation.historian import TrendExport
from substation.scaling import ChannelScaler
from substation_app import ControllerReplay

SCALER = ChannelScaler.load()


def detector():
    return load_detector()


def commissioning_windows():
    log = ControllerReplay.open("commissioning_log.npz")
    return (torch.from_numpy(SCALER.transform(log.telemetry)),), torch.from_numpy(log.conditions)


def one_window():
    (x,), _ = commissioning_windows()
    return (x[:1],)


def historian_week():
    """A week of unlabelled windows from the data platform (same substations, all seasons)."""
    export = TrendExport.load("historian_week.npz")
    windows = SCALER.transform(export.windows(CHANNELS))
    return [(torch.from_numpy(w[None]),) for w in windows]
