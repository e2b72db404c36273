"""The gateway's behaviour service: radio packets in, behaviour per collar out.

Pipeline, one packet at a time:
    ingest     capture file / radio -> CollarPacket           (collar.packets)
    window     CollarPacket -> ModelWindow                    (units + standardisation)
    infer      ModelWindow.tensor -> GaitTCN (ONNX Runtime)   (build/model.onnx on the gateway)

`gateway_replay()` is what the deployed model is fed (aipc.toml run_inputs): the window stage's
tensors for a replayed capture. `holdout_via_gateway()` runs the labelled holdout capture through
the same stages (aipc.toml app_eval_data).
"""
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .motion import BEHAVIOURS
from .packets import CollarPacket, read_capture
from .units import ChannelStandardiser, counts_to_physical

DATA = Path(__file__).resolve().parent.parent / "data"
HOLDOUT_CAPTURE = DATA / "holdout_capture.bin"
HOLDOUT_LABELS = DATA / "holdout_labels.npy"


@dataclass(frozen=True)
class ModelWindow:
    collar_id: int
    seq: int
    tensor: np.ndarray

    @classmethod
    def from_packet(cls, packet: CollarPacket, standardiser: ChannelStandardiser) -> "ModelWindow":
        physical = counts_to_physical(packet.counts)
        z = standardiser(physical)
        return cls(packet.collar_id, packet.seq, np.ascontiguousarray(z[np.newaxis], dtype=np.float32))


class BehaviourService:
    def __init__(self, standardiser=None):
        self.standardiser = standardiser or ChannelStandardiser.load()

    def window(self, packet):
        return ModelWindow.from_packet(packet, self.standardiser)

    def feed(self, packets):
        """The model inputs of a packet stream, one (tensor,) tuple per packet."""
        return [(self.window(p).tensor,) for p in packets]

    def classify(self, packets, onnx_path="build/model.onnx"):
        import onnxruntime as ort

        sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
        name = sess.get_inputs()[0].name
        out = []
        for p, (x,) in zip(packets, self.feed(packets)):
            logits = sess.run(None, {name: x})[0]
            out.append((p.collar_id, BEHAVIOURS[int(logits.argmax())]))
        return out


def gateway_replay(n=32):
    return BehaviourService().feed(read_capture(HOLDOUT_CAPTURE)[:n])


def holdout_via_gateway():
    return BehaviourService().feed(read_capture(HOLDOUT_CAPTURE)), np.load(HOLDOUT_LABELS)


if __name__ == "__main__":
    for collar_id, behaviour in BehaviourService().classify(read_capture(HOLDOUT_CAPTURE)[:10]):
        print(f"collar {collar_id}: {behaviour}")
