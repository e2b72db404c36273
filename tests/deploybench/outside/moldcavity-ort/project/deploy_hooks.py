"""Entries aipc.toml names: the net, its inputs, the QC-audited run and the calibration run."""
import torch

from cell_controller import CycleWindow, ShotLog
from moldsense.network import build_net

_WINDOW = CycleWindow()


def quality_net():
    return build_net()


def _stack(codes):
    return torch.cat([_WINDOW(c) for c in codes])


def audit_run():
    """Cycles quality control inspected part by part (400 cycles, labelled)."""
    log = ShotLog.load("qc_audit.npz")
    return (_stack(log.codes),), torch.from_numpy(log.verdicts)


def one_cycle():
    return (_stack(ShotLog.load("qc_audit.npz").codes[:1]),)


def night_shift_cycles():
    """64 unlabelled cycles of a night shift on the same tool, same DAQ."""
    log = ShotLog.load("night_shift.npz")
    return [(_WINDOW(c),) for c in log.codes[:64]]
