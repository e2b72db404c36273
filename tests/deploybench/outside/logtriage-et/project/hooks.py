"""aipc.toml [project] entries: the model and the offline harness' data (fixed-width batches)."""
import json

import torch

from triage.encoder import load_encoder
from triage.settings import HarnessSettings
from triage.tokenizer import LineTokenizer

HARNESS = HarnessSettings()


def _rows(path):
    with open(path) as f:
        return [json.loads(ln) for ln in f]


def _encode(lines):
    ids, mask = LineTokenizer.load().encode_batch(lines)
    return torch.from_numpy(ids), torch.from_numpy(mask)


def triage_model():
    return load_encoder(len(LineTokenizer.load()))


def example_line():
    ids, mask = _encode([_rows(HARNESS.eval_file)[0]["line"]])
    return (ids, mask)


def eval_lines():
    rows = _rows(HARNESS.eval_file)
    ids, mask = _encode([r["line"] for r in rows])
    return (ids, mask), torch.tensor([r["label"] for r in rows])


def calibration_lines():
    ids, mask = _encode([r["line"] for r in _rows(HARNESS.calib_file)])
    return [(ids[i:i + 1], mask[i:i + 1]) for i in range(len(ids))]
