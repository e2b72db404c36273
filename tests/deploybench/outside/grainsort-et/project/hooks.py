"""Entries aipc.toml [project] names."""
import torch

from kernelnet.conditioning import Conditioner
from kernelnet.model import build_grader
from sorter.lots import LotRecording


def grader():
    return build_grader()


def _conditioned(name):
    lot = LotRecording.load(name)
    return torch.from_numpy(Conditioner(lot.dark, lot.white)(lot.raw)), lot


def lab_lot():
    x, lot = _conditioned("lab_graded_lot.npz")
    return (x,), torch.from_numpy(lot.grades)


def one_kernel():
    x, _ = _conditioned("lab_graded_lot.npz")
    return (x[:1].clone(),)


def calibration_kernels():
    """Ungraded kernels of another run (its own references), 64 of them."""
    x, _ = _conditioned("calibration_run.npz")
    return [(x[i:i + 1].clone(),) for i in range(64)]
