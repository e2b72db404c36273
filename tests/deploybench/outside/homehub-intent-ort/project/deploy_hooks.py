"""Entry points the deployment pipeline reads (aipc.toml [project])."""
import json
from functools import lru_cache
from pathlib import Path

import torch

from homehub.encoder import restore
from homehub.intents import INTENT_ID
from homehub.wordpiece_lite import WordTokenizer

DATA = Path(__file__).resolve().parent / "data"
EXAMPLE_TOKENS = 16      # export example: one short command in a 16-token window


def _read(name):
    with open(DATA / name) as f:
        return [json.loads(line) for line in f]


@lru_cache(maxsize=None)
def tokenizer():
    return WordTokenizer.from_file()


def load_model():
    return restore(len(tokenizer()))


def encode(texts, pad_to=None):
    enc = tokenizer().encode_batch(texts, pad_to=pad_to)
    return torch.from_numpy(enc.input_ids), torch.from_numpy(enc.attention_mask)


def example_inputs():
    return encode(["hey hub turn on the kitchen lights"], pad_to=EXAMPLE_TOKENS)


def eval_set():
    rows = _read("transcripts_eval.jsonl")
    ids, mask = encode([r["text"] for r in rows])
    return (ids, mask), torch.tensor([INTENT_ID[r["intent"]] for r in rows])


def calibration_set():
    rows = _read("transcripts_train.jsonl")[:64]
    return [encode([r["text"]]) for r in rows]


def train_set():
    rows = _read("transcripts_train.jsonl")
    return [r["text"] for r in rows], torch.tensor([INTENT_ID[r["intent"]] for r in rows])
