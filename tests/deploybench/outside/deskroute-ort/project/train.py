"""Train the ticket router on the synthetic archive (fixed seeds, ~1.5 min on 2 cores)."""
import os
import time

import torch

from helpdesk.encoding import TicketEncoder
from triage.corpus import make_tickets
from triage.network import WEIGHTS, TicketRouter


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    enc = TicketEncoder()
    texts, labels = make_tickets(2000, seed=1)
    b = enc.encode(texts)
    ids, mask, y = torch.from_numpy(b.input_ids), torch.from_numpy(b.attention_mask), torch.from_numpy(labels)
    model = TicketRouter().train()
    opt = torch.optim.AdamW(model.parameters(), lr=8e-4, weight_decay=0.01)
    t0 = time.time()
    for epoch in range(2):
        perm = torch.randperm(len(y))
        for s in range(0, len(y), 64):
            i = perm[s:s + 64]
            loss = torch.nn.functional.cross_entropy(model(ids[i], mask[i]), y[i])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f} {time.time() - t0:.1f}s")
    model.eval()
    vt, vy = make_tickets(600, seed=7)
    vb = enc.encode(vt)
    with torch.no_grad():
        acc = (model(torch.from_numpy(vb.input_ids), torch.from_numpy(vb.attention_mask)).argmax(1).numpy() == vy).mean()
    print(f"eval accuracy {acc:.4f}")
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save({k: v.half() for k, v in model.state_dict().items()}, WEIGHTS)


if __name__ == "__main__":
    main()
