"""Entries aipc.toml [project] names."""
import torch

from probe.net import build_net
from sorter_app import MapEncoder, ProbeLot

_ENC = MapEncoder()


def model():
    return build_net()


def _maps(lot):
    return torch.cat([_ENC(b) for b in lot.bins], dim=0)


def reviewed_lot():
    lot = ProbeLot.load("lot_Q4417")
    return (_maps(lot),), torch.from_numpy(lot.signature)


def one_wafer():
    lot = ProbeLot.load("lot_Q4417")
    return (_ENC(lot.bins[0]),)


def calibration_wafers():
    """An unreviewed lot from the same probe cell, same prober program."""
    lot = ProbeLot.load("lot_Q4420_unreviewed")
    return [(_ENC(b),) for b in lot.bins]
