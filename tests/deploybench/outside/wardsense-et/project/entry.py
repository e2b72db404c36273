"""What aipc.toml [project] points at."""
import torch

from sensor_gateway import DECODE, Recording
from wardsense.net import load_roomnet


def roomnet():
    return load_roomnet()


def annotated():
    r = Recording.open("ward_annotated.npz")
    return (torch.cat([DECODE(f) for f in r.raw]),), torch.from_numpy(r.states)


def first_frame():
    r = Recording.open("ward_annotated.npz")
    return (DECODE(r.raw[0]),)


def calibration_frames():
    r = Recording.open("ward_calibration.npz")
    return [(DECODE(f),) for f in r.raw]
