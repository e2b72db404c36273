"""Entry points of the gateway app for the deployment checks: what it feeds the model."""
import numpy as np

from gateway.monitor import FanMonitor


def _eval_blocks():
    import hooks
    return hooks.windows(hooks.EVAL)


def run_inputs():
    raw, _ = _eval_blocks()
    monitor = FanMonitor()
    return [(monitor.model_input(raw[i]),) for i in range(4)]


def app_eval():
    raw, labels = _eval_blocks()
    monitor = FanMonitor()
    return [(monitor.model_input(block),) for block in raw], labels
