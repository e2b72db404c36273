"""Configuration of the cascade encoder: one dataclass, turned into a `transformers` BertConfig
for the shared transformer stack."""
from dataclasses import dataclass, field

from transformers import BertConfig


@dataclass(frozen=True)
class CascadeSettings:
    features: int = 30            # nucleus measurements per case (mean / error / worst of 10)
    width: int = 32
    heads: int = 2
    ffn: int = 64
    shallow_layers: int = 2       # layers read before the quick exit
    deep_layers: int = 2          # layers read when the quick exit is not sure
    classes: tuple = ("malignant", "benign")
    exit_confidence: float = 0.88 # softmax probability the quick exit must reach (it is trained with
                                  # label smoothing 0.2, so it tops out near 0.91)
    seed: int = 17
    extra: dict = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return self.features + 1  # a summary token in front of the feature tokens

    def bert_config(self) -> BertConfig:
        return BertConfig(
            vocab_size=2,                     # the stack reads embeddings, never token ids
            hidden_size=self.width,
            num_hidden_layers=self.shallow_layers + self.deep_layers,
            num_attention_heads=self.heads,
            intermediate_size=self.ffn,
            max_position_embeddings=self.tokens + 1,
            type_vocab_size=1,
            hidden_dropout_prob=0.1,
            attention_probs_dropout_prob=0.0,
            attn_implementation="eager",
            **self.extra,
        )


DEFAULT = CascadeSettings()
