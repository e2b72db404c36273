"""The receiver side of the echo-sounder app.

Each ping arrives from the transducer board as 40 uint16 ADC counts (one per range bin, 12-bit
converter). `Receiver.condition()` turns one ping into the tensor the classifier takes, and
`Receiver.classify()` asks the model. On the device the deployed model receives exactly what
`condition()` returns.

aipc.toml names two functions of this module: `pings_fed_to_model()` (run_inputs: what the app
feeds the model during one recorded pass) and `labelled_pass()` (app_eval_data: the same
conditioning over the whole held-out recording, with the true classes).

    python -m sonar_app.receiver     # the app's pipeline with the eager model
"""
import numpy as np
import torch

import echoes

RECORDED_PASS = 12


class Receiver:
    """Conditions raw pings from the ADC for the classifier."""

    def __init__(self, bins=echoes.RANGE_BINS, full_scale=echoes.ADC_FULL_SCALE):
        self.bins = bins
        self.full_scale = full_scale

    def condition(self, raw_ping):
        """One ping of ADC counts (40,) -> the classifier's input, float32 (1, 1, 40)."""
        counts = np.asarray(raw_ping)[: self.bins]
        # a saturated or glitched sample must not exceed the converter's range
        amplitude = np.clip(counts, 0, self.full_scale).astype(np.float32)
        return amplitude.reshape(1, 1, self.bins)

    def classify(self, model, raw_ping):
        with torch.no_grad():
            logits = model(torch.from_numpy(self.condition(raw_ping)))
        return echoes.KINDS[int(logits.argmax(1))]


def pings_fed_to_model():
    """What the app feeds the deployed model over one recorded pass: one conditioned ping per call."""
    rx = Receiver()
    pings, _ = echoes.evaluation_pings()
    return [(rx.condition(p),) for p in pings[:RECORDED_PASS]]


def labelled_pass():
    """The app's own path over every held-out ping (the raw form of eval_data, same order), with its label."""
    rx = Receiver()
    pings, labels = echoes.evaluation_pings()
    return [(rx.condition(p),) for p in pings], labels


def main():
    from rangenet import restore

    net, rx = restore(), Receiver()
    pings, labels = echoes.evaluation_pings()
    hits = sum(rx.classify(net, p) == echoes.KINDS[t] for p, t in zip(pings, labels))
    print(f"app pipeline, eager model: {hits / len(labels):.4f} on {len(labels)} pings")


if __name__ == "__main__":
    main()
