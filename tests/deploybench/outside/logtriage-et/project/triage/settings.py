"""Settings shared by training, the evaluation harness and the gateway agent."""
import os
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ASSETS = os.path.join(ROOT, "assets")

CATEGORIES = ("routine", "auth", "storage", "network", "power")


@dataclass(frozen=True)
class TokenizerSettings:
    max_tokens: int = 48          # [CLS] + 46 tokens + [SEP]; longer lines are cut
    min_count: int = 2            # words seen fewer times in training map to [UNK]
    vocab_file: str = field(default_factory=lambda: os.path.join(ASSETS, "vocab.json"))


@dataclass(frozen=True)
class EncoderSettings:
    hidden: int = 64
    layers: int = 2
    heads: int = 4
    ffn: int = 128
    max_positions: int = 128
    dropout: float = 0.1
    weights_file: str = field(default_factory=lambda: os.path.join(ASSETS, "triage_encoder.pt"))


@dataclass(frozen=True)
class HarnessSettings:
    """The offline evaluation harness batches lines at the tokenizer's fixed width."""
    eval_file: str = field(default_factory=lambda: os.path.join(ASSETS, "eval_lines.jsonl"))
    calib_file: str = field(default_factory=lambda: os.path.join(ASSETS, "calib_lines.jsonl"))
    live_file: str = field(default_factory=lambda: os.path.join(ASSETS, "live_tail.log"))
