"""Entries of aipc.toml [project]: the desk's backtest windows, model-ready."""
import torch

from regime.tape import load_tape

BACKTEST = "backtest_q3"


def backtest_windows():
    tape = load_tape(BACKTEST)
    return (torch.from_numpy(tape.relative()),), torch.from_numpy(tape.regime)


def one_window():
    (x,), _ = backtest_windows()
    return (x[:1].clone(),)


def calibration_windows():
    (x,), _ = backtest_windows()
    return [(x[i:i + 1].clone(),) for i in range(0, len(x), 4)]
