"""The unit controller's application: every minute the controller's telemetry task publishes a
JSON snapshot; the triage task standardises it with the fleet scaler and runs the deployed .pte
(batch 1)."""
import json

import numpy as np

from coldroom import FEATURES, STATES
from coldroom.records import read_fleet_raw
from coldroom.scaling import SCALER


def snapshot_message(unit_id: str, minute: int, raw_row) -> str:
    """What the telemetry task publishes (engineering units)."""
    return json.dumps({"unit": unit_id, "minute": minute,
                       "channels": {k: round(float(v), 2) for k, v in zip(FEATURES, raw_row)}})


def model_input(message: str) -> np.ndarray:
    ch = json.loads(message)["channels"]
    row = np.array([[ch[k] for k in FEATURES]], dtype=np.float32)
    return SCALER.transform(row)                       # (1, 8) float32 z-scores


def replay(name: str = "fleet_eval.csv"):
    rows, states = read_fleet_raw(name)
    return [snapshot_message(f"CR-{i:04d}", i, r) for i, r in enumerate(rows)], states


def run_inputs():
    msgs, _ = replay()
    return [(model_input(m),) for m in msgs[:10]]


def app_eval():
    msgs, states = replay()
    return [(model_input(m),) for m in msgs], states


def triage(method, message: str) -> str:
    """method: executorch.runtime Method of the deployed .pte."""
    import torch
    logits = method.execute([torch.from_numpy(model_input(message))])[0]
    return STATES[int(logits.argmax())]
