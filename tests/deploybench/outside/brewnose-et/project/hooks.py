"""The entries aipc.toml names: SniffNet, one cycle, the lab-checked session (labelled) and a
calibration session from another tank, both converted to sensor responses."""
import torch

from headspace.net import load_sniffnet
from headspace.readout import ResponseConverter
from tank_monitor import SniffLog

CONVERT = ResponseConverter()


def sniffnet():
    return load_sniffnet()


def lab_checked():
    log = SniffLog.open("tank7_lab_checked.npz")
    return (torch.from_numpy(CONVERT(log.counts)),), torch.from_numpy(log.states)


def one_cycle():
    log = SniffLog.open("tank7_lab_checked.npz")
    return (torch.from_numpy(CONVERT(log.counts[:1])),)


def calibration_cycles():
    log = SniffLog.open("tank3_week12.npz")
    return [(torch.from_numpy(CONVERT(c[None])),) for c in log.counts]
