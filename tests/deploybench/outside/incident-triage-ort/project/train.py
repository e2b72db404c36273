"""Trains the triage encoder on simulated sessions (fixed seeds, under a minute on 2 cores).

Batches are padded to their own longest session (as in production), so the encoder sees every
width; the attention mask keeps padding out of the [CLS] summary.
"""
import torch
from torch import nn

from triage.batching import PaddedBatcher
from triage.encoder import WEIGHTS, TriageEncoder
from triage.sessions import simulate_many


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    sessions = simulate_many(seed=11, n=2400)
    model = TriageEncoder()
    opt = torch.optim.AdamW(model.parameters(), lr=4e-3, weight_decay=0.01)
    lossf = nn.CrossEntropyLoss()
    for epoch in range(3):
        model.train()
        perm = torch.randperm(len(sessions)).tolist()
        for i in range(0, len(perm), 32):
            batch = [sessions[j] for j in perm[i:i + 32]]
            width = max(len(s.events) for s in batch) + 1
            ids, mask = PaddedBatcher(width)(batch)
            y = torch.tensor([s.incident for s in batch])
            opt.zero_grad()
            loss = lossf(model(ids, mask), y)
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
    model.eval()
    torch.save(model.state_dict(), WEIGHTS)
    from hooks import review_set
    (ids, mask), y = review_set()
    with torch.no_grad():
        print("review accuracy", (model(ids, mask).argmax(1) == y).float().mean().item())


if __name__ == "__main__":
    main()
