"""CascadeEncoder: measurement tokens -> a tiny BERT stack (transformers, random init from a
config, trained by train.py) split in two: the shallow layers feed a quick exit head, the deep
layers a final head. The quick exit answers when the ExitPolicy says it is sure enough; otherwise
the deep layers run and the final head answers."""
import torch
from torch import nn
from transformers import BertModel

from triage.gating import ExitPolicy
from triage.settings import DEFAULT, CascadeSettings
from triage.tokens import MeasurementTokenizer


class ExitHead(nn.Module):
    """LayerNorm'd summary token -> class logits."""

    def __init__(self, width: int, classes: int):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(width, width), nn.Tanh(), nn.Linear(width, classes))

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.proj(hidden[:, 0])


class CascadeEncoder(nn.Module):
    def __init__(self, settings: CascadeSettings = DEFAULT):
        super().__init__()
        self.settings = settings
        stack = BertModel(settings.bert_config(), add_pooling_layer=False)
        self.tokenizer = MeasurementTokenizer(settings.features, settings.width)
        self.embeddings = stack.embeddings
        layers = list(stack.encoder.layer)
        self.shallow = nn.ModuleList(layers[: settings.shallow_layers])
        self.deep = nn.ModuleList(layers[settings.shallow_layers:])
        self.quick_head = ExitHead(settings.width, len(settings.classes))
        self.final_head = ExitHead(settings.width, len(settings.classes))
        self.policy = ExitPolicy(settings.exit_confidence)

    @staticmethod
    def _run(layers: nn.ModuleList, hidden: torch.Tensor) -> torch.Tensor:
        for layer in layers:
            hidden = layer(hidden)
        return hidden

    def both_exits(self, measurements: torch.Tensor):
        """(quick logits, final logits) without the policy: what train.py fits."""
        hidden = self._run(self.shallow, self.embeddings(inputs_embeds=self.tokenizer(measurements)))
        return self.quick_head(hidden), self.final_head(self._run(self.deep, hidden))

    def _answer(self, hidden: torch.Tensor) -> torch.Tensor:
        quick = self.quick_head(hidden)
        if self.policy.settled(quick):
            return quick
        return self.final_head(self._run(self.deep, hidden))

    def forward(self, measurements: torch.Tensor) -> torch.Tensor:
        hidden = self.embeddings(inputs_embeds=self.tokenizer(measurements))
        hidden = self._run(self.shallow, hidden)
        return self._answer(hidden)
