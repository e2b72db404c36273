"""The SCADA-side client: every 2 s it polls the feeder bay's 16 readings (engineering units,
telemetry.FIELDS order), standardises them and asks the classifier for the bay's state.

aipc.toml names `polled_inputs()` (run_inputs: what the client feeds the deployed model over a
short polling run) and `polled_eval()` (app_eval_data: the same path over the held-out snapshots,
with their states).

    python -m gridwatch.scada_client     # the client's pipeline with the eager model
"""
from dataclasses import dataclass

import numpy as np
import torch

from gridwatch import telemetry

POLLS = 10


@dataclass
class BayPoll:
    """One poll of the bay, as the RTU reports it."""
    readings: np.ndarray  # (16,) float32, engineering units

    def model_input(self):
        return telemetry.standardise(self.readings[None, :])


class ScadaClient:
    def __init__(self, model=None):
        self.model = model

    def state_of(self, poll):
        with torch.no_grad():
            logits = self.model(torch.from_numpy(poll.model_input()))
        return telemetry.STATES[int(logits.argmax(1))]


def _polls(count, seed):
    readings, states = telemetry.poll(count, seed)
    return [BayPoll(r) for r in readings], states


def polled_inputs():
    polls, _ = _polls(POLLS, seed=42)
    return [(p.model_input(),) for p in polls]


def polled_eval():
    """The client's own path over the held-out snapshots (eval_data's raw readings, same order)."""
    polls, states = _polls(1000, seed=42)
    return [(p.model_input(),) for p in polls], states


def main():
    from gridwatch.classifier import load_disturbance_net

    client = ScadaClient(load_disturbance_net())
    polls, states = _polls(1000, seed=42)
    hits = sum(client.state_of(p) == telemetry.STATES[s] for p, s in zip(polls, states))
    print(f"SCADA client pipeline, eager model: {hits / len(states):.4f} on {len(states)} polls")


if __name__ == "__main__":
    main()
