"""The on-device intent service: the gateway hands it micro-batches of ASR transcripts, it
tokenizes each micro-batch (padded to its longest transcript) and runs the deployed encoder."""
import json
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from homehub.intents import INTENTS
from homehub.wordpiece_lite import WordTokenizer

REQUEST_LOG = Path(__file__).resolve().parent.parent / "data" / "request_log.jsonl"


@dataclass(frozen=True)
class ServiceConfig:
    artifact: str = "build/model.onnx"
    max_tokens: int = 48          # the position table holds 64; longer transcripts are cut
    intra_op_threads: int = 1


@dataclass
class Request:
    batch: int
    device: str
    transcript: str


def read_request_log(path=REQUEST_LOG):
    """The gateway's log: one request a line, tagged with the micro-batch it arrived in."""
    groups = OrderedDict()
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            groups.setdefault(rec["batch"], []).append(Request(rec["batch"], rec["device"], rec["transcript"]))
    return list(groups.values())


class FeatureBuilder:
    def __init__(self, config: ServiceConfig, tokenizer: WordTokenizer):
        self.config = config
        self.tokenizer = tokenizer

    def build(self, requests):
        enc = self.tokenizer.encode_batch([r.transcript for r in requests], max_length=self.config.max_tokens)
        return enc.input_ids, enc.attention_mask


class IntentService:
    def __init__(self, config: ServiceConfig = ServiceConfig()):
        self.config = config
        self.features = FeatureBuilder(config, WordTokenizer.from_file())
        self._session = None

    def _runtime(self):
        if self._session is None:
            import onnxruntime as ort
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = self.config.intra_op_threads
            self._session = ort.InferenceSession(self.config.artifact, opts, providers=["CPUExecutionProvider"])
        return self._session

    def handle(self, requests):
        input_ids, attention_mask = self.features.build(requests)
        logits = self._runtime().run(None, {"input_ids": input_ids, "attention_mask": attention_mask})[0]
        return [INTENTS[i] for i in np.argmax(logits, axis=1)]


def replay_traffic():
    """aipc run_inputs: the feeds the service builds for each micro-batch of the request log."""
    service = IntentService()
    return [service.features.build(group) for group in read_request_log()]


def main():
    service = IntentService()
    for group in read_request_log():
        for req, intent in zip(group, service.handle(group)):
            print(f"{req.device}: {intent:16s} <- {req.transcript}")


if __name__ == "__main__":
    main()
