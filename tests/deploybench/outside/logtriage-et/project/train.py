"""Builds the vocabulary, trains the triage encoder on synthetic gateway syslog and writes
assets/ (vocab.json, triage_encoder.pt, eval_lines.jsonl, calib_lines.jsonl, live_tail.log).
Deterministic: fixed seeds, one thread. About a minute on one core."""
import json
import os

import numpy as np
import torch
from torch import nn

from triage.corpus import synth_lines
from triage.encoder import TriageEncoder
from triage.settings import ASSETS, EncoderSettings, HarnessSettings
from triage.tokenizer import LineTokenizer

EPOCHS, BATCH, LR = 6, 32, 2e-3


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    os.makedirs(ASSETS, exist_ok=True)
    h = HarnessSettings()
    train = synth_lines(3000, seed=11)
    evals = synth_lines(400, seed=12)
    calib = synth_lines(64, seed=13)
    live = synth_lines(16, seed=14)
    tok = LineTokenizer.build([ln for ln, _ in train])
    tok.save()
    with open(h.eval_file, "w") as f:
        for ln, y in evals:
            f.write(json.dumps({"line": ln, "label": y}) + "\n")
    with open(h.calib_file, "w") as f:
        for ln, _ in calib:
            f.write(json.dumps({"line": ln}) + "\n")
    with open(h.live_file, "w") as f:
        f.write("".join(ln + "\n" for ln, _ in live))

    ids, mask = map(torch.from_numpy, tok.encode_batch([ln for ln, _ in train]))
    y = torch.tensor([c for _, c in train])
    eids, emask = map(torch.from_numpy, tok.encode_batch([ln for ln, _ in evals]))
    ey = torch.tensor([c for _, c in evals])
    lengths = mask.sum(1)
    print(f"vocab {len(tok)}, tokens per line {int(lengths.min())}..{int(lengths.max())} (median {int(lengths.median())})")

    model = TriageEncoder(len(tok))
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
    steps = EPOCHS * ((len(y) + BATCH - 1) // BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LR, total_steps=steps, pct_start=0.2)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            width = int(lengths[idx].max())          # trim the batch to its longest line
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(ids[idx, :width], mask[idx, :width]), y[idx])
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            acc = (model(eids, emask).argmax(1) == ey).float().mean().item()
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, eval accuracy {acc:.4f}", flush=True)
    torch.save(model.state_dict(), EncoderSettings().weights_file)


if __name__ == "__main__":
    main()
