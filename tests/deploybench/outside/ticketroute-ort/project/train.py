"""Train the queue router on synthetic tickets; writes weights/router_fp16.pt (weights stored in
fp16 to keep the repository small, loaded as fp32) and the inbox exports tickets/*.jsonl.
Deterministic: fixed seeds (two threads; about a minute)."""
import json
import os

import torch
from torch import nn

from desk_service import INBOX
from triage.encoder import WEIGHTS, QueueRouter
from triage.lexicon import QUEUES, TicketSynth
from triage.tokenize import DeskTokenizer

TRAIN, EVAL, CALIB = 2400, 400, 64
EPOCHS, BATCH = 2, 32


def write_inbox(name, texts, labels=None):
    with open(os.path.join(INBOX, name), "w") as fh:
        for i, t in enumerate(texts):
            rec = {"text": t}
            if labels is not None:
                rec["queue"] = QUEUES[int(labels[i])]
            fh.write(json.dumps(rec) + "\n")


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    tok = DeskTokenizer()
    tr, ytr = TicketSynth(seed=1).draw(TRAIN)
    ev, yev = TicketSynth(seed=2).draw(EVAL)
    cal, _ = TicketSynth(seed=3).draw(CALIB)
    os.makedirs(INBOX, exist_ok=True)
    write_inbox("eval_inbox.jsonl", ev, yev)
    write_inbox("calib_inbox.jsonl", cal)
    x, y = torch.from_numpy(tok.batch(tr)), torch.from_numpy(ytr)
    xe, ye = torch.from_numpy(tok.batch(ev)), torch.from_numpy(yev)
    model = QueueRouter()
    steps = EPOCHS * ((len(y) + BATCH - 1) // BATCH)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=steps, pct_start=0.15)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            acc = (model(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, eval accuracy {acc:.4f}", flush=True)
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save({k: v.half() for k, v in model.state_dict().items()}, WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
