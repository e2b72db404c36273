"""The sorting-station application: after a cell's charge step, the channel controller hands
over the step's log (voltage in mV, current in mA, 10 s apart) and the station grades the cell
with the deployed .pte on the controller's Cortex-A core, one cell at a time."""
from dataclasses import dataclass

import numpy as np

from grading import GRADES, SAMPLES
from grading.dataset import read_station_file, to_step_log


@dataclass
class ChannelLog:
    channel: int
    voltage_mv: np.ndarray    # (96,) uint16
    current_ma: np.ndarray    # (96,) int16

    def model_input(self) -> np.ndarray:
        if self.voltage_mv.shape != (SAMPLES,) or self.current_ma.shape != (SAMPLES,):
            raise ValueError(f"channel {self.channel}: incomplete charge step log")
        return to_step_log(self.voltage_mv[None], self.current_ma[None])   # (1, 2, 96) [V, A]


def replay(name: str = "bench_eval.npz"):
    v, i, g = read_station_file(name)
    return [ChannelLog(k % 16, v[k], i[k]) for k in range(len(g))], g.astype(np.int64)


def run_inputs():
    logs, _ = replay()
    return [(log.model_input(),) for log in logs[:8]]


def app_eval():
    logs, grades = replay()
    return [(log.model_input(),) for log in logs], grades


def grade(method, log: ChannelLog) -> str:
    """method: an executorch.runtime Method loaded from the deployed .pte."""
    import torch
    logits = method.execute([torch.from_numpy(log.model_input())])[0]
    return GRADES[int(logits.argmax())]
