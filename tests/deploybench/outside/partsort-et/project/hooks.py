"""aipc.toml [project] entries."""
import torch

from partsort.frames import open_capture, to_patches
from partsort.net import load_sorter


def sorter():
    return load_sorter()


def audit_batch():
    frames, labels = open_capture("audit_shift.npz")
    return (to_patches(frames),), torch.from_numpy(labels)


def single_patch():
    frames, _ = open_capture("audit_shift.npz")
    return (to_patches(frames[:1]),)


def line_calibration():
    frames, _ = open_capture("line_unlabelled.npz")
    x = to_patches(frames)
    return [(x[i:i + 1],) for i in range(len(x))]
