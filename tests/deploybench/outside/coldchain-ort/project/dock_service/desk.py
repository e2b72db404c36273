"""The receiving desk: each truck's pallets are scored as one batch (accept / inspect / reject).

aipc.toml names `truck_batches` (run_inputs: what the desk feeds the deployed model for the
recorded trucks) and `labelled_arrivals` (app_eval_data: the desk's own path over the held-out
shipments, one pallet per request, with the QA outcomes).

    python -m dock_service.desk                       # desk path with the eager model
    python -m dock_service.desk --onnx build/model.onnx
"""
import argparse

import numpy as np
import torch

from dock_service.features import FeatureBuilder
from dock_service.messages import as_gateway_message
from reefer.datasets import eval_shipments

TRUCK_SIZES = (4, 6, 3, 5)


class TorchScorer:
    def __init__(self):
        from reefer.net import restore
        self.net = restore()

    def __call__(self, rows):
        with torch.no_grad():
            return self.net(torch.from_numpy(rows)).numpy()


class OnnxScorer:
    def __init__(self, path="build/model.onnx"):
        import onnxruntime as ort
        self.session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        self.name = self.session.get_inputs()[0].name

    def __call__(self, rows):
        return self.session.run(None, {self.name: rows})[0]


class ReceivingDesk:
    def __init__(self, scorer, builder=None):
        self.scorer = scorer
        self.builder = builder or FeatureBuilder()

    def decide(self, messages):
        return self.scorer(self.builder.build(messages)).argmax(1)


def recorded_messages():
    ships = eval_shipments()
    return [as_gateway_message(s) for s in ships], np.array([s.outcome for s in ships])


def truck_batches():
    messages, _ = recorded_messages()
    builder, out, i = FeatureBuilder(), [], 0
    for n in TRUCK_SIZES:
        out.append((builder.build(messages[i:i + n]),))
        i += n
    return out


def labelled_arrivals():
    messages, outcomes = recorded_messages()
    builder = FeatureBuilder()
    return [(builder.build([m]),) for m in messages], torch.from_numpy(outcomes)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnx", default=None)
    args = ap.parse_args()
    torch.set_num_threads(1)
    desk = ReceivingDesk(OnnxScorer(args.onnx) if args.onnx else TorchScorer())
    messages, outcomes = recorded_messages()
    decided = np.concatenate([desk.decide(messages[i:i + 8]) for i in range(0, len(messages), 8)])
    print(f"desk accuracy: {(decided == outcomes).mean():.4f} on {len(outcomes)} pallets")
