"""Fermenter watch: every sniff cycle of the headspace e-nose is classified on the gateway
(ExecuTorch, XNNPACK) and a brewer is paged on spoilage, sulphur or a stuck fermentation.

The board's MCU DMAs each cycle as 12-bit ADC counts, elements x steps; the gateway logs the
sessions as logs/<session>.npz (`counts` uint16 (cycles, 8, 64), `states` where the lab
confirmed the tank's state).
"""
import os
from dataclasses import dataclass

import numpy as np
import torch

from headspace.board import VERDICTS, BoardConfig

LOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "logs")
PAGE_ON = {"acetic_spoilage", "sulfur_offflavour", "stuck_ferment"}


@dataclass
class SniffLog:
    counts: np.ndarray
    states: np.ndarray = None

    @classmethod
    def open(cls, session):
        with np.load(os.path.join(LOGS, session)) as z:
            return cls(z["counts"], z["states"] if "states" in z.files else None)


class ArrayReader:
    """One DMA'd cycle -> the tensor the classifier is fed."""

    def __init__(self, board: BoardConfig = BoardConfig()):
        self.board = board
        self.shape = (len(board.elements), board.steps)

    def _check(self, counts):
        if counts.shape != self.shape:
            raise ValueError(f"sniff cycle of shape {counts.shape}, the board gives {self.shape}")
        if counts.max() > self.board.adc_max:
            raise ValueError(f"count {int(counts.max())} above the {self.board.adc_bits}-bit ADC's range")

    def window(self, counts: np.ndarray) -> torch.Tensor:
        self._check(counts)
        frame = np.ascontiguousarray(counts, dtype=np.int16)   # 12-bit counts fit in int16
        return torch.from_numpy(frame).reshape(1, *self.shape)


class TankMonitor:
    def __init__(self, session="tank7_lab_checked.npz", board: BoardConfig = BoardConfig()):
        self.log = SniffLog.open(session)
        self.reader = ArrayReader(board)

    def cycles(self, limit=None):
        return self.log.counts if limit is None else self.log.counts[:limit]

    def sniff_inputs(self, limit=None):
        return [(self.reader.window(c),) for c in self.cycles(limit)]

    def assess(self, classify):
        """classify: one input tuple -> logits. Returns (verdicts, cycles to page about)."""
        verdicts = [VERDICTS[int(np.asarray(classify(*x)).argmax())] for x in self.sniff_inputs()]
        return verdicts, [i for i, v in enumerate(verdicts) if v in PAGE_ON]


def run_inputs():
    return TankMonitor().sniff_inputs(limit=12)


def app_eval():
    mon = TankMonitor()
    return mon.sniff_inputs(), torch.from_numpy(mon.log.states)


if __name__ == "__main__":
    from headspace.net import load_sniffnet

    net = load_sniffnet()
    with torch.no_grad():
        verdicts, pages = TankMonitor().assess(lambda x: net(x))
    print({v: verdicts.count(v) for v in VERDICTS}, f"{len(pages)} pages")
